"""The explorer's reference (explorer_reference.py) held to the written
rules on games made by hand: no binary needed. These pin the oracle itself,
so that test_explorer.py compares the service with the rules and not with
a copy of the service."""
import datetime

import chess
import pytest

import explorer_reference as ref
from explorer_reference import Database

TODAY = datetime.date(2024, 6, 15)  # "tomorrow" is 2024-06-16


def pgn_of(games):
    """PGN text of (tags, movetext) pairs; Result from the movetext's last token unless given."""
    out = []
    for tags, moves in games:
        tags = {"Result": moves.split()[-1], **tags}
        out.append("".join(f'[{k} "{v}"]\n' for k, v in tags.items()) + f"\n{moves}\n")
    return "\n".join(out)


def database(tmp_path, games, **rules):
    pgn = tmp_path / "games.pgn"
    pgn.write_text(pgn_of(games))
    return Database([pgn], today=TODAY, **rules)


def lichess(n, month="2021.03.10", elo=(1500, 1500), tc="180+0", **tags):
    """Tags of a game that passes every import rule: id lichess.org/<n padded to 8>."""
    return {"Site": f"https://lichess.org/{n:0>8}", "WhiteElo": str(elo[0]), "BlackElo": str(elo[1]),
            "UTCDate": month, "TimeControl": tc, "White": f"w{n}", "Black": f"b{n}", **tags}


# -- speed, rating group, ids, dates ----------------------------------------------

@pytest.mark.parametrize("tc, speed", [
    ("?", "correspondence"), ("-", "correspondence"), (None, "correspondence"), ("abc", "correspondence"),
    ("+5", "correspondence"), ("5+", "correspondence"), ("-5+0", "correspondence"),
    ("0+0", "ultraBullet"), ("29+0", "ultraBullet"), ("29", "ultraBullet"), ("30+0", "bullet"),
    ("0+1", "bullet"), ("60+1", "bullet"), ("179", "bullet"), ("180+0", "blitz"), ("479+0", "blitz"),
    ("480", "rapid"), ("600", "rapid"), ("1499+0", "rapid"), ("1500+0", "classical"), ("1460+1", "classical"),
    ("21599+0", "classical"), ("21600+0", "correspondence"), ("25200+0", "correspondence"),
    ("21560+1", "correspondence"),
])
def test_speed_is_base_plus_40_increments_and_unreadable_is_correspondence(tc, speed):
    assert ref.speed_of(tc) == speed


@pytest.mark.parametrize("mean, group", [
    (0, 0), (999, 0), (1000, 1000), (1199, 1000), (1500, 1400), (1999, 1800), (2000, 2000), (2199, 2000),
    (2200, 2200), (2499, 2200), (2500, 2500), (2799, 2500), (2800, 3200), (3000, 3200), (3500, 3200),
])
def test_rating_group_is_the_largest_not_above_and_2800_up_is_3200(mean, group):
    assert ref.group_of(mean) == group


def test_ratings_values_name_one_group_each_and_2500_admits_3200():
    assert ref.groups_named([1500]) == {1400}
    assert ref.groups_named([2800, 3000]) == {3200}
    assert ref.groups_named([0, 999, 2500]) == {0, 2500}
    passes = lambda values: [g for g in ref.GROUPS if ref.group_passes(g, ref.groups_named(values))]  # noqa: E731
    assert passes([2500]) == [2500, 3200]
    assert passes([2800]) == [] and passes([3000]) == []
    assert passes([1500]) == [1400]
    assert passes([2200, 2600]) == [2200, 2500, 3200]
    assert [g for g in ref.GROUPS if ref.group_passes(g, None)] == list(ref.GROUPS)


@pytest.mark.parametrize("values, lowest", [
    (None, 2000), ([2500], 2500), ([2200, 2500], 2200), ([2000, 2200, 2500], 2000),
    ([0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500], 2000), ([2000, 2500], 2500), ([2000, 2200], None),
    ([2200], None), ([2800], None), ([3000], None), ([1600, 1800], None),
])
def test_top_group_walks_down_from_3200_without_a_gap_and_stops_at_2000(values, lowest):
    assert ref.top_group(None if values is None else ref.groups_named(values)) == lowest


def test_id_value_is_base_62_with_the_first_character_least_significant():
    assert ref.id_value("00000000") == 0
    assert ref.id_value("10000000") == 1
    assert ref.id_value("01000000") == 62
    assert ref.id_value("A0000000") == 10 and ref.id_value("a0000000") == 36 and ref.id_value("z0000000") == 61
    assert ref.id_value("0000000z") == 61 * 62 ** 7
    assert ref.id_value("z0000000") < ref.id_value("01000000") < ref.id_value("00000001")


