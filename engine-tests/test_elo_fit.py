"""The Elo ladder fit (tools/elo_fit.py) on made-up match logs."""
from __future__ import annotations

import math

import elo_fit

SUMMARY = """Summary: {eng} against 1 opponent(s); elo is {eng}'s, faults = ...
opponent  games  W  D  L  score     elo  +/-95%  LOS  faults
--------  -----  -  -  -  -----  ------  ------  ---  ------
{opp}        {n}  {w}  {d}  {l}  50.0%    +0.0    10.0  50%   0 (0)
"""


def log(tmp_path, eng, opp, w, d, l):
    p = tmp_path / f"{eng}-{opp}.log"
    p.write_text("Game 1/2: ...\n\n" + SUMMARY.format(eng=eng, opp=opp, n=w + d + l, w=w, d=d, l=l))
    return str(p)


def test_a_chain_of_rungs_sums_its_differences(tmp_path):
    paths = [log(tmp_path, "sf1M", "sf250k", 30, 20, 10), log(tmp_path, "sf250k", "arch1M", 45, 10, 5)]
    rows = [r for p in paths for r in elo_fit.parse(p)]
    assert rows == [("sf1M", "sf250k", 30, 20, 10), ("sf250k", "arch1M", 45, 10, 5)]
    fit = elo_fit.solve(rows)
    d1, _ = elo_fit.difference(30, 20, 10)
    d2, _ = elo_fit.difference(45, 10, 5)
    assert math.isclose(fit["sf250k"][0], -d1, abs_tol=1e-6)
    assert math.isclose(fit["arch1M"][0], -d1 - d2, abs_tol=1e-6)
    assert fit["arch1M"][1] > fit["sf250k"][1] > 0, "errors grow down the chain"


def test_even_score_is_zero_and_a_shutout_stays_finite():
    assert elo_fit.difference(5, 10, 5)[0] == 0
    diff, var = elo_fit.difference(10, 0, 0)
    assert math.isfinite(diff) and diff > 300 and var > 0
    assert elo_fit.nodes_of("arch256k") == 256_000 and elo_fit.nodes_of("sf1M") == 1_000_000


def test_line_fit_recovers_a_line():
    a, b = elo_fit.line_fit([(-4.0, -1000.0), (-2.0, -860.0), (0.0, -720.0)])
    assert math.isclose(a, -720) and math.isclose(b, 70)
