//! Book entries as search values, both ways, and `BookInSearch`.
//!
//! A search score (side to move's view, relative to the node) becomes a YACB
//! value (white's view) as follows; [`entry_to_value`] is the reverse.
//!
//! | score                   | value_type         | value                          | bound |
//! |-------------------------|--------------------|--------------------------------|-------|
//! | mate in n plies (±)     | DTM                | ±n, positive when white mates  | proven if exact, else the flipped bound |
//! | tablebase win/loss band | cp after known win | the score, white's view        | flipped bound |
//! | anything else           | centipawns         | the score, white's view        | flipped bound |
//!
//! "Flipped": a lower bound for black is an upper bound for white
//! ([docs/formats.md#yacb-value](../../docs/formats.md#yacb-value)). Perf% entries are statistics, not search values, and DTZ
//! entries are values only when proven (a sign: win, draw or loss).
//!
//! **BookInSearch.** While the game ply is within `BookDepth`, the root
//! and every node below it that the TT did not already cut probe the YACB
//! books (in `BookFile` order, the first entry found counts). An entry is
//! trusted only when its elo is at least the elo of the running search
//! ([`crate::book::format::elo`] applied to the search's node budget, see
//! `crate::engine::search_elo`); a trusted entry then acts like a TT entry of
//! unlimited depth: its best move (when legal) is searched first (at the
//! root: in the first iteration), and at non-PV nodes (never the root) its
//! value cuts off as a TT value with its bound would
//! (exact always, lower at or above beta, upper at or below alpha).

use super::{mate_in, mated_in, MATE, MATE_IN_MAX_PLY, TB_WIN, TB_WIN_IN_MAX_PLY};
use crate::board::Board;
use crate::book::format::same_move;
use crate::book::format::yacb::{BoundType, ValueType, YacbEntry};
use crate::book::play::shelf::OpeningBooks;
use crate::tt::Bound;
use crate::types::{Color, Move};
use std::sync::Arc;

/// White's-view value, its type and bound for a node-relative search score.
/// `None` for a score that is not a value (no bound).
pub fn value_to_entry(score: i32, bound: Bound, mover: Color) -> Option<(ValueType, BoundType, i32)> {
    let white = if mover == Color::White { score } else { -score };
    let flipped = match (bound, mover) {
        (Bound::None, _) => return None,
        (Bound::Exact, _) => BoundType::Exact,
        (Bound::Lower, Color::White) | (Bound::Upper, Color::Black) => BoundType::Lower,
        (Bound::Upper, Color::White) | (Bound::Lower, Color::Black) => BoundType::Upper,
    };
    if score.abs() >= MATE_IN_MAX_PLY && score.abs() <= MATE {
        let plies = MATE - score.abs();
        let bound = if flipped == BoundType::Exact { BoundType::Proven } else { flipped };
        // A side that is mated now (plies 0) has no sign left in ±0: skip it.
        if plies == 0 {
            return None;
        }
        return Some((ValueType::Dtm, bound, white.signum() * plies));
    }
    if score.abs() > MATE {
        return None;
    }
    let value_type = if score.abs() >= TB_WIN_IN_MAX_PLY { ValueType::KnownWin } else { ValueType::Centipawns };
    Some((value_type, flipped, white))
}

/// The search value (side to move's view, relative to the node at `ply`)
/// and TT bound an entry stands for; `None` for perf% (a statistic, not a
/// search value) and DTZ entries that are not proven.
pub fn entry_to_value(e: &YacbEntry, mover: Color, ply: usize) -> Option<(i32, Bound)> {
    let sign = if mover == Color::White { 1 } else { -1 };
    let bound = match e.bound {
        BoundType::Exact | BoundType::Proven => Bound::Exact,
        BoundType::Lower if mover == Color::White => Bound::Lower,
        BoundType::Upper if mover == Color::Black => Bound::Lower,
        _ => Bound::Upper,
    };
    let ours = e.value * sign;
    let value = match e.value_type {
        ValueType::Perf => return None,
        ValueType::Centipawns => ours.clamp(-(TB_WIN_IN_MAX_PLY - 1), TB_WIN_IN_MAX_PLY - 1),
        ValueType::KnownWin => ours.clamp(-TB_WIN, TB_WIN),
        ValueType::Dtm => match ours.signum() {
            1 => mate_in(ply + ours as usize).max(MATE_IN_MAX_PLY),
            -1 => mated_in(ply + ours.unsigned_abs() as usize).min(-MATE_IN_MAX_PLY),
            _ => 0,
        },
        ValueType::Dtz if e.bound == BoundType::Proven => match ours.signum() {
            1 => TB_WIN - ply as i32,
            -1 => -TB_WIN + ply as i32,
            _ => 0,
        },
        ValueType::Dtz => return None,
    };
    Some((value, bound))
}

