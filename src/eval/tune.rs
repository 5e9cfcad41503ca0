//! The evaluation as a linear function of its weights, for the tuner
//! (`archivist tune`, [`crate::train::hce`]).
//!
//! [`features`] lists, for one position, how many times each weight of
//! [`super::weights::WEIGHTS`] counts (white's count minus black's), with the
//! game phase and the endgame scale that blend them. For those fixed, the
//! white-view score before tempo is
//!
//! ```text
//! (Σ n·w.mg · phase + Σ n·w.eg · scale/64 · (24 − phase)) / 24
//! ```
//!
//! which [`features_reproduce_the_evaluation`](self) checks against
//! [`super::evaluate`] up to its integer rounding. [`weights_source`] writes
//! a weight table back as the Rust source of `src/eval/weights.rs`.

use super::{compute, layout, Sink, Terms, MAX_PHASE, SCALE_NORMAL, TEMPO, WEIGHTS};
use crate::board::Board;
use std::fmt::Write as _;

/// What the evaluation of one position is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    /// 0..=24 (24 = all pieces).
    pub phase: i32,
    /// Endgame scale out of 64, as the current weights decide it.
    pub scale: i32,
    /// +1 when white is to move, −1 for black (the sign of [`TEMPO`]).
    pub tempo_sign: i32,
    /// (weight index, white's count minus black's), sorted by index, no zeros.
    pub counts: Vec<(u16, i16)>,
}

/// Records every feature while summing as the search does.
struct Recorder {
    terms: Terms,
    list: Vec<(usize, i32)>,
}

impl Sink for Recorder {
    fn terms(&mut self) -> &mut Terms {
        &mut self.terms
    }

    fn add(&mut self, row: super::Row, c: usize, w: usize, n: i32) {
        self.list.push((w, if c == 0 { n } else { -n }));
        self.terms.add(row, c, w, n);
    }
}

/// The features of `board`.
pub fn features(board: &Board) -> Features {
    let mut r = Recorder { terms: Terms::default(), list: Vec::with_capacity(96) };
    compute(board, &mut r);
    r.list.sort_unstable_by_key(|&(w, _)| w);
    let mut counts: Vec<(u16, i16)> = Vec::with_capacity(r.list.len());
    for (w, n) in r.list {
        match counts.last_mut() {
            Some(last) if usize::from(last.0) == w => last.1 += n as i16,
            _ => counts.push((w as u16, n as i16)),
        }
    }
    counts.retain(|&(_, n)| n != 0);
    let total = r.terms.total();
    Features {
        phase: r.terms.phase,
        scale: r.terms.eg_scale(total.eg),
        tempo_sign: board.side_to_move().sign(),
        counts,
    }
}

impl Features {
    /// White-view score with tempo for weights given as `(mg, eg)` pairs, in
    /// floating point (no rounding).
    pub fn score(&self, weights: &[(f64, f64)]) -> f64 {
        let (mut mg, mut eg) = (0.0, 0.0);
        for &(w, n) in &self.counts {
            let (wm, we) = weights[usize::from(w)];
            mg += f64::from(n) * wm;
            eg += f64::from(n) * we;
        }
        let (mg_factor, eg_factor) = taper(self.phase, self.scale);
        mg * mg_factor + eg * eg_factor + f64::from(TEMPO * self.tempo_sign)
    }
}

/// What the middlegame and endgame sums are multiplied by in the white-view
/// score, for a `phase` (0..=24) and endgame `scale` (out of 64): the taper
/// of [`super::Terms::white_score`] without its integer rounding.
#[inline]
pub fn taper(phase: i32, scale: i32) -> (f64, f64) {
    let mg = f64::from(phase) / f64::from(MAX_PHASE);
    (mg, f64::from(scale) / f64::from(SCALE_NORMAL) * (1.0 - mg))
}

/// The weights in use, as `(mg, eg)` pairs in [`layout`] order.
pub fn current_weights() -> Vec<(f64, f64)> {
    WEIGHTS.iter().map(|s| (f64::from(s.mg), f64::from(s.eg))).collect()
}

