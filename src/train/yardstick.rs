//! Measures that do not depend on how a network was trained: the fixed
//! yardstick (issue 65), the agreement of a quantised network with its
//! float network, and the logistic scale that fits a set of records.
//!
//! | measure | formula, over the positions the trainer's [`Filter`] keeps |
//! | --- | --- |
//! | yardstick loss | mean of `(σ(eval / 140) − r)²`, `eval` the static evaluation in centipawns and `r` the game's result (1, ½, 0), both the side to move's; 140 is frozen ([`YARDSTICK_SCALE`]) |
//! | quantisation error | mean of `quantised − float` and of its absolute value, in centipawns |
//! | fitted scale | the `s` that minimises the mean of `(σ(cp / s) − r)²`, `cp` the record's search score |
//!
//! `σ(x) = 1 / (1 + e^−x)`, as everywhere in the trainer. The evaluations
//! are the engine's: the hand-written [`crate::eval::evaluate`]; a
//! network's float output ([`FloatNetwork::evaluate`]) plus its base; its
//! quantised output ([`crate::nnue::Network::evaluate_board`]) plus its base,
//! clamped to ±[`crate::eval::MAX_EVAL`] as the search clamps it.

use super::data::{kept_positions, Dataset, Filter, FilterCounts};
use super::TrainError;
use crate::board::Board;
use crate::nnue::{Base, FloatNetwork, Network};
use crate::records::score;

/// The yardstick's logistic scale in centipawns, fixed once (issue 65) so
/// that its losses compare across networks, sessions and training scales.
pub const YARDSTICK_SCALE: f64 = 140.0;

/// What [`judge`] measured on a set of records.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judged {
    /// Positions the filter kept.
    pub positions: u64,
    /// The yardstick loss of the hand-written evaluation.
    pub hand_written: f64,
    /// The same for a network, when one was given.
    pub network: Option<NetworkJudged>,
}

/// A network's part of [`Judged`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkJudged {
    /// Yardstick loss of the float network (plus its base).
    pub float: f64,
    /// Yardstick loss of the quantised network (plus its base), as the engine evaluates.
    pub quantised: f64,
    /// Mean of `quantised − float`, centipawns.
    pub mean_difference: f64,
    /// Mean of `|quantised − float|`, centipawns.
    pub mean_absolute_difference: f64,
}

#[inline]
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The float and quantised evaluations of `board` by `net` (with its base),
/// in centipawns for the side to move: what the engine would compute with
/// the float network, and what it computes with the quantised one.
pub fn network_evaluations(net: &FloatNetwork, quantised: &Network, board: &Board) -> (f64, i32) {
    let base = match net.base() {
        Base::Zero => 0,
        Base::HandWritten => crate::eval::evaluate(board),
    };
    let float = net.evaluate(board) + f64::from(base);
    let max = crate::eval::MAX_EVAL;
    let quantised = (base + quantised.evaluate_board(board)).clamp(-max, max);
    (float, quantised)
}

/// The yardstick losses of the hand-written evaluation and of `net` (float
/// and quantised) over the kept positions of `data`, and the quantised
/// network's error against the float one.
pub fn judge(data: &Dataset, filter: &Filter, net: Option<&FloatNetwork>) -> Result<Judged, TrainError> {
    let quantised = net.map(FloatNetwork::quantise_fitted);
    judge_quantised(data, filter, net.zip(quantised.as_ref()))
}

/// [`judge`] with the quantised form of the float network given (say, the
/// network file the trainer wrote) instead of made by `quantise_fitted`.
pub fn judge_quantised(
    data: &Dataset,
    filter: &Filter,
    net: Option<(&FloatNetwork, &Network)>,
) -> Result<Judged, TrainError> {
    let (net, quantised) = (net.map(|(f, _)| f), net.map(|(_, q)| q));
    let loss = |eval: f64, r: f64| (sigmoid(eval / YARDSTICK_SCALE) - r).powi(2);
    let (mut n, mut hand_written, mut float, mut quant, mut diff, mut abs_diff) = (0u64, 0.0, 0.0, 0.0, 0.0, 0.0);
    let counts: FilterCounts = data.for_each_game(|game, counts| {
        kept_positions(game, filter, counts, |board, _| {
            let r = game.result.score_for(board.side_to_move());
            n += 1;
            hand_written += loss(f64::from(crate::eval::evaluate(board)), r);
            if let (Some(net), Some(q)) = (net, quantised) {
                let (f, q) = network_evaluations(net, q, board);
                float += loss(f, r);
                quant += loss(f64::from(q), r);
                diff += f64::from(q) - f;
                abs_diff += (f64::from(q) - f).abs();
            }
        });
    })?;
    if counts.kept == 0 {
        return Err(TrainError::NothingHeldOut);
    }
    let mean = |x: f64| x / n as f64;
    Ok(Judged {
        positions: n,
        hand_written: mean(hand_written),
        network: net.map(|_| NetworkJudged {
            float: mean(float),
            quantised: mean(quant),
            mean_difference: mean(diff),
            mean_absolute_difference: mean(abs_diff),
        }),
    })
}

/// The logistic scale that best turns the records' search scores into
/// their games' results.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FittedScale {
    /// Centipawns.
    pub scale: f64,
    /// Mean `(σ(cp / scale) − r)²` at the fitted scale.
    pub loss: f64,
    /// The same at the records' own scale, 400.
    pub loss_at_400: f64,
    pub positions: u64,
}

/// Mean `(σ(cp / s) − r)²` over `(cp, r)` pairs.
fn scale_loss(pairs: &[(f32, f32)], s: f64) -> f64 {
    let total: f64 = pairs.iter().map(|&(cp, r)| (sigmoid(f64::from(cp) / s) - f64::from(r)).powi(2)).sum();
    total / pairs.len().max(1) as f64
}

/// The scale in `[20, 4000]` cp minimising [`scale_loss`] (golden-section
/// search on its logarithm, to 0.01 %).
pub fn fit_pairs(pairs: &[(f32, f32)]) -> f64 {
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    let (mut lo, mut hi) = (20f64.ln(), 4000f64.ln());
    let f = |x: f64| scale_loss(pairs, x.exp());
    let (mut a, mut b) = (hi - phi * (hi - lo), lo + phi * (hi - lo));
    let (mut fa, mut fb) = (f(a), f(b));
    while hi - lo > 1e-4 {
        if fa < fb {
            (hi, b, fb) = (b, a, fa);
            a = hi - phi * (hi - lo);
            fa = f(a);
        } else {
            (lo, a, fa) = (a, b, fb);
            b = lo + phi * (hi - lo);
            fb = f(b);
        }
    }
    ((lo + hi) / 2.0).exp()
}

/// The logistic scale fitted to the kept positions of `data`.
pub fn fit_scale(data: &Dataset, filter: &Filter) -> Result<FittedScale, TrainError> {
    let mut pairs: Vec<(f32, f32)> = Vec::new();
    data.for_each_game(|game, counts| {
        kept_positions(game, filter, counts, |board, stored| {
            pairs.push((score::to_cp(stored) as f32, game.result.score_for(board.side_to_move()) as f32));
        });
    })?;
    if pairs.is_empty() {
        return Err(TrainError::NothingKept { leg: 1 });
    }
    let scale = fit_pairs(&pairs);
    Ok(FittedScale {
        scale,
        loss: scale_loss(&pairs, scale),
        loss_at_400: scale_loss(&pairs, 400.0),
        positions: pairs.len() as u64,
    })
}
