"""`archivist explorer build` and `archivist serve --lichess/--masters`:
Lichess's opening-explorer API (`/lichess`, `/masters`, `/player`, the
games' PGN) over PGN databases, every answer held to python-chess's counts
from the PGN itself (explorer_reference.py, written from the rules, not
from the Rust code).

Two databases: a seeded one shaped like a Lichess dump (the example
`explorer_games`: ratings, speeds and dates spread like Lichess's, a few
unfinished games, other variants, unrated players and repeated ids),
indexed by Lichess's rules and by the masters' (--masters: a mean rating
of 2200 or more), and Stockfish's self-play games (no ratings, dates or
time controls; ids made up by the service), indexed with --all-games. The
generated PGN, the indexes and the reference are made once per run and
shared by pytest-xdist's workers; each worker serves them."""
import collections
import concurrent.futures
import contextlib
import datetime
import difflib
import fcntl
import http.client
import io
import json
import os
import pathlib
import pickle
import random
import re
import subprocess
import threading
import urllib.parse

import berserk
import chess
import chess.pgn
import chess.polyglot
import pytest
import requests

import explorer_reference
from conftest import ROOT, SHARED
from explorer_reference import Database, key

STOCKFISH_PGN = SHARED / "pgn" / "stockfish-selfplay-200.pgn"
GAMES, SEED = 3000, 7

# 24 filter combinations for /lichess: speeds, ratings (2500 alone admits
# 2500 and 3200; 2800 names 3200 and admits nothing; 1500 names the 1400
# group; top games come from 2000 up, from 2200 or 2500 up, or not at all
# by the groups named), since/until, no top or no recent games (a single
# game's move then has no `game` only without both), fewer or more moves,
# top and recent games together at most 8, and the history by month.
LICHESS_FILTERS = [
    {},
    {"speeds": "blitz"},
    {"speeds": "bullet,ultraBullet"},
    {"speeds": "rapid,classical,correspondence"},
    {"ratings": "2500"},
    {"ratings": "2200,2500"},
    {"ratings": "1500"},
    {"ratings": "0,1000,1200"},
    {"ratings": "1600,1800,2000"},
    {"ratings": "2800"},
    {"ratings": "2000,2200,2500,3000"},
    {"since": "2020-01"},
    {"until": "2016-06"},
    {"since": "2018-03", "until": "2021-11"},
    {"topGames": "0"},
    {"recentGames": "0"},
    {"topGames": "0", "recentGames": "0"},
    {"moves": "3"},
    {"moves": "1", "topGames": "2", "recentGames": "1", "variant": "standard"},
    {"speeds": "blitz,rapid", "ratings": "1400,1600", "since": "2019-01", "history": "true"},
    {"speeds": "bullet,blitz,classical", "ratings": "1800,2200", "until": "2023-12", "moves": "30",
     "topGames": "9", "recentGames": "9"},
    {"ratings": "1800,2200,2500", "topGames": "2", "recentGames": "20"},
    {"history": "true"},
    {"history": "true", "speeds": "blitz", "ratings": "2000,2200,2500", "until": "2022-06"},
]
MASTERS_FILTERS = [
    {},
    {"since": "2019"},
    {"until": "2016"},
    {"since": "2015", "until": "2020", "topGames": "3"},
    {"topGames": "0", "moves": "4"},
    {"moves": "2", "topGames": "20"},
]
PLAYER_FILTERS = [
    {},
    {"speeds": "blitz,bullet"},
    {"since": "2019-01"},
    {"until": "2021-12", "recentGames": "2", "moves": "1"},
    {"recentGames": "0"},
    {"recentGames": "20", "modes": "rated"},
    {"modes": "casual"},
    {"modes": "casual,rated", "speeds": "rapid,classical,correspondence", "moves": "3"},
]


# -- the data: made once per run ---------------------------------------------

def explorer_games_binary():
    """The seeded PGN generator (an example): $ARCHIVIST_EXAMPLES, else the newest built one."""
    if os.environ.get("ARCHIVIST_EXAMPLES"):
        candidates = [pathlib.Path(os.environ["ARCHIVIST_EXAMPLES"]) / "explorer_games"]
    else:
        candidates = [ROOT / "target" / p / "examples" / "explorer_games" for p in ("release", "debug")]
    built = [c for c in candidates if os.access(c, os.X_OK)]
    if not built:
        pytest.skip(f"the example explorer_games is not built (cargo build --examples): {candidates}")
    return max(built, key=lambda c: c.stat().st_mtime)


