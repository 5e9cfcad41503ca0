"""The YACB builders, black-box: `book build --format yacb`, `book analyse`,
`book from-tt`, and BookInSearch over UCI."""
from __future__ import annotations

import json
import re

import chess
import chess.pgn

from conftest import ROOT, SHARED, run
from harness import Uci

OPENINGS = ROOT / "books" / "openings.pgn"


def entries(exe, book) -> list[dict]:
    out = run(exe, "book", "dump", str(book), "--json")
    assert out.returncode == 0, out.stderr
    return [json.loads(l) for l in out.stdout.splitlines()]


def probe(exe, book, fen=chess.STARTING_FEN) -> dict:
    out = run(exe, "book", "probe", str(book), "--fen", fen, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def engine_key(exe, board: chess.Board) -> str:
    """The engine key of a position, from `archivist show` (checked against
    ../shared/vectors/keys.csv by the chess-core tests)."""
    out = run(exe, "show", "--fen", board.fen())
    return next(l.split()[1] for l in out.stdout.splitlines() if l.startswith("Key:")).lower()


def test_statistical_book_counts_whites_score_per_position(exe, tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[Result "1-0"]\n\n1. e4 e5 2. Nf3 1-0\n\n[Result "0-1"]\n\n1. e4 c5 0-1\n\n'
                   '[Result "1/2-1/2"]\n\n1. d4 d5 1/2-1/2\n')
    book = tmp_path / "s.yacb"
    out = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(book), "--min-game", "1", "--elo", "-700")
    assert out.returncode == 0, out.stderr
    assert run(exe, "book", "verify", str(book)).returncode == 0
    root = probe(exe, book)
    assert root["entry"] == {"value": 20000, "value_type": "perf", "bound": "exact", "source": "statistical",
                             "elo": -700, "best_move": "e2e4"}
    by_san = {m["san"]: m["entry"] for m in root["moves"]}
    assert by_san["e4"]["value"] == 20000 and by_san["d4"]["value"] == 20000
    # Keys are the engine keys of the games' positions.
    keys = {e["key"] for e in entries(exe, book)}
    b = chess.Board()
    expected = {engine_key(exe, b)}
    for san in ["e4", "e5", "Nf3"]:
        b.push_san(san)
        expected.add(engine_key(exe, b))
    assert expected <= keys and len(keys) == 7


def test_build_infers_yacb_from_the_extension_and_rejects_polyglot_only_flags(exe, tmp_path):
    pgn = SHARED / "pgn" / "kasparov-deep-blue-1997.pgn"
    out = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(tmp_path / "k.yacb"), "--min-game", "1")
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "k.yacb").read_bytes()[:4] == b"YACB"
    bad = run(exe, "book", "build", "--pgn", str(pgn), "--out", str(tmp_path / "k2.yacb"), "--uniform")
    assert bad.returncode != 0 and "Polyglot options" in bad.stderr


def test_analyse_pgn_gives_engine_entries_whose_keys_match_the_positions(exe, tmp_path):
    pgn = tmp_path / "line.pgn"
    pgn.write_text("1. e4 e5 2. Nf3 Nc6 *\n")
    book = tmp_path / "a.yacb"
    out = run(exe, "book", "analyse", str(pgn), "--nodes", "5000", "--out", str(book))
    assert out.returncode == 0, out.stderr
    assert "5 positions analysed at 5000 nodes" in out.stdout
    es = entries(exe, book)
    board = chess.Board()
    keys = [engine_key(exe, board)]
    for san in ["e4", "e5", "Nf3", "Nc6"]:
        board.push_san(san)
        keys.append(engine_key(exe, board))
    assert sorted(keys) == sorted(e["key"] for e in es)
    assert all(e["source"] == "engine" and e["bound"] == "exact" and e["value_type"] == "cp" for e in es)
    assert len({e["elo"] for e in es}) == 1 and es[0]["elo"] < 0
    # Every best move is legal in its position.
    board = chess.Board()
    for san in ["e4", "e5", "Nf3", "Nc6", None]:
        entry = probe(exe, book, board.fen())["entry"]
        assert chess.Move.from_uci(entry["best_move"]) in board.legal_moves
        if san:
            board.push_san(san)


