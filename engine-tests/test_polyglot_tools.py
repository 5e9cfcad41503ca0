"""Polyglot book tools through the binary: `book merge` against Debian's real
`polyglot merge-book`, `book info`, `book dump` and `book edit` against
python-chess's reader."""
import json
import shutil
import struct
import subprocess

import chess
import chess.polyglot
import pytest

from conftest import SHARED, run

POLYGLOT = shutil.which("polyglot") or "/usr/games/polyglot"
GNUCHESS_BOOK = "/usr/share/games/gnuchess/book.bin"
BOOKS = {
    "lasker": SHARED / "books" / "lasker-trap.bin",
    "performance": SHARED / "books" / "performance.bin",
    "gnuchess": GNUCHESS_BOOK,
}


def merge_book(a, b, out, cwd):
    subprocess.run([POLYGLOT, "merge-book", "-in1", str(a), "-in2", str(b), "-out", str(out)],
                   check=True, capture_output=True, cwd=cwd, timeout=300)


def entries(path):
    data = open(path, "rb").read()
    return [struct.unpack(">QHHI", data[i:i + 16]) for i in range(0, len(data), 16)]


def write_book(path, rows):
    path.write_bytes(b"".join(struct.pack(">QHHI", *r) for r in rows))


@pytest.mark.parametrize("first,second", [
    ("performance", "gnuchess"), ("gnuchess", "performance"), ("lasker", "performance"),
    ("performance", "lasker"), ("lasker", "gnuchess"), ("performance", "performance"), ("gnuchess", "gnuchess"),
])
def test_merge_is_byte_identical_to_polyglot_merge_book(exe, tmp_path, first, second):
    ref, out = tmp_path / "ref.bin", tmp_path / "ours.bin"
    merge_book(BOOKS[first], BOOKS[second], ref, tmp_path)
    r = run(exe, "book", "merge", str(BOOKS[first]), str(BOOKS[second]), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == ref.read_bytes()


def test_merge_of_shared_moves_duplicates_and_wrapping_weights_matches_the_tool(exe, tmp_path):
    """Hand-made books: shared keys with shared and new moves, duplicate
    moves inside one book, weights that overflow 16 bits, learn values."""
    a = [(1, 10, 5, 7), (1, 11, 50, 0), (1, 10, 3, 0), (4, 12, 40000, 1), (7, 1, 1, 0)]
    b = [(1, 12, 8, 0), (1, 10, 20, 9), (1, 12, 1, 0), (2, 13, 3, 0), (4, 12, 40000, 5), (7, 2, 2, 2)]
    write_book(tmp_path / "a.bin", a)
    write_book(tmp_path / "b.bin", b)
    merge_book(tmp_path / "a.bin", tmp_path / "b.bin", tmp_path / "ref.bin", tmp_path)
    r = run(exe, "book", "merge", str(tmp_path / "a.bin"), str(tmp_path / "b.bin"), "--out", str(tmp_path / "c.bin"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "c.bin").read_bytes() == (tmp_path / "ref.bin").read_bytes()


def test_three_books_merge_as_the_tool_run_twice(exe, tmp_path):
    merge_book(BOOKS["lasker"], BOOKS["performance"], tmp_path / "ab.bin", tmp_path)
    merge_book(tmp_path / "ab.bin", BOOKS["gnuchess"], tmp_path / "ref.bin", tmp_path)
    out = tmp_path / "ours.bin"
    r = run(exe, "book", "merge", str(BOOKS["lasker"]), str(BOOKS["performance"]), GNUCHESS_BOOK, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.read_bytes() == (tmp_path / "ref.bin").read_bytes()


def test_merge_refuses_mixed_formats_and_bad_books_and_writes_nothing(exe, tmp_path):
    yacb = tmp_path / "x.yacb"
    yacb.write_bytes(b"YACB" + bytes(60))
    out = tmp_path / "out.bin"
    r = run(exe, "book", "merge", str(BOOKS["lasker"]), str(yacb), "--out", str(out))
    assert r.returncode != 0 and "Polyglot" in r.stderr
    bad = tmp_path / "bad.bin"
    bad.write_bytes((BOOKS["lasker"]).read_bytes()[:-3])
    r = run(exe, "book", "merge", str(BOOKS["lasker"]), str(bad), "--out", str(out))
    assert r.returncode != 0 and "offset" in r.stderr
    assert not out.exists()


def test_info_counts_entries_positions_and_weights(exe):
    rows = entries(BOOKS["performance"])
    r = run(exe, "book", "info", str(BOOKS["performance"]))
    assert r.returncode == 0, r.stderr
    fields = dict(line.split(":", 1) for line in r.stdout.splitlines())
    assert fields["format"].strip() == "polyglot"
    assert int(fields["entries"]) == len(rows)
    assert int(fields["positions"]) == len({k for k, *_ in rows})
    assert fields["weights"].strip().startswith(f"total {sum(w for _, _, w, _ in rows)},")
    assert fields["learn"].strip().startswith(str(sum(1 for *_, l in rows if l)))


def test_dump_lists_every_entry_in_file_order(exe):
    path = BOOKS["lasker"]
    r = run(exe, "book", "dump", "--json", str(path))
    assert r.returncode == 0, r.stderr
    dumped = [json.loads(line) for line in r.stdout.splitlines()]
    rows = entries(path)
    assert [(int(d["key"], 16), d["raw_move"], d["weight"], d["learn"]) for d in dumped] == rows
    for d, (_, raw, _, _) in zip(dumped, rows):
        assert d["move"][:4] == chess.square_name(raw >> 6 & 63) + chess.square_name(raw & 63)
    text = run(exe, "book", "dump", str(path)).stdout.splitlines()
    assert len(text) == len(rows) and text[0].startswith(f"{rows[0][0]:016x}")


def weights(path, board):
    with chess.polyglot.open_reader(path) as reader:
        return {e.move.uci(): (e.weight, e.learn) for e in reader.find_all(board, minimum_weight=0)}


def test_edit_sets_and_adds_weights_atomically_and_leaves_other_positions(exe, tmp_path):
    book = tmp_path / "book.bin"
    shutil.copy(BOOKS["performance"], book)
    start = chess.Board()
    before = weights(book, start)
    assert "e2e4" in before and "a2a3" not in before
    r = run(exe, "book", "edit", str(book), "--fen", start.fen(), "--set", "e2e4=7", "--set", "a3=123")
    assert r.returncode == 0, r.stderr
    after = weights(book, start)
    assert after["e2e4"] == (7, before["e2e4"][1])
    assert after["a2a3"] == (123, 0)
    assert {m: v for m, v in after.items() if m not in ("e2e4", "a2a3")} == \
        {m: v for m, v in before.items() if m != "e2e4"}
    key = chess.polyglot.zobrist_hash(start)
    others = lambda p: [e for e in entries(p) if e[0] != key]
    assert others(book) == others(BOOKS["performance"])
    # The position's entries are in book order, and nothing else is left in the directory.
    ws = [e[2] for e in entries(book) if e[0] == key]
    assert ws == sorted(ws, reverse=True)
    assert [p.name for p in tmp_path.iterdir()] == ["book.bin"]


def test_edit_removes_moves_writes_to_out_and_rejects_illegal_moves(exe, tmp_path):
    book = tmp_path / "book.bin"
    shutil.copy(BOOKS["performance"], book)
    original = book.read_bytes()
    start = chess.Board()
    out = tmp_path / "edited.bin"
    r = run(exe, "book", "edit", str(book), "--fen", start.fen(), "--remove", "d2d4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "d2d4" not in weights(out, start)
    assert book.read_bytes() == original
    r = run(exe, "book", "edit", str(book), "--fen", start.fen(), "--set", "e2e5=3")
    assert r.returncode != 0 and "e2e5" in r.stderr
    r = run(exe, "book", "edit", str(book), "--fen", start.fen(), "--set", "e2e4=70000")
    assert r.returncode != 0
    assert book.read_bytes() == original
