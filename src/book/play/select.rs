//! Choosing a book move for play, among the moves a book offers
//! ([`super::offer`]: which moves, and the one YACB weighting).
//!
//! YACB books hold values: `best` takes the highest expected score (the
//! position's own best move wins ties); `weighted` picks at random, in
//! proportion to expected score, among the candidates within `variety`
//! centipawns of the best; `uniform` picks any candidate with equal chance.
//! Polyglot and ABK books hold weighted moves and no values: `weighted` picks in
//! proportion to weight as python-chess's `weighted_choice` does, `best` the
//! heaviest, `uniform` any move of non-zero weight; a move into a
//! repetition is skipped while another book move remains.
//! Before choosing, [`Play::min_weight`] drops offers lighter than it (YACB:
//! expected score on the perf scale, 40000 = certain win for the mover), and
//! [`Play::width`] keeps only the best N (heaviest, or highest score).
//! YACB positions with learned results ([`crate::book::format::learn`], `BookLearn`) are
//! scored with them blended in.
//! Books listed in `BookFile` are probed in order; the first with a
//! candidate decides.

use super::offer::{self, yacb_candidates, Candidate, Offer};
use super::shelf::OpeningBooks;
use super::Book;
use crate::board::Board;
use crate::book::format::score_to_cp;
use crate::types::Move;
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Selection {
    Best,
    #[default]
    Weighted,
    Uniform,
}

impl Selection {
    pub fn parse(s: &str) -> Option<Selection> {
        match s.trim().to_ascii_lowercase().as_str() {
            "best" => Some(Selection::Best),
            "weighted" => Some(Selection::Weighted),
            "uniform" => Some(Selection::Uniform),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BookChoice {
    pub mv: Move,
    pub score: f64,
    pub book: PathBuf,
    pub candidates: usize,
    /// YACB books: the key (in the book's key type) of the position after
    /// the move, which `BookLearn` credits with the game's result.
    pub yacb_key: Option<u64>,
}

/// How book moves are chosen in play (the `Book*` options).
#[derive(Clone, Copy, Debug)]
pub struct Play<'a> {
    pub selection: Selection,
    pub variety_cp: i32,
    /// Polyglot weight, or YACB expected score on the perf scale (0..=40000).
    pub min_weight: u32,
    /// Only the best N moves (0 = all).
    pub width: usize,
    /// Learned results per YACB book (`BookLearn`).
    pub learned: Option<&'a crate::book::format::learn::Learned>,
}

impl Play<'_> {
    pub fn new(selection: Selection, variety_cp: i32) -> Play<'static> {
        Play { selection, variety_cp, min_weight: 0, width: 0, learned: None }
    }
}

/// Picks from `candidates` (best first) with `rng` (xorshift state), after
/// the minimum-score and width filters of `play`.
pub fn pick(candidates: &[Candidate], play: &Play, rng: &mut u64) -> Option<Candidate> {
    let floor = play.min_weight as f64 / 40_000.0;
    let mut kept: Vec<&Candidate> = candidates.iter().filter(|c| c.score >= floor).collect();
    if play.width > 0 {
        kept.truncate(play.width);
    }
    let best = *kept.first()?;
    match play.selection {
        Selection::Best => return Some(best.clone()),
        Selection::Uniform => {
            let i = (next_random(rng) % kept.len() as u64) as usize;
            return kept.get(i).map(|c| (*c).clone());
        }
        Selection::Weighted => {}
    }
    let floor = score_to_cp(best.score) - play.variety_cp.max(0) as f64;
    let pool: Vec<&Candidate> = kept.into_iter().filter(|c| score_to_cp(c.score) >= floor).collect();
    let total: f64 = pool.iter().map(|c| c.score.max(1e-6)).sum();
    let mut r = (next_random(rng) >> 11) as f64 / (1u64 << 53) as f64 * total;
    for c in &pool {
        r -= c.score.max(1e-6);
        if r < 0.0 {
            return Some((*c).clone());
        }
    }
    pool.last().map(|c| (*c).clone())
}

fn next_random(rng: &mut u64) -> u64 {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    *rng
}

/// A choice among weighted offers (Polyglot): repetitions avoided while
/// another move remains.
fn weighted_choice(offers: Vec<Offer>, board: &mut Board, play: &Play, rng: &mut u64) -> Option<(Move, f64, usize)> {
    let mut all = offers;
    all.retain(|o| o.weight >= play.min_weight);
    if play.width > 0 {
        // Stable: equal weights keep file order.
        all.sort_by_key(|o| std::cmp::Reverse(o.weight));
        all.truncate(play.width);
    }
    let fresh: Vec<Offer> = all
        .iter()
        .filter(|o| {
            board.make_move(o.mv);
            let rep = board.is_repetition(usize::MAX);
            board.unmake_move();
            !rep
        })
        .copied()
        .collect();
    let pool = if fresh.iter().any(|o| o.weight > 0) { &fresh } else { &all };
    let total: u64 = pool.iter().map(|o| u64::from(o.weight)).sum();
    let chosen = match play.selection {
        Selection::Best => offer::pick_best(pool),
        Selection::Weighted => offer::pick_weighted(pool, next_random(rng)),
        Selection::Uniform => {
            let playable: Vec<&Offer> = pool.iter().filter(|o| o.weight > 0).collect();
            playable.get((next_random(rng) % playable.len().max(1) as u64) as usize).map(|o| **o)
        }
    }?;
    Some((chosen.mv, chosen.weight as f64 / total.max(1) as f64, all.len()))
}

/// The first book of `books` (in order) that has a candidate decides.
pub fn choose(books: &OpeningBooks, board: &mut Board, play: &Play, rng: &mut u64) -> Option<BookChoice> {
    for (path, book) in books.iter() {
        let found = match book {
            Book::Yacb(b) => {
                let learn = play.learned.and_then(|l| l.get(path));
                let cands = yacb_candidates(b, board, learn);
                pick(&cands, play, rng).map(|c| (c.mv, c.score, cands.len()))
            }
            other => match other.playable() {
                Ok(b) => weighted_choice(b.offers(board), board, play, rng),
                Err(_) => None,
            },
        };
        if let Some((mv, score, candidates)) = found {
            debug_assert!(board.is_legal(mv));
            let yacb_key = match book {
                Book::Yacb(b) => {
                    board.make_move(mv);
                    let k = b.key_type().key(board);
                    board.unmake_move();
                    Some(k)
                }
                _ => None,
            };
            return Some(BookChoice { mv, score, book: path.clone(), candidates, yacb_key });
        }
    }
    None
}

/// A book move from the first list (in order) that has one: per-colour
/// books before `BookFile`'s.
pub fn choose_in(lists: &[&OpeningBooks], board: &mut Board, play: &Play, rng: &mut u64) -> Option<BookChoice> {
    lists.iter().find_map(|books| choose(books, board, play, rng))
}

/// The ponder move after `mv`: the reply the books would play (best
/// selection, the same filters), when the reply position is in them.
pub fn ponder_in(lists: &[&OpeningBooks], board: &Board, mv: Move, play: &Play) -> Option<Move> {
    let mut after = board.clone();
    after.make_move(mv);
    let best = Play { selection: Selection::Best, ..*play };
    let mut rng = 1;
    choose_in(lists, &mut after, &best, &mut rng).map(|c| c.mv)
}
