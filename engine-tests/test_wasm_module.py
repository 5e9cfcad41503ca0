"""The browser build (issue 74) against the native binary, answer for answer:
target/web/archivist.js and its module under Node (engine-tests/wasm/
check_module.mjs), the native `archivist` as the oracle.

* book probes: Polyglot (../shared/books, Debian's gnuchess-book), YACB
  (books/default.yacb, one built here), ABK (tools/golden.py's and a larger
  tree written here by Arena's layout), SBOB and JSON (the golden files and
  conversions of a book built here): `probe` is `book probe --json`, or for
  SBOB and JSON the position's entry in `book convert --to json`'s output;
* `convert`: the bytes and report line of `book convert --to TO`;
* 200 damaged copies of a book of each format: `openBook` succeeds exactly
  when `book verify` does, with its message, and a probe of the start
  position agrees where both open; never a trap, never over 10 s;
* `bench`, `moves` (against python-chess), `search` (against UCI `go`),
  and the module's own contract (init, errors).

Skipped without Node or the built site (`make wasm`), except under
CI_BUILD=1, where either missing fails. `make wasm-test` runs this file;
`make engine-test` leaves it out.
"""
from __future__ import annotations

import json
import math
import os
import queue
import random
import re
import shutil
import struct
import subprocess
import threading
import time
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn
import chess.polyglot
import pytest

from conftest import ROOT, SHARED, run
from harness import Uci

CHECK = ROOT / "engine-tests" / "wasm" / "check_module.mjs"
DATA = ROOT / "engine-tests" / "data"
SF200 = DATA / "shared" / "pgn" / "stockfish-selfplay-200.pgn"
GNUCHESS = Path("/usr/share/games/gnuchess/book.bin")
START = chess.STARTING_FEN
CI = os.environ.get("CI_BUILD") == "1"
WORKERS = max(2, os.cpu_count() or 2)
# Positions probed per book: at least this many with moves where the book
# has them, and some it lacks.
WANT = 220
ABSENT = 30
DAMAGED = 200
# Seconds a job (one damaged copy, one probe batch) may take in Node.
BUDGET = 10.0
TITLES = {"Polyglot": "polyglot", "YACB": "yacb", "ABK": "abk", "SBOB": "sbob", "JSON": "json"}


def required(ok: bool, why: str) -> None:
    if not ok:
        if CI:
            pytest.fail(f"{why} (CI_BUILD=1: the browser build's tests must run)")
        pytest.skip(why)


@pytest.fixture(scope="module")
def site() -> Path:
    required(shutil.which("node") is not None, "Node is not installed (make deps)")
    path = Path(os.environ.get("ARCHIVIST_WEB", ROOT / "target" / "web"))
    required((path / "archivist.js").is_file() and (path / "archivist.wasm").is_file(),
             f"no browser build in {path} (make wasm)")
    return path


# ---------------------------------------------------------------- Node side

