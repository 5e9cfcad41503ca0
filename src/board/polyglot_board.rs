//! A board whose key is the Polyglot key, updated move by move as the
//! engine key is: for replaying games into a Polyglot book.
//!
//! It is a type of its own, and the board inside never leaves it, so no
//! [`Board`] (what the search, the TT and the YACB books take) ever
//! carries a Polyglot key: a `Board` is engine-keyed from construction to
//! drop.

use super::notation::NotationError;
use super::zobrist::KeyScheme;
use super::Board;
use crate::types::{Color, Move};

/// A position keyed by Polyglot's numbers ([`super::zobrist::POLYGLOT`]).
#[derive(Debug)]
pub struct PolyglotBoard(Board);

impl Clone for PolyglotBoard {
    fn clone(&self) -> PolyglotBoard {
        PolyglotBoard(self.0.clone())
    }

    /// Keeps `self`'s history allocation (replaying many games on one board).
    fn clone_from(&mut self, source: &PolyglotBoard) {
        self.0.clone_from(&source.0);
    }
}

impl From<Board> for PolyglotBoard {
    /// The position of `board`, its key made Polyglot's (the history is
    /// forgotten: its keys were the engine's).
    fn from(mut board: Board) -> PolyglotBoard {
        board.set_key_scheme(KeyScheme::Polyglot);
        PolyglotBoard(board)
    }
}

impl PolyglotBoard {
    pub fn startpos() -> PolyglotBoard {
        PolyglotBoard::from(Board::startpos())
    }

    /// The Polyglot key of the position.
    #[inline]
    pub fn key(&self) -> u64 {
        self.0.key()
    }

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.0.side_to_move()
    }

    /// See [`Board::parse_san`].
    #[inline]
    pub fn parse_san(&self, san: &str) -> Result<Move, NotationError> {
        self.0.parse_san(san)
    }

    /// See [`Board::replay_move`].
    #[inline]
    pub fn replay_move(&mut self, m: Move) {
        self.0.replay_move(m);
    }

    pub fn set_chess960(&mut self, on: bool) {
        self.0.set_chess960(on);
    }

    pub fn fen(&self) -> String {
        self.0.fen()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::zobrist::polyglot_key;

    #[test]
    fn the_key_is_polyglots_after_every_move_and_the_board_it_came_from_keeps_the_engines() {
        let engine = Board::startpos();
        let mut b = PolyglotBoard::from(engine.clone());
        assert_eq!(b.key(), 0x463B_9618_1691_FC9C, "Polyglot's start key");
        assert_eq!(engine.key(), Board::startpos().key());
        let mut check = Board::startpos();
        for san in ["e4", "d5", "e5", "f5", "exf6", "Nc6", "Qh5+", "g6"] {
            let m = b.parse_san(san).unwrap();
            b.replay_move(m);
            check.make_move(m);
            assert_eq!(b.key(), polyglot_key(&check), "after {san}");
            assert_ne!(b.key(), check.key());
        }
        let mut again = PolyglotBoard::startpos();
        again.clone_from(&b);
        assert_eq!((again.key(), again.fen()), (b.key(), b.fen()));
    }
}
