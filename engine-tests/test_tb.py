"""`archivist tb probe` and `tb info`, checked against python-chess live."""
import random
import shutil

import chess
import chess.syzygy

from conftest import SHARED, run
from positions import random_board

SYZYGY = SHARED / "syzygy"


def expected_line(tb: chess.syzygy.Tablebase, fen: str) -> str:
    board = chess.Board(fen)
    try:
        return f"{fen};{tb.probe_wdl(board)};{tb.probe_dtz(board)}"
    except KeyError:
        return f"{fen};error"


def test_probe_matches_python_chess(exe):
    rng = random.Random(5)
    names = sorted(p.stem for p in SYZYGY.glob("*.rtbw"))
    # Materials without tables (5 and 6 pieces): probing them mostly fails.
    missing = ["KRPvKR", "KQPvKQ", "KBNvKP", "KRRPvKR"]
    fens = []
    for i in range(400):
        name = rng.choice(names + missing)
        white, black = name.split("v")
        if i % 2:
            white, black = black, white
        fens.append(random_board(white, black, rng).fen())
    # En passant, castling rights and bad FENs.
    fens += [
        "8/8/8/8/1k1Pp3/8/8/4K3 b - d3 0 1",
        "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
        "8/8/4k3/8/4pP2/8/8/4K3 b - f3 0 7",
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        "not a fen",
        "8/8/8/8/8/8/8/8 w - - 0 1",
    ]
    out = run(exe, "tb", "probe", "--path", str(SYZYGY), stdin="\n".join(fens) + "\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == len(fens)
    errors = 0
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tb:
        for fen, line in zip(fens, lines):
            assert line.startswith(fen + ";"), line
            if fen in ("not a fen", "8/8/8/8/8/8/8/8 w - - 0 1"):
                assert line.startswith(f"{fen};error;")
                continue
            want = expected_line(tb, fen)
            if want.endswith(";error"):
                errors += 1
                assert line.startswith(want + ";"), (line, want)
            else:
                assert line == want
    assert errors >= 20  # missing tables and castling were exercised


def test_missing_table_is_named(exe):
    fen = "7r/8/8/8/8/3k4/7P/K1R5 w - - 0 1"
    out = run(exe, "tb", "probe", "--path", str(SYZYGY), "--fen", fen)
    assert out.stdout.strip() == f"{fen};error;missing table KRPvKR"


def test_info_lists_tables_and_reports_damaged_files(exe, tmp_path):
    out = run(exe, "tb", "info", "--path", str(SYZYGY))
    assert out.returncode == 0
    assert "table KQRvKR pieces 5 wdl ok dtz ok" in out.stdout
    assert out.stdout.strip().endswith("0 failed")

    for name in ["KQvK", "KRvK", "KQvKR", "KPvKP"]:
        for ext in (".rtbw", ".rtbz"):
            shutil.copy(SYZYGY / (name + ext), tmp_path / (name + ext))
    data = (tmp_path / "KQvKR.rtbw").read_bytes()
    (tmp_path / "KQvKR.rtbw").write_bytes(data[: len(data) // 2])  # truncated
    data = (tmp_path / "KPvKP.rtbz").read_bytes()
    (tmp_path / "KPvKP.rtbz").write_bytes(data[: len(data) - 64])  # length still 16 mod 64
    data = bytearray((tmp_path / "KRvK.rtbw").read_bytes())
    data[0] ^= 0xFF  # bad magic
    (tmp_path / "KRvK.rtbw").write_bytes(bytes(data))

    out = run(exe, "tb", "info", "--path", f"{tmp_path}:{tmp_path / 'nonexistent'}")
    assert out.returncode == 1
    text = out.stdout
    assert f"failed {tmp_path / 'KQvKR.rtbw'}:" in text
    assert f"failed {tmp_path / 'KPvKP.rtbz'}:" in text
    assert f"failed {tmp_path / 'KRvK.rtbw'}: corrupt table KRvK.rtbw at offset 0: bad magic" in text
    assert "nonexistent" in text
    assert "table KQvK pieces 3 wdl ok dtz ok" in text
    assert "table KPvKP pieces 4 wdl ok dtz failed" in text

    # Probing goes on: damaged tables are errors, the others answer.
    fens = ["8/8/8/8/8/2k5/8/K2Q4 w - - 0 1", "8/8/8/8/8/2k5/8/K2R4 w - - 0 1", "3q4/8/8/8/8/2k5/8/K2Q4 w - - 0 1"]
    out = run(exe, "tb", "probe", "--path", str(tmp_path), stdin="\n".join(fens) + "\n")
    lines = out.stdout.splitlines()
    assert lines[0] == f"{fens[0]};2;{chess.syzygy.open_tablebase(str(SYZYGY)).probe_dtz(chess.Board(fens[0]))}"
    assert lines[1].startswith(f"{fens[1]};error;corrupt table KRvK.rtbw")
    assert lines[2].startswith(f"{fens[2]};")


def test_bad_tables_are_named_at_setoption(exe, tmp_path):
    """Setting SyzygyPath validates every file: a truncated file and one
    with a broken header are each named in an `info string`; the good
    tables are still found."""
    from harness import Uci

    for p in SYZYGY.glob("*.rtb?"):
        shutil.copy(p, tmp_path / p.name)
    total = len(list(SYZYGY.glob("*.rtbw")))
    truncated = tmp_path / "KQvK.rtbz"
    truncated.write_bytes(truncated.read_bytes()[:-5])
    broken = tmp_path / "KRvK.rtbw"
    data = bytearray(broken.read_bytes())
    data[0] ^= 0xFF   # the magic
    broken.write_bytes(bytes(data))

    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name SyzygyPath value {tmp_path}")
    lines = [l for l in u.ready() if l.startswith("info string")]
    assert any("bad tablebase file" in l and "KQvK.rtbz" in l for l in lines), lines
    assert any("bad tablebase file" in l and "KRvK.rtbw" in l for l in lines), lines
    summary = [l for l in lines if "Found" in l]
    assert summary == [f"info string Found {total - 1} WDL and {total - 1} DTZ tablebase files (up to 5-man)."], lines
    assert any("2 bad files, named above, are not used" in l for l in lines), lines
    # Only the bad files are named.
    assert len([l for l in lines if "bad tablebase file" in l]) == 2, lines
    assert u.close() == 0
