//! Choosing a book move for play.
//!
//! A YACB book holds one entry per position, so the candidates for a
//! position are: every legal move whose resulting position has an entry
//! (scored by that entry), and the position's own best move (scored by the
//! child entry when there is one, else by the position's entry). Values are
//! turned into the mover's expected score in [0, 1]: centipawns (white's
//! view) through 1 / (1 + e^(−cp/400)), perf% directly, DTZ/DTM by their
//! sign. Bounds are read as values. A move that walks into a repetition is
//! skipped when the mover is better (expected score above 0.5).
//! `best` takes the highest score (the position's own best move wins ties);
//! `weighted` picks at random, in proportion to expected score, among the
//! candidates within `variety` centipawns of the best.
//! Books listed in `BookFile` are probed in order; the first with a
//! candidate decides.

use super::yacb::{ValueType, YacbBook, YacbEntry};
use crate::board::Board;
use crate::types::{Color, Move};
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    Best,
    Weighted,
}

impl Selection {
    pub fn parse(s: &str) -> Option<Selection> {
        match s.trim().to_ascii_lowercase().as_str() {
            "best" => Some(Selection::Best),
            "weighted" => Some(Selection::Weighted),
            _ => None,
        }
    }
}

/// Expected score in [0, 1] of an entry's value for `mover`.
pub fn expected_score(e: &YacbEntry, mover: Color) -> f64 {
    let white = match e.value_type {
        ValueType::Centipawns | ValueType::KnownWin => 1.0 / (1.0 + (-(e.value as f64) / 400.0).exp()),
        ValueType::Perf => e.value as f64 / 40_000.0,
        ValueType::Dtz | ValueType::Dtm => match e.value.signum() {
            1 => 1.0,
            -1 => 0.0,
            _ => 0.5,
        },
    };
    if mover == Color::White {
        white
    } else {
        1.0 - white
    }
}

/// Centipawns equivalent of an expected score (for the variety margin).
pub fn score_to_cp(p: f64) -> f64 {
    let p = p.clamp(1e-6, 1.0 - 1e-6);
    400.0 * (p / (1.0 - p)).ln()
}

#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub mv: Move,
    pub score: f64,
    /// Whether the position's own entry names this move.
    pub is_best_move: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct BookChoice {
    pub mv: Move,
    pub score: f64,
    pub book: PathBuf,
    pub candidates: usize,
}

/// The candidates of `board` in a YACB book, best first.
pub fn yacb_candidates(book: &YacbBook, board: &mut Board) -> Vec<Candidate> {
    let mover = board.side_to_move();
    let own = book.probe(board);
    let legal = board.legal_moves();
    let mut out: Vec<Candidate> = Vec::new();
    for m in legal.iter() {
        board.make_move(m);
        let child = book.probe(board);
        let repeats = board.is_repetition(usize::MAX);
        board.unmake_move();
        let is_best = own.is_some_and(|o| o.best_move == m);
        let score = match (child, own) {
            (Some(c), _) => expected_score(&c, mover),
            (None, Some(o)) if is_best => expected_score(&o, mover),
            _ => continue,
        };
        if repeats && score > 0.5 {
            continue;
        }
        out.push(Candidate { mv: m, score, is_best_move: is_best });
    }
    // Stable: the position's own best move first among equals.
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.is_best_move.cmp(&a.is_best_move)));
    out
}

/// Picks from `candidates` (best first) with `rng` (xorshift state).
pub fn pick(candidates: &[Candidate], selection: Selection, variety_cp: i32, rng: &mut u64) -> Option<Candidate> {
    let best = candidates.first()?;
    if selection == Selection::Best {
        return Some(best.clone());
    }
    let floor = score_to_cp(best.score) - variety_cp.max(0) as f64;
    let pool: Vec<&Candidate> = candidates.iter().filter(|c| score_to_cp(c.score) >= floor).collect();
    let total: f64 = pool.iter().map(|c| c.score.max(1e-6)).sum();
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    let mut r = (*rng >> 11) as f64 / (1u64 << 53) as f64 * total;
    for c in &pool {
        r -= c.score.max(1e-6);
        if r < 0.0 {
            return Some((*c).clone());
        }
    }
    pool.last().map(|c| (*c).clone())
}

/// The books named by `BookFile`, probed in order.
#[derive(Default)]
pub struct OpeningBooks {
    books: Vec<(PathBuf, YacbBook)>,
}

impl OpeningBooks {
    /// Opens and fully verifies every book in a `:`-separated list. Returns
    /// the usable books and a message per file that could not be used.
    pub fn open(list: &str) -> (OpeningBooks, Vec<String>) {
        let mut books = Vec::new();
        let mut problems = Vec::new();
        for p in list.split(':').map(str::trim).filter(|p| !p.is_empty()) {
            let path = PathBuf::from(p);
            match YacbBook::open(&path).and_then(|b| b.verify().map(|()| b)) {
                Ok(b) => books.push((path, b)),
                Err(e) => problems.push(format!("{p}: {e}")),
            }
        }
        (OpeningBooks { books }, problems)
    }

    pub fn is_empty(&self) -> bool {
        self.books.is_empty()
    }

    pub fn len(&self) -> usize {
        self.books.len()
    }

    pub fn entries(&self) -> usize {
        self.books.iter().map(|(_, b)| b.len()).sum()
    }

    /// The first book (in order) that has a candidate decides.
    pub fn choose(
        &self,
        board: &mut Board,
        selection: Selection,
        variety_cp: i32,
        rng: &mut u64,
    ) -> Option<BookChoice> {
        for (path, book) in &self.books {
            let cands = yacb_candidates(book, board);
            if let Some(c) = pick(&cands, selection, variety_cp, rng) {
                debug_assert!(board.is_legal(c.mv));
                return Some(BookChoice { mv: c.mv, score: c.score, book: path.clone(), candidates: cands.len() });
            }
        }
        None
    }

    /// The entry for the current position from the first book that has one
    /// (for book-in-search).
    pub fn probe(&self, board: &Board) -> Option<YacbEntry> {
        self.books.iter().find_map(|(_, b)| b.probe(board))
    }
}