def test_analyse_epd_and_a_yacb_book(exe, tmp_path):
    epd = tmp_path / "p.epd"
    epd.write_text("# two positions and a bad line\n"
                   "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"mate\";\n"
                   "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
                   "not a position\n")
    book = tmp_path / "e.yacb"
    out = run(exe, "book", "analyse", str(epd), "--nodes", "3000", "--out", str(book))
    assert out.returncode == 0, out.stderr
    assert "line 4" in out.stderr and "1 skipped" in out.stdout
    mate = probe(exe, book, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")["entry"]
    assert mate["value_type"] == "dtm" and mate["value"] == 1 and mate["bound"] == "proven"
    assert mate["best_move"] == "d1d8"
    # Re-analysing a YACB book walks it from the start position.
    stats = tmp_path / "s.yacb"
    run(exe, "book", "build", "--pgn", str(OPENINGS), "--out", str(stats), "--min-game", "1", "--max-ply", "3")
    again = tmp_path / "again.yacb"
    out = run(exe, "book", "analyse", str(stats), "--nodes", "2000", "--out", str(again))
    assert out.returncode == 0, out.stderr
    assert len(entries(exe, again)) == len(entries(exe, stats))
    assert {e["key"] for e in entries(exe, again)} == {e["key"] for e in entries(exe, stats)}


def test_from_tt_on_a_table_saved_by_the_engine(exe, tmp_path):
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    hash_file = tmp_path / "h.sftt"
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name Hash File value {hash_file}", f"position fen {fen}", "go depth 12")
    lines, _ = u.bestmove(60)
    best = lines[-1].split()[1]
    score = [l for l in lines if l.startswith("info depth 12 ")][-1]
    u.send("setoption name Save Hash to File")
    u.ready()
    assert u.close() == 0
    book = tmp_path / "t.yacb"
    out = run(exe, "book", "from-tt", str(hash_file), "--out", str(book), "--min-depth", "2")
    assert out.returncode == 0, out.stderr
    assert run(exe, "book", "verify", str(book)).returncode == 0
    root = probe(exe, book, fen)
    assert root["entry"]["source"] == "tt" and root["entry"]["best_move"] == best
    if " cp " in score and " bound" not in score:
        assert root["entry"]["value"] == int(score.split(" cp ")[1].split()[0])
    assert len(root["moves"]) > 5
    # Black to move below the root: every child's best move is legal there.
    board = chess.Board(fen)
    for m in root["moves"]:
        child = board.copy()
        child.push_uci(m["uci"])
        if m["entry"]["best_move"]:
            assert chess.Move.from_uci(m["entry"]["best_move"]) in child.legal_moves
    n_all = len(entries(exe, book))
    deep = tmp_path / "deep.yacb"
    assert run(exe, "book", "from-tt", str(hash_file), "--out", str(deep), "--min-depth", "8").returncode == 0
    assert 0 < len(entries(exe, deep)) < n_all
    # A truncated table is refused with the offset, and nothing is written.
    bad = tmp_path / "bad.sftt"
    bad.write_bytes(hash_file.read_bytes()[:-5])
    out = run(exe, "book", "from-tt", str(bad), "--out", str(tmp_path / "x.yacb"))
    assert out.returncode != 0 and "offset" in out.stderr
    assert not (tmp_path / "x.yacb").exists()


def test_book_in_search_announces_its_elo_rule(exe):
    book = ROOT / "books" / "default.yacb"
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name BookFile value {book}", "setoption name OwnBook value false",
           "setoption name BookInSearch value true", "position startpos moves e2e4", "go nodes 20000")
    lines, _ = u.bestmove(30)
    rule = [l for l in lines if "book in search" in l]
    assert rule and "entries rated" in rule[0]
    assert not any("book move" in l for l in lines), "OwnBook is off: the search runs"
    assert chess.Move.from_uci(lines[-1].split()[1]) in chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").legal_moves
    assert u.close() == 0


def test_default_book_is_valid_and_covers_the_opening_lines(exe):
    book = ROOT / "books" / "default.yacb"
    assert run(exe, "book", "verify", str(book)).returncode == 0
    es = entries(exe, book)
    assert 300 <= len(es) <= 1000
    assert all(e["source"] == "engine" for e in es)
    with open(OPENINGS) as f:
        game = chess.pgn.read_game(f)
    keys = {e["key"] for e in es}
    board = game.board()
    for move in game.mainline_moves():
        assert engine_key(exe, board) in keys
        board.push(move)


