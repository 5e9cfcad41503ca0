#!/usr/bin/env python3
"""SPRT: two builds of an engine play game pairs until a statistical test decides.

    sprt.py --new ./archivist --base target/sprt/<sha>/archivist \
        --openings engine-tests/openings/balanced-3000.epd \
        [--tc 10+0.1 | --tc nodes=20000 [--new-nodes N --base-nodes N]] \
        [--elo0 0 --elo1 5 --alpha 0.05 --beta 0.05] [--concurrency 2] [--max-pairs N]

Each opening is played twice with the colours swapped (a pair); the pair's
result, 0, ½, 1, 1½ or 2 points for the new build, is one draw from a
pentanomial distribution. The test is a generalised SPRT on normalized Elo
(Elo measured in standard deviations of the pair score, as fishtest reports
it), with the usual normal approximation of the log-likelihood ratio:

    t̂  = (mean pair score − ½) / sd(pair score)            (scores on 0..1)
    t_k = √2 · nElo_k · ln 10 / 800                          (per pair)
    LLR = N · (t1 − t0) · (2·t̂ − t0 − t1) / 2

Every pentanomial bin gets a pseudo-count of 10⁻³ so that the variance is
never zero. The run stops when LLR leaves [ln(β/(1−α)), ln((1−β)/α)]: above,
H1 (the new build is at least elo1 better) is accepted; below, H0 (it is at
most elo0 better). Games are played by the same code as the gauntlet
(tools/gauntlet.py: both clocks kept by the runner, time forfeits,
crashes and illegal moves lose). The last line is the result line that goes
into a commit message. Exit status: 0 when H1 is accepted, 1 when H0 is,
3 when the run ended undecided (--max-pairs, Ctrl-C), 2 on bad arguments.

A run stopped on purpose continues with `--resume LOG` (its own stdout)
and the same arguments: the counts and the opening order carry over, and
the openings it had started are not played again. The log's first line
names the test (both commands, the limit with each side's own node count,
the bounds, the openings and their seed), and a resumed run must be the
same test.

`make sprt BASE=<rev>` builds <rev> in target/sprt/ and runs this against
the working tree's build.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import random
import re
import shlex
import sys
import threading
import time
from typing import Optional

import gauntlet
from gauntlet import EngineSpec, Player, TimeControl, play_game

NELO_PER_T = 800 / math.log(10)   # normalized Elo of t = 1 (per game)
PSEUDO = 1e-3


@dataclasses.dataclass
class Penta:
    """Pair counts by the new build's points: 0, ½, 1, 1½, 2."""
    counts: list = dataclasses.field(default_factory=lambda: [0, 0, 0, 0, 0])

    def add(self, points: float) -> None:
        self.counts[int(round(points * 2))] += 1

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def mean_var(self) -> tuple[float, float]:
        """Mean and variance of the pair score on 0..1, pseudo-counts included."""
        n = [c + PSEUDO for c in self.counts]
        total = sum(n)
        scores = [i / 4 for i in range(5)]
        mean = sum(c * s for c, s in zip(n, scores)) / total
        var = sum(c * (s - mean) ** 2 for c, s in zip(n, scores)) / total
        return mean, var

    def t_value(self) -> float:
        mean, var = self.mean_var()
        return (mean - 0.5) / math.sqrt(var)

    def llr(self, nelo0: float, nelo1: float) -> float:
        t0 = math.sqrt(2) * nelo0 / NELO_PER_T
        t1 = math.sqrt(2) * nelo1 / NELO_PER_T
        return self.pairs * (t1 - t0) * (2 * self.t_value() - t0 - t1) / 2

    def elo(self) -> tuple[float, float]:
        """Logistic Elo and its 95 % margin (from the pair variance, through
        the slope of the Elo curve at the mean score)."""
        mean, var = self.mean_var()
        mean = min(max(mean, 1e-6), 1 - 1e-6)
        margin = 1.96 * math.sqrt(var / max(self.pairs, 1))
        elo = -400 * math.log10(1 / mean - 1)
        return elo, margin * 400 / (math.log(10) * mean * (1 - mean))

    def nelo(self) -> tuple[float, float]:
        """Normalized Elo and its 95 % margin."""
        n = max(self.pairs, 1)
        return self.t_value() / math.sqrt(2) * NELO_PER_T, 1.96 / math.sqrt(2 * n) * NELO_PER_T


@dataclasses.dataclass
class Resumed:
    header: str
    seed: int
    penta: list
    wdl: list
    next_pair: int

    @property
    def penta_pairs(self) -> int:
        return sum(self.penta)


RESUMED_LINE = re.compile(r"^resumed from .*: (\d+) pairs, next opening (\d+)$")
PAIR_LINE = re.compile(r"^pairs (\d+) games \d+ W-D-L (\d+)-(\d+)-(\d+) penta \[(\d+), (\d+), (\d+), (\d+), (\d+)\]")


