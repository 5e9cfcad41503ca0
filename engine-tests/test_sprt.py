"""The SPRT runner: its statistics, and that it tells a stronger build from a weaker one."""
from __future__ import annotations

import math
import subprocess
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "engine-tests"))
import sprt  # noqa: E402

SUITE = ROOT / "engine-tests" / "openings" / "balanced-3000.epd"


def test_llr_is_the_normal_approximation_of_the_pair_scores():
    p = sprt.Penta([10, 20, 40, 25, 5])
    n = [c + sprt.PSEUDO for c in p.counts]
    mean = sum(c * i / 4 for i, c in enumerate(n)) / sum(n)
    var = sum(c * (i / 4 - mean) ** 2 for i, c in enumerate(n)) / sum(n)
    t = (mean - 0.5) / math.sqrt(var)
    t0, t1 = 0.0, math.sqrt(2) * 5 / (800 / math.log(10))
    assert math.isclose(p.llr(0, 5), 100 * (t1 - t0) * (2 * t - t0 - t1) / 2)
    assert math.isclose(p.t_value(), t)


def test_even_results_favour_h0_and_strong_ones_h1():
    even = sprt.Penta([50, 200, 500, 200, 50])
    assert even.llr(0, 5) < 0
    assert abs(even.elo()[0]) < 1e-6 and abs(even.nelo()[0]) < 1e-6
    strong = sprt.Penta([5, 50, 400, 300, 100])
    assert strong.llr(0, 5) > sprt.bounds(0.05, 0.05)[1]
    assert strong.elo()[0] > 0
    lower, upper = sprt.bounds(0.05, 0.05)
    assert math.isclose(lower, -upper) and math.isclose(upper, math.log(19))


def test_a_pair_score_goes_to_its_bin():
    p = sprt.Penta()
    for pts in (0, 0.5, 1, 1.5, 2, 2):
        p.add(pts)
    assert p.counts == [1, 1, 1, 1, 2] and p.pairs == 6


def _run(exe: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "engine-tests" / "sprt.py"), "--new", exe, "--base", exe,
         "--openings", str(SUITE), "--tc", "nodes=400", "--elo0", "0", "--elo1", "60",
         "--option", "Hash=2", "--seed", "3", "--max-pairs", "300", "--concurrency", "2", *extra],
        capture_output=True, text=True, timeout=600)


def test_sprt_accepts_a_build_with_more_nodes_and_rejects_one_with_fewer(exe):
    stronger = _run(exe, "--new-nodes", "1600")
    assert stronger.returncode == 0, stronger.stdout[-2000:] + stronger.stderr[-2000:]
    assert "H1 accepted" in stronger.stdout.splitlines()[-1]
    weaker = _run(exe, "--base-nodes", "1600")
    assert weaker.returncode == 1, weaker.stdout[-2000:] + weaker.stderr[-2000:]
    assert "H0 accepted" in weaker.stdout.splitlines()[-1]