def split_without_shared_ids(pgn: pathlib.Path, a: pathlib.Path, b: pathlib.Path):
    """Split the PGN near its middle, between games, where no Site id is in both halves (shards
    served together do not drop a repeated id; only one index does)."""
    games = re.split(r"\n\n+(?=\[)", pgn.read_text())
    ids = [set(re.findall(r'\[Site "[^"]*/([A-Za-z0-9]{8})"\]', g)) for g in games]
    for cut in sorted(range(1, len(games)), key=lambda i: abs(i - len(games) // 2)):
        if not set().union(*ids[:cut]) & set().union(*ids[cut:]):
            a.write_text("\n\n".join(games[:cut]) + "\n")
            b.write_text("\n\n".join(games[cut:]))
            return cut
    raise AssertionError("no split without a shared id")


def make_data(d: pathlib.Path, exe) -> dict:
    generator = explorer_games_binary()
    pgn = d / "games.pgn"
    subprocess.run([str(generator), str(pgn), str(GAMES), str(SEED)], check=True, capture_output=True, timeout=120)
    split_without_shared_ids(pgn, d / "a.pgn", d / "b.pgn")
    builds = {
        "games": ["--pgn", pgn, "--out", d / "games.idx", "--threads", "2"],
        "masters": ["--pgn", pgn, "--out", d / "masters.idx", "--masters"],
        "a": ["--pgn", d / "a.pgn", "--out", d / "a.idx"],
        "b": ["--pgn", d / "b.pgn", "--out", d / "b.idx"],
        "stockfish": ["--pgn", STOCKFISH_PGN, "--out", d / "stockfish.idx", "--all-games"],
    }
    procs = {name: subprocess.Popen([exe, "explorer", "build", *map(str, args)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for name, args in builds.items()}
    # The reference reads the PGN while the indexes are built.
    data = {"games": Database([pgn]), "masters": Database([pgn], masters=True),
            "stockfish": Database([STOCKFISH_PGN], all_games=True), "builds": {}}
    for name, p in procs.items():
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, f"explorer build {name}: {out}{err}"
        data["builds"][name] = out + err
    return data


@pytest.fixture(scope="session")
def data(tmp_path_factory, exe):
    """The directory of PGN and indexes ("dir"), the build logs ("builds") and the reference
    databases ("games", "masters", "stockfish"). Under pytest-xdist the first worker makes them and the
    others load its pickle."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        d = tmp_path_factory.mktemp("explorer")
        return {**make_data(d, exe), "dir": d}
    root = tmp_path_factory.getbasetemp().parent  # shared by the workers of this run
    d = root / "explorer"
    d.mkdir(exist_ok=True)
    with open(root / "explorer.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (d / "reference.pickle").exists():
            made = make_data(d, exe)
            with open(d / "reference.pickle.part", "wb") as f:
                pickle.dump(made, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.rename(d / "reference.pickle.part", d / "reference.pickle")
    with open(d / "reference.pickle", "rb") as f:
        return {**pickle.load(f), "dir": d}


# -- serving ---------------------------------------------------------------------

@contextlib.contextmanager
def serving(exe, log: pathlib.Path, *args):
    """`archivist serve` on a free port: yields host:port; its standard error goes to log."""
    with open(log, "w") as err:
        p = subprocess.Popen([exe, "serve", "--listen", "127.0.0.1:0", *map(str, args)], stdout=subprocess.PIPE,
                             stderr=err, text=True)
        try:
            line = p.stdout.readline()
            if not line.startswith("listening on "):
                p.kill()
                p.wait()
                raise AssertionError(f"no 'listening on' line: {line!r} {log.read_text()}")
            yield urllib.parse.urlsplit(line.split()[-1]).netloc
            assert p.poll() is None, f"the service stopped: {log.read_text()}"
        finally:
            p.terminate()
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
    assert "panicked" not in log.read_text(), log.read_text()


@pytest.fixture(scope="session")
def games_host(data, exe, tmp_path_factory):
    d = data["dir"]
    with serving(exe, tmp_path_factory.mktemp("serve") / "stderr", "--lichess", d / "games.idx",
                 "--masters", d / "masters.idx") as host:
        yield host


@pytest.fixture(scope="session")
def shards_host(data, exe, tmp_path_factory):
    d = data["dir"]
    with serving(exe, tmp_path_factory.mktemp("serve") / "stderr", "--lichess", d / "a.idx",
                 "--lichess", d / "b.idx") as host:
        yield host


@pytest.fixture(scope="session")
def stockfish(data, exe, tmp_path_factory):
    """(host, reference, problems): the Stockfish games served, the ids the service made up learned
    into the reference by their PGN (every game must have one id of its own)."""
    db = data["stockfish"]
    with serving(exe, tmp_path_factory.mktemp("serve") / "stderr", "--lichess", data["dir"] / "stockfish.idx") as host:
        problems = learn_made_up_ids(host, db)
        yield host, db, problems


class Client:
    """GETs on one persistent connection (opened again if the service closed it while idle)."""

    def __init__(self, host):
        self.host, self.conn = host, None

    def get(self, path, params=None):
        """(status, content type, body) of GET path?params."""
        query = urllib.parse.urlencode(params or {})
        target = f"{path}?{query}" if query else path
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, timeout=60)
            try:
                self.conn.request("GET", target)
                r = self.conn.getresponse()
                return r.status, r.getheader("content-type", ""), r.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise

    def answer(self, path, params):
        """(status, the parsed answer): JSON, or /player's one NDJSON line."""
        status, ctype, body = self.get(path, params)
        if status == 200 and path == "/player":
            assert ctype.startswith("application/x-ndjson"), ctype
            lines = body.decode().splitlines()
            assert len(lines) == 1, body
            return status, json.loads(lines[0])
        assert ctype.startswith("application/json"), (path, params, status, ctype, body[:200])
        return status, json.loads(body)


def learn_made_up_ids(host, db: Database):
    """The service's ids of the games without a Lichess id, found through the top and recent games
    at a late position of each and matched to the games by their exported PGN. Returns the problems
    found."""
    client, problems = Client(host), []
    want = {g.index for g in db.games if g.id is None}
    ids = set()
    for gi in sorted(want):
        k = db.games[gi].visits[-1][0]
        fen = db.board(k).fen()
        status, answer = client.answer("/lichess", {"fen": fen, "moves": "0"})
        assert status == 200, answer
        ids.update(g["id"] for g in answer["topGames"] + answer["recentGames"])
    games = {}
    for gi in want:
        games.setdefault(identity(db.games[gi]), []).append(gi)
    by_game = {}
    for gid in sorted(ids):
        status, ctype, body = client.get(f"/game/export/{gid}")
        if status != 200:
            problems.append(f"/game/export/{gid}: {status}")
            continue
        found = games.get(identity(chess.pgn.read_game(io.StringIO(body.decode()))), [])
        if len(found) != 1:
            problems.append(f"/game/export/{gid} is {len(found)} games")
            continue
        if found[0] in by_game:
            problems.append(f"game #{found[0]} has two ids: {by_game[found[0]]} and {gid}")
        by_game[found[0]] = gid
    problems += [f"game #{gi} ({db.games[gi].white}-{db.games[gi].black}) has no id" for gi in want - set(by_game)]
    db.hash_ids.update(by_game)
    return problems


def identity(game):
    """What an exported game must keep: players, result, every move (of python-chess's or the reference's game)."""
    if isinstance(game, chess.pgn.Game):
        if game.errors:
            return ("errors", tuple(map(str, game.errors)))
        h = game.headers
        return h.get("White"), h.get("Black"), h.get("Result"), tuple(game.mainline_moves())
    return game.white, game.black, game.result, tuple(game.moves)


def same_game(pgn_text, g):
    exported = chess.pgn.read_game(io.StringIO(pgn_text))
    return exported is not None and identity(exported) == identity(g)


# -- the queries -------------------------------------------------------------------

def position_queries(db: Database, rng: random.Random, count: int):
    """`count` position parameter sets: positions many, few and one game reached, a few never
    reached (an empty answer), asked by FEN (full, with underscores, or without the move
    counters), some by an earlier position's FEN and the moves from it (`play`)."""
    many, few, single = [], [], []
    for k, games in db.positions.items():
        (many if len(games) >= 10 else few if len(games) >= 2 else single).append(k)
    never = count // 30
    quota = [count * 3 // 10, count * 35 // 100]
    quota.append(count - never - sum(quota))
    chosen = []
    spare = 0
    for bucket, n in sorted(zip((many, few, single), quota), key=lambda t: len(t[0])):
        take = min(len(bucket), n + spare)
        spare = n + spare - take
        chosen += rng.sample(bucket, take)
    out = []
    for k in chosen:
        games = db.positions[k]
        gi = rng.choice(sorted(games))
        g = db.games[gi]
        ply = next(i for i, (v, _) in enumerate(g.visits) if v == k)
        if ply and rng.random() < 0.2:
            start = ply - rng.randint(1, min(ply, 8))
            board = board_at(g, start)
            fen = fen_form(rng, board)
            play = []
            for m in g.moves[start:ply]:
                # Castling either way: e1g1 or the king taking its rook, e1h1.
                play.append(explorer_reference.king_takes_rook(board, m) if rng.random() < 0.5 else m.uci())
                board.push(m)
            out.append({"fen": fen, "play": ",".join(play)})
        elif ply == 0 and rng.random() < 0.5:
            out.append({})  # the start position by default
        else:
            out.append({"fen": fen_form(rng, db.board(k))})
    reached = list(db.positions)
    while len(out) < count:
        board = db.board(rng.choice(reached))
        move = rng.choice(list(board.legal_moves))
        board.push(move)
        if key(board) not in db.positions:
            out.append({"fen": fen_form(rng, board)})
    return out


def board_at(g, ply):
    board = chess.Board()
    for m in g.moves[:ply]:
        board.push(m)
    return board


def fen_form(rng, board):
    """The board's FEN: whole, with underscores for spaces, without the move counters, or with an
    en passant square even where no capture is legal (the same position)."""
    r = rng.random()
    if r < 0.5:
        return board.fen()
    if r < 0.65:
        return board.fen().replace(" ", "_")
    if r < 0.8:
        return board.epd()
    return board.fen(en_passant="fen")


def check_answers(host, db: Database, queries, threads=3):
    """Every (path, params) asked; the answers compared whole with the reference's."""
    local = threading.local()

    def one(q):
        path, params = q
        if not hasattr(local, "client"):
            local.client = Client(host)
        status, got = local.client.answer(path, params)
        want = db.answer(path, params)
        return None if status == 200 and got == want else (path, params, status, want, got)

    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        bad = [r for r in pool.map(one, queries, chunksize=64) if r is not None]
    assert not bad, mismatch_report(bad, len(queries))


def mismatch_report(bad, total):
    path, params, status, want, got = bad[0]
    by_filter = {}
    for _, p, _, _, _ in bad:
        f = json.dumps({k: v for k, v in p.items() if k not in ("fen", "play")}, sort_keys=True)
        by_filter[f] = by_filter.get(f, 0) + 1
    a = json.dumps(want, indent=1, sort_keys=True).splitlines()
    b = json.dumps(got, indent=1, sort_keys=True).splitlines() if status == 200 else [f"status {status}", str(got)]
    diff = "\n".join(list(difflib.unified_diff(a, b, "python-chess", "archivist", n=4, lineterm=""))[:120])
    counts = "\n".join(f"  {n:5} with {f}" for f, n in sorted(by_filter.items(), key=lambda t: -t[1]))
    return (f"{len(bad)} of {total} answers differ; by filter:\n{counts}\n"
            f"first: GET {path}?{urllib.parse.urlencode(params)}\n{diff}")


def lichess_queries(db, seed, count=1000, filters=LICHESS_FILTERS, path="/lichess"):
    positions = position_queries(db, random.Random(seed), count)
    return [(path, {**p, **f}) for p in positions for f in filters]


# -- indexing ---------------------------------------------------------------------

SUMMARY = re.compile(r"(\d+) games read, (\d+) indexed; skipped: ([^;\n]*); (\d+) input\(s\) damaged")


def build_summary(log):
    """(games read, indexed, {reason: games} in the line's order, inputs damaged) of `explorer
    build`'s summary line. The line names every reason, in explorer_reference.SKIP_REASONS's order:
    "N games read, N indexed; skipped: N already indexed, N not 1-0/0-1/1/2-1/2, N variant or set-up,
    N illegal move, N BOT, N without both ratings, N without a month, N under 2200, N dated after
    tomorrow, N filtered out; N input(s) damaged"."""
    m = SUMMARY.search(log)
    assert m, log
    skipped = {}
    # "N filtered out" may go on with "(N by time control, ...)": the filters' own counts.
    for item in re.sub(r" \([^)]*\)", "", m[3]).split(", "):
        n, reason = item.split(" ", 1)
        skipped[reason] = int(n)
    assert list(skipped) == list(explorer_reference.SKIP_REASONS), m[0]
    return int(m[1]), int(m[2]), skipped, int(m[4])


def test_build_indexes_and_skips_the_games_python_chess_counts(data):
    for name in ("games", "masters", "stockfish"):
        db = data[name]
        assert build_summary(data["builds"][name]) == (db.games_read(), len(db.games), db.skipped, 0), name
    # The generated data has the kinds of games Lichess's rules leave out; the masters' rules leave
    # out most games (under 2200) and none for its date.
    s = data["games"].skipped
    assert all(s[r] for r in ("already indexed", "not 1-0/0-1/1/2-1/2", "variant or set-up",
                              "without both ratings")), s
    assert s["under 2200"] == s["dated after tomorrow"] == s["BOT"] == s["illegal move"] == 0, s
    m = data["masters"].skipped
    assert m["under 2200"] > len(data["masters"].games) > 50 and m["dated after tomorrow"] == 0, m
    # The self-play games (no ratings, no dates) are all indexed with --all-games.
    assert len(data["stockfish"].games) == 200
    # The halves, with no id in both, skip what the whole skips.
    whole = build_summary(data["builds"]["games"])
    halves = [build_summary(data["builds"][h]) for h in "ab"]
    assert (halves[0][0] + halves[1][0], halves[0][1] + halves[1][1]) == whole[:2]
    assert {r: halves[0][2][r] + halves[1][2][r] for r in whole[2]} == whole[2]


# -- each rule on games made for it ------------------------------------------------------

def edge_pgn(today=None):
    """Games for the rules the generated ones seldom or never meet: repeated ids whose first copy
    is or is not indexed, FEN/variant/illegal games, BOTs, one rating or both missing, no month,
    the masters' floor (2200) and date (tomorrow, UTC), speed and rating-group boundaries, a month
    from Date when UTCDate has none, a position reached twice (the last move counts, within 50
    plies), castling, en passant, mate, players' names in other cases, casual games, equal mean
    ratings."""
    today = today or datetime.datetime.now(datetime.timezone.utc).date()
    tomorrow = today + datetime.timedelta(days=1)
    after_tomorrow = tomorrow + datetime.timedelta(days=1)
    next_month = (tomorrow.year + 1, 1) if tomorrow.month == 12 else (tomorrow.year, tomorrow.month + 1)
    shuffle = " ".join(f"{2 * i + 1}. Nf3 Nf6 {2 * i + 2}. Ng1 Ng8" for i in range(12))
    games = [
        # (tags, movetext)
        # Black unrated: not indexed; the next copy of its id is.
        ({"Site": "https://lichess.org/edgeGam1", "Result": "1-0", "TimeControl": "29+0", "White": "Alice",
          "Black": "Bob", "WhiteElo": "1500", "BlackElo": "?", "UTCDate": "2019.??.??", "Date": "2019.05.04"},
         "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O 1-0"),
        ({"Site": "https://lichess.org/edgeGam1", "Result": "0-1", "TimeControl": "60+0", "White": "Carl",
          "Black": "Dora", "WhiteElo": "1500", "BlackElo": "1500", "Date": "2019.05.05"},
         "1. d4 d5 2. c4 e6 0-1"),
        # No Lichess id: one made up; the month from Date.
        ({"Site": "https://example.com/games/7", "Result": "1/2-1/2", "TimeControl": "30+0", "White": "Eve",
          "Black": "Finn", "WhiteElo": "1850", "BlackElo": "1700", "UTCDate": "????.??.??", "Date": "2020.02.15"},
         shuffle + " 25. Nc3 Nc6 26. Nb1 Nb8 27. d4 d5 1/2-1/2"),
        ({"Site": "https://lichess.org/edgeGam2", "Result": "*", "White": "Gus", "Black": "Hal"}, "1. c4 *"),
        # UTCDate without a month, Date with one.
        ({"Site": "https://lichess.org/edgeGam2", "Result": "0-1", "TimeControl": "0+5", "White": "Gus",
          "Black": "Hal", "WhiteElo": "2600", "BlackElo": "2700", "UTCDate": "2019.??.??", "Date": "2019.03.??"},
         "1. f3 e5 2. g4 Qh4# 0-1"),
        ({"Site": "https://lichess.org/edgeGam3", "Result": "1-0", "SetUp": "1",
          "FEN": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "White": "Ian", "Black": "Jo",
          "WhiteElo": "2000", "BlackElo": "2000", "UTCDate": "2020.01.01"},
         "1. e4 e5 1-0"),
        ({"Site": "https://lichess.org/edgeGam3", "Result": "1-0", "Variant": "Standard", "TimeControl": "479+0",
          "White": "Ian", "Black": "Jo", "WhiteElo": "2499", "BlackElo": "2501", "UTCDate": "2020.13.01",
          "Date": "2020.06.01"},
         "1. e4 Nf6 2. e5 d5 3. exd6 Qxd6 4. Nc3 Qe5+ 1-0"),
        ({"Site": "https://lichess.org/edgeGam4", "Result": "1-0", "Variant": "Atomic", "White": "Kim",
          "Black": "Lea", "WhiteElo": "2000", "BlackElo": "2000", "UTCDate": "2020.01.01"}, "1. e4 e5 1-0"),
        # An illegal move (2. Ke3): not indexed; the next copy of its id is.
        ({"Site": "https://lichess.org/edgeGam5", "Result": "1-0", "White": "Max", "Black": "Ned",
          "WhiteElo": "2300", "BlackElo": "2300", "UTCDate": "2021.07.01"},
         "1. e4 e5 2. Ke3 Nc6 1-0"),
        ({"Site": "https://lichess.org/edgeGam5", "Result": "0-1", "TimeControl": "21599+0", "White": "Max",
          "Black": "Ned", "WhiteElo": "1999", "BlackElo": "2001", "UTCDate": "2021.07.01"},
         "1. e4 e5 2. Ke2 Ke7 0-1"),
        ({"Site": "https://lichess.org/edgeGam6", "Result": "1/2-1/2", "TimeControl": "21600+0", "White": "Olga",
          "Black": "Pia", "WhiteElo": "1000", "BlackElo": "1000", "Date": "2021.06.30"},
         "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 1/2-1/2"),
        ({"Site": "https://lichess.org/edgeGam7", "Result": "0-1", "TimeControl": "abc", "White": "Quinn",
          "Black": "ALICE", "WhiteElo": "2800", "BlackElo": "2800", "UTCDate": "2024.12.31"},
         "1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 Nbd7 7. Qc2 c5 8. O-O-O cxd4 0-1"),
        ({"Site": "https://lichess.org/edgeGam8", "Result": "1-0", "TimeControl": "180+0", "White": "Olga",
          "Black": "Pia", "WhiteElo": "1000", "BlackElo": "1000", "UTCDate": "2021.07.15"},
         "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 1-0"),
        ({"Site": "https://lichess.org/edgeGam9", "Result": "1-0", "TimeControl": "1499+0", "White": "alice",
          "Black": "Rob", "WhiteElo": "3300", "BlackElo": "3100", "UTCDate": "2021.07.20"},
         "1. e4 e5 2. Nf3 Nc6 3. Bb5 1-0"),
        ({"Site": "https://lichess.org/edgeGm10", "Result": "1-0", "TimeControl": "1500+0", "White": "Sam",
          "Black": "Tom", "WhiteElo": "999", "BlackElo": "1000", "UTCDate": "2021.07.20"},
         "1. e4 c5 2. Nf3 d6 1-0"),
        ({"Site": "https://lichess.org/edgeGm11", "Result": "0-1", "TimeControl": "1800+0", "White": "Uma",
          "Black": "Alice", "WhiteElo": "2199", "BlackElo": "2201", "UTCDate": "2019.05.30"},
         "1. e4 e5 2. Nf3 Nc6 3. Bc4 Nf6 0-1"),
        # BOTs, whatever else is wrong with the game after the title.
        ({"Site": "https://lichess.org/edgeGm12", "Result": "1-0", "TimeControl": "180+0", "White": "Alice",
          "Black": "Bot1", "BlackTitle": "BOT", "WhiteElo": "2000", "BlackElo": "2000", "UTCDate": "2021.01.01"},
         "1. e4 e5 1-0"),
        ({"Site": "https://lichess.org/edgeGm13", "Result": "0-1", "TimeControl": "180+0", "White": "Bot2",
          "Black": "Bob", "WhiteTitle": "BOT", "WhiteElo": "2000", "BlackElo": "?", "Date": "????.??.??"},
         "1. e4 e5 0-1"),
        # Titled (not BOT), casual, a TimeControl without an increment (600: rapid).
        ({"Event": "Casual Rapid game", "Site": "https://lichess.org/edgeGm14", "Result": "1/2-1/2",
          "TimeControl": "600", "White": "Alice", "Black": "Vera", "WhiteTitle": "GM", "BlackTitle": "IM",
          "WhiteElo": "2650", "BlackElo": "2550", "UTCDate": "2022.02.02"},
         "1. e4 c5 2. Nf3 e6 1/2-1/2"),
        ({"Site": "https://lichess.org/edgeGm15", "Result": "1-0", "TimeControl": "180+0", "White": "Wes",
          "Black": "Xia", "UTCDate": "2021.01.01"}, "1. e4 e5 1-0"),
        # No month: no date at all; a year only.
        ({"Site": "https://lichess.org/edgeGm16", "Result": "1-0", "TimeControl": "180+0", "White": "Wes",
          "Black": "Xia", "WhiteElo": "1500", "BlackElo": "1500", "Date": "????.??.??"}, "1. e4 e5 1-0"),
        ({"Site": "https://lichess.org/edgeGm17", "Result": "1-0", "TimeControl": "180+0", "White": "Wes",
          "Black": "Xia", "WhiteElo": "2300", "BlackElo": "2300", "UTCDate": "2020.??.??"}, "1. e4 e5 1-0"),
        # Masters: a mean of 2199; after tomorrow, tomorrow, both, next month (day unknown).
        ({"Site": "https://lichess.org/edgeGm18", "Result": "1-0", "TimeControl": "-", "White": "Yan",
          "Black": "Zoe", "WhiteElo": "2199", "BlackElo": "2200", "UTCDate": "2022.03.03"},
         "1. d4 Nf6 2. c4 g6 1-0"),
        ({"Site": "https://lichess.org/edgeGm19", "Result": "0-1", "TimeControl": "-", "White": "Yan",
          "Black": "Zoe", "WhiteElo": "2400", "BlackElo": "2400", "UTCDate": after_tomorrow.strftime("%Y.%m.%d")},
         "1. d4 Nf6 2. c4 e6 0-1"),
        ({"Site": "https://lichess.org/edgeGm20", "Result": "1-0", "TimeControl": "-", "White": "Yan",
          "Black": "Zoe", "WhiteElo": "2400", "BlackElo": "2400", "UTCDate": tomorrow.strftime("%Y.%m.%d")},
         "1. d4 Nf6 2. c4 c5 1-0"),
        ({"Site": "https://lichess.org/edgeGm21", "Result": "1-0", "TimeControl": "-", "White": "Yan",
          "Black": "Zoe", "WhiteElo": "2000", "BlackElo": "2000", "UTCDate": after_tomorrow.strftime("%Y.%m.%d")},
         "1. d4 Nf6 2. c4 b6 1-0"),
        ({"Site": "https://lichess.org/edgeGm22", "Result": "1/2-1/2", "TimeControl": "-", "White": "Yan",
          "Black": "Zoe", "WhiteElo": "2300", "BlackElo": "2300", "UTCDate": f"{next_month[0]}.{next_month[1]:02d}.??"},
         "1. d4 Nf6 2. Nf3 1/2-1/2"),
        # Id edgeGm18 again: already indexed by Lichess's rules; the first masters game of it.
        ({"Site": "https://lichess.org/edgeGm18", "Result": "0-1", "TimeControl": "-", "White": "Yan",
          "Black": "Zoe", "WhiteElo": "2500", "BlackElo": "2500", "UTCDate": "2022.03.04"},
         "1. d4 Nf6 2. Bg5 0-1"),
    ]
    # Zed's 14 games as White, 1. e4 and 14 replies: more moves than 12 after 1. e4, and a score
    # (67.86 %) and a mean opponent rating (1740.57) that are not whole: the performance's
    # interpolation, and 1872 only when the mean is not rounded first (1740.57 + 131.86); every
    # fifth game casual.
    replies = ["e5", "c5", "e6", "c6", "d5", "d6", "Nf6", "Nc6", "g6", "b6", "a6", "h6", "f5", "b5"]
    for i, reply in enumerate(replies):
        result = ["1-0", "1-0", "1/2-1/2", "0-1"][i % 4]
        opponent = str(1501 if i == 0 else 1500 + 37 * i)
        speed = ["Bullet", "Blitz", "Rapid"][i % 3]
        games.append(({"Event": f"{'Casual' if i % 5 == 0 else 'Rated'} {speed} game",
                       "Site": f"https://lichess.org/zedGam{i:02d}", "Result": result,
                       "TimeControl": ["60+0", "180+2", "600+5"][i % 3], "White": "Zed", "Black": f"Opp{i}",
                       "WhiteElo": "1700", "BlackElo": opponent,
                       "UTCDate": f"2022.{i % 12 + 1:02d}.10"}, f"1. e4 {reply} 2. Nf3 {result}"))
    return "\n".join("".join(f'[{k} "{v}"]\n' for k, v in tags.items()) + f"\n{moves}\n" for tags, moves in games)


EDGE_LICHESS_IDS = ["edgeGam1", None, "edgeGam5", "edgeGam6", "edgeGam7", "edgeGam8",
                    "edgeGam9", "edgeGm10", "edgeGm11", "edgeGm14", "edgeGm18", "edgeGm19", "edgeGm20", "edgeGm21",
                    "edgeGm22"] + [f"zedGam{i:02d}" for i in range(14)]
EDGE_MASTERS_IDS = ["edgeGam2", "edgeGam3", "edgeGam7", "edgeGam9", "edgeGm11", "edgeGm14", "edgeGm17", "edgeGm20",
                    "edgeGm18"]


def test_each_indexing_and_query_rule_on_games_made_for_it(exe, tmp_path):
    pgn = tmp_path / "edge.pgn"
    pgn.write_text(edge_pgn())
    db, masters = Database([pgn]), Database([pgn], masters=True)
    assert [g.id for g in db.games] == EDGE_LICHESS_IDS
    none = dict.fromkeys(explorer_reference.SKIP_REASONS, 0)
    assert db.skipped == {**none, "already indexed": 1, "not 1-0/0-1/1/2-1/2": 1, "variant or set-up": 2,
                          "illegal move": 1, "BOT": 2, "without both ratings": 2, "without a month": 4}
    assert [g.id for g in masters.games] == EDGE_MASTERS_IDS
    # Under the masters' rules: Zed's 14 games and 8 others under 2200, 2 after tomorrow; the first
    # edgeGm18 (2199) is not a masters game, so its second copy is.
    assert masters.skipped == {**none, "not 1-0/0-1/1/2-1/2": 1, "variant or set-up": 2, "illegal move": 1, "BOT": 2,
                               "without both ratings": 2, "without a month": 1, "under 2200": 8 + 14,
                               "dated after tomorrow": 2}
    assert db.games_read() == masters.games_read() == 28 + 14
    by_id = {g.id: g for g in db.games}
    assert [(by_id[i].speed, by_id[i].group) for i in ("edgeGam5", "edgeGam6", "edgeGam7", "edgeGam9", "edgeGm10",
                                                         "edgeGm11", "edgeGm14", "edgeGm18")] == [
        ("classical", 2000), ("correspondence", 1000), ("correspondence", 3200), ("rapid", 3200),
        ("classical", 0), ("classical", 2200), ("rapid", 2500), ("correspondence", 2000)]
    # The date is the first of UTCDate and Date with a year: UTCDate 2019.??.?? has no month
    # (Date 2019.03.?? is not read), 2020.13.01 neither; a masters game needs only the year.
    masters_by_id = {g.id: g for g in masters.games}
    assert (masters_by_id["edgeGam2"].year, masters_by_id["edgeGam3"].year, db.games[1].month_key) == \
        (2019, 2020, 202002)
    for out, extra, ref in (("edge.idx", [], db), ("edge-masters.idx", ["--masters"], masters)):
        r = subprocess.run([exe, "explorer", "build", "--pgn", str(pgn), "--out", str(tmp_path / out), *extra],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert build_summary(r.stdout + r.stderr) == (ref.games_read(), len(ref.games), ref.skipped, 0), extra
    with serving(exe, tmp_path / "stderr", "--lichess", tmp_path / "edge.idx",
                 "--masters", tmp_path / "edge-masters.idx") as host:
        assert not learn_made_up_ids(host, db)
        rng = random.Random(55)
        boards = [db.board(k) for k in db.positions] + [masters.board(k) for k in masters.positions
                                                        if k not in db.positions]
        for k in rng.sample(list(db.positions), 5):  # and a move on, reached or not
            board = db.board(k)
            board.push(rng.choice(list(board.legal_moves)))
            boards.append(board)
        fens = [{"fen": fen_form(rng, b)} for b in boards] + [{}, {"play": "e2e4,e7e5,g1f3,b8c6,f1c4,g8f6"}]
        queries = [("/lichess", {**f, **c}) for f in fens for c in LICHESS_FILTERS]
        queries += [("/lichess", {**f, "history": "true", **c}) for f in fens[-2:]
                    for c in ({"since": "2019-04"}, {"until": "2022-01"}, {"since": "2021-07", "until": "2030-01"})]
        for name in ("Alice", "alice", "ALICE", "Bob", "Eve", "Max", "Ned", "Zed", "Bot1"):
            for color in ("white", "black"):
                queries += [("/player", {"player": name, "color": color, **c}) for c in PLAYER_FILTERS]
        queries += [("/player", {"player": "Alice", "color": "white", "play": "e2e4,e7e5"})]
        for name, color in (("Zed", "white"), ("alice", "white"), ("Alice", "black")):
            queries += [("/player", {"player": name, "color": color, **f, **c}) for f in fens
                        for c in (PLAYER_FILTERS[0], PLAYER_FILTERS[3])]
        check_answers(host, db, queries)
        check_answers(host, masters, [("/masters", {**f, **c}) for f in fens for c in MASTERS_FILTERS])


# -- one speed model: /lichess?speeds= and book build --time-control ------------------------

# A TimeControl tag (None: no tag) and the speed Lichess gives it.
TIME_CONTROLS = [("?", "correspondence"), ("-", "correspondence"), (None, "correspondence"),
                 ("1+x", "correspondence"), ("21599+0", "classical"), ("21600+0", "correspondence"),
                 ("25200+0", "correspondence"), ("600", "rapid"), ("15+0", "ultraBullet"), ("60+1", "bullet"),
                 ("180+2", "blitz"), ("1460+1", "classical")]
FIRST_MOVES = ["e4", "d4", "c4", "Nf3", "g3", "b3", "f4", "Nc3", "a3", "h3", "e3", "d3"]


def test_speeds_filter_and_book_time_control_class_every_time_control_alike(exe, tmp_path):
    # One game per time control, each with its own first move: the moves at the start position
    # tell which games a speed keeps.
    pgn = tmp_path / "tc.pgn"
    pgn.write_text("\n".join(
        "".join(f'[{k} "{v}"]\n' for k, v in {
            "Site": f"https://lichess.org/timeCt{i:02d}", "Result": "1-0", "White": "W", "Black": "B",
            "WhiteElo": "1800", "BlackElo": "1800", "UTCDate": "2023.04.05",
            **({} if tc is None else {"TimeControl": tc})}.items()) + f"\n1. {FIRST_MOVES[i]} 1-0\n"
        for i, (tc, _) in enumerate(TIME_CONTROLS)))
    db = Database([pgn])
    assert [g.speed for g in db.games] == [speed for _, speed in TIME_CONTROLS]
    index = tmp_path / "tc.idx"
    r = subprocess.run([exe, "explorer", "build", "--pgn", str(pgn), "--out", str(index)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert build_summary(r.stdout + r.stderr)[:2] == (len(TIME_CONTROLS), len(TIME_CONTROLS))
    start = chess.Board()
    with serving(exe, tmp_path / "stderr", "--lichess", index) as host:
        client = Client(host)
        for speed in ("ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"):
            want = {FIRST_MOVES[i] for i, (_, s) in enumerate(TIME_CONTROLS) if s == speed}
            status, answer = client.answer("/lichess", {"speeds": speed})
            assert status == 200 and {m["san"] for m in answer["moves"]} == want, (speed, answer)
            assert answer == db.answer("/lichess", {"speeds": speed})
            book = tmp_path / f"{speed}.bin"
            r = subprocess.run([exe, "book", "build", "--pgn", str(pgn), "--out", str(book), "--min-game", "1",
                                "--uniform", "--time-control", speed.lower()], capture_output=True, text=True,
                               timeout=60)
            assert r.returncode == 0, r.stderr
            assert re.search(fr"\b{len(TIME_CONTROLS)} games read, {len(want)} kept, "
                             fr"{len(TIME_CONTROLS) - len(want)} filtered out\b", r.stderr), (speed, r.stderr)
            with chess.polyglot.open_reader(book) as reader:
                kept = {start.san(e.move) for e in reader.find_all(start, minimum_weight=0)}
            assert kept == want, speed


# -- /lichess -----------------------------------------------------------------------

def test_lichess_answers_equal_python_chess_counts_on_generated_games(data, games_host):
    check_answers(games_host, data["games"], lichess_queries(data["games"], seed=48))


def test_lichess_answers_equal_python_chess_counts_on_unrated_undated_stockfish_games(stockfish):
    host, db, problems = stockfish
    check_answers(host, db, lichess_queries(db, seed=49))


def test_games_without_a_lichess_id_get_one_id_each_and_export_their_pgn(stockfish):
    host, db, problems = stockfish
    assert not problems, problems
    assert len(set(db.hash_ids.values())) == len(db.games) == 200


def test_shards_served_together_answer_as_the_single_index(data, games_host, shards_host):
    db = data["games"]
    queries = lichess_queries(db, seed=50, count=150, filters=LICHESS_FILTERS[::4])
    queries += player_queries(db, top_players(db, 1)[0], random.Random(51), 2, PLAYER_FILTERS[:2])
    check_answers(shards_host, db, queries)
    single, shards = Client(games_host), Client(shards_host)
    for path, params in queries[::7]:
        assert single.answer(path, params) == shards.answer(path, params), (path, params)


def test_kept_answers_equal_those_of_a_service_without_the_cache(data, exe, games_host, tmp_path):
    """The response cache (on by default): each question asked twice (the second answer kept), and
    in other words (lists in another order), answers as `--explorer-cache-mb 0`."""
    queries = lichess_queries(data["games"], seed=53, count=60, filters=LICHESS_FILTERS[::2])
    queries += lichess_queries(data["masters"], seed=54, count=30, filters=MASTERS_FILTERS, path="/masters")
    d = data["dir"]
    with serving(exe, tmp_path / "stderr", "--lichess", d / "games.idx", "--masters", d / "masters.idx",
                 "--explorer-cache-mb", "0") as off:
        kept, computed = Client(games_host), Client(off)
        for path, params in queries:
            want = computed.answer(path, params)
            assert want[0] == 200, (path, params, want)
            assert kept.answer(path, params) == want == kept.answer(path, params), (path, params)
            other = {k: ",".join(reversed(v.split(","))) if k in ("speeds", "ratings") else v
                     for k, v in params.items()}
            assert kept.answer(path, other) == want, (path, other)


# -- /masters -----------------------------------------------------------------------

def test_masters_answers_equal_python_chess_counts(data, games_host):
    db = data["masters"]
    check_answers(games_host, db, lichess_queries(db, seed=52, count=400, filters=MASTERS_FILTERS, path="/masters"))


def test_masters_index_holds_only_games_of_a_mean_of_2200_and_up(data, games_host):
    masters, games = data["masters"], data["games"]
    assert all(g.mean >= 2200 for g in masters.games)
    assert [g.id for g in masters.games] == [g.id for g in games.games if g.mean >= 2200]
    client = Client(games_host)
    start = client.answer("/masters", {})[1]
    assert start["white"] + start["draws"] + start["black"] == len(masters.games)
    # The top games: the largest rating sums, fifteen of them.
    sums = sorted((g.eff_white + g.eff_black for g in masters.games), reverse=True)[:15]
    assert [g["white"]["rating"] + g["black"]["rating"] for g in start["topGames"]] == sums


# -- /player ------------------------------------------------------------------------

def top_players(db, n):
    counts = {}
    for g in db.games:
        for name in (g.white, g.black):
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda name: (-counts[name], name))[:n]


def player_queries(db, name, rng, per_color, filters=PLAYER_FILTERS):
    """/player at the start position under `filters`, and at `per_color` positions of the player's
    games (a filter each, the name in capitals every other time), for each colour. (The service
    answers /player in tens of milliseconds: a few queries only.)"""
    out = []
    for color in ("white", "black"):
        games = [g for g in db.games if (g.white if color == "white" else g.black) == name]
        keys = list(dict.fromkeys(k for g in games for k, _ in g.visits[1:]))
        for f in filters:
            out.append(("/player", {"player": name, "color": color, **f}))
        for i, k in enumerate(rng.sample(keys, min(per_color, len(keys)))):
            out.append(("/player", {"player": name.upper() if i % 2 else name, "color": color,
                                    "fen": db.board(k).fen(), **PLAYER_FILTERS[i % len(PLAYER_FILTERS)]}))
    return out


def test_player_answers_equal_python_chess_counts(data, games_host):
    db = data["games"]
    rng = random.Random(53)
    queries = [q for name in top_players(db, 3) for q in player_queries(db, name, rng, 3, PLAYER_FILTERS[:4])]
    queries.append(("/player", {"player": "nobody-at-all", "color": "white"}))
    check_answers(games_host, db, queries)


# -- the games' PGN ---------------------------------------------------------------

def test_game_pgn_routes_export_the_indexed_game_and_404_unknown_ids(data, games_host):
    client = Client(games_host)
    rng = random.Random(54)
    # Some games at random, and those whose id the PGN repeats (the first copy indexed was kept):
    # the Lichess index's by /game/export, the masters index's by /masters/pgn and /master/pgn.
    pgn = (data["dir"] / "games.pgn").read_text()
    sites = collections.Counter(re.findall(r'\[Site "[^"]*/([A-Za-z0-9]{8})"\]', pgn))
    samples = []
    for name, routes in (("games", ("/game/export/",)), ("masters", ("/masters/pgn/", "/master/pgn/"))):
        db = data[name]
        sample = rng.sample(db.games, 40) + [g for g in db.games if sites[g.id] > 1]
        samples += [(g, route) for g in sample for route in routes]
    assert any(sites[g.id] > 1 for g, _ in samples)
    for g, route in samples:
        status, ctype, body = client.get(route + g.id)
        assert status == 200 and ctype.startswith("application/x-chess-pgn"), (route, g.id, status)
        exported = chess.pgn.read_game(io.StringIO(body.decode()))
        assert same_game(body.decode(), g), (route, g.id, body.decode())
        for tag, stored in (("WhiteElo", g.white_elo), ("BlackElo", g.black_elo)):
            assert explorer_reference.elo(exported.headers.get(tag)) == stored, (route, g.id, tag)
    # A game of the Lichess index under 2200 is no masters game.
    g = next(g for g in data["games"].games if g.mean < 2200)
    for route in ("/masters/pgn/", "/master/pgn/"):
        status, ctype, body = client.get(route + g.id)
        assert status == 404, (route, g.id, status)
    for route in ("/game/export/", "/masters/pgn/", "/master/pgn/"):
        for unknown in ("zzzzzzzz", "nope", "12345678"):
            status, ctype, body = client.get(route + unknown)
            assert status == 404 and ctype.startswith("application/json") and json.loads(body)["error"], \
                (route, unknown, status, body)


# -- berserk ------------------------------------------------------------------------

def test_berserk_reads_every_explorer_route_as_python_chess_counts(data, games_host):
    db = data["games"]
    explorer = berserk.Client(session=requests.Session(), explorer_url=f"http://{games_host}").opening_explorer
    sicilian = "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    got = explorer.get_lichess_games(position=sicilian, speeds=["blitz", "rapid"], ratings=["1600", "1800", "2500"],
                                     since="2016-01", until="2023-06", moves=5, top_games=2, recent_games=3)
    assert got == db.answer("/lichess", {"fen": sicilian, "speeds": "blitz,rapid", "ratings": "1600,1800,2500",
                                         "since": "2016-01", "until": "2023-06", "moves": "5", "topGames": "2",
                                         "recentGames": "3"})
    assert got["white"] + got["draws"] + got["black"] > 0
    got = explorer.get_lichess_games(play=["e2e4", "e7e5", "g1f3"])
    assert got == db.answer("/lichess", {"play": "e2e4,e7e5,g1f3"}) and got["opening"]
    masters = data["masters"]
    assert explorer.get_masters_games(position=sicilian) == masters.answer("/masters", {"fen": sicilian})
    got = explorer.get_masters_games(play=["d2d4", "d7d5", "c2c4"], since=2015, top_games=10)
    assert got == masters.answer("/masters", {"play": "d2d4,d7d5,c2c4", "since": "2015", "topGames": "10"})
    assert got["opening"]["name"] == "Queen's Gambit"
    name = top_players(db, 1)[0]
    for color in ("white", "black"):
        got = explorer.get_player_games(player=name, color=color)
        assert got == db.answer("/player", {"player": name, "color": color}) and got["moves"]
    g = max(masters.games, key=lambda g: (g.mean, g.index))
    assert same_game(explorer.get_otb_master_game(g.id), g)


# -- bad requests -----------------------------------------------------------------

BAD = [
    ("/lichess", {"speeds": "warp"}),
    ("/lichess", {"ratings": "abc"}),
    ("/lichess", {"ratings": "-5"}),
    ("/lichess", {"since": "2020-13"}),
    ("/lichess", {"until": "2020-1x"}),
    ("/lichess", {"since": "2020"}),
    ("/lichess", {"play": "e2e5"}),
    ("/lichess", {"play": "e2e4,e2e4"}),
    ("/lichess", {"play": "zz"}),
    ("/lichess", {"fen": "garbage"}),
    ("/lichess", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}),
    ("/lichess", {"variant": "atomic"}),
    ("/lichess", {"moves": "-1"}),
    ("/lichess", {"moves": "many"}),
    ("/lichess", {"topGames": "-1"}),
    ("/lichess", {"recentGames": "x"}),
    ("/masters", {"since": "20x"}),
    ("/masters", {"until": "2020-13"}),
    ("/masters", {"play": "e1e8"}),
    ("/masters", {"fen": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1"}),
    ("/masters", {"topGames": "lots"}),
    ("/player", {"color": "white"}),
    ("/player", {"player": "player0001"}),
    ("/player", {"player": "player0001", "color": "green"}),
    ("/player", {"player": "player0001", "color": "white", "speeds": "warp"}),
    ("/player", {"player": "player0001", "color": "white", "since": "2020-13"}),
    ("/player", {"player": "player0001", "color": "white", "play": "e2e5"}),
    ("/player", {"player": "player0001", "color": "white", "modes": "ranked"}),
    # Lists as Lichess reads them: an empty item is a 400.
    ("/lichess", {"speeds": "blitz,,rapid"}),
    ("/lichess", {"speeds": "blitz,"}),
    ("/lichess", {"ratings": "1500,,2000"}),
    ("/lichess", {"play": "e2e4,,e7e5"}),
]


def test_bad_parameters_get_a_400_with_a_json_error_and_the_service_goes_on(data, games_host):
    client = Client(games_host)
    for path, params in BAD:
        status, ctype, body = client.get(path, params)
        assert status == 400 and ctype.startswith("application/json"), (path, params, status, ctype, body)
        error = json.loads(body)
        assert isinstance(error.get("error"), str) and error["error"], (path, params, body)
    for path, db in (("/lichess", data["games"]), ("/masters", data["masters"])):
        assert client.answer(path, {}) == (200, db.answer(path, {}))
    # An empty list admits nothing (Lichess's reading); /player ignores `ratings`.
    for params in ({"speeds": ""}, {"ratings": ""}):
        status, answer = client.answer("/lichess", params)
        assert status == 200 and (answer["white"], answer["draws"], answer["black"], answer["moves"]) == (0, 0, 0, []), \
            (params, answer)
    status, _, _ = client.get("/player", {"player": "player0001", "color": "white", "ratings": "abc"})
    assert status == 200