def test_date_comes_from_the_first_of_utcdate_and_date_that_gives_a_year():
    assert ref.date_of({"UTCDate": "2020.05.04", "Date": "2019.01.01"}) == (2020, 5, 4)
    assert ref.date_of({"UTCDate": "2020.??.??", "Date": "2019.01.??"}) == (2020, None, None)
    assert ref.date_of({"UTCDate": "2020.13.01", "Date": "2020.06.01"}) == (2020, None, None)
    assert ref.date_of({"UTCDate": "????.??.??", "Date": "2020.02.15"}) == (2020, 2, 15)
    assert ref.date_of({"UTCDate": "2020.??.??"}) == (2020, None, None)
    assert ref.date_of({"Date": "????.??.??"}) == (None, None, None)


def test_after_tomorrow_compares_the_known_parts_only():
    tomorrow = TODAY + datetime.timedelta(days=1)
    assert ref.after((2024, 6, 17), tomorrow)
    assert not ref.after((2024, 6, 16), tomorrow)
    assert not ref.after((2024, 6, None), tomorrow)
    assert ref.after((2024, 7, None), tomorrow)
    assert ref.after((2025, 1, 1), tomorrow)
    assert not ref.after((2023, 12, 31), tomorrow)


# -- what is indexed ------------------------------------------------------------------

def skip_games():
    """(tags, movetext, reason under Lichess rules, reason under masters rules): each game made for
    the first rule that keeps it out, with later rules broken too."""
    e4 = "1. e4 e5 2. Nf3 Nc6 1-0"
    return [
        (lichess(1, WhiteTitle="BOT", Result="*", WhiteElo="?", UTCDate="????.??.??"), "1. e4 *",
         "not 1-0/0-1/1/2-1/2", "not 1-0/0-1/1/2-1/2"),
        (lichess(2, FEN=chess.STARTING_FEN, BlackTitle="BOT"), e4, "variant or set-up", "variant or set-up"),
        (lichess(3, Variant="Atomic", WhiteElo="?"), e4, "variant or set-up", "variant or set-up"),
        (lichess(4, BlackTitle="BOT", BlackElo="?", UTCDate="????.??.??"), e4, "BOT", "BOT"),
        (lichess(5, WhiteTitle="GM", BlackTitle="BOT"), e4, "BOT", "BOT"),
        (lichess(6, BlackElo="?", UTCDate="????.??.??"), e4, "without both ratings", "without both ratings"),
        ({k: v for k, v in lichess(7).items() if k != "WhiteElo"}, e4, "without both ratings",
         "without both ratings"),
        (lichess(8, UTCDate="2021.??.??", elo=(2100, 2100)), e4, "without a month", "under 2200"),
        (lichess(9, UTCDate="????.??.??", Date="????.??.??", elo=(1000, 3000)), e4, "without a month",
         "without a month"),
        (lichess(10, elo=(2199, 2200), UTCDate="2030.01.01"), e4, None, "under 2200"),
        (lichess(11, elo=(2200, 2200), UTCDate="2024.06.17"), e4, None, "dated after tomorrow"),
        (lichess(12, elo=(2200, 2200), UTCDate="2024.07.??"), e4, None, "dated after tomorrow"),
        (lichess(13, elo=(2200, 2201), UTCDate="2024.06.16"), e4, None, None),
        (lichess(14, elo=(2300, 2400), UTCDate="2024.06.??"), e4, None, None),
        (lichess(15, elo=(2300, 2400)), "1. e4 e5 2. Ke3 Nc6 1-0", "illegal move", "illegal move"),
        (lichess(16, elo=(2100, 2300), WhiteTitle="bot"), e4, None, None),
        # Id 00000006's and 00000015's first copies were not indexed: these are.
        (lichess(6, elo=(2400, 2400)), "1. d4 d5 0-1", None, None),
        (lichess(15, elo=(2400, 2400)), "1. c4 c5 1/2-1/2", None, None),
        (lichess(13, elo=(2400, 2400)), "1. c4 e5 1/2-1/2", "already indexed", "already indexed"),
        # The tags' rules come first: under 2200 before already indexed.
        (lichess(14, elo=(1400, 1400)), "1. c4 e5 1/2-1/2", "already indexed", "under 2200"),
    ]


