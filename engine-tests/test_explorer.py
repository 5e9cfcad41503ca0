"""`archivist explorer build` and `archivist serve --lichess/--masters`:
Lichess's opening-explorer API (`/lichess`, `/masters`, `/player`, the
games' PGN) over PGN databases, every answer held to python-chess's counts
from the PGN itself (explorer_reference.py, written from the rules, not
from the Rust code).

Two databases: a seeded one shaped like a Lichess dump (the example
`explorer_games`: ratings, speeds and dates spread like Lichess's, a few
unfinished games, other variants and repeated ids) and Stockfish's
self-play games (no ratings, dates or time controls; ids made up by the
service). The generated PGN, the indexes and the reference are made once
per run and shared by pytest-xdist's workers; each worker serves them."""
import collections
import concurrent.futures
import contextlib
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
import pytest
import requests

import explorer_reference
from conftest import ROOT, SHARED
from explorer_reference import Database, key

STOCKFISH_PGN = SHARED / "pgn" / "stockfish-selfplay-200.pgn"
GAMES, SEED = 3000, 7

# 20 filter combinations for /lichess: speeds, ratings (2500 alone admits
# 2500, 2800 and 3200; 1500 names the 1400 group), since/until, no top or no
# recent games (a single game's move then has no `game` only without both),
# fewer or more moves, and the caps on topGames/recentGames (4).
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
    {"recentGames": "20"},
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
        "stockfish": ["--pgn", STOCKFISH_PGN, "--out", d / "stockfish.idx"],
    }
    procs = {name: subprocess.Popen([exe, "explorer", "build", *map(str, args)], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for name, args in builds.items()}
    # The reference reads the PGN while the indexes are built.
    data = {"games": Database([pgn]), "stockfish": Database([STOCKFISH_PGN]), "builds": {}}
    for name, p in procs.items():
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, f"explorer build {name}: {out}{err}"
        data["builds"][name] = out + err
    return data


@pytest.fixture(scope="session")
def data(tmp_path_factory, exe):
    """The directory of PGN and indexes ("dir"), the build logs ("builds") and the reference
    databases ("games", "stockfish"). Under pytest-xdist the first worker makes them and the
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
    """The service's ids of the games without a Lichess id, found through the top games at a late
    position of each and matched to the games by their exported PGN. Returns the problems found."""
    client, problems = Client(host), []
    want = {g.index for g in db.games if g.id is None}
    ids = set()
    for gi in sorted(want):
        k = db.games[gi].visits[-1][0]
        fen = db.board(k).fen()
        status, answer = client.answer("/lichess", {"fen": fen, "moves": "0", "recentGames": "0"})
        assert status == 200, answer
        ids.update(g["id"] for g in answer["topGames"])
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

def test_build_indexes_and_skips_the_games_python_chess_counts(data):
    for name in ("games", "stockfish"):
        db = data[name]
        log = data["builds"][name]
        m = re.search(r"(\d+) games read, (\d+) indexed; skipped: (\d+) already indexed, (\d+) not "
                      r"1-0/0-1/1/2-1/2, (\d+) variant or set-up, (\d+) illegal move", log)
        assert m, log
        s = db.skipped
        want = (len(db.games) + sum(s.values()), len(db.games), s["already indexed"], s["result"],
                s["variant or set-up"], s["illegal move"])
        assert tuple(map(int, m.groups())) == want, log
    # The generated data has all three kinds of games that are not indexed.
    s = data["games"].skipped
    assert s["already indexed"] and s["result"] and s["variant or set-up"], s


# -- each rule on games made for it ------------------------------------------------------

def edge_pgn():
    """Games for the rules the generated ones seldom or never meet: repeated ids whose first copy
    is or is not indexed, FEN/variant/illegal games, speed and rating-group boundaries, missing
    ratings and dates, a position reached twice (the last move counts, within 50 plies), castling,
    en passant, mate, players' names in other cases, equal mean ratings."""
    shuffle = " ".join(f"{2 * i + 1}. Nf3 Nf6 {2 * i + 2}. Ng1 Ng8" for i in range(12))
    games = [
        # (tags, movetext)
        ({"Site": "https://lichess.org/edgeGam1", "Result": "1-0", "TimeControl": "29+0", "White": "Alice",
          "Black": "Bob", "WhiteElo": "1500", "BlackElo": "?", "UTCDate": "2019.??.??", "Date": "2019.05.04"},
         "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 5. d3 O-O 1-0"),
        ({"Site": "https://lichess.org/edgeGam1", "Result": "0-1", "TimeControl": "60+0", "White": "Carl",
          "Black": "Dora", "WhiteElo": "1500", "BlackElo": "1500", "Date": "2019.05.05"},
         "1. d4 d5 2. c4 e6 0-1"),
        ({"Site": "https://example.com/games/7", "Result": "1/2-1/2", "TimeControl": "30+0", "White": "Eve",
          "Black": "Finn", "WhiteElo": "?", "BlackElo": "?", "UTCDate": "????.??.??", "Date": "2020.02.15"},
         shuffle + " 25. Nc3 Nc6 26. Nb1 Nb8 27. d4 d5 1/2-1/2"),
        ({"Site": "https://lichess.org/edgeGam2", "Result": "*", "White": "Gus", "Black": "Hal"}, "1. c4 *"),
        ({"Site": "https://lichess.org/edgeGam2", "Result": "0-1", "TimeControl": "0+5", "White": "Gus",
          "Black": "Hal", "WhiteElo": "2600", "BlackElo": "2700", "Date": "2019.??.??"},
         "1. f3 e5 2. g4 Qh4# 0-1"),
        ({"Site": "https://lichess.org/edgeGam3", "Result": "1-0", "SetUp": "1",
          "FEN": "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "White": "Ian", "Black": "Jo"},
         "1. e4 e5 1-0"),
        ({"Site": "https://lichess.org/edgeGam3", "Result": "1-0", "Variant": "Standard", "TimeControl": "479+0",
          "White": "Ian", "Black": "Jo", "WhiteElo": "2499", "BlackElo": "2501", "UTCDate": "2020.13.01",
          "Date": "2020.06.01"},
         "1. e4 Nf6 2. e5 d5 3. exd6 Qxd6 4. Nc3 Qe5+ 1-0"),
        ({"Site": "https://lichess.org/edgeGam4", "Result": "1-0", "Variant": "Atomic", "White": "Kim",
          "Black": "Lea"}, "1. e4 e5 1-0"),
        ({"Site": "https://lichess.org/edgeGam5", "Result": "1-0", "White": "Max", "Black": "Ned"},
         "1. e4 e5 2. Ke3 Nc6 1-0"),
        ({"Site": "https://lichess.org/edgeGam5", "Result": "0-1", "TimeControl": "21599+0", "White": "Max",
          "Black": "Ned", "WhiteElo": "1999", "BlackElo": "abc", "UTCDate": "2021.07.01"},
         "1. e4 e5 2. Ke2 Ke7 0-1"),
        ({"Site": "https://lichess.org/edgeGam6", "Result": "1/2-1/2", "TimeControl": "21600+0", "White": "Olga",
          "Black": "Pia", "WhiteElo": "1000", "BlackElo": "1000", "Date": "0000.01.01"},
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
    ]
    # Zed's 14 games as White, 1. e4 and 14 replies: more moves than 12 after 1. e4, and a score
    # (67.86 %) and a mean opponent rating (1750.54) that are not whole: the performance's
    # interpolation, and 1882 only when the mean is not rounded first (1750 + 131.86).
    replies = ["e5", "c5", "e6", "c6", "d5", "d6", "Nf6", "Nc6", "g6", "b6", "a6", "h6", "f5", "b5"]
    for i, reply in enumerate(replies):
        result = ["1-0", "1-0", "1/2-1/2", "0-1"][i % 4]
        opponent = "?" if i == 3 else str(1501 if i == 0 else 1500 + 37 * i)
        games.append(({"Site": f"https://lichess.org/zedGam{i:02d}", "Result": result,
                       "TimeControl": ["60+0", "180+2", "600+5"][i % 3], "White": "Zed", "Black": f"Opp{i}",
                       "WhiteElo": "1700", "BlackElo": opponent,
                       "UTCDate": f"2022.{i % 12 + 1:02d}.10"}, f"1. e4 {reply} 2. Nf3 {result}"))
    return "\n".join("".join(f'[{k} "{v}"]\n' for k, v in tags.items()) + f"\n{moves}\n" for tags, moves in games)


def test_each_indexing_and_query_rule_on_games_made_for_it(exe, tmp_path):
    pgn = tmp_path / "edge.pgn"
    pgn.write_text(edge_pgn())
    db = Database([pgn])
    assert [g.id for g in db.games][:11] == ["edgeGam1", None, "edgeGam2", "edgeGam3", "edgeGam5", "edgeGam6",
                                             "edgeGam7", "edgeGam8", "edgeGam9", "edgeGm10", "edgeGm11"]
    assert db.skipped == {"result": 1, "variant or set-up": 2, "illegal move": 1, "already indexed": 1}
    for out, extra in (("edge.idx", []), ("edge-masters.idx", ["--masters"])):
        r = subprocess.run([exe, "explorer", "build", "--pgn", str(pgn), "--out", str(tmp_path / out), *extra],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert (f"{len(db.games) + 5} games read, {len(db.games)} indexed; skipped: 1 already indexed, "
                "1 not 1-0/0-1/1/2-1/2, 2 variant or set-up, 1 illegal move") in r.stdout + r.stderr
    with serving(exe, tmp_path / "stderr", "--lichess", tmp_path / "edge.idx",
                 "--masters", tmp_path / "edge-masters.idx") as host:
        assert not learn_made_up_ids(host, db)
        rng = random.Random(55)
        boards = [db.board(k) for k in db.positions]
        for k in rng.sample(list(db.positions), 5):  # and a move on, reached or not
            board = db.board(k)
            board.push(rng.choice(list(board.legal_moves)))
            boards.append(board)
        fens = [{"fen": fen_form(rng, b)} for b in boards] + [{}, {"play": "e2e4,e7e5,g1f3,b8c6,f1c4,g8f6"}]
        queries = [("/lichess", {**f, **c}) for f in fens for c in LICHESS_FILTERS]
        queries += [("/masters", {**f, **c}) for f in fens for c in MASTERS_FILTERS]
        for name in ("Alice", "alice", "ALICE", "Bob", "Eve", "Max", "Ned", "Zed"):
            for color in ("white", "black"):
                queries += [("/player", {"player": name, "color": color, **c}) for c in PLAYER_FILTERS]
        queries += [("/player", {"player": "Alice", "color": "white", "play": "e2e4,e7e5"})]
        for name, color in (("Zed", "white"), ("alice", "white"), ("Alice", "black")):
            queries += [("/player", {"player": name, "color": color, **f, **c}) for f in fens
                        for c in (PLAYER_FILTERS[0], PLAYER_FILTERS[3])]
        check_answers(host, db, queries)


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


# -- /masters -----------------------------------------------------------------------

def test_masters_answers_equal_python_chess_counts(data, games_host):
    db = data["games"]
    check_answers(games_host, db, lichess_queries(db, seed=52, count=400, filters=MASTERS_FILTERS, path="/masters"))


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
    db = data["games"]
    client = Client(games_host)
    rng = random.Random(54)
    # Some games at random, and those whose id the PGN repeats (the first copy was indexed).
    pgn = (data["dir"] / "games.pgn").read_text()
    sites = collections.Counter(re.findall(r'\[Site "[^"]*/([A-Za-z0-9]{8})"\]', pgn))
    sample = rng.sample(db.games, 40) + [g for g in db.games if sites[g.id] > 1]
    assert len(sample) > 40
    for g in sample:
        for route in ("/game/export/", "/masters/pgn/", "/master/pgn/"):
            status, ctype, body = client.get(route + g.id)
            assert status == 200 and ctype.startswith("application/x-chess-pgn"), (route, g.id, status)
            exported = chess.pgn.read_game(io.StringIO(body.decode()))
            assert same_game(body.decode(), g), (route, g.id, body.decode())
            for tag, stored in (("WhiteElo", g.white_elo), ("BlackElo", g.black_elo)):
                assert explorer_reference.elo(exported.headers.get(tag)) == stored, (route, g.id, tag)
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
    assert explorer.get_masters_games(position=sicilian) == db.answer("/masters", {"fen": sicilian})
    got = explorer.get_masters_games(play=["d2d4", "d7d5", "c2c4"], since=2015, top_games=10)
    assert got == db.answer("/masters", {"play": "d2d4,d7d5,c2c4", "since": "2015", "topGames": "10"})
    assert got["opening"]["name"] == "Queen's Gambit"
    name = top_players(db, 1)[0]
    for color in ("white", "black"):
        got = explorer.get_player_games(player=name, color=color)
        assert got == db.answer("/player", {"player": name, "color": color}) and got["moves"]
    g = max(db.games, key=lambda g: (g.mean, g.index))
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
    db = data["games"]
    for path in ("/lichess", "/masters"):
        assert client.answer(path, {}) == (200, db.answer(path, {}))
    # An empty list admits nothing (Lichess's reading); /player ignores `ratings`.
    for params in ({"speeds": ""}, {"ratings": ""}):
        status, answer = client.answer("/lichess", params)
        assert status == 200 and (answer["white"], answer["draws"], answer["black"], answer["moves"]) == (0, 0, 0, []), \
            (params, answer)
    status, _, _ = client.get("/player", {"player": "player0001", "color": "white", "ratings": "abc"})
    assert status == 200
