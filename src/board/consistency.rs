//! The `Board` consistency check run after every make/unmake in debug
//! builds: everything the incremental updates maintain is recomputed from
//! the pieces and compared (mailbox against bitboards, one king a side, no
//! pawn on a back rank, the engine key, the checkers).

use super::zobrist::key_with;
use super::Board;
use crate::types::{Bitboard, Color, PieceType, Square};

impl Board {
    /// The first inconsistency between the incrementally kept state and a
    /// recomputation from scratch, or `None` when the position is coherent.
    pub fn consistency_error(&self) -> Option<String> {
        let (white, black) = (self.by_color[0], self.by_color[1]);
        if (white & black).any() {
            return Some("a square is both white and black".into());
        }
        let typed = self.by_type.iter().fold(Bitboard::EMPTY, |acc, &b| acc | b);
        if typed != (white | black) {
            return Some("piece-type and colour bitboards disagree".into());
        }
        for i in 0..64u8 {
            let sq = Square::new(i);
            let in_bitboards = self.by_type.iter().position(|b| b.contains(sq)).map(|t| {
                let color = if white.contains(sq) { Color::White } else { Color::Black };
                (color, t)
            });
            let in_mailbox = self.mailbox[sq.index()].map(|p| (p.color(), p.kind() as usize));
            if in_bitboards != in_mailbox {
                return Some(format!("square {i}: mailbox {in_mailbox:?}, bitboards {in_bitboards:?}"));
            }
        }
        for c in [Color::White, Color::Black] {
            if self.pieces_of(c, PieceType::King).count() != 1 {
                return Some(format!("{c:?} has not exactly one king"));
            }
        }
        let back_ranks = Bitboard(0xFF00_0000_0000_00FF);
        if (self.type_bb(PieceType::Pawn) & back_ranks).any() {
            return Some("a pawn on the first or last rank".into());
        }
        let key = key_with(self, self.keys.table());
        if key != self.state.key {
            return Some(format!("key {:016x}, recomputed {key:016x}", self.state.key));
        }
        let us = self.side;
        let checkers = self.attackers_to(self.king_square(us), self.occupied()) & self.by_color[(!us).index()];
        if checkers != self.state.checkers {
            return Some("checkers differ from a recomputation".into());
        }
        None
    }

    /// Panics with the inconsistency in debug builds; nothing in release.
    #[inline]
    pub(super) fn debug_check(&self) {
        #[cfg(debug_assertions)]
        if let Some(e) = self.consistency_error() {
            panic!("inconsistent board after {:?}: {e}\n{}", self.state.last_move, self.diagram());
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::board::Board;

    #[test]
    fn a_played_game_stays_consistent_and_a_corrupted_key_is_caught() {
        let mut b = Board::startpos();
        for _ in 0..60 {
            let Some(m) = b.legal_moves().iter().last() else { break };
            b.make_move(m);
            assert_eq!(b.consistency_error(), None);
        }
        while !b.history().is_empty() {
            b.unmake_move();
            assert_eq!(b.consistency_error(), None);
        }
        b.state.key ^= 1;
        assert!(b.consistency_error().is_some_and(|e| e.contains("key")));
    }
}
