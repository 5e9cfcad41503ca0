//! The float network a trainer works on, its reference forward pass and its
//! quantisation into a [`Network`].
//!
//! Quantisation (round to nearest, ties away from zero, then clamp):
//!
//! | float | quantised | clamp |
//! | --- | --- | --- |
//! | feature weight `W` | `round(W·QA)` (i16) | `±32767` |
//! | feature bias `b` | `round(b·QA)` (i16) | `±32767` |
//! | output weight `w` | `round(w·QB)` (i16) | `±⌊32767 / QA⌋` (about ±2.0 for QA = 255, QB = 64) |
//! | output bias `b_out` | `round(b_out·QA·QB)` (i32) | i32 range |
//!
//! [`FloatNetwork::quantise`] uses the float network's own constants;
//! [`FloatNetwork::quantise_fitted`] (what the trainer writes) keeps QA and
//! SCALE and takes the largest QB at which no output weight is clamped
//! (`QB = ⌊⌊32767 / QA⌋ / max |w|⌋`, at most [`MAX_FITTED_QB`]): the output
//! weights' rounding is the largest part of the quantised network's error
//! at QB = 64 (issue 65 measured a mean of −7 to +5 cp on committed
//! networks, 1–1.4 cp at the fitted QB), and the file stores QB, so every
//! reader takes it as it comes.
//!
//! A float activation of 1.0 is QA in the accumulator, so the trainer should
//! keep `|b| + Σ|W|` over any 32 active inputs well below `32767 / QA`
//! (about 128 for QA = 255): the quantised accumulators are `i16` and wrap.

use super::{is_valid_hidden, Base, NetError, Network, Quantisation, INPUTS};
use crate::board::Board;
use crate::codec::SplitMix64;
use crate::types::Color;

/// The largest QB [`FloatNetwork::quantise_fitted`] picks: with QA ≤ 255
/// the output bias `b_out·QA·QB` stays far inside `i32` for any trained bias.
pub const MAX_FITTED_QB: u16 = 1024;

/// The network in `f32`, laid out like the file: feature weights `[768][N]`,
/// feature biases `[N]`, output weights `[2N]` (side to move's half first),
/// output bias. The sizes are fixed at construction; the trainer changes
/// the values through the `*_mut` accessors.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    hidden: usize,
    quant: Quantisation,
    base: Base,
    feature_weights: Vec<f32>,
    feature_bias: Vec<f32>,
    output_weights: Vec<f32>,
    output_bias: f32,
}

/// Uniform in `[lo, hi)`, from the top 24 bits of `rng` (exact in f32).
fn uniform(rng: &mut SplitMix64, lo: f32, hi: f32) -> f32 {
    let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    lo + (hi - lo) * unit
}

fn round_clamp(x: f64, limit: f64) -> f64 {
    x.round().clamp(-limit, limit)
}

impl FloatNetwork {
    /// An all-zero network of hidden size `hidden` with constants `quant`.
    pub fn zeros(hidden: usize, quant: Quantisation) -> Result<FloatNetwork, NetError> {
        if !is_valid_hidden(hidden) {
            let hidden = u32::try_from(hidden).unwrap_or(u32::MAX);
            return Err(NetError::Header(super::header::HeaderError::BadHiddenSize { offset: 12, hidden }));
        }
        super::file::check_quantisation(quant)?;
        Ok(FloatNetwork {
            hidden,
            quant,
            base: Base::Zero,
            feature_weights: vec![0.0; INPUTS * hidden],
            feature_bias: vec![0.0; hidden],
            output_weights: vec![0.0; 2 * hidden],
            output_bias: 0.0,
        })
    }

    /// A deterministic random network with the default constants: feature
    /// weights uniform in ±0.15, feature biases in `[0, 0.5)`, output weights
    /// in ±0.3, output bias in ±0.1 (so activations span the clipped range).
    ///
    /// # Panics
    /// When `hidden` is not a valid hidden size (a multiple of 16 in
    /// `16..=4096`); this is a helper for tests and benchmarks.
    pub fn random(hidden: usize, seed: u64) -> FloatNetwork {
        let Ok(mut net) = FloatNetwork::zeros(hidden, Quantisation::default()) else {
            panic!("FloatNetwork::random: invalid hidden size {hidden}");
        };
        let mut rng = SplitMix64::new(seed ^ 0x6E6E_7565_5F6E_6574);
        net.feature_weights.iter_mut().for_each(|w| *w = uniform(&mut rng, -0.15, 0.15));
        net.feature_bias.iter_mut().for_each(|b| *b = uniform(&mut rng, 0.0, 0.5));
        net.output_weights.iter_mut().for_each(|w| *w = uniform(&mut rng, -0.3, 0.3));
        net.output_bias = uniform(&mut rng, -0.1, 0.1);
        net
    }