@pytest.mark.parametrize("masters", [False, True])
def test_each_skipped_game_counts_under_the_first_rule_it_breaks(tmp_path, masters):
    games = skip_games()
    db = database(tmp_path, [(t, m) for t, m, _, _ in games], masters=masters)
    want = dict.fromkeys(ref.SKIP_REASONS, 0)
    indexed = []
    for tags, _, lichess_reason, masters_reason in games:
        reason = masters_reason if masters else lichess_reason
        if reason is None:
            indexed.append(tags["Site"][-8:])
        else:
            want[reason] += 1
    assert db.skipped == want
    assert [g.id for g in db.games] == indexed
    assert db.games_read() == len(games)


def test_all_games_skips_no_game_for_its_title_ratings_or_date(tmp_path):
    games = skip_games()
    db = database(tmp_path, [(t, m) for t, m, _, _ in games], all_games=True, masters=True)
    assert db.skipped == {**dict.fromkeys(ref.SKIP_REASONS, 0), "not 1-0/0-1/1/2-1/2": 1, "variant or set-up": 2,
                          "illegal move": 1, "already indexed": 3}
    by_id = {g.id: g for g in db.games}
    g = by_id["00000004"]  # BOT, Black unrated, no month
    assert (g.eff_white, g.eff_black, g.group, g.month_key, g.year) == (1500, 1500, 1400, 0, None)
    assert by_id["00000008"].month_key == 0 and by_id["00000008"].year == 2021
    no_elo = [(t, m) for t, m in [({"Site": "https://lichess.org/noratin1", "WhiteElo": "?"}, "1. e4 1-0")]]
    db = database(tmp_path, no_elo, all_games=True)
    g = db.games[0]
    assert (g.eff_white, g.eff_black, g.group, g.speed) == (0, 0, 0, "correspondence")
    answer = db.answer("/lichess", {})
    assert answer["moves"][0]["averageRating"] == 0
    assert answer["recentGames"][0]["id"] == "noratin1" and answer["topGames"] == []
    assert db.answer("/lichess", {"since": "2000-01"})["moves"] == []


# -- /lichess: top and recent games, history ------------------------------------------------

def test_top_games_rank_by_speed_score_less_group_then_newest_and_recent_take_the_rest(tmp_path):
    # HIGH_SCORE - group: 0: 2974-3200 = -226; 1: 2533-2200 = 333; 2, 3: 2974-2500 = 474 (3 newer);
    # 4: 4000-3200 = 800; 5: 2974-2000 = 974; 6: 1800, not a candidate without a filter naming it.
    games = [
        (lichess(0, elo=(2900, 2900), tc="180+0", UTCDate="2019.01.01"), "1. e4 1-0"),
        (lichess(1, elo=(2200, 2200), tc="1800+0", UTCDate="2019.01.01"), "1. d4 0-1"),
        (lichess(2, elo=(2500, 2500), tc="180+0", UTCDate="2020.05.01"), "1. e4 1/2-1/2"),
        (lichess(3, elo=(2500, 2500), tc="180+0", UTCDate="2020.06.01"), "1. c4 1-0"),
        (lichess(4, elo=(3000, 3000), tc="-", UTCDate="2021.01.01"), "1. e4 1-0"),
        (lichess(5, elo=(2000, 2000), tc="180+0", UTCDate="2018.01.01"), "1. e4 1-0"),
        (lichess(6, elo=(1800, 1800), tc="180+0", UTCDate="2022.01.01"), "1. Nf3 1-0"),
        (lichess(7, elo=(1000, 1000), tc="180+0", UTCDate="2021.12.01"), "1. e4 0-1"),
        (lichess(8, elo=(1000, 1000), tc="180+0", UTCDate="2021.12.01"), "1. e4 0-1"),
        (lichess(9, elo=(1000, 1000), tc="180+0", UTCDate="2017.12.01"), "1. g3 0-1"),
        (lichess(10, elo=(1000, 1000), tc="180+0", UTCDate="2016.12.01"), "1. b3 0-1"),
    ]
    db = database(tmp_path, games)
    ids = lambda listed: [int(g["id"]) for g in listed]  # noqa: E731
    a = db.answer("/lichess", {})
    assert ids(a["topGames"]) == [0, 1, 3, 2]
    # The others newest first (month, then input order), 8 in all.
    assert ids(a["recentGames"]) == [6, 8, 7, 4]
    assert a["topGames"][0]["uci"] == "e2e4" and a["topGames"][1]["uci"] == "d2d4"
    a = db.answer("/lichess", {"topGames": "1", "recentGames": "2"})
    assert ids(a["topGames"]) == [0] and ids(a["recentGames"]) == [6, 8]
    # topGames=0 still keeps the 4 top games out of the recent ones, and their room.
    a = db.answer("/lichess", {"topGames": "0"})
    assert ids(a["topGames"]) == [] and ids(a["recentGames"]) == [6, 8, 7, 4]
    a = db.answer("/lichess", {"recentGames": "0"})
    assert ids(a["topGames"]) == [0, 1, 3, 2] and a["recentGames"] == []
    # 2500 alone: groups 3200 and 2500 (2800 is never stored).
    a = db.answer("/lichess", {"ratings": "2500"})
    assert ids(a["topGames"]) == [0, 3, 2, 4] and ids(a["recentGames"]) == []
    # 2200 without 2500: no top games; everything is recent.
    a = db.answer("/lichess", {"ratings": "2200,1000"})
    assert a["topGames"] == [] and ids(a["recentGames"]) == [8, 7, 1, 9, 10]
    # ratings=2000,2500 (no 2200): top games of 2500 and 3200 only, game 1 (2200) filtered out.
    a = db.answer("/lichess", {"ratings": "2000,2500"})
    assert ids(a["topGames"]) == [0, 3, 2, 4] and ids(a["recentGames"]) == [5]
    # Neither list wanted: no game on a one-game move either.
    a = db.answer("/lichess", {"topGames": "0", "recentGames": "0"})
    assert a["topGames"] == a["recentGames"] == []
    assert all(m["game"] is None for m in a["moves"])
    a = db.answer("/lichess", {"topGames": "0", "recentGames": "1"})
    assert {m["san"]: m["game"] and m["game"]["id"] for m in a["moves"] if m["san"] in ("d4", "Nf3", "c4")} == \
        {"d4": "00000001", "Nf3": "00000006", "c4": "00000003"}
    assert "history" not in a


