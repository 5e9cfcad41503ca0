"""`archivist serve` and `explorer verify` over damaged copies of an explorer
index (issue 75): a request that reads a damaged block is a 500 naming the
file and the block's offset, every other request is answered as over the
undamaged index, and a damaged header, block-checksum table or a version-1
index is refused at start with the reason."""
import pathlib
import re
import struct
import subprocess
import urllib.parse

import chess.pgn
import pytest
import requests

from conftest import run
from test_explorer import explorer_games_binary, serving

GAMES, SEED = 2000, 7
HEADER_LEN = 152
SECTIONS = ["strings", "game offsets", "game data", "ids", "position keys", "position offsets", "position data",
            "singles directory", "singles"]


@pytest.fixture(scope="module")
def index(exe, tmp_path_factory):
    d = tmp_path_factory.mktemp("explorer-damage")
    pgn = d / "games.pgn"
    subprocess.run([str(explorer_games_binary()), str(pgn), str(GAMES), str(SEED)], check=True, capture_output=True,
                   timeout=120)
    out = d / "good.axi"
    r = run(exe, "explorer", "build", "--pgn", str(pgn), "--out", str(out))
    assert r.returncode == 0, r.stderr
    return {"dir": d, "pgn": pgn, "index": out}


def layout(data: bytes) -> dict:
    """The header's section offsets (by name), `D` and the block size."""
    offsets = struct.unpack_from("<10Q", data, 40)
    return {"sections": dict(zip(SECTIONS, zip(offsets, offsets[1:]))), "end": offsets[9],
            "block": 1 << data[128]}


def questions(pgn: pathlib.Path, games=40, plies=10) -> list:
    """/lichess parameters: the first plies of the first games, with and without a filter."""
    out = []
    with open(pgn) as f:
        for i in range(games):
            game = chess.pgn.read_game(f)
            moves = [m.uci() for m in game.mainline_moves()][:plies]
            for ply in range(len(moves) + 1):
                params = {"play": ",".join(moves[:ply])}
                if (i + ply) % 2:
                    params["speeds"] = "blitz,rapid"
                out.append(params)
    return out


def ask(host, params):
    r = requests.get(f"http://{host}/lichess?{urllib.parse.urlencode(params)}", timeout=30)
    return r.status_code, r.json()


def damage_blocks(data: bytes, section: str) -> tuple[bytes, list[int]]:
    """A copy with one byte flipped in every other block that lies wholly in `section`; the
    damaged blocks' offsets."""
    lay = layout(data)
    start, end = lay["sections"][section]
    block = lay["block"]
    first = -(-(start - HEADER_LEN) // block)
    copy, damaged = bytearray(data), []
    b = first
    while HEADER_LEN + (b + 1) * block <= end:
        at = HEADER_LEN + b * block
        copy[at + block // 2] ^= 0x10
        damaged.append(at)
        b += 2
    assert damaged, f"{section}: no whole block in {start}..{end}"
    return bytes(copy), damaged


@pytest.mark.parametrize("section", ["position data", "game data"])
def test_a_damaged_block_is_a_500_naming_file_and_offset_and_the_rest_is_answered(exe, index, tmp_path, section):
    good = index["index"].read_bytes()
    bad_path = tmp_path / f"damaged-{section.replace(' ', '-')}.axi"
    bad, offsets = damage_blocks(good, section)
    bad_path.write_bytes(bad)
    qs = questions(index["pgn"])
    with serving(exe, tmp_path / "good.log", "--lichess", index["index"]) as host:
        want = [ask(host, q) for q in qs]
    assert all(status == 200 for status, _ in want)
    answered, failed = [], []
    with serving(exe, tmp_path / "bad.log", "--lichess", bad_path) as host:
        for q, w in zip(qs, want):
            status, body = ask(host, q)
            if status == 200:
                assert (status, body) == w, q
                answered.append(q)
            else:
                assert status == 500, (q, status, body)
                message = body["error"]
                assert str(bad_path) in message, message
                m = re.search(r"damaged block at offset (\d+)", message)
                assert m and int(m.group(1)) in offsets, message
                failed.append(q)
        assert answered and failed, (len(answered), len(failed))
        # The service goes on: asked again, the same answers and the same errors.
        assert ask(host, answered[0]) == want[qs.index(answered[0])]
        assert ask(host, failed[0])[0] == 500
    assert "damaged block at offset" in (tmp_path / "bad.log").read_text()
    r = run(exe, "explorer", "verify", str(bad_path))
    assert r.returncode == 1
    assert f"damaged block at offset {offsets[0]} of {bad_path}" in r.stdout, r.stdout


@pytest.mark.parametrize("damage", ["header", "block checksums", "version 1", "truncated", "spliced"])
def test_serve_refuses_an_index_damaged_where_it_is_opened(exe, index, tmp_path, damage):
    data = bytearray(index["index"].read_bytes())
    lay = layout(bytes(data))
    if damage == "header":
        data[20] ^= 1
        said = "header checksum mismatch at offset 144"
    elif damage == "block checksums":
        data[-3] ^= 1
        said = f"block checksums damaged at offset {lay['end']}"
    elif damage == "version 1":
        data[4:6] = struct.pack("<H", 1)
        said = "version 1 at offset 4: rebuild it with `archivist explorer build`"
    elif damage == "truncated":
        data = data[: len(data) - 100]
        said = "truncated"
    else:
        # The first block of the position keys (read at open) replaced by the block before it.
        start = lay["sections"]["position keys"][0]
        block = lay["block"]
        at = HEADER_LEN + (start - HEADER_LEN) // block * block
        data[at:at + block] = data[at - block:at]
        said = f"damaged block at offset {at} of"
    bad = tmp_path / "bad.axi"
    bad.write_bytes(bytes(data))
    r = run(exe, "serve", "--listen", "127.0.0.1:0", "--lichess", str(bad), timeout=30)
    assert r.returncode != 0, r.stdout
    assert str(bad) in r.stderr and said in r.stderr, r.stderr
    assert "panicked" not in r.stderr
