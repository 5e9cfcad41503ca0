//! Rounding a float network to the positions it will evaluate
//! ([`FloatNetwork::quantise_calibrated`]).
//!
//! Round-to-nearest ([`FloatNetwork::quantise_fitted`]) leaves each feature
//! weight up to ½ step (1/(2·QA)) off, and a position's accumulator adds
//! about 30 of those errors per unit: at QA = 255 that is most of the
//! quantised network's error against the float one (issue 65 measured
//! 0.6–0.8 cp of gen4-hw64's 1.25 cp mean). Which way each weight is
//! rounded is free, so this picks, weight by weight, the way that lowers
//! the squared error of the quantised output against the float output over
//! a set of calibration positions, the idea of Nagel et al.'s AdaRound
//! ("Up or Down?", 2020) done greedily:
//!
//! | parameter | choices | step |
//! | --- | --- | --- |
//! | feature weight `W·QA` | its floor or its ceiling | kept when the exact error falls |
//! | feature bias `b·QA` | within ±[`BIAS_REACH`] of its rounding | ±1 while the error falls |
//! | output weight `w·QB` | any integer within `±⌊32767 / QA⌋` | the exact least-squares step, rounded |
//! | output bias `b_out·QA·QB` | any `i32` | the exact least-squares step, rounded |
//!
//! The error is computed exactly, not linearised: the calibration keeps
//! every position's integer accumulators (neuron by neuron, so one neuron's
//! values over all positions are contiguous) and the exact output before
//! the final truncating division, and a change is applied only when it
//! lowers Σ (quantised − float)². QA, QB and SCALE are those of
//! `quantise_fitted`, so the result reads and evaluates like any network;
//! only some weights sit one step away from their nearest rounding.
//! Calibration positions must not be the ones the error is then measured on.

use super::{feature_index, FloatNetwork, Network};
use crate::board::Board;
use crate::types::Color;

/// How far a feature bias may move from its nearest rounding, in steps.
pub const BIAS_REACH: i32 = 2;
/// Passes over all parameters.
const SWEEPS: usize = 3;

/// The calibration state: the network being rounded, every position's
/// accumulators and its exact error.
struct Calibration {
    net: Network,
    /// Rounded-to-nearest feature biases, the centre of each bias's reach.
    nearest_bias: Vec<i32>,
    /// Per input `f`: the `(position · 2 + perspective)` slots where it is active, in order.
    by_feature: Vec<Vec<u32>>,
    /// Per slot: the offset of its half of the output weights (0 for the side to move, N for the other).
    half: Vec<u32>,
    /// `[N][2P]`: neuron `i`'s accumulator in every slot.
    acc: Vec<Vec<i32>>,
    /// Per position: the float network's output in centipawns, half a
    /// centipawn further from zero ([`toward_truncation`]).
    float: Vec<f64>,
    /// Per position: `S`, the sum of `v²·w` over both halves (see [`super::forward`]).
    sum: Vec<i64>,
}

impl FloatNetwork {
    /// [`quantise_fitted`](Self::quantise_fitted), then each weight rounded
    /// up or down as the calibration positions `boards` want it (module
    /// doc). With no positions it is `quantise_fitted` itself.
    pub fn quantise_calibrated(&self, boards: &[Board]) -> Network {
        let start = self.quantise_fitted();
        if boards.is_empty() {
            return start;
        }
        let mut cal = Calibration::new(self, start, boards);
        for _ in 0..SWEEPS {
            for neuron in 0..cal.net.hidden {
                for f in 0..super::INPUTS {
                    cal.try_feature_weight(self, f, neuron);
                }
                cal.step_feature_bias(neuron);
            }
            for j in 0..2 * cal.net.hidden {
                cal.fit_output_weight(j);
            }
            cal.fit_output_bias();
        }
        cal.net
    }
}

/// The value the exact output should have so that the forward pass's final
/// division, which truncates toward zero, lands on the integer nearest the
/// float output `cp`: half a centipawn further from zero.
fn toward_truncation(cp: f64) -> f64 {
    cp + 0.5 * cp.signum()
}

