"""`POST /standard`, many positions in one request: the same answers as
single requests, line for line, in JSON and CBOR; a bad line; the limits
(413); and single requests answered quickly while batches run."""
import http.client
import io
import json
import threading
import time
import urllib.parse

import cbor2
import pytest

from positions import material_positions
from test_serve import get, server
from test_tb_tools import SYZYGY


def post(host, lines, accept="application/json", body=None):
    """(status, content type, body) of POST /standard with `lines`."""
    conn = http.client.HTTPConnection(host, timeout=120)
    try:
        data = body if body is not None else ("\n".join(lines) + "\n").encode()
        conn.request("POST", "/standard", body=data, headers={"Accept": accept, "Content-Type": "text/plain"})
        r = conn.getresponse()
        return r.status, r.getheader("content-type"), r.read()
    finally:
        conn.close()


@pytest.fixture(scope="module")
def tables(exe):
    with server(exe, "--syzygy", str(SYZYGY), "--tb-cache-mb", "0") as host:
        yield host


def test_a_batch_of_1000_equals_1000_single_requests(tables):
    fens = [b.fen() for b in material_positions(SYZYGY, 1000, seed=771, clock=lambda rng: rng.randrange(121))]
    status, content_type, body = post(tables, fens)
    assert (status, content_type) == (200, "application/x-ndjson")
    lines = body.decode().split("\n")
    assert lines[-1] == "" and len(lines) == 1001
    conn = http.client.HTTPConnection(tables, timeout=30)
    for fen, line in zip(fens, lines):
        conn.request("GET", "/standard?" + urllib.parse.urlencode({"fen": fen}))
        single = conn.getresponse().read().decode()
        assert line == single, fen


def test_a_cbor_batch_is_the_sequence_of_the_single_cbor_answers(tables):
    fens = [b.fen() for b in material_positions(SYZYGY, 20, seed=772)]
    status, content_type, body = post(tables, fens, accept="application/cbor")
    assert (status, content_type) == (200, "application/cbor-seq")
    items, rest = [], body
    while rest:
        decoder = io.BytesIO(rest)
        items.append(cbor2.load(decoder))
        rest = rest[decoder.tell():]
    assert items == [get(tables, "/standard", fen=f)[1] for f in fens]


def test_a_bad_line_gets_an_error_and_the_other_lines_answer(tables):
    good = "8/8/8/8/8/2k5/8/K2R4 w - - 0 1"
    status, _, body = post(tables, [good, "not a fen", "", "8/8/8/8/8/2k5/8/K2R4_w_-_-_0_1"])
    assert status == 200
    lines = [json.loads(line) for line in body.decode().splitlines()]
    assert len(lines) == 4
    assert lines[0] == lines[3] == get(tables, "/standard", fen=good)[1]
    assert lines[0]["category"] == "win"
    assert set(lines[1]) == {"error"} and "not a fen" in lines[1]["error"]
    assert set(lines[2]) == {"error"}


def test_over_1000_lines_or_1_mib_gets_413_and_nothing_is_probed(tables):
    fen = "8/8/8/8/8/2k5/8/K2R4 w - - 0 1"
    status, _, body = post(tables, [fen] * 1001)
    assert status == 413 and "1000" in json.loads(body)["error"]
    status, _, _ = post(tables, None, body=b"8/8/8/8/8/2k5/8/K2R4 w - - 0 1" + b" " * (1 << 20))
    assert status == 413
    assert post(tables, [fen] * 1000)[0] == 200
    # The other routes still take no body.
    conn = http.client.HTTPConnection(tables, timeout=30)
    conn.request("POST", "/standard/mainline", body=b"x")
    assert conn.getresponse().status == 405


@pytest.mark.timing
def test_single_requests_stay_under_50_ms_at_p99_while_4_clients_send_batches(exe):
    boards = material_positions(SYZYGY, 4400, seed=773, clock=lambda rng: rng.randrange(121))
    singles, batches = [b.fen() for b in boards[:400]], [[b.fen() for b in boards[400 + 1000 * i:][:1000]]
                                                         for i in range(4)]
    with server(exe, "--syzygy", str(SYZYGY), "--tb-cache-mb", "0") as host:
        stop, sent, errors = threading.Event(), [0], []

        def batch_client(fens):
            while not stop.is_set():
                status, _, body = post(host, fens)
                if status != 200 or body.count(b"\n") != len(fens):
                    errors.append(status)
                sent[0] += 1

        threads = [threading.Thread(target=batch_client, args=(b,)) for b in batches]
        for t in threads:
            t.start()
        time.sleep(1)
        latencies = []
        conn = http.client.HTTPConnection(host, timeout=30)
        for fen in singles:
            t = time.perf_counter()
            status, _ = get(host, "/standard", conn, fen=fen)
            latencies.append(time.perf_counter() - t)
            assert status == 200
        stop.set()
        for t in threads:
            t.join(120)
    latencies.sort()
    p99 = latencies[len(latencies) * 99 // 100]
    print(f"single requests during batches: p50 {1000 * latencies[len(latencies) // 2]:.2f} ms, "
          f"p99 {1000 * p99:.2f} ms; {sent[0]} batches of 1,000 answered meanwhile")
    assert not errors
    assert sent[0] >= 1
    assert p99 < 0.050
