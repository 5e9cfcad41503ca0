#!/usr/bin/env python3
"""`make explorer-bench`: the opening explorer's figures beside `book build`
on the same input, in one run.

    explorer_bench.py ARCHIVIST GENERATOR [--games 1000000] [--dir DIR]
                      [--memory 128] [--runs 3] [--seconds 10] [--connections 8]
                      [--queries 20000] [--stream-games 10000000]
                      [--stream-memory 256] [--shards 24]
                      [--shard-games 1000000] [--lila BIN --lila-import BIN]

* Input: GENERATOR (examples/explorer_games, seeded: ratings, speeds and
  dates spread like a Lichess monthly dump) writes --games games with
  `[%clk]` comments as Lichess's dumps have them (`--clk`; `--no-clk` for
  bare movetext) to DIR/games-N[-clk].pgn (kept there for the next run);
  its size plain and at `zstd -3`.
* Build, on 1 and 2 threads at --memory MB: `book build --max-ply 50`
  (Polyglot) and `explorer build` on the same file, each run timed with
  /usr/bin/time -v: MB/s of PGN and peak resident memory. Each pair runs
  --runs times (book, then explorer, in turn): the medians are reported,
  and the range of the pairs' ratios (a shared host's speed drifts
  between runs more than the builds differ).
* Streaming: --stream-games games from GENERATOR through a pipe into
  `explorer build --pgn - --memory` --stream-memory: seconds and the
  build's peak resident memory (goal: within --memory + 64 MB).
* Index: bytes (statistics and games) beside the input at `zstd -3`.
* Queries: `archivist serve --lichess` on the index under wrk (2 threads,
  --connections connections, --seconds each; tools/serve_bench.lua cycles
  through the paths): start-up time (spawn to the first answer),
  requests/s, p50, p99 for `/lichess` without filters and with random
  speeds, ratings and month filters over --queries positions of the first
  16 plies of the games (python-chess replays them), with the response
  cache on (as it starts) and off (`--explorer-cache-mb 0`), and wrk's
  ceiling on `/api/info`. Then the same on --shards indexes of
  --shard-games games each (other seeds, built once and kept under DIR)
  served together.
* lila-openingexplorer (`--lila`, built from its source, and its
  `import-lichess` as --lila-import): the same games imported through its
  own importer (seconds), then the same query rows with its response
  cache on (its default, 40,000 answers) and off (`--lichess-cache 0`).

Figures, not a test; stop background jobs (make datagen-stop) first.
"""
import argparse
import json
import os
import pathlib
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import chess
import chess.pgn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from serve_bench import Server, free_port, wrk  # noqa: E402

SPEEDS = ["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"]
RATINGS = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500]


def timed(cmd, tmp):
    """(seconds, peak MB, stderr) of one run of cmd."""
    out = tmp / "time.txt"
    p = subprocess.run(["/usr/bin/time", "-v", "-o", str(out), *cmd], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {p.stderr[-2000:]}")
    text = out.read_text()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1).split(":")
    seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    return seconds, rss / 1024, p.stderr


def positions(pgn, count, seed):
    """FENs of `count` positions from the first 16 plies of the file's first games."""
    rng = random.Random(seed)
    fens = []
    with open(pgn) as f:
        while len(fens) < count:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            if game.headers.get("Variant", "Standard") != "Standard":
                continue
            board = game.board()
            stop = rng.randrange(17)
            for i, move in enumerate(game.mainline_moves()):
                if i == stop:
                    break
                board.push(move)
            fens.append(board.fen())
    return fens


def filtered(rng, fen):
    q = {"fen": fen}
    if rng.random() < 0.7:
        q["speeds"] = ",".join(rng.sample(SPEEDS, rng.randint(1, 4)))
    if rng.random() < 0.7:
        q["ratings"] = ",".join(str(r) for r in sorted(rng.sample(RATINGS, rng.randint(1, 5))))
    if rng.random() < 0.5:
        y = rng.randint(2013, 2024)
        q["since"] = f"{y}-{rng.randint(1, 12):02d}"
        if rng.random() < 0.5:
            q["until"] = f"{rng.randint(y, 2024)}-12"
    return "/lichess?" + urllib.parse.urlencode(q)


