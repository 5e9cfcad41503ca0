#!/usr/bin/env python3
"""`make serve-bench`: `archivist serve` under load from wrk, beside
lila-tablebase on the same tables in the same run when it is built.

    serve_bench.py ARCHIVIST [--lila PATH] [--seconds 10] [--connections 8]

wrk (C, event-driven; tools/serve_bench.lua cycles through the request
paths) is the load generator: its rate on the cheapest route, /api/info,
is printed as the ceiling, so the other figures are the server's, not the
client's. For each server and route it prints requests/s and p50/p99
latency over --seconds of load from --connections connections on 2 wrk
threads; routes:

* `/standard?fen=` over 20,000 random 3-5-piece positions of the tables in
  ../shared/syzygy (halfmove clocks 0-120), archivist and lila-tablebase:
  as it runs by default (tables read with pread, a response cache), with
  `--mmap` (tables mapped, as archivist maps them), and with `--mmap
  --cache 0` (every request probed, as archivist does);
* `/api/book?fen=` over 2,000 positions along random lines of Debian's
  gnuchess book (archivist only: lila-tablebase has no books).

With lila-tablebase, 300 of the positions are also asked of both and their
answers compared: the same fields, values and moves, and the same order
(lila-tablebase leaves ties in move-generation order, archivist in UCI
order; positions that differ only there are counted apart).
"""
import argparse
import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from positions import book_positions, material_positions

ROOT = pathlib.Path(__file__).resolve().parent.parent
SYZYGY = ROOT.parent / "shared" / "syzygy"
GNUCHESS = "/usr/share/games/gnuchess/book.bin"
LUA = ROOT / "tools" / "serve_bench.lua"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited: {proc.stderr.read()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("server did not start listening")


class Server:
    def __init__(self, name, cmd, port):
        self.name, self.port = name, port
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wait_listening(port, self.proc)

    def url(self, path=""):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def wrk(server, paths, args, tmp):
    file = tmp / "paths.txt"
    file.write_text("\n".join(paths) + "\n")
    out = subprocess.run(
        ["wrk", "-t2", f"-c{args.connections}", f"-d{args.seconds}s", "--timeout", "10s", "-s", str(LUA), server.url()],
        capture_output=True, text=True, env={**os.environ, "PATHS": str(file)}, check=True)
    line = [line for line in out.stdout.splitlines() if line.startswith("{")][-1]
    r = json.loads(line)
    r["rate"] = r["requests"] / r["seconds"]
    return r


def get(server, path, fen):
    url = server.url(f"{path}?{urllib.parse.urlencode({'fen': fen})}")
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def compare(ours, theirs, fens):
    same, tie_order, differ = 0, 0, []
    for fen in fens:
        a, b = get(ours, "/standard", fen), get(theirs, "/standard", fen)
        if a == b:
            same += 1
        elif {**a, "moves": sorted(a["moves"], key=lambda m: m["uci"])} == \
                {**b, "moves": sorted(b["moves"], key=lambda m: m["uci"])}:
            tie_order += 1
        else:
            differ.append(fen)
    return same, tie_order, differ


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archivist")
    ap.add_argument("--lila", help="a lila-tablebase binary built from its source")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=8)
    args = ap.parse_args()
    tb_fens = [b.fen() for b in material_positions(SYZYGY, 20_000, seed=62, clock=lambda rng: rng.randrange(121))]
    book_fens = [b.fen() for b in book_positions(GNUCHESS, 2_000, seed=63)]
    q = lambda path, fen: f"{path}?{urllib.parse.urlencode({'fen': fen})}"  # noqa: E731
    tb_paths = [q("/standard", f) for f in tb_fens]
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        port = free_port()
        ours = Server("archivist", [args.archivist, "serve", "--listen", f"127.0.0.1:{port}", "--syzygy", str(SYZYGY),
                                    "--book", GNUCHESS], port)
        servers = [ours]
        try:
            rows.append(("archivist", "/api/info (ceiling)", wrk(ours, ["/api/info"], args, tmp)))
            rows.append(("archivist", "/standard", wrk(ours, tb_paths, args, tmp)))
            rows.append(("archivist", "/api/book", wrk(ours, [q("/api/book", f) for f in book_fens], args, tmp)))
            agreement = None
            if args.lila:
                for label, extra in (("lila-tablebase", []), ("lila-tablebase --mmap", ["--mmap"]),
                                     ("lila-tablebase --mmap --cache 0", ["--mmap", "--cache", "0"])):
                    port = free_port()
                    lila = Server(label, [args.lila, "--standard", str(SYZYGY), "--bind", f"127.0.0.1:{port}", *extra],
                                  port)
                    servers.append(lila)
                    rows.append((label, "/standard", wrk(lila, tb_paths, args, tmp)))
                    if agreement is None:
                        agreement = compare(ours, lila, tb_fens[:300])
                    lila.stop()
        finally:
            for s in servers:
                s.stop()
    print(f"serve-bench: wrk, 2 threads, {args.connections} connections, {args.seconds} s per row; "
          f"{len(tb_fens)} tablebase positions (3-5 pieces, clocks 0-120), {len(book_fens)} book positions")
    print(f"{'server':<32} {'route':<20} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} {'errors':>7}")
    for name, route, r in rows:
        print(f"{name:<32} {route:<20} {r['rate']:>9.0f} {r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f} {r['max_ms']:>8.1f} "
              f"{r['errors']:>7}")
    if not args.lila:
        print("lila-tablebase: not run (make serve-bench LILA_TABLEBASE=path/to/lila-tablebase; README.md says how)")
    else:
        same, tie_order, differ = agreement
        print(f"agreement with lila-tablebase on 300 positions: {same} identical, {tie_order} identical but for the "
              f"order of tied moves, {len(differ)} different{': ' + differ[0] if differ else ''}")
    bad = [r for _, _, r in rows if r["errors"]]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
