"""The UCI loop, black-box: python-chess where it fits, raw pipes where the
test is about bytes or timing. Written against the issue's spec:

- `uci` -> `id name`, `id author`, options, `uciok`; `isready` -> `readyok`,
  also while searching; `d` prints `Fen:`, `Key:` (16 upper-case hex digits)
  and `Polyglot key:` (16 lower-case); `go perft N` prints `move: nodes` lines
  and `Nodes searched: N`; `bench` ends with `N nodes M nps`, N the same
  every run (UCI command and `archivist bench`).
- An unknown or malformed line gets an `info string` and the loop goes on;
  an illegal move in `position ... moves` is reported and the position stays
  at the last legal move; a bad FEN leaves the position unchanged; `stop`
  answers `bestmove` at once; `quit` during a search exits promptly; end of
  input means quit; no input line crashes the engine.

The games at the end use gauntlet.py's game loop, which keeps the clocks
itself and turns a crash, an illegal move or a time loss into a fault.
"""
from __future__ import annotations

import os
import queue
import random
import re
import shutil
import subprocess
import threading
import time

import chess
import chess.engine
import chess.polyglot
import pytest

import gauntlet
from conftest import SHARED, run

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
MIDGAME = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8"
AFTER_E4_E5 = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
INFO_FIELDS = ("depth", "seldepth", "multipv", "score", "nodes", "nps", "hashfull", "tbhits", "time", "pv")


# ---------------------------------------------------------------------------
# Raw pipe harness

from harness import Uci  # noqa: E402  (raw-pipe harness)

@pytest.fixture
def uci(exe):
    """A started engine after `uci`/`isready`; must exit with 0 on `quit`."""
    u = Uci([exe])
    u.handshake()
    u.ready()
    yield u
    code = u.close()
    assert code == 0, f"engine exit code {code} after quit{u.context()}"


@pytest.fixture
def engine(exe):
    eng = chess.engine.SimpleEngine.popen_uci(exe, timeout=30)
    yield eng
    eng.quit()


@pytest.fixture(scope="session")
def stockfish() -> str:
    path = shutil.which("stockfish") or "/usr/games/stockfish"
    if not os.access(path, os.X_OK):
        pytest.fail("Stockfish is missing: `make deps` installs Debian's stockfish")
    return path


def parse_info(line: str) -> dict:
    tokens = line.split()
    assert tokens[0] == "info", line
    info: dict = {}
    i = 1
    while i < len(tokens):
        key = tokens[i]
        if key == "string":
            info["string"] = " ".join(tokens[i + 1:])
            break
        if key == "pv":
            info["pv"] = tokens[i + 1:]
            break
        if key == "score":
            kind, value = tokens[i + 1], int(tokens[i + 2])
            assert kind in ("cp", "mate"), line
            i += 3
            bound = None
            if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                bound = tokens[i]
                i += 1
            info["score"] = (kind, value, bound)
            continue
        if key == "wdl":
            info["wdl"] = tuple(int(x) for x in tokens[i + 1:i + 4])
            i += 4
            continue
        if key in ("currmove", "refutation", "currline"):
            info[key] = tokens[i + 1]
            i += 2
            continue
        info[key] = int(tokens[i + 1])
        i += 2
    return info


def board_after(fen: str | None, moves: str = "") -> chess.Board:
    board = chess.Board(fen) if fen else chess.Board()
    for m in moves.split():
        board.push_uci(m)
    return board


def show(u: Uci) -> dict[str, str]:
    """`d` -> {"Fen": ..., "Key": ..., "Polyglot key": ...}."""
    u.send("d")
    fields = {}
    for line in u.ready():
        for name in ("Fen", "Key", "Polyglot key"):
            if line.startswith(name + ": "):
                fields[name] = line[len(name) + 2:].strip()
    assert "Fen" in fields, f"`d` printed no Fen: line{u.context()}"
    return fields


