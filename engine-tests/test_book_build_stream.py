"""`book build` on streamed, compressed, filtered input, black-box: Polyglot
output byte-identical to Debian's `polyglot make-book` from .gz/.zst/.bz2,
on 2 threads and in a memory budget small enough to spill; the filters; a
damaged compressed input."""
import bz2
import gzip
import json
import random
import subprocess

import chess
import chess.polyglot
import pytest

from conftest import SHARED, run
from test_book_interchange import POLYGLOT, SELFPLAY, make_book

ZSTD = "zstd"


def compress(src, kind, tmp_path):
    data = src.read_bytes()
    out = tmp_path / f"{src.name}.{kind}"
    if kind == "gz":
        out.write_bytes(gzip.compress(data))
    elif kind == "bz2":
        out.write_bytes(bz2.compress(data))
    else:
        subprocess.run([ZSTD, "-q", "-f", str(src), "-o", str(out)], check=True)
    return out


@pytest.mark.parametrize("kind", ["gz", "zst", "bz2"])
@pytest.mark.parametrize("options", [[], ["-min-game", "1", "-max-ply", "30", "-only-white"]],
                         ids=["defaults", "min-game-1-max-ply-30-only-white"])
def test_compressed_input_on_two_threads_is_make_books_book(exe, tmp_path, kind, options):
    real, mine = tmp_path / "real.bin", tmp_path / "ours.bin"
    make_book(SELFPLAY, real, options, tmp_path)
    packed = compress(SELFPLAY, kind, tmp_path)
    r = run(exe, "book", "build", "--pgn", str(packed), "--out", str(mine), "--threads", "2",
            *[("-" + o) if o.startswith("-") else o for o in options])
    assert r.returncode == 0, r.stderr
    assert mine.read_bytes() == real.read_bytes()


def halving_pgn(tmp_path):
    """21,000 games, 1.e4 played more than 16384 times (make-book halves)."""
    rng = random.Random(11)
    lines = ["1. e4 e5 2. Nf3 Nc6", "1. e4 c5 2. Nf3 d6", "1. e4 e5 2. Bc4 Nf6", "1. d4 Nf6"]
    games = []
    for i in range(21000):
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
        board = chess.Board()
        line = lines[3] if i % 50 == 0 else rng.choice(lines[:3])
        for san in line.split():
            if not san.endswith("."):
                board.push_san(san)
        tail = []
        for _ in range(8):  # distinct positions, so a small budget spills
            moves = list(board.legal_moves)
            if not moves:
                break
            m = rng.choice(moves)
            tail.append(board.san(m))
            board.push(m)
        games.append(f'[Event "x"]\n[Result "{result}"]\n\n{line} {" ".join(tail)} {result}\n')
    pgn = tmp_path / "many.pgn"
    pgn.write_text("\n".join(games))
    return pgn


def test_output_is_the_same_for_any_threads_and_memory_and_spills(exe, tmp_path):
    pgn = halving_pgn(tmp_path)
    real = tmp_path / "real.bin"
    make_book(pgn, real, ["-min-game", "1"], tmp_path)
    for threads, memory in [(1, 1024), (2, 1024), (1, 1), (2, 1)]:
        mine = tmp_path / f"ours-{threads}-{memory}.bin"
        r = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(mine), "--min-game", "1",
                "--threads", str(threads), "--memory", str(memory), timeout=300)
        assert r.returncode == 0, r.stderr
        assert mine.read_bytes() == real.read_bytes(), (threads, memory)
        if memory == 1:
            spilled = int(r.stderr.split(" run(s) spilled")[0].rsplit(";", 1)[-1].split()[-1])
            assert spilled > 0, r.stderr


def test_standard_input_is_read_as_a_stream(exe, tmp_path):
    real, mine = tmp_path / "real.bin", tmp_path / "ours.bin"
    make_book(SELFPLAY, real, [], tmp_path)
    data = gzip.compress(SELFPLAY.read_bytes())
    r = subprocess.run([exe, "book", "build", "--pgn", "-", "--out", str(mine)], input=data, capture_output=True)
    assert r.returncode == 0, r.stderr
    assert mine.read_bytes() == real.read_bytes()


