"""The match runner (gauntlet.py) itself, with a scripted fake engine: quick,
no real engine needed. The real games are in test_uci.py and `make gauntlet`."""
import math
import pathlib
import sys

import chess
import chess.pgn
import pytest

import gauntlet as g

FAKE = str(pathlib.Path(__file__).resolve().parent / "fake_engine.py")


def fake(name: str, *args: str, **options: str) -> g.EngineSpec:
    return g.EngineSpec(name, [sys.executable, FAKE, *args], dict(options))


@pytest.fixture
def players():
    started = []

    def make(name, *args, **options):
        p = g.Player(fake(name, *args, **options))
        started.append(p)
        return p

    yield make
    for p in started:
        p.close()


def test_builtin_openings_are_fifty_short_distinct_lines():
    openings = g.builtin_openings()
    assert len(openings) >= 50
    assert all(4 <= len(o.moves) <= 8 for o in openings)
    assert len({o.board().epd() for o in openings}) == len(openings)
    assert len({o.name for o in openings}) == len(openings)
    assert not any(o.board().is_game_over(claim_draw=True) for o in openings)


def test_openings_file_reads_fen_san_uci_and_pgn(tmp_path):
    text = tmp_path / "book.txt"
    text.write_text("# comment\n\n1. e4 e5 2. Nf3\nd2d4 g8f6\n"
                    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
                    "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - id \"d4\";\n")
    openings = g.load_openings(str(text))
    assert [o.moves for o in openings[:2]] == [["e2e4", "e7e5", "g1f3"], ["d2d4", "g8f6"]]
    assert openings[2].board().fen() == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert openings[3].board().piece_at(chess.D4) == chess.Piece.from_symbol("P")
    pgn = tmp_path / "book.pgn"
    pgn.write_text('[Opening "French"]\n\n1. e4 e6 2. d4 d5 *\n\n'
                   '[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n[SetUp "1"]\n\n1. e4 Kd7 *\n')
    a, b = g.load_openings(str(pgn))
    assert a.name == "French" and a.moves == ["e2e4", "e7e6", "d2d4", "d7d5"]
    assert b.board().fen() == "8/3k4/8/8/4P3/8/8/4K3 w - - 1 2"
    bad = tmp_path / "bad.txt"
    bad.write_text("e4 e5 Ke3\n")
    with pytest.raises(ValueError, match="bad.txt:1"):
        g.load_openings(str(bad))


@pytest.mark.parametrize("text,expected", [
    ("10+0.1", g.TimeControl(10, 0.1)), ("60", g.TimeControl(60, 0)), ("1+0.01", g.TimeControl(1, 0.01)),
    ("st=0.05", g.TimeControl(movetime=0.05)), ("nodes=5000", g.TimeControl(nodes=5000))])
def test_time_control_parses(text, expected):
    assert g.TimeControl.parse(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "10+x", "0+1", "-5", "st=", "st=0", "40/60", "nodes=0", "nodes=x"])
def test_time_control_rejects_nonsense(text):
    with pytest.raises(ValueError):
        g.TimeControl.parse(text)


def test_opponent_spec_parses_name_command_and_options():
    spec = g.EngineSpec.parse("sf1500=/usr/games/stockfish,UCI_LimitStrength=true,UCI_Elo=1500")
    assert (spec.name, spec.cmd, spec.options) == (
        "sf1500", ["/usr/games/stockfish"], {"UCI_LimitStrength": "true", "UCI_Elo": "1500"})
    spec = g.EngineSpec.parse("/usr/games/glaurung,Threads=1,Skill Level=3")
    assert (spec.name, spec.cmd, spec.options) == ("glaurung", ["/usr/games/glaurung"], {"Threads": "1", "Skill Level": "3"})
    assert g.EngineSpec.parse("x=prog --uci").cmd == ["prog", "--uci"]
    with pytest.raises(ValueError):
        g.EngineSpec.parse("sf=/usr/games/stockfish,Hash")