    pub fn hidden(&self) -> usize {
        self.hidden
    }

    pub fn quantisation(&self) -> Quantisation {
        self.quant
    }

    /// What the output is added to (kept by [`quantise`](Self::quantise)).
    pub fn base(&self) -> Base {
        self.base
    }

    pub fn set_base(&mut self, base: Base) {
        self.base = base;
    }

    pub fn feature_weights(&self) -> &[f32] {
        &self.feature_weights
    }

    pub fn feature_weights_mut(&mut self) -> &mut [f32] {
        &mut self.feature_weights
    }

    pub fn feature_bias(&self) -> &[f32] {
        &self.feature_bias
    }

    pub fn feature_bias_mut(&mut self) -> &mut [f32] {
        &mut self.feature_bias
    }

    pub fn output_weights(&self) -> &[f32] {
        &self.output_weights
    }

    pub fn output_weights_mut(&mut self) -> &mut [f32] {
        &mut self.output_weights
    }

    pub fn output_bias(&self) -> f32 {
        self.output_bias
    }

    pub fn set_output_bias(&mut self, bias: f32) {
        self.output_bias = bias;
    }

    /// The quantised network with the float network's constants (table in
    /// the module doc).
    pub fn quantise(&self) -> Network {
        self.quantise_with(self.quant)
    }

    /// The quantised network with the largest QB that clamps no output
    /// weight (module doc); QA and SCALE are the float network's.
    pub fn quantise_fitted(&self) -> Network {
        let limit = f64::from(self.quant.max_output_weight());
        let largest = self.output_weights.iter().fold(0f64, |m, &w| m.max(f64::from(w).abs()));
        let qb = if largest > 0.0 { (limit / largest).floor().clamp(1.0, f64::from(MAX_FITTED_QB)) } else { 64.0 };
        self.quantise_with(Quantisation { qb: qb as u16, ..self.quant })
    }

    fn quantise_with(&self, q: Quantisation) -> Network {
        let (qa, qb) = (f64::from(q.qa), f64::from(q.qb));
        let scaled = |v: &[f32], by: f64, limit: f64| -> Vec<i16> {
            v.iter().map(|&x| round_clamp(f64::from(x) * by, limit) as i16).collect()
        };
        Network {
            hidden: self.hidden,
            quant: q,
            base: self.base,
            feature_weights: scaled(&self.feature_weights, qa, 32767.0),
            feature_bias: scaled(&self.feature_bias, qa, 32767.0),
            output_weights: scaled(&self.output_weights, qb, f64::from(q.max_output_weight())),
            output_bias: round_clamp(f64::from(self.output_bias) * qa * qb, f64::from(i32::MAX)) as i32,
        }
    }

    /// The accumulator of perspective `c` in float units (`f64`).
    pub fn accumulator(&self, board: &Board, c: Color) -> Vec<f64> {
        let mut acc: Vec<f64> = self.feature_bias.iter().map(|&b| f64::from(b)).collect();
        for sq in board.occupied() {
            let Some(piece) = board.piece_on(sq) else { continue };
            let start = super::feature_index(c, piece, sq) * self.hidden;
            for (a, &w) in acc.iter_mut().zip(&self.feature_weights[start..start + self.hidden]) {
                *a += f64::from(w);
            }
        }
        acc
    }

    /// The reference forward pass: the network's part of the score of
    /// `board` for the side to move in centipawns, `(Σ clamp(acc, 0, 1)²·w +
    /// b_out)·SCALE`, in `f64` (without the [`Base`]).
    pub fn evaluate(&self, board: &Board) -> f64 {
        let us = board.side_to_move();
        let (w_us, w_them) = self.output_weights.split_at(self.hidden);
        let mut out = f64::from(self.output_bias);
        for (c, w) in [(us, w_us), (!us, w_them)] {
            for (a, &w) in self.accumulator(board, c).into_iter().zip(w) {
                out += a.clamp(0.0, 1.0).powi(2) * f64::from(w);
            }
        }
        out * f64::from(self.quant.scale)
    }
}