def generated(generator, pgn, games, seed, clk):
    """The generator's games in `pgn`, made once and kept."""
    if not pgn.exists():
        print(f"generating {games} games into {pgn}", flush=True)
        subprocess.run([generator, *(["--clk"] if clk else []), str(pgn) + ".part", str(games), str(seed)],
                       check=True)
        os.replace(str(pgn) + ".part", pgn)


def streamed(args, tmp):
    """(seconds, peak MB) of `explorer build --pgn -` fed --stream-games
    games through a pipe."""
    out, index = tmp / "stream-time.txt", tmp / "stream.axi"
    gen = subprocess.Popen([args.generator, "--clk", "-", str(args.stream_games), "7"], stdout=subprocess.PIPE)
    build = subprocess.run(["/usr/bin/time", "-v", "-o", str(out), args.archivist, "explorer", "build", "--pgn", "-",
                            "--out", str(index), "--memory", str(args.stream_memory), "--threads", "2",
                            "--temp-dir", str(tmp)], stdin=gen.stdout, capture_output=True, text=True)
    gen.stdout.close()
    gen.wait()
    if build.returncode != 0:
        raise SystemExit(f"streamed build failed: {build.stderr[-2000:]}")
    text = out.read_text()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1).split(":")
    seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024
    index.unlink()
    return seconds, rss


def shards(args, data, tmp):
    """--shards indexes of --shard-games games each (seeds 101, 102, …),
    built once from the generator through a pipe and kept."""
    folder = data / f"shards-{args.shard_games}"
    folder.mkdir(exist_ok=True)
    paths = []
    for k in range(args.shards):
        index = folder / f"shard-{k:02}.axi"
        if not index.exists():
            print(f"building shard {k + 1} of {args.shards} ({args.shard_games} games)", flush=True)
            gen = subprocess.Popen([args.generator, "-", str(args.shard_games), str(101 + k)],
                                   stdout=subprocess.PIPE)
            subprocess.run([args.archivist, "explorer", "build", "--pgn", "-", "--out", str(index) + ".part",
                            "--threads", "1", "--memory", str(args.memory), "--temp-dir", str(tmp)],
                           stdin=gen.stdout, check=True, capture_output=True)
            gen.stdout.close()
            gen.wait()
            os.replace(str(index) + ".part", index)
        paths.append(index)
    return paths


def started(name, cmd, port, probe):
    """A server and the seconds from its spawn to its first answer of `probe`."""
    t0 = time.monotonic()
    server = Server(name, cmd, port)
    while True:
        try:
            with urllib.request.urlopen(server.url(probe), timeout=30) as r:
                r.read()
            break
        except OSError:
            if time.monotonic() - t0 > 600:
                raise
            time.sleep(0.01)
    return server, time.monotonic() - t0


def query_rows(label, server, plain, filters, args, tmp):
    return [(f"{label} /lichess", wrk(server, plain, args, tmp)),
            (f"{label} /lichess filtered", wrk(server, filters, args, tmp))]


def ours(args, indexes, plain, filters, tmp, label):
    """Start-up seconds and the query rows of `serve` over `indexes`, cache
    on and off."""
    rows, startup = [], None
    cache_option = "--explorer-cache-mb" in subprocess.run([args.archivist, "serve", "--help"], capture_output=True,
                                                           text=True).stdout
    for cache in ("on", "off"):
        if cache == "off" and not cache_option:
            continue
        port = free_port()
        flags = [x for i in indexes for x in ("--lichess", str(i))]
        extra = ["--explorer-cache-mb", "0"] if cache == "off" else []
        server, seconds = started("archivist", [args.archivist, "serve", "--listen", f"127.0.0.1:{port}", *flags,
                                                *extra], port, "/api/info")
        startup = seconds if startup is None else startup
        try:
            if cache == "on" and label == "one index":
                rows.append(("/api/info (ceiling)", wrk(server, ["/api/info"], args, tmp)))
            rows += query_rows(f"{label}, cache {cache}", server, plain, filters, args, tmp)
        finally:
            server.stop()
    return startup, rows


