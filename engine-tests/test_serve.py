"""`archivist serve`: the API against python-chess, the live search's
contract, the limits on requests, a load test, and the page in a real
browser with outside requests blocked and counted."""
import contextlib
import http.client
import json
import os
import random
import socket
import subprocess
import threading
import time
import urllib.parse

import chess
import chess.polyglot
import pytest

from conftest import SHARED
from positions import book_positions, material_positions
from test_tb_tools import SYZYGY

GNUCHESS = "/usr/share/games/gnuchess/book.bin"


@contextlib.contextmanager
def server(exe, *args, listen=("--listen", "127.0.0.1:0")):
    p = subprocess.Popen([exe, "serve", *listen, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        if not line.startswith("listening on "):
            p.kill()
            raise AssertionError(f"no 'listening on' line: {line!r} {p.stderr.read()}")
        yield urllib.parse.urlsplit(line.split()[-1]).netloc
    finally:
        p.terminate()
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


def get(host, path, conn=None, **params):
    """(status, parsed JSON) of GET path?params on one connection."""
    own = conn is None
    conn = conn or http.client.HTTPConnection(host, timeout=30)
    try:
        query = urllib.parse.urlencode(params)
        conn.request("GET", f"{path}?{query}" if query else path)
        r = conn.getresponse()
        body = r.read()
        return r.status, json.loads(body) if r.getheader("content-type", "").startswith("application/json") else body
    finally:
        if own:
            conn.close()


@pytest.mark.skipif(not os.path.exists(GNUCHESS), reason="Debian's gnuchess-book (make deps)")
def test_book_answers_equal_python_chess_polyglot_reader_on_500_positions(exe):
    boards = book_positions(GNUCHESS, 500, seed=48)
    in_book = 0
    with server(exe, "--book", GNUCHESS) as host, chess.polyglot.open_reader(GNUCHESS) as book:
        conn = http.client.HTTPConnection(host, timeout=30)
        for board in boards:
            status, answer = get(host, "/api/book", conn, fen=board.fen())
            assert status == 200, answer
            [b] = answer["books"]
            assert (b["name"], b["format"]) == ("book.bin", "polyglot")
            assert b["key"] == f"{chess.polyglot.zobrist_hash(board):016x}"
            want = [(e.move.uci(), e.weight, e.learn) for e in book.find_all(board, minimum_weight=0)]
            got = [(m["uci"], m["weight"], m["learn"]) for m in b["moves"]]
            assert got == want, board.fen()
            assert [m["san"] for m in b["moves"]] == [board.san(chess.Move.from_uci(u)) for u, _, _ in want]
            in_book += bool(want)
    # Both kinds: positions the book has moves for, and positions it has none for.
    assert in_book >= 150 and len(boards) - in_book >= 50, in_book


def test_bad_requests_get_a_4xx_with_a_json_error(exe):
    with server(exe, "--syzygy", str(SYZYGY)) as host:
        for path, params in [
            ("/api/tablebase", {"fen": "not a fen"}),
            ("/api/tablebase", {}),
            ("/api/book", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}),
            ("/api/book", {"fen": chess.STARTING_FEN, "book": "../../etc/passwd"}),
            ("/api/moves", {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"}),
            ("/api/analyse", {"fen": chess.STARTING_FEN, "multipv": "0"}),
            ("/api/analyse", {"fen": chess.STARTING_FEN, "multipv": "many"}),
            ("/api/tablebase", {"fen": "x" * 5000}),
            ("/nowhere", {}),
        ]:
            status, body = get(host, path, **params)
            assert 400 <= status < 500, (path, params, status)
            assert isinstance(body, dict) and body["error"], (path, body)
        conn = http.client.HTTPConnection(host, timeout=10)
        conn.request("POST", "/api/book", body=b"x" * 100_000)
        r = conn.getresponse()
        assert 400 <= r.status < 500 and json.loads(r.read())["error"]


def sse(host, fen, multipv=1):
    """An open analysis stream: (connection, response)."""
    conn = http.client.HTTPConnection(host, timeout=60)
    conn.request("GET", "/api/analyse?" + urllib.parse.urlencode({"fen": fen, "multipv": multipv}))
    return conn, conn.getresponse()


def events(response):
    """The (event, data) pairs of a stream until it ends."""
    name = None
    for raw in response:
        line = raw.decode().rstrip("\n")
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            yield name, json.loads(line[5:].strip())
            name = None


@pytest.mark.timing
def test_live_search_streams_lines_and_ends_by_search_seconds(exe):
    with server(exe, "--search-seconds", "2", "--search-hash", "16") as host:
        start = time.monotonic()
        conn, r = sse(host, chess.STARTING_FEN, multipv=2)
        assert r.status == 200 and r.getheader("content-type").startswith("text/event-stream")
        seen = list(events(r))
        elapsed = time.monotonic() - start
        infos = [d for e, d in seen if e == "info"]
        assert seen[-1][0] == "done" and chess.Move.from_uci(seen[-1][1]["bestmove"]) in chess.Board().legal_moves
        assert {d["multipv"] for d in infos} == {1, 2}
        for d in infos:
            assert sum(d["wdl"]) == 1000 and ("cp" in d["score"] or "mate" in d["score"])
            board = chess.Board()
            for m in d["pv"]:
                assert m["san"] == board.san(chess.Move.from_uci(m["uci"]))
                board.push_uci(m["uci"])
        assert 1.5 < elapsed < 4.0, elapsed


@pytest.mark.timing
def test_a_busy_service_answers_429_at_once_and_a_gone_client_frees_its_slot_within_a_second(exe):
    with server(exe, "--searches", "1", "--search-seconds", "60", "--search-hash", "16") as host:
        conn, r = sse(host, chess.STARTING_FEN)
        assert r.status == 200
        first = next(events(r))
        assert first[0] == "info"
        t = time.monotonic()
        status, body = get(host, "/api/analyse", fen=chess.STARTING_FEN)
        assert status == 429 and body["error"] and time.monotonic() - t < 0.5
        # The client goes away: its slot is free within a second.
        r.close()
        conn.sock.shutdown(socket.SHUT_RDWR)
        conn.close()
        gone = time.monotonic()
        while True:
            c2, r2 = sse(host, chess.STARTING_FEN)
            if r2.status == 200:
                break
            r2.read()
            c2.close()
            assert time.monotonic() - gone < 1.0, "slot not freed within a second"
            time.sleep(0.05)
        assert time.monotonic() - gone < 1.0
        c2.close()


def test_the_service_listens_only_on_loopback_by_default(exe):
    # The default address, 127.0.0.1:9090 (skipped when something else has it).
    probe_socket = socket.socket()
    try:
        probe_socket.bind(("127.0.0.1", 9090))
    except OSError:
        pytest.skip("port 9090 is taken")
    finally:
        probe_socket.close()
    p = subprocess.Popen([exe, "serve"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "listening on http://127.0.0.1:9090/"
        status, _ = get("127.0.0.1:9090", "/api/info")
        assert status == 200
        # Not reachable through any other address of this machine.
        addresses = {a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
        for a in addresses - {"127.0.0.1"}:
            with pytest.raises(OSError):
                socket.create_connection((a, 9090), timeout=2).close()
    finally:
        p.terminate()
        p.wait(10)


def load(host, requests, clients, total, ok=lambda status, body: status == 200):
    """`total` GETs of (path, fen) pairs drawn from `requests`, from
    `clients` threads with a connection each (made again after a failure):
    (failures, sorted latencies in seconds, seconds taken)."""
    errors, latencies, lock = [], [], threading.Lock()

    def client(n):
        rng = random.Random(n)
        conn = http.client.HTTPConnection(host, timeout=30)
        mine = []
        for _ in range(total // clients + (n < total % clients)):
            path, fen = rng.choice(requests)
            t = time.perf_counter()
            try:
                status, body = get(host, path, conn, fen=fen)
                if not ok(status, body):
                    errors.append((path, fen, status, body))
            except Exception as e:  # noqa: BLE001 (every failure counts)
                errors.append((path, fen, repr(e)))
                conn.close()
                conn = http.client.HTTPConnection(host, timeout=30)
            mine.append(time.perf_counter() - t)
        with lock:
            latencies.extend(mine)

    start = time.perf_counter()
    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    return errors, sorted(latencies), time.perf_counter() - start


def test_load_20000_book_and_tablebase_requests_from_32_clients(exe):
    boards = material_positions(SYZYGY, 200, seed=9)
    book_boards = book_positions(GNUCHESS, 200, seed=10) if os.path.exists(GNUCHESS) else []
    args = ["--syzygy", str(SYZYGY)] + (["--book", GNUCHESS] if book_boards else [])
    requests = [("/api/tablebase", b.fen()) for b in boards] + [("/api/book", b.fen()) for b in book_boards]
    with server(exe, *args) as host:
        errors, latencies, seconds = load(host, requests, 32, 20_000)
        bad = 0
        for i in range(100):
            status, _ = get(host, "/api/tablebase", fen=f"bad fen {i}")
            bad += 400 <= status < 500
    assert not errors, errors[:5]
    assert len(latencies) == 20_000
    assert bad == 100
    print(f"load: {len(latencies)} requests, 32 clients, {len(latencies) / seconds:.0f} req/s, "
          f"p50 {1000 * latencies[len(latencies) // 2]:.2f} ms, p99 {1000 * latencies[len(latencies) * 99 // 100]:.2f} ms")


def test_analysis_shows_the_saved_tables_entry_and_the_line_found_by_walking_it(exe, tmp_path):
    from harness import Uci

    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    path = tmp_path / "analysis.sftt"
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name Hash File value {path}", "setoption name Hash value 16", f"position fen {fen}", "go depth 10")
    lines, _ = u.bestmove(60)
    bestmove = lines[-1].split()[1]
    u.send("setoption name Save Hash to File")
    u.ready()
    assert u.close() == 0
    with server(exe, "--hash-file", str(path)) as host:
        status, a = get(host, "/api/analysis", fen=fen)
        assert status == 200 and a["loaded"] and a["found"], a
        assert a["depth"] >= 9 and a["bound"] in ("exact", "lower", "upper") and ("cp" in a["score"] or "mate" in a["score"])
        # The line walks the table from the position: legal moves, first the search's best move.
        board = chess.Board(fen)
        assert a["pv"] and a["pv"][0]["uci"] == bestmove
        for m in a["pv"]:
            move = chess.Move.from_uci(m["uci"])
            assert move in board.legal_moves and board.san(move) == m["san"]
            board.push(move)
        status, far = get(host, "/api/analysis", fen="8/8/8/4k3/8/8/3QK3/8 w - - 0 1")
        assert status == 200 and far == {"loaded": True, "found": False}
    with server(exe) as host:
        assert get(host, "/api/analysis", fen=fen) == (200, {"loaded": False, "found": False})