def test_default_book_is_what_make_book_builds(exe, tmp_path):
    """`make book` is deterministic (one thread, node-limited, a fresh table
    per position), so the committed book must hold exactly what it builds.
    Every search change changes the values, so a sample of the lines (every
    eighth game of books/openings.pgn, about 60 positions at 250,000 nodes)
    finds a stale book; the whole book takes ten times as long."""
    games = OPENINGS.read_text().split("[Event ")[1:]
    sample = tmp_path / "sample.pgn"
    sample.write_text("".join("[Event " + g for g in games[::8]))
    out = tmp_path / "sample.yacb"
    r = run(exe, "book", "analyse", str(sample), "--nodes", "250000", "--out", str(out), timeout=600)
    assert r.returncode == 0, r.stderr
    assert "elo -867" in r.stdout
    committed = {e["key"]: e for e in entries(exe, ROOT / "books" / "default.yacb")}
    built = entries(exe, out)
    assert len(built) >= 40
    stale = [e for e in built if committed.get(e["key"]) != e]
    assert not stale, f"books/default.yacb is stale: run `make book` and commit it ({len(stale)} entries differ)"


def test_keys_of_an_analysed_book_are_the_vector_keys(exe, tmp_path):
    """../shared/vectors/keys.csv: a book built from its positions holds
    exactly their engine keys (column `zobrist`)."""
    rows = [l.split(";") for l in (SHARED / "vectors" / "keys.csv").read_text().splitlines()[1:151]]
    epd = tmp_path / "v.epd"
    epd.write_text("".join(r[0] + "\n" for r in rows))
    book = tmp_path / "v.yacb"
    out = run(exe, "book", "analyse", str(epd), "--nodes", "300", "--out", str(book))
    assert out.returncode == 0, out.stderr
    playable = {r[1].lower() for r in rows if any(True for _ in chess.Board(r[0]).legal_moves)}
    assert {e["key"] for e in entries(exe, book)} == playable


def _search(exe, book, fen: str, book_in_search: bool) -> tuple[list[str], str]:
    """(info lines without their timings, bestmove) of a fresh engine's
    `go nodes 5000` on `fen`."""
    u = Uci([exe])
    u.handshake()
    u.send(f"setoption name BookFile value {book}", "setoption name OwnBook value false",
           f"setoption name BookInSearch value {'true' if book_in_search else 'false'}",
           "setoption name BookDepth value 40", f"position fen {fen}", "go nodes 5000")
    lines, _ = u.bestmove(30)
    assert u.close() == 0
    untimed = [re.sub(r" (nps|time) \d+", "", l) for l in lines if l.startswith("info")]
    return untimed, lines[-1]


def test_book_in_search_counts_book_depth_from_the_fen_move_number(exe, tmp_path):
    """BookDepth 40 means the first 40 plies of the game: after `position fen`
    of a move-30 position BookInSearch is off, exactly as OwnBook is, while
    the same position at move 10 searches with the book."""
    late = "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 30"
    early = late.replace(" 0 30", " 0 10")
    # A trusted book: the position and every child, analysed deeper (50k
    # nodes) than the test's searches (5k nodes), so every entry is rated
    # above the searches' own elo.
    board = chess.Board(late)
    fens = [board.fen()]
    for m in board.legal_moves:
        board.push(m)
        fens.append(board.fen())
        board.pop()
    epd = tmp_path / "late.epd"
    epd.write_text("\n".join(fens) + "\n")
    book = tmp_path / "late.yacb"
    r = run(exe, "book", "analyse", str(epd), "--nodes", "50000", "--out", str(book), timeout=300)
    assert r.returncode == 0, r.stderr

    early_with, _ = _search(exe, book, early, True)
    early_without, _ = _search(exe, book, early, False)
    assert any("book in search" in l for l in early_with)
    searched = lambda infos: [l for l in infos if l.startswith("info depth")]
    assert searched(early_with) != searched(early_without), "within BookDepth the trusted entries change the search"

    late_with, late_move = _search(exe, book, late, True)
    late_without, late_move_without = _search(exe, book, late, False)
    assert not any("book in search" in l for l in late_with), late_with
    assert searched(late_with) == searched(late_without)
    assert late_move == late_move_without
