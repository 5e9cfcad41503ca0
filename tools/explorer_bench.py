#!/usr/bin/env python3
"""`make explorer-bench`: the opening explorer's figures beside `book build`
on the same input, in one run.

    explorer_bench.py ARCHIVIST GENERATOR [--games 1000000] [--dir DIR]
                      [--memory 128] [--seconds 10] [--connections 8]

* Input: GENERATOR (examples/explorer_games, seeded: ratings, speeds and
  dates spread like a Lichess monthly dump) writes --games games to
  DIR/games-N.pgn (kept there for the next run); its size plain and at
  `zstd -3`.
* Build, on 1 and 2 threads at --memory MB: `book build --max-ply 50`
  (Polyglot) and `explorer build` on the same file, each run timed with
  /usr/bin/time -v: MB/s of PGN and peak resident memory.
* Index: bytes (statistics and games) beside the input at `zstd -3`.
* Queries: `archivist serve --lichess` on the index under wrk (2 threads,
  --connections connections, --seconds each; tools/serve_bench.lua cycles
  through the paths): requests/s, p50, p99 for `/lichess` without filters
  and with random speeds, ratings and month filters over 2,000 positions
  of the first 16 plies of the games (python-chess replays them), and
  wrk's ceiling on `/api/info`.

Figures, not a test; stop background jobs (make datagen-stop) first.
"""
import argparse
import json
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import urllib.parse

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
    args = ap.parse_args()
    data = pathlib.Path(args.dir)
    data.mkdir(parents=True, exist_ok=True)
    pgn = data / f"games-{args.games}.pgn"
    if not pgn.exists():
        print(f"generating {args.games} games into {pgn}", flush=True)
        subprocess.run([args.generator, str(pgn) + ".part", str(args.games), "1"], check=True)
        os.replace(str(pgn) + ".part", pgn)
    zst = pathlib.Path(str(pgn) + ".zst")
    if not zst.exists():
        subprocess.run(["zstd", "-q", "-3", "-T2", "-f", str(pgn), "-o", str(zst)], check=True)
    size, zsize = pgn.stat().st_size, zst.stat().st_size
    print(f"input: {pgn}: {args.games} games, {size / 1e6:.1f} MB; zstd -3: {zsize / 1e6:.1f} MB", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(dir=data) as d:
        tmp = pathlib.Path(d)
        index = tmp / "games.axi"
        for threads in [int(t) for t in args.threads.split(",")]:
            common = ["--threads", str(threads), "--memory", str(args.memory), "--temp-dir", str(tmp)]
            book = [args.archivist, "book", "build", "--pgn", str(pgn), "--out", str(tmp / "book.bin"),
                    "--max-ply", "50", *common]
            explorer = [args.archivist, "explorer", "build", "--pgn", str(pgn), "--out", str(index), *common]
            for label, cmd in (("book build --max-ply 50", book), ("explorer build", explorer)):
                subprocess.run(["cat", str(pgn)], stdout=subprocess.DEVNULL, check=True)  # in the page cache
                seconds, rss, _ = timed(cmd, tmp)
                rows.append((label, threads, seconds, size / 1e6 / seconds, rss))
                print(f"  {label:<26} {threads} thread(s): {seconds:7.2f} s {size / 1e6 / seconds:7.1f} MB/s "
                      f"peak {rss:6.0f} MB", flush=True)
        isize = index.stat().st_size
        info = subprocess.run([args.archivist, "explorer", "info", str(index)], capture_output=True, text=True).stdout
        fens = positions(pgn, 2000, seed=64)
        rng = random.Random(65)
        plain = ["/lichess?" + urllib.parse.urlencode({"fen": f}) for f in fens]
        filters = [filtered(rng, f) for f in fens]
        port = free_port()
        server = Server("archivist", [args.archivist, "serve", "--listen", f"127.0.0.1:{port}", "--lichess",
                                      str(index)], port)
        try:
            load = [("/api/info (ceiling)", wrk(server, ["/api/info"], args, tmp)),
                    ("/lichess", wrk(server, plain, args, tmp)),
                    ("/lichess filtered", wrk(server, filters, args, tmp))]
        finally:
            server.stop()
    print()
    print(f"explorer-bench: {args.games} generated games, {size / 1e6:.1f} MB PGN, --memory {args.memory}")
    print(f"{'build':<26} {'threads':>7} {'seconds':>8} {'MB/s':>7} {'peak MB':>8}")
    for label, threads, seconds, rate, rss in rows:
        print(f"{label:<26} {threads:>7} {seconds:>8.2f} {rate:>7.1f} {rss:>8.0f}")
    for threads in sorted({r[1] for r in rows}):
        book = next(r for r in rows if r[1] == threads and r[0].startswith("book"))
        expl = next(r for r in rows if r[1] == threads and r[0].startswith("explorer"))
        print(f"explorer build / book build, {threads} thread(s): {expl[3] / book[3]:.2f} (goal: at least 0.5)")
    print(f"index: {isize / 1e6:.1f} MB = {isize / zsize:.2f}x the zstd -3 input ({zsize / 1e6:.1f} MB), "
          f"{isize / size:.2f}x the plain input (goal: at most 1.5x zstd -3)")
    print("\n".join("  " + line for line in info.splitlines()[2:]))
    print(f"queries: wrk, 2 threads, {args.connections} connections, {args.seconds} s per row, 2,000 positions")
    print(f"{'route':<22} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}")
    for route, r in load:
        print(f"{route:<22} {r['rate']:>9.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['max_ms']:>8.1f} "
              f"{r['errors']:>7}")
    print("goal: p99 under 5 ms for filtered /lichess on a 1,000,000-game index")
    sys.exit(1 if any(r["errors"] for _, r in load) else 0)


if __name__ == "__main__":
    main()