def lila(args, pgn, plain, filters, tmp):
    """lila-openingexplorer on the same games: import seconds and its rows."""
    rows = []
    db = tmp / "lila-db"
    port = free_port()
    server, _ = started("lila", [args.lila, "--db", str(db), "--bind", f"127.0.0.1:{port}"], port, "/monitor")
    try:
        t0 = time.monotonic()
        subprocess.run([args.lila_import, "--endpoint", f"http://127.0.0.1:{port}", str(pgn)], check=True,
                       stdout=subprocess.DEVNULL)
        seconds = time.monotonic() - t0
        # lila compacts its database after an import (POST /compact), as the
        # issue's figures did: the queries run on the compacted database.
        t0 = time.monotonic()
        request = urllib.request.Request(server.url("/compact"), method="POST")
        with urllib.request.urlopen(request, timeout=3600) as r:
            r.read()
        compaction = time.monotonic() - t0
        rows += query_rows("lila, cache on", server, plain, filters, args, tmp)
    finally:
        server.stop()
    port = free_port()
    server, _ = started("lila", [args.lila, "--db", str(db), "--bind", f"127.0.0.1:{port}", "--lichess-cache", "0"],
                        port, "/monitor")
    try:
        rows += query_rows("lila, cache off", server, plain, filters, args, tmp)
    finally:
        server.stop()
    return (seconds, compaction), rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archivist")
    ap.add_argument("generator")
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--dir", default=os.path.expanduser("~/archivist-data/explorer-bench"))
    ap.add_argument("--memory", type=int, default=128)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--clk", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--queries", type=int, default=20_000)
    ap.add_argument("--stream-games", type=int, default=10_000_000)
    ap.add_argument("--stream-memory", type=int, default=256)
    ap.add_argument("--shards", type=int, default=24)
    ap.add_argument("--shard-games", type=int, default=1_000_000)
    ap.add_argument("--lila")
    ap.add_argument("--lila-import")
    args = ap.parse_args()
    data = pathlib.Path(args.dir)
    data.mkdir(parents=True, exist_ok=True)
    pgn = data / f"games-{args.games}{'-clk' if args.clk else ''}.pgn"
    generated(args.generator, pgn, args.games, 1, args.clk)
    zst = pathlib.Path(str(pgn) + ".zst")
    if not zst.exists():
        subprocess.run(["zstd", "-q", "-3", "-T2", "-f", str(pgn), "-o", str(zst)], check=True)
    size, zsize = pgn.stat().st_size, zst.stat().st_size
    print(f"input: {pgn}: {args.games} games, {size / 1e6:.1f} MB; zstd -3: {zsize / 1e6:.1f} MB", flush=True)
    rows, load, stream = [], [], None
    with tempfile.TemporaryDirectory(dir=data) as d:
        tmp = pathlib.Path(d)
        index = tmp / "games.axi"
        for threads in [int(t) for t in args.threads.split(",")]:
            common = ["--threads", str(threads), "--memory", str(args.memory), "--temp-dir", str(tmp)]
            book = [args.archivist, "book", "build", "--pgn", str(pgn), "--out", str(tmp / "book.bin"),
                    "--max-ply", "50", *common]
            explorer = [args.archivist, "explorer", "build", "--pgn", str(pgn), "--out", str(index), *common]
            runs = {"book build --max-ply 50": [], "explorer build": []}
            for _ in range(args.runs):
                for label, cmd in (("book build --max-ply 50", book), ("explorer build", explorer)):
                    subprocess.run(["cat", str(pgn)], stdout=subprocess.DEVNULL, check=True)  # in the page cache
                    seconds, rss, _ = timed(cmd, tmp)
                    runs[label].append((seconds, rss))
                    print(f"  {label:<26} {threads} thread(s): {seconds:7.2f} s {size / 1e6 / seconds:7.1f} MB/s "
                          f"peak {rss:6.0f} MB", flush=True)
            pairs = [b[0] / e[0] for b, e in zip(runs["book build --max-ply 50"], runs["explorer build"])]
            for label, got in runs.items():
                seconds = statistics.median(t for t, _ in got)
                rows.append((label, threads, seconds, size / 1e6 / seconds, max(r for _, r in got), pairs))
        if args.stream_games:
            stream = streamed(args, tmp)
            print(f"  streamed {args.stream_games} games: {stream[0]:.1f} s, peak {stream[1]:.0f} MB", flush=True)
        isize = index.stat().st_size
        info = subprocess.run([args.archivist, "explorer", "info", str(index)], capture_output=True, text=True).stdout
        fens = positions(pgn, args.queries, seed=64)
        rng = random.Random(65)
        plain = ["/lichess?" + urllib.parse.urlencode({"fen": f}) for f in fens]
        filters = [filtered(rng, f) for f in fens]
        startup, got = ours(args, [index], plain, filters, tmp, "one index")
        load += got
        starts = [("one index", startup)]
        if args.shards:
            paths = shards(args, data, tmp)
            startup, got = ours(args, paths, plain, filters, tmp, f"{args.shards} shards")
            load += got
            starts.append((f"{args.shards} shards of {args.shard_games} games", startup))
        lila_import = None
        if args.lila and args.lila_import:
            lila_import, got = lila(args, pgn, plain, filters, tmp)
            load += got
    print()
    print(f"explorer-bench: {args.games} generated games{' with [%clk]' if args.clk else ''}, "
          f"{size / 1e6:.1f} MB PGN, --memory {args.memory}")
    print(f"build (median of {args.runs})        threads  seconds    MB/s  peak MB")
    for label, threads, seconds, rate, rss, _ in rows:
        print(f"{label:<26} {threads:>7} {seconds:>8.2f} {rate:>7.1f} {rss:>8.0f}")
    for threads in sorted({r[1] for r in rows}):
        book = next(r for r in rows if r[1] == threads and r[0].startswith("book"))
        expl = next(r for r in rows if r[1] == threads and r[0].startswith("explorer"))
        print(f"explorer build / book build, {threads} thread(s): {expl[3] / book[3]:.2f} "
              f"(pairs {min(book[5]):.2f} to {max(book[5]):.2f}; goal: at least 0.5)")
    if stream:
        print(f"streamed: {args.stream_games} games through a pipe, --memory {args.stream_memory}: {stream[0]:.1f} s, "
              f"peak {stream[1]:.0f} MB (goal: at most {args.stream_memory + 64} MB)")
    if lila_import is not None:
        print(f"lila-openingexplorer's import-lichess of the same games: {lila_import[0]:.1f} s, "
              f"then its compaction: {lila_import[1]:.1f} s")
    print(f"index: {isize / 1e6:.1f} MB = {isize / zsize:.2f}x the zstd -3 input ({zsize / 1e6:.1f} MB), "
          f"{isize / size:.2f}x the plain input (goal: at most 1.5x zstd -3)")
    print("\n".join("  " + line for line in info.splitlines()[2:]))
    for label, seconds in starts:
        goal = " (goal: at most 1 s)" if label == "one index" else ""
        print(f"start-up, {label}: {seconds:.2f} s to the first answer{goal}")
    print(f"queries: wrk, 2 threads, {args.connections} connections, {args.seconds} s per row, "
          f"{len(fens)} positions")
    print(f"{'route':<44} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}")
    for route, r in load:
        print(f"{route:<44} {r['rate']:>9.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['max_ms']:>8.1f} "
              f"{r['errors']:>7}")
    print("goal: /lichess at least lila's requests/s, cache on and off")
    sys.exit(1 if any(r["errors"] for _, r in load) else 0)


if __name__ == "__main__":
    main()
