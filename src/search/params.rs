//! The search's tuning constants, in one place and by name (margins in
//! centipawns, depths in plies). Changing one changes the search: the bench
//! signature moves, and the change needs an SPRT (see the README).

// ----- Transposition table and book cuts -------------------------------------

/// TT and book values cut only while the 50-move counter is below this (a
/// stored value may not know that the rule is about to draw the game).
pub const CUT_MAX_RULE50: u16 = 90;

// ----- Pruning before the move loop ------------------------------------------

/// Reverse futility pruning: up to this depth…
pub const RFP_MAX_DEPTH: i32 = 8;
/// …a node whose eval beats beta by this per ply (one ply less when
/// improving) returns the eval.
pub const RFP_MARGIN: i32 = 80;

/// Razoring: up to this depth, a node whose eval is `RAZOR_MARGIN·depth`
/// below alpha returns the quiescence value when that fails low too.
pub const RAZOR_MAX_DEPTH: i32 = 3;
pub const RAZOR_MARGIN: i32 = 250;

/// Null-move pruning from this depth.
pub const NMP_MIN_DEPTH: i32 = 3;
/// Null-move reduction: `BASE + depth / DEPTH_DIV + min((eval - beta) / EVAL_DIV, EVAL_MAX)`.
pub const NMP_BASE: i32 = 3;
pub const NMP_DEPTH_DIV: i32 = 4;
pub const NMP_EVAL_DIV: i32 = 200;
pub const NMP_EVAL_MAX: i32 = 3;

/// Internal iterative reduction: from this depth, a PV or cut node without a
/// TT move is searched one ply shallower.
pub const IIR_MIN_DEPTH: i32 = 4;

// ----- Pruning inside the move loop ------------------------------------------

/// Late-move, futility and quiet-SEE pruning apply up to this depth.
pub const QUIET_PRUNE_MAX_DEPTH: i32 = 8;
/// Late-move pruning: quiets after `(LMP_BASE + depth²)` moves, halved when
/// not improving, at least `LMP_MIN`, are skipped.
pub const LMP_BASE: i32 = 3;
pub const LMP_MIN: usize = 2;
/// History pruning: a quiet whose history is below `-MARGIN·depth` is
/// skipped when its reduced depth is at most `HISTORY_PRUNE_MAX_DEPTH`.
pub const HISTORY_PRUNE_MAX_DEPTH: i32 = 4;
pub const HISTORY_PRUNE_MARGIN: i32 = 2048;
/// Futility pruning (at the reduced depth): a quiet is skipped when `eval + BASE + PER_DEPTH·depth <= alpha`.
pub const FUTILITY_BASE: i32 = 100;
pub const FUTILITY_PER_DEPTH: i32 = 120;
/// A quiet whose SEE is below `-SEE_QUIET_MARGIN·d²/4` (`d` its reduced
/// depth) is skipped.
pub const SEE_QUIET_MARGIN: i32 = 60;
/// Captures: up to this depth, SEE below `-SEE_NOISY_MARGIN·depth` is skipped.
pub const SEE_NOISY_MAX_DEPTH: i32 = 6;
pub const SEE_NOISY_MARGIN: i32 = 100;

/// Quiescence delta pruning: a capture (not a promotion) is skipped when
/// `eval + captured value + DELTA_MARGIN <= alpha`.
pub const DELTA_MARGIN: i32 = 200;

// ----- Extensions and reductions ----------------------------------------------

/// Checks are extended while the ply is below this many times the root depth.
pub const CHECK_EXTENSION_PLY_FACTOR: i32 = 2;

/// Singular extensions from this depth, when the TT entry is at most
/// `SE_TT_DEPTH_MARGIN` plies shallower and holds a lower bound.
pub const SE_MIN_DEPTH: i32 = 6;
pub const SE_TT_DEPTH_MARGIN: i32 = 3;
/// The others must fail below `tt value - SE_BETA_MARGIN·depth/8` for the
/// TT move to be singular…
pub const SE_BETA_MARGIN: i32 = 8;
/// …and this much further below for a double extension, of which a path
/// from the root takes at most `SE_DOUBLE_MAX`.
pub const SE_DOUBLE_MARGIN: i32 = 20;
pub const SE_DOUBLE_MAX: u8 = 6;

/// Late-move reductions from this depth, after the first move (two at the root).
pub const LMR_MIN_DEPTH: i32 = 3;
/// Base reduction `LMR_BASE + ln(depth)·ln(moves) / LMR_DIVISOR`, both clamped to 1..=63.
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
/// One ply less reduction per this much quiet history (butterfly plus both
/// continuation histories).
pub const LMR_HISTORY_DIV: i32 = 8192;

// ----- History ----------------------------------------------------------------

/// Quiet history bonus for a fail-high at `depth`: `min(MUL·depth - SUB, MAX)`
/// (the quiets tried before it get the same malus).
pub const HISTORY_BONUS_MUL: i32 = 300;
pub const HISTORY_BONUS_SUB: i32 = 250;
pub const HISTORY_BONUS_MAX: i32 = 1500;
/// At most this many quiets tried before the best move are punished.
pub const QUIETS_TRIED_MAX: usize = 64;
/// At most this many captures tried before the best move are punished in
/// the capture history.
pub const CAPTURES_TRIED_MAX: usize = 32;

// ----- Iterative deepening ------------------------------------------------------

/// Aspiration windows from this depth, starting at ±`ASPIRATION_DELTA`,
/// widened by half on each fail.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
pub const ASPIRATION_DELTA: i32 = 20;

/// Lazy SMP: the depths each helper skips (see `thread::skips_depth`).
pub const SMP_SKIP_SIZE: [usize; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
pub const SMP_SKIP_PHASE: [usize; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

// ----- Time management ----------------------------------------------------------

/// The optimum time is scaled by how many iterations the best move has
/// stayed the same: 0, 1, 2–3, 4 or more.
pub const STABILITY_SCALE: [f64; 4] = [1.4, 1.1, 0.9, 0.7];
/// Between iterations, stop when this share of the maximum time is used.
pub const MAXIMUM_TIME_SHARE: f64 = 0.9;
/// With a single legal reply, stop once this depth is done.
pub const SINGLE_REPLY_DEPTH: i32 = 4;
/// Sudden death: the remaining time is planned over this many moves.
pub const MOVES_HORIZON: u64 = 32;

// ----- Evaluation correction ---------------------------------------------------

/// Pawn correction history: entries are bounded by this many centipawns.
pub const CORRECTION_MAX: i32 = 64;
/// The weight (out of 256) of one search's result is `min(depth + 1, this)`.
pub const CORRECTION_WEIGHT_MAX: i32 = 16;
