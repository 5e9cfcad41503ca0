"""`archivist --config FILE`: option defaults from TOML."""
import json

import pytest

from conftest import ROOT, run


def test_shipped_config_is_accepted_and_loads_the_default_book_quietly(exe):
    out = run(exe, "--config", str(ROOT / "configs" / "engine.toml"), stdin="isready\nquit\n")
    assert out.returncode == 0
    assert "readyok" in out.stdout
    assert "info string" not in out.stdout, "stdout belongs to the GUI, which has not said uci yet"
    assert "1 book(s) loaded" in out.stderr


def test_shipped_config_plays_a_book_move_from_the_start_position(exe):
    """The move played is one of the moves the default book offers at the
    start position (`book probe`'s list: its entry's best move and the moves
    to positions with an entry), announced as a book move."""
    probe = run(exe, "book", "probe", str(ROOT / "books" / "default.yacb")).stdout.splitlines()
    entry = next(l for l in probe if l.startswith("Entry: "))
    book_moves = {json.loads(entry.removeprefix("Entry: "))["best_move"]}
    listed = probe.index(next(l for l in probe if l.startswith("Moves: ")))
    book_moves |= {l.split()[0] for l in probe[listed + 1:] if l.startswith("  ")}
    assert len(book_moves) > 1
    out = run(exe, "--config", str(ROOT / "configs" / "engine.toml"),
              stdin="uci\nposition startpos\ngo movetime 200\nisready\nquit\n")
    assert "info string book move" in out.stdout
    best = [l for l in out.stdout.splitlines() if l.startswith("bestmove")]
    assert best and best[0].split()[1] in book_moves


@pytest.mark.parametrize("option", ["BookFile", "BookFileWhite", "BookFileBlack", "EvalFile"])
def test_relative_paths_in_a_config_are_relative_to_its_directory(exe, tmp_path, option):
    """The missing file is reported by the path the engine opened."""
    (tmp_path / "sub").mkdir()
    cfg = tmp_path / "sub" / "c.toml"
    cfg.write_text(f'"{option}" = "../nothere"\n')
    out = run(exe, "--config", str(cfg), stdin="isready\nquit\n")
    assert f"{tmp_path / 'sub' / '..' / 'nothere'}: No such file" in out.stderr, out.stderr


def test_unknown_config_key_is_an_error_naming_it(exe, tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text('"Hash" = 8\n"NoSuchOption" = 3\n')
    out = run(exe, "--config", str(cfg), stdin="quit\n")
    assert out.returncode != 0
    assert "NoSuchOption" in out.stderr


def test_bad_config_value_is_an_error(exe, tmp_path):
    cfg = tmp_path / "bad.toml"
    cfg.write_text('"Threads" = 0\n')
    out = run(exe, "--config", str(cfg), stdin="quit\n")
    assert out.returncode != 0
    assert "Threads" in out.stderr
