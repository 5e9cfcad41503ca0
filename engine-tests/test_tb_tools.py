"""`tb probe --moves`, `tb line` and the `SyzygyPath` conventions, checked
against python-chess live."""
import json
import shutil

import chess
import chess.syzygy

import lichess_rules
from conftest import SHARED, run
from positions import material_positions

SYZYGY = SHARED / "syzygy"


def test_probe_moves_agree_with_python_chess_and_lichess_rules_for_every_move_of_1000_positions(exe):
    boards = material_positions(SYZYGY, 1000, seed=17)
    fens = [b.fen() for b in boards]
    out = run(exe, "tb", "probe", "--path", str(SYZYGY), "--moves", "--json",
              stdin="\n".join(fens) + "\n", timeout=600)
    assert out.returncode == 0, out.stderr
    reports = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(reports) == len(boards)
    checked = 0
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tb:
        for board, report in zip(boards, reports):
            assert report["fen"] == board.fen()
            checked += lichess_rules.compare(report, tb, board)
    assert checked > 10000


def test_probe_moves_text_and_the_fen_argument(exe):
    fen = "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1"
    out = run(exe, "tb", "probe", "--path", str(SYZYGY), "--moves", fen)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"{fen}: win (wdl 2, dtz ")
    assert len(lines) == 1 + chess.Board(fen).legal_moves.count()
    assert lines[1].split()[3] == "loss"
    plain = run(exe, "tb", "probe", "--path", str(SYZYGY), fen)
    assert plain.stdout.startswith(f"{fen};2;")


def test_probe_moves_reports_bad_lines_and_goes_on(exe):
    good = "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1"
    out = run(exe, "tb", "probe", "--path", str(SYZYGY), "--moves", "--json", stdin=f"not a fen\n{good}\n")
    assert out.returncode == 0, out.stderr
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    assert first["fen"] == "not a fen" and first["error"]
    assert second["fen"] == good and second["category"] == "win"
    text = run(exe, "tb", "probe", "--path", str(SYZYGY), "--moves", stdin="not a fen\n").stdout
    assert text.startswith("not a fen;error;")


def test_probe_moves_marks_positions_outside_the_tables(exe, tmp_path):
    # Only KQvK: the king moves of KQvKR are unknown, capturing the rook is known.
    for suffix in ("rtbw", "rtbz"):
        shutil.copy(SYZYGY / f"KQvK.{suffix}", tmp_path / f"KQvK.{suffix}")
    fen = "8/8/8/8/8/2k5/8/r2QK3 w - - 0 1"
    out = run(exe, "tb", "probe", "--path", str(tmp_path), "--moves", "--json", fen)
    report = json.loads(out.stdout)
    capture = next(m for m in report["moves"] if m["uci"] == "d1a1")
    assert capture["category"] != "unknown" and capture["dtz"] is not None
    assert any(m["category"] == "unknown" and m["dtz"] is None for m in report["moves"])
    assert report["moves"][0]["uci"] == "d1a1"


def first_zeroing_or_mate(board, line):
    b = board.copy()
    for i, step in enumerate(line, 1):
        move = chess.Move.from_uci(step["uci"])
        assert step["san"] == b.san(move)
        zeroing = b.is_zeroing(move)
        b.push(move)
        if zeroing or b.is_checkmate():
            return i
    return None


def test_line_ends_in_mate_or_a_draw_with_zeroing_consistent_with_dtz(exe):
    boards = material_positions(SYZYGY, 60, seed=3, clock=lambda rng: 0)
    with chess.syzygy.open_tablebase(str(SYZYGY)) as tb:
        for board in boards:
            out = run(exe, "tb", "line", "--path", str(SYZYGY), "--json", board.fen())
            assert out.returncode == 0, out.stderr
            line = json.loads(out.stdout)
            dtz = tb.probe_dtz(board)
            assert (line["wdl"], line["dtz"]) == (tb.probe_wdl(board), dtz)
            end = board.copy()
            for step in line["line"]:
                end.push_uci(step["uci"])
            assert end.fen() == line["final_fen"]
            if line["end"] == "checkmate":
                assert end.is_checkmate()
            elif line["end"] == "stalemate":
                assert end.is_stalemate()
            elif line["end"] == "insufficient material":
                assert end.is_insufficient_material()
            elif line["end"] == "50-move rule":
                assert end.halfmove_clock >= 100 and abs(dtz) > 100
            else:
                assert line["end"] == "draw" and tb.probe_dtz(end) == 0, line
            if dtz == 0:
                assert line["line"] == []
                continue
            z = first_zeroing_or_mate(board, line["line"])
            if abs(dtz) > 100 and (z is None or z > 100):
                assert line["end"] == "50-move rule", line
                continue
            # DTZ may be one ply short (tables that store full moves):
            # shakmaty-syzygy's "Dtz(n) can mean a win in n + 1 plies".
            allowed = {abs(dtz), abs(dtz) + 1, abs(dtz) - 100, abs(dtz) - 99}
            assert z in allowed, (board.fen(), dtz, z, line)


