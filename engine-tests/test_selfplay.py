"""Self-play data generation, the record tools and OpenBench's genfens,
driven through the binary and checked with python-chess."""
from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import time

import chess
import chess.pgn
import pytest

from conftest import ROOT, SHARED, run

FAST = ("--nodes", "400", "--max-plies", "120", "--hash", "4")


def selfplay(exe, out, *args: str) -> subprocess.CompletedProcess:
    r = run(exe, "selfplay", "--out", str(out), *FAST, *args)
    assert r.returncode == 0, r.stderr
    return r


def verify(exe, path) -> subprocess.CompletedProcess:
    return run(exe, "records", "verify", str(path))


def summary_games(stdout: str) -> int:
    m = re.search(r"^selfplay(?: \(interrupted\))?: (\d+) games", stdout, re.M)
    assert m, stdout
    return int(m.group(1))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupt_mid_run_leaves_valid_file_and_summary(exe, tmp_path, sig):
    out = tmp_path / "run.bin"
    config = tmp_path / "preset.toml"
    config.write_text("progress_interval = 1\nthreads = 2\n")
    p = subprocess.Popen(
        [exe, "selfplay", "--config", str(config), "--out", str(out), "--games", "100000", "--nodes", "2000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    time.sleep(2.5)
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, stderr
    assert "selfplay (interrupted):" in stdout
    assert re.search(r"selfplay: games \d+/100000 ", stderr), stderr
    r = verify(exe, out)
    assert r.returncode == 0, r.stdout
    assert f"valid, {summary_games(stdout)} games" in r.stdout


def test_dump_pgn_parses_with_python_chess(exe, tmp_path):
    for name, extra in [("std.bin", ()), ("960.bin", ("--chess960",))]:
        out = tmp_path / name
        selfplay(exe, out, "--games", "3", "--seed", "11", *extra)
        r = run(exe, "records", "dump", "--pgn", str(out))
        assert r.returncode == 0, r.stderr
        stream = io.StringIO(r.stdout)
        games = []
        while (game := chess.pgn.read_game(stream)) is not None:
            assert not game.errors, game.errors
            games.append(game)
        assert len(games) == 3
        for g in games:
            board = g.end().board()
            assert len(list(g.mainline_moves())) == int(g.headers["PlyCount"])
            assert board.chess960 == bool(extra)
            outcome = board.outcome()
            if outcome is not None:
                assert outcome.result() == g.headers["Result"], board.fen()


def test_dump_fen_lines_are_positions_with_scores(exe, tmp_path):
    out = tmp_path / "f.bin"
    selfplay(exe, out, "--games", "2", "--seed", "4")
    lines = run(exe, "records", "dump", "--fen", str(out)).stdout.splitlines()
    stats = run(exe, "records", "stats", str(out)).stdout
    assert f"positions:    {len(lines)}" in stats
    for line in lines:
        fen, score, result, move = (f.strip() for f in line.split("|"))
        board = chess.Board(fen)
        assert board.is_valid()
        assert 0.0 <= float(score) <= 1.0 and result in ("1.0", "0.5", "0.0")
        assert chess.Move.from_uci(move) in board.legal_moves


def test_same_seed_single_thread_gives_identical_bytes(exe, tmp_path):
    a, b, c = tmp_path / "a.bin", tmp_path / "b.bin", tmp_path / "c.bin"
    selfplay(exe, a, "--games", "2", "--seed", "5", "--threads", "1")
    selfplay(exe, b, "--games", "2", "--seed", "5", "--threads", "1")
    selfplay(exe, c, "--games", "2", "--seed", "6", "--threads", "1")
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_existing_output_refused_unless_append(exe, tmp_path):
    out = tmp_path / "x.bin"
    first = selfplay(exe, out, "--games", "1", "--seed", "1")
    size = out.stat().st_size
    r = run(exe, "selfplay", "--out", str(out), *FAST, "--games", "1")
    assert r.returncode != 0 and "--append" in r.stderr
    assert out.stat().st_size == size
    selfplay(exe, out, "--games", "1", "--seed", "1", "--append")
    assert out.stat().st_size > size
    assert "valid, 2 games" in verify(exe, out).stdout
    assert summary_games(first.stdout) == 1


def test_value_only_records_are_read_by_the_records_tools(exe, tmp_path):
    out = tmp_path / "v.bin"
    selfplay(exe, out, "--games", "2", "--seed", "8", "--value-only", "--soft-nodes", "300")
    r = verify(exe, out)
    assert r.returncode == 0, r.stdout
    m = re.search(r"valid, 2 games, (\d+) positions", r.stdout)
    assert m, r.stdout
    positions = int(m.group(1))
    # 45 bytes a game (header, terminator) and 5 a position: move, score, count 0.
    assert out.stat().st_size == 2 * 45 + 5 * positions
    stats = run(exe, "records", "stats", str(out)).stdout
    assert f"positions:    {positions}" in stats and "visits:       0 positions (0.0%)" in stats
    plain = run(exe, "records", "dump", str(out)).stdout.splitlines()
    plies = [l for l in plain if not l.startswith("game ")]
    assert len(plies) == positions and all(l.endswith("moves   0 visits []") for l in plies)
    fens = run(exe, "records", "dump", "--fen", str(out)).stdout.splitlines()
    assert len(fens) == positions
    for line in fens:
        fen, score, _, move = (f.strip() for f in line.split("|"))
        assert chess.Move.from_uci(move) in chess.Board(fen).legal_moves and 0.0 <= float(score) <= 1.0
    stream = io.StringIO(run(exe, "records", "dump", "--pgn", str(out)).stdout)
    assert sum(1 for _ in iter(lambda: chess.pgn.read_game(stream), None)) == 2


def test_fill_resumes_and_the_run_log_records_every_run(exe, tmp_path):
    out = tmp_path / "r.bin"
    log = tmp_path / "r.bin.runs.json"
    r = selfplay(exe, out, "--fill", "2", "--seed", "21", "--value-only")
    assert "game indices from 0" in r.stdout
    r = selfplay(exe, out, "--fill", "4", "--seed", "21", "--value-only")
    assert "game indices from 2; 2 games were already in the file" in r.stdout
    assert summary_games(r.stdout) == 2
    r = selfplay(exe, out, "--fill", "4", "--seed", "21", "--value-only")
    assert "nothing to play" in r.stdout and summary_games(r.stdout) == 0
    assert "valid, 4 games" in verify(exe, out).stdout
    runs = json.loads(log.read_text())["runs"]
    assert [(x["seed"], x["first_index"], x["end_index"], x["games"], x["status"]) for x in runs] == [
        (21, 0, 2, 2, "finished"), (21, 2, 4, 2, "finished")]
    assert runs[1]["bytes_after"] == out.stat().st_size
    assert "--fill 4" in runs[1]["command"]
    assert runs[0]["settings"]["value_only"] and runs[0]["settings"]["nodes"] == 400
    # A crash mid-write leaves a game cut short: appending removes it.
    data = out.read_bytes()
    out.write_bytes(data + data[:50])
    r = selfplay(exe, out, "--fill", "5", "--seed", "21", "--value-only")
    assert "removed a game cut short (50 bytes)" in r.stdout
    assert "valid, 5 games" in verify(exe, out).stdout


def test_verify_rejects_corrupt_and_truncated_files(exe, tmp_path):
    out = tmp_path / "v.bin"
    selfplay(exe, out, "--games", "1", "--seed", "2")
    data = out.read_bytes()
    bad = tmp_path / "bad.bin"
    bad.write_bytes(data[:42] + b"\x07" + data[43:])
    r = verify(exe, bad)
    assert r.returncode == 1 and "result byte 7 at offset 42" in r.stdout
    bad.write_bytes(data + data[:-1])
    r = verify(exe, bad)
    assert r.returncode == 1 and "game 1: the file ends inside the game" in r.stdout
    assert run(exe, "records", "stats", str(bad)).returncode == 1


def test_openings_file_and_preset(exe, tmp_path):
    epd = tmp_path / "o.epd"
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    epd.write_text(fen + "\n")
    out = tmp_path / "o.bin"
    r = run(exe, "selfplay", "--config", str(ROOT / "configs" / "selfplay.toml"), "--out", str(out),
            "--openings", str(epd), *FAST, "--games", "1", "--seed", "3")
    assert r.returncode == 0, r.stderr
    pgn = run(exe, "records", "dump", "--pgn", str(out)).stdout
    assert f'[FEN "{fen}"]' in pgn


def test_selfplay_with_book_and_syzygy_writes_valid_games(exe, tmp_path):
    out = tmp_path / "b.bin"
    r = run(exe, "selfplay", "--out", str(out), "--book", str(SHARED / "books" / "performance.bin"),
            "--syzygy", str(SHARED / "syzygy"), "--games", "2", "--nodes", "2000", "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert run(exe, "records", "verify", str(out)).returncode == 0
    pgn = run(exe, "records", "dump", "--pgn", str(out)).stdout
    game = chess.pgn.read_game(io.StringIO(pgn))
    assert game is not None and len(list(game.mainline_moves())) > 0


def test_missing_book_or_tables_are_errors(exe, tmp_path):
    for flag, value in [("--book", str(tmp_path / "none.bin")), ("--syzygy", str(tmp_path))]:
        r = run(exe, "selfplay", "--out", str(tmp_path / "n.bin"), flag, value, "--games", "1")
        assert r.returncode != 0
        assert not (tmp_path / "n.bin").exists()


def genfens(exe, *words: str) -> list[str]:
    r = run(exe, " ".join(("genfens",) + words), "quit")
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_genfens_prints_exactly_n_valid_positions(exe):
    lines = genfens(exe, "25", "seed", "7", "book", "None")
    assert len(lines) == 25
    assert all(l.startswith("info string genfens ") for l in lines)
    fens = [l[len("info string genfens "):] for l in lines]
    for fen in fens:
        board = chess.Board(fen)
        assert board.is_valid() and not board.is_game_over()
    assert len(set(fens)) == 25
    assert genfens(exe, "25", "seed", "7", "book", "None") == lines
    assert genfens(exe, "25", "seed", "8", "book", "None") != lines


def test_genfens_reads_an_opening_file(exe, tmp_path):
    lines = genfens(exe, "4", "seed", "1", "book", str(SHARED / "pgn" / "kasparov-deep-blue-1997.pgn"))
    assert len(lines) == 4
    for line in lines:
        assert chess.Board(line[len("info string genfens "):]).is_valid()
