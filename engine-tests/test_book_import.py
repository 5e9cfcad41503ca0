"""Books from other programs (issue 17, point 5): Arena's ABK through `book
probe` and `book convert`, SugaR-family experience files through `book
import-exp`. The input files are written here from the documented layouts."""
from __future__ import annotations

import json
import struct
import subprocess

import chess
import chess.polyglot

from harness import Uci

HEADER = b"\x03ABK" + bytes(25200 - 4)


def abk_entry(from_sq, to_sq, prio, games, won, lost, next_move, sibling, promo=0) -> bytes:
    return struct.pack("<bbbBiiiiii", from_sq, to_sq, promo, prio, games, won, lost, 0, next_move, sibling)


def golden_abk() -> bytes:
    """1. e4 (10 games +5 -3) e5 (6: +2 -2) / c5 (4: +1 -1) 2. Nf3 (no games,
    priority 7); 1. d4 (4: +1 -1)."""
    sq = chess.parse_square
    return HEADER + b"".join(
        [
            abk_entry(sq("e2"), sq("e4"), 5, 10, 5, 3, 902, 901),
            abk_entry(sq("d2"), sq("d4"), 5, 4, 1, 1, -1, -1),
            abk_entry(sq("e7"), sq("e5"), 5, 6, 2, 2, -1, 903),
            abk_entry(sq("c7"), sq("c5"), 3, 4, 1, 1, 904, -1),
            abk_entry(sq("g1"), sq("f3"), 7, 0, 0, 0, -1, -1),
        ]
    )


def run(exe, *args) -> subprocess.CompletedProcess:
    return subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=60)