def read_log(path: str) -> Resumed:
    """The header, last counts and next opening of a run from its log (its stdout).

    A run may itself be a resumed one: its "resumed from" line says how many
    pairs it started with and at which opening."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("SPRT: ")]
    if not starts:
        raise ValueError("no 'SPRT:' header line")
    header, body = lines[starts[-1]], lines[starts[-1] + 1:]
    m = re.search(r"\(seed (\d+)\), concurrency (\d+)$", header)
    if not m:
        raise ValueError(f"header without seed and concurrency: {header!r}")
    seed, concurrency = int(m.group(1)), int(m.group(2))
    if any(line.startswith("SPRT ") and "accepted" in line for line in body):
        raise ValueError("the run already ended with a verdict")
    first_pair, pairs_before = 0, 0
    penta, wdl = [0] * 5, [0, 0, 0]
    for line in body:
        r = RESUMED_LINE.match(line)
        if r:
            pairs_before, first_pair = int(r.group(1)), int(r.group(2)) - 1
        p = PAIR_LINE.match(line)
        if p:
            wdl = [int(p.group(i)) for i in (2, 3, 4)]
            penta = [int(p.group(i)) for i in range(5, 10)]
    # This run started pairs first_pair, first_pair+1, ...: all finished ones are
    # counted, and at most `concurrency` more were under way when it stopped.
    played = sum(penta) - pairs_before
    return Resumed(header, seed, penta, wdl, first_pair + played + concurrency)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


@dataclasses.dataclass
class Totals:
    penta: Penta = dataclasses.field(default_factory=Penta)
    wdl: list = dataclasses.field(default_factory=lambda: [0, 0, 0])   # new build's W, D, L
    faults: dict = dataclasses.field(default_factory=dict)             # "name kind" -> count


def points_for(game: gauntlet.GameResult, name: str) -> float:
    if game.result == "1/2-1/2":
        return 0.5
    white_won = game.result == "1-0"
    return 1.0 if (game.white == name) == white_won else 0.0


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Example:\n  " + __doc__.split("\n\n")[1].strip())
    ap.add_argument("--new", required=True, help="the build under test (a command)")
    ap.add_argument("--base", required=True, help="the reference build (a command)")
    ap.add_argument("--new-name", default="new")
    ap.add_argument("--base-name", default="base")
    ap.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option for both builds (repeatable), e.g. Hash=16")
    ap.add_argument("--openings", required=True, help="EPD/FEN lines or PGN (see gauntlet.py)")
    ap.add_argument("--tc", default="10+0.1", help="BASE+INC seconds, st=SECONDS or nodes=N (default 10+0.1)")
    ap.add_argument("--new-nodes", type=int, help="with --tc nodes=N: the new build's own count")
    ap.add_argument("--base-nodes", type=int, help="with --tc nodes=N: the base build's own count")
    ap.add_argument("--elo0", type=float, default=0.0, help="H0 bound, normalized Elo (default 0)")
    ap.add_argument("--elo1", type=float, default=5.0, help="H1 bound, normalized Elo (default 5)")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    ap.add_argument("--max-pairs", type=int, default=20000, help="stop undecided after this many pairs")
    ap.add_argument("--seed", type=int, default=None, help="opening order (default: from the clock, printed)")
    ap.add_argument("--timemargin", type=float, default=0.0, metavar="MS",
                    help="ms a move may exceed the clock before it loses (default 0)")
    ap.add_argument("--pgn-out", help="append the games to this PGN file")
    ap.add_argument("--resume", metavar="LOG",
                    help="continue a stopped run from its log (same builds, time control, bounds "
                         "and openings): its counts are kept and its openings are not replayed")
    args = ap.parse_args(argv)

    try:
        tc = TimeControl.parse(args.tc)
        options = gauntlet.parse_option_pairs(args.option)
        openings = gauntlet.load_openings(args.openings)
    except (ValueError, OSError) as e:
        ap.error(str(e))
    if args.new_name == args.base_name:
        ap.error("--new-name and --base-name must differ")
    if (args.new_nodes or args.base_nodes) and tc.nodes is None:
        ap.error("--new-nodes/--base-nodes need --tc nodes=N")
    new = EngineSpec(args.new_name, shlex.split(args.new), dict(options), args.new_nodes)
    base = EngineSpec(args.base_name, shlex.split(args.base), dict(options), args.base_nodes)
    resumed = None
    if args.resume:
        try:
            resumed = read_log(args.resume)
        except (ValueError, OSError) as e:
            ap.error(f"--resume {args.resume}: {e}")
        if args.seed is not None and args.seed != resumed.seed:
            ap.error(f"--seed {args.seed} differs from the resumed run's seed {resumed.seed}")
        args.seed = resumed.seed
    seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
    random.Random(seed).shuffle(openings)
    lower, upper = bounds(args.alpha, args.beta)

    limit = str(tc)
    if args.new_nodes or args.base_nodes:
        # Each side's own count belongs to the test: a resumed run must use the same ones.
        limit += f" (new {new.nodes or tc.nodes}, base {base.nodes or tc.nodes})"
    header = (f"SPRT: {new.name} ({args.new}) vs {base.name} ({args.base}) at {limit}, "
              f"nElo [{args.elo0:g}, {args.elo1:g}], alpha {args.alpha:g}, beta {args.beta:g}, "
              f"LLR bounds [{lower:.2f}, {upper:.2f}], {len(openings)} openings (seed {seed}), ")
    totals = Totals()
    next_pair = [0]
    if resumed is not None:
        if not resumed.header.startswith(header):
            ap.error(f"--resume {args.resume}: the log is of another test:\n  {resumed.header}\n"
                     f"this one would be:\n  {header}")
        totals.penta.counts = list(resumed.penta)
        totals.wdl = list(resumed.wdl)
        # Pairs that were being played when the run stopped are skipped, not replayed.
        next_pair[0] = resumed.next_pair
    print(header + f"concurrency {args.concurrency}", flush=True)
    if resumed is not None:
        print(f"resumed from {args.resume}: {resumed.penta_pairs} pairs, next opening {resumed.next_pair + 1}",
              flush=True)

    lock = threading.Lock()
    stop = threading.Event()
    verdict: list[str] = []
    started = time.monotonic()
    pgn_lock = threading.Lock()

    def record(game: gauntlet.GameResult, round_: str) -> None:
        if game.fault is not None:
            who = game.white if game.fault else game.black   # chess.WHITE is True
            key = f"{who} {game.fault_kind}"
            totals.faults[key] = totals.faults.get(key, 0) + 1
        p = points_for(game, new.name)
        totals.wdl[0 if p == 1 else 1 if p == 0.5 else 2] += 1
        if args.pgn_out:
            with pgn_lock, open(args.pgn_out, "a", encoding="utf-8") as f:
                print(game.pgn(event="Archivist SPRT", round_=round_), file=f, end="\n\n")

    def status() -> str:
        elo, margin = totals.penta.elo()
        nelo, nmargin = totals.penta.nelo()
        w, d, l = totals.wdl
        return (f"pairs {totals.penta.pairs} games {2 * totals.penta.pairs} W-D-L {w}-{d}-{l} "
                f"penta {totals.penta.counts} Elo {elo:+.1f} ± {margin:.1f} nElo {nelo:+.1f} ± {nmargin:.1f} "
                f"LLR {totals.penta.llr(args.elo0, args.elo1):+.2f} [{lower:.2f}, {upper:.2f}]")

    def worker() -> None:
        players = {new.name: Player(new), base.name: Player(base)}
        try:
            while not stop.is_set():
                with lock:
                    i = next_pair[0]
                    next_pair[0] += 1
                if i >= args.max_pairs:
                    return
                opening = openings[i % len(openings)]
                games = []
                for white, black in ((new.name, base.name), (base.name, new.name)):
                    if stop.is_set():
                        return
                    g = play_game(players[white], players[black], opening, tc,
                                  timemargin=args.timemargin / 1000)
                    games.append(g)
                    if g.fault_kind == "crash" and g.fault is not None:
                        crashed = g.white if g.fault else g.black
                        players[crashed].close()
                        players[crashed] = Player(new if crashed == new.name else base)
                with lock:
                    if stop.is_set():
                        return
                    for k, g in enumerate(games):
                        record(g, f"{i + 1}.{k + 1}")
                    totals.penta.add(sum(points_for(g, new.name) for g in games))
                    print(status(), flush=True)
                    llr = totals.penta.llr(args.elo0, args.elo1)
                    if llr >= upper:
                        verdict.append("H1 accepted")
                        stop.set()
                    elif llr <= lower:
                        verdict.append("H0 accepted")
                        stop.set()
        finally:
            for p in players.values():
                p.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, args.concurrency))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.5)
    except KeyboardInterrupt:
        stop.set()
        verdict.append("interrupted")
    result = verdict[0] if verdict else "undecided (max pairs)"
    faults = ", ".join(f"{k}: {v}" for k, v in sorted(totals.faults.items())) or "none"
    print(f"faults: {faults}")
    print(f"({time.monotonic() - started:.0f} s)")
    print(f"SPRT {tc} nElo [{args.elo0:g}, {args.elo1:g}]: {result}; {status()}")
    return {"H1 accepted": 0, "H0 accepted": 1}.get(result, 3)


if __name__ == "__main__":
    sys.exit(main())
