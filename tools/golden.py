#!/usr/bin/env python3
"""Golden-output check for restructuring commits (`No functional change`).

Runs every command a restructuring may touch on committed inputs and
compares what it prints and writes, byte for byte:

    python3 tools/golden.py OLD_BINARY NEW_BINARY   # run both, compare
    python3 tools/golden.py --record BINARY FILE    # keep BINARY's outputs (JSON)
    python3 tools/golden.py --check BINARY FILE     # compare BINARY with FILE

Typical use: build the parent commit and the change, then
`python3 tools/golden.py target-parent/release/archivist
target/release/archivist`; or `--record` once before a series of commits
and `--check` after each. It prints one line per command, `same` or
`DIFFERENT: ...`, and exits 1 on any difference (2 on bad usage).

Inputs are files of the repository (engine-tests/data, books) and, where the
engine tests already use them, ../shared (books/performance.bin, syzygy);
a step whose ../shared input is missing says `skipped`. Each binary runs in
its own temporary directory with relative output names, one thread
(`--threads 1`) and fixed seeds. A step that reads an earlier step's output
(`book convert` reads the built book, `records export` the self-play file)
says so when that input already differs.

Compared: the exit status; stdout and stderr with the timing figures masked
(STREAM_MASKS), a stdout that is JSON (one document, or one per line)
compared parsed, so that key order may change; the explorer's answers
(`serve` asked a fixed list of /lichess, /masters and /player queries over
indexes built from 2,000 generated Lichess-shaped games) compared parsed,
status and body; every file a step creates
(the self-play run log and a training leg's ledger with their command
line and clock fields masked, RUNLOG_MASKS and LEDGER_MASKS). Inputs no file of the repository holds are written into
each run's directory first (INPUTS: an ABK book from Arena's documented
layout). `bench` compares only
the final `N nodes` count, which must also equal the newest `Bench: N` line
of `git log`. `selfplay` gets `--hash 16` because its default hash follows
the node limit since 3dd1524.
"""

import argparse
import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
DATA = ROOT / "engine-tests" / "data"
SF200 = DATA / "shared" / "pgn" / "stockfish-selfplay-200.pgn"
SYZYGY = SHARED / "syzygy"

# Timing figures in stdout/stderr: elapsed times, speeds, shares of time.
STREAM_MASKS = [
    (r"\d+(\.\d+)? ?[\w.]+/s\b", "<rate>"),          # 2.3 MB/s, 408 positions/s
    (r"\d+ nps\b", "<nps>"),
    (r"\d+(\.\d+)? ?(ms|s)\b", "<time>"),             # 0.08 s, 102 ms
    (r"Total time \(ms\) : \d+", "Total time (ms) : <time>"),
    (r"\d+(\.\d+)?% of the time", "<share> of the time"),
    (r"peak memory \d+ MB", "peak memory <mem>"),
    (r"\(\d+ per thread\)", "(<rate> per thread)"),
]
# The self-play run log (<out>.runs.json) names the binary and the clock.
RUNLOG_MASKS = [
    (r'"command": "[^"]*"', '"command": "<command>"'),
    (r'"(started|ended)_unix": \d+', r'"\1_unix": <clock>'),
]
# A training leg's ledger (<out>.ckpt.json): the command and each leg's time.
LEDGER_MASKS = RUNLOG_MASKS + [(r'"seconds": [\d.e-]+', '"seconds": <time>'), (r'"unix_time": \d+', '"unix_time": <clock>')]


def shared(*parts):
    return SHARED.joinpath(*parts)


def abk_book():
    """Arena's ABK: its 25,200-byte header, then 28-byte entries. 1. e4 (10
    games +5 -3) e5 (6: +2 -2) / c5 (4: +1 -1) 2. Nf3 (priority 7); 1. d4."""
    def entry(frm, to, prio, games, won, lost, next_move, sibling):
        return struct.pack("<bbbBiiiiii", frm, to, 0, prio, games, won, lost, 0, next_move, sibling)
    e2, e4, d2, d4, e7, e5, c7, c5, g1, f3 = 12, 28, 11, 27, 52, 36, 50, 34, 6, 21
    return b"\x03ABK" + bytes(25200 - 4) + b"".join([
        entry(e2, e4, 5, 10, 5, 3, 902, 901), entry(d2, d4, 5, 4, 1, 1, -1, -1),
        entry(e7, e5, 5, 6, 2, 2, -1, 903), entry(c7, c5, 3, 4, 1, 1, 904, -1),
        entry(g1, f3, 7, 0, 0, 0, -1, -1)])


