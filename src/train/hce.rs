//! `archivist tune`: fits the weights of the hand-written evaluation
//! ([`crate::eval::tune`]) to self-play records by Texel's method.
//!
//! Every position the trainer's [`Filter`] keeps becomes its feature counts
//! ([`features`]) with the game result and the search score, both from
//! white's view. The prediction is σ(K·eval), σ(x) = 1 / (1 + 10^(−x/400)).
//! K is first fitted to the results with the weights in use (unless given);
//! the target is λ·result + (1 − λ)·σ(K·score). Full-batch Adam minimises the
//! mean squared error over the training positions; every
//! [`VALIDATION_EVERY`]th kept position is held out, never trained on, and
//! its error reported.
//!
//! Determinism: the gradient is summed over fixed chunks of [`CHUNK`]
//! positions in chunk order, so any thread count gives the same weights.

use super::data::{kept_positions, Dataset, Filter, FilterCounts};
use super::TrainError;
use crate::eval::tune::{features, taper, Features};
use crate::eval::{layout, TEMPO};
use crate::records::score;

/// One position in this many is held out for validation.
pub const VALIDATION_EVERY: usize = 20;
/// Positions per gradient chunk.
pub const CHUNK: usize = 16_384;

/// The settings of a tuning run.
#[derive(Clone, Debug)]
pub struct HceConfig {
    pub iterations: u32,
    /// Adam's step size, in centipawns.
    pub lr: f64,
    /// λ: weight of the game result in the target (0 = search score only).
    pub lambda: f64,
    /// K of the sigmoid; fitted to the results when `None`.
    pub k: Option<f64>,
    pub threads: usize,
    /// L2 pull towards the starting weights: `l2·Σ(w − w₀)²` is added to the
    /// error, so weights of rare features stay near their start.
    pub l2: f64,
    /// Weight groups (by [`layout::name`]) left as they start.
    pub freeze: Vec<String>,
}

/// One position: where its counts are, how they blend, and its labels.
#[derive(Clone, Copy, Debug)]
struct Entry {
    start: u32,
    len: u16,
    phase: u8,
    scale: u8,
    tempo: i8,
    /// White's game result, 1, 0.5 or 0.
    result: f32,
    /// The search score, white's view, in centipawns.
    cp: f32,
}

/// The kept positions of a data set as features, split into training and
/// validation sets.
pub struct Positions {
    counts: Vec<(u16, i16)>,
    train: Vec<Entry>,
    validation: Vec<Entry>,
    pub filtered: FilterCounts,
}

impl Positions {
    /// Reads every kept position of `data`.
    pub fn load(data: &Dataset, filter: &Filter) -> Result<Positions, TrainError> {
        let mut p =
            Positions { counts: Vec::new(), train: Vec::new(), validation: Vec::new(), filtered: Default::default() };
        let mut n = 0usize;
        p.filtered = data.for_each_game(|game, counts| {
            let white_result = game.result.white_score() as f32;
            kept_positions(game, filter, counts, |board, stored| {
                let f: Features = features(board);
                let sign = board.side_to_move().sign();
                let entry = Entry {
                    start: p.counts.len() as u32,
                    len: f.counts.len() as u16,
                    phase: f.phase as u8,
                    scale: f.scale as u8,
                    tempo: f.tempo_sign as i8,
                    result: white_result,
                    cp: (score::to_cp(stored) * sign) as f32,
                };
                p.counts.extend_from_slice(&f.counts);
                n += 1;
                if n % VALIDATION_EVERY == 0 {
                    p.validation.push(entry);
                } else {
                    p.train.push(entry);
                }
            });
        })?;
        if p.train.is_empty() {
            return Err(TrainError::NothingKept { leg: 1 });
        }
        Ok(p)
    }

    pub fn train_len(&self) -> usize {
        self.train.len()
    }

    pub fn validation_len(&self) -> usize {
        self.validation.len()
    }
}

/// σ(K·x) with x in centipawns.
#[inline]
fn sigmoid(k: f64, x: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-k * x / crate::types::LOGISTIC_SCALE))
}

