//! NNUE: a perspective network `(768 → N) × 2 → 1` with a squared clipped
//! ReLU (SCReLU), its file format and its quantised inference.
//!
//! Depends on [`crate::types`], [`crate::board`], [`crate::codec`] (the
//! file's bytes) and [`crate::atomic_file`] (its writer); neither the
//! evaluation nor the search is touched here.
//!
//! | part | where |
//! | --- | --- |
//! | the `.nnue` byte layout, reader and writer | [`file`](mod@file) |
//! | the float network a trainer works on, and its quantisation | [`float`] |
//! | rounding each weight up or down to fit calibration positions | [`rounding`] |
//! | accumulators: full refresh and incremental update per move | [`accumulator`] |
//! | the quantised forward pass (exact integer formula and its bounds) | [`forward`] |
//! | the network built into the binary (`gen6-h256`) | [`builtin`] |
//!
//! # Features
//!
//! Each perspective `c` (the side whose half of the accumulator it is) sees
//! the 768 inputs "piece of colour `pc`, kind `k`, on square `s`" as
//!
//! ```text
//! index(c, pc, k, s) = (pc == c ? 0 : 384) + k·64 + (c == White ? s : s ^ 56)
//! ```
//!
//! with `k` = pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5 and squares
//! a1 = 0 … h8 = 63; `s ^ 56` mirrors the rank, so black sees the board from
//! its own side and "own pieces" are always the first 384 inputs. A position
//! and its colour-flipped mirror therefore have the same two accumulator
//! halves, swapped, and (with the side to move swapped too) the same score.
//!
//! # Network
//!
//! With `acc_c = b + Σ W[f]` over the active features `f` of perspective `c`,
//! `us` the side to move and `them` the other side:
//!
//! ```text
//! out = Σᵢ screlu(acc_us[i])·w[i] + Σᵢ screlu(acc_them[i])·w[N + i] + b_out,
//! screlu(x) = clamp(x, 0, 1)²,        eval = out · SCALE centipawns.
//! ```
//!
//! [`FloatNetwork`] holds this in `f32`; [`Network`] is its quantised form
//! (feature layer scaled by QA, output weights by QB), whose integer forward
//! pass is written out exactly in [`forward`].
//!
//! Invariants of a [`Network`] (checked by the reader, kept by
//! [`FloatNetwork::quantise`]): `N` is a multiple of 16 in `16..=4096`;
//! `1 ≤ QA ≤ 255`, `QB ≥ 1`, `SCALE ≥ 1`; every output weight satisfies
//! `|w| ≤ ⌊32767 / QA⌋`, so `clamp(acc, 0, QA)·w` fits an `i16`.

pub mod accumulator;
pub mod builtin;
pub mod file;
pub mod float;
pub mod forward;
pub mod header;
pub mod rounding;

#[cfg(test)]
mod tests;

use crate::board::Board;
use crate::types::{Color, Piece, Square};

pub use accumulator::{Accumulator, AccumulatorStack};
pub use file::NetError;
pub use float::FloatNetwork;
pub use forward::{evaluate, evaluate_scalar};

/// Inputs per perspective: 2 colours × 6 kinds × 64 squares.
pub const INPUTS: usize = 768;
/// Smallest hidden size a file may declare.
pub const MIN_HIDDEN: usize = 16;
/// Largest hidden size a file may declare (accumulators are `2·N` `i16`s).
pub const MAX_HIDDEN: usize = 4096;
/// The hidden size must be a multiple of this (one AVX2 register of `i16`s).
pub const HIDDEN_STEP: usize = 16;

/// The input index of `piece` on `sq` for perspective `perspective`; see the
/// module documentation. Always in `0..768`.
#[inline]
pub fn feature_index(perspective: Color, piece: Piece, sq: Square) -> usize {
    let side = if piece.color() == perspective { 0 } else { 384 };
    side + piece.kind().index() * 64 + sq.relative(perspective).index()
}

/// Is `hidden` an allowed hidden-layer size?
pub const fn is_valid_hidden(hidden: usize) -> bool {
    hidden >= MIN_HIDDEN && hidden <= MAX_HIDDEN && hidden % HIDDEN_STEP == 0
}

/// What the network's output is added to. A network trained as a
/// correction of the hand-written evaluation (`archivist train --base
/// hand-written`) is read as `hand-written evaluation + out · SCALE`; the
/// search adds the two ([`crate::search`]), since this module does not know
/// the evaluation. Stored as the header's flags field (bit 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Base {
    /// The output is the whole score.
    #[default]
    Zero,
    /// The output is added to [`crate::eval::evaluate`].
    HandWritten,
}