/// The books the search consults, and when.
#[derive(Clone)]
pub struct BookInSearch {
    pub books: Arc<OpeningBooks>,
    /// Entries rated below this are ignored (the running search's elo).
    pub min_elo: i32,
    /// Probe only within this book depth (`BookDepth`, see
    /// [`crate::book::play::within_book_depth`]).
    pub book_depth: u32,
}

impl BookInSearch {
    /// The trusted entry's legal best move (or `Move::NONE`) and its value
    /// for the node at `ply`, if the position has a trusted entry.
    pub fn probe(&self, board: &Board, ply: usize) -> Option<(Move, Option<(i32, Bound)>)> {
        if !crate::book::play::within_book_depth(board, self.book_depth) {
            return None;
        }
        let e = self.books.probe(board)?;
        if e.elo.rank() < self.min_elo {
            return None;
        }
        let mv = if e.best_move.is_none() {
            Move::NONE
        } else {
            board.legal_moves().iter().find(|&m| same_move(e.best_move, m)).unwrap_or(Move::NONE)
        };
        Some((mv, entry_to_value(&e, board.side_to_move(), ply)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::format::yacb::{Elo, Source};

    #[test]
    fn black_lower_bound_becomes_whites_upper_bound() {
        assert_eq!(
            value_to_entry(35, Bound::Lower, Color::Black),
            Some((ValueType::Centipawns, BoundType::Upper, -35))
        );
        assert_eq!(value_to_entry(35, Bound::Lower, Color::White), Some((ValueType::Centipawns, BoundType::Lower, 35)));
        assert_eq!(
            value_to_entry(-20, Bound::Exact, Color::Black),
            Some((ValueType::Centipawns, BoundType::Exact, 20))
        );
        assert_eq!(value_to_entry(5, Bound::None, Color::White), None);
    }

    #[test]
    fn mate_scores_become_proven_dtm_in_plies_for_white() {
        // Black to move mates in 3 plies: white is mated, DTM −3.
        assert_eq!(
            value_to_entry(mate_in(3), Bound::Exact, Color::Black),
            Some((ValueType::Dtm, BoundType::Proven, -3))
        );
        assert_eq!(
            value_to_entry(mated_in(4), Bound::Upper, Color::White),
            Some((ValueType::Dtm, BoundType::Upper, -4))
        );
        assert_eq!(value_to_entry(TB_WIN - 5, Bound::Exact, Color::White).map(|v| v.0), Some(ValueType::KnownWin));
    }

    #[test]
    fn entry_values_come_back_as_the_search_values() {
        for mover in [Color::White, Color::Black] {
            for (score, bound) in
                [(37, Bound::Lower), (-12, Bound::Upper), (0, Bound::Exact), (mate_in(7), Bound::Exact)]
            {
                let (value_type, b, value) = value_to_entry(score, bound, mover).unwrap();
                let e = YacbEntry {
                    key: 1,
                    elo: Elo::rated(0),
                    value_type,
                    bound: b,
                    source: Source::Engine,
                    value,
                    best_move: crate::types::Move::NONE,
                };
                assert_eq!(entry_to_value(&e, mover, 0), Some((score, bound)), "{score} {bound:?} {mover:?}");
            }
        }
    }

    /// A book of `entries` in a fresh temp dir, opened as `BookFile` would.
    fn books(name: &str, entries: Vec<YacbEntry>) -> Arc<OpeningBooks> {
        let dir = std::env::temp_dir().join(format!("archivist-bis-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("b.yacb");
        crate::book::format::yacb::write(&path, &crate::book::format::yacb::KeyType::Engine, entries).unwrap();
        let (books, problems) = OpeningBooks::open(path.to_str().unwrap());
        assert!(problems.is_empty(), "{problems:?}");
        std::fs::remove_dir_all(&dir).unwrap();
        Arc::new(books)
    }

    fn entry(board: &Board, elo: Elo, value: i32, bound: BoundType, best: Move) -> YacbEntry {
        YacbEntry {
            key: board.key(),
            elo,
            value_type: ValueType::Centipawns,
            bound,
            source: Source::Engine,
            value,
            best_move: best,
        }
    }

    #[test]
    fn probe_trusts_only_entries_rated_at_least_the_search() {
        let mut board = Board::startpos();
        board.make_move(board.parse_uci("e2e4").unwrap());
        let c5 = board.parse_uci("c7c5").unwrap();
        let b = books("elo", vec![entry(&board, Elo::rated(-300), 40, BoundType::Lower, c5)]);
        let bis = |min_elo| BookInSearch { books: Arc::clone(&b), min_elo, book_depth: 40 };
        // White's lower bound is black's upper bound, from black's view.
        assert_eq!(bis(-300).probe(&board, 1), Some((c5, Some((-40, Bound::Upper)))));
        assert_eq!(bis(-299).probe(&board, 1), None, "rated below the search");
        let shallow = BookInSearch { book_depth: 0, ..bis(-1000) };
        assert_eq!(shallow.probe(&board, 1), None, "beyond BookDepth");
    }

    #[test]
    fn an_illegal_best_move_is_dropped_but_the_value_kept() {
        let board = Board::startpos();
        let illegal = Move::from_raw(0o1234);
        let b = books("illegal", vec![entry(&board, Elo::Irreplaceable, 15, BoundType::Exact, illegal)]);
        let bis = BookInSearch { books: b, min_elo: i32::MAX, book_depth: 40 };
        assert_eq!(bis.probe(&board, 0), Some((Move::NONE, Some((15, Bound::Exact)))));
    }

    #[test]
    fn trusted_entries_change_the_search_and_untrusted_ones_do_not() {
        use crate::search::{Limits, SearchConfig, Searcher};
        // Every position two plies from the start, valued by a quick search.
        let mut analyser =
            crate::analysis::Analyser::new(crate::analysis::AnalyseOptions { nodes: 500, threads: 1, hash_mb: 1 });
        let mut entries = Vec::new();
        let mut board = Board::startpos();
        for m in board.legal_moves().iter() {
            board.make_move(m);
            for r in board.legal_moves().iter() {
                board.make_move(r);
                entries.extend(analyser.analyse(&board));
                board.unmake_move();
            }
            board.unmake_move();
        }
        let search = |book: Option<BookInSearch>| {
            let mut searcher = Searcher::new(4, 1);
            let config = SearchConfig { book, ..SearchConfig::default() };
            let limits = Limits { depth: Some(7), ..Limits::default() };
            let control = searcher.control(false);
            searcher.search(&Board::startpos(), &limits, &config, &control, None)
        };
        let plain = search(None);
        let low = books("low", entries.iter().map(|e| YacbEntry { elo: Elo::rated(-3000), ..*e }).collect());
        let high = books("high", entries.iter().map(|e| YacbEntry { elo: Elo::Irreplaceable, ..*e }).collect());
        let min_elo = crate::book::format::elo::estimate(crate::book::format::elo::nodes_for_depth(7), 1);
        let untrusted = search(Some(BookInSearch { books: low, min_elo, book_depth: 40 }));
        assert_eq!(untrusted.nodes, plain.nodes, "entries below the search's elo are ignored");
        let trusted = search(Some(BookInSearch { books: high, min_elo, book_depth: 40 }));
        assert_ne!(trusted.nodes, plain.nodes, "trusted entries cut and reorder");
        assert!(Board::startpos().is_legal(trusted.best));
    }
}
