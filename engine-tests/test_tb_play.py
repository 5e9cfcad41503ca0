"""Tablebases in play, over UCI: wins are converted within the 50-move rule,
draws are held. python-chess's Syzygy prober is the referee."""
from __future__ import annotations

import shutil

import chess
import chess.engine
import chess.syzygy
import pytest

from conftest import SHARED

TB = str(SHARED / "syzygy")


def stockfish() -> str:
    path = shutil.which("stockfish") or "/usr/games/stockfish"
    assert shutil.which(path) or __import__("os").access(path, __import__("os").X_OK), "stockfish missing"
    return path


def play(board: chess.Board, white, black, plies: int, limit: chess.engine.Limit, win: bool) -> chess.Board:
    """Plays until the game ends by the rules (draw claims included). With
    `win`, reaching the 50-move rule is a failure."""
    for _ in range(plies):
        if board.is_game_over(claim_draw=True):
            break
        eng = white if board.turn == chess.WHITE else black
        move = eng.play(board, limit).move
        assert move in board.legal_moves, f"illegal {move} in {board.fen()}"
        board.push(move)
        if win:
            assert board.halfmove_clock < 100 or board.is_checkmate(), f"50-move rule reached: {board.fen()}"
    return board


@pytest.fixture
def archivist_tb(exe):
    engines = []

    def start():
        e = chess.engine.SimpleEngine.popen_uci(exe)
        e.configure({"SyzygyPath": TB})
        engines.append(e)
        return e

    yield start
    for e in engines:
        e.quit()


@pytest.mark.parametrize("fen,dtz", [
    ("8/8/8/4k3/1Q6/8/8/6K1 w - - 0 1", 17),   # KQvK, DTZ 17 (python-chess)
    ("8/8/8/4k3/8/5R2/8/7K w - - 0 1", 31),    # KRvK, DTZ 31
])
def test_engine_mates_from_hard_positions_within_the_50_move_rule(archivist_tb, fen, dtz):
    with chess.syzygy.open_tablebase(TB) as tb:
        assert tb.probe_dtz(chess.Board(fen)) == dtz
    attacker, defender = archivist_tb(), archivist_tb()
    board = play(chess.Board(fen), attacker, defender, 120, chess.engine.Limit(time=0.05), win=True)
    assert board.is_checkmate() and board.turn == chess.BLACK, board.fen()
    assert board.ply() <= 100


@pytest.mark.parametrize("fen,side", [
    ("8/r7/1R6/1K6/8/8/7k/8 b - - 0 1", chess.BLACK),       # KRvKR, drawn
    ("8/8/1K6/4k3/8/4p3/4B3/8 w - - 0 1", chess.WHITE),     # KBvKP, drawn for the bishop side
])
def test_engine_holds_drawn_endings_against_stockfish(archivist_tb, fen, side):
    with chess.syzygy.open_tablebase(TB) as tb:
        assert tb.probe_wdl(chess.Board(fen)) == 0
        ours = archivist_tb()
        sf = chess.engine.SimpleEngine.popen_uci(stockfish())
        try:
            white, black = (ours, sf) if side == chess.WHITE else (sf, ours)
            board = play(chess.Board(fen), white, black, 160, chess.engine.Limit(time=0.05), win=False)
        finally:
            sf.quit()
        if board.is_game_over(claim_draw=True):
            assert board.outcome(claim_draw=True).winner is None, board.fen()
        else:
            wdl = tb.probe_wdl(board)
            assert (wdl if board.turn == side else -wdl) >= 0, f"drawn ending spoiled: {board.fen()}"


def test_tbhits_reported_and_syzygy_options_listed(exe):
    e = chess.engine.SimpleEngine.popen_uci(exe)
    try:
        for name in ("SyzygyPath", "SyzygyProbeDepth", "SyzygyProbeLimit", "Syzygy50MoveRule"):
            assert name in e.options
        e.configure({"SyzygyPath": TB})
        # Six pieces: the root is not in the tables, captures lead into them.
        info = e.analyse(chess.Board("8/8/3k4/3p4/2PK4/8/1P6/8 w - - 0 1"), chess.engine.Limit(depth=12))
        assert info.get("tbhits", 0) > 0
    finally:
        e.quit()