def test_history_lists_the_months_any_game_reached_with_the_filtered_counts_and_fills_gaps(tmp_path):
    games = [
        (lichess(1, UTCDate="2020.01.05", tc="180+0"), "1. e4 e5 2. Nf3 1-0"),
        (lichess(2, UTCDate="2020.01.06", tc="180+0"), "1. e4 e5 2. Nf3 0-1"),
        (lichess(3, UTCDate="2020.04.01", tc="60+0"), "1. e4 e5 2. Nf3 1/2-1/2"),  # bullet: a month, no counts
        (lichess(4, UTCDate="2020.05.01", tc="180+0"), "1. d4 d5 2. c4 1-0"),
        (lichess(5, UTCDate="2020.12.01", tc="180+0"), "1. e4 c5 1-0"),
    ]
    db = database(tmp_path, games)

    def history(**params):
        return [(h["month"], h["white"], h["draws"], h["black"])
                for h in db.answer("/lichess", {"history": "true", **params})["history"]]

    zero = lambda m: (m, 0, 0, 0)  # noqa: E731
    # The start position: months 2020-01, -04, -05, -12; the last one left out without `until`.
    assert history() == [("2020-01", 1, 0, 1), zero("2020-02"), zero("2020-03"), ("2020-04", 0, 1, 0),
                         ("2020-05", 1, 0, 0), *map(zero, ("2020-06", "2020-07", "2020-08", "2020-09", "2020-10",
                                                           "2020-11"))]
    assert history(speeds="blitz")[3] == zero("2020-04")
    # Since: zeros from it; until: every month to the last (no trailing zeros after it).
    assert history(since="2019-11", until="2020-06", speeds="blitz") == [
        zero("2019-11"), zero("2019-12"), ("2020-01", 1, 0, 1), zero("2020-02"), zero("2020-03"), zero("2020-04"),
        ("2020-05", 1, 0, 0)]
    assert history(since="2020-02", until="2021-06") == [
        zero("2020-02"), zero("2020-03"), ("2020-04", 0, 1, 0), ("2020-05", 1, 0, 0),
        *map(zero, ("2020-06", "2020-07", "2020-08", "2020-09", "2020-10", "2020-11")), ("2020-12", 1, 0, 0)]
    # After 1. e4 e5: two months, the last dropped; after 1. d4: one, dropped; never reached: none.
    assert history(play="e2e4,e7e5") == [("2020-01", 1, 0, 1), zero("2020-02"), zero("2020-03")]
    assert history(play="e2e4,e7e5", until="2020-04") == [("2020-01", 1, 0, 1), zero("2020-02"), zero("2020-03"),
                                                          ("2020-04", 0, 1, 0)]
    assert history(play="d2d4") == []
    assert history(play="h2h4") == [] and history(play="h2h4", since="2020-01", until="2020-02") == []
    assert history(play="d2d4", since="2020-03") == [zero("2020-03"), zero("2020-04")]


