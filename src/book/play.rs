//! A book as the engine and the service see it. Imports
//! [`super::format`]; nothing of [`super::tools`].
//!
//! * [`open()`]: opening any format, told by content ([`format_of`]), with
//!   one error type ([`BookError`]); [`input_kind`]: whether an input is a
//!   book, a PGN or an EPD file.
//! * [`offer`]: the moves a playable book (Polyglot, YACB, ABK) offers in a
//!   position and their weights, the one YACB weighting; [`report`]: what a
//!   book says about a position (`book probe`, `serve`).
//! * [`shelf`]: the books `BookFile` names, opened once, in order (what play
//!   chooses from and `BookInSearch` probes); [`select`]: the choice among
//!   book moves in play; [`within_book_depth`]: whether a position is still
//!   in book range.

pub mod offer;
mod open;
pub mod report;
pub mod select;
pub mod shelf;

pub use open::{
    format_from_extension, format_of, format_of_bytes, input_kind, open, open_bytes, read_head, sniff, text_kind, Book,
    BookError, BookFormat, InputKind, SNIFF_LEN,
};

use crate::board::Board;

/// Whether `board` is within a book depth of `depth` plies: its game ply
/// ([`Board::game_ply`], counted from the game's first position through the
/// FEN's move number) is below `depth`. OwnBook, BookInSearch and self-play's
/// book walks all ask this one question, so `BookDepth 40` means the first
/// 40 plies of the game however the position was set up.
pub fn within_book_depth(board: &Board, depth: u32) -> bool {
    board.game_ply() < depth
}

#[cfg(test)]
mod tests {
    use crate::board::Board;

    #[test]
    fn book_depth_counts_plies_from_the_fen_move_number() {
        let start = Board::startpos();
        assert!(super::within_book_depth(&start, 1));
        assert!(!super::within_book_depth(&start, 0));
        // Move 30, black to move: 2 * 29 + 1 = 59 plies into the game.
        let mut late =
            Board::from_fen("r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 b - - 0 30", false).unwrap();
        assert_eq!(late.game_ply(), 59);
        assert_eq!(late.plies_since_setup(), 0);
        assert!(!super::within_book_depth(&late, 40));
        assert!(super::within_book_depth(&late, 60));
        let m = late.legal_moves().iter().next().unwrap();
        late.make_move(m);
        assert_eq!((late.game_ply(), late.plies_since_setup()), (60, 1));
        assert!(!super::within_book_depth(&late, 60));
    }
}
