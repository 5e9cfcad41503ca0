"""Book interchange through the binary: `book build` against Debian's real
`polyglot make-book`, `book probe` against python-chess, `book convert`."""
import json
import random
import shutil
import subprocess

import chess
import chess.pgn
import chess.polyglot
import pytest

from conftest import SHARED, run

POLYGLOT = shutil.which("polyglot") or "/usr/games/polyglot"
GNUCHESS_BOOK = "/usr/share/games/gnuchess/book.bin"
SELFPLAY = SHARED / "pgn" / "stockfish-selfplay-200.pgn"

OPTION_SETS = [
    [],
    ["-max-ply", "20"],
    ["-min-game", "1"],
    ["-min-game", "5"],
    ["-min-score", "50"],
    ["-only-white"],
    ["-only-black"],
    ["-uniform"],
    ["-min-game", "1", "-uniform"],
    ["-min-game", "1", "-min-score", "75"],
    ["-min-game", "1", "-max-ply", "30", "-only-white"],
    ["-max-ply", "16", "-min-game", "2", "-min-score", "40", "-only-black", "-uniform"],
]


def make_book(pgn, out, options, cwd):
    """Debian's polyglot make-book (it prints progress; it exits non-zero on errors)."""
    subprocess.run([POLYGLOT, "make-book", "-pgn", str(pgn), "-bin", str(out), *options],
                   check=True, capture_output=True, cwd=cwd, timeout=300)


def ours(options):
    return [("-" + o) if o.startswith("-") else o for o in options]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: " ".join(o) or "defaults")
def test_build_is_byte_identical_to_polyglot_make_book(exe, tmp_path, options):
    real, mine = tmp_path / "real.bin", tmp_path / "ours.bin"
    make_book(SELFPLAY, real, options, tmp_path)
    r = run(exe, "book", "build", "--format", "polyglot", "--pgn", str(SELFPLAY), "--out", str(mine), *ours(options))
    assert r.returncode == 0, r.stderr
    assert real.stat().st_size > 0
    assert mine.read_bytes() == real.read_bytes()


def test_build_halves_counts_at_16384_as_make_book(exe, tmp_path):
    rng = random.Random(7)
    lines = ["1. e4 e5 2. Nf3 Nc6", "1. e4 c5 2. Nf3 d6", "1. e4 e5 2. Bc4 Nf6", "1. d4 Nf6"]
    games = []
    for i in range(21000):
        result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
        line = lines[3] if i % 50 == 0 else rng.choice(lines[:3])
        games.append(f'[Event "x"]\n[Result "{result}"]\n\n{line} {result}\n')
    pgn = tmp_path / "many.pgn"
    pgn.write_text("\n".join(games))
    real, mine = tmp_path / "real.bin", tmp_path / "ours.bin"
    make_book(pgn, real, ["-min-game", "1"], tmp_path)
    r = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(mine), "--min-game", "1")
    assert r.returncode == 0, r.stderr
    assert mine.read_bytes() == real.read_bytes()
    with chess.polyglot.open_reader(mine) as reader:
        e4 = reader.find(chess.Board())
    assert e4.move.uci() == "e2e4" and e4.weight < 2 * 16384, "1.e4 was played 20,580 times: halved"


def test_build_reports_illegal_moves_and_skips_the_game(exe, tmp_path):
    good = '[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n'
    bad = '[Result "1-0"]\n\n1. e4 e5 2. Ke3 Nc6 1-0\n'
    pgn, clean = tmp_path / "games.pgn", tmp_path / "clean.pgn"
    pgn.write_text(good + "\n" + bad + "\n" + good)
    clean.write_text(good + "\n" + good)
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    r = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(a), "--min-game", "1")
    assert r.returncode == 0
    assert "game 2" in r.stderr and "ply 3" in r.stderr and "Ke3" in r.stderr
    assert "3 games, 1 skipped" in r.stdout
    run(exe, "book", "build", "--pgn", str(clean), "--out", str(b), "--min-game", "1")
    assert a.read_bytes() == b.read_bytes()


