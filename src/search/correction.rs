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
use std::sync::atomic::{AtomicI16, Ordering::Relaxed};

const SIZE: usize = 1 << 14;
const GRAIN: i32 = 256;

/// The tables, one for all the search threads of a [`super::Searcher`]: a
/// correction one thread learns serves the others at once, and the threads
/// share one 192 KiB table in the caches instead of each holding its own
/// (issue 76: two threads, the 50 bench positions to depth 16, ten
/// alternating runs against b3556d5's table per thread: time to depth
/// 10.29 s against 12.45 s (median), faster in 9 of 10, nps +12.5 %, nodes
/// searched 0.95x; one thread searches exactly as before). Entries are
/// read and written with relaxed atomics: a racing update may be lost,
/// never torn, and one thread alone reads back what it wrote.
pub struct Correction {
    /// `[side to move][pawn hash]`, flattened.
    pawn: Box<[AtomicI16]>,
    /// `[side to move][colour][hash of that colour's pieces other than
    /// pawns]`, flattened.
    non_pawn: Box<[AtomicI16]>,
}

fn zeroed(len: usize) -> Box<[AtomicI16]> {
    (0..len).map(|_| AtomicI16::new(0)).collect()
}

impl Default for Correction {
    fn default() -> Self {
        Correction { pawn: zeroed(2 * SIZE), non_pawn: zeroed(4 * SIZE) }
    }
}

/// A copy of the tables' values, as a search-state file holds them.
pub struct Snapshot {
    pawn: Vec<i16>,
    non_pawn: Vec<i16>,
}

impl Snapshot {
    /// The tables a search-state file keeps: pawn and non-pawn.
    pub fn state_tables(&self) -> [Named<Table<'_>>; 2] {
        let bound = P::CORRECTION_MAX * GRAIN;
        [
            Named { tag: *b"PCOR", bound, table: Table::I16(&self.pawn) },
            Named { tag: *b"NPCR", bound, table: Table::I16(&self.non_pawn) },
        ]
    }

    /// The same tables, to restore into.
    pub fn state_tables_mut(&mut self) -> [Named<TableMut<'_>>; 2] {
        let bound = P::CORRECTION_MAX * GRAIN;
        [
            Named { tag: *b"PCOR", bound, table: TableMut::I16(&mut self.pawn) },
            Named { tag: *b"NPCR", bound, table: TableMut::I16(&mut self.non_pawn) },
        ]
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
fn learn(e: &AtomicI16, weight: i32, target: i32) {
    let value = (i32::from(e.load(Relaxed)) * (256 - weight) + target * GRAIN * weight) / 256;
    e.store(value.clamp(-P::CORRECTION_MAX * GRAIN, P::CORRECTION_MAX * GRAIN) as i16, Relaxed);
}

fn values(table: &[AtomicI16]) -> Vec<i16> {
    table.iter().map(|e| e.load(Relaxed)).collect()
}

fn store(table: &[AtomicI16], values: &[i16]) {
    for (e, &v) in table.iter().zip(values) {
        e.store(v, Relaxed);
    }
}

impl Correction {
    /// The tables' values now (for a search-state file).
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { pawn: values(&self.pawn), non_pawn: values(&self.non_pawn) }
    }

    /// Takes a snapshot's values (a restored search-state file).
    pub fn load(&self, snapshot: &Snapshot) {
        store(&self.pawn, &snapshot.pawn);
        store(&self.non_pawn, &snapshot.non_pawn);
    }

    pub fn clear(&self) {
        self.pawn.iter().chain(self.non_pawn.iter()).for_each(|e| e.store(0, Relaxed));
    }

    /// The correction for `board`, in centipawns.
    #[inline]
    pub fn get(&self, board: &Board) -> i32 {
        let [pawn, white, black] = self.entries(board).map(|e| i32::from(e.load(Relaxed)));
        (pawn + (white + black) / 2) / GRAIN
    }

    /// The pawn entry and each colour's non-pawn entry of `board`.
    #[inline]
    fn entries(&self, board: &Board) -> [&AtomicI16; 3] {
        let stm = board.side_to_move().index();
        [
            &self.pawn[stm * SIZE + pawn_index(board)],
            &self.non_pawn[(2 * stm) * SIZE + non_pawn_index(board, Color::White)],
            &self.non_pawn[(2 * stm + 1) * SIZE + non_pawn_index(board, Color::Black)],
        ]
    }

    /// Learns from a search of `depth` that found `diff` = result − static
    /// evaluation (centipawns).
    pub fn update(&self, board: &Board, depth: i32, diff: i32) {
        let weight = (depth + 1).min(P::CORRECTION_WEIGHT_MAX);
        let target = diff.clamp(-P::CORRECTION_MAX, P::CORRECTION_MAX);
        for e in self.entries(board) {
            learn(e, weight, target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corrections_follow_the_results_and_stay_bounded() {
        let c = Correction::default();
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

    #[test]
    fn a_snapshot_loaded_gives_back_the_same_corrections() {
        let c = Correction::default();
        let b = Board::startpos();
        c.update(&b, 12, 55);
        let kept = c.snapshot();
        let before = c.get(&b);
        c.clear();
        assert_eq!(c.get(&b), 0);
        c.load(&kept);
        assert_eq!(c.get(&b), before);
        assert_ne!(before, 0);
    }
}
