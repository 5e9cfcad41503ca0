//! `BookLearn`: following games through the UCI stream and crediting the
//! positions the engine's YACB book moves led to with each game's result.
//!
//! UCI never states results, so a game is delimited by what the GUI sends:
//! it ends at `ucinewgame`, at `quit`, or when a `position` command does not
//! continue the previous one (another start position, or moves that do not
//! extend the previous list). Its result is read, in this order, from:
//! 1. the position after the engine's last `bestmove`, when that ends the
//!    game by the rules (checkmate, stalemate, 50 moves, threefold
//!    repetition, insufficient material);
//! 2. the last position the GUI sent, if it is such an end;
//! 3. the engine's last search score: [`DECISIVE_CP`] or more is a win for
//!    the engine (the opponent resigned or was adjudicated lost), minus that
//!    a loss.
//!
//! Otherwise (a draw by agreement, a loss on time, an abandoned game) the
//! result is unknown and nothing is learned. Each position the engine moved
//! into from a YACB book gets one game and white's half-points (2, 1, 0) in
//! that book's side file ([`crate::book::format::learn`]); the books are never
//! written. With `Read only learning` the side files are read and used in
//! selection but never written.

use crate::board::Board;
use crate::book::format::learn::{self, LearnTable, Learned};
use crate::types::{Color, Move};
use std::path::PathBuf;

/// Results to record: per YACB book, (key, white half-points) pairs.
pub type BookResults = Vec<(PathBuf, Vec<(u64, u32)>)>;

/// Search score (centipawns, the engine's view) taken as a decided game.
pub const DECISIVE_CP: i32 = 500;

#[derive(Default)]
pub struct Learner {
    /// The last `position` command: start FEN (None = start position) and moves.
    game: Option<(Option<String>, Vec<String>)>,
    last_board: Option<Board>,
    /// Book moves of this game: (book, key after the move).
    played: Vec<(PathBuf, u64)>,
    /// The engine's last search at `last_board`: best move, score, side.
    last_search: Option<(Move, i32, Color)>,
    /// Learned tables per YACB book (loaded when BookLearn is on).
    pub learned: Learned,
}

/// White's half-points if `board` ends the game by the rules.
fn rules_result(board: &Board) -> Option<u32> {
    if board.is_checkmate() {
        return Some(if board.side_to_move() == Color::White { 0 } else { 2 });
    }
    let ended = board.is_stalemate()
        || board.halfmove_clock() >= 100
        || board.is_repetition(0)
        || board.is_insufficient_material();
    ended.then_some(1)
}

impl Learner {
    /// (Re)loads the side files of `books`; returns a message per damaged one.
    pub fn load(&mut self, books: impl Iterator<Item = PathBuf>) -> Vec<String> {
        self.learned.clear();
        let mut problems = Vec::new();
        for book in books {
            match LearnTable::load(&learn::side_path(&book)) {
                Ok(t) => {
                    self.learned.insert(book, t);
                }
                Err(e) => problems.push(format!("{}: {e}; not used", learn::side_path(&book).display())),
            }
        }
        problems
    }

    /// A `position` command: true when it starts another game than the
    /// previous one (the caller then finishes that one first).
    pub fn starts_new_game(&self, fen: Option<&str>, moves: &[&str]) -> bool {
        match &self.game {
            None => false,
            Some((f, m)) => f.as_deref() != fen || m.len() > moves.len() || m.iter().zip(moves).any(|(a, b)| a != b),
        }
    }

    pub fn position(&mut self, fen: Option<&str>, moves: &[&str], board: &Board) {
        self.game = Some((fen.map(str::to_string), moves.iter().map(|m| m.to_string()).collect()));
        self.last_board = Some(board.clone());
        self.last_search = None;
    }

    pub fn book_move(&mut self, book: PathBuf, key_after: u64, board: &Board, mv: Move) {
        self.played.push((book, key_after));
        self.last_search = Some((mv, 0, board.side_to_move()));
    }

    pub fn search_done(&mut self, best: Move, score: i32, mover: Color) {
        self.last_search = Some((best, score, mover));
    }

