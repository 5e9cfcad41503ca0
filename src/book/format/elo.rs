//! The Elo estimate stored in YACB entries: what analysis by this engine is
//! worth against the seed's baseline (Stockfish, 1 thread, 1M nodes per move
//! = 0), as a function of the nodes spent and the threads that spent them.
//!
//! The model is measured, not guessed; the games behind it are described in
//! `tools/elo_ladder.md` and can be replayed with `make elo-ladder`.
//!
//! 1. **Nodes.** Archivist (1 thread) was placed on the baseline's scale at
//!    64k, 256k and 1M nodes per move through a ladder of node-limited
//!    Stockfish 15.1 rungs ([`CALIBRATION`]); the estimate is the
//!    least-squares line through those points in log2(nodes),
//!    [`ELO_AT_1M`] + [`ELO_PER_DOUBLING`] · log2(nodes / 1M), within one
//!    standard error of each point. Outside 64k..1M it is an extrapolation
//!    of the same line, not a measurement.
//! 2. **Threads.** `t` threads that search `n` nodes in total are worth one
//!    thread searching `n · s(t) / t` nodes, where `s(t)` is the Lazy SMP
//!    time-to-depth speed-up: `make smp-bench` measures `s(2) = 1.61` on this
//!    machine, and `s(t) = t^0.69` extends it (the same exponent).
//! 3. **Depth** (for entries taken from a saved TT, which knows depths and
//!    not nodes): [`nodes_for_depth`] is the geometric mean of the nodes the
//!    bench positions need to complete that depth from an empty table.
//!
//! Estimates are clamped to the stored range; −1 is stored as −2 by
//! [`super::yacb::Elo::rated`].

/// Measured (nodes per move, Elo vs the baseline, standard error),
/// Archivist with 1 thread (`tools/elo_ladder.md`).
pub const CALIBRATION: [(f64, f64, f64); 3] =
    [(64_000.0, -988.0, 80.0), (256_000.0, -895.0, 76.0), (1_000_000.0, -712.0, 70.0)];

/// The fitted line: Elo at 1M nodes on one thread ...
pub const ELO_AT_1M: f64 = -728.0;
/// ... and the gain per doubling of the nodes.
pub const ELO_PER_DOUBLING: f64 = 69.3;

/// Exponent of the Lazy SMP speed-up, `s(t) = t^SMP_EXPONENT` (s(2) = 1.61).
pub const SMP_EXPONENT: f64 = 0.69;

/// (depth, geometric-mean nodes to complete it) over the 50 bench positions
/// from an empty table (`archivist bench D` for D = 2, 4, …, 16).
pub const DEPTH_NODES: [(i32, f64); 8] = [
    (2, 136.0),
    (4, 350.0),
    (6, 1_235.0),
    (8, 4_401.0),
    (10, 13_968.0),
    (12, 41_777.0),
    (14, 102_194.0),
    (16, 232_451.0),
];

/// Single-thread nodes that `nodes` spread over `threads` threads are worth.
pub fn effective_nodes(nodes: u64, threads: usize) -> f64 {
    let t = threads.max(1) as f64;
    nodes.max(1) as f64 * t.powf(SMP_EXPONENT) / t
}

/// Estimated Elo of analysis with `nodes` nodes per position on `threads`
/// threads, relative to the baseline.
pub fn estimate(nodes: u64, threads: usize) -> i32 {
    let elo = ELO_AT_1M + ELO_PER_DOUBLING * (effective_nodes(nodes, threads) / 1e6).log2();
    elo.round().clamp(i16::MIN as f64, i16::MAX as f64 - 1.0) as i32
}

/// Nodes a search of this depth typically costs (log-linear between the
/// measured depths, extended with the last measured growth per ply).
pub fn nodes_for_depth(depth: i32) -> u64 {
    let pts = &DEPTH_NODES;
    let ln = |i: usize| pts[i].1.ln();
    let per_ply = |i: usize, j: usize| (ln(j) - ln(i)) / (pts[j].0 - pts[i].0) as f64;
    let last = pts.len() - 1;
    let d = depth.max(1);
    let l = if d <= pts[0].0 {
        ln(0) + per_ply(0, 1) * (d - pts[0].0) as f64
    } else if d >= pts[last].0 {
        ln(last) + per_ply(last - 1, last) * (d - pts[last].0) as f64
    } else {
        let i = pts.windows(2).position(|w| d <= w[1].0).unwrap_or(last - 1);
        ln(i) + per_ply(i, i + 1) * (d - pts[i].0) as f64
    };
    l.exp().clamp(1.0, 1e18) as u64
}

/// Estimated Elo of a TT entry of this depth (searched by one thread).
pub fn estimate_for_depth(depth: i32) -> i32 {
    estimate(nodes_for_depth(depth), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_is_within_one_standard_error_of_every_measured_point() {
        for &(n, e, se) in &CALIBRATION {
            let got = estimate(n as u64, 1) as f64;
            assert!((got - e).abs() <= se, "{n} nodes: {got} vs measured {e} ± {se}");
        }
        assert_eq!(estimate(1_000_000, 1), -728);
    }

    #[test]
    fn estimate_grows_with_nodes_and_stays_in_range() {
        let mut prev = i32::MIN;
        for shift in 0..50 {
            let e = estimate(1u64 << shift, 1);
            assert!(e >= prev, "{shift}: {e} < {prev}");
            assert!((i16::MIN as i32..i16::MAX as i32).contains(&e));
            prev = e;
        }
    }

    #[test]
    fn two_threads_are_worth_less_than_twice_the_nodes_on_one() {
        let one = estimate(1_000_000, 1);
        let two = estimate(1_000_000, 2);
        assert!(two < one, "the same total nodes on two threads: {two} vs {one}");
        assert!(estimate(2_000_000, 2) > one);
        assert!((effective_nodes(1_000_000, 2) - 806_600.0).abs() < 1_000.0);
    }

    #[test]
    fn deeper_entries_rate_higher() {
        let mut prev = 0;
        for d in 1..40 {
            let n = nodes_for_depth(d);
            assert!(n > prev, "{d}");
            prev = n;
        }
        assert!(estimate_for_depth(20) > estimate_for_depth(10));
    }
}