/// `clamp(x, 0, QA)²`.
fn screlu(x: i32, qa: i32) -> i64 {
    let v = i64::from(x.clamp(0, qa));
    v * v
}

impl Calibration {
    fn new(float: &FloatNetwork, net: Network, boards: &[Board]) -> Calibration {
        let (n, slots) = (net.hidden, 2 * boards.len());
        let mut by_feature = vec![Vec::new(); super::INPUTS];
        let mut half = Vec::with_capacity(slots);
        let mut acc: Vec<Vec<i32>> = net.feature_bias.iter().map(|&b| vec![i32::from(b); slots]).collect();
        for (p, board) in boards.iter().enumerate() {
            for (c_index, c) in [Color::White, Color::Black].into_iter().enumerate() {
                let slot = 2 * p + c_index;
                half.push(if c == board.side_to_move() { 0 } else { n as u32 });
                for sq in board.occupied() {
                    let Some(piece) = board.piece_on(sq) else { continue };
                    let f = feature_index(c, piece, sq);
                    by_feature[f].push(slot as u32);
                    for (i, column) in acc.iter_mut().enumerate() {
                        column[slot] += i32::from(net.feature_weights[f * n + i]);
                    }
                }
            }
        }
        let nearest_bias = net.feature_bias.iter().map(|&b| i32::from(b)).collect();
        let mut cal = Calibration {
            nearest_bias,
            by_feature,
            half,
            acc,
            float: boards.iter().map(|b| toward_truncation(float.evaluate(b))).collect(),
            sum: vec![0; boards.len()],
            net,
        };
        cal.recompute_sums();
        cal
    }

    fn qa(&self) -> i32 {
        i32::from(self.net.quant.qa)
    }

    fn recompute_sums(&mut self) {
        let qa = self.qa();
        self.sum.fill(0);
        for (i, column) in self.acc.iter().enumerate() {
            for (slot, &a) in column.iter().enumerate() {
                let w = i64::from(self.net.output_weights[self.half[slot] as usize + i]);
                self.sum[slot / 2] += screlu(a, qa) * w;
            }
        }
    }

    /// Centipawns per unit of `S` and per unit of the output bias.
    fn units(&self) -> (f64, f64) {
        let q = self.net.quant;
        let per_bias = f64::from(q.scale) / (f64::from(q.qa) * f64::from(q.qb));
        (per_bias / f64::from(q.qa), per_bias)
    }

    /// Position `p`'s error in centipawns before the final truncation.
    fn error(&self, p: usize) -> f64 {
        let (per_sum, per_bias) = self.units();
        self.sum[p] as f64 * per_sum + f64::from(self.net.output_bias) * per_bias - self.float[p]
    }

    /// The change in Σ error² if each `(p, d)` of `changes` added `d` to `S` of position `p`.
    fn objective_change(&self, changes: impl Iterator<Item = (usize, i64)>) -> f64 {
        let per_sum = self.units().0;
        changes
            .map(|(p, d)| {
                let e = self.error(p);
                let moved = e + d as f64 * per_sum;
                moved * moved - e * e
            })
            .sum()
    }

    /// The per-position changes of `S` if neuron `i`'s accumulator moved by
    /// `step` in `slots` (sorted; a position's two slots are adjacent).
    fn sum_changes(&self, i: usize, step: i32, slots: &[u32]) -> Vec<(usize, i64)> {
        let qa = self.qa();
        let mut out: Vec<(usize, i64)> = Vec::with_capacity(slots.len());
        for &slot in slots {
            let slot = slot as usize;
            let a = self.acc[i][slot];
            let w = i64::from(self.net.output_weights[self.half[slot] as usize + i]);
            let d = (screlu(a + step, qa) - screlu(a, qa)) * w;
            match out.last_mut() {
                Some((p, total)) if *p == slot / 2 => *total += d,
                _ => out.push((slot / 2, d)),
            }
        }
        out
    }