class Node:
    """Runs jobs through check_module.mjs, each under its own time budget.
    A job that hangs, traps or kills Node is recorded as such
    (`{"hang": s}`, `{"trap": …}`, `{"died": …}`) and Node starts again
    after it, so one bad job never hides the others."""

    def __init__(self, site: Path, workdir: Path):
        self.site, self.workdir = site, workdir
        self.init: dict | None = None

    def run(self, name: str, jobs: list[dict]) -> dict[str, dict]:
        jobs_file = self.workdir / f"{name}.jobs"
        jobs_file.write_text("".join(json.dumps(j) + "\n" for j in jobs))
        results: dict[str, dict] = {}
        start = 0
        while start < len(jobs):
            start = self._run_from(jobs_file, jobs, start, results)
        return results

    def _run_from(self, jobs_file: Path, jobs: list[dict], start: int, results: dict) -> int:
        env = dict(os.environ, ARCHIVIST_WEB=str(self.site))
        proc = subprocess.Popen(["node", str(CHECK), str(jobs_file), str(start)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        lines: queue.Queue = queue.Queue()
        err = bytearray()

        def read_out():
            for raw in proc.stdout:
                lines.put(raw.decode("utf-8", "replace"))
            lines.put(None)

        def read_err():
            for raw in proc.stderr:
                err.extend(raw)

        threading.Thread(target=read_out, daemon=True).start()
        threading.Thread(target=read_err, daemon=True).start()
        i = start
        slack = BUDGET  # Node's start and the module's compilation
        try:
            while i < len(jobs):
                job = jobs[i]
                budget = job.get("budget", BUDGET) + slack
                try:
                    line = lines.get(timeout=budget)
                except queue.Empty:
                    results[job["id"]] = {"hang": budget}
                    return i + 1
                if line is None:
                    proc.wait(timeout=10)
                    results[job["id"]] = {"died": proc.returncode, "stderr": bytes(err[-3000:]).decode("utf-8", "replace")}
                    return i + 1
                record = json.loads(line)
                if record["id"] == "_init":
                    self.init = self.init or record
                    continue
                slack = 0.0
                assert record["id"] == job["id"], (record, job)
                results[job["id"]] = record
                i += 1
                if "trap" in record:
                    return i
            return i
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def node(site, tmp_path_factory) -> Node:
    return Node(site, tmp_path_factory.mktemp("node"))


def broken(result: dict) -> str | None:
    """What went wrong in Node itself, if anything: a hang, a trap, a crash
    or a JavaScript exception escaping the module."""
    for key in ("hang", "trap", "died", "exception"):
        if key in result:
            return f"{key}: {str(result[key])[:300]} {str(result.get('stack', result.get('stderr', '')))[:600]}"
    return None


# Floats (a YACB move's `expected`) must be equal to the bit: both builds
# take exp from the same libm (types::expected_score). ULPS units in the last
# place would be taken as equal and counted (a warning names them), should a
# platform ever need it; it is 0.
ULPS = 0
ulp_differences: list[str] = []


def same(a, b, at: str = "") -> bool:
    """Whether two JSON values are equal, floats within ULPS (counted).
    JavaScript has one number type: a float 1.0 comes back from Node as 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b:
            return True
        if abs(a - b) <= ULPS * math.ulp(max(abs(a), abs(b))):
            ulp_differences.append(f"{at}: {a!r} != {b!r}")
            return True
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k], f"{at}.{k}") for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y, f"{at}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
    return type(a) is type(b) and a == b


@pytest.fixture(scope="module", autouse=True)
def report_ulp_differences():
    yield
    if ulp_differences:
        warnings.warn(f"{len(ulp_differences)} floats differ from the native answer in their last bits "
                      f"(libm's exp), e.g. {ulp_differences[0]}")


def difference(a, b, at: str = "") -> str:
    """Where two JSON values first differ, and how."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(a.keys() | b.keys()):
            if a.get(k, "<absent>") != b.get(k, "<absent>"):
                return difference(a.get(k, "<absent>"), b.get(k, "<absent>"), f"{at}.{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return difference(x, y, f"{at}[{i}]")
    return f"{at or '.'}: wasm {json.dumps(a)[:200]}, native {json.dumps(b)[:200]}"


def check(problems: list[str], what: str) -> None:
    assert not problems, f"{len(problems)} {what}:\n  " + "\n  ".join(problems[:15])


# -------------------------------------------------------------- native side

def parallel(f, items) -> list:
    with ThreadPoolExecutor(WORKERS) as pool:
        return list(pool.map(f, items))


def native_error(out: subprocess.CompletedProcess, path: Path) -> str:
    """The message of a failed native command, without `error: ` and the path."""
    text = out.stderr.strip()
    text = text.removeprefix("error: ").removeprefix("Error: ")
    return text.removeprefix(f"{path}: ")


def native_probe(exe: str, book: Path, fen: str) -> dict:
    out = run(exe, "book", "probe", str(book), "--fen", fen, "--json", timeout=BUDGET)
    if out.returncode != 0:
        return {"error": native_error(out, book)}
    return json.loads(out.stdout)


def native_entries(exe: str, book: Path, workdir: Path) -> dict[str, dict] | str:
    """An SBOB or JSON book's positions as `book convert --to json` writes
    them, by position key (the FEN's first four fields); or the error."""
    out_path = workdir / f"{book.name}.native.json"
    out = run(exe, "book", "convert", str(book), str(out_path), "--to", "json", timeout=BUDGET)
    if out.returncode != 0:
        return native_error(out, book)
    entries: dict[str, dict] = {}
    for fen, entry in json.loads(out_path.read_text())["positions"].items():
        entries.setdefault(position_key(fen), {"fen": fen, "moves": entry["moves"]})
    out_path.unlink()
    return entries


def position_key(fen: str) -> str:
    return " ".join(fen.split()[:4])


# ------------------------------------------------------------------- books

@dataclass
class WebBook:
    name: str
    path: Path
    format: str
    fens: list[str] = field(default_factory=list)

    @property
    def keyed(self) -> bool:
        """SBOB and JSON books answer with their entry, or null."""
        return self.format in ("sbob", "json")


def fill(fens: list[str], total: int) -> list[str]:
    """`fens` and then positions a breadth-first walk of legal moves from the
    start reaches, none twice, up to `total`."""
    seen = {position_key(f) for f in fens}
    out = list(fens)
    todo = deque([chess.Board()])
    while todo and len(out) < total:
        board = todo.popleft()
        if position_key(board.fen()) not in seen:
            seen.add(position_key(board.fen()))
            out.append(board.fen())
        for move in sorted(board.legal_moves, key=chess.Move.uci):
            child = board.copy(stack=False)
            child.push(move)
            todo.append(child)
    return out


def polyglot_positions(path: Path) -> list[str]:
    """Positions with book moves, breadth first from the start through the
    book's moves (python-chess's reader), then positions it lacks."""
    fens: list[str] = []
    seen: set[str] = set()
    absent: list[str] = []
    with chess.polyglot.open_reader(path) as reader:
        todo = deque([chess.Board()])
        while todo and len(fens) < WANT:
            board = todo.popleft()
            if board.epd() in seen:
                continue
            seen.add(board.epd())
            moves = [e.move for e in reader.find_all(board)]
            if not moves:
                if len(absent) < ABSENT:
                    absent.append(board.fen())
                continue
            fens.append(board.fen())
            for move in moves:
                child = board.copy(stack=False)
                child.push(move)
                todo.append(child)
    return fill(fens + absent, WANT + ABSENT)


def pgn_positions(path: Path, max_ply: int | None = None) -> list[str]:
    """The positions of the games' main lines (up to `max_ply`), none twice."""
    fens: list[str] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        while len(fens) < WANT and (game := chess.pgn.read_game(f)) is not None:
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if max_ply is not None and ply >= max_ply:
                    break
                if board.epd() not in seen:
                    seen.add(board.epd())
                    fens.append(board.fen())
                board.push(move)
    return fill(fens[:WANT], WANT + ABSENT)


# ABK promotion codes by python-chess piece type.
ABK_PROMOTION = {chess.ROOK: 1, chess.KNIGHT: 2, chess.BISHOP: 3, chess.QUEEN: 4}
# Lines the random tree would hardly reach: castling (the king's move,
# e1g1) and the Lasker trap's underpromotion (fxg1=N+).
ABK_LINES = [
    "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O Nf6 d3 O-O",
    "d4 d5 c4 e5 dxe5 d4 e3 Bb4+ Bd2 dxe3 Bxb4 exf2+ Ke2 fxg1=N+ Rxg1 Bg4+",
]


def abk_tree(seed: int, branching: tuple[int, ...]) -> tuple[bytes, list[str], list[str]]:
    """An ABK book in Arena's layout (tools/golden.py's abk_book, larger): a
    tree of random legal moves from the start position, and ABK_LINES, with
    random games, results and priorities. Returns the bytes, the positions
    with moves (ABK_LINES' first) and the leaves."""
    rng = random.Random(seed)
    # The tree: {move: subtree}, in the order the entries are written.
    root: dict[chess.Move, dict] = {}
    for line in ABK_LINES:
        board, node = chess.Board(), root
        for san in line.split():
            node = node.setdefault(board.push_san(san), {})

    def grow(board: chess.Board, node: dict, depth: int) -> None:
        if depth == len(branching):
            return
        legal = sorted(board.legal_moves, key=chess.Move.uci)
        for move in rng.sample(legal, min(branching[depth], len(legal))):
            node.setdefault(move, {})
        for move, child in node.items():
            board.push(move)
            grow(board, child, depth + 1)
            board.pop()

    grow(chess.Board(), root, 0)
    entries: list[list[int]] = []
    inner: list[str] = []
    leaves: list[str] = []

    def block(board: chess.Board, node: dict) -> int:
        """Writes `node`'s moves as one sibling chain; returns its first index."""
        if not node:
            leaves.append(board.fen())
            return -1
        inner.append(board.fen())
        first = 900 + len(entries)
        for i, move in enumerate(node):
            games = rng.randint(0, 40)
            won = rng.randint(0, games)
            lost = rng.randint(0, games - won)
            sibling = first + i + 1 if i + 1 < len(node) else -1
            entries.append([move.from_square, move.to_square, ABK_PROMOTION.get(move.promotion, 0),
                            rng.choice([0, 1, 5, 5, 5, 9]), games, won, lost, 0, -1, sibling])
        for i, (move, child) in enumerate(node.items()):
            board.push(move)
            entries[first - 900 + i][8] = block(board, child)
            board.pop()
        return first

    block(chess.Board(), root)
    body = b"".join(struct.pack("<bbbBiiiiii", *e) for e in entries)
    lines = []
    for line in ABK_LINES:
        board = chess.Board()
        for san in line.split():
            lines.append(board.fen())
            board.push_san(san)
    return b"\x03ABK" + bytes(25200 - 4) + body, lines + [f for f in inner if f not in lines], leaves


@pytest.fixture(scope="module")
def books(exe, tmp_path_factory) -> dict[str, WebBook]:
    """Every book the tests probe, convert and damage, by name."""
    import golden  # tools/golden.py: the ABK book of Arena's documented layout

    d = tmp_path_factory.mktemp("books")
    out: dict[str, WebBook] = {}

    def add(name: str, path: Path, fmt: str, fens: list[str]) -> None:
        out[name] = WebBook(name, path, fmt, fens)

    def native(*args: str) -> None:
        done = run(exe, *args, timeout=120)
        assert done.returncode == 0, f"{args}: {done.stderr}"

    for path in sorted((SHARED / "books").glob("*.bin")) + ([GNUCHESS] if GNUCHESS.exists() else []):
        add(f"polyglot:{path.name}", path, "polyglot", polyglot_positions(path))
    # A Polyglot book built here, and its SBOB and JSON conversions.
    sf_bin = d / "sf.bin"
    native("book", "build", "--pgn", str(SF200), "--out", str(sf_bin), "--min-game", "1", "--max-ply", "12",
           "--threads", "1")
    add("polyglot:sf.bin", sf_bin, "polyglot", polyglot_positions(sf_bin))

    add("yacb:default.yacb", ROOT / "books" / "default.yacb", "yacb", pgn_positions(ROOT / "books" / "openings.pgn"))
    built = d / "built.yacb"
    native("book", "build", "--pgn", str(SF200), "--out", str(built), "--min-game", "1", "--max-ply", "20",
           "--threads", "1")
    add("yacb:built.yacb", built, "yacb", pgn_positions(SF200, max_ply=20))

    golden_abk = d / "golden.abk"
    golden_abk.write_bytes(golden.abk_book())
    board = chess.Board()
    small = [board.fen()]
    for line in (["e4"], ["e4", "e5"], ["e4", "c5"], ["d4"]):
        b = chess.Board()
        for san in line:
            b.push_san(san)
        small.append(b.fen())
    add("abk:golden.abk", golden_abk, "abk", fill(small, WANT + ABSENT))
    tree_bytes, inner, leaves = abk_tree(74, (4, 4, 3, 3, 2, 2))
    tree = d / "tree.abk"
    tree.write_bytes(tree_bytes)
    lines = sum(len(line.split()) for line in ABK_LINES)
    picked = inner[:lines] + random.Random(7474).sample(sorted(set(inner[lines:])), WANT - lines)
    add("abk:tree.abk", tree, "abk", picked + leaves[:ABSENT])

    # SBOB and JSON: the golden files and conversions of a Polyglot and a
    # YACB book.
    for fmt in ("sbob", "json"):
        add(f"{fmt}:golden", DATA / f"sbob_golden.{fmt}", fmt, [])
        for name, source in (("sf", sf_bin), ("default", ROOT / "books" / "default.yacb")):
            conv = d / f"{name}.{fmt}"
            native("book", "convert", str(source), str(conv), "--to", fmt)
            add(f"{fmt}:{name}", conv, fmt, [])
    for book in out.values():
        if book.keyed:
            entries = native_entries(exe, book.path, d)
            assert isinstance(entries, dict), entries
            held = [e["fen"] for e in entries.values()][:WANT]
            # The same positions with other clocks find the same entries.
            reclocked = [" ".join(f.split()[:4] + ["7", "33"]) for f in held[:20]]
            book.fens = fill(held + reclocked, max(WANT, len(held)) + len(reclocked) + ABSENT)
    return out


# ------------------------------------------------------------------- tests

def test_init_and_misuse_follow_the_module_contract(node):
    jobs = [{"id": "misuse", "op": "misuse"}] + [
        {"id": f"init-{kind}", "op": "init", "kind": kind}
        for kind in ("bytes", "buffer", "url", "string", "default", "missing")]
    got = node.run("contract", jobs)
    problems = [f"{k}: {b}" for k, v in got.items() if (b := broken(v))]
    check(problems, "jobs broke")
    first = {"error": "archivist: call init() first", "name": "Error"}
    assert node.init["before"] == first and node.init["during"] == first, node.init
    assert node.init["same"], "a second init() must return the same promise"
    for kind in ("bytes", "buffer", "url", "string", "default"):
        assert got[f"init-{kind}"]["ok"] and got[f"init-{kind}"]["moves"] == 20, got[f"init-{kind}"]
    missing = got["init-missing"]
    assert not missing["ok"] and missing["retried"] and missing["moves"] == 20, missing
    m = got["misuse"]
    one_limit = "archivist: search takes exactly one limit: {depth}, {movetime} or {nodes}"
    for name in ("no_limit", "two_limits", "unknown_limit", "inherited_limit"):
        assert m[name] == {"error": one_limit, "name": "Error"}, (name, m[name])
    assert m["negative_limit"]["name"] == "Error"
    assert m["bad_fen_search"] == {"error": "bad FEN 'not a fen': expected 4 to 6 fields, found 3", "name": "Error"}
    assert m["bad_fen_moves"]["name"] == "Error" and m["bad_fen_moves"]["error"].startswith("bad FEN '8/8/8/8 w - -': ")
    assert m["empty_fen_moves"]["name"] == "Error"
    assert m["non_ascii_fen"] == {"error": "bad FEN '8/8/8/8/8/8/8/K6k w - - 0 1 é': expected 4 to 6 fields, found 7",
                                  "name": "Error"}, m["non_ascii_fen"]
    assert m["bad_to"] == {"error": "cannot convert to 'pgn': sbob, json, polyglot or yacb", "name": "Error"}
    assert m["not_bytes"]["name"] == "TypeError"
    assert m["closed_book"] == {"error": "archivist: the book is closed", "name": "Error"}
    assert m["info_throws"] == {"error": "from onInfo", "name": "Error"}
    # An empty file is an empty Polyglot book natively too.
    assert "returned" in m["empty_book"]
    assert m["after"] == 20


def test_probe_answers_equal_native_book_probe(exe, node, books):
    jobs = [{"id": name, "op": "probe", "book": str(b.path), "fens": b.fens, "budget": 60}
            for name, b in books.items()]
    got = node.run("probe", jobs)
    problems = [f"{k}: {b}" for k, v in got.items() if (b := broken(v))]
    check(problems, "probe jobs broke")
    work = [(b, fen) for b in books.values() if not b.keyed for fen in b.fens]
    native = {(b.name, fen): answer
              for (b, fen), answer in zip(work, parallel(lambda w: native_probe(exe, w[0].path, w[1]), work))}
    held = 0
    for name, book in books.items():
        assert len(book.fens) >= 200, (name, len(book.fens))
        answers = got[name]["answers"]
        assert got[name]["format"] == book.format, (name, got[name]["format"])
        entries = native_entries(exe, book.path, node.workdir) if book.keyed else None
        with_moves = 0
        for fen, answer in zip(book.fens, answers, strict=True):
            if book.keyed:
                expected = entries.get(position_key(fen))
            else:
                expected = native[(name, fen)]
            if not same(answer, expected):
                problems.append(f"{name} {fen}: {difference(answer, expected)}")
            with_moves += bool(expected and expected.get("moves"))
        held += with_moves
        # Every book gives WANT positions with moves where it holds that many.
        if name not in ("polyglot:lasker-trap.bin", "abk:golden.abk", "sbob:golden", "json:golden"):
            assert with_moves >= min(200, WANT), (name, with_moves)
    check(problems, "probe answers differ")
    assert held > 1500


CONVERT_TARGETS = ("sbob", "json", "polyglot", "yacb")
NATIVE_REPORT = re.compile(r"^(?P<input>.+) \((?P<from>[^()]+)\) -> (?P<output>.+) \((?P<to>[^()]+)\): (?P<report>.*)$")
WASM_REPORT = re.compile(r"^(?P<from>\S+) -> (?P<to>\S+): (?P<report>.*)$")


def test_convert_gives_native_bytes_and_report(exe, node, books, tmp_path):
    work = [(b, to) for b in books.values() if not b.name.startswith("polyglot:performance")
            and b.path != GNUCHESS for to in CONVERT_TARGETS]
    jobs = []
    for i, (book, to) in enumerate(work):
        jobs.append({"id": f"{i}", "op": "convert", "book": str(book.path), "to": to,
                     "out": str(tmp_path / f"{i}.wasm.out"), "budget": 30})
    got = node.run("convert", jobs)

    def native(item):
        i, (book, to) = item
        out_path = tmp_path / f"{i}.native.out"
        return run(exe, "book", "convert", str(book.path), str(out_path), "--to", to, timeout=60), out_path

    natives = parallel(native, list(enumerate(work)))
    problems = []
    converted = 0
    for i, ((book, to), (out, out_path)) in enumerate(zip(work, natives)):
        what = f"{book.name} -> {to}"
        w = got[str(i)]
        if b := broken(w):
            problems.append(f"{what}: {b}")
            continue
        if (out.returncode == 0) != w["ok"]:
            problems.append(f"{what}: native rc {out.returncode} ({out.stderr.strip()[:200]}), wasm {w}")
            continue
        if not w["ok"]:
            if w["error"] != native_error(out, book.path):
                problems.append(f"{what}: wasm error {w['error']!r}, native {out.stderr.strip()!r}")
            continue
        converted += 1
        n = NATIVE_REPORT.match(out.stdout.strip())
        m = WASM_REPORT.match(w["report"])
        assert n and m, (out.stdout, w["report"])
        if (m["from"], m["to"], m["report"]) != (n["from"], n["to"], n["report"]):
            problems.append(f"{what}: wasm report {w['report']!r}, native {out.stdout.strip()!r}")
        if (tmp_path / f"{i}.wasm.out").read_bytes() != out_path.read_bytes():
            problems.append(f"{what}: the bytes differ ({w['size']} in wasm, {out_path.stat().st_size} native)")
        assert w["type"] == "[object Uint8Array]"
    check(problems, "conversions differ")
    assert converted >= 30, converted


def damaged(data: bytes, rng: random.Random, hot: tuple[int, int]) -> tuple[str, bytes]:
    """One damaged copy: a truncation, byte flips, a region copied over
    another, or a region cut out. Half the offsets fall in `hot` (the part
    of the file most checks guard: a header, ABK's entries)."""
    n = len(data)

    def pos() -> int:
        return rng.randrange(*hot) if rng.random() < 0.5 else rng.randrange(n)

    kind = rng.choice(["truncate", "flip", "splice", "cut"])
    if kind == "truncate":
        k = pos()
        return f"truncated at {k}", data[:k]
    b = bytearray(data)
    if kind == "flip":
        at = sorted(pos() for _ in range(rng.randint(1, 4)))
        for i in at:
            b[i] ^= rng.randint(1, 255)
        return f"flipped at {at}", bytes(b)
    length = rng.randint(1, 256)
    if kind == "splice":
        src, dst = rng.randrange(n), pos()
        chunk = data[src:src + length][: n - dst]
        b[dst:dst + len(chunk)] = chunk
        return f"{len(chunk)} bytes from {src} copied to {dst}", bytes(b)
    i = pos()
    return f"bytes {i}..{i + length} cut out", data[:i] + data[i + length:]


def crafted() -> dict[str, bytes]:
    """Books whose sizes only a 64-bit reader can state: the same message
    on a 32-bit target (WebAssembly) needs the arithmetic done in u64."""
    def sbob_header(count: int, size: int) -> bytes:
        return b"SBOB" + struct.pack("<IQQ", 1, count, size)
    golden_sbob = bytearray((DATA / "sbob_golden.sbob").read_bytes())
    out = {
        "sbob-table-2^30": sbob_header(1, 1 << 30),
        "sbob-table-2^40": sbob_header(1, 1 << 40),
        "sbob-table-2^62": sbob_header(1, 1 << 62),
    }
    # Each entry's move count made huge, one copy per entry.
    size = struct.unpack_from("<Q", golden_sbob, 16)[0]
    for slot in range(size):
        offset = struct.unpack_from("<Q", golden_sbob, 24 + 16 * slot + 8)[0]
        if offset:
            fen_len = struct.unpack_from("<I", golden_sbob, offset)[0]
            copy = bytearray(golden_sbob)
            struct.pack_into("<I", copy, offset + 4 + fen_len, 0xFFFFFFFF)
            out[f"sbob-moves-{slot}"] = bytes(copy)
            copy = bytearray(golden_sbob)
            struct.pack_into("<I", copy, offset, 0xFFFFFFF0)
            out[f"sbob-fen-{slot}"] = bytes(copy)
    return out


def test_damaged_books_open_and_fail_as_native(exe, node, books, tmp_path):
    sources = {  # format: (book, the region half the damage goes to)
        "polyglot": (books["polyglot:sf.bin"], None),
        "yacb": (books["yacb:default.yacb"], (0, 64)),
        "abk": (books["abk:tree.abk"], (25200 - 56, None)),
        "sbob": (books["sbob:sf"], (0, 128)),
        "json": (books["json:sf"], None),
    }
    copies = []  # (id, format, path, how)
    for seed, (fmt, (book, hot)) in enumerate(sources.items()):
        data = book.path.read_bytes()
        hot = (hot[0], hot[1] or len(data)) if hot else (0, len(data))
        rng = random.Random(7400 + seed)
        for i in range(DAMAGED):
            how, copy = damaged(data, rng, hot)
            # No extension: both sides tell the format by content alone.
            path = tmp_path / f"{fmt}-{i:03d}"
            path.write_bytes(copy)
            copies.append((f"{fmt}-{i:03d}", fmt, path, how))
    for name, data in crafted().items():
        path = tmp_path / name
        path.write_bytes(data)
        copies.append((name, "crafted", path, "crafted"))
    t0 = time.monotonic()
    got = node.run("damaged", [{"id": c[0], "op": "open", "book": str(c[2]), "fen": START} for c in copies])
    wasm_s = time.monotonic() - t0

    def native(c):
        _, fmt, path, _ = c
        t = time.monotonic()
        try:
            out = run(exe, "book", "verify", str(path), timeout=BUDGET)
        except subprocess.TimeoutExpired:
            return {"hang": True}
        prefix = f"{path}: "
        line = out.stdout.strip()
        if out.returncode != 0:
            return {"ok": False, "error": line.removeprefix(prefix).removeprefix("invalid: "), "s": time.monotonic() - t}
        title = re.match(rf"^{re.escape(prefix)}valid (\S+) book", line)
        assert title, line
        opened = TITLES[title[1]]
        if opened in ("sbob", "json"):
            entries = native_entries(exe, path, tmp_path)
            # A copy that opens but does not convert has no reference answer.
            answer = {"convert error": entries} if isinstance(entries, str) else entries.get(position_key(START))
        else:
            answer = native_probe(exe, path, START)
        return {"ok": True, "format": opened, "probe": answer}

    natives = parallel(native, copies)
    problems = []
    opened = failed = 0
    tally = {fmt: [0, 0] for fmt in [*sources, "crafted"]}  # opened, failed: on both sides
    for (cid, fmt, path, how), n in zip(copies, natives):
        w = got[cid]
        what = f"{cid} ({how})"
        if b := broken(w):
            problems.append(f"{what}: {b}")
            continue
        if w["ms"] > BUDGET * 1000:
            problems.append(f"{what}: {w['ms']:.0f} ms in wasm")
        if "hang" in n:
            problems.append(f"{what}: native verify hung")
            continue
        if n["ok"] != w["ok"]:
            problems.append(f"{what}: native {'opens' if n['ok'] else 'fails: ' + n['error']}, "
                            f"wasm {'opens' if w['ok'] else 'fails: ' + w['error']}")
            continue
        if not n["ok"]:
            failed += 1
            tally[fmt][1] += 1
            if w["error"] != n["error"] or w["name"] != "Error":
                problems.append(f"{what}: wasm {w['name']} {w['error']!r}, native {n['error']!r}")
            continue
        opened += 1
        tally[fmt][0] += 1
        if w["format"] != n["format"]:
            problems.append(f"{what}: wasm opens {w['format']}, native {n['format']}")
        elif not same(w["probe"], n["probe"]):
            problems.append(f"{what}: start position: {difference(w['probe'], n['probe'])}")
    counts = ", ".join(f"{fmt} {o}/{f}" for fmt, (o, f) in tally.items())
    check(problems, f"damaged copies differ (opened/failed on both sides: {counts}; {wasm_s:.1f} s in Node)")
    # The damage must reach the checks: most copies fail, some still open.
    assert failed >= len(copies) // 2 and opened > 0, counts
    assert all(f > 0 for _, f in tally.values()), counts


def test_bench_equals_native_bench(exe, node):
    with ThreadPoolExecutor(1) as pool:  # both at once: one core each
        native = pool.submit(run, exe, "bench", timeout=300)
        got = node.run("bench", [{"id": "bench", "op": "bench", "budget": 300}])["bench"]
        out = native.result()
    assert not broken(got), broken(got)
    assert out.returncode == 0, out.stderr
    native = int(re.search(r"(\d+) nodes", (out.stdout + out.stderr).strip().splitlines()[-1])[1])
    assert got["nodes"] == native


MOVE_FENS = [
    START,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",   # castling both ways
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",        # en passant
    "8/2P5/8/8/8/8/5k1p/K7 w - - 0 1",                                       # promotion
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",                               # promotions and captures
    "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",        # checkmated: no moves
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",                                        # stalemate
    "4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1",
    "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
    "8/8/3k4/8/2pP4/8/8/4K3 b - d3 0 1",
]


def test_moves_are_the_legal_moves_with_san_and_the_next_fen(node, books):
    fens = MOVE_FENS + books["polyglot:sf.bin"].fens[:100]
    got = node.run("moves", [{"id": "moves", "op": "moves", "fens": fens}])["moves"]
    assert not broken(got), broken(got)
    problems = []
    for fen, answer in zip(fens, got["answers"], strict=True):
        board = chess.Board(fen)
        expected = []
        for move in board.legal_moves:
            after = board.copy(stack=False)
            after.push(move)
            expected.append((move.uci(), board.san(move), after.fen()))
        ours = sorted((m["uci"], m["san"], chess.Board(m["fen"]).fen()) for m in answer)
        if ours != sorted(expected):
            problems.append(f"{fen}: {ours} != {sorted(expected)}")
    check(problems, "positions differ from python-chess")


SEARCHES = [
    (START, {"depth": 8}),
    ("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", {"depth": 6}),
    ("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", {"depth": 5}),                 # mate in 1
    (START, {"nodes": 20000}),
]
NO_MOVES = {"checkmated": "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",
            "stalemate": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"}


def native_go(exe: str, fen: str, limit: dict) -> tuple[list[dict], str]:
    """Native UCI's exact iterations (`info … pv …` lines without a bound)
    and its bestmove, on a fresh engine with the same defaults as the
    module (one thread, Hash 16, no book)."""
    (key, value), = limit.items()
    uci = Uci([exe])
    try:
        uci.send("uci", "setoption name OwnBook value false", "isready")
        uci.lines_until(lambda l: l == "readyok", 30, "readyok")
        uci.send(f"position fen {fen}", f"go {key} {value}")
        lines = uci.lines_until(lambda l: l.startswith("bestmove"), 60, "bestmove")
    finally:
        uci.send("quit")
        uci.proc.wait(timeout=10)
    infos = []
    for line in lines:
        t = line.split()
        if t[0] != "info" or "pv" not in t or "lowerbound" in t or "upperbound" in t:
            continue
        score = t[t.index("score") + 1: t.index("score") + 3]
        infos.append({"depth": int(t[t.index("depth") + 1]), "nodes": int(t[t.index("nodes") + 1]),
                      "score": {score[0]: int(score[1])}, "pv": t[t.index("pv") + 1:]})
    return infos, lines[-1].split()[1]


def test_search_equals_native_uci_search(exe, node):
    jobs = [{"id": f"{i}", "op": "search", "fen": fen, "limit": limit, "budget": 60}
            for i, (fen, limit) in enumerate(SEARCHES)]
    jobs.append({"id": "movetime", "op": "search", "fen": START, "limit": {"movetime": 300}})
    got = node.run("search", jobs)
    problems = []
    for i, (fen, limit) in enumerate(SEARCHES):
        w = got[f"{i}"]
        if b := broken(w) or w.get("error"):
            problems.append(f"{fen} {limit}: {b}")
            continue
        infos, bestmove = native_go(exe, fen, limit)
        ours = [{k: v for k, v in info.items() if k != "bestmove"} for info in w["infos"]]
        r = w["result"]
        if "depth" in limit and ours != infos:
            problems.append(f"{fen} {limit}: iterations {ours} != native {infos}")
        if r["bestmove"] != (None if bestmove in ("0000", "(none)") else bestmove):
            problems.append(f"{fen} {limit}: bestmove {r['bestmove']} != native {bestmove}")
        if infos and "depth" in limit and (r["depth"], r["score"], r["pv"]) != (infos[-1]["depth"], infos[-1]["score"], infos[-1]["pv"]):
            problems.append(f"{fen} {limit}: result {r} != native's last iteration {infos[-1]}")
        for info in w["infos"]:
            if info["bestmove"] != (info["pv"][0] if info["pv"] else None):
                problems.append(f"{fen} {limit}: iteration {info}: bestmove is not the line's first move")
    check(problems, "searches differ")
    t = got["movetime"]
    assert not broken(t) and "result" in t, t
    assert t["result"]["bestmove"] in {m.uci() for m in chess.Board().legal_moves}
    # The clock is the host's (the `now` import): the search stops near 300 ms.
    assert t["result"]["depth"] >= 1 and t["infos"] and 100 <= t["ms"] < 5000, t["ms"]


@pytest.mark.parametrize("name", NO_MOVES)
def test_a_position_without_moves_answers_as_its_iteration_and_native_do(exe, node, name):
    """No move and no line; the depth and score are the ones native UCI
    gives (and the module's own iteration): depth 1, mate 0 or cp 0."""
    fen = NO_MOVES[name]
    w = node.run(name, [{"id": name, "op": "search", "fen": fen, "limit": {"depth": 3}}])[name]
    assert not broken(w) and "result" in w, w
    infos, bestmove = native_go(exe, fen, {"depth": 3})
    assert bestmove in ("0000", "(none)")
    assert [{k: v for k, v in i.items() if k != "bestmove"} for i in w["infos"]] == infos
    r = w["result"]
    assert (r["bestmove"], r["pv"]) == (None, [])
    assert (r["depth"], r["score"]) == (infos[-1]["depth"], infos[-1]["score"]), (r, infos[-1])