# Files written into each run's directory before the steps.
INPUTS = {"golden.abk": abk_book, "lichess.pgn": lambda: lichess_pgn()}
# Steps that must fail (their exit status and message are compared).
FAILING = set()


def steps():
    """(name, argv, uses, stdin): argv items that are Paths are inputs; plain
    strings ending in an output name are written in the run's directory;
    `uses` names the steps whose outputs this one reads."""
    fens = [line.split(";")[0] for line in
            (DATA / "tb_vectors.csv").read_text().splitlines()[1::500]]
    return [
        ("bench", ["bench"], [], None),
        ("book build polyglot", ["book", "build", "--pgn", SF200, "--out", "sf.bin",
                                 "--threads", "1"], [], None),
        ("book build polyglot filtered",
         ["book", "build", "--pgn", ROOT / "books" / "openings.pgn", SF200, "--out", "opf.bin",
          "--min-game", "1", "--max-ply", "16", "--min-score", "40", "--threads", "1"], [], None),
        ("book build yacb", ["book", "build", "--pgn", SF200, "--out", "sf.yacb",
                             "--threads", "1"], [], None),
        ("book build yacb openings", ["book", "build", "--pgn", ROOT / "books" / "openings.pgn",
                                      "--out", "op.yacb", "--min-game", "1", "--threads", "1"],
         [], None),
        ("book convert polyglot->sbob", ["book", "convert", "sf.bin", "sf.sbob"],
         ["book build polyglot"], None),
        ("book convert polyglot->json", ["book", "convert", "sf.bin", "sf.json"],
         ["book build polyglot"], None),
        ("book convert polyglot->yacb", ["book", "convert", "sf.bin", "sfc.yacb"],
         ["book build polyglot"], None),
        ("book convert sbob->polyglot", ["book", "convert", "sf.sbob", "sf-sbob.bin"],
         ["book convert polyglot->sbob"], None),
        ("book convert json->polyglot", ["book", "convert", "sf.json", "sf-json.bin"],
         ["book convert polyglot->json"], None),
        ("book convert golden sbob->json", ["book", "convert", DATA / "sbob_golden.sbob", "g.json"],
         [], None),
        ("book convert golden json->sbob", ["book", "convert", DATA / "sbob_golden.json", "g.sbob"],
         [], None),
        ("book convert lasker-trap->json",
         ["book", "convert", DATA / "shared" / "books" / "lasker-trap.bin", "lt.json"], [], None),
        ("book export yacb->epd", ["book", "export", ROOT / "books" / "default.yacb",
                                   "--out", "d.epd"], [], None),
        ("book export yacb->pgn", ["book", "export", ROOT / "books" / "default.yacb",
                                   "--out", "d.pgn"], [], None),
        ("book export polyglot->pgn", ["book", "export", "sf.bin", "--out", "sf.pgn",
                                       "--max-ply", "10"], ["book build polyglot"], None),
        ("book export pgn->epd", ["book", "export", ROOT / "books" / "openings.pgn",
                                  "--out", "o.epd", "--min-ply", "4", "--max-ply", "8"], [], None),
        ("book export epd --eval-nodes", ["book", "export", ROOT / "books" / "openings.pgn",
                                          "--out", "oe.epd", "--max-ply", "6",
                                          "--eval-nodes", "500"], [], None),
        ("book merge polyglot", ["book", "merge", "--out", "m.bin",
                                 shared("books", "performance.bin"),
                                 DATA / "shared" / "books" / "lasker-trap.bin", "sf.bin"],
         ["book build polyglot"], None),
        ("book merge yacb", ["book", "merge", "--out", "m.yacb", ROOT / "books" / "default.yacb",
                             DATA / "golden.yacb", "sf.yacb"], ["book build yacb"], None),
        ("records import", ["records", "import", "--pgn", DATA / "records" / "cutechess-stockfish.pgn",
                            "--out", "cc.bin", "--threads", "1"], [], None),
        ("records import --unscored keep", ["records", "import", "--pgn", SF200, "--out", "sf200.bin",
                                            "--unscored", "keep", "--threads", "1"], [], None),
        ("selfplay", ["selfplay", "--threads", "1", "--seed", "1", "--games", "4", "--nodes", "2000",
                      "--hash", "16", "--out", "sp.bin"], [], None),
        *[(f"records export {fmt}", ["records", "export", "--format", fmt, "--out", f"sp.{fmt}",
                                     "sp.bin"], ["selfplay"], None)
          for fmt in ("viriformat", "bullet-text", "sf-plain")],
        ("records export sf-plain (imported)", ["records", "export", "--format", "sf-plain",
                                                "--out", "cc.sf-plain", "cc.bin"],
         ["records import"], None),
        ("records dedup", ["records", "dedup", "--out", "dd.bin", "sf200.bin"],
         ["records import --unscored keep"], None),
        ("records dedup selfplay", ["records", "dedup", "--out", "dd-sp.bin", "sp.bin"],
         ["selfplay"], None),
        ("records shuffle --seed 7", ["records", "shuffle", "--seed", "7", "--out", "sh.bin",
                                      "sf200.bin"], ["records import --unscored keep"], None),
        ("records shuffle --seed 7 --positions", ["records", "shuffle", "--seed", "7", "--positions",
                                                  "--out", "shp.bin", "sp.bin"], ["selfplay"], None),
        ("records split --parts 3", ["records", "split", "--parts", "3", "--out-prefix", "part",
                                     "sf200.bin"], ["records import --unscored keep"], None),
        ("records split --games-per-part 2", ["records", "split", "--games-per-part", "2",
                                              "--out-prefix", "chunk", "cc.bin"],
         ["records import"], None),
        ("tb probe (51 FENs on stdin)", ["tb", "probe", "--path", SYZYGY], [], "\n".join(fens) + "\n"),
        ("tb probe --moves --json", ["tb", "probe", "--path", SYZYGY, "--moves", "--json", fens[2]],
         [], None),
        ("tb probe --moves", ["tb", "probe", "--path", SYZYGY, "--moves", fens[5]], [], None),
        *book_steps(),
        *explorer_steps(),
        ("train (one short leg)", ["train", "--data", "sp.bin", "--out", "t.nnue", "--hidden", "16",
                                   "--epochs", "2", "--batch", "64", "--buffer", "4096", "--threads", "1",
                                   "--wdl", "0.25", "--skip-plies", "0", "--validation", "sp.bin"],
         ["selfplay"], None),
        ("train --measure", ["train", "--measure", "--init", "t.nnue.ckpt", "--validation", "sp.bin",
                             "--skip-plies", "0"], ["train (one short leg)"], None),
        *[(f"tune (threads {t})", ["tune", "--data", "sp.bin", "--out", f"w{t}.rs", "--iterations", "30",
                                   "--threads", str(t), "--skip-plies", "0", "--l2", "0.001"], ["selfplay"], None)
          for t in (1, 2)],
    ]