def test_halving_is_exact_from_standard_input_in_a_small_budget(exe, tmp_path):
    # 1.e4 is played 17,000 times, past make-book's 16384: the start
    # position's moves are halved, then 1.d4 comes. Read from a pipe (which
    # cannot be read twice) and spilled from 1 MB, the book is still the
    # real tool's.
    rng = random.Random(7)
    games = []
    for i in range(17_500):
        first, reply = ("e4", rng.choice(["e5", "c5", "e6", "c6", "d5", "Nf6"])) if i < 17_000 else ("d4", "d5")
        result = ["1-0", "0-1", "1/2-1/2"][i % 3]
        games.append(f'[Result "{result}"]\n\n1. {first} {reply} {result}\n\n')
    pgn = tmp_path / "many.pgn"
    pgn.write_text("".join(games))
    real, mine = tmp_path / "real.bin", tmp_path / "ours.bin"
    make_book(pgn, real, ["-min-game", "1"], tmp_path)
    r = subprocess.run([exe, "book", "build", "--pgn", "-", "--out", str(mine), "--min-game", "1", "--memory", "1"],
                       input=pgn.read_bytes(), capture_output=True)
    assert r.returncode == 0, r.stderr
    spilled = int(r.stderr.decode().split(" run(s) spilled")[0].rsplit(",", 1)[-1].split()[-1])
    assert spilled > 0, r.stderr
    assert mine.read_bytes() == real.read_bytes()