def test_line_to_zeroing_stops_at_the_first_zeroing_move(exe):
    fen = "8/8/8/4k3/8/8/3PK3/8 w - - 0 1"
    out = run(exe, "tb", "line", "--path", str(SYZYGY), "--to-zeroing", "--json", fen)
    line = json.loads(out.stdout)
    board = chess.Board(fen)
    dtz = chess.syzygy.open_tablebase(str(SYZYGY)).probe_dtz(board)
    assert line["end"] == "zeroing move"
    assert len(line["line"]) in (dtz, dtz + 1)
    assert first_zeroing_or_mate(board, line["line"]) == len(line["line"])
    text = run(exe, "tb", "line", "--path", str(SYZYGY), "--to-zeroing", fen).stdout
    assert f"uci: {' '.join(s['uci'] for s in line['line'])}" in text
    assert f"san: {' '.join(s['san'] for s in line['line'])}" in text


def found_line(exe, path):
    from harness import Uci
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name SyzygyPath value {path}")
    lines = [l for l in u.ready() if l.startswith("info string Found")]
    assert u.close() == 0
    return lines


def test_syzygy_path_prints_stockfishs_line_and_accepts_semicolons(exe, tmp_path):
    wdl_dir, dtz_dir = tmp_path / "wdl", tmp_path / "dtz"
    wdl_dir.mkdir()
    dtz_dir.mkdir()
    for p in SYZYGY.glob("*.rtbw"):
        shutil.copy(p, wdl_dir / p.name)
    dtz_files = sorted(SYZYGY.glob("*.rtbz"))[:5]
    for p in dtz_files:
        shutil.copy(p, dtz_dir / p.name)
    wdl = len(list(wdl_dir.iterdir()))
    most = max(len(p.stem) - 1 for p in wdl_dir.iterdir())
    expected = f"info string Found {wdl} WDL and {len(dtz_files)} DTZ tablebase files (up to {most}-man)."
    assert found_line(exe, f"{wdl_dir};{dtz_dir}") == [expected]
    assert found_line(exe, f"{wdl_dir}:{dtz_dir}") == [expected]
    assert found_line(exe, str(wdl_dir)) == [f"info string Found {wdl} WDL and 0 DTZ tablebase files (up to {most}-man)."]
    # A Windows list (drive letters) is split on ';' only: neither directory exists here.
    assert found_line(exe, r"C:\tb\wdl;D:\tb\dtz") == ["info string Found 0 WDL and 0 DTZ tablebase files (up to 0-man)."]


def test_relative_syzygy_dirs_in_a_config_file_may_be_separated_by_semicolons(exe, tmp_path):
    for name in ("wdl", "dtz"):
        (tmp_path / name).mkdir()
    for p in SYZYGY.glob("*.rtbw"):
        shutil.copy(p, tmp_path / "wdl" / p.name)
    shutil.copy(SYZYGY / "KQvK.rtbz", tmp_path / "dtz" / "KQvK.rtbz")
    config = tmp_path / "engine.toml"
    config.write_text('SyzygyPath = "wdl;dtz"\n')
    wdl = len(list(SYZYGY.glob("*.rtbw")))
    out = run(exe, "--config", str(config), stdin="quit\n")
    assert f"Found {wdl} WDL and 1 DTZ tablebase files (up to 5-man)." in out.stderr, out.stderr