/// The white-view evaluation of `e` under weights `w` (`[mg, eg]` pairs
/// flattened), and the derivative factors of its mg and eg parts.
#[inline]
fn eval(counts: &[(u16, i16)], e: &Entry, w: &[f64]) -> (f64, f64, f64) {
    let (mut mg, mut eg) = (0.0, 0.0);
    for &(i, n) in &counts[e.start as usize..e.start as usize + usize::from(e.len)] {
        let i = 2 * usize::from(i);
        mg += f64::from(n) * w[i];
        eg += f64::from(n) * w[i + 1];
    }
    let (mg_factor, eg_factor) = taper(i32::from(e.phase), i32::from(e.scale));
    (mg * mg_factor + eg * eg_factor + f64::from(TEMPO) * f64::from(e.tempo), mg_factor, eg_factor)
}

/// The target of `e`.
#[inline]
fn target(e: &Entry, k: f64, lambda: f64) -> f64 {
    lambda * f64::from(e.result) + (1.0 - lambda) * sigmoid(k, f64::from(e.cp))
}

/// Sum of squared errors over `entries` and, when `grad` is given, its
/// gradient added into it.
fn error_sum(
    counts: &[(u16, i16)],
    entries: &[Entry],
    w: &[f64],
    k: f64,
    lambda: f64,
    mut grad: Option<&mut [f64]>,
) -> f64 {
    let mut sum = 0.0;
    let dk = k * std::f64::consts::LN_10 / crate::types::LOGISTIC_SCALE;
    for e in entries {
        let (x, phase, eg_factor) = eval(counts, e, w);
        let p = sigmoid(k, x);
        let err = p - target(e, k, lambda);
        sum += err * err;
        if let Some(g) = grad.as_deref_mut() {
            let d = 2.0 * err * p * (1.0 - p) * dk;
            let (dm, de) = (d * phase, d * eg_factor);
            for &(i, n) in &counts[e.start as usize..e.start as usize + usize::from(e.len)] {
                let i = 2 * usize::from(i);
                g[i] += dm * f64::from(n);
                g[i + 1] += de * f64::from(n);
            }
        }
    }
    sum
}

/// A chunk's sum of squared errors and its gradient.
type ChunkSum = (f64, Vec<f64>);

/// Mean squared error over `entries` and its gradient, on `threads` threads,
/// summed chunk by chunk in order.
fn mean_error(
    counts: &[(u16, i16)],
    entries: &[Entry],
    w: &[f64],
    k: f64,
    lambda: f64,
    threads: usize,
    want_grad: bool,
) -> (f64, Vec<f64>) {
    let chunks: Vec<&[Entry]> = entries.chunks(CHUNK).collect();
    // A first slot of zeros: the fold adds every chunk to it, in order.
    let zeros = (0.0, vec![0.0; if want_grad { w.len() } else { 0 }]);
    let mut slots: Vec<ChunkSum> = std::iter::once(zeros).chain(chunks.iter().map(|_| (0.0, Vec::new()))).collect();
    let work = |i: usize, slot: &mut ChunkSum| {
        let Some(chunk) = i.checked_sub(1).and_then(|c| chunks.get(c)) else { return };
        let mut g = if want_grad { vec![0.0; w.len()] } else { Vec::new() };
        let sum = error_sum(counts, chunk, w, k, lambda, want_grad.then_some(&mut g[..]));
        *slot = (sum, g);
    };
    let add = |total: &mut ChunkSum, other: &ChunkSum| {
        total.0 += other.0;
        for (a, b) in total.1.iter_mut().zip(&other.1) {
            *a += b;
        }
    };
    super::parallel::reduce_slots(&mut slots, threads, work, add);
    let n = entries.len().max(1) as f64;
    let (total, mut grad) = std::mem::take(&mut slots[0]);
    grad.iter_mut().for_each(|x| *x /= n);
    (total / n, grad)
}

/// What a run reports as it goes.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    FittedK { k: f64, error: f64 },
    Progress { iteration: u32, train: f64, validation: f64 },
}

