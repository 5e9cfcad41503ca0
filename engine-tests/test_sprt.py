"""The SPRT runner: its statistics, and that it tells a stronger build from a weaker one."""
from __future__ import annotations

import math
import subprocess
import sys

from conftest import ROOT

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
        [sys.executable, str(ROOT / "tools" / "sprt.py"), "--new", exe, "--base", exe,
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


def _log(tmp_path, *lines: str):
    path = tmp_path / "sprt.log"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


HEADER = ("SPRT: new (./a) vs base (./b) at nodes=400, nElo [0, 60], alpha 0.05, beta 0.05, "
          "LLR bounds [-2.94, 2.94], 3000 openings (seed 3), concurrency 2")


def test_a_resumed_run_keeps_the_counts_and_skips_the_openings_already_started(tmp_path):
    log = _log(tmp_path, HEADER,
               "pairs 1 games 2 W-D-L 1-1-0 penta [0, 0, 0, 1, 0] Elo +1 ± 1 nElo +1 ± 1 LLR +0.01 [-2.94, 2.94]",
               "pairs 2 games 4 W-D-L 1-3-0 penta [0, 0, 1, 1, 0] Elo +1 ± 1 nElo +1 ± 1 LLR +0.01 [-2.94, 2.94]")
    r = sprt.read_log(str(log))
    assert (r.seed, r.penta, r.wdl) == (3, [0, 0, 1, 1, 0], [1, 3, 0])
    assert r.next_pair == 4            # openings 0 and 1 done, 2 and 3 perhaps under way
    # A resumed run's own log resumes where it stopped.
    log2 = _log(tmp_path, HEADER, "resumed from x: 2 pairs, next opening 5",
                "pairs 3 games 6 W-D-L 2-3-1 penta [0, 0, 2, 1, 0] Elo +1 ± 1 nElo +1 ± 1 LLR +0.01 [-2.94, 2.94]")
    assert sprt.read_log(str(log2)).next_pair == 4 + 1 + 2


def test_resume_refuses_a_finished_run_and_a_log_of_another_test(tmp_path, exe):
    done = _log(tmp_path, HEADER, "SPRT nodes=400 nElo [0, 60]: H1 accepted; pairs 9")
    try:
        sprt.read_log(str(done))
        raise AssertionError("a finished run was resumed")
    except ValueError as e:
        assert "verdict" in str(e)
    other = _log(tmp_path, HEADER.replace("seed 3", "seed 4"))
    res = _run(exe, "--resume", str(other))
    assert res.returncode == 2 and "seed 3 differs" in res.stderr
    other = _log(tmp_path, HEADER.replace("./a", "./c").replace("seed 3", "seed 3"))
    res = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "sprt.py"), "--new", exe, "--base", exe,
         "--openings", str(SUITE), "--tc", "nodes=400", "--resume", str(other)],
        capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and "another test" in res.stderr


def test_each_sides_own_node_count_is_part_of_the_test_a_resume_must_match(tmp_path, exe):
    def header(limit: str) -> str:   # the test `_run` starts, at this limit
        return (f"SPRT: new ({exe}) vs base ({exe}) at {limit}, nElo [0, 60], alpha 0.05, beta 0.05, "
                "LLR bounds [-2.94, 2.94], 3000 openings (seed 3), concurrency 2")

    uneven = _log(tmp_path, header("nodes=400 (new 800, base 400)"))
    res = _run(exe, "--resume", str(uneven), "--new-nodes", "1600")
    assert res.returncode == 2 and "another test" in res.stderr, res.stderr
    assert "(new 800, base 400)" in res.stderr and "(new 1600, base 400)" in res.stderr
    even = _log(tmp_path, header("nodes=400"))
    res = _run(exe, "--resume", str(even), "--new-nodes", "800")
    assert res.returncode == 2 and "another test" in res.stderr, res.stderr
