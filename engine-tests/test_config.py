"""`archivist --config FILE`: option defaults from TOML."""
from conftest import ROOT, run


def test_shipped_config_is_accepted(exe):
    out = run(exe, "--config", str(ROOT / "configs" / "engine.toml"), stdin="isready\nquit\n")
    assert out.returncode == 0
    assert "readyok" in out.stdout
    assert "info string" not in out.stdout


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