def test_elo_and_margin_from_results():
    assert g.Tally(5, 10, 5).elo()[0] == 0
    assert g.Tally(3, 0, 1).elo()[0] == pytest.approx(190.85, abs=0.01)      # 75%
    assert g.Tally(1, 0, 3).elo()[0] == pytest.approx(-190.85, abs=0.01)
    # 95% margin from the per-game variance: 100 games at 50% with no draws.
    elo, margin = g.Tally(50, 0, 50).elo()
    assert elo == 0 and margin == pytest.approx(g.elo_from_score(0.5 + 1.959964 * 0.05), rel=1e-6)
    assert g.Tally(50, 0, 50).elo()[1] > g.Tally(30, 40, 30).elo()[1] > g.Tally(300, 400, 300).elo()[1]
    assert g.Tally(4, 0, 0).elo() == (math.inf, math.inf)
    assert g.Tally(0, 0, 4).elo()[0] == -math.inf
    assert g.Tally(0, 0, 0).games == 0 and math.isnan(g.Tally().elo()[0])
    assert g.Tally(10, 0, 0).los() > 0.99 and g.Tally(3, 5, 3).los() == 0.5


def test_engine_spec_takes_its_own_node_count_out_of_the_uci_options():
    spec = g.EngineSpec.parse("sf250k=/usr/games/stockfish,Threads=1,nodes=250000")
    assert spec.nodes == 250000 and spec.options == {"Threads": "1"}
    with pytest.raises(ValueError, match="nodes"):
        g.EngineSpec.parse("x=/bin/true,nodes=lots")


def test_node_limited_game_runs_without_clocks(exe):
    a = g.Player(g.EngineSpec("a", [exe], {"OwnBook": "false"}, nodes=3000))
    b = g.Player(g.EngineSpec("b", [exe], {"OwnBook": "false"}, nodes=6000))
    try:
        game = g.play_game(a, b, g.builtin_openings()[0], g.TimeControl.parse("nodes=1000"), max_plies=6)
    finally:
        a.close()
        b.close()
    assert game.fault is None and len(game.records) == 6
    assert all(r.clock_after is None for r in game.records), "no clocks under nodes="


def test_schedule_plays_each_opening_twice_with_colours_swapped():
    opps = [fake("a"), fake("b")]
    jobs = g.schedule(opps, 6, 50)
    assert [j.number for j in jobs] == list(range(1, 13))
    for opp in opps:
        mine = [j for j in jobs if j.opponent is opp]
        assert len(mine) == 6
        assert [j.engine_white for j in mine] == [True, False] * 3
        assert [j.opening_index for j in mine] == [0, 0, 1, 1, 2, 2]
    assert len(g.schedule(opps, 3, 50)) == 6


def test_clean_game_between_fakes_ends_by_rules_or_ply_limit(players):
    a, b = players("a"), players("b")
    game = g.play_game(a, b, g.builtin_openings()[0], g.TimeControl(5, 0.05), max_plies=30)
    assert game.fault is None
    assert game.result in ("1-0", "0-1", "1/2-1/2")
    assert len(game.records) <= 30 and game.plies == len(game.records) + 6
    assert game.board.move_stack[:6] == g.builtin_openings()[0].board().move_stack
    pgn = str(game.pgn(round_="1"))
    assert '[White "a"]' in pgn and "{ book }" in pgn and "+0.00/1" in pgn


@pytest.mark.parametrize("mode,kind,termination", [
    ("illegal", "illegal", "illegal move"), ("none", "illegal", "illegal move"),
    ("crash", "crash", "engine crash"), ("slow", "time", "time forfeit"), ("hang", "hang", "time forfeit")])
@pytest.mark.parametrize("bad_side", [chess.WHITE, chess.BLACK])
def test_faulty_engine_loses_the_game(players, mode, kind, termination, bad_side):
    bad = players("bad", "--mode", mode, "--after", "2")
    good = players("good")
    white, black = (bad, good) if bad_side == chess.WHITE else (good, bad)
    game = g.play_game(white, black, g.builtin_openings()[3], g.TimeControl(0.4, 0), hang_grace=0.6)
    assert (game.fault, game.fault_kind, game.termination) == (bad_side, kind, termination)
    assert game.result == ("0-1" if bad_side == chess.WHITE else "1-0")
    assert len(game.records) in (2, 3)    # the bad side's second move is the fault


def test_movetime_game_loses_on_time_past_the_margin(players):
    slow, good = players("slow", "--mode", "slow", "--after", "3"), players("good")
    game = g.play_game(slow, good, g.builtin_openings()[0], g.TimeControl(movetime=0.05), timemargin=0.1)
    assert (game.fault, game.fault_kind) == (chess.WHITE, "time")