def lichess_pgn():
    """2,000 games shaped like a Lichess dump (the example `explorer_games`,
    seed 11), made once: the newest built example, else built here."""
    global _LICHESS_PGN
    if _LICHESS_PGN is None:
        built = [ROOT / "target" / p / "examples" / "explorer_games" for p in ("release", "debug")]
        built = [b for b in built if os.access(b, os.X_OK)]
        if not built:
            subprocess.run(["cargo", "build", "--release", "--example", "explorer_games"], cwd=ROOT, check=True)
            built = [ROOT / "target" / "release" / "examples" / "explorer_games"]
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "g.pgn"
            subprocess.run([str(max(built, key=lambda b: b.stat().st_mtime)), str(out), "2000", "11"],
                           check=True, capture_output=True, timeout=300)
            _LICHESS_PGN = out.read_bytes()
    return _LICHESS_PGN


_LICHESS_PGN = None


def explorer_queries():
    """(path, params) asked of `serve --lichess l.axi --masters m.axi`: lines
    of the first generated games at several depths (positions of many games,
    of a few and of one) under filters of every kind, masters and /player."""
    import io
    import chess.pgn
    text = lichess_pgn().decode()
    lines, players = [""], []
    reader = io.StringIO(text)
    for n in range(40):
        game = chess.pgn.read_game(reader)
        if game is None:
            break
        moves = [m.uci() for m in game.mainline_moves()]
        if n < 4:
            players.append((game.headers.get("White", "?"), "white"))
        for ply in (1, 2, 4, 8, 14, 24):
            if ply <= len(moves) and (n < 12 or ply >= 14):
                lines.append(",".join(moves[:ply]))
    filters = [{}, {"speeds": "blitz"}, {"speeds": "bullet,ultraBullet"}, {"ratings": "2500"},
               {"ratings": "2000,2200,2500"}, {"ratings": "1600,1800"}, {"ratings": "2800"},
               {"since": "2019-01"}, {"until": "2016-06"}, {"topGames": "0"}, {"recentGames": "0"},
               {"topGames": "0", "recentGames": "0"}, {"moves": "2", "topGames": "1", "recentGames": "2"},
               {"speeds": "rapid,classical,correspondence", "ratings": "1400", "history": "true"},
               {"history": "true", "since": "2018-01"}, {"ratings": "2200,2500", "recentGames": "9"}]
    out = []
    for i, line in enumerate(lines):
        play = {"play": line} if line else {}
        for f in filters if i < 8 else filters[::3]:
            out.append(("/lichess", {**play, **f}))
        for f in ({}, {"since": "2019"}, {"until": "2017", "topGames": "3"}):
            out.append(("/masters", {**play, **f}))
        for name, color in players:
            out.append(("/player", {**play, "player": name, "color": color}))
            out.append(("/player", {**play, "player": name, "color": color, "speeds": "blitz",
                                    "recentGames": "2"}))
            out.append(("/player", {**play, "player": name, "color": color, "modes": "casual"}))
    out.append(("/lichess", {"fen": "8/8/8/8/8/8/8/8 w - - 0 1"}))
    out.append(("/lichess", {"play": "e2e5"}))
    return out


