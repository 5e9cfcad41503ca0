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
//!
//! The update itself ([`Step::apply`]) is the one optimiser of both
//! trainers: the network's, in `f32` ([`AdamW`]), and the hand-written
//! evaluation's tuner ([`super::hce`]), in `f64` with no decay and no clip.

use super::grad::Gradient;
use crate::nnue::FloatNetwork;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// A float the optimiser works in.
pub trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    const ONE: Self;
    const BETA1: Self;
    const BETA2: Self;
    const EPSILON: Self;
    fn sqrt(self) -> Self;
    fn powi(self, n: i32) -> Self;
    fn clamp(self, lo: Self, hi: Self) -> Self;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const ONE: $t = 1.0;
            const BETA1: $t = 0.9;
            const BETA2: $t = 0.999;
            const EPSILON: $t = 1e-8;
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            fn powi(self, n: i32) -> $t {
                <$t>::powi(self, n)
            }
            fn clamp(self, lo: $t, hi: $t) -> $t {
                <$t>::clamp(self, lo, hi)
            }
        }
    )*};
}
real!(f32, f64);

/// One optimiser step: the learning rate and Adam's bias corrections after
/// `t` steps.
#[derive(Clone, Copy, Debug)]
pub struct Step<F> {
    lr: F,
    c1: F,
    c2: F,
}

impl<F: Real> Step<F> {
    /// The `t`-th step (from 1) with learning rate `lr`.
    pub fn new(lr: F, t: u64) -> Step<F> {
        let t = t.min(i32::MAX as u64) as i32;
        Step { lr, c1: F::ONE / (F::ONE - F::BETA1.powi(t)), c2: F::ONE / (F::ONE - F::BETA2.powi(t)) }
    }

    /// Updates the parameters `x` with their gradient `g` and moments `m`,
    /// `v` (see the module doc): decoupled weight decay `decay`, then
    /// clipped to ±`clip`.
    pub fn apply(&self, x: &mut [F], g: &[F], m: &mut [F], v: &mut [F], decay: F, clip: F) {
        let Step { lr, c1, c2 } = *self;
        for (((x, &g), m), v) in x.iter_mut().zip(g).zip(m.iter_mut()).zip(v.iter_mut()) {
            *m = F::BETA1 * *m + (F::ONE - F::BETA1) * g;
            *v = F::BETA2 * *v + (F::ONE - F::BETA2) * g * g;
            let stepped = *x - lr * ((*m * c1) / ((*v * c2).sqrt() + F::EPSILON) + decay * *x);
            *x = stepped.clamp(-clip, clip);
        }
    }
}

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
        let step = Step::new(lr, self.steps);
        let n = net.hidden();
        let (w_end, b_end, o_end) =
            (crate::nnue::INPUTS * n, crate::nnue::INPUTS * n + n, crate::nnue::INPUTS * n + 3 * n);
        let update = |x: &mut [f32], g: &[f32], m: &mut [f32], v: &mut [f32], decay: f32, clip: f32| {
            step.apply(x, g, m, v, decay, clip);
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
