"""Warm-start benchmark (not a test): analyse 5 positions to depth D in a
cold engine, save the hash, start a new engine, load it, analyse again to
depth D (answered from the table) and to depth D+1 (resumed at D), beside a
cold engine's depth D+1. Prints nodes and time, cold vs warm.

usage: sftt_bench.py ENGINE [--depth D] [--hash MB]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine-tests"))
from harness import Uci  # noqa: E402  (the tests' raw-pipe harness)

POSITIONS = [
    "r2qk2r/pp1n1ppp/2pbpn2/3p4/6b1/1P1P1NP1/PBP1PPBP/RN1Q1RK1 w kq - 1 8",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 7",
    "2r2rk1/pp2qppp/2n1pn2/3p4/3P4/2NBPN2/PP3PPP/2RQ1RK1 w - - 0 13",
]


def analyse(u: Uci, fen: str, depth: int) -> tuple[int, float]:
    u.send(f"position fen {fen}")
    start = u.send(f"go depth {depth}")
    lines, end = u.bestmove(600)
    final = [l for l in lines if l.startswith(f"info depth {depth} ") and "bound" not in l][-1]
    return int(re.search(r" nodes (\d+)", final).group(1)), end - start


def engine(exe: str, hash_mb: int, path: str) -> Uci:
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name Hash value {hash_mb}", f"setoption name Hash File value {path}")
    u.ready()
    return u


def table(title: str, cold_res, warm_res) -> None:
    print(f"\n{title}")
    print(f"{'position':<70} {'cold nodes':>11} {'cold s':>7} {'warm nodes':>11} {'warm s':>7} {'ratio':>6}")
    tc = tw = nc = nw = 0
    for fen, (n1, t1), (n2, t2) in zip(POSITIONS, cold_res, warm_res):
        print(f"{fen:<70} {n1:>11} {t1:>7.2f} {n2:>11} {t2:>7.2f} {n1 / max(n2, 1):>6.1f}")
        nc, nw, tc, tw = nc + n1, nw + n2, tc + t1, tw + t2
    print(f"{'total':<70} {nc:>11} {tc:>7.2f} {nw:>11} {tw:>7.2f} {nc / max(nw, 1):>6.1f}")
    print(f"nodes: {nc / max(nw, 1):.1f}x fewer warm; time: {tc / max(tw, 1e-9):.1f}x faster warm")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine")
    ap.add_argument("--depth", type=int, default=16)
    ap.add_argument("--hash", type=int, default=256)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "warm.sftt")
        cold = engine(a.engine, a.hash, path)
        cold_res = [analyse(cold, fen, a.depth) for fen in POSITIONS]
        cold.send("setoption name Save Hash to File")
        saved = [l for l in cold.ready(120) if l.startswith("info string")]
        cold.close()
        warm = engine(a.engine, a.hash, path)
        warm.send("setoption name Load Hash from File")
        loaded = [l for l in warm.ready(120) if l.startswith("info string")]
        warm_res = [analyse(warm, fen, a.depth) for fen in POSITIONS]
        warm_deeper = [analyse(warm, fen, a.depth + 1) for fen in POSITIONS]
        warm.close()
        cold_deeper = []
        for fen in POSITIONS:  # each from an empty table
            fresh = engine(a.engine, a.hash, os.path.join(tmp, "unused.sftt"))
            cold_deeper.append(analyse(fresh, fen, a.depth + 1))
            fresh.close()
    print(*saved, *loaded, sep="\n")
    table(f"warm start, depth {a.depth} (the table's own depth), Hash {a.hash} MB", cold_res, warm_res)
    table(f"warm start, depth {a.depth + 1} (one deeper than the table), Hash {a.hash} MB", cold_deeper, warm_deeper)


if __name__ == "__main__":
    main()