/// Tunes `start` (`(mg, eg)` pairs in layout order) on `data`; returns the
/// new weights.
pub fn tune(
    data: &Positions,
    start: &[(f64, f64)],
    config: &HceConfig,
    mut report: impl FnMut(Event),
) -> Result<Vec<(f64, f64)>, TrainError> {
    if !(0.0..=1.0).contains(&config.lambda) || config.lr <= 0.0 {
        return Err(TrainError::Config("lambda must be in 0..=1 and lr positive".into()));
    }
    let mut w: Vec<f64> = start.iter().flat_map(|&(m, e)| [m, e]).collect();
    let w0 = w.clone();
    let frozen: Vec<bool> = (0..start.len()).map(|i| config.freeze.iter().any(|g| g == layout::name(i).0)).collect();
    if let Some(bad) = config.freeze.iter().find(|g| !(0..layout::COUNT).any(|i| layout::name(i).0 == g.as_str())) {
        return Err(TrainError::Config(format!("no weight group {bad}")));
    }
    let threads = config.threads.max(1);
    let k = match config.k {
        Some(k) => k,
        None => {
            let k = fit_k(|k| mean_error(&data.counts, &data.train, &w, k, 1.0, threads, false).0);
            let error = mean_error(&data.counts, &data.train, &w, k, 1.0, threads, false).0;
            report(Event::FittedK { k, error });
            k
        }
    };
    let mut m = vec![0.0; w.len()];
    let mut v = vec![0.0; w.len()];
    for it in 1..=config.iterations {
        let (train, mut g) = mean_error(&data.counts, &data.train, &w, k, config.lambda, threads, true);
        for (i, ((g, w), w0)) in g.iter_mut().zip(&w).zip(&w0).enumerate() {
            *g = if frozen[i / 2] { 0.0 } else { *g + 2.0 * config.l2 * (w - w0) };
        }
        // The trainer's optimiser (train::optim) without decay or clip.
        super::optim::Step::new(config.lr, u64::from(it)).apply(&mut w, &g, &mut m, &mut v, 0.0, f64::INFINITY);
        if it == 1 || it % 50 == 0 || it == config.iterations {
            let validation = mean_error(&data.counts, &data.validation, &w, k, config.lambda, threads, false).0;
            report(Event::Progress { iteration: it, train, validation });
        }
    }
    Ok(w.chunks(2).map(|p| (p[0], p[1])).collect())
}

/// The K in 0.05..4 that minimises `error` (golden-section search).
fn fit_k(error: impl Fn(f64) -> f64) -> f64 {
    let (mut a, mut b) = (0.05, 4.0);
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut c, mut d) = (b - r * (b - a), a + r * (b - a));
    let (mut fc, mut fd) = (error(c), error(d));
    for _ in 0..40 {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - r * (b - a);
            fc = error(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + r * (b - a);
            fd = error(d);
        }
    }
    (a + b) / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries() -> (Vec<(u16, i16)>, Vec<Entry>) {
        let counts = vec![(0, 1), (1, -2), (0, 3), (2, 1), (1, 1)];
        let e = |start, len, phase, scale, result, cp| Entry { start, len, phase, scale, tempo: 1, result, cp };
        (counts, vec![e(0, 2, 24, 64, 1.0, 80.0), e(2, 2, 10, 64, 0.5, -20.0), e(4, 1, 0, 16, 0.0, -150.0)])
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let (counts, es) = entries();
        let w = vec![30.0, 20.0, -15.0, 40.0, 5.0, -7.0];
        let (_, g) = mean_error(&counts, &es, &w, 1.1, 0.5, 2, true);
        for i in 0..w.len() {
            let h = 1e-4;
            let (mut up, mut down) = (w.clone(), w.clone());
            up[i] += h;
            down[i] -= h;
            let numeric = (mean_error(&counts, &es, &up, 1.1, 0.5, 1, false).0
                - mean_error(&counts, &es, &down, 1.1, 0.5, 1, false).0)
                / (2.0 * h);
            assert!((numeric - g[i]).abs() < 1e-7, "weight {i}: numeric {numeric} vs analytic {}", g[i]);
        }
    }

    #[test]
    fn fitted_k_is_the_minimum_of_a_convex_error() {
        let k = fit_k(|k| (k - 1.3) * (k - 1.3) + 2.0);
        assert!((k - 1.3).abs() < 1e-6, "{k}");
    }

    #[test]
    fn adam_lowers_the_error_and_thread_count_does_not_matter() {
        let (counts, es) = entries();
        let data = Positions { counts, train: es.clone(), validation: es, filtered: Default::default() };
        let start = vec![(0.0, 0.0); 3];
        let config =
            HceConfig { iterations: 200, lr: 2.0, lambda: 1.0, k: Some(1.0), threads: 1, l2: 0.0, freeze: Vec::new() };
        let mut errors = Vec::new();
        let one = tune(&data, &start, &config, |e| {
            if let Event::Progress { train, .. } = e {
                errors.push(train)
            }
        })
        .expect("valid settings");
        assert!(errors.last() < errors.first(), "{errors:?}");
        let two = tune(&data, &start, &HceConfig { threads: 2, ..config.clone() }, |_| {}).expect("valid settings");
        assert_eq!(one, two);
    }
}