/// Rust source of `src/eval/weights.rs` for `weights` (rounded to whole
/// centipawns), one comment line per [`layout`] group.
pub fn weights_source(weights: &[(f64, f64)]) -> String {
    let mut out = String::new();
    out.push_str("//! The evaluation's weights, one `S` (middlegame, endgame) per feature, in\n");
    out.push_str("//! the order of [`super::layout`]. Written by `archivist tune` (see\n");
    out.push_str("//! [`super::tune`]); edit by hand only to seed a new feature with a guess.\n");
    out.push_str("//! MATERIAL and PSQT started as PeSTO's values (Ronald Friederich's\n");
    out.push_str("//! Rofchade, as published on the Chess Programming Wiki); nets/README.md\n");
    out.push_str("//! names the run that made this table and the groups it left frozen.\n\n");
    out.push_str("use super::S;\n\n#[rustfmt::skip]\n");
    out.push_str("pub(super) static WEIGHTS: [S; super::layout::COUNT] = [\n");
    let mut line = String::new();
    let mut group = "";
    for (i, &(mg, eg)) in weights.iter().enumerate().take(layout::COUNT) {
        let (name, within) = layout::name(i);
        if name != group || within % 8 == 0 {
            if !line.is_empty() {
                let _ = writeln!(out, "   {line}");
                line.clear();
            }
            if name != group {
                let _ = writeln!(out, "    // {name}");
                group = name;
            }
        }
        let _ = write!(line, " S::new({}, {}),", mg.round() as i32, eg.round() as i32);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "   {line}");
    }
    out.push_str("];\n");
    out
}

/// [`super::evaluate`] from white's point of view.
#[cfg(test)]
fn white_view(board: &Board) -> i32 {
    super::evaluate(board) * board.side_to_move().sign()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Color;

    fn positions() -> Vec<Board> {
        let text = crate::testdata::read("vectors/keys.csv").expect("committed key vectors");
        let mut out: Vec<Board> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split(';').next())
            .filter_map(|f| Board::from_fen(f, false).ok())
            .collect();
        for fen in [
            "6k1/5ppp/8/8/6nq/8/5PPP/3R2K1 w - - 0 1",
            "8/8/8/4k3/8/8/8/2B1K3 w - - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
            "4k3/8/2p5/3N4/8/8/PP6/4K3 b - - 0 1",
        ] {
            out.push(Board::from_fen(fen, false).expect("test FEN"));
        }
        out
    }

    #[test]
    fn features_reproduce_the_evaluation() {
        let w = current_weights();
        let boards = positions();
        assert!(boards.len() > 20);
        for b in &boards {
            let f = features(b);
            let exact = f.score(&w);
            let eval = white_view(b);
            // The evaluation rounds the endgame scale and the taper toward zero.
            assert!((exact - f64::from(eval)).abs() <= 2.0, "{}: features {exact} vs evaluate {eval}", b.fen());
        }
    }

    #[test]
    fn features_of_mirrored_positions_are_negated() {
        for b in positions() {
            let (f, g) = (features(&b), features(&b.color_flipped()));
            let negated: Vec<(u16, i16)> = g.counts.iter().map(|&(w, n)| (w, -n)).collect();
            assert_eq!(f.counts, negated, "{}", b.fen());
            assert_eq!((f.phase, f.scale), (g.phase, g.scale));
        }
    }

    #[test]
    fn weights_source_lists_every_weight_in_layout_order() {
        let w = current_weights();
        let text = weights_source(&w);
        assert_eq!(text.matches("S::new(").count(), layout::COUNT);
        assert!(text.contains("// KING_DANGER\n"));
        let first = WEIGHTS[layout::MATERIAL];
        assert!(text.contains(&format!("// MATERIAL\n    S::new({}, {}),", first.mg, first.eg)));
        // The committed table is exactly what the writer produces for it.
        let committed = include_str!("weights.rs");
        assert_eq!(text, committed);
    }

    #[test]
    fn start_position_has_no_feature_left_after_cancelling() {
        let f = features(&Board::startpos());
        assert!(f.counts.is_empty(), "{:?}", f.counts);
        assert_eq!(f.tempo_sign, Color::White.sign());
    }
}
