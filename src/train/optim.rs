//! AdamW with parameter clipping.
//!
//! For every parameter `x` with gradient `g`, after `t` steps:
//!
//! ```text
//! m ← β1·m + (1 − β1)·g          v ← β2·v + (1 − β2)·g²
//! x ← x − lr·( m/(1 − β1^t) / (√(v/(1 − β2^t)) + ε) + decay·x )   (decay: weights only)
//! x ← clamp(x, −CLIP, CLIP)                                        (all but the output bias)
//! ```
//!
//! with β1 = 0.9, β2 = 0.999, ε = 1e−8, decay = 0.01 and CLIP = 1.98: the
//! quantised output weights must stay within ±⌊32767 / QA⌋ / QB (2.0 for
//! the default constants), and feature weights this small keep the `i16`
//! accumulators far from overflow.

use super::grad::Gradient;
use crate::nnue::FloatNetwork;

pub const BETA1: f32 = 0.9;
pub const BETA2: f32 = 0.999;
pub const EPSILON: f32 = 1e-8;
pub const DECAY: f32 = 0.01;
pub const CLIP: f32 = 1.98;

/// The optimiser's moments, one pair per parameter in the network file's
/// order (feature weights, feature biases, output weights, output bias).
#[derive(Clone, Debug, PartialEq)]
pub struct AdamW {
    pub m: Vec<f32>,
    pub v: Vec<f32>,
    pub steps: u64,
}

/// Parameters of a network of hidden size `hidden`.
pub const fn parameter_count(hidden: usize) -> usize {
    crate::nnue::INPUTS * hidden + hidden + 2 * hidden + 1
}

impl AdamW {
    pub fn new(hidden: usize) -> AdamW {
        let p = parameter_count(hidden);
        AdamW { m: vec![0.0; p], v: vec![0.0; p], steps: 0 }
    }

    /// One step with learning rate `lr`.
    pub fn step(&mut self, net: &mut FloatNetwork, g: &Gradient, lr: f32) {
        self.steps += 1;
        let t = self.steps.min(i32::MAX as u64) as i32;
        let c1 = 1.0 / (1.0 - BETA1.powi(t));
        let c2 = 1.0 / (1.0 - BETA2.powi(t));
        let n = net.hidden();
        let (w_end, b_end, o_end) =
            (crate::nnue::INPUTS * n, crate::nnue::INPUTS * n + n, crate::nnue::INPUTS * n + 3 * n);
        let update = |x: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], decay: f32, clip: f32| {
            for (((x, &g), m), v) in x.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
                *m = BETA1 * *m + (1.0 - BETA1) * g;
                *v = BETA2 * *v + (1.0 - BETA2) * g * g;
                let stepped = *x - lr * ((*m * c1) / ((*v * c2).sqrt() + EPSILON) + decay * *x);
                *x = stepped.clamp(-clip, clip);
            }
        };
        let (m, v) = (&mut self.m, &mut self.v);
        update(net.feature_weights_mut(), &g.feature_weights, &mut m[..w_end], &mut v[..w_end], DECAY, CLIP);
        update(net.feature_bias_mut(), &g.feature_bias, &mut m[w_end..b_end], &mut v[w_end..b_end], 0.0, CLIP);
        update(net.output_weights_mut(), &g.output_weights, &mut m[b_end..o_end], &mut v[b_end..o_end], DECAY, CLIP);
        let mut bias = [net.output_bias()];
        update(&mut bias, &[g.output_bias], &mut m[o_end..], &mut v[o_end..], 0.0, f32::MAX);
        net.set_output_bias(bias[0]);
    }
}