def explorer_steps():
    """`explorer build` (Lichess games, masters, Stockfish's), `info`,
    `verify`, `merge`, `book build --from-explorer`, and the answers of
    `serve` to explorer_queries()."""
    return [
        ("explorer build", ["explorer", "build", "--pgn", "lichess.pgn", "--out", "l.axi", "--threads", "1"],
         [], None),
        ("explorer build --masters", ["explorer", "build", "--masters", "--pgn", "lichess.pgn", "--out", "m.axi",
                                      "--threads", "1"], [], None),
        ("explorer build stockfish", ["explorer", "build", "--all-games", "--pgn", SF200, "--out", "sf.axi",
                                      "--threads", "1"], [], None),
        ("explorer info", ["explorer", "info", "l.axi"], ["explorer build"], None),
        ("explorer verify", ["explorer", "verify", "l.axi"], ["explorer build"], None),
        ("explorer merge", ["explorer", "merge", "--out", "lm.axi", "l.axi", "sf.axi"],
         ["explorer build", "explorer build stockfish"], None),
        ("book build --from-explorer", ["book", "build", "--from-explorer", "l.axi", "--out", "fe.bin",
                                        "--threads", "1"], ["explorer build"], None),
        ("explorer answers", ["serve", "--lichess", "l.axi", "--lichess", "sf.axi", "--masters", "m.axi"],
         ["explorer build", "explorer build --masters", "explorer build stockfish"], {"queries": explorer_queries()}),
    ]


def book_steps():
    """`book probe` (text and --json) for every format, `book info` and
    `book dump`."""
    e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    books = [
        ("polyglot", shared("books", "performance.bin"), []),
        ("polyglot lasker", DATA / "shared" / "books" / "lasker-trap.bin", []),
        ("polyglot built", "sf.bin", ["book build polyglot"]),
        ("yacb", ROOT / "books" / "default.yacb", []),
        ("yacb golden", DATA / "golden.yacb", []),
        ("abk", "golden.abk", []),
        ("sbob", DATA / "sbob_golden.sbob", []),
        ("json", DATA / "sbob_golden.json", []),
    ]
    out = []
    for label, book, uses in books:
        for fen_label, fen in (("start", None), ("1.e4", e4)):
            argv = ["book", "probe", book] + (["--fen", fen] if fen else [])
            out.append((f"book probe {label} {fen_label}", argv, uses, None))
            out.append((f"book probe {label} {fen_label} --json", argv + ["--json"], uses, None))
            if label in ("sbob", "json"):  # not playable: an error naming the file
                FAILING.update({out[-1][0], out[-2][0]})
        out.append((f"book info {label}", ["book", "info", book], uses, None))
    for label, book, uses in books:
        if label in ("yacb", "yacb golden", "polyglot lasker", "polyglot built"):
            out.append((f"book dump {label}", ["book", "dump", book], uses, None))
            out.append((f"book dump {label} --json", ["book", "dump", book, "--json"], uses, None))
    return out


