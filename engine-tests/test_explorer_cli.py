"""`archivist explorer build|merge|info|verify` and `book build
--from-explorer` as a user runs them: exit statuses, messages naming the
file and the offset, and refusals with their reason. The self-play games
have no ratings and no dates: Lichess's rules index none of them, and
`--all-games` indexes them all."""
import pathlib
import re

import pytest

from conftest import SHARED, run

SELFPLAY = SHARED / "pgn" / "stockfish-selfplay-200.pgn"


@pytest.fixture(scope="module")
def index(exe, tmp_path_factory):
    if not SELFPLAY.exists():
        pytest.skip(f"{SELFPLAY} not found")
    d = tmp_path_factory.mktemp("explorer-cli")
    out = d / "selfplay.axi"
    r = run(exe, "explorer", "build", "--pgn", str(SELFPLAY), "--out", str(out), "--threads", "2", "--all-games")
    assert r.returncode == 0, r.stderr
    assert "200 games read, 200 indexed" in r.stdout, r.stdout
    return out


def test_lichess_rules_skip_games_without_both_ratings_and_all_games_keeps_them(exe, tmp_path):
    if not SELFPLAY.exists():
        pytest.skip(f"{SELFPLAY} not found")
    r = run(exe, "explorer", "build", "--pgn", str(SELFPLAY), "--out", str(tmp_path / "rules.axi"))
    said = r.stdout + r.stderr
    assert "200 games read, 0 indexed; skipped: 0 already indexed" in said, said
    assert ", 200 without both ratings, 0 without a month," in said, said
    # One rating known, no date: skipped for the missing rating first; with it, for the month.
    pgn = tmp_path / "one.pgn"
    pgn.write_text('[White "a"]\n[Black "b"]\n[Result "1-0"]\n[WhiteElo "2000"]\n[BlackElo "?"]\n\n1. e4 1-0\n\n'
                   '[White "a"]\n[Black "b"]\n[Result "1-0"]\n[WhiteElo "2000"]\n[BlackElo "2000"]\n\n1. d4 1-0\n')
    r = run(exe, "explorer", "build", "--pgn", str(pgn), "--out", str(tmp_path / "one.axi"))
    said = r.stdout + r.stderr
    assert "2 games read, 0 indexed;" in said and ", 1 without both ratings, 1 without a month," in said, said
    r = run(exe, "explorer", "build", "--pgn", str(pgn), "--out", str(tmp_path / "all.axi"), "--all-games")
    assert r.returncode == 0, r.stderr
    assert "2 games read, 2 indexed;" in r.stdout + r.stderr
    r = run(exe, "explorer", "info", str(tmp_path / "all.axi"))
    assert r.returncode == 0 and "games:     2" in r.stdout, r.stdout


def test_info_and_verify_describe_a_valid_index(exe, index):
    r = run(exe, "explorer", "info", str(index))
    assert r.returncode == 0, r.stderr
    assert "games:     200" in r.stdout
    assert re.search(r"max ply:\s+50", r.stdout)
    r = run(exe, "explorer", "verify", str(index))
    assert r.returncode == 0, r.stderr
    assert "valid explorer index, 200 games" in r.stdout


