#!/usr/bin/env python3
"""A tiny scripted UCI engine that misbehaves on request, to test gauntlet.py.

    fake_engine.py [--mode ok|illegal|none|crash|slow|hang] [--after N] [--score CP]

It plays a pseudo-random legal move (seeded by the position, so games repeat)
and reports `score cp CP` from its own point of view. At its N-th `go`
(default 1) the mode takes over: `illegal` answers a move that is not legal,
`none` answers `bestmove 0000`, `crash` exits with status 3, `slow` answers
300 ms after its clock ran out, `hang` never answers.
"""
import argparse
import os
import random
import sys
import time

import chess


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="ok", choices=["ok", "illegal", "none", "crash", "slow", "hang"])
    ap.add_argument("--after", type=int, default=1)
    ap.add_argument("--score", type=int, default=0)
    args = ap.parse_args()

    board = chess.Board()
    gos = 0

    def say(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        tokens = line.split()
        if not tokens:
            continue
        cmd = tokens[0]
        if cmd == "uci":
            say("id name FakeEngine")
            say("id author test")
            say("option name Hash type spin default 16 min 1 max 1024")
            say("option name Flag type check default false")
            say("uciok")
        elif cmd == "isready":
            say("readyok")
        elif cmd == "quit":
            return
        elif cmd == "position":
            if tokens[1] == "startpos":
                board = chess.Board()
                rest = tokens[2:]
            else:
                end = tokens.index("moves") if "moves" in tokens else len(tokens)
                board = chess.Board(" ".join(tokens[2:end]))
                rest = tokens[end:]
            for uci in rest[1:]:
                board.push_uci(uci)
        elif cmd == "go":
            gos += 1
            mode = args.mode if gos >= args.after else "ok"
            params = dict(zip(tokens[1::2], tokens[2::2]))
            if mode == "crash":
                os._exit(3)
            if mode == "hang":
                time.sleep(3600)
            if mode == "slow":
                left = int(params.get("wtime" if board.turn == chess.WHITE else "btime", params.get("movetime", "100")))
                time.sleep(left / 1000 + 0.3)
            moves = sorted(board.legal_moves, key=lambda m: m.uci())
            move = random.Random(board.fen()).choice(moves)
            if mode == "illegal":
                move = next(chess.Move(a, b) for a in chess.SQUARES for b in chess.SQUARES
                            if a != b and chess.Move(a, b) not in board.legal_moves)
            say(f"info depth 1 score cp {args.score} nodes 1 pv {move.uci()}")
            say("bestmove 0000" if mode == "none" else f"bestmove {move.uci()}")


if __name__ == "__main__":
    main()
