//! Correction histories: how far the static evaluation has been from the
//! search's results in positions with the same pawns, and with the same
//! non-pawn pieces of each colour, learnt during the search and added to
//! the evaluation of later positions that share them (tables per side to
//! move). The correction is the pawn entry plus half the sum of the two
//! non-pawn entries.
//!
//! Entries are in 1/[`GRAIN`] centipawns, an exponential moving average of
//! `search result − static evaluation`, weighted by depth and bounded by
//! ±[`P::CORRECTION_MAX`] centipawns.

use super::params as P;
use super::state_file::{Named, Table, TableMut};
use crate::board::Board;
use crate::types::{Color, PieceType};

const SIZE: usize = 1 << 14;
const GRAIN: i32 = 256;

pub struct Correction {
    /// [side to move][pawn hash]
    table: Box<[[i16; SIZE]; 2]>,
    /// `[side to move][colour][hash of that colour's pieces other than pawns]`
    non_pawn: Box<[[[i16; SIZE]; 2]; 2]>,
}

impl Default for Correction {
    fn default() -> Self {
        Correction {
            table: vec![[0i16; SIZE]; 2].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!()),
            non_pawn: vec![[[0i16; SIZE]; 2]; 2].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!()),
        }
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

/// A hash of one colour's knights, bishops, rooks, queens and king.
#[inline]
fn non_pawn_index(board: &Board, color: Color) -> usize {
    let ours = board.color_bb(color);
    let mut h = 0u64;
    for (i, kind) in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen, PieceType::King]
        .into_iter()
        .enumerate()
    {
        h ^= (board.type_bb(kind) & ours).0.wrapping_mul(MULTIPLIERS[i]);
    }
    (h >> (64 - 14)) as usize
}

const MULTIPLIERS: [u64; 5] =
    [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0xD6E8_FEB8_6659_FD93, 0xFF51_AFD7_ED55_8CCD];

/// One entry moved towards `target` (centipawns) with `weight` out of 256.
#[inline]
fn learn(e: &mut i16, weight: i32, target: i32) {
    let value = (i32::from(*e) * (256 - weight) + target * GRAIN * weight) / 256;
    *e = value.clamp(-P::CORRECTION_MAX * GRAIN, P::CORRECTION_MAX * GRAIN) as i16;
}

impl Correction {
    /// The tables a search-state file keeps: pawn and non-pawn.
    pub fn state_tables(&self) -> [Named<Table<'_>>; 2] {
        let bound = P::CORRECTION_MAX * GRAIN;
        [
            Named { tag: *b"PCOR", bound, table: Table::I16(self.table.as_flattened()) },
            Named { tag: *b"NPCR", bound, table: Table::I16(self.non_pawn.as_flattened().as_flattened()) },
        ]
    }

    /// The same tables, to restore into.
    pub fn state_tables_mut(&mut self) -> [Named<TableMut<'_>>; 2] {
        let bound = P::CORRECTION_MAX * GRAIN;
        [
            Named { tag: *b"PCOR", bound, table: TableMut::I16(self.table.as_flattened_mut()) },
            Named { tag: *b"NPCR", bound, table: TableMut::I16(self.non_pawn.as_flattened_mut().as_flattened_mut()) },
        ]
    }

    pub fn clear(&mut self) {
        for side in self.table.iter_mut() {
            side.fill(0);
        }
        for side in self.non_pawn.iter_mut() {
            for colour in side.iter_mut() {
                colour.fill(0);
            }
        }
    }

    /// The correction for `board`, in centipawns.
    #[inline]
    pub fn get(&self, board: &Board) -> i32 {
        let stm = board.side_to_move().index();
        let pawn = i32::from(self.table[stm][pawn_index(board)]);
        let white = i32::from(self.non_pawn[stm][0][non_pawn_index(board, Color::White)]);
        let black = i32::from(self.non_pawn[stm][1][non_pawn_index(board, Color::Black)]);
        (pawn + (white + black) / 2) / GRAIN
    }

    /// Learns from a search of `depth` that found `diff` = result − static
    /// evaluation (centipawns).
    pub fn update(&mut self, board: &Board, depth: i32, diff: i32) {
        let stm = board.side_to_move().index();
        let weight = (depth + 1).min(P::CORRECTION_WEIGHT_MAX);
        let target = diff.clamp(-P::CORRECTION_MAX, P::CORRECTION_MAX);
        learn(&mut self.table[stm][pawn_index(board)], weight, target);
        learn(&mut self.non_pawn[stm][0][non_pawn_index(board, Color::White)], weight, target);
        learn(&mut self.non_pawn[stm][1][non_pawn_index(board, Color::Black)], weight, target);
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
        // The pawn entry and the two non-pawn entries each learnt 40:
        // 40 + (40 + 40) / 2.
        assert!((70..=80).contains(&c.get(&b)), "{}", c.get(&b));
        for _ in 0..500 {
            c.update(&b, 20, 10_000);
        }
        let max = 2 * P::CORRECTION_MAX;
        assert!((max - 4..=max).contains(&c.get(&b)), "{}", c.get(&b));
        // Same pawns and black pieces, white without knights: the pawn
        // entry, and half the black one.
        let fewer = Board::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKB1R w KQkq - 0 1", false).unwrap();
        let m = P::CORRECTION_MAX;
        assert!((m + m / 2 - 4..=m + m / 2).contains(&c.get(&fewer)), "{}", c.get(&fewer));
        let neither = Board::from_fen("4k3/pppppppp/8/8/8/8/8/4K3 w - - 0 1", false).unwrap();
        assert_eq!(c.get(&neither), 0, "other pawns, other pieces");
        c.clear();
        assert_eq!(c.get(&b), 0);
    }
}
