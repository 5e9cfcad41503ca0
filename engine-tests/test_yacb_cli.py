"""`archivist book …` on YACB books, black-box."""
from __future__ import annotations

import json

import chess

from conftest import ROOT, run

GOLDEN = ROOT / "engine-tests" / "data" / "golden.yacb"


def test_probe_json_lists_entry_and_child_entries(exe):
    out = run(exe, "book", "probe", str(GOLDEN), "--json")
    assert out.returncode == 0, out.stderr
    obj = json.loads(out.stdout)
    assert obj["format"] == "yacb"
    assert obj["key"] == "8f8f01d4562f59fb"
    assert obj["fen"] == chess.STARTING_FEN
    assert obj["entry"] == {"value": 25, "value_type": "cp", "bound": "exact", "source": "engine",
                            "elo": -350, "best_move": "e2e4"}
    assert [m["uci"] for m in obj["moves"]] == ["e2e4"]
    child = obj["moves"][0]
    assert child["san"] == "e4" and child["learn"] is None
    assert child["entry"]["elo"] == "irreplaceable" and child["entry"]["value_type"] == "perf"
    # The weight is the one YACB weighting (book/offer.rs): the mover's
    # expected score on the perf scale; white moves, so the child's perf%.
    assert child["weight"] == child["entry"]["value"]


def test_probe_json_has_the_same_shape_for_polyglot(exe):
    from conftest import SHARED
    obj = json.loads(run(exe, "book", "probe", str(SHARED / "books" / "performance.bin"), "--json").stdout)
    assert set(obj) == {"fen", "key", "format", "entry", "moves"}
    assert obj["format"] == "polyglot" and obj["entry"] is None
    assert all(set(m) == {"uci", "san", "weight", "learn", "entry"} for m in obj["moves"])


def test_verify_exit_status_and_typed_errors(exe, tmp_path):
    assert run(exe, "book", "verify", str(GOLDEN)).returncode == 0
    data = bytearray(GOLDEN.read_bytes())
    data[32 + 16 + 10] = 7 << 5  # value type 7 in entry 1
    bad = tmp_path / "bad.yacb"
    bad.write_bytes(bytes(data))
    out = run(exe, "book", "verify", str(bad))
    assert out.returncode != 0 and "value type 7" in out.stdout and "offset 48" in out.stdout


def test_merge_and_dump(exe, tmp_path):
    merged = tmp_path / "m.yacb"
    out = run(exe, "book", "merge", str(GOLDEN), str(GOLDEN), "--out", str(merged))
    assert out.returncode == 0, out.stderr
    assert merged.read_bytes() == GOLDEN.read_bytes()
    lines = run(exe, "book", "dump", str(merged), "--json").stdout.splitlines()
    assert len(lines) == 3
    assert {json.loads(l)["key"] for l in lines} == {"0123456789abcdef", "8f8f01d4562f59fb", "b46022469e3dd31b"}


def test_convert_yacb_to_json_and_back(exe, tmp_path):
    j = tmp_path / "g.json"
    back = tmp_path / "g.yacb"
    assert run(exe, "book", "convert", str(GOLDEN), str(j)).returncode == 0
    doc = json.loads(j.read_text())
    assert len(doc["positions"]) == 2
    assert run(exe, "book", "convert", str(j), str(back)).returncode == 0
    assert run(exe, "book", "verify", str(back)).returncode == 0
