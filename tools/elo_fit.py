#!/usr/bin/env python3
"""Fits the Elo ladder: reads gauntlet.py logs of node-limited matches and
places every player on one scale, with Stockfish at 1M nodes (`sf1M`) at 0.

    elo_fit.py LOG...

Each log's summary table gives W/D/L of its engine against each opponent.
Each pairing is one equation `elo(engine) - elo(opponent) = d` where `d` is
the logistic Elo difference of the score; the equations are solved by
weighted least squares (weight 1/variance of `d`, from the trinomial
variance of the score by the delta method), so a plain chain of rungs is
just the running sum of its differences and cross-checks (more pairings
than players) are averaged in. Prints every player's Elo with its standard
error, the `(nodes, elo)` points of the Archivist players (`archN`), and the
least-squares line through them in log2(nodes) that `src/book/format/elo.rs` uses.
"""
from __future__ import annotations

import math
import re
import sys

ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+[\d.]+%")
HEAD = re.compile(r"^Summary: (\S+) against")


def parse(path: str) -> list[tuple[str, str, int, int, int]]:
    """(engine, opponent, wins, draws, losses) per summary row."""
    out, engine = [], None
    for line in open(path, encoding="utf-8"):
        m = HEAD.match(line)
        if m:
            engine = m.group(1)
            continue
        m = ROW.match(line)
        if engine and m and m.group(1) != "total":
            out.append((engine, m.group(1), int(m.group(3)), int(m.group(4)), int(m.group(5))))
    return out


def difference(w: int, d: int, l: int) -> tuple[float, float]:
    """Elo difference and its variance for a W/D/L record (scores clamped
    away from 0 and 1 so that a shut-out still gives a finite, uncertain value)."""
    n = w + d + l
    s = (w + 0.5 * d) / n
    s = min(max(s, 0.5 / n), 1 - 0.5 / n)
    var_game = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n
    var_game = max(var_game, 0.25 / n)
    slope = 400 / (math.log(10) * s * (1 - s))
    return -400 * math.log10(1 / s - 1), slope ** 2 * var_game / n


def nodes_of(name: str) -> float:
    m = re.search(r"(\d+)([kM])$", name)
    return float(m.group(1)) * (1000 if m.group(2) == "k" else 1_000_000) if m else float("nan")


def solve(rows, anchor: str = "sf1M"):
    players = sorted({p for r in rows for p in r[:2]} - {anchor})
    index = {p: i for i, p in enumerate(players)}
    k = len(players)
    a = [[0.0] * k for _ in range(k)]
    b = [0.0] * k
    for eng, opp, w, d, l in rows:
        diff, var = difference(w, d, l)
        wt = 1 / var
        coeffs = {}
        if eng != anchor:
            coeffs[index[eng]] = coeffs.get(index[eng], 0) + 1
        if opp != anchor:
            coeffs[index[opp]] = coeffs.get(index[opp], 0) - 1
        for i, ci in coeffs.items():
            b[i] += wt * ci * diff
            for j, cj in coeffs.items():
                a[i][j] += wt * ci * cj
    inv = invert(a)
    x = [sum(inv[i][j] * b[j] for j in range(k)) for i in range(k)]
    return {anchor: (0.0, 0.0), **{p: (x[index[p]], math.sqrt(max(inv[index[p]][index[p]], 0))) for p in players}}


def invert(m):
    n = len(m)
    a = [row[:] + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        if abs(a[p][c]) < 1e-15:
            raise SystemExit(f"elo_fit: the pairings do not connect every player to the anchor (column {c})")
        a[c], a[p] = a[p], a[c]
        piv = a[c][c]
        a[c] = [v / piv for v in a[c]]
        for r in range(n):
            if r != c and a[r][c]:
                f = a[r][c]
                a[r] = [vr - f * vc for vr, vc in zip(a[r], a[c])]
    return [row[n:] for row in a]


def line_fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Ordinary least squares y = a + b x."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    b = sum((x - mx) * (y - my) for x, y in points) / sxx
    return my - b * mx, b


def main(paths: list[str]) -> int:
    rows = [r for p in paths for r in parse(p)]
    if not rows:
        print("elo_fit: no summary rows found", file=sys.stderr)
        return 2
    print("pairing                     games   W   D   L   score    elo diff  +/- (1 s.e.)")
    for eng, opp, w, d, l in rows:
        diff, var = difference(w, d, l)
        n = w + d + l
        print(f"{eng + ' vs ' + opp:<26} {n:>6} {w:>3} {d:>3} {l:>3}  {100 * (w + d / 2) / n:5.1f}%  {diff:+9.0f}  {math.sqrt(var):6.0f}")
    fit = solve(rows)
    print("\nplayer        elo vs sf1M   +/- (1 s.e.)")
    for p, (e, se) in sorted(fit.items(), key=lambda kv: -kv[1][0]):
        print(f"{p:<12} {e:+12.0f}   {se:8.0f}")
    arch = sorted((nodes_of(p), e) for p, (e, _) in fit.items() if p.startswith("arch"))
    if arch:
        print("\nCALIBRATION (nodes, elo) for src/book/format/elo.rs:")
        print("[" + ", ".join(f"({n:.0f}.0, {e:.0f}.0)" for n, e in arch) + "]")
    if len(arch) >= 2:
        a, b = line_fit([(math.log2(n / 1e6), e) for n, e in arch])
        print(f"least-squares line: elo(n) = {a:.0f} + {b:.1f} * log2(n / 1M)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
