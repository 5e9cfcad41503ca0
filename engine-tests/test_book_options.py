"""Book play options (issue 17): uniform selection, BookMinWeight, BookWidth,
per-colour books, ponder moves from the book, GUI aliases, BookLearn."""
from __future__ import annotations

import shutil
import struct

import chess
import chess.polyglot

from conftest import ROOT, SHARED
from harness import Uci

GOLDEN = ROOT / "engine-tests" / "data" / "golden.yacb"
PERFORMANCE = SHARED / "books" / "performance.bin"


def polyglot_move(move: chess.Move) -> int:
    promo = {None: 0, chess.KNIGHT: 1, chess.BISHOP: 2, chess.ROOK: 3, chess.QUEEN: 4}[move.promotion]
    return move.to_square | move.from_square << 6 | promo << 12


def write_polyglot(path, lines: dict[str, list[tuple[str, int]]]) -> None:
    """A Polyglot book from {moves-from-start: [(uci, weight)]}, written from
    the format's layout (big-endian key, move, weight, learn)."""
    entries = []
    for moves, replies in lines.items():
        board = chess.Board()
        for m in moves.split():
            board.push_uci(m)
        for uci, weight in replies:
            entries.append((chess.polyglot.zobrist_hash(board), polyglot_move(chess.Move.from_uci(uci)), weight))
    entries.sort(key=lambda e: (e[0], -e[2]))
    path.write_bytes(b"".join(struct.pack(">QHHI", k, m, w, 0) for k, m, w in entries))


def start_moves() -> dict[str, int]:
    with chess.polyglot.open_reader(PERFORMANCE) as reader:
        return {e.move.uci(): e.weight for e in reader.find_all(chess.Board())}


def engine(exe: str, *options: tuple[str, object]) -> Uci:
    u = Uci([exe])
    u.handshake()
    for name, value in options:
        u.send(f"setoption name {name} value {value}")
    u.ready()
    return u


def play(u: Uci, moves: str = "") -> tuple[str, str | None]:
    u.send(f"position startpos{' moves ' + moves if moves else ''}", "go wtime 10000 btime 10000")
    lines, _ = u.bestmove(10)
    words = lines[-1].split()
    return words[1], (words[3] if len(words) > 3 and words[2] == "ponder" else None)


def test_uci_lists_the_new_options_and_uniform(exe):
    u = Uci([exe])
    lines = u.handshake()
    text = "\n".join(lines)
    for name in ["BookFileWhite", "BookFileBlack", "BookMinWeight", "BookWidth", "BookLearn", "Read only learning"]:
        assert f"option name {name} " in text, name
    assert "var best var weighted var uniform" in text
    # Aliases are accepted but not listed.
    assert "option name Book File " not in text and "BestBookMove" not in text
    u.close()


def test_uniform_selection_plays_every_book_move(exe):
    book = start_moves()
    u = engine(exe, ("BookFile", PERFORMANCE), ("BookSelection", "uniform"))
    played = {play(u)[0] for _ in range(150)}
    u.close()
    assert played == {m for m, w in book.items() if w > 0}, (played, book)


def test_book_min_weight_skips_lighter_moves(exe):
    book = start_moves()
    heaviest = max(book.values())
    u = engine(exe, ("BookFile", PERFORMANCE), ("BookMinWeight", str(heaviest)), ("BookSelection", "uniform"))
    played = {play(u)[0] for _ in range(20)}
    u.close()
    assert played == {m for m, w in book.items() if w >= heaviest}


def test_book_width_keeps_only_the_best_moves(exe, tmp_path):
    path = tmp_path / "wide.bin"
    write_polyglot(path, {"": [("e2e4", 50), ("d2d4", 40), ("c2c4", 30), ("g1f3", 20)]})
    u = engine(exe, ("BookFile", path), ("BookWidth", "2"), ("BookSelection", "uniform"))
    played = {play(u)[0] for _ in range(40)}
    u.close()
    assert played == {"e2e4", "d2d4"}


def test_colour_books_come_before_book_file(exe, tmp_path):
    white, black = tmp_path / "white.bin", tmp_path / "black.bin"
    write_polyglot(white, {"": [("a2a3", 5)]})
    write_polyglot(black, {"e2e4": [("a7a6", 5)]})
    u = engine(exe, ("BookFile", PERFORMANCE), ("BookFileBlack", black), ("BookSelection", "best"))
    # No white book: BookFile's heaviest move.
    book = start_moves()
    assert play(u)[0] in [m for m, w in book.items() if w == max(book.values())]
    assert play(u, "e2e4")[0] == "a7a6"
    # Not in the black book: BookFile decides.
    with chess.polyglot.open_reader(PERFORMANCE) as reader:
        board = chess.Board()
        board.push_uci("d2d4")
        replies = [e.move.uci() for e in reader.find_all(board)]
    assert play(u, "d2d4")[0] in replies
    u.send(f"setoption name BookFileWhite value {white}")
    msgs = u.ready()
    assert any("1 white book(s) loaded, 1 entries" in l for l in msgs), msgs
    assert play(u)[0] == "a2a3"
    u.close()


