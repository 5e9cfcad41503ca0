#!/usr/bin/env python3
"""Archivist's opening explorer against lila-openingexplorer on the same
games, field for field.

    explorer_compare.py ARCHIVIST GENERATOR LILA IMPORT_LICHESS IMPORT_MASTER
                        [--games 10000] [--seed 5] [--positions 229] [--dir DIR]

LILA is lila-openingexplorer built from its source, IMPORT_LICHESS its
`import-pgn` crate's `import-lichess` and IMPORT_MASTER its
`import-master.py`: lila's own importers, run unmodified (the latter speaks
to localhost:9002, so lila listens there). GENERATOR
(examples/explorer_games) writes --games Lichess-shaped games; lila gets
them through its importers, Archivist through `explorer build` (and
`explorer build --masters` of the games whose mean rating is 2200 or
more, the games lila's masters import takes, each with a `LichessId` tag
that names its Site id, which import-master.py keeps as the id).

Asked of both: `/lichess` for --positions positions (the first 0-16 plies
of the games) under 7 filters, and `/masters` for the positions of the
masters games under 4. Compared: every field of every answer, move order
included, except where lila's order is its hash order: moves with equal
totals and masters games with equal rating sums are compared as sets, and
where such a run of ties is cut by the answer's limit (12 moves, 15
games), which of them lila keeps is its hash order too: that last run is
compared by its length and key only. The
`opening` fields are left out: lila downloads its opening names from
GitHub at start, which this machine cannot reach, so it names none.
`/player` is not compared: lila fetches a player's games from lichess.org.

Prints the counts and the first differences; exits 1 on any difference.
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import chess
import chess.pgn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from explorer_bench import positions  # noqa: E402
from serve_bench import free_port, wait_listening  # noqa: E402

LICHESS_FILTERS = [
    {},
    {"speeds": "blitz"},
    {"speeds": "bullet,rapid", "ratings": "1600,1800"},
    {"ratings": "2200,2500"},
    {"since": "2020-01"},
    {"until": "2018-12", "speeds": "blitz,classical,correspondence"},
    {"topGames": "2", "recentGames": "3", "ratings": "2000,2200,2500"},
]
MASTERS_FILTERS = [{}, {"since": "2019"}, {"until": "2020", "topGames": "5"}, {"topGames": "15"}]


def get(port, path, query):
    url = f"http://127.0.0.1:{port}{path}?{urllib.parse.urlencode(query)}"
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def ties_as_sets(items, key, order):
    """Runs of equal `key` sorted by `order`, so lila's hash order of ties
    compares equal."""
    out, run = [], []
    for item in items:
        if run and key(run[-1]) != key(item):
            out.extend(sorted(run, key=order))
            run = []
        run.append(item)
    out.extend(sorted(run, key=order))
    return out


def cut_ties(items, key, limit):
    """A list cut at `limit` ends in a run of ties of which lila's hash order
    chose which to keep: that run is compared by its length and key only."""
    if len(items) < limit or not items:
        return items, None
    last = key(items[-1])
    kept = [i for i in items if key(i) != last]
    return kept, (last, len(items) - len(kept))


def normal(answer, masters, query):
    if not isinstance(answer, dict):
        return answer
    answer = dict(answer)
    answer.pop("opening", None)
    total = lambda m: m["white"] + m["draws"] + m["black"]  # noqa: E731
    moves = [{k: v for k, v in m.items() if k != "opening"} for m in answer.get("moves", [])]
    moves, answer["moves_cut"] = cut_ties(moves, total, int(query.get("moves", 12)))
    answer["moves"] = ties_as_sets(moves, total, lambda m: m["uci"])
    if masters:
        rating = lambda g: (g.get("white") or {}).get("rating", 0) + (g.get("black") or {}).get("rating", 0)  # noqa: E731
        top, answer["top_cut"] = cut_ties(answer.get("topGames", []), rating, min(int(query.get("topGames", 15)), 15))
        answer["topGames"] = ties_as_sets(top, rating, lambda g: g["id"])
    return answer


def masters_pgn(source, out):
    """The games lila's masters import takes (both ratings, mean 2200 or
    more), each with a LichessId tag that keeps its Site id."""
    kept = 0
    with open(source) as f, open(out, "w") as w:
        while (game := chess.pgn.read_game(f)) is not None:
            h = game.headers
            if h.get("Variant", "Standard") != "Standard" or h.get("Result") not in ("1-0", "0-1", "1/2-1/2"):
                continue
            try:
                mean = (int(h["WhiteElo"]) + int(h["BlackElo"])) // 2
            except (KeyError, ValueError):
                continue
            if mean < 2200:
                continue
            h["LichessId"] = h["Site"].rsplit("/", 1)[-1]
            print(game, file=w, end="\n\n")
            kept += 1
    return kept


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("archivist", "generator", "lila", "import_lichess", "import_master"):
        ap.add_argument(name)
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--positions", type=int, default=229)
    ap.add_argument("--dir")
    args = ap.parse_args()
    work = pathlib.Path(args.dir or tempfile.mkdtemp(prefix="explorer-compare-"))
    work.mkdir(parents=True, exist_ok=True)
    games = work / "games.pgn"
    subprocess.run([args.generator, str(games), str(args.games), str(args.seed)], check=True)
    masters = work / "masters.pgn"
    print(f"{args.games} games; {masters_pgn(games, masters)} of mean rating 2200 or more for /masters", flush=True)

    for kind, pgn in (("lichess", games), ("masters", masters)):
        extra = ["--masters"] if kind == "masters" else []
        subprocess.run([args.archivist, "explorer", "build", "--pgn", str(pgn), "--out", str(work / f"{kind}.axi"),
                        "--threads", "1", *extra], check=True, capture_output=True)
    ours_port = free_port()
    ours = subprocess.Popen([args.archivist, "serve", "--listen", f"127.0.0.1:{ours_port}",
                             "--lichess", str(work / "lichess.axi"), "--masters", str(work / "masters.axi")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    db = work / "lila-db"
    shutil.rmtree(db, ignore_errors=True)
    lila = subprocess.Popen([args.lila, "--db", str(db), "--bind", "127.0.0.1:9002"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        wait_listening(ours_port, ours)
        wait_listening(9002, lila, seconds=120)
        subprocess.run([args.import_lichess, "--endpoint", "http://127.0.0.1:9002", str(games)], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([sys.executable, args.import_master, str(masters)], check=True, stdout=subprocess.DEVNULL)
        questions = [("/lichess", f, q) for f in positions(games, args.positions, args.seed) for q in LICHESS_FILTERS]
        questions += [("/masters", f, q) for f in positions(masters, args.positions, args.seed + 1)
                      for q in MASTERS_FILTERS]
        counts, shown = {}, 0
        for path, fen, q in questions:
            query = {"fen": fen, **q}
            a, b = get(ours_port, path, query), get(9002, path, query)
            masters = path == "/masters"
            same = a[0] == b[0] and normal(a[1], masters, q) == normal(b[1], masters, q)
            c = counts.setdefault(path, [0, 0])
            c[0 if same else 1] += 1
            if not same and shown < 5:
                shown += 1
                print(f"DIFFERENT {path}?{urllib.parse.urlencode(query)}\n  archivist: {a}\n  lila:      {b}")
        for path, (same, differ) in counts.items():
            print(f"{path}: {same} of {same + differ} answers the same")
        sys.exit(1 if any(d for _, d in counts.values()) else 0)
    finally:
        for p in (ours, lila):
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    main()
