#!/usr/bin/env python3
"""`make serve-bench`: `archivist serve` under load from wrk, beside
lila-tablebase on the same tables in the same run when it is built.

    serve_bench.py ARCHIVIST [--lila PATH] [--seconds 10] [--connections 16] [--positions 30000]

wrk (C, event-driven; tools/serve_bench.lua cycles through the request
paths) is the load generator: its rate on the cheapest route, /api/info,
is printed as the ceiling, so the other figures are the server's, not the
client's. For each server and route it prints requests/s and p50/p99
latency over --seconds of load from --connections connections on 2 wrk
threads; routes:

* `/standard?fen=` over --positions (30,000) random 3-5-piece positions of
  the tables in ../shared/syzygy (halfmove clocks 0-120), archivist and
  lila-tablebase: each server twice over the same positions, `cold`
  (first asked) then `warm` (after every position has been asked once
  more, so that a response cache holds them all); archivist as it runs by default (its answer cache, 128 MB)
  and with `--tb-cache-mb 0` (every request probed); lila-tablebase as it
  runs by default (tables read with pread, a response cache of 20,000
  answers), with `--mmap` (tables mapped, as archivist maps them), and with
  `--mmap --cache 0` (every request probed);
* `/api/book?fen=` over 2,000 positions along random lines of Debian's
  gnuchess book (archivist only: lila-tablebase has no books);
* `POST /standard` (archivist only): 8,000 other positions in batches of
  1,000 from 4 clients at once, positions/s cold (first asked) and warm.

With lila-tablebase, 300 of the positions are also asked of both and their
answers compared: identical, field for field, moves in the same order.
"""
import argparse
import concurrent.futures
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
    """The positions whose answers are identical (fields, values, key and
    move order), and those that differ."""
    same, differ = 0, []
    for fen in fens:
        a, b = get(ours, "/standard", fen), get(theirs, "/standard", fen)
        if json.dumps(a) == json.dumps(b):
            same += 1
        else:
            differ.append(fen)
    return same, differ


def warm_up(server, paths, clients=8):
    """Asks every path once, so that a response cache holds them all."""
    def ask(path):
        with urllib.request.urlopen(server.url(path), timeout=60) as r:
            r.read()

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(ask, paths))


def batch_rate(server, fens, clients=4, size=1000):
    """Positions/s of `POST /standard` with `fens` in batches of `size` sent
    by `clients` at once."""
    batches = [fens[i:i + size] for i in range(0, len(fens), size)]

    def send(batch):
        body = ("\n".join(batch) + "\n").encode()
        request = urllib.request.Request(server.url("/standard"), data=body, method="POST")
        with urllib.request.urlopen(request, timeout=120) as r:
            lines = r.read().decode().splitlines()
        assert len(lines) == len(batch) and not any('"error"' in line[:10] for line in lines)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        list(pool.map(send, batches))
    return len(fens) / (time.monotonic() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archivist")
    ap.add_argument("--lila", help="a lila-tablebase binary built from its source")
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--positions", type=int, default=30_000)
    args = ap.parse_args()
    clock = lambda rng: rng.randrange(121)  # noqa: E731
    tb_fens = [b.fen() for b in material_positions(SYZYGY, args.positions, seed=62, clock=clock)]
    batch_fens = [b.fen() for b in material_positions(SYZYGY, 8_000, seed=64, clock=clock)]
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
        batches = None
        try:
            rows.append(("archivist", "/api/info (ceiling)", wrk(ours, ["/api/info"], args, tmp)))
            rows.append(("archivist", "/standard cold", wrk(ours, tb_paths, args, tmp)))
            warm_up(ours, tb_paths)
            rows.append(("archivist", "/standard warm", wrk(ours, tb_paths, args, tmp)))
            rows.append(("archivist", "/api/book", wrk(ours, [q("/api/book", f) for f in book_fens], args, tmp)))
            batches = (batch_rate(ours, batch_fens), batch_rate(ours, batch_fens))
            port = free_port()
            uncached = Server("archivist --tb-cache-mb 0", [args.archivist, "serve", "--listen", f"127.0.0.1:{port}",
                                                            "--syzygy", str(SYZYGY), "--tb-cache-mb", "0"], port)
            servers.append(uncached)
            rows.append((uncached.name, "/standard", wrk(uncached, tb_paths, args, tmp)))
            uncached.stop()
            agreement = None
            if args.lila:
                for label, extra in (("lila-tablebase", []), ("lila-tablebase --mmap", ["--mmap"]),
                                     ("lila-tablebase --mmap --cache 0", ["--mmap", "--cache", "0"])):
                    port = free_port()
                    lila = Server(label, [args.lila, "--standard", str(SYZYGY), "--bind", f"127.0.0.1:{port}", *extra],
                                  port)
                    servers.append(lila)
                    rows.append((label, "/standard cold", wrk(lila, tb_paths, args, tmp)))
                    if "0" not in extra:
                        warm_up(lila, tb_paths)
                        rows.append((label, "/standard warm", wrk(lila, tb_paths, args, tmp)))
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
    print(f"POST /standard, {len(batch_fens)} positions in batches of 1,000 from 4 clients: "
          f"{batches[0]:.0f} positions/s cold, {batches[1]:.0f} warm")
    if not args.lila:
        print("lila-tablebase: not run (make serve-bench LILA_TABLEBASE=path/to/lila-tablebase; README.md says how)")
    else:
        warm = {name: r["rate"] for name, route, r in rows if route == "/standard warm"}
        best = max((name for name in warm if name.startswith("lila")), key=warm.get)
        print(f"/standard warm, archivist / {best} (the faster lila-tablebase): {warm['archivist'] / warm[best]:.2f}x")
        same, differ = agreement
        print(f"agreement with lila-tablebase on 300 positions: {same} identical, {len(differ)} different"
              f"{': ' + differ[0] if differ else ''}")
    bad = [r for _, _, r in rows if r["errors"]]
    sys.exit(1 if bad or (args.lila and agreement[1]) else 0)


if __name__ == "__main__":
    main()
