#!/usr/bin/env python3
"""`make wasm-bench`: the browser build beside the native build, one run.

Probes per second for SBOB, Polyglot and YACB (the same book, converted
from Debian's gnuchess-book or the largest ../shared/books book, probed at
every position of its SBOB conversion, through `archivist::web` natively
(examples/web_bench.rs) and through archivist.js in Node: the answer's JSON
text on both sides, `Book.probeText`, and beside it `Book.probe`, which
also parses it into objects); `bench` nodes per
second (the native release binary's `bench` against `bench()` in Node, the
same node count); the `.wasm` size, raw and gzipped (level 9). Goals
(issue 74): probes and nps at least 0.5x native, at most 1.5 MB gzipped.

    tools/wasm_bench.py ARCHIVIST WEB_BENCH SITE [--seconds S]
"""
import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GNUCHESS = "/usr/share/games/gnuchess/book.bin"


def run(*cmd):
    return subprocess.run(cmd, check=True, text=True, capture_output=True).stdout


def source_book():
    if os.path.exists(GNUCHESS):
        return GNUCHESS
    books = glob.glob(os.path.join(ROOT, "..", "shared", "books", "*.bin"))
    return max(books, key=os.path.getsize)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archivist")
    ap.add_argument("web_bench")
    ap.add_argument("site")
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    node = os.environ.get("NODE", "node")
    mjs = os.path.join(ROOT, "tools", "wasm_bench.mjs")
    source = source_book()
    with tempfile.TemporaryDirectory(prefix="archivist-wasm-bench-") as tmp:
        books = {"polyglot": source}
        for fmt in ("sbob", "yacb", "json"):
            out = os.path.join(tmp, f"book.{fmt}")
            run(args.archivist, "book", "convert", source, out, "--to", fmt)
            books[fmt] = out
        with open(books["json"]) as f:
            fens = list(json.load(f)["positions"])
        fens_path = os.path.join(tmp, "fens.txt")
        with open(fens_path, "w") as f:
            f.write("\n".join(fens) + "\n")
        print(f"book: {source} ({os.path.getsize(source)} bytes), {len(fens)} positions probed in a loop, "
              f"{args.seconds:g} s a side")
        print(f"{'':24} {'native':>14} {'wasm (Node)':>14} {'wasm/native':>12}")
        for fmt in ("sbob", "polyglot", "yacb"):
            native = json.loads(run(args.web_bench, "probe", books[fmt], fens_path, str(args.seconds)))
            wasm = json.loads(run(node, mjs, args.site, "probe", books[fmt], fens_path, str(args.seconds)))
            rate = native["probes"] / native["seconds"]
            text = wasm["text"]["probes"] / wasm["text"]["seconds"]
            objects = wasm["objects"]["probes"] / wasm["objects"]["seconds"]
            print(f"{fmt + ' probes/s':24} {rate:14,.0f} {text:14,.0f} {text / rate:11.2f}x"
                  f"  (JSON text both sides; with JSON.parse into objects: {objects:,.0f}/s, "
                  f"{objects / rate:.2f}x)")
        out = run(args.archivist, "bench")
        m = re.search(r"(\d+) nodes (\d+) nps", out)
        native_nodes, native_nps = int(m.group(1)), int(m.group(2))
        w = json.loads(run(node, mjs, args.site, "bench"))
        wasm_nps = w["nodes"] / w["seconds"]
        same = "same count" if w["nodes"] == native_nodes else f"COUNTS DIFFER: native {native_nodes}"
        print(f"{'bench nodes/s':24} {native_nps:14,.0f} {wasm_nps:14,.0f} {wasm_nps / native_nps:11.2f}x"
              f"  ({w['nodes']} nodes, {same})")
        wasm = os.path.join(args.site, "archivist.wasm")
        raw = os.path.getsize(wasm)
        with open(wasm, "rb") as f:
            packed = len(gzip.compress(f.read(), compresslevel=9))
        print(f"{'archivist.wasm':24} {raw:14,} bytes, {packed:,} gzipped ({packed / 2**20:.2f} MiB)")
        return 0 if w["nodes"] == native_nodes else 1


if __name__ == "__main__":
    sys.exit(main())