def assert_same_position(fen: str, board: chess.Board) -> None:
    shown = chess.Board(fen)
    assert (shown.epd(en_passant="legal"), shown.halfmove_clock, shown.fullmove_number) == \
           (board.epd(en_passant="legal"), board.halfmove_clock, board.fullmove_number), fen


def assert_bestmove_legal(line: str, board: chess.Board) -> chess.Move:
    tokens = line.split()
    assert tokens[0] == "bestmove" and len(tokens) >= 2, line
    move = chess.Move.from_uci(tokens[1])
    assert move in board.legal_moves, f"illegal bestmove {line!r} in {board.fen()}"
    if len(tokens) >= 4:
        assert tokens[2] == "ponder", line
        after = board.copy()
        after.push(move)
        assert chess.Move.from_uci(tokens[3]) in after.legal_moves, f"illegal ponder move {line!r}"
    return move


def assert_pv_legal(pv: list[str], board: chess.Board) -> None:
    b = board.copy()
    for uci in pv:
        move = chess.Move.from_uci(uci)
        assert move in b.legal_moves, f"illegal move {uci} in pv {' '.join(pv)} from {board.fen()}"
        b.push(move)


# ---------------------------------------------------------------------------
# Handshake and options

REQUIRED_OPTIONS = {
    "Hash": "spin", "Threads": "spin", "Clear Hash": "button", "MultiPV": "spin", "Move Overhead": "spin",
    "UCI_Chess960": "check", "UCI_ShowWDL": "check", "Ponder": "check", "Debug Log File": "string"}


def test_handshake_names_the_engine_and_lists_the_required_options(exe):
    u = Uci([exe])
    try:
        lines = u.handshake()
    finally:
        u.close()
    assert any(re.fullmatch(r"id name \S.*", l) for l in lines), lines
    assert any(re.fullmatch(r"id author \S.*", l) for l in lines), lines
    options = {}
    for line in lines:
        m = re.fullmatch(r"option name (.+?) type (\S+)(.*)", line.strip())
        if m:
            options[m[1]] = (m[2], m[3])
    for name, kind in REQUIRED_OPTIONS.items():
        assert name in options, f"option {name!r} missing from {sorted(options)}"
        assert options[name][0] == kind, f"{name}: type {options[name][0]}, expected {kind}"
    for name, (kind, rest) in options.items():
        if kind == "spin":
            m = re.fullmatch(r" default (-?\d+) min (-?\d+) max (-?\d+)", rest)
            assert m, f"spin option {name!r}: {rest!r}"
            assert int(m[2]) <= int(m[1]) <= int(m[3]), f"{name}: default outside min..max"
        elif kind == "check":
            assert rest.strip() in ("default true", "default false"), f"check option {name!r}: {rest!r}"


def test_python_chess_reads_the_options(engine):
    assert engine.id.get("name")
    for name, kind in REQUIRED_OPTIONS.items():
        assert engine.options[name].type == kind
    assert engine.options["Hash"].min >= 1 and engine.options["Threads"].min == 1
    assert engine.options["MultiPV"].min == 1 and engine.options["MultiPV"].max >= 3
    assert engine.options["UCI_ShowWDL"].default is False


def test_options_can_be_set_and_the_engine_still_searches(uci):
    uci.send("setoption name Hash value 8", "setoption name Threads value 1", "setoption name Clear Hash",
             "setoption name Move Overhead value 30", "setoption name MultiPV value 1",
             "setoption name Ponder value false", "ucinewgame")
    assert not any(l.startswith("info string") for l in uci.ready()), "valid setoption lines got complaints"
    uci.send("position startpos moves d2d4", "go depth 3")
    lines, _ = uci.bestmove(30)
    assert_bestmove_legal(lines[-1], board_after(None, "d2d4"))


def test_debug_log_file_records_the_conversation(exe, tmp_path):
    log = tmp_path / "uci.log"
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name Debug Log File value {log}")
    u.ready()
    u.send("position startpos", "go depth 2")
    u.bestmove(30)
    u.ready()
    assert u.close() == 0
    text = log.read_text(errors="replace")
    assert "isready" in text and "readyok" in text and "bestmove" in text, text[:500]