    /// White's half-points for the game followed so far, if known.
    pub fn result(&self) -> Option<u32> {
        let board = self.last_board.as_ref()?;
        if let Some((best, _, _)) = self.last_search {
            let mut after = board.clone();
            if after.try_make_move(best) {
                if let Some(r) = rules_result(&after) {
                    return Some(r);
                }
            }
        }
        if let Some(r) = rules_result(board) {
            return Some(r);
        }
        let (_, score, mover) = self.last_search?;
        let engine_points = match score {
            s if s >= DECISIVE_CP => 2,
            s if s <= -DECISIVE_CP => 0,
            _ => return None,
        };
        Some(if mover == Color::White { engine_points } else { 2 - engine_points })
    }

    /// Ends the game: the results to record per book (nothing when no book
    /// move was played or the result is unknown), and a fresh state.
    pub fn finish(&mut self) -> (Option<u32>, BookResults) {
        let result = self.result();
        let played = std::mem::take(&mut self.played);
        self.game = None;
        self.last_board = None;
        self.last_search = None;
        let Some(points) = result else { return (None, Vec::new()) };
        let mut per_book: BookResults = Vec::new();
        for (book, key) in played {
            match per_book.iter_mut().find(|(b, _)| *b == book) {
                Some((_, v)) => v.push((key, points)),
                None => per_book.push((book, vec![(key, points)])),
            }
        }
        (Some(points), per_book)
    }

    /// Writes `per_book` to the side files and keeps the updated tables;
    /// returns one message per book.
    pub fn record(&mut self, per_book: BookResults) -> Vec<String> {
        per_book
            .into_iter()
            .map(|(book, results)| match learn::record(&book, &results) {
                Ok(t) => {
                    self.learned.insert(book.clone(), t);
                    format!("BookLearn: {} positions learned in {}", results.len(), learn::side_path(&book).display())
                }
                Err(e) => format!("BookLearn: side file not updated: {e}"),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(moves: &[&str]) -> Board {
        let mut b = Board::startpos();
        for m in moves {
            b.make_move(b.parse_uci(m).unwrap());
        }
        b
    }

    #[test]
    fn a_position_that_does_not_extend_the_last_one_starts_a_new_game() {
        let mut l = Learner::default();
        assert!(!l.starts_new_game(None, &["e2e4"]));
        l.position(None, &["e2e4"], &board(&["e2e4"]));
        assert!(!l.starts_new_game(None, &["e2e4", "e7e5"]));
        assert!(l.starts_new_game(None, &["d2d4"]));
        assert!(l.starts_new_game(None, &[]));
        assert!(l.starts_new_game(Some("8/8/8/8/8/8/8/K6k w - - 0 1"), &["e2e4"]));
    }

    #[test]
    fn the_engines_mating_move_decides_the_result() {
        let mut l = Learner::default();
        let moves = ["f2f3", "e7e5", "g2g4"];
        l.position(None, &moves, &board(&moves));
        l.book_move(PathBuf::from("b.yacb"), 42, &board(&moves), Move::NONE);
        let mate = board(&moves).parse_uci("d8h4").unwrap();
        l.search_done(mate, 100, Color::Black);
        let (result, per_book) = l.finish();
        assert_eq!(result, Some(0));
        assert_eq!(per_book, [(PathBuf::from("b.yacb"), vec![(42, 0)])]);
    }

    #[test]
    fn a_decisive_score_counts_for_the_side_that_searched() {
        let mut l = Learner::default();
        l.position(None, &["e2e4"], &board(&["e2e4"]));
        l.search_done(board(&["e2e4"]).parse_uci("e7e5").unwrap(), 700, Color::Black);
        assert_eq!(l.result(), Some(0));
        l.search_done(board(&["e2e4"]).parse_uci("e7e5").unwrap(), -20, Color::Black);
        assert_eq!(l.result(), None);
        l.search_done(board(&["e2e4"]).parse_uci("e7e5").unwrap(), -900, Color::Black);
        assert_eq!(l.result(), Some(2));
    }

    #[test]
    fn an_unknown_result_learns_nothing() {
        let mut l = Learner::default();
        l.position(None, &[], &Board::startpos());
        l.book_move(PathBuf::from("b.yacb"), 1, &Board::startpos(), Move::NONE);
        assert_eq!(l.finish(), (None, Vec::new()));
        assert_eq!(l.finish(), (None, Vec::new()));
    }

    #[test]
    fn insufficient_material_sent_by_the_gui_is_a_draw() {
        let mut l = Learner::default();
        let b = Board::from_fen("8/8/8/8/8/8/8/K6k w - - 0 1", false).unwrap();
        l.position(Some("8/8/8/8/8/8/8/K6k w - - 0 1"), &[], &b);
        assert_eq!(l.result(), Some(1));
    }
}