    fn apply(&mut self, i: usize, step: i32, slots: &[u32], changes: &[(usize, i64)]) {
        for &slot in slots {
            self.acc[i][slot as usize] += step;
        }
        for &(p, d) in changes {
            self.sum[p] += d;
        }
    }

    /// Rounds `W[f][i]·QA` the other way if that lowers the error.
    fn try_feature_weight(&mut self, float: &FloatNetwork, f: usize, i: usize) {
        let n = self.net.hidden;
        let exact = f64::from(float.feature_weights()[f * n + i]) * f64::from(self.net.quant.qa);
        let (floor, ceil) = (exact.floor(), exact.ceil());
        let current = self.net.feature_weights[f * n + i];
        if floor == ceil || !(-32767.0..=32767.0).contains(&floor) || !(-32767.0..=32767.0).contains(&ceil) {
            return;
        }
        let other = if f64::from(current) == floor { ceil } else { floor } as i16;
        let step = i32::from(other) - i32::from(current);
        let slots = std::mem::take(&mut self.by_feature[f]);
        let changes = self.sum_changes(i, step, &slots);
        if self.objective_change(changes.iter().copied()) < 0.0 {
            self.apply(i, step, &slots, &changes);
            self.net.feature_weights[f * n + i] = other;
        }
        self.by_feature[f] = slots;
    }

    /// Moves feature bias `i` by ±1 while that lowers the error, within
    /// [`BIAS_REACH`] of its nearest rounding.
    fn step_feature_bias(&mut self, i: usize) {
        let all: Vec<u32> = (0..self.half.len() as u32).collect();
        for step in [1, -1] {
            loop {
                let moved = i32::from(self.net.feature_bias[i]) + step;
                if (moved - self.nearest_bias[i]).abs() > BIAS_REACH {
                    break;
                }
                let changes = self.sum_changes(i, step, &all);
                if self.objective_change(changes.iter().copied()) >= 0.0 {
                    break;
                }
                self.apply(i, step, &all, &changes);
                self.net.feature_bias[i] = moved as i16;
            }
        }
    }

    /// Output weight `j` (of the side to move's half when `j < N`): the
    /// integer nearest the least-squares optimum, within the weight limit.
    fn fit_output_weight(&mut self, j: usize) {
        let (n, qa) = (self.net.hidden, self.qa());
        let (i, half) = (j % n, (j / n * n) as u32);
        let per_sum = self.units().0;
        // S of position p moves by t·v² where v is the accumulator of the slot using this half.
        let v2: Vec<(usize, i64)> = (0..self.half.len())
            .filter(|&slot| self.half[slot] == half)
            .map(|slot| (slot / 2, screlu(self.acc[i][slot], qa)))
            .collect();
        let (mut cross, mut square) = (0.0, 0.0);
        for &(p, v) in &v2 {
            let d = v as f64 * per_sum;
            cross += self.error(p) * d;
            square += d * d;
        }
        if square == 0.0 {
            return;
        }
        let limit = i32::from(self.net.quant.max_output_weight());
        let current = i32::from(self.net.output_weights[j]);
        let best = (f64::from(current) - cross / square).round().clamp(f64::from(-limit), f64::from(limit)) as i32;
        let t = i64::from(best - current);
        if t != 0 {
            for &(p, v) in &v2 {
                self.sum[p] += t * v;
            }
            self.net.output_weights[j] = best as i16;
        }
    }

    /// The output bias at the least-squares optimum (the mean error removed).
    fn fit_output_bias(&mut self) {
        let per_bias = self.units().1;
        let mean = (0..self.sum.len()).map(|p| self.error(p)).sum::<f64>() / self.sum.len() as f64;
        let t = (-mean / per_bias).round();
        let moved = (f64::from(self.net.output_bias) + t).clamp(f64::from(i32::MIN), f64::from(i32::MAX));
        self.net.output_bias = moved as i32;
    }
}