@pytest.mark.parametrize("damage", ["truncated", "flipped", "empty"])
def test_verify_exits_1_naming_the_file_and_offset_of_damage(exe, index, tmp_path, damage):
    data = bytearray(index.read_bytes())
    bad = tmp_path / f"{damage}.axi"
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    elif damage == "flipped":
        data[len(data) // 2] ^= 0x40
    else:
        data = b""
    bad.write_bytes(bytes(data))
    r = run(exe, "explorer", "verify", str(bad))
    assert r.returncode == 1, (r.stdout, r.stderr)
    said = r.stdout + r.stderr  # "FILE: invalid: …", as `book verify` says it
    assert f"{bad}: invalid:" in said, said
    assert re.search(r"offset \d+", said), said
    assert "panicked" not in said


def test_merge_of_shards_equals_the_build_of_their_inputs(exe, tmp_path):
    if not SELFPLAY.exists():
        pytest.skip(f"{SELFPLAY} not found")
    games = SELFPLAY.read_text().split("\n[Event ")
    halves = [games[:100], games[100:]]
    texts = ["\n[Event ".join(halves[0]), "[Event " + "\n[Event ".join(halves[1])]
    shards = []
    for i, text in enumerate(texts):
        pgn = tmp_path / f"half{i}.pgn"
        pgn.write_text(text if text.endswith("\n") else text + "\n")
        out = tmp_path / f"half{i}.axi"
        assert run(exe, "explorer", "build", "--pgn", str(pgn), "--out", str(out), "--all-games").returncode == 0
        shards.append(out)
    whole = tmp_path / "whole.axi"
    r = run(exe, "explorer", "build", "--pgn", *(str(tmp_path / f"half{i}.pgn") for i in range(2)), "--out", str(whole),
            "--all-games")
    assert r.returncode == 0, r.stderr
    merged = tmp_path / "merged.axi"
    r = run(exe, "explorer", "merge", *map(str, shards), "--out", str(merged))
    assert r.returncode == 0, r.stderr
    assert merged.read_bytes() == whole.read_bytes()


def test_a_missing_shard_is_an_error_naming_it(exe, index, tmp_path):
    r = run(exe, "explorer", "merge", str(index), str(tmp_path / "missing.axi"), "--out", str(tmp_path / "m.axi"))
    assert r.returncode != 0
    assert "missing.axi" in r.stderr
    assert not (tmp_path / "m.axi").exists()


@pytest.mark.parametrize("command", [
    ["explorer", "info", "{idx}"],
    ["explorer", "verify", "{idx}"],
    ["explorer", "merge", "{idx}", "--out", "{out}"],
    ["book", "build", "--from-explorer", "{idx}", "--out", "{out}"],
    ["book", "build", "--from-explorer", "{idx}", "--max-ply", "10", "--out", "{out}"],
    ["serve", "--listen", "127.0.0.1:0", "--lichess", "{idx}"],
    ["serve", "--listen", "127.0.0.1:0", "--masters", "{idx}"],
])
def test_a_missing_index_is_named_once(exe, tmp_path, command):
    idx = tmp_path / "missing.axi"
    r = run(exe, *[a.format(idx=idx, out=tmp_path / "out.bin") for a in command], timeout=30)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    assert (r.stdout + r.stderr).count("missing.axi") == 1, r.stdout + r.stderr
    assert "No such file or directory" in r.stdout + r.stderr


def test_book_from_the_index_equals_book_build_on_its_pgn(exe, index, tmp_path):
    # The self-play games repeat no position in their first 50 plies.
    a, b = tmp_path / "pgn.bin", tmp_path / "index.bin"
    r = run(exe, "book", "build", "--pgn", str(SELFPLAY), "--out", str(a), "--max-ply", "50", "--min-game", "1")
    assert r.returncode == 0, r.stderr
    r = run(exe, "book", "build", "--from-explorer", str(index), "--out", str(b), "--min-game", "1")
    assert r.returncode == 0, r.stderr
    assert "200 indexed games" in r.stderr
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("option", [["--min-elo", "2000"], ["--player", "x"], ["--date-from", "2020.01.01"],
                                    ["--min-plies", "10"], ["--result", "1-0"]])
def test_book_from_the_index_refuses_filters_it_does_not_answer(exe, index, tmp_path, option):
    r = run(exe, "book", "build", "--from-explorer", str(index), "--out", str(tmp_path / "x.bin"), *option)
    assert r.returncode != 0
    assert "not answered by an explorer index" in r.stderr, r.stderr
    assert not (tmp_path / "x.bin").exists()


def test_book_from_the_index_takes_lichess_filters(exe, index, tmp_path):
    # The self-play games have no ratings, dates or time controls: group 0,
    # month 0000-00, correspondence.
    out = tmp_path / "x.bin"
    for args, kept in ((["--ratings", "0"], 200), (["--ratings", "1600"], 0), (["--time-control", "correspondence"], 200),
                       (["--time-control", "blitz"], 0), (["--since", "2020-01"], 0)):
        r = run(exe, "book", "build", "--from-explorer", str(index), "--out", str(out), "--min-game", "1", *args)
        assert r.returncode == 0, r.stderr
        assert f"200 games read, {kept} kept" in r.stderr, (args, r.stderr)
    r = run(exe, "book", "build", "--from-explorer", str(index), "--out", str(out), "--since", "2020-13")
    assert r.returncode != 0 and "bad month" in r.stderr
    r = run(exe, "book", "build", "--from-explorer", str(index), "--out", str(out), "--max-ply", "60")
    assert r.returncode != 0 and "first 50 plies" in r.stderr
