//! The float network's forward and backward pass over a batch.
//!
//! For a sample with side-to-move inputs `F` and the other side's `F'`:
//!
//! ```text
//! acc = b + Σ_{f∈F} W[f],   acc' = b + Σ_{f∈F'} W[f],   a = clamp(·, 0, 1)
//! out = Σ a²·w_us + Σ a'²·w_them + b_out
//! p   = σ((out · SCALE + base) / s)          (s: the logistic's scale, --scale,
//!                                              400 the records' own; base: the
//!                                              sample's base score)
//! t   = λ · result + (1 − λ) · σ(cp / s)      (λ = --wdl; cp: the record's score)
//! L   = mean over the batch of (p − t)²
//! ```
//!
//! A batch is cut into [`CHUNKS`] fixed slices, each with its own gradient,
//! summed in slice order afterwards: the result does not depend on how many
//! threads computed the slices, so training is deterministic for a seed
//! whatever `--threads` is.

use super::data::{other_perspective, sigmoid, Sample};
use crate::nnue::FloatNetwork;

/// Slices per batch (and the most threads a batch can use).
pub const CHUNKS: usize = 8;

/// The loss gradient with respect to every parameter, laid out like the
/// network, plus the summed squared error.
#[derive(Clone, Debug)]
pub struct Gradient {
    pub feature_weights: Vec<f32>,
    pub feature_bias: Vec<f32>,
    pub output_weights: Vec<f32>,
    pub output_bias: f32,
    /// Σ (p − t)² over the samples (not divided by the count).
    pub squared_error: f64,
}

impl Gradient {
    pub fn zeros(hidden: usize) -> Gradient {
        Gradient {
            feature_weights: vec![0.0; crate::nnue::INPUTS * hidden],
            feature_bias: vec![0.0; hidden],
            output_weights: vec![0.0; 2 * hidden],
            output_bias: 0.0,
            squared_error: 0.0,
        }
    }

    fn clear(&mut self) {
        self.feature_weights.fill(0.0);
        self.feature_bias.fill(0.0);
        self.output_weights.fill(0.0);
        self.output_bias = 0.0;
        self.squared_error = 0.0;
    }

    fn add(&mut self, o: &Gradient) {
        add_into(&mut self.feature_weights, &o.feature_weights);
        add_into(&mut self.feature_bias, &o.feature_bias);
        add_into(&mut self.output_weights, &o.output_weights);
        self.output_bias += o.output_bias;
        self.squared_error += o.squared_error;
    }
}

#[inline]
fn add_into(dst: &mut [f32], src: &[f32]) {
    dst.iter_mut().zip(src).for_each(|(d, s)| *d += s);
}

/// Per-thread buffers of one sample's pass.
struct Scratch {
    acc: [Vec<f32>; 2],
    delta: [Vec<f32>; 2],
}

/// What a batch is trained towards.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// λ: weight of the game result against the search score.
    pub wdl: f32,
    /// `s`, the logistic's scale in centipawns: `p = σ(cp / s)`.
    pub scale: f32,
    /// `SCALE / s`: output units to logistic units.
    pub logit_scale: f32,
}

impl Target {
    /// The target of a network whose output is `out_scale` centipawns a
    /// unit, at the logistic scale `scale`.
    pub fn new(wdl: f32, scale: f32, out_scale: f32) -> Target {
        Target { wdl, scale, logit_scale: out_scale / scale }
    }

    #[inline]
    pub fn of(&self, s: &Sample) -> f32 {
        self.wdl * s.result + (1.0 - self.wdl) * s.score_at(self.scale)
    }

    /// The logistic's argument for a network output `out`: the output in
    /// centipawns plus the sample's base, over the scale.
    #[inline]
    pub fn logit(&self, out: f32, sample: &Sample) -> f32 {
        out * self.logit_scale + f32::from(sample.base) / self.scale
    }
}

/// The network's expected score for the side to move of `sample`, the same
/// formula as the trainer's forward pass (for tests and validation).
pub fn predict(net: &FloatNetwork, sample: &Sample, target: &Target) -> f32 {
    let mut s = Scratch { acc: [Vec::new(), Vec::new()], delta: [Vec::new(), Vec::new()] };
    sigmoid(target.logit(forward(net, sample, &mut s), sample))
}