def test_abk_probe_lists_moves_with_arena_statistics(exe, tmp_path):
    book = tmp_path / "golden.abk"
    book.write_bytes(golden_abk())
    r = run(exe, "book", "probe", book, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["format"] == "abk"
    moves = {m["uci"]: (m["games"], m["won"], m["lost"], m["weight"]) for m in out["moves"]}
    assert moves == {"e2e4": (10, 5, 3, 12), "d2d4": (4, 1, 1, 4)}
    board = chess.Board()
    board.push_uci("e2e4")
    r = run(exe, "book", "probe", book, "--fen", board.fen())
    assert r.returncode == 0, r.stderr
    assert "e7e5" in r.stdout and "c7c5" in r.stdout and "Moves: 2" in r.stdout


def test_abk_probe_text_aligns_its_columns(exe, tmp_path):
    book = tmp_path / "golden.abk"
    book.write_bytes(golden_abk())
    r = run(exe, "book", "probe", book)
    lines = [line for line in r.stdout.splitlines() if line.startswith("  ")]
    assert lines == [
        "  e2e4   e4       priority   5  games     10  won      5  lost      3  weight    12",
        "  d2d4   d4       priority   5  games      4  won      1  lost      1  weight     4",
    ], r.stdout


def convert_golden(exe, tmp_path, name: str):
    """The golden ABK book converted by `book convert` to `name`."""
    book = tmp_path / "golden.abk"
    book.write_bytes(golden_abk())
    out = tmp_path / name
    r = run(exe, "book", "convert", book, out)
    assert r.returncode == 0, r.stderr
    assert "3 positions, 5 moves" in r.stdout
    return out


def test_abk_converts_to_polyglot_that_python_chess_reads(exe, tmp_path):
    out = convert_golden(exe, tmp_path, "out.bin")
    with chess.polyglot.open_reader(out) as reader:
        board = chess.Board()
        assert {e.move.uci(): e.weight for e in reader.find_all(board)} == {"e2e4": 12, "d2d4": 4}
        for m in ["e2e4", "c7c5"]:
            board.push_uci(m)
        # A hand-entered move without games weighs its priority.
        assert [(e.move.uci(), e.weight) for e in reader.find_all(board)] == [("g1f3", 7)]


def test_abk_converts_to_a_yacb_book_the_engine_plays(exe, tmp_path):
    out = convert_golden(exe, tmp_path, "out.yacb")
    assert run(exe, "book", "verify", out).returncode == 0
    r = run(exe, "book", "probe", out, "--json")
    entry = json.loads(r.stdout)["entry"]
    # White scored 16 of 28 half-points over the start position's 14 games.
    assert (entry["value_type"], entry["value"], entry["best_move"]) == ("perf", 22857, "e2e4")
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name BookFile value {out}", "setoption name BookSelection value best")
    u.send("position startpos", "go wtime 10000 btime 10000")
    lines, _ = u.bestmove(10)
    assert lines[-1].split()[1] == "e2e4"
    u.close()


def test_a_damaged_abk_book_is_refused_with_its_offset(exe, tmp_path):
    data = bytearray(golden_abk())
    data[25200 + 28 + 1] = 70  # entry 901: to-square 70
    book = tmp_path / "bad.abk"
    book.write_bytes(bytes(data))
    r = run(exe, "book", "convert", book, tmp_path / "out.bin")
    assert r.returncode != 0
    assert "entry 901 at offset 25229" in r.stderr, r.stderr
    assert not (tmp_path / "out.bin").exists()
    book.write_bytes(golden_abk()[:-3])
    r = run(exe, "book", "probe", book)
    assert r.returncode != 0 and "25 trailing bytes" in r.stderr, r.stderr


def engine_keys(exe, lines: list[str]) -> list[int]:
    """The engine (Stockfish) key of each position, from the `d` command."""
    u = Uci([exe])
    u.handshake()
    keys = []
    for moves in lines:
        u.send(f"position startpos{' moves ' + moves if moves else ''}", "d")
        keys.append(int(next(l for l in u.ready() if l.startswith("Key: ")).split()[1], 16))
    u.close()
    return keys


def sf_move(uci: str) -> int:
    m = chess.Move.from_uci(uci)
    return m.from_square << 6 | m.to_square


def exp_entry(key, uci, value, depth, count=None) -> bytes:
    tail = struct.pack("<HH", count, 0) if count is not None else b"\x00\xff\x00\xff"
    return struct.pack("<QIii", key, sf_move(uci), value, depth) + tail


def test_import_exp_merges_files_into_a_yacb_book(exe, tmp_path):
    start, after_e4 = engine_keys(exe, ["", "e2e4"])
    v2 = tmp_path / "a.exp"
    v2.write_bytes(
        b"SugaR Experience version 2"
        + exp_entry(start, "e2e4", 83, 20, 3)
        + exp_entry(start, "d2d4", 300, 18, 1)
        + exp_entry(after_e4, "c7c5", -21, 22, 2)
    )
    v1 = tmp_path / "b.exp"
    # Version 1 (no count): d2d4 searched deeper, so it becomes the best move.
    v1.write_bytes(b"SugaR" + exp_entry(start, "d2d4", 104, 24))
    out = tmp_path / "out.yacb"
    r = run(exe, "book", "import-exp", v2, v1, "--out", out)
    assert r.returncode == 0, r.stderr
    assert "version 2, 3 entries" in r.stdout and "version 1, 1 entries" in r.stdout
    assert "2 positions" in r.stdout
    assert run(exe, "book", "verify", out).returncode == 0
    entry = json.loads(run(exe, "book", "probe", out, "--json").stdout)["entry"]
    # 104 internal units at 208 per pawn: +50 cp for white.
    assert (entry["best_move"], entry["value"], entry["value_type"], entry["source"]) == ("d2d4", 50, "cp", "engine")
    board = chess.Board()
    board.push_uci("e2e4")
    entry = json.loads(run(exe, "book", "probe", out, "--fen", board.fen(), "--json").stdout)["entry"]
    # −21 for black to move is +10 cp for white.
    assert (entry["best_move"], entry["value"]) == ("c7c5", 10)


def test_import_exp_refuses_files_it_cannot_read(exe, tmp_path):
    bad = tmp_path / "shash.exp"
    bad.write_bytes(bytes(48))  # headerless ShashChess layout
    r = run(exe, "book", "import-exp", bad, "--out", tmp_path / "out.yacb")
    assert r.returncode != 0 and "no experience signature at offset 0" in r.stderr, r.stderr
    cut = tmp_path / "cut.exp"
    cut.write_bytes(b"SugaR Experience version 2" + exp_entry(1, "e2e4", 0, 3, 1)[:20])
    r = run(exe, "book", "import-exp", cut, "--out", tmp_path / "out.yacb")
    assert r.returncode != 0 and "20 trailing bytes at offset 26" in r.stderr, r.stderr
    assert not (tmp_path / "out.yacb").exists()
