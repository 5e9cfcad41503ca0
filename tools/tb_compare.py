#!/usr/bin/env python3
"""Compares `archivist serve`'s `/standard` answers with lila-tablebase's
on the same tables, field for field and move for move in order.

    tb_compare.py ARCHIVIST LILA [--positions 6000] [--record FILE] [--record-count 1500]

Positions: the first half from engine-tests/data/tb_vectors.csv (as
given), the rest drawn over every material of ../shared/syzygy with
halfmove clocks 0-120 (positions/material_positions), so that cursed wins,
`syzygy-*` categories and the clock's end are asked about too. Prints how
many answers are identical, how many differ only in the order of moves,
and the first differences; then the same for `/standard/mainline` on the
first `--mainlines` positions (an error compared by its status alone). `--record` writes lila-tablebase's answers for
`--record-count` of the positions (the examples of issue 77 and every
position whose answer differed in more than the order of moves, then up
to half the count of those that differed in order alone, then others, at
random, seed 77) as gzipped NDJSON lines `{"fen", "answer"}`:
engine-tests/data/lila_tablebase.ndjson.gz is such a file, which
engine-tests/test_tb_lila.py compares with.
"""
import argparse
import concurrent.futures
import gzip
import json
import pathlib
import random
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request

from positions import material_positions
from serve_bench import SYZYGY, Server, free_port

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "engine-tests" / "data" / "tb_vectors.csv"


# Positions where archivist's answer once differed from lila-tablebase's
# (issue 77): the first move, and precise_dtz after a move.
EXAMPLES = ["6Q1/8/1K6/7k/8/8/8/1B6 w - - 26 90", "8/7k/5K2/1R6/8/8/8/4r2q b - - 0 71"]


def fens(count):
    lines = VECTORS.read_text().splitlines()[1:]
    given = EXAMPLES + [line.split(";")[0] for line in lines[: count // 2 - len(EXAMPLES)]]
    drawn = [b.fen() for b in material_positions(SYZYGY, count - len(given), seed=77,
                                                   clock=lambda rng: rng.randrange(121))]
    return given + drawn


def get(server, fen, route="/standard"):
    url = server.url(f"{route}?{urllib.parse.urlencode({'fen': fen})}")
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        return {"status": e.code}


def first_difference(a, b, path="answer"):
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b and type(a) is type(b) else f"{path}: {a!r} != {b!r}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archivist")
    ap.add_argument("lila")
    ap.add_argument("--positions", type=int, default=6000)
    ap.add_argument("--mainlines", type=int, default=1000, help="positions whose /standard/mainline is compared")
    ap.add_argument("--record")
    ap.add_argument("--record-count", type=int, default=1500)
    args = ap.parse_args()
    todo = fens(args.positions)
    port = free_port()
    ours = Server("archivist", [args.archivist, "serve", "--listen", f"127.0.0.1:{port}", "--syzygy", str(SYZYGY)],
                  port)
    port = free_port()
    lila = Server("lila-tablebase", [args.lila, "--standard", str(SYZYGY), "--mmap", "--bind", f"127.0.0.1:{port}"],
                  port)
    try:
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            theirs = list(pool.map(lambda f: get(lila, f), todo))
            mine = list(pool.map(lambda f: get(ours, f), todo))
            lines = todo[: args.mainlines]
            their_lines = list(pool.map(lambda f: get(lila, f, "/standard/mainline"), lines))
            my_lines = list(pool.map(lambda f: get(ours, f, "/standard/mainline"), lines))
    finally:
        ours.stop()
        lila.stop()
    same, order_only, differ, other = 0, 0, [], []
    for fen, a, b in zip(todo, mine, theirs):
        if json.dumps(a) == json.dumps(b):
            same += 1
            continue
        by_uci = lambda r: {**r, "moves": sorted(r["moves"], key=lambda m: m["uci"])}  # noqa: E731
        if by_uci(a) == by_uci(b):
            order_only += 1
        else:
            other.append(fen)
        differ.append((fen, first_difference(a, b)))
    print(f"{len(todo)} positions: {same} identical, {len(differ)} different "
          f"({order_only} of them only in the order of moves)")
    for fen, d in differ[:20]:
        print(f"  {fen}: {d}")
    line_differ = [(f, first_difference(a, b)) for f, a, b in zip(lines, my_lines, their_lines)
                   if json.dumps(a) != json.dumps(b)]
    print(f"{len(lines)} mainlines: {len(lines) - len(line_differ)} identical, {len(line_differ)} different")
    for fen, d in line_differ[:20]:
        print(f"  {fen}: {d}")
    if args.record:
        rng = random.Random(77)
        index = {f: i for i, f in enumerate(todo)}
        differing = [index[f] for f, _ in differ]
        first = sorted({index[f] for f in other + EXAMPLES})
        chosen = first + rng.sample([i for i in differing if i not in first],
                                    max(0, min(len(differing) - len(first), args.record_count // 2 - len(first))))
        rest = [i for i in range(len(todo)) if i not in set(chosen)]
        chosen += rng.sample(rest, max(0, min(len(rest), args.record_count - len(chosen))))
        with gzip.open(args.record, "wt", compresslevel=9) as out:
            for i in sorted(chosen):
                out.write(json.dumps({"fen": todo[i], "answer": theirs[i]}, separators=(",", ":")) + "\n")
        print(f"recorded {len(chosen)} of lila-tablebase's answers in {args.record}")
    sys.exit(1 if differ or line_differ else 0)


if __name__ == "__main__":
    main()