def test_ponder_move_is_the_books_reply(exe, tmp_path):
    u = engine(exe, ("BookFile", GOLDEN), ("BookSelection", "best"))
    assert play(u) == ("e2e4", "c7c5")
    u.close()
    path = tmp_path / "one.bin"
    write_polyglot(path, {"": [("d2d4", 3)], "d2d4": [("g8f6", 2), ("d7d5", 9)]})
    u = engine(exe, ("BookFile", path), ("BookSelection", "uniform"))
    # The ponder move is the book's best reply, whatever the selection.
    assert play(u) == ("d2d4", "d7d5")
    # No reply in the book: no ponder move.
    write_polyglot(path, {"": [("d2d4", 3)]})
    u.send(f"setoption name BookFile value {path}")
    u.ready()
    assert play(u) == ("d2d4", None)
    u.close()


def test_gui_aliases_book_file_and_best_book_move(exe):
    book = start_moves()
    u = engine(exe)
    u.send(f"setoption name Book File value {PERFORMANCE}")
    msgs = u.ready()
    assert any("1 book(s) loaded" in l for l in msgs), msgs
    u.send("setoption name BestBookMove value true")
    u.ready()
    heaviest = [m for m, w in book.items() if w == max(book.values())]
    assert all(play(u)[0] in heaviest for _ in range(5))
    u.send("setoption name BestBookMove value maybe")
    msgs = u.ready()
    assert any("BestBookMove" in l for l in msgs), msgs
    u.close()


def learn_entries(path) -> list[tuple[int, int, int]]:
    """The YACL side file read from its documented layout."""
    data = path.read_bytes()
    assert data[:4] == b"YACL" and data[4:16] == bytes(12)
    return [struct.unpack_from("<QII", data, 16 + 16 * i) for i in range((len(data) - 16) // 16)]


def engine_key(u: Uci, moves: str) -> int:
    u.send(f"position startpos moves {moves}", "d")
    line = next(l for l in u.ready() if l.startswith("Key: "))
    return int(line.split()[1], 16)


# A game the engine (white) opens from the golden book with 1. e4; the GUI
# then sends moves up to white's mate (Scholar's mate).
MATE = "e2e4 e7e5 f1c4 b8c6 d1h5 g8f6 h5f7"


def test_book_learn_records_results_in_a_side_file(exe, tmp_path):
    book = tmp_path / "book.yacb"
    shutil.copy(GOLDEN, book)
    side = tmp_path / "book.yacb.learn"
    u = engine(exe, ("BookFile", book), ("BookSelection", "best"), ("BookLearn", "true"))
    key = engine_key(u, "e2e4")
    assert play(u)[0] == "e2e4"
    for i in range(2, len(MATE.split()) + 1, 2):
        u.send(f"position startpos moves {' '.join(MATE.split()[:i])}")
    u.send("position startpos moves " + MATE)
    u.send("ucinewgame")
    msgs = u.ready()
    assert any("BookLearn: 1 positions learned" in l for l in msgs), msgs
    assert learn_entries(side) == [(key, 1, 2)]
    # A game that does not continue the last position starts a new one; this
    # one ends with quit, black mated in the GUI's last position.
    u.send("position startpos moves d2d4")
    assert play(u)[0] == "e2e4"
    u.send("position startpos moves e2e4 f7f6 d2d4 g7g5 d1h5")
    u.send("quit")
    assert u.wait_exit(10) == 0
    assert learn_entries(side) == [(key, 2, 4)]
    assert book.read_bytes() == GOLDEN.read_bytes()


def test_read_only_learning_never_writes(exe, tmp_path):
    book = tmp_path / "book.yacb"
    shutil.copy(GOLDEN, book)
    u = engine(exe, ("BookFile", book), ("BookLearn", "true"), ("Read only learning", "true"))
    assert play(u)[0] == "e2e4"
    u.send("position startpos moves " + MATE, "ucinewgame")
    u.ready()
    u.close()
    assert not (tmp_path / "book.yacb.learn").exists()
    assert book.read_bytes() == GOLDEN.read_bytes()


def test_a_damaged_side_file_is_reported_and_kept(exe, tmp_path):
    book = tmp_path / "book.yacb"
    shutil.copy(GOLDEN, book)
    side = tmp_path / "book.yacb.learn"
    side.write_bytes(b"YACL\x00")
    u = engine(exe, ("BookFile", book))
    u.send("setoption name BookLearn value true")
    msgs = u.ready()
    assert play(u)[0] == "e2e4"
    u.send("position startpos moves " + MATE, "ucinewgame")
    msgs += u.ready()
    u.close()
    assert any("book.yacb.learn" in l and "truncated" in l for l in msgs), msgs
    assert side.read_bytes() == b"YACL\x00"
