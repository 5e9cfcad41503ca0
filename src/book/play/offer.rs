//! What a book offers in a position: the moves it would play there and
//! their weights ([`Offers`]), one rule per playable format. Play
//! ([`super::select`]), self-play and `genfens` openings, `book export` and
//! `book probe` all read a book through here.
//!
//! | format | moves offered | weight |
//! |---|---|---|
//! | Polyglot | the position's entries whose move is legal, in file order (weight 0 included) | the stored weight |
//! | ABK | the moves of the tree's lines that reach the position (matched by Polyglot key, transpositions merged), in file order | its Polyglot weight ([`AbkMove::weight`](crate::book::format::abk::AbkMove::weight): `2·won + drawn`, the priority when it has no games, 0 for priority 0) |
//! | YACB | every legal move into a position the book has an entry for, and the position's own best move; highest weight first | the mover's expected score on the perf scale, 0..=40000 (below) |
//!
//! SBOB and its JSON form are interchange formats and are not played:
//! [`Book::playable`] refuses them with one message ([`NotPlayable`]).
//!
//! **The YACB weighting** (the one the engine plays with). An entry's value
//! becomes the mover's expected score in [0, 1] ([`expected_score`]):
//! centipawns (white's view) through 1 / (1 + e^(−cp/400)), perf% directly,
//! DTZ/DTM by their sign; bounds are read as values. A move is scored by
//! the entry of the position it leads to; the position's own best move
//! (matched by squares and promotion, [`same_move`]) without such an entry
//! by the position's own entry. A move that walks into a repetition is not
//! offered when the mover is better (expected score above 0.5). Offers are
//! sorted by score, the position's own best move first among equals.
//! [`yacb_candidates`] gives the exact scores, which the engine's YACB
//! selection reads (its variety margin is in centipawns); [`Offers`] gives
//! them on the perf scale (× 40000, rounded).
//!
//! Learned results (`BookLearn`, [`crate::book::format::learn`]) change how a position
//! scores in play, never the book: with a learn table, a child entry's
//! perf% becomes `(prior · K + white_points / 2) / (K + games)` with the
//! entry's expected score for white as `prior` and [`PRIOR_GAMES`] = K, so a
//! handful of games moves a position but does not overrule the book
//! ([`blend`]).

use super::{Book, BookFormat};
use crate::board::Board;
use crate::book::format::abk::AbkBook;
use crate::book::format::learn::LearnTable;
use crate::book::format::polyglot::PolyglotBook;
use crate::book::format::same_move;
use crate::book::format::yacb::{ValueType, YacbBook, YacbEntry};
use crate::types::{Color, Move};
use thiserror::Error;

/// Weight of the book's own value, in games, when learned results are blended in.
pub const PRIOR_GAMES: f64 = 8.0;

/// One move a book offers, with its weight on the format's scale (see the
/// module table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub mv: Move,
    pub weight: u32,
}

/// The moves a book offers in a position and their weights.
pub trait Offers {
    /// The legal moves offered in `board`, in the format's order (see the
    /// module table). `board` is left as it was found.
    fn offers(&self, board: &mut Board) -> Vec<Offer>;
}

/// Why a book cannot be played: its format holds no moves to offer.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[error("{format} books are not played; convert it to Polyglot or YACB first (`archivist book convert`)")]
pub struct NotPlayable {
    pub format: BookFormat,
}

impl Book {
    /// The book as [`Offers`]: Polyglot, ABK and YACB books are played,
    /// the others are refused with [`NotPlayable`].
    pub fn playable(&self) -> Result<&dyn Offers, NotPlayable> {
        match self {
            Book::Yacb(b) => Ok(b),
            Book::Polyglot(b) => Ok(b),
            Book::Abk(b) => Ok(b),
            other => Err(NotPlayable { format: other.format() }),
        }
    }
}

impl Offers for PolyglotBook {
    fn offers(&self, board: &mut Board) -> Vec<Offer> {
        self.moves(board).into_iter().map(|m| Offer { mv: m.mv, weight: u32::from(m.weight) }).collect()
    }
}

impl Offers for AbkBook {
    fn offers(&self, board: &mut Board) -> Vec<Offer> {
        self.probe(board).into_iter().map(|m| Offer { mv: m.mv, weight: u32::from(m.weight()) }).collect()
    }
}

impl Offers for YacbBook {
    fn offers(&self, board: &mut Board) -> Vec<Offer> {
        yacb_candidates(self, board, None)
            .into_iter()
            .map(|c| Offer {
                mv: c.mv,
                weight: (c.score * f64::from(crate::book::format::yacb::PERF_MAX)).round() as u32,
            })
            .collect()
    }
}

/// Expected score in [0, 1] of an entry's value for `mover`.
pub fn expected_score(e: &YacbEntry, mover: Color) -> f64 {
    let white = match e.value_type {
        ValueType::Centipawns | ValueType::KnownWin => crate::types::expected_score(e.value as f64),
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

/// `entry` with the results learned for its key blended in (see the module
/// doc): a perf% entry; unchanged when nothing was learned for its key.
pub fn blend(table: &LearnTable, entry: YacbEntry) -> YacbEntry {
    let Some(l) = table.entries.get(&entry.key) else { return entry };
    let prior = expected_score(&entry, Color::White);
    let games = l.games as f64;
    let p = (prior * PRIOR_GAMES + l.white_points as f64 / 2.0) / (PRIOR_GAMES + games);
    YacbEntry { value_type: ValueType::Perf, value: (p * 40_000.0).round().clamp(0.0, 40_000.0) as i32, ..entry }
}

/// A YACB offer with its exact expected score.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub mv: Move,
    pub score: f64,
    /// Whether the position's own entry names this move.
    pub is_best_move: bool,
}

/// The YACB offers of `board` with their exact scores, best first (see the
/// module doc), learned results blended in when `learn` is given.
pub fn yacb_candidates(book: &YacbBook, board: &mut Board, learn: Option<&LearnTable>) -> Vec<Candidate> {
    let mover = board.side_to_move();
    let own = book.probe(board);
    let legal = board.legal_moves();
    let mut out: Vec<Candidate> = Vec::new();
    for m in legal.iter() {
        board.make_move(m);
        let child_key = book.key_type().key(board);
        let child = book.lookup(child_key).map(|c| learn.map_or(c, |l| blend(l, c)));
        let repeats = board.is_repetition(usize::MAX);
        board.unmake_move();
        // Matched by squares and promotion: a converted book may carry a
        // castling or en-passant move without its kind bits.
        let is_best = own.is_some_and(|o| same_move(o.best_move, m));
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

/// A move drawn in proportion to its weight, as python-chess's
/// `weighted_choice` draws from a Polyglot book: with `total` the sum of
/// the weights, the first offer whose running sum exceeds `random % total`.
/// `None` when the weights sum to 0.
pub fn pick_weighted(offers: &[Offer], random: u64) -> Option<Offer> {
    let total: u64 = offers.iter().map(|o| u64::from(o.weight)).sum();
    if total == 0 {
        return None;
    }
    let r = random % total;
    let mut sum = 0u64;
    offers.iter().copied().find(|o| {
        sum += u64::from(o.weight);
        sum > r
    })
}

/// The heaviest offer, first of equals; `None` if every weight is 0.
pub fn pick_best(offers: &[Offer]) -> Option<Offer> {
    let mut best: Option<Offer> = None;
    for o in offers.iter().filter(|o| o.weight > 0) {
        match best {
            Some(b) if b.weight >= o.weight => {}
            _ => best = Some(*o),
        }
    }
    best
}

#[cfg(test)]
mod tests;
