//! Opening books on disk, the conversions between them, and book moves in play.
//!
//! * [`yacb`]: the engine's own book (docs/formats.md#yacb), read over `memmap2`.
//! * [`polyglot`]: the Polyglot format (docs/formats.md#polyglot), read over `memmap2`.
//! * [`abk`]: Arena's ABK book; [`exp`]: SugaR-family experience files.
//! * [`sbob`]: the SBOB container (docs/formats.md#sbob) and its chess mapping;
//!   [`json`]: SBOB's JSON form.
//! * [`build`]: Polyglot books as `polyglot make-book` builds them (its
//!   rules in [`make_book`]) and YACB books of statistics, from databases of
//!   any size, streamed, filtered, on several threads, in bounded memory.
//!   The whole-file reference builders it is tested against (`make_book`,
//!   `stats`) are compiled for tests only.
//! * [`open()`]: opening any of them, told by content ([`format_of`]), with one
//!   error type ([`BookError`]); [`input_kind`]: whether an input is a book,
//!   a PGN or an EPD file; [`walk_known`]: the one walk over a book's positions.
//! * [`offer`]: the moves a playable book (Polyglot, YACB, ABK) offers in a
//!   position and their weights, the one YACB weighting; [`select`]:
//!   choosing among them in play; [`learn`]: results learned in play (YACL).
//! * [`convert`]: conversions among Polyglot, SBOB, JSON and YACB;
//!   [`export`]: a book's lines as an EPD suite or a PGN tree.
//! * [`elo`]: the Elo estimate of analysis (nodes, threads, depth). Engine analysis and the
//!   TT conversion live in [`crate::analysis`], above the search.
//!
//! Every writer goes through [`write_atomic`]: a temporary file in the
//! target's directory, synced, then renamed over the target, so a crash or a
//! full disk never leaves a half-written book in its place.

pub mod abk;
pub mod build;
pub mod convert;
pub mod elo;
pub mod exp;
pub mod export;
pub mod json;
pub mod learn;
pub mod make_book;
pub mod merge;
pub mod offer;
mod open;
pub mod polyglot;
pub mod report;
pub mod sbob;
pub mod select;
#[cfg(test)]
pub mod stats;
pub mod yacb;

pub use open::{
    format_from_extension, format_of, input_kind, open, read_head, sniff, text_kind, Book, BookError, BookFormat,
    InputKind, SNIFF_LEN,
};

use crate::board::{Board, MoveList};
use crate::types::Move;
use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::Path;

/// Breadth-first walk over the positions of a book (or of anything that
/// stores positions by key): from `roots`, each visited whether known or
/// not, through the legal moves that `follow` accepts, each position (by
/// `key`) once, at most `max_ply` plies from a root. `visit` gets each
/// position, its history cleared, with its legal moves, and returns what
/// `follow` then needs to judge that position's moves: `follow(state, move,
/// child_key)`. Polyglot and YACB conversions, `book analyse` and the TT
/// conversion all walk through here.
pub fn walk_known<S>(
    roots: &[Board],
    max_ply: usize,
    key: impl Fn(&Board) -> u64,
    mut visit: impl FnMut(&Board, &MoveList) -> S,
    mut follow: impl FnMut(&S, Move, u64) -> bool,
) {
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    for r in roots {
        if seen.insert(key(r)) {
            let mut r = r.clone();
            r.clear_history();
            queue.push_back((r, 0));
        }
    }
    while let Some((mut b, ply)) = queue.pop_front() {
        let legal = b.legal_moves();
        let state = visit(&b, &legal);
        if ply >= max_ply {
            continue;
        }
        for m in legal.iter() {
            b.make_move(m);
            let k = key(&b);
            if !seen.contains(&k) && follow(&state, m, k) {
                seen.insert(k);
                let mut child = b.clone();
                child.clear_history();
                queue.push_back((child, ply + 1));
            }
            b.unmake_move();
        }
    }
}

/// Whether `board` is within a book depth of `depth` plies: its game ply
/// ([`Board::game_ply`], counted from the game's first position through the
/// FEN's move number) is below `depth`. OwnBook, BookInSearch and self-play's
/// book walks all ask this one question, so `BookDepth 40` means the first
/// 40 plies of the game however the position was set up.
pub fn within_book_depth(board: &Board, depth: u32) -> bool {
    board.game_ply() < depth
}

/// Writes `bytes` to `path` through a synced temporary file renamed into place
/// (see [`crate::atomic_file`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::atomic_file::write_with(path, 1 << 16, |w| w.write_all(bytes))
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

    #[test]
    fn write_atomic_replaces_the_file_and_leaves_no_temporary() {
        let dir = std::env::temp_dir().join(format!("archivist-book-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.bin");
        super::write_atomic(&path, b"old").unwrap();
        super::write_atomic(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