def test_build_honours_fen_tags_and_chess960(exe, tmp_path):
    pgn = SHARED / "pgn" / "cutechess-fischerrandom.pgn"
    out = tmp_path / "frc.bin"
    r = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(out), "--min-game", "1")
    assert r.returncode == 0 and "0 skipped" in r.stdout, r.stderr
    checked = 0
    with open(pgn) as f, chess.polyglot.open_reader(out) as reader:
        while (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            assert board.chess960
            white = {"1-0": 1, "0-1": -1}.get(game.headers["Result"], 0)
            for move in game.mainline_moves():
                mover = white if board.turn == chess.WHITE else -white
                if mover >= 0:  # moves that scored stay in the book
                    assert move in [e.move for e in reader.find_all(board)], (board.fen(), move)
                    checked += 1
                board.push(move)
    assert checked > 100


def probe(exe, book, fen, *extra):
    r = run(exe, "book", "probe", str(book), "--fen", fen, "--json", *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_probe_json_matches_python_chess(exe):
    rng = random.Random(3)
    fens = [chess.STARTING_FEN]
    with chess.polyglot.open_reader(GNUCHESS_BOOK) as reader:
        board = chess.Board()
        while len(fens) < 40:
            entries = list(reader.find_all(board))
            if not entries or board.is_game_over():
                board = chess.Board()
                continue
            board.push(rng.choice(entries).move)
            fens.append(board.fen())
        for fen in fens:
            board = chess.Board(fen)
            out = probe(exe, GNUCHESS_BOOK, fen)
            assert list(out) == ["fen", "key", "format", "entry", "moves"]
            assert out["key"] == f"{chess.polyglot.zobrist_hash(board):016x}"
            assert out["format"] == "polyglot" and out["entry"] is None
            want = [(e.move.uci(), board.san(e.move), e.weight, e.learn)
                    for e in reader.find_all(board, minimum_weight=0)]
            got = [(m["uci"], m["san"], m["weight"], m["learn"]) for m in out["moves"]]
            assert got == want, fen
            assert all(m["entry"] is None for m in out["moves"])


def test_probe_writes_castling_in_standard_uci(exe, tmp_path):
    board = chess.Board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    key = chess.polyglot.zobrist_hash(board)
    book = tmp_path / "c.bin"
    e1h1 = 4 << 6 | 7
    book.write_bytes(key.to_bytes(8, "big") + e1h1.to_bytes(2, "big") + (5).to_bytes(2, "big") + bytes(4))
    out = probe(exe, book, board.fen())
    assert [(m["uci"], m["san"]) for m in out["moves"]] == [("e1g1", "O-O")]


def test_bad_polyglot_files_are_rejected_with_the_offset(exe, tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(bytes(17))
    r = run(exe, "book", "probe", str(bad))
    assert r.returncode != 0 and "multiple of 16" in r.stderr
    unsorted = (2).to_bytes(8, "big") + bytes(8) + (1).to_bytes(8, "big") + bytes(8)
    bad.write_bytes(unsorted)
    r = run(exe, "book", "probe", str(bad))
    assert r.returncode != 0 and "entry 1 at offset 16" in r.stderr


def test_convert_round_trips_the_gnuchess_book(exe, tmp_path):
    sbob, js, back = tmp_path / "g.sbob", tmp_path / "g.json", tmp_path / "g.bin"
    r = run(exe, "book", "convert", GNUCHESS_BOOK, str(sbob))
    assert r.returncode == 0, r.stderr
    assert "not reachable" in r.stdout
    assert run(exe, "book", "convert", str(sbob), str(js)).returncode == 0
    r = run(exe, "book", "convert", str(js), str(back), "--to", "polyglot")
    assert r.returncode == 0, r.stderr
    with chess.polyglot.open_reader(GNUCHESS_BOOK) as original, chess.polyglot.open_reader(back) as converted:
        kept = {(e.key, e.raw_move, e.weight) for e in converted}
        assert kept <= {(e.key, e.raw_move, e.weight) for e in original}
        assert len(kept) == len(converted) > 150_000
    data = json.loads(js.read_text())
    start = data["positions"][chess.STARTING_FEN]["moves"]
    assert {m["move_notation"] for m in start} >= {"e4", "d4"}
    # sbob -> json -> sbob is byte for byte.
    again = tmp_path / "again.sbob"
    assert run(exe, "book", "convert", str(js), str(again)).returncode == 0
    assert again.read_bytes() == sbob.read_bytes()


def test_convert_help_states_what_each_direction_keeps_and_drops(exe):
    out = run(exe, "book", "convert", "--help").stdout
    for phrase in ["polyglot -> sbob|json", "sbob|json -> polyglot", "sbob -> json", "json -> sbob",
                   "learn", "opening_name", "clamped to 1..65535"]:
        assert phrase in out, phrase


def test_chess960_polyglot_keys_match_python_chess(exe):
    """Castling rights hash by side (RandomCastle[0..4]) in Chess960 too, as
    python-chess and xboard do; the seed's 16-entry table was never published."""
    rows = [l.split(";") for l in (SHARED / "vectors" / "keys960.csv").read_text().splitlines()[1:300]]
    fens = [r[0] for r in rows]
    out = run(exe, "show", "--chess960", stdin="\n".join(fens) + "\n").stdout
    keys = [l.split(": ")[1] for l in out.splitlines() if l.startswith("Polyglot key:")]
    assert len(keys) == len(fens)
    with_rights = 0
    for fen, key in zip(fens, keys):
        board = chess.Board(fen, chess960=True)
        assert key == f"{chess.polyglot.zobrist_hash(board):016x}", fen
        with_rights += board.castling_rights != 0
    assert with_rights > 50
