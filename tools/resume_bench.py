"""Resume benchmark (not a test): does a saved table let analysis go on
where it stopped? For each position, with Hash MB and one thread:

1. a fresh engine analyses to depth D (default 14) and saves its table;
2. a fresh engine analyses to depth D+2 from nothing: the cold node counts
   at depths D, D+1 and D+2 (cumulative, from its `info depth` lines);
3. a fresh engine loads the file and analyses to depth D: it must answer
   from the table (the nodes it searched are printed);
4. a fresh engine loads the file and analyses to depth D+2: the warm node
   counts at depths D+1 and D+2.

Prints each position's counts, the sums, warm/cold at D+1 and D+2 (issue
47's goals: at most 0.5 and 0.65) and the ideal, the cost of the new plies
alone: (cold(d) - cold(D)) / cold(d).

usage: resume_bench.py ENGINE [--depth D] [--hash MB] [--count N]
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine-tests"))
from harness import Uci  # noqa: E402  (the tests' raw-pipe harness)
from sftt_bench import engine  # noqa: E402  (a fresh engine with Hash and Hash File set; 1 thread, the default)

# Openings and middlegames (most from `bench`'s list, which comes from the
# shared game records; the last is the middlegame of issue 47's report).
POSITIONS = [
    "r2qk2r/pp1n1ppp/2pbpn2/3p4/6b1/1P1P1NP1/PBP1PPBP/RN1Q1RK1 w kq - 1 8",
    "r3r1k1/ppbn1p2/2p2n1p/q2pp1pb/4P3/PP1P1NPP/1BPN1PB1/R3QRK1 w - - 1 16",
    "r1bqk2r/2p1bppp/p1np1n2/1p2p3/4P3/1B3N2/PPPP1PPP/RNBQR1K1 w kq - 0 8",
    "r2qrbk1/3b1pp1/p1np1n1p/1pp1p3/3PP3/1PP2NNP/P1B2PP1/R1BQR1K1 w - - 1 16",
    "r2q1rk1/ppp1bppp/2npbn2/4p3/2P5/P1NP1NP1/1P2PPBP/R1BQK2R w KQ - 3 8",
    "r4rk1/p2qbpp1/1p1p1n1p/2p1p2b/1PPnP3/P1NPBPP1/5NBP/R2Q1RK1 w - - 0 16",
    "rn1qkb1r/pp3ppp/2p1pn2/3p3b/3PP3/2NB1N1P/PPP1QPP1/R1B1K2R w KQkq - 0 8",
    "2kr3r/ppnnqpp1/2p1p1p1/3pP3/3P2PP/2N2N2/PPP1QP2/2K3RR w - - 5 16",
    "r2qkbnr/pp3ppp/2p1p3/3pn3/4P3/3P1BPP/PPP2P2/RNBQK2R w KQkq - 1 8",
    "r3k2r/ppq1bpp1/2p2nn1/4p2p/3P3P/2P3P1/PP1NQPB1/R1B1K2R w KQkq - 0 16",
    "r1bqkb1r/pp1n1pp1/2p1pn1p/6N1/3P4/3B1N2/PPP2PPP/R1BQK2R w KQkq - 0 8",
    "r1k2b1r/pb1nq1p1/4p1Bp/1p1n4/3P4/5NB1/1PP2PPP/R2QR1K1 w - - 0 16",
    "r1bq1rk1/1pp1bppp/p1p5/2n5/3QPB2/5N2/PPP2PPP/RN2R1K1 w - - 3 11",
    "r3kb1r/pb1n1p2/q1p1pn1p/1p4p1/2pPP2B/1PN2N2/P1Q1BPPP/1R3RK1 w kq - 0 13",
    "r2q1rk1/pb1p2pp/1pn1p3/2p2pn1/2PP4/P2BPP2/1P1N2PP/R1BQ1RK1 w - - 2 13",
    "r1bqk2r/pp2bp1p/1nn1p1p1/8/8/2NBPN2/PP1B1PPP/RQ2K2R w KQkq - 0 13",
    "r1bqnrk1/pp4pp/3p1b2/2pNp3/1PPnPp2/P2P4/4BPPP/R1BQNRK1 w - - 4 13",
    "2rr2k1/pp2b1pp/2n1pn2/2p3B1/4P3/2N2N1P/PP3PP1/R3K2R w KQ - 1 13",
    "r1bqk2r/ppp2p2/2n2n2/b2p4/1P1P3p/P3P3/3N1PPP/RN1QKB1R w KQkq - 0 13",
    "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 9",
]


def analyse(u: Uci, fen: str, depth: int) -> dict[int, int]:
    """Cumulative nodes at each completed depth of one `go depth`."""
    u.send(f"position fen {fen}")
    u.send(f"go depth {depth}")
    lines, _ = u.bestmove(900)
    nodes = {}
    for line in lines:
        m = re.match(r"info depth (\d+) .* nodes (\d+)", line)
        if m and " bound " not in line and "multipv 1 " in line + " ":
            nodes[int(m.group(1))] = int(m.group(2))
    return nodes


def run_position(exe: str, fen: str, depth: int, hash_mb: int, tmp: str) -> tuple[dict, dict, int]:
    path = os.path.join(tmp, "resume.sftt")
    u = engine(exe, hash_mb, path)
    analyse(u, fen, depth)
    u.send("setoption name Save Hash to File")
    u.ready(120)
    u.close()
    u = engine(exe, hash_mb, os.path.join(tmp, "unused.sftt"))
    cold = analyse(u, fen, depth + 2)
    u.close()
    u = engine(exe, hash_mb, path)
    u.send("setoption name Load Hash from File")
    u.ready(120)
    same = analyse(u, fen, depth).get(depth, -1)
    u.close()
    u = engine(exe, hash_mb, path)
    u.send("setoption name Load Hash from File")
    u.ready(120)
    warm = analyse(u, fen, depth + 2)
    u.close()
    return cold, warm, same


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine")
    ap.add_argument("--depth", type=int, default=14)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--count", type=int, default=len(POSITIONS))
    a = ap.parse_args()
    d = a.depth
    sums = {"c0": 0, "c1": 0, "c2": 0, "w1": 0, "w2": 0}
    print(f"Hash {a.hash} MB, 1 thread, saved at depth {d}; nodes are cumulative per search")
    print(f"{'#':>2} {'cold ' + str(d):>11} {'cold ' + str(d + 1):>11} {'cold ' + str(d + 2):>11} "
          f"{'warm ' + str(d + 1):>11} {'warm ' + str(d + 2):>11} {'w/c ' + str(d + 1):>7} {'w/c ' + str(d + 2):>7} {'same-depth':>10}")
    with tempfile.TemporaryDirectory() as tmp:
        for i, fen in enumerate(POSITIONS[: a.count]):
            cold, warm, same = run_position(a.engine, fen, d, a.hash, tmp)
            c0, c1, c2 = cold[d], cold[d + 1], cold[d + 2]
            w1, w2 = warm[d + 1], warm[d + 2]
            for k, v in zip(sums, (c0, c1, c2, w1, w2)):
                sums[k] += v
            print(f"{i + 1:>2} {c0:>11} {c1:>11} {c2:>11} {w1:>11} {w2:>11} {w1 / c1:>7.2f} {w2 / c2:>7.2f} {same:>10}", flush=True)
    s = sums
    print(f"{'sum':>2} {s['c0']:>11} {s['c1']:>11} {s['c2']:>11} {s['w1']:>11} {s['w2']:>11} "
          f"{s['w1'] / s['c1']:>7.2f} {s['w2'] / s['c2']:>7.2f}")
    print(f"depth {d + 1}: warm/cold {s['w1'] / s['c1']:.3f} (goal <= 0.5; new plies alone {(s['c1'] - s['c0']) / s['c1']:.3f})")
    print(f"depth {d + 2}: warm/cold {s['w2'] / s['c2']:.3f} (goal <= 0.65; new plies alone {(s['c2'] - s['c0']) / s['c2']:.3f})")


if __name__ == "__main__":
    main()