def test_resign_adjudication_needs_both_engines_to_agree(players):
    adj = g.Adjudication(resign_cp=1000, resign_plies=6)
    winner, loser = players("w", "--score", "2000"), players("l", "--score", "-2000")
    game = g.play_game(winner, loser, g.builtin_openings()[0], g.TimeControl(5, 0), adjudication=adj)
    assert (game.result, game.termination, len(game.records)) == ("1-0", "adjudication: resign", 6)
    game = g.play_game(loser, winner, g.builtin_openings()[0], g.TimeControl(5, 0), adjudication=adj)
    assert (game.result, game.termination) == ("0-1", "adjudication: resign")
    # Both think they are winning: no adjudication.
    a, b = players("a", "--score", "2000"), players("b", "--score", "2000")
    game = g.play_game(a, b, g.builtin_openings()[0], g.TimeControl(5, 0), adjudication=adj, max_plies=20)
    assert game.termination != "adjudication: resign"


def test_draw_adjudication_only_after_the_move_number(players):
    adj = g.Adjudication(draw_cp=10, draw_plies=10, draw_movenumber=40)
    a, b = players("a"), players("b")
    late = g.Opening("late", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 41", [])
    game = g.play_game(a, b, late, g.TimeControl(5, 0), adjudication=adj)
    assert (game.result, game.termination, len(game.records)) == ("1/2-1/2", "adjudication: draw", 10)
    early = g.Opening("early", "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", [])
    game = g.play_game(a, b, early, g.TimeControl(5, 0), adjudication=adj, max_plies=12)
    assert game.termination != "adjudication: draw"


def test_match_counts_results_restarts_crashed_engines_and_writes_pgn(tmp_path):
    pgn = tmp_path / "out.pgn"
    lines = []
    tallies = g.run_match(fake("me", "--score", "1500"),
                          [fake("crasher", "--mode", "crash", "--after", "2"), fake("resigner", "--score", "-1500")],
                          4, g.TimeControl(5, 0), g.builtin_openings(), concurrency=2, pgn_out=str(pgn),
                          adjudication=g.Adjudication(resign_cp=1000), out=lines.append)
    assert (tallies["crasher"].wins, tallies["crasher"].opp_faults) == (4, 4)   # a new process every game
    assert (tallies["resigner"].wins, tallies["resigner"].faults) == (4, 0)
    games = []
    with open(pgn) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    assert len(games) == 8
    assert sorted(int(x.headers["Round"]) for x in games) == list(range(1, 9))
    assert sum(x.headers["Termination"] == "abandoned" for x in games) == 4
    assert sum(line.startswith("Game ") for line in lines) == 8


def test_cli_prints_a_summary_table(capsys):
    rc = g.main(["--engine", f"{sys.executable} {FAKE} --score 1500", "--engine-name", "me",
                 "--opponent", f"weak={sys.executable} {FAKE} --score -1500,Hash=8,Flag=true",
                 "--games", "2", "--tc", "3+0.01", "--adjudicate"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "weak: FakeEngine (Hash=8, Flag=true)" in out
    row = next(line for line in out.splitlines() if line.startswith("weak "))
    assert row.split()[1:6] == ["2", "2", "0", "0", "100.0%"]
    assert "+inf" in row


def test_cli_rejects_an_unknown_engine_option(capsys):
    rc = g.main(["--engine", f"{sys.executable} {FAKE}", "--opponent", f"x={sys.executable} {FAKE},NoSuch=1"])
    assert rc == 2
    assert "no option 'NoSuch'" in capsys.readouterr().err


def test_game_ends_on_the_third_occurrence_not_on_a_claim_by_move():
    """cutechess-cli's rule: a repetition that could only be claimed by
    playing the repeating move does not end the game."""
    board = chess.Board()
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"]:
        board.push_uci(uci)
    assert board.can_claim_threefold_repetition()
    assert g.game_end(board) is None
    board.push_uci("f6g8")
    assert g.game_end(board) == ("1/2-1/2", "threefold repetition")
    fifty = chess.Board("8/8/4k3/8/8/3K4/8/R7 w - - 99 80")
    assert g.game_end(fifty) is None
    fifty.push_uci("a1a2")
    assert g.game_end(fifty) == ("1/2-1/2", "fifty moves")
