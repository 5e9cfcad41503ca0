"""Lazy SMP benchmark (not a test): `bench DEPTH` (fresh table per position)
with 1 thread and with each of THREADS, RUNS times, the thread counts
alternating. Prints each run's time to depth and nps, then per thread count
the median speed-up in time to depth and in nps against 1 thread (issue 47's
goals with 2 threads: 1.6x and 1.85x).

usage: smp_bench.py ENGINE [--depth 14] [--hash 64] [--count 50] [--runs 5] [--threads 2 4 8 16]
                    [--eval-file NET | --hand-written]

--eval-file and --hand-written are passed to `bench`, so one binary measures
another evaluation (how the network changes the threads' gain).
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess


def bench(exe: str, depth: int, threads: int, hash_mb: int, count: int, eval_args: list[str]) -> tuple[int, int, int]:
    out = subprocess.run([exe, "bench", str(depth), "--threads", str(threads), "--hash", str(hash_mb), "--count", str(count), *eval_args],
                         capture_output=True, text=True, check=True).stdout
    ms = int(re.search(r"Total time \(ms\) : (\d+)", out).group(1))
    nodes, nps = map(int, re.search(r"^(\d+) nodes (\d+) nps", out, re.M).groups())
    return ms, nodes, nps


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("engine")
    ap.add_argument("--depth", type=int, default=14)
    ap.add_argument("--hash", type=int, default=64)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, nargs="+", default=[2])
    evaluation = ap.add_mutually_exclusive_group()
    evaluation.add_argument("--eval-file", help="evaluate with this network (bench --eval-file)")
    evaluation.add_argument("--hand-written", action="store_true", help="evaluate with the hand-written evaluation")
    a = ap.parse_args()
    eval_args = ["--eval-file", a.eval_file] if a.eval_file else ["--hand-written"] if a.hand_written else []
    ttd: dict[int, list[float]] = {t: [] for t in a.threads}
    nps: dict[int, list[float]] = {t: [] for t in a.threads}
    extra: dict[int, list[float]] = {t: [] for t in a.threads}
    for run in range(1, a.runs + 1):
        ms1, nodes1, nps1 = bench(a.engine, a.depth, 1, a.hash, a.count, eval_args)
        line = f"run {run}: 1 thread {ms1} ms {nps1} nps"
        for t in a.threads:
            ms, nodes, n = bench(a.engine, a.depth, t, a.hash, a.count, eval_args)
            ttd[t].append(ms1 / ms)
            nps[t].append(n / nps1)
            extra[t].append(nodes / nodes1)
            line += f"; {t} threads {ms} ms {n} nps (time {ms1 / ms:.2f}x, nps {n / nps1:.2f}x, nodes {nodes / nodes1:.2f}x)"
        print(line, flush=True)
    print(f"depth {a.depth}, {a.count} positions, Hash {a.hash} MB, median of {a.runs} runs against 1 thread:")
    for t in a.threads:
        print(f"threads {t:>2}: time to depth {statistics.median(ttd[t]):.2f}x (min {min(ttd[t]):.2f}, max {max(ttd[t]):.2f}), "
              f"nps {statistics.median(nps[t]):.2f}x (min {min(nps[t]):.2f}, max {max(nps[t]):.2f}), "
              f"nodes searched {statistics.median(extra[t]):.2f}x")


if __name__ == "__main__":
    main()