# Each game's first move names it, so the book tells which games counted.
FILTER_GAMES = [
    ("a3", {"WhiteElo": "2500", "BlackElo": "2450", "TimeControl": "180+2", "Date": "2023.03.01"}),
    ("a4", {"WhiteElo": "1500", "BlackElo": "2450", "TimeControl": "180+2", "Date": "2023.03.01"}),
    ("b3", {"WhiteElo": "2500", "BlackElo": "2450", "TimeControl": "60+0", "Date": "2023.03.01"}),
    ("b4", {"WhiteElo": "2500", "BlackElo": "2450", "TimeControl": "900+10", "Date": "2022.12.31"}),
    ("c3", {"WhiteElo": "2500", "BlackElo": "2450", "TimeControl": "1800+0", "Date": "2023.??.??",
            "Variant": "Chess960", "FEN": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"}),
    ("c4", {"WhiteElo": "2500", "BlackElo": "?", "TimeControl": "180+0", "Date": "2023.06.15",
            "Variant": "Crazyhouse"}),
    ("d3", {"WhiteElo": "2600", "BlackElo": "2600", "TimeControl": "300+3", "Date": "2024.01.01",
            "White": "Carlsen, Magnus", "Black": "X"}),
]


def filter_pgn(tmp_path):
    text = ""
    for first, tags in FILTER_GAMES:
        tags = {"White": "A", "Black": "B", "Result": "1-0", **tags}
        text += "".join(f'[{k} "{v}"]\n' for k, v in tags.items()) + f"\n1. {first} e5 2. Nf3 1-0\n\n"
    pgn = tmp_path / "filters.pgn"
    pgn.write_text(text)
    return pgn


def kept_games(exe, tmp_path, *flags):
    out = tmp_path / "f.bin"
    r = run(exe, "book", "build", "--pgn", str(filter_pgn(tmp_path)), "--out", str(out), "--min-game", "1", *flags)
    assert r.returncode == 0, r.stderr
    with chess.polyglot.open_reader(out) as reader:
        return sorted(chess.Board().san(e.move) for e in reader.find_all(chess.Board())), r


@pytest.mark.parametrize("flags,kept", [
    ([], ["a3", "a4", "b3", "b4", "c3", "c4", "d3"]),
    (["--min-elo", "2400"], ["a3", "b3", "b4", "c3", "d3"]),
    (["--time-control", "blitz"], ["a3", "a4", "c4", "d3"]),
    (["--time-control", "bullet,rapid"], ["b3", "b4"]),
    (["--date-from", "2023.01.01", "--date-to", "2023.12.31"], ["a3", "a4", "b3", "c3", "c4"]),
    (["--date-to", "2023.06"], ["a3", "a4", "b3", "b4", "c4"]),
    (["--exclude-variants"], ["a3", "a4", "b3", "b4", "d3"]),
    (["--exclude-variants", "--chess960"], ["a3", "a4", "b3", "b4", "c3", "d3"]),
    (["--player", "carlsen, magnus", "--color", "white"], ["d3"]),
    (["--player", "Carlsen, Magnus", "--color", "black"], []),
    (["--result", "0-1"], []),
    (["--min-plies", "4"], []),
    (["--min-plies", "3", "--min-elo", "2550"], ["d3"]),
])
def test_filters_choose_the_games(exe, tmp_path, flags, kept):
    got, r = kept_games(exe, tmp_path, *flags)
    assert got == kept, r.stderr
    if len(kept) < 7:
        assert "filtered out (" in r.stderr


def test_min_elo_mover_counts_only_the_strong_players_moves(exe, tmp_path):
    pgn = tmp_path / "m.pgn"
    pgn.write_text('[WhiteElo "2500"]\n[BlackElo "1500"]\n[Result "1/2-1/2"]\n\n1. e4 e5 2. Nf3 1/2-1/2\n')
    out = tmp_path / "m.bin"
    r = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(out), "--min-game", "1",
            "--min-elo", "2000", "--min-elo-mover")
    assert r.returncode == 0, r.stderr
    with chess.polyglot.open_reader(out) as reader:
        board = chess.Board()
        assert [e.move.uci() for e in reader.find_all(board)] == ["e2e4"]
        board.push_san("e4")
        assert list(reader.find_all(board)) == [], "black (1500) does not count"


def test_filters_apply_to_yacb_and_elo_comes_from_ratings(exe, tmp_path):
    out = tmp_path / "f.yacb"
    r = run(exe, "book", "build", "--pgn", str(filter_pgn(tmp_path)), "--out", str(out), "--min-game", "1",
            "--time-control", "blitz", "--min-elo", "2400")
    assert r.returncode == 0, r.stderr
    probe = json.loads(run(exe, "book", "probe", str(out), "--json").stdout)
    # Only a3 (2500/2450) and d3 (2600/2600) pass: mean strengths 2475 and 2600.
    assert sorted(m["san"] for m in probe["moves"] if m["entry"]) == ["a3", "d3"]
    assert probe["entry"]["elo"] == round((2475 + 2600) / 2) - 3500
    fixed = tmp_path / "g.yacb"
    r = run(exe, "book", "build", "--pgn", str(filter_pgn(tmp_path)), "--out", str(fixed), "--min-game", "1",
            "--elo", "-300")
    assert json.loads(run(exe, "book", "probe", str(fixed), "--json").stdout)["entry"]["elo"] == -300


@pytest.mark.parametrize("kind", ["gz", "zst", "bz2"])
def test_damaged_compressed_input_is_an_error_with_a_summary_and_no_book(exe, tmp_path, kind):
    packed = compress(SELFPLAY, kind, tmp_path)
    data = packed.read_bytes()
    cut = tmp_path / f"cut.pgn.{kind}"
    cut.write_bytes(data[: len(data) * 2 // 3])
    out = tmp_path / "out.bin"
    r = run(exe, "book", "build", "--pgn", str(cut), "--out", str(out), "--threads", "2")
    assert r.returncode != 0
    assert "panicked" not in r.stderr and "RUST_BACKTRACE" not in r.stderr
    assert "damaged" in r.stderr and "summary:" in r.stderr, r.stderr
    assert str(cut) in r.stderr
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.bin")], "no temporary left"
    ok = run(exe, "book", "build", "--pgn", str(cut), "--out", str(out), "--allow-damaged")
    assert ok.returncode == 0 and out.exists(), ok.stderr