def test_empty_value_clears_the_debug_log_file_and_hash_file(exe, tmp_path):
    """`<empty>` is the empty string for every string option: no file named
    `<empty>` is logged to, loaded or saved at quit (Persistent Hash on)."""
    names = ["Debug Log File", "Hash File"]
    stdin = "".join(f"setoption name {name} value <empty>\n" for name in names)
    stdin += "setoption name Persistent Hash value true\nisready\nquit\n"
    out = subprocess.run([os.path.abspath(exe)], input=stdin, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert out.returncode == 0 and "readyok" in out.stdout
    assert "<empty>" not in out.stdout
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------
# Robustness

def _garbage() -> tuple[list[bytes], list[bytes]]:
    """(lines that are no command at all, malformed lines of real commands)."""
    rng = random.Random(20240607)
    no_command: list[bytes] = []
    for _ in range(110):   # random bytes; the first is never ASCII, so never a command
        body = bytes(rng.choice([b for b in range(256) if b not in (10, 13)]) for _ in range(rng.randint(0, 120)))
        no_command.append(bytes([rng.randint(0x80, 0xFF)]) + body)
    words = ["uc", "isread", "positio startpos", "setopt name Hash value 1", "ucinewgam", "sto", "qui",
             "ponderhi", "bestmove e2e4", "info depth 1", "readyok", "uciok", "id name x", "option name x",
             "hello world", "ucci", "1234", "e2e4", "-", "''", "\\", "\x00\x00\x00", "\tfoo\tbar",
             "\x1b[31mred", "posítion startpos", "gogo depth 1", "go_depth 1", "perft 1", "x" * 100_000,
             "garbage " * 20_000]
    no_command += [w.encode() for w in words]
    malformed = [
        "#", "position", "position fen", "position fen garbage", "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position startpos moves e2e5", "position startpos moves e2e4 e7e5 e1e8", "position startpos moves e7e5",
        "position startpos moves a7a8q", "position startpos moves e2e4 e7e5 zz", "position startpos moves e2",
        "position startpos junk e2e4", "position fen 7k/8/8/8/8/8/8/K7 w - - 0 0",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -5 1",
        "position fen 4k3/8/8/8/8/8/8/4K2R w KQkq - 0 1", "position fen k7/8/8/8/8/8/8/K6Q w - - 0 1",
        "position startpos moves " + "e2e4 " * 5000, "position fen " + "8/" * 50_000,
        "setoption", "setoption name", "setoption name Hash", "setoption name Hash value",
        "setoption name Hash value abc", "setoption name Hash value -1", "setoption name Hash value 1.5",
        "setoption name Hash value 0", "setoption name Hash value 99999999999999999999999999",
        "setoption name Threads value -3", "setoption name Threads value abc", "setoption name MultiPV value 0",
        "setoption name MultiPV value -1", "setoption name NoSuchOption value 1",
        "setoption name UCI_Chess960 value maybe", "setoption name Ponder value 2", "setoption value 3",
        "setoption name Move Overhead value 99999999999999999999999", "setoption name Clear Hash value x",
        "setoption name Debug Log File value /nonexistent-dir/x/y.log", "setoption name Debug Log File value",
        "go depth -5", "stop", "go depth abc", "stop", "go depth", "stop", "go nodes -1", "stop",
        "go movetime -100", "stop", "go wtime -1000 btime -1000", "stop", "go wtime abc btime", "stop",
        "go searchmoves e9e9 zz", "stop", "go perft -1", "go perft abc", "go mate -3", "stop",
        "go depth 99999999999999999999", "stop", "go movestogo 0 wtime 100 btime 100", "stop",
    ]
    return no_command, [m.encode() for m in malformed]


def test_isready_answered_after_a_burst_of_garbage_lines(uci):
    no_command, malformed = _garbage()
    lines = no_command + malformed
    random.Random(7).shuffle(lines)
    # Move the go/stop pairs to the end so that a stray search has its stop.
    lines = [l for l in lines if not l.startswith((b"go", b"stop"))] + [l for l in malformed if l.startswith((b"go", b"stop"))]
    assert len(lines) >= 200
    for i in range(0, len(lines), 20):
        uci.send(*lines[i:i + 20])
    out = uci.ready(timeout=30)
    assert uci.proc.poll() is None
    complaints = sum(l.startswith("info string") for l in out)
    assert complaints >= len(no_command), \
        f"{complaints} info string lines for {len(no_command)} unknown lines{uci.context()}"
    # Still a working engine.
    uci.send("stop")
    uci.ready()
    time.sleep(0.3)
    uci.drain()
    uci.send("ucinewgame", "position startpos moves e2e4", "go depth 3")
    lines, _ = uci.bestmove(30)
    assert_bestmove_legal(lines[-1], board_after(None, "e2e4"))
    assert show(uci)["Fen"].startswith("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq")


def test_long_move_list_is_played_out(uci):
    moves = "g1f3 g8f6 f3g1 f6g8 " * 300   # 1,200 plies of knight shuffles
    uci.send("position startpos moves " + moves)
    fen = show(uci)["Fen"]
    assert_same_position(fen, board_after(None, moves))
    uci.send("go depth 3")
    lines, _ = uci.bestmove(30)
    assert_bestmove_legal(lines[-1], chess.Board())


@pytest.mark.parametrize("tail", ["e1e8", "e1e8 g1f3", "e7e5", "e2e4", "zz99", "e7e8q"])
def test_illegal_move_is_reported_and_position_stays_after_last_legal_move(uci, tail):
    uci.send(f"position startpos moves e2e4 e7e5 {tail}")
    out = uci.ready()
    assert any(l.startswith("info string") for l in out), f"no info string for illegal move {tail}: {out}"
    assert_same_position(show(uci)["Fen"], chess.Board(AFTER_E4_E5))


@pytest.mark.parametrize("bad", [
    "garbage",
    "rnbqkbnr/pppppppp/8/8 w KQkq - 0 1",                              # four ranks
    "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",         # nine squares
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",         # no piece X
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",         # side x
    "8/8/8/8/8/8/8/8 w - - 0 1",                                       # no kings
    "k7/8/8/8/8/8/8/K6Q w - - 0 1",                                    # the side not to move in check
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1",         # halfmove clock
])
def test_bad_fen_leaves_the_position_unchanged(uci, bad):
    uci.send("position startpos moves e2e4 e7e5")
    uci.ready()
    uci.send(f"position fen {bad}")
    out = uci.ready()
    assert any(l.startswith("info string") for l in out), f"no info string for bad FEN {bad!r}: {out}"
    assert_same_position(show(uci)["Fen"], chess.Board(AFTER_E4_E5))
    uci.send(f"position fen {bad} moves e2e4")
    uci.ready()
    assert_same_position(show(uci)["Fen"], chess.Board(AFTER_E4_E5))


def test_isready_answered_while_searching(uci):
    uci.send("position startpos", "go infinite")
    time.sleep(0.2)
    t0 = uci.send("isready")
    got = uci.expect(lambda l: l.strip() == "readyok", 2, "readyok during search")
    assert got[-1][0] - t0 < 0.5
    assert not any(l.startswith("bestmove") for _, l in got), "search ended without stop"
    uci.send("stop")
    uci.bestmove(2)


def test_stop_ends_infinite_search_within_half_a_second(uci):
    uci.send("position fen " + MIDGAME, "go infinite")
    time.sleep(0.5)
    assert not any(l.startswith("bestmove") for l in uci.drain()), "go infinite returned on its own"
    t0 = uci.send("stop")
    lines, t1 = uci.bestmove(2, "bestmove after stop")
    assert t1 - t0 < 0.5, f"bestmove {t1 - t0:.3f}s after stop"
    assert_bestmove_legal(lines[-1], chess.Board(MIDGAME))
    uci.send("go depth 2")                     # and it searches again
    lines, _ = uci.bestmove(30)
    assert_bestmove_legal(lines[-1], chess.Board(MIDGAME))


def test_a_search_stopped_at_once_still_answers_with_a_searched_move(uci):
    """`stop` (or a new `go`) right behind `go`: depth 1 is finished first,
    so the answer takes the free queen instead of the first move generated."""
    fen = "4k3/8/8/3q4/8/8/8/3QK3 w - - 0 1"
    for go in ("go infinite", "go depth 20", "go wtime 60000 btime 60000"):
        uci.send("ucinewgame", "position fen " + fen, go, "stop")
        lines, _ = uci.bestmove(5, f"bestmove after {go} and stop")
        infos = [l for l in lines if l.startswith("info depth")]
        assert infos, f"{go}: no completed iteration before {lines[-1]!r}"
        assert lines[-1].split()[1] == "d1d5", f"{go}: {lines[-1]!r}"
    # A `go` sent while another search runs stops it the same way.
    uci.send("position fen " + fen, "go depth 30", "go depth 1")
    first, _ = uci.bestmove(5, "bestmove of the interrupted search")
    second, _ = uci.bestmove(5, "bestmove of the second search")
    assert first[-1].split()[1] == second[-1].split()[1] == "d1d5", (first[-1], second[-1])


def test_quit_during_search_exits_within_a_second(exe):
    u = Uci([exe])
    u.handshake()
    u.send("position fen " + MIDGAME, "go infinite")
    time.sleep(0.3)
    t0 = u.send("quit")
    code = u.wait_exit(1.0)
    elapsed = time.monotonic() - t0
    u.close()
    assert code is not None, f"still running 1s after quit{u.context()}"
    assert code == 0, f"exit code {code}{u.context()}"
    assert elapsed < 1.0


@pytest.mark.parametrize("searching", [False, True], ids=["idle", "searching"])
def test_end_of_input_means_quit(exe, searching):
    u = Uci([exe])
    u.handshake()
    u.ready()
    if searching:
        u.send("position startpos", "go infinite")
        time.sleep(0.3)
    u.proc.stdin.close()
    code = u.wait_exit(1.0)
    u.close()
    assert code is not None, f"still running 1s after end of input{u.context()}"
    assert code == 0, f"exit code {code}{u.context()}"


# ---------------------------------------------------------------------------
# Search limits and output

def test_go_depth_reports_full_info_lines_and_a_legal_bestmove(uci):
    board = chess.Board(MIDGAME)
    uci.send("position fen " + MIDGAME, "go depth 6")
    lines, _ = uci.bestmove(60)
    infos = [parse_info(l) for l in lines if l.startswith("info") and " pv " in l + " "]
    assert infos, f"no info ... pv lines: {lines}"
    for info in infos:
        missing = [f for f in INFO_FIELDS if f not in info]
        assert not missing, f"info line without {missing}: {info}"
        assert info["multipv"] == 1 and info["nodes"] > 0 and info["time"] >= 0 and info["nps"] >= 0
        assert 0 <= info["hashfull"] <= 1000 and info["tbhits"] >= 0
        assert info["seldepth"] >= 1 and info["pv"]
        assert_pv_legal(info["pv"], board)
    depths = [i["depth"] for i in infos]
    assert depths == sorted(depths) and depths[-1] == 6, depths
    best = assert_bestmove_legal(lines[-1], board)
    assert best.uci() == infos[-1]["pv"][0]
    assert len(lines[-1].split()) == 4, f"no ponder move: {lines[-1]}"


@pytest.mark.timing
def test_go_movetime_200_returns_on_time(uci):
    uci.send("position startpos moves e2e4 c7c5")
    uci.ready()
    t0 = uci.send("go movetime 200")
    lines, t1 = uci.bestmove(3)
    assert 0.15 <= t1 - t0 <= 0.5, f"go movetime 200 took {t1 - t0:.3f}s"
    assert_bestmove_legal(lines[-1], board_after(None, "e2e4 c7c5"))


@pytest.mark.timing
def test_go_clock_uses_the_side_to_moves_clock(uci):
    # Black to move with half a second left; white's clock is irrelevant.
    uci.send("position startpos moves e2e4")
    uci.ready()
    t0 = uci.send("go wtime 100000 btime 500 winc 0 binc 0")
    lines, t1 = uci.bestmove(3)
    assert t1 - t0 < 0.5, f"used {t1 - t0:.3f}s of a 0.5s clock"
    assert_bestmove_legal(lines[-1], board_after(None, "e2e4"))
    t0 = uci.send("go wtime 1000 btime 1000 winc 0 binc 0 movestogo 1")  # one move to the control
    lines, t1 = uci.bestmove(2)
    assert t1 - t0 < 1.0, f"used {t1 - t0:.3f}s of a 1s clock"
    assert_bestmove_legal(lines[-1], board_after(None, "e2e4"))


def test_go_nodes_10000_stops_near_the_limit(uci):
    uci.send("position fen " + MIDGAME, "go nodes 10000")
    lines, _ = uci.bestmove(30)
    nodes = [parse_info(l).get("nodes", 0) for l in lines if l.startswith("info")]
    assert nodes, lines
    assert 2500 <= max(nodes) <= 11000, f"go nodes 10000 reported {max(nodes)} nodes"
    assert_bestmove_legal(lines[-1], chess.Board(MIDGAME))


def _mating_first_moves(board: chess.Board, n: int) -> set[str]:
    def mated_within(b: chess.Board, k: int) -> bool:   # side to move is mated within k of our moves
        if b.is_checkmate():
            return True
        if k == 0 or b.is_game_over():
            return False
        for reply in list(b.legal_moves):
            b.push(reply)
            ok = any(_push_test(b, m, lambda bb: mated_within(bb, k - 1)) for m in list(b.legal_moves))
            b.pop()
            if not ok:
                return False
        return True

    return {m.uci() for m in list(board.legal_moves) if _push_test(board, m, lambda b: mated_within(b, n - 1))}


def _push_test(board: chess.Board, move: chess.Move, pred) -> bool:
    board.push(move)
    try:
        return pred(board)
    finally:
        board.pop()


@pytest.mark.parametrize("fen", [
    "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1",
    "6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
])
def test_go_mate_2_finds_the_mate_in_2(uci, fen):
    board = chess.Board(fen)
    assert not _mating_first_moves(board, 1)
    mating = _mating_first_moves(board, 2)
    assert mating
    uci.send("position fen " + fen, "go mate 2")
    lines, _ = uci.bestmove(60)
    scores = [parse_info(l)["score"] for l in lines if l.startswith("info") and " score " in l]
    assert scores and scores[-1][:2] == ("mate", 2), f"last score {scores[-1:]} in {lines[-5:]}"
    assert assert_bestmove_legal(lines[-1], board).uci() in mating


def test_searchmoves_restricts_the_best_move(engine):
    # The black queen on d4 hangs to Nxd4; only a3 and h3 may be searched.
    board = chess.Board("rnb1kbnr/pppp1ppp/8/8/3q4/5N2/PPPPPPPP/RNBQKB1R w KQkq - 0 1")
    free = engine.play(board, chess.engine.Limit(depth=4))
    assert free.move == chess.Move.from_uci("f3d4")
    allowed = [chess.Move.from_uci("a2a3"), chess.Move.from_uci("h2h3")]
    res = engine.play(board, chess.engine.Limit(depth=5), root_moves=allowed, info=chess.engine.INFO_PV)
    assert res.move in allowed
    assert res.info.get("pv", [res.move])[0] in allowed


def test_multipv_3_gives_three_distinct_lines(engine):
    board = chess.Board(MIDGAME)
    infos = engine.analyse(board, chess.engine.Limit(depth=6), multipv=3)
    assert len(infos) == 3
    assert [i["multipv"] for i in infos] == [1, 2, 3]
    firsts = [i["pv"][0] for i in infos]
    assert len(set(firsts)) == 3 and all(m in board.legal_moves for m in firsts)
    scores = [i["score"].relative.score(mate_score=100000) for i in infos]
    assert scores == sorted(scores, reverse=True), scores


def test_uci_showwdl_adds_wdl(engine):
    board = chess.Board(MIDGAME)
    assert "wdl" not in engine.analyse(board, chess.engine.Limit(depth=4)), "wdl shown while UCI_ShowWDL is off"
    engine.configure({"UCI_ShowWDL": True})
    info = engine.analyse(board, chess.engine.Limit(depth=4))
    assert "wdl" in info, info
    wdl = info["wdl"].relative
    assert min(wdl) >= 0 and wdl.total() == 1000, wdl


@pytest.mark.parametrize("fen,depth,nodes,chess960", [
    (None, 4, 197281, False),
    (KIWIPETE, 3, 97862, False),
    ("rkqnrbbn/p2p1pp1/8/1pp1p2p/3P1P1P/6N1/PPP1P1P1/RKQNRBB1 w EAea - 0 5", 2, None, True),
])
def test_go_perft_counts_and_divides(uci, fen, depth, nodes, chess960):
    board = chess.Board(fen, chess960=chess960) if fen else chess.Board()
    if chess960:
        uci.send("setoption name UCI_Chess960 value true")
        nodes = sum(_perft(board, depth - 1, m) for m in board.legal_moves)
    uci.send(f"position fen {fen}" if fen else "position startpos", f"go perft {depth}")
    lines = uci.lines_until(lambda l: l.startswith("Nodes searched"), 60, "Nodes searched")
    assert lines[-1] == f"Nodes searched: {nodes}"
    divide = dict(m.groups() for l in lines if (m := re.fullmatch(r"(\w{4,5}): (\d+)", l.strip())))
    assert set(divide) == {m.uci() for m in board.legal_moves}       # castling e1g1, or king-takes-rook in 960
    assert sum(map(int, divide.values())) == nodes


def _perft(board: chess.Board, depth: int, move: chess.Move) -> int:
    board.push(move)
    try:
        if depth == 0:
            return 1
        return sum(_perft(board, depth - 1, m) for m in board.legal_moves)
    finally:
        board.pop()


def test_d_prints_fen_and_keys_that_match(uci):
    rows = [l.split(";") for l in (SHARED / "vectors" / "keys.csv").read_text().splitlines()[1:]]
    rows = [r for r in rows if r[1] == r[2]][:40]        # keys that Stockfish's own `d` also prints
    cases = [(f"position fen {fen}", chess.Board(fen), key) for fen, key, _, _ in rows]
    cases.append(("position startpos", chess.Board(), "8F8F01D4562F59FB"))
    cases.append(("position startpos moves e2e4", board_after(None, "e2e4"), "B46022469E3DD31B"))
    cases.append(("position fen " + KIWIPETE + " moves e1g1 e8c8 a2a4", board_after(KIWIPETE, "e1g1 e8c8 a2a4"), None))
    for cmd, board, key in cases:
        uci.send(cmd)
        d = show(uci)
        assert_same_position(d["Fen"], board)
        assert re.fullmatch(r"[0-9A-F]{16}", d.get("Key", "")), d
        if key is not None:
            assert d["Key"] == key, cmd
        assert d.get("Polyglot key") == f"{chess.polyglot.zobrist_hash(board):016x}", cmd


def test_eval_prints_an_evaluation(uci):
    uci.send("position fen " + MIDGAME, "eval")
    out = [l for l in uci.ready() if l.strip()]
    assert out, "eval printed nothing"
    assert not any("unknown" in l.lower() for l in out), out


# ---------------------------------------------------------------------------
# Pondering

def test_ponderhit_turns_the_ponder_search_into_a_move(uci):
    board = board_after(None, "e2e4 e7e5")
    uci.send("setoption name Ponder value true", "position startpos moves e2e4 e7e5",
             "go ponder wtime 2000 btime 2000 winc 0 binc 0")
    time.sleep(0.6)   # longer than a 2-second clock would spend on one move
    assert not any(l.startswith("bestmove") for l in uci.drain()), "bestmove while pondering"
    t0 = uci.send("ponderhit")
    lines, t1 = uci.bestmove(2.5, "bestmove after ponderhit")
    assert t1 - t0 < 2.0
    assert_bestmove_legal(lines[-1], board)


def test_stop_during_ponder_gives_a_bestmove_at_once(uci):
    uci.send("setoption name Ponder value true", "position startpos moves d2d4 d7d5",
             "go ponder wtime 5000 btime 5000")
    time.sleep(0.3)
    t0 = uci.send("stop")
    lines, t1 = uci.bestmove(2)
    assert t1 - t0 < 0.5
    assert_bestmove_legal(lines[-1], board_after(None, "d2d4 d7d5"))


# ---------------------------------------------------------------------------
# Bench

BENCH_LINE = re.compile(r"(\d+) nodes (\d+) nps")


def test_bench_node_count_is_the_same_every_run(exe, uci):
    t = time.monotonic()
    cli = run(exe, "bench", timeout=300)
    cli_time = time.monotonic() - t
    assert cli.returncode == 0, cli.stderr[-2000:]
    last = cli.stdout.strip().splitlines()[-1]
    m = BENCH_LINE.fullmatch(last.strip())
    assert m, f"`archivist bench` ends with {last!r}"
    counts = [int(m[1])]
    for _ in range(2):
        uci.send("bench")
        lines = uci.lines_until(lambda l: BENCH_LINE.fullmatch(l.strip()) is not None, max(30, 3 * cli_time), "bench line")
        counts.append(int(BENCH_LINE.fullmatch(lines[-1].strip())[1]))
        assert not [l for l in uci.ready(5) if l.strip()], "output after the bench line"
    assert counts[0] > 0 and len(set(counts)) == 1, f"bench nodes differ: {counts}"


# ---------------------------------------------------------------------------
# Games (gauntlet.play_game keeps the clocks and reports faults)

@pytest.fixture
def player():
    started = []

    def make(name: str, cmd: str, **options) -> gauntlet.Player:
        p = gauntlet.Player(gauntlet.EngineSpec(name, [cmd], {k: str(v) for k, v in options.items()}))
        started.append(p)
        return p

    yield make
    for p in started:
        p.close()


def _assert_clean(game: gauntlet.GameResult) -> None:
    assert game.fault is None, f"{game.fault_kind}: {game.detail}\n{game.pgn()}"
    assert game.result in ("1-0", "0-1", "1/2-1/2")


@pytest.mark.timing
def test_selfplay_games_at_movetime_50_are_clean(exe, player):
    openings = gauntlet.builtin_openings()
    a, b = player("archivist-a", exe), player("archivist-b", exe)
    for opening, (white, black) in zip((openings[0], openings[28]), ((a, b), (b, a))):
        game = gauntlet.play_game(white, black, opening, gauntlet.TimeControl(movetime=0.05),
                                  timemargin=0.3, max_plies=100)
        _assert_clean(game)


@pytest.mark.timing
def test_selfplay_game_at_1s_plus_10ms_does_not_lose_on_time(exe, player):
    a, b = player("archivist-a", exe), player("archivist-b", exe)
    game = gauntlet.play_game(a, b, gauntlet.builtin_openings()[9], gauntlet.TimeControl(1, 0.01))
    _assert_clean(game)


@pytest.mark.timing
def test_game_against_stockfish_skill_0_is_clean(exe, stockfish, player):
    me = player("archivist", exe)
    sf = player("stockfish", stockfish, **{"Skill Level": 0, "Threads": 1, "Hash": 16})
    game = gauntlet.play_game(me, sf, gauntlet.builtin_openings()[35], gauntlet.TimeControl(2, 0.02), max_plies=160)
    _assert_clean(game)
