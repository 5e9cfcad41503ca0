//! The book formats on disk, one module each (its `//!` doc is the byte
//! layout), and what they share: the move comparison that ignores kind bits,
//! the perf-scale conversion to centipawns, the elo of entries that carry
//! no analysis quality, and the atomic writer. Imports the board, the codec
//! and [`crate::atomic_file`]; nothing of [`super::play`] or
//! [`super::tools`].
//!
//! * [`polyglot`] (docs/formats.md#polyglot), read over `memmap2`, with its
//!   merge and edit; [`yacb`] (docs/formats.md#yacb), the engine's own;
//!   [`abk`]: Arena's; [`sbob`] (docs/formats.md#sbob) and [`json`], its
//!   JSON form; [`legacy_json`] (docs/formats.md#legacy-json): SBOB's
//!   predecessor, the old shogi `openingBook.json`, read into [`json`]'s
//!   model; [`exp`]: SugaR-family experience files; [`learn`]: results
//!   learned in play beside a YACB book (YACL). (The opening explorer's
//!   index is [`crate::explorer::index`].)
//! * [`elo`]: the Elo estimate of analysis (nodes, threads, depth) that YACB
//!   entries carry.
//! * [`walk_known`]: the one walk over the positions a book knows (SugaR's
//!   and ABK's conversions, `book convert`, `book analyse` and the TT
//!   conversion walk through it).

pub mod abk;
pub mod elo;
pub mod exp;
pub mod json;
pub mod learn;
pub mod legacy_json;
pub mod polyglot;
pub mod sbob;
pub mod yacb;

use crate::board::{Board, MoveList};
use crate::types::Move;
use std::collections::{HashSet, VecDeque};
use std::io::Write;
use std::path::Path;

/// Elo given to entries converted from books that carry no analysis quality.
pub const UNKNOWN_ELO: i32 = -2000;

/// Same origin, destination and promotion (kind bits aside): a book's move
/// and a board's.
pub fn same_move(a: Move, b: Move) -> bool {
    a.from() == b.from() && a.to() == b.to() && a.promotion_piece() == b.promotion_piece() && !a.is_none()
}

/// Centipawns equivalent of an expected score (for the variety margin).
pub fn score_to_cp(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    crate::types::LOGISTIC_SCALE * (p / (1.0 - p)).ln()
}

/// Writes `bytes` to `path` through a synced temporary file renamed into place
/// (see [`crate::atomic_file`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::atomic_file::write_with(path, 1 << 16, |w| w.write_all(bytes))
}

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

#[cfg(test)]
mod tests {
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