impl Base {
    /// The header flag bit of [`Base::HandWritten`].
    pub const HAND_WRITTEN_FLAG: u16 = 1;

    /// The header's flags field.
    pub const fn flags(self) -> u16 {
        match self {
            Base::Zero => 0,
            Base::HandWritten => Base::HAND_WRITTEN_FLAG,
        }
    }

    /// The base a flags field names; `None` when an unknown bit is set.
    pub const fn from_flags(flags: u16) -> Option<Base> {
        match flags {
            0 => Some(Base::Zero),
            Base::HAND_WRITTEN_FLAG => Some(Base::HandWritten),
            _ => None,
        }
    }

    /// The name used on the command line and in ledgers.
    pub const fn name(self) -> &'static str {
        match self {
            Base::Zero => "none",
            Base::HandWritten => "hand-written",
        }
    }
}

/// The quantisation constants and the output scale, as stored in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quantisation {
    /// Feature-layer scale: a float activation of 1.0 is `qa` in the
    /// accumulator. `1..=255`.
    pub qa: u16,
    /// Output-weight scale. At least 1.
    pub qb: u16,
    /// Centipawns per unit of the float output. At least 1.
    pub scale: u16,
}

impl Default for Quantisation {
    /// QA = 255, QB = 64, SCALE = 400: the usual SCReLU choice.
    fn default() -> Quantisation {
        Quantisation { qa: 255, qb: 64, scale: 400 }
    }
}

impl Quantisation {
    /// Do the constants satisfy the module's invariants?
    pub const fn is_valid(self) -> bool {
        self.qa >= 1 && self.qa <= 255 && self.qb >= 1 && self.scale >= 1
    }

    /// The largest output-weight magnitude: `⌊32767 / QA⌋`.
    pub const fn max_output_weight(self) -> i16 {
        let qa = if self.qa == 0 { 1 } else { self.qa };
        (32767 / qa as i32) as i16
    }
}

/// A quantised network, ready for inference. Built by the reader
/// ([`Network::from_bytes`]) or by [`FloatNetwork::quantise`], both of which
/// keep the module's invariants; the fields are private so nothing else can
/// break them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    hidden: usize,
    quant: Quantisation,
    base: Base,
    /// `[768][N]`: row `f` holds the weights of input `f`.
    feature_weights: Vec<i16>,
    /// `[N]`.
    feature_bias: Vec<i16>,
    /// `[2N]`: the side to move's half first.
    output_weights: Vec<i16>,
    output_bias: i32,
}

impl Network {
    /// Hidden size `N`.
    #[inline]
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    #[inline]
    pub fn quantisation(&self) -> Quantisation {
        self.quant
    }

    /// What the output is added to.
    #[inline]
    pub fn base(&self) -> Base {
        self.base
    }

    /// The shape for messages: `(768 -> 64) x 2 -> 1`, and what the output
    /// is added to when that is the hand-written evaluation.
    pub fn shape(&self) -> String {
        let base = match self.base {
            Base::Zero => "",
            Base::HandWritten => " + the hand-written evaluation",
        };
        format!("(768 -> {}) x 2 -> 1{base}", self.hidden)
    }

    /// All feature weights, `[768][N]` row-major.
    #[inline]
    pub fn feature_weights(&self) -> &[i16] {
        &self.feature_weights
    }

    /// The weights of one input (`N` values); empty for `feature >= 768`.
    #[inline]
    pub fn feature_row(&self, feature: usize) -> &[i16] {
        let start = feature * self.hidden;
        self.feature_weights.get(start..start + self.hidden).unwrap_or(&[])
    }

    #[inline]
    pub fn feature_bias(&self) -> &[i16] {
        &self.feature_bias
    }

    /// `[2N]`, the side to move's half first.
    #[inline]
    pub fn output_weights(&self) -> &[i16] {
        &self.output_weights
    }

    #[inline]
    pub fn output_bias(&self) -> i32 {
        self.output_bias
    }

    /// The score of `board` for the side to move, in centipawns, from a fresh
    /// accumulator (allocates one; the search keeps its own and updates it).
    pub fn evaluate_board(&self, board: &Board) -> i32 {
        let acc = Accumulator::from_board(board, self);
        evaluate(&acc, board.side_to_move(), self)
    }

    /// A deterministic random network (the same for the same arguments on
    /// every platform), for tests and benchmarks: [`FloatNetwork::random`]
    /// quantised with the default constants.
    pub fn random(hidden: usize, seed: u64) -> Network {
        FloatNetwork::random(hidden, seed).quantise()
    }
}
