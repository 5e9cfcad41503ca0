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
//! Polyglot books (told apart from YACB by content: YACB files start with
//! the `YACB` magic, Polyglot files have no header) hold weighted moves and
//! no values: `weighted` picks in proportion to weight as python-chess's
//! `weighted_choice` does, `best` the heaviest; a move into a repetition is
//! skipped while another book move remains.
//! `uniform` picks any candidate with equal chance (Polyglot: any move
//! of non-zero weight). Before choosing, [`Play::min_weight`] drops
//! Polyglot moves lighter than it and YACB candidates whose expected score
//! (on the perf scale, 40000 = certain win for the mover) is below it, and
//! [`Play::width`] keeps only the best N (heaviest, or highest score).
//! YACB positions with learned results ([`super::learn`], `BookLearn`) are
//! scored with them blended in.
//! Books listed in `BookFile` are probed in order; the first with a
//! candidate decides.

use super::polyglot::{self, PolyglotBook};
use super::yacb::{ValueType, YacbBook, YacbEntry};
use super::Book;
use crate::board::Board;
use crate::types::{Color, Move};
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
    pub learned: Option<&'a super::learn::Learned>,
}

impl Play<'_> {
    pub fn new(selection: Selection, variety_cp: i32) -> Play<'static> {
        Play { selection, variety_cp, min_weight: 0, width: 0, learned: None }
    }
}

/// The candidates of `board` in a YACB book, best first.
pub fn yacb_candidates(book: &YacbBook, board: &mut Board) -> Vec<Candidate> {
    yacb_candidates_learned(book, board, None)
}

/// [`yacb_candidates`] with learned results blended into the children's
/// entries ([`super::learn::LearnTable::blend`]).
pub fn yacb_candidates_learned(
    book: &YacbBook,
    board: &mut Board,
    learn: Option<&super::learn::LearnTable>,
) -> Vec<Candidate> {
    let mover = board.side_to_move();
    let own = book.probe(board);
    let legal = board.legal_moves();
    let mut out: Vec<Candidate> = Vec::new();
    for m in legal.iter() {
        board.make_move(m);
        let child_key = book.key_type().key(board);
        let child = book.lookup(child_key).map(|c| learn.map_or(c, |l| l.blend(c)));
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

/// Same origin, destination and promotion (kind bits aside).
pub fn same_move(a: Move, b: Move) -> bool {
    a.from() == b.from() && a.to() == b.to() && a.promotion_piece() == b.promotion_piece() && !a.is_none()
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

/// A Polyglot choice: repetitions avoided while another move remains.
fn polyglot_choice(book: &PolyglotBook, board: &mut Board, play: &Play, rng: &mut u64) -> Option<(Move, f64, usize)> {
    let mut all = book.moves(board);
    all.retain(|m| u32::from(m.weight) >= play.min_weight);
    if play.width > 0 {
        // Stable: equal weights keep file order.
        all.sort_by_key(|m| std::cmp::Reverse(m.weight));
        all.truncate(play.width);
    }
    let fresh: Vec<polyglot::PolyglotMove> = all
        .iter()
        .filter(|m| {
            board.make_move(m.mv);
            let rep = board.is_repetition(usize::MAX);
            board.unmake_move();
            !rep
        })
        .cloned()
        .collect();
    let pool = if fresh.iter().any(|m| m.weight > 0) { &fresh } else { &all };
    let total: u64 = pool.iter().map(|m| u64::from(m.weight)).sum();
    let chosen = match play.selection {
        Selection::Best => polyglot::pick_best(pool),
        Selection::Weighted => polyglot::pick_weighted(pool, next_random(rng)),
        Selection::Uniform => {
            let playable: Vec<&polyglot::PolyglotMove> = pool.iter().filter(|m| m.weight > 0).collect();
            playable.get((next_random(rng) % playable.len().max(1) as u64) as usize).map(|m| **m)
        }
    }?;
    Some((chosen.mv, chosen.weight as f64 / total.max(1) as f64, all.len()))
}

/// The books named by `BookFile`, probed in order.
#[derive(Default)]
pub struct OpeningBooks {
    books: Vec<(PathBuf, Book)>,
}

impl OpeningBooks {
    /// Opens and fully verifies every book in a `:`-separated list (through
    /// [`crate::book::open()`]). Returns the usable books and a message per
    /// file that could not be used, naming the file and, for a damaged one,
    /// the byte offset. YACB and Polyglot books are played; SBOB and JSON
    /// books are refused with the command that converts them.
    pub fn open(list: &str) -> (OpeningBooks, Vec<String>) {
        let mut books = Vec::new();
        let mut problems = Vec::new();
        for p in list.split(':').map(str::trim).filter(|p| !p.is_empty()) {
            let path = PathBuf::from(p);
            match super::open(&path) {
                Ok(b @ (Book::Yacb(_) | Book::Polyglot(_))) => books.push((path, b)),
                Ok(other) => problems.push(format!(
                    "{p}: {} books are not played directly; convert it with `archivist book convert {p} BOOK.bin`",
                    other.format()
                )),
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
    pub fn choose(&self, board: &mut Board, play: &Play, rng: &mut u64) -> Option<BookChoice> {
        for (path, book) in &self.books {
            let found = match book {
                Book::Yacb(b) => {
                    let learn = play.learned.and_then(|l| l.get(path));
                    let cands = yacb_candidates_learned(b, board, learn);
                    pick(&cands, play, rng).map(|c| (c.mv, c.score, cands.len()))
                }
                Book::Polyglot(b) => polyglot_choice(b, board, play, rng),
                _ => None,
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

    /// Paths of the YACB books, in order.
    pub fn yacb_paths(&self) -> impl Iterator<Item = &PathBuf> + '_ {
        self.books.iter().filter(|(_, b)| matches!(b, Book::Yacb(_))).map(|(p, _)| p)
    }

    /// The YACB entry for the current position from the first YACB book
    /// that has one (for book-in-search).
    pub fn probe(&self, board: &Board) -> Option<YacbEntry> {
        self.books.iter().find_map(|(_, b)| match b {
            Book::Yacb(y) => y.probe(board),
            _ => None,
        })
    }
}

/// A book move from the first list (in order) that has one: per-colour
/// books before `BookFile`'s.
pub fn choose_in(lists: &[&OpeningBooks], board: &mut Board, play: &Play, rng: &mut u64) -> Option<BookChoice> {
    lists.iter().find_map(|books| books.choose(board, play, rng))
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
