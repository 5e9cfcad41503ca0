//! Pawn correction history: how far the static evaluation has been from
//! the search's results in positions with the same pawns, learnt during
//! the search and added to the evaluation of later positions with those
//! pawns (one table per side to move).
//!
//! Entries are in 1/[`GRAIN`] centipawns, an exponential moving average of
//! `search result − static evaluation`, weighted by depth and bounded by
//! ±[`P::CORRECTION_MAX`] centipawns.

use super::params as P;
use crate::board::Board;
use crate::types::{Color, PieceType};

const SIZE: usize = 1 << 14;
const GRAIN: i32 = 256;

pub struct Correction {
    table: Box<[[i16; SIZE]; 2]>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction { table: vec![[0i16; SIZE]; 2].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!()) }
    }
}

/// A hash of the pawns of both sides (no incremental key: two multiplies).
#[inline]
fn pawn_index(board: &Board) -> usize {
    let pawns = board.type_bb(PieceType::Pawn);
    let white = (pawns & board.color_bb(Color::White)).0;
    let black = (pawns & board.color_bb(Color::Black)).0;
    let h = white.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ black.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    (h >> (64 - 14)) as usize
}

impl Correction {
    pub fn clear(&mut self) {
        for side in self.table.iter_mut() {
            side.fill(0);
        }
    }

    /// The correction for `board`, in centipawns.
    #[inline]
    pub fn get(&self, board: &Board) -> i32 {
        i32::from(self.table[board.side_to_move().index()][pawn_index(board)]) / GRAIN
    }

    /// Learns from a search of `depth` that found `diff` = result − static
    /// evaluation (centipawns).
    pub fn update(&mut self, board: &Board, depth: i32, diff: i32) {
        let e = &mut self.table[board.side_to_move().index()][pawn_index(board)];
        let weight = (depth + 1).min(P::CORRECTION_WEIGHT_MAX);
        let target = diff.clamp(-P::CORRECTION_MAX, P::CORRECTION_MAX) * GRAIN;
        let value = (i32::from(*e) * (256 - weight) + target * weight) / 256;
        *e = value.clamp(-P::CORRECTION_MAX * GRAIN, P::CORRECTION_MAX * GRAIN) as i16;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_follow_the_results_and_stay_bounded() {
        let mut c = Correction::default();
        let b = Board::startpos();
        assert_eq!(c.get(&b), 0);
        for _ in 0..200 {
            c.update(&b, 10, 40);
        }
        assert!((35..=40).contains(&c.get(&b)), "{}", c.get(&b));
        for _ in 0..500 {
            c.update(&b, 20, 10_000);
        }
        assert!((P::CORRECTION_MAX - 2..=P::CORRECTION_MAX).contains(&c.get(&b)), "{}", c.get(&b));
        let other = Board::from_fen("4k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1", false).unwrap();
        assert_eq!(c.get(&other), 0, "other pawns, other entry");
        c.clear();
        assert_eq!(c.get(&b), 0);
    }
}
