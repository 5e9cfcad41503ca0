"""records import / export and the pipeline tools, driven through the
binary: PGN (compressed, stdin) to records, records to bullet-text and
sf-plain checked with python-chess, damaged inputs, filter/dedup/shuffle/
interleave/split."""
from __future__ import annotations

import bz2
import gzip
import re
import subprocess

import chess
import pytest

from conftest import ROOT, SHARED, run

CUTECHESS_PGN = ROOT / "engine-tests" / "data" / "records" / "cutechess-stockfish.pgn"
FAST = ("--nodes", "400", "--max-plies", "120", "--hash", "4")


def selfplay(exe, out, *args: str) -> None:
    r = run(exe, "selfplay", "--out", str(out), *FAST, *args)
    assert r.returncode == 0, r.stderr


def positions_of(exe, path) -> int:
    r = run(exe, "records", "verify", str(path))
    assert r.returncode == 0, r.stdout
    return int(re.search(r"valid, \d+ games, (\d+) positions", r.stdout).group(1))


def board_of(fen: str) -> chess.Board:
    castling = fen.split()[2]
    return chess.Board(fen, chess960=any(c not in "KQkq-" for c in castling))


def test_import_reads_bz2_files_and_gzip_stdin_alike(exe, tmp_path):
    text = CUTECHESS_PGN.read_bytes()
    bz = tmp_path / "games.pgn.bz2"
    bz.write_bytes(bz2.compress(text))
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    r = run(exe, "records", "import", "--pgn", str(bz), "--out", str(a))
    assert r.returncode == 0, r.stderr
    assert "4 games read, 4 imported" in r.stdout, r.stdout
    assert re.search(r"MB/s, \d+ positions/s", r.stdout), r.stdout
    p = subprocess.run([exe, "records", "import", "--pgn", "-", "--out", str(b)],
                       input=gzip.compress(text), capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert a.read_bytes() == b.read_bytes()
    assert positions_of(exe, a) > 100


def test_bullet_text_lines_are_legal_positions_with_scores_in_range(exe, tmp_path):
    rec = tmp_path / "sp.bin"
    selfplay(exe, rec, "--games", "3", "--seed", "21")
    selfplay(exe, tmp_path / "960.bin", "--games", "2", "--seed", "22", "--chess960")
    for path in (rec, tmp_path / "960.bin"):
        out = tmp_path / (path.name + ".txt")
        r = run(exe, "records", "export", "--format", "bullet-text", str(path), "--out", str(out))
        assert r.returncode == 0, r.stderr
        lines = out.read_text().splitlines()
        assert len(lines) == positions_of(exe, path)
        for line in lines:
            fen, score, result = (f.strip() for f in line.split(" | "))
            board = board_of(fen)
            assert board.is_valid(), fen
            assert -32000 <= int(score) <= 32000
            assert result in ("1.0", "0.5", "0.0")


def test_selfplay_records_and_their_cutechess_pgn_give_the_same_sf_plain(exe, tmp_path):
    rec = tmp_path / "sp.bin"
    selfplay(exe, rec, "--games", "4", "--seed", "23")
    pgn = tmp_path / "sp.pgn"
    r = run(exe, "records", "dump", "--pgn", "--scores", str(rec))
    assert r.returncode == 0, r.stderr
    assert re.search(r"\{[+-]\d+\.\d\d/1\}", r.stdout)
    pgn.write_text(r.stdout)
    back = tmp_path / "back.bin"
    r = run(exe, "records", "import", "--pgn", str(pgn), "--out", str(back))
    assert r.returncode == 0 and "4 imported" in r.stdout, r.stdout + r.stderr
    plain = []
    for path in (rec, back):
        out = tmp_path / (path.name + ".plain")
        assert run(exe, "records", "export", "--format", "sf-plain", str(path), "--out", str(out)).returncode == 0
        plain.append(out.read_text().splitlines())
    a, b = plain
    assert len(a) == len(b) == 6 * positions_of(exe, rec)
    for x, y in zip(a, b):
        if x.startswith("score "):
            assert abs(int(x[6:]) - int(y[6:])) <= 1, (x, y)
        else:
            assert x == y
    # Each entry is a legal position and move; results are the side to move's.
    for i in range(0, len(a), 6):
        fen, move, score, ply, result, end = a[i:i + 6]
        board = board_of(fen[4:])
        assert chess.Move.from_uci(move[5:]) in board.legal_moves
        assert result[7:] in ("1", "0", "-1") and end == "e"
        assert int(ply[4:]) == board.ply()


def test_viriformat_export_has_a_game_per_record_game(exe, tmp_path):
    rec = tmp_path / "sp.bin"
    selfplay(exe, rec, "--games", "2", "--seed", "24")
    out = tmp_path / "sp.vf"
    r = run(exe, "records", "export", "--format", "viriformat", str(rec), "--out", str(out))
    assert r.returncode == 0, r.stderr
    # 32-byte header and 4-byte terminator a game, 4 bytes a position.
    assert out.stat().st_size == 2 * 36 + 4 * positions_of(exe, rec)


def test_damaged_inputs_give_clear_errors_and_no_output(exe, tmp_path):
    text = CUTECHESS_PGN.read_bytes()
    cut = tmp_path / "cut.pgn.bz2"
    cut.write_bytes(bz2.compress(text * 20)[:-200])
    out = tmp_path / "out.bin"
    r = run(exe, "records", "import", "--pgn", str(cut), "--out", str(out))
    assert r.returncode != 0 and "reading the input" in r.stderr, r.stderr
    assert not out.exists() and list(tmp_path.glob(".out.bin*")) == []
    bad = tmp_path / "bad.pgn"
    good = "[Result \"1-0\"]\n\n1. e4 {+0.30/5} e5 {-0.20/5} 1-0\n\n"
    bad.write_text(good + "[Result \"1-0\"]\n\n1. e4 {+0.30/5} e5 {-0.20/5} 2. Ke3 {+0.1/5} 1-0\n\n"
                   + "[Result \"0-1\"]\n\n1. d4 {+0.3garbage/5 1s} 0-1\n\n" + good)
    r = run(exe, "records", "import", "--pgn", str(bad), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "bad.pgn: game 2, ply 3: illegal move 'Ke3'" in r.stderr, r.stderr
    assert "bad.pgn: game 3, ply 1: unreadable score comment" in r.stderr, r.stderr
    assert "4 games read, 2 imported" in r.stdout and "2 bad games skipped" in r.stdout, r.stdout
    assert positions_of(exe, out) == 4
    damaged = tmp_path / "damaged.bin"
    damaged.write_bytes(out.read_bytes()[:-3])
    for fmt in ("viriformat", "bullet-text", "sf-plain"):
        target = tmp_path / f"x.{fmt}"
        r = run(exe, "records", "export", "--format", fmt, str(damaged), "--out", str(target))
        assert r.returncode != 0 and "ends inside the game" in r.stderr, r.stderr
        assert not target.exists()
    r = run(exe, "records", "filter", str(damaged), "--out", str(tmp_path / "f.bin"), "--no-check")
    assert r.returncode != 0 and not (tmp_path / "f.bin").exists()


def test_pipeline_tools_write_valid_records(exe, tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    selfplay(exe, a, "--games", "4", "--seed", "31")
    selfplay(exe, b, "--games", "4", "--seed", "32")
    pa, pb = positions_of(exe, a), positions_of(exe, b)
    mixed = tmp_path / "mixed.bin"
    assert run(exe, "records", "interleave", str(a), str(b), "--out", str(mixed), "--seed", "1").returncode == 0
    assert positions_of(exe, mixed) == pa + pb
    s1, s2 = tmp_path / "s1.bin", tmp_path / "s2.bin"
    for s in (s1, s2):
        r = run(exe, "records", "shuffle", str(mixed), "--out", str(s), "--seed", "9", "--memory", "1")
        assert r.returncode == 0, r.stderr
    assert s1.read_bytes() == s2.read_bytes() and positions_of(exe, s1) == pa + pb
    f = tmp_path / "f.bin"
    r = run(exe, "records", "filter", str(mixed), "--out", str(f), "--min-ply", "10", "--no-check", "--max-cp", "400")
    assert r.returncode == 0, r.stderr
    m = re.search(r"(\d+) games \((\d+) positions\) out", r.stdout)
    assert m and 0 < int(m.group(2)) < pa + pb and positions_of(exe, f) == int(m.group(2))
    d = tmp_path / "d.bin"
    twice = tmp_path / "twice.bin"
    twice.write_bytes(a.read_bytes() * 2)
    assert run(exe, "records", "dedup", str(twice), "--out", str(d)).returncode == 0
    assert positions_of(exe, d) <= pa
    r = run(exe, "records", "split", str(mixed), "--out-prefix", str(tmp_path / "part"), "--parts", "3")
    assert r.returncode == 0, r.stderr
    parts = sorted(tmp_path.glob("part-*.bin"))
    assert len(parts) == 3 and sum(positions_of(exe, p) for p in parts) == pa + pb