def test_history_of_games_without_a_month_is_empty(tmp_path):
    db = database(tmp_path, [({"White": "a", "Black": "b"}, "1. e4 1-0")], all_games=True)
    assert db.answer("/lichess", {"history": "true", "until": "2030-01"})["history"] == []
    assert db.answer("/lichess", {"history": "true"})["history"] == []


# -- /masters and /player -----------------------------------------------------------

def test_masters_top_games_have_the_largest_rating_sum_then_the_largest_id_value(tmp_path):
    ids = ["z0000000", "01000000", "00000001", "10000000", "20000000"]
    elos = [(2500, 2500), (2500, 2500), (2500, 2500), (2600, 2500), (2300, 2300)]
    games = [(lichess(0, elo=e, UTCDate=f"{2000 + i}.01.01", Site=f"https://lichess.org/{gid}"), "1. e4 1-0")
             for i, (gid, e) in enumerate(zip(ids, elos))]
    games += [(lichess(0, elo=(2200 + i, 2200), UTCDate="2010.05.05", Site=f"https://lichess.org/x{i:07d}"),
               "1. d4 1-0") for i in range(20)]
    db = database(tmp_path, games, masters=True)
    a = db.answer("/masters", {"play": "e2e4"})
    assert a["topGames"] == [] and a["moves"] == []
    a = db.answer("/masters", {})
    top = [g["id"] for g in a["topGames"]]
    assert top[:5] == ["10000000", "00000001", "01000000", "z0000000", "20000000"] and len(top) == 15
    assert top[5:] == [f"x{i:07d}" for i in range(19, 9, -1)]
    assert "recentGames" not in a and "speed" not in a["topGames"][0]
    assert [g["id"] for g in db.answer("/masters", {"topGames": "2"})["topGames"]] == top[:2]
    assert len(db.answer("/masters", {"topGames": "40"})["topGames"]) == 15
    a = db.answer("/masters", {"since": "2001", "until": "2003", "topGames": "0"})
    assert a["topGames"] == [] and [(m["san"], m["game"]) for m in a["moves"]] == [("e4", None)]
    assert a["white"] == 3
    # A one-game move keeps its game whatever topGames is.
    a = db.answer("/masters", {"since": "2004", "topGames": "0"})
    assert [(m["san"], m["game"] and m["game"]["id"]) for m in a["moves"]] == [("d4", None), ("e4", "20000000")]


def test_player_lists_every_move_and_the_8_newest_games_by_month_then_input(tmp_path):
    games = []
    for i, (first, month, event) in enumerate([("e4", "2020.03", "Rated Blitz game"), ("d4", "2021.01", "Casual Blitz game"),
                                               ("c4", "2020.03", "Rated Blitz game"), ("Nf3", "2019.12", "casual"),
                                               ("g3", "2021.01", "Rated Bullet game"), ("b3", "2018.01", "x"),
                                               ("f4", "2018.02", "x"), ("a3", "2018.03", "x"), ("h3", "2018.04", "x"),
                                               ("Nc3", "2018.05", "x"), ("a4", "2018.06", "x"), ("h4", "2018.07", "x"),
                                               ("b4", "2018.08", "x"), ("g4", "2018.09", "x")]):
        games.append((lichess(i, UTCDate=f"{month}.01", White="Zed", Event=event), f"1. {first} 1-0"))
    db = database(tmp_path, games)
    a = db.answer("/player", {"player": "zed", "color": "white"})
    assert len(a["moves"]) == 14 and all(m["game"] for m in a["moves"])
    assert [int(g["id"]) for g in a["recentGames"]] == [4, 1, 2, 0, 3, 13, 12, 11]
    a = db.answer("/player", {"player": "Zed", "color": "white", "modes": "casual", "recentGames": "20"})
    assert [int(g["id"]) for g in a["recentGames"]] == [1, 3]
    assert {g["mode"] for g in a["recentGames"]} == {"casual"}
    a = db.answer("/player", {"player": "Zed", "color": "white", "modes": "rated,casual", "moves": "2",
                              "recentGames": "3"})
    assert len(a["moves"]) == 2 and [int(g["id"]) for g in a["recentGames"]] == [4, 1, 2]
    assert db.answer("/player", {"player": "Zed", "color": "white", "modes": ""})["moves"] == []
    assert db.answer("/player", {"player": "Zed", "color": "black"})["moves"] == []
