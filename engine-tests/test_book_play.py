"""Playing from books over UCI (YACB and Polyglot, told apart by content)."""
from __future__ import annotations

import chess
import chess.engine
import chess.polyglot

from conftest import ROOT, SHARED
from harness import Uci

GOLDEN = ROOT / "engine-tests" / "data" / "golden.yacb"
PERFORMANCE = SHARED / "books" / "performance.bin"


def test_engine_plays_its_yacb_book_moves_in_a_game(exe):
    """python-chess drives a game; the first two moves come from the golden book."""
    eng = chess.engine.SimpleEngine.popen_uci(exe)
    try:
        eng.configure({"BookFile": str(GOLDEN), "BookSelection": "best"})
        board = chess.Board()
        moves = []
        for _ in range(4):
            result = eng.play(board, chess.engine.Limit(time=0.05))
            assert result.move in board.legal_moves
            moves.append(result.move.uci())
            board.push(result.move)
        assert moves[:2] == ["e2e4", "c7c5"], moves
    finally:
        eng.quit()


def test_book_move_is_announced_and_bestmove_immediate(exe):
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name BookFile value {GOLDEN}")
    loaded = [l for l in u.ready() if l.startswith("info string")]
    assert any("1 book(s) loaded, 3 entries" in l for l in loaded), loaded
    u.send("position startpos", "go wtime 10000 btime 10000")
    lines, _ = u.bestmove(2)
    assert any(l.startswith("info string book move e2e4") for l in lines), lines
    assert lines[-1].split()[1] == "e2e4"
    u.send("setoption name OwnBook value false", "position startpos", "go depth 3")
    lines, _ = u.bestmove(10)
    assert not any("book move" in l for l in lines)
    u.close()


def test_polyglot_book_best_is_python_chess_heaviest_and_weighted_stays_in_book(exe):
    with chess.polyglot.open_reader(PERFORMANCE) as reader:
        eng = chess.engine.SimpleEngine.popen_uci(exe)
        try:
            eng.configure({"BookFile": str(PERFORMANCE), "BookSelection": "best"})
            board = chess.Board()
            for _ in range(6):
                entries = list(reader.find_all(board))
                if not entries:
                    break
                heaviest = max(e.weight for e in entries)
                move = eng.play(board, chess.engine.Limit(time=0.05)).move
                assert move in [e.move for e in entries if e.weight == heaviest], (board.fen(), move)
                board.push(move)
            eng.configure({"BookSelection": "weighted"})
            for _ in range(10):
                board = chess.Board()
                entries = list(reader.find_all(board))
                move = eng.play(board, chess.engine.Limit(time=0.05)).move
                assert move in [e.move for e in entries]
        finally:
            eng.quit()


def test_unusable_book_is_reported_and_engine_keeps_searching(exe, tmp_path):
    bad = tmp_path / "bad.yacb"
    bad.write_bytes(b"YACB" + bytes(27))  # one byte short of the header
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name BookFile value {bad}")
    msgs = [l for l in u.ready() if l.startswith("info string")]
    assert any("not used" in l and "truncated" in l for l in msgs), msgs
    u.send("position startpos", "go depth 2")
    lines, _ = u.bestmove(10)
    assert lines[-1].startswith("bestmove")
    u.close()


def test_truncated_book_file_is_named_with_its_byte_offset(exe, tmp_path):
    """A Polyglot book cut in the middle of an entry, next to a good one: the
    bad one is named with the offset of its partial entry, the good one plays."""
    good = ROOT / "engine-tests" / "data" / "shared" / "books" / "lasker-trap.bin"
    cut = tmp_path / "cut.bin"
    cut.write_bytes(good.read_bytes()[: 16 * 5 + 9])
    sbob = ROOT / "engine-tests" / "data" / "sbob_golden.sbob"
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name BookFile value {cut}:{sbob}:{good}")
    msgs = [l for l in u.ready() if l.startswith("info string")]
    assert any(f"not used: {cut}:" in l and "offset 80" in l for l in msgs), msgs
    assert any(f"not used: {sbob}:" in l and "book convert" in l for l in msgs), msgs
    assert any("1 book(s) loaded, 7 entries" in l for l in msgs), msgs
    u.close()
