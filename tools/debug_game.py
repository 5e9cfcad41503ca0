#!/usr/bin/env python3
"""One short self-play game with a debug build (debug assertions on, the
Board consistency check after every make/unmake): fails on an illegal move,
a stall (no move within the timeout) or a disconnect (crash, panic).

    debug_game.py target/debug/archivist [--plies 120] [--nodes 20000]
"""
from __future__ import annotations

import argparse
import sys

import chess
import chess.engine


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("engine")
    ap.add_argument("--plies", type=int, default=120)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds allowed for one move")
    args = ap.parse_args()

    # Two processes, as in a real match: each side keeps its own TT and history.
    sides = [chess.engine.SimpleEngine.popen_uci([args.engine], timeout=args.timeout) for _ in range(2)]
    board = chess.Board("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    try:
        for engine in sides:
            engine.configure({"Hash": 8, "Threads": 2})
        while not board.is_game_over(claim_draw=True) and board.ply() < args.plies:
            engine = sides[0 if board.turn == chess.WHITE else 1]
            try:
                result = engine.play(board, chess.engine.Limit(nodes=args.nodes), game=board.root())
            except chess.engine.EngineTerminatedError as e:
                print(f"debug game: the engine died at ply {board.ply()} ({board.fen()}): {e}", file=sys.stderr)
                return 1
            except chess.engine.EngineError as e:   # python-chess refuses an illegal bestmove
                print(f"debug game: bad answer at ply {board.ply()} ({board.fen()}): {e}", file=sys.stderr)
                return 1
            except TimeoutError:
                print(f"debug game: no move within {args.timeout}s at {board.fen()}", file=sys.stderr)
                return 1
            if result.move is None or result.move not in board.legal_moves:
                print(f"debug game: illegal move {result.move} at {board.fen()}", file=sys.stderr)
                return 1
            board.push(result.move)
    finally:
        for engine in sides:
            engine.quit()
    outcome = board.outcome(claim_draw=True)
    print(f"debug game: {board.ply()} plies, {outcome.result() if outcome else 'unfinished'}, no fault")
    return 0


if __name__ == "__main__":
    sys.exit(main())
