"""`book export`, black-box: EPD opening suites and PGN trees from Polyglot,
YACB and PGN input, read back with python-chess."""
import gzip

import chess
import chess.pgn
import chess.polyglot

from conftest import SHARED, run
from test_book_interchange import GNUCHESS_BOOK, SELFPLAY


def epd_boards(text):
    boards = []
    for line in text.splitlines():
        board, ops = chess.Board.from_epd(line)
        assert set(ops) == {"hmvc", "fmvn"}
        assert ops["hmvc"] == board.halfmove_clock and ops["fmvn"] == board.fullmove_number
        boards.append(board)
    return boards


def test_epd_suite_from_a_polyglot_book_holds_its_distinct_positions_at_the_plies(exe, tmp_path):
    out = tmp_path / "suite.epd"
    r = run(exe, "book", "export", GNUCHESS_BOOK, "--out", str(out), "--min-ply", "4", "--max-ply", "4")
    assert r.returncode == 0, r.stderr
    boards = epd_boards(out.read_text())
    assert len(boards) > 50
    assert all(b.fullmove_number == 3 and b.turn == chess.WHITE for b in boards)
    assert len({b.epd() for b in boards}) == len(boards), "duplicates removed"
    # Every position is reached through book moves (python-chess's reader).
    with chess.polyglot.open_reader(GNUCHESS_BOOK) as reader:
        reached, frontier = set(), [chess.Board()]
        for _ in range(4):
            nxt = []
            for b in frontier:
                for e in reader.find_all(b):
                    c = b.copy()
                    c.push(e.move)
                    nxt.append(c)
            frontier = nxt
        reached = {b.epd() for b in frontier}
    assert {b.epd() for b in boards} <= reached
    assert f"{len(boards)} positions" in r.stdout


def test_epd_from_pgn_gzip_and_eval_window(exe, tmp_path):
    plain, packed = tmp_path / "s.epd", tmp_path / "s.epd.gz"
    r = run(exe, "book", "export", str(SELFPLAY), "--out", str(plain), "--min-ply", "6", "--max-ply", "6")
    assert r.returncode == 0, r.stderr
    r = run(exe, "book", "export", str(SELFPLAY), "--out", str(packed), "--min-ply", "6", "--max-ply", "6")
    assert gzip.decompress(packed.read_bytes()).decode() == plain.read_text()
    all_boards = epd_boards(plain.read_text())
    games = []
    with open(SELFPLAY) as f:
        while (g := chess.pgn.read_game(f)) is not None:
            b = g.board()
            for m in list(g.mainline_moves())[:6]:
                b.push(m)
            games.append(b.epd())
    assert {b.epd() for b in all_boards} == set(games)
    windowed = tmp_path / "w.epd"
    r = run(exe, "book", "export", str(SELFPLAY), "--out", str(windowed), "--min-ply", "6", "--max-ply", "6",
            "--eval-nodes", "2000", "--eval-window", "40", timeout=300)
    assert r.returncode == 0, r.stderr
    kept = epd_boards(windowed.read_text())
    assert 0 < len(kept) < len(all_boards)
    assert "within ±25" in r.stdout and "mean" in r.stdout


def test_pgn_tree_holds_every_line_of_the_book(exe, tmp_path):
    book, tree = tmp_path / "b.yacb", tmp_path / "tree.pgn"
    pgn = SHARED / "pgn" / "kasparov-deep-blue-1997.pgn"
    assert run(exe, "book", "build", "--pgn", str(pgn), "--out", str(book), "--min-game", "1", "--max-ply", "8").returncode == 0
    r = run(exe, "book", "export", str(book), "--out", str(tree), "--max-ply", "8")
    assert r.returncode == 0, r.stderr
    with open(tree) as f:
        game = chess.pgn.read_game(f)
    lines = set()

    def walk(node, moves):
        if not node.variations:
            lines.add(tuple(moves))
        for v in node.variations:
            walk(v, moves + [v.move.uci()])

    walk(game, [])
    with open(pgn) as f:
        while (g := chess.pgn.read_game(f)) is not None:
            first = tuple(m.uci() for m in list(g.mainline_moves())[:8])
            assert any(l[: len(first)] == first or first[: len(l)] == l for l in lines), first