/// The float network's output for `sample` in its own units (multiply by
/// the network's SCALE for centipawns), the trainer's forward pass.
pub fn output(net: &FloatNetwork, sample: &Sample) -> f32 {
    let mut s = Scratch { acc: [Vec::new(), Vec::new()], delta: [Vec::new(), Vec::new()] };
    forward(net, sample, &mut s)
}

/// The mean of `(p − t)²` over `samples` (0 for none).
pub fn mean_loss(net: &FloatNetwork, samples: &[Sample], target: &Target) -> f64 {
    let mut s = Scratch { acc: [Vec::new(), Vec::new()], delta: [Vec::new(), Vec::new()] };
    let total: f64 = samples
        .iter()
        .map(|sample| {
            let p = sigmoid(target.logit(forward(net, sample, &mut s), sample));
            f64::from((p - target.of(sample)).powi(2))
        })
        .sum();
    total / samples.len().max(1) as f64
}

/// Fills both accumulators; returns `out`.
fn forward(net: &FloatNetwork, sample: &Sample, s: &mut Scratch) -> f32 {
    let n = net.hidden();
    let w = net.feature_weights();
    for (side, acc) in s.acc.iter_mut().enumerate() {
        acc.clear();
        acc.extend_from_slice(net.feature_bias());
        for &f in sample.ours() {
            let f = usize::from(if side == 0 { f } else { other_perspective(f) });
            add_into(acc, &w[f * n..f * n + n]);
        }
    }
    let (w_us, w_them) = net.output_weights().split_at(n);
    let dot = |acc: &[f32], w: &[f32]| -> f32 {
        acc.iter()
            .zip(w)
            .map(|(&a, &w)| {
                let a = a.clamp(0.0, 1.0);
                a * a * w
            })
            .sum()
    };
    net.output_bias() + dot(&s.acc[0], w_us) + dot(&s.acc[1], w_them)
}

/// Adds `norm ×` the gradient of `(p − t)²` for one sample to `g`.
fn backward(net: &FloatNetwork, sample: &Sample, target: &Target, norm: f32, g: &mut Gradient, s: &mut Scratch) {
    let n = net.hidden();
    let out = forward(net, sample, s);
    let p = sigmoid(target.logit(out, sample));
    let err = p - target.of(sample);
    g.squared_error += f64::from(err * err);
    let d_out = 2.0 * err * p * (1.0 - p) * target.logit_scale * norm;
    g.output_bias += d_out;
    let ow = net.output_weights();
    for side in 0..2 {
        let w = &ow[side * n..side * n + n];
        let gw = &mut g.output_weights[side * n..side * n + n];
        let delta = &mut s.delta[side];
        delta.clear();
        delta.extend(s.acc[side].iter().zip(w).zip(gw.iter_mut()).map(|((&acc, &w), gw)| {
            let a = acc.clamp(0.0, 1.0);
            *gw += d_out * a * a;
            if acc > 0.0 && acc < 1.0 {
                2.0 * a * w * d_out
            } else {
                0.0
            }
        }));
        add_into(&mut g.feature_bias, delta);
        for &f in sample.ours() {
            let f = usize::from(if side == 0 { f } else { other_perspective(f) });
            add_into(&mut g.feature_weights[f * n..f * n + n], delta);
        }
    }
}

/// The mean-loss gradient of `batch` in `grads[0]` (the other slots are
/// scratch), computed on up to `threads` threads. `grads` holds
/// [`CHUNKS`] gradients of the network's size.
pub fn batch_gradient(net: &FloatNetwork, batch: &[Sample], target: &Target, threads: usize, grads: &mut [Gradient]) {
    debug_assert_eq!(grads.len(), CHUNKS);
    let norm = 1.0 / batch.len().max(1) as f32;
    let slice = |i: usize| &batch[i * batch.len() / CHUNKS..(i + 1) * batch.len() / CHUNKS];
    let work = |i: usize, g: &mut Gradient| {
        let mut s = Scratch { acc: [Vec::new(), Vec::new()], delta: [Vec::new(), Vec::new()] };
        g.clear();
        for sample in slice(i) {
            backward(net, sample, target, norm, g, &mut s);
        }
    };
    super::parallel::reduce_slots(grads, threads, work, Gradient::add);
}