def mask(text, masks):
    for pattern, repl in masks:
        text = re.sub(pattern, repl, text)
    return text


def newest_bench():
    log = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%B"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"^Bench: (\d+)", log, re.M)
    return int(m.group(1)) if m else None


def run_step(binary, workdir, argv, stdin):
    """Runs one step in workdir: (its comparable result, {file: bytes})."""
    if any(isinstance(a, Path) and str(a).startswith(str(SHARED)) and not a.exists() for a in argv):
        return {"skipped": True}, {}
    if isinstance(stdin, dict):
        return serve_step(binary, workdir, argv, stdin["queries"]), {}
    before = set(os.listdir(workdir))
    p = subprocess.run([binary, *map(str, argv)], cwd=workdir, input=stdin, capture_output=True,
                       text=True, timeout=300)
    streams = {}
    for key, text in (("stdout", p.stdout), ("stderr", p.stderr)):
        text = text.replace(str(workdir), "<work>").replace(str(SHARED), "<shared>")
        streams[key] = mask(text.replace(str(ROOT), "<repo>"), STREAM_MASKS)
    streams["stdout"] = parsed_json(streams["stdout"])
    files, contents = {}, {}
    for name in sorted(set(os.listdir(workdir)) - before):
        data = (workdir / name).read_bytes()
        if name.endswith(".runs.json"):
            data = mask(data.decode(), RUNLOG_MASKS).encode()
        elif name.endswith(".ckpt.json"):
            data = mask(data.decode(), LEDGER_MASKS).encode()
        files[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        contents[name] = data
    result = {"rc": p.returncode, **streams, "files": files}
    if argv == ["bench"]:
        counts = re.findall(r"^(\d+) nodes", p.stdout, re.M)  # the last line's count
        result = {"rc": p.returncode, "nodes": int(counts[-1]) if counts else None,
                  "stderr": streams["stderr"] if p.returncode else ""}
    return result, contents


def serve_step(binary, workdir, argv, queries):
    """`binary serve ...` in workdir asked each (path, params): every answer's
    status and parsed body (NDJSON: each line parsed)."""
    import http.client
    import urllib.parse
    p = subprocess.Popen([binary, *map(str, argv), "--listen", "127.0.0.1:0"], cwd=workdir,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        if not line.startswith("listening on "):
            p.kill()
            return {"rc": p.wait(), "stdout": line, "stderr": p.stderr.read()}
        conn = http.client.HTTPConnection(urllib.parse.urlsplit(line.split()[-1]).netloc, timeout=60)
        answers = []
        for path, params in queries:
            conn.request("GET", f"{path}?{urllib.parse.urlencode(params)}")
            r = conn.getresponse()
            answers.append([path, params, r.status, parsed_json(r.read().decode())])
        return {"rc": 0, "answers": answers}
    finally:
        p.terminate()
        p.wait(10)


def parsed_json(text):
    """`text` with its JSON (one document, or one per line) written again
    with sorted keys, so that key order does not count; other text as it is."""
    try:
        return json.dumps(json.loads(text), sort_keys=True) if text.strip() else text
    except ValueError:
        pass
    try:
        return "\n".join(json.dumps(json.loads(line), sort_keys=True) for line in text.splitlines() if line.strip())
    except ValueError:
        return text


def run_all(binary, plan):
    """Every step with one binary: ({name: result}, {name: {file: bytes}}, seconds)."""
    binary = str(Path(binary).resolve())
    results, contents = {}, {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        for name, make in INPUTS.items():
            (Path(tmp) / name).write_bytes(make())
        for name, argv, _uses, stdin in plan:
            results[name], contents[name] = run_step(binary, Path(tmp), argv, stdin)
    return results, contents, time.monotonic() - start


def first_diff_line(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x[:100]!r} vs {y[:100]!r}"
    return f"{len(la)} vs {len(lb)} lines"


def first_diff_byte(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at byte {i}"
    return "one is a prefix of the other"


def differences(a, b, files_a=None, files_b=None):
    """What differs between two results of one step (empty when the same)."""
    if a.get("skipped") or b.get("skipped"):
        return [] if a.get("skipped") == b.get("skipped") else ["skipped on one side only"]
    out = []
    for key in ("rc", "nodes"):
        if a.get(key) != b.get(key):
            out.append(f"{key} {a.get(key)} vs {b.get(key)}")
    for key in ("stdout", "stderr"):
        if a.get(key) != b.get(key):
            out.append(f"{key} {first_diff_line(a.get(key) or '', b.get(key) or '')}")
    qa, qb = a.get("answers", []), b.get("answers", [])
    differing = [i for i, (x, y) in enumerate(zip(qa, qb)) if x != y]
    if len(qa) != len(qb) or differing:
        first = f", first: {qa[differing[0]][:2]}" if differing else ""
        out.append(f"answers: {len(differing)} of {len(qa)} differ ({len(qa)} vs {len(qb)} asked){first}")
    fa, fb = a.get("files", {}), b.get("files", {})
    for name in sorted(set(fa) | set(fb)):
        if name not in fa or name not in fb:
            out.append(f"{name} written by one side only")
        elif fa[name] != fb[name]:
            detail = f"{fa[name]['size']} vs {fb[name]['size']} bytes"
            if files_a and files_b:
                detail += ", " + first_diff_byte(files_a[name], files_b[name])
            out.append(f"{name} differs ({detail})")
    return out


def report(plan, res_a, res_b, contents_a=None, contents_b=None):
    """Prints one line per step (b is the binary under test); returns the
    number of differing steps."""
    bad, failed_steps = 0, set()
    width = max(len(name) for name, *_ in plan)
    for name, _argv, uses, _stdin in plan:
        if name not in res_a or name not in res_b:
            a, b, diffs = {}, {}, ["not in the record"]
        else:
            a, b = res_a[name], res_b[name]
            diffs = differences(a, b, (contents_a or {}).get(name), (contents_b or {}).get(name))
        for r in (a, b):
            if r.get("rc") not in (0, None) and name not in FAILING:
                diffs.insert(0, f"exit status {r['rc']}: {r.get('stderr', '').strip()[-160:]!r}")
        if name == "bench" and b.get("nodes") != newest_bench():
            diffs.append(f"{b.get('nodes')} nodes, but the newest git log line says "
                         f"Bench: {newest_bench()}")
        if diffs:
            bad += 1
            failed_steps.add(name)
            upstream = [u for u in uses if u in failed_steps]
            note = f" (input from `{upstream[0]}`, which differs)" if upstream else ""
            print(f"{name:<{width}}  DIFFERENT{note}: " + "; ".join(diffs))
        else:
            print(f"{name:<{width}}  " + ("skipped (no ../shared input)" if a.get("skipped")
                                          else "same"))
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="write BINARY's results to FILE")
    ap.add_argument("--check", action="store_true", help="compare BINARY with the results in FILE")
    ap.add_argument("first", help="OLD_BINARY, or BINARY with --record/--check")
    ap.add_argument("second", help="NEW_BINARY, or FILE with --record/--check")
    args = ap.parse_args()
    if args.record and args.check:
        ap.error("--record and --check exclude each other")
    plan = steps()
    results, contents, secs = run_all(args.first, plan)
    print(f"{args.first}: {secs:.1f} s")
    if args.record:
        Path(args.second).write_text(json.dumps({"binary": args.first, "results": results},
                                                indent=1, sort_keys=True) + "\n")
        bad = report(plan, results, results)
        print(f"recorded {len(results)} steps to {args.second}")
    elif args.check:
        recorded = json.loads(Path(args.second).read_text())["results"]
        bad = report(plan, recorded, results)
    else:
        new, new_contents, new_secs = run_all(args.second, plan)
        print(f"{args.second}: {new_secs:.1f} s")
        bad = report(plan, results, new, contents, new_contents)
    print(f"{bad} of {len(plan)} steps differ" if bad else f"all {len(plan)} steps the same")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
