//! PGN games: tag pairs, the main line's SAN moves with their comments and
//! NAGs, optionally the variations, and the one replay of a game.
//!
//! Reading ([`parse`], [`parse_with`], [`read_file`]; the grammar is in
//! [`read`]): comments (`{…}` verbatim, `;…` to the end of the line) and
//! NAGs (`$n`, and the move suffixes `!` `?` `!!` `??` `!?` `?!` as NAGs 1
//! to 6) are kept beside the move they follow ([`Notes`]); comments before
//! a line's first move are its `intro`. Variations (`(…)`, nested) are kept
//! when [`ReadOptions::variations`] is on and skipped otherwise. Move
//! numbers and escape lines (`%…` at a line start) are skipped. A game ends
//! at its result token or at the next tag section. [`Comment::eval`] reads
//! `[%eval …]` and engine score comments such as `{+0.35/12 0.8s}`.
//!
//! [`Game::replay`] (and [`Game::replay_first`], its visiting form) plays
//! the main line from the `FEN` tag (or the start position), honouring
//! `Variant "Chess960"`; a bad start or an illegal move is a [`ReplayError`]
//! naming the game's file, its number in that file and the ply.
//!
//! A game's result is [`outcome`]'s: the `Result` tag first, the
//! termination marker when the tag holds none, a disagreement reported.
//!
//! Large inputs are read in a stream: [`GameBatches`] cuts any reader
//! (with [`crate::input::Input`], compressed files and stdin) into batches
//! of whole games that parse independently.

mod comment;
pub mod pipeline;
mod plain;
pub mod read;
pub mod stream;
pub mod view;

pub use comment::{Comment, Eval};
pub use read::{parse, parse_with, read_file, ReadOptions};
pub use stream::{Batch, GameBatches};
pub use view::{for_each_game, GameView};

use crate::board::notation::NotationError;
use crate::board::{Board, FenError, PolyglotBoard};
use crate::types::{Color, Move};
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// Where a game came from: its file (when read from one) and its 1-based
/// number in that file or text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameSource {
    pub file: Option<Arc<Path>>,
    pub index: usize,
}

impl fmt::Display for GameSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{}: game {}", file.display(), self.index),
            None => write!(f, "game {}", self.index),
        }
    }
}

/// What follows a move: its NAGs, comments and (when read) the variations
/// that replace it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Notes {
    pub nags: Vec<u8>,
    pub comments: Vec<Comment>,
    pub variations: Vec<Variation>,
}

/// A move as the PGN wrote it (annotation suffixes removed), held inline:
/// reading a game allocates nothing per move. A token longer than any SAN
/// (never a legal move, but kept whole for the error message) goes to the heap.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct SanText(SanRepr);

#[derive(Clone, PartialEq, Eq, Hash)]
enum SanRepr {
    Inline { len: u8, bytes: [u8; SanText::INLINE] },
    Heap(Box<str>),
}

impl SanText {
    /// Longest token kept inline (the longest SAN, `Qa1xb2+` or `exd8=Q#`, has 7 bytes).
    pub const INLINE: usize = 15;

    pub fn new(s: &str) -> SanText {
        if s.len() <= SanText::INLINE {
            let mut bytes = [0; SanText::INLINE];
            bytes[..s.len()].copy_from_slice(s.as_bytes());
            SanText(SanRepr::Inline { len: s.len() as u8, bytes })
        } else {
            SanText(SanRepr::Heap(s.into()))
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            // SAFETY: `new` copied these bytes from a whole `&str` (and
            // `len` is its length), so they are valid UTF-8; checking
            // again on every read cost PGN replay measurable time.
            SanRepr::Inline { len, bytes } => unsafe { std::str::from_utf8_unchecked(&bytes[..usize::from(*len)]) },
            SanRepr::Heap(s) => s,
        }
    }
}

impl std::ops::Deref for SanText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Debug for SanText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for SanText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for SanText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<&str> for SanText {
    fn from(s: &str) -> SanText {
        SanText::new(s)
    }
}

/// An alternative line: its moves replace the move it is attached to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variation {
    /// Comments before the first move.
    pub intro: Vec<Comment>,
    pub moves: Vec<SanText>,
    /// `notes[i]` belongs to `moves[i]`.
    pub notes: Vec<Notes>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Game {
    pub tags: Vec<(String, String)>,
    /// Comments before the first move.
    pub intro: Vec<Comment>,
    /// The main line's SAN moves, annotation suffixes (`!`, `?`) removed.
    pub moves: Vec<SanText>,
    /// `notes[i]` belongs to `moves[i]` (as long as `moves`).
    pub notes: Vec<Notes>,
    /// `1-0`, `0-1`, `1/2-1/2`, `*`, or `None` when the text ended first.
    pub result: Option<String>,
    pub source: GameSource,
}

/// Why a game could not be replayed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    #[error("{game}: bad FEN tag: {error}")]
    BadStart { game: GameSource, error: FenError },
    #[error("{game}, ply {ply}: illegal move '{san}' ({error})")]
    IllegalMove { game: GameSource, ply: usize, san: String, error: NotationError },
}

impl ReplayError {
    /// The game that failed.
    pub fn game(&self) -> &GameSource {
        match self {
            ReplayError::BadStart { game, .. } | ReplayError::IllegalMove { game, .. } => game,
        }
    }
}

/// A replayed main line: the start position, the moves, the end position.
#[derive(Debug, Clone)]
pub struct Replay {
    pub start: Board,
    pub moves: Vec<Move>,
    pub end: Board,
}

impl Replay {
    /// Each position before a move, with the move (`start` first).
    pub fn plies(&self) -> impl Iterator<Item = (Board, Move)> + '_ {
        let mut board = self.start.clone();
        self.moves.iter().map(move |&m| {
            let before = board.clone();
            board.make_move(m);
            (before, m)
        })
    }
}

impl Game {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn is_chess960(&self) -> bool {
        chess960_variant(self.tag("Variant"))
    }

    /// Declares the game Chess960 (a `Variant` tag), for files whose games
    /// are known to be Chess960 without saying so.
    pub fn set_chess960(&mut self) {
        if !self.is_chess960() {
            self.tags.retain(|(k, _)| k != "Variant");
            self.tags.push(("Variant".into(), "Chess960".into()));
        }
    }

    /// The position the game starts from.
    pub fn start_board(&self) -> Result<Board, ReplayError> {
        start_position(self.tag("FEN"), self.is_chess960())
            .map_err(|error| ReplayError::BadStart { game: self.source.clone(), error })
    }

    /// Plays the main line: the start, its moves and the end position.
    pub fn replay(&self) -> Result<Replay, ReplayError> {
        let start = self.start_board()?;
        let mut moves = Vec::with_capacity(self.moves.len());
        let end = self.replay_first(usize::MAX, |_, m| moves.push(m))?;
        Ok(Replay { start, moves, end })
    }

    /// Plays every move of the main line, calling `visit(board_before, move)`;
    /// returns the end position.
    pub fn replay_with(&self, visit: impl FnMut(&mut Board, Move)) -> Result<Board, ReplayError> {
        self.replay_first(usize::MAX, visit)
    }

    /// Plays the first `max_ply` moves (later ones are not even parsed),
    /// calling `visit(board_before, move)` (which must leave the board as it
    /// found it); returns the position reached.
    pub fn replay_first(&self, max_ply: usize, visit: impl FnMut(&mut Board, Move)) -> Result<Board, ReplayError> {
        let mut board = self.start_board()?;
        replay_sans(&mut board, self.moves.iter().map(|m| m.as_str()), max_ply, || self.source.clone(), visit)?;
        Ok(board)
    }
}

/// Whether a `Variant` tag says Chess960.
fn chess960_variant(variant: Option<&str>) -> bool {
    variant.is_some_and(|v| {
        let v = v.to_ascii_lowercase();
        v.contains("960") || v.contains("fischer")
    })
}

/// The position a game starts from: its `FEN` tag, else the start position.
fn start_position(fen: Option<&str>, chess960: bool) -> Result<Board, FenError> {
    match fen {
        Some(fen) => Board::from_fen(fen, chess960),
        None => {
            let mut b = Board::startpos();
            b.set_chess960(chess960);
            Ok(b)
        }
    }
}

/// A board games are replayed on: a [`Board`], or a [`PolyglotBoard`] to
/// see the positions' Polyglot keys.
pub trait ReplayBoard: Clone {
    /// Becomes `start` (a game's `FEN` tag), keyed as `self` is.
    fn set_start(&mut self, start: Board);
    fn set_chess960(&mut self, on: bool);
    fn parse_san(&self, san: &str) -> Result<Move, NotationError>;
    fn replay_move(&mut self, m: Move);
    fn key(&self) -> u64;
    fn side_to_move(&self) -> Color;
}

impl ReplayBoard for Board {
    fn set_start(&mut self, start: Board) {
        *self = start;
    }
    fn set_chess960(&mut self, on: bool) {
        Board::set_chess960(self, on);
    }
    #[inline]
    fn parse_san(&self, san: &str) -> Result<Move, NotationError> {
        Board::parse_san(self, san)
    }
    #[inline]
    fn replay_move(&mut self, m: Move) {
        Board::replay_move(self, m);
    }
    #[inline]
    fn key(&self) -> u64 {
        Board::key(self)
    }
    #[inline]
    fn side_to_move(&self) -> Color {
        Board::side_to_move(self)
    }
}

impl ReplayBoard for PolyglotBoard {
    fn set_start(&mut self, start: Board) {
        *self = PolyglotBoard::from(start);
    }
    fn set_chess960(&mut self, on: bool) {
        PolyglotBoard::set_chess960(self, on);
    }
    #[inline]
    fn parse_san(&self, san: &str) -> Result<Move, NotationError> {
        PolyglotBoard::parse_san(self, san)
    }
    #[inline]
    fn replay_move(&mut self, m: Move) {
        PolyglotBoard::replay_move(self, m);
    }
    #[inline]
    fn key(&self) -> u64 {
        PolyglotBoard::key(self)
    }
    #[inline]
    fn side_to_move(&self) -> Color {
        PolyglotBoard::side_to_move(self)
    }
}

/// Plays the first `max_ply` of `sans` on `board`, calling
/// `visit(board_before, move)`; an illegal move names the game `source()`.
fn replay_sans<'a, B: ReplayBoard>(
    board: &mut B,
    sans: impl Iterator<Item = &'a str>,
    max_ply: usize,
    source: impl FnOnce() -> GameSource,
    mut visit: impl FnMut(&mut B, Move),
) -> Result<(), ReplayError> {
    for (i, san) in sans.take(max_ply).enumerate() {
        let m = match board.parse_san(san) {
            Ok(m) => m,
            Err(error) => {
                return Err(ReplayError::IllegalMove { game: source(), ply: i + 1, san: san.to_string(), error })
            }
        };
        visit(board, m);
        board.replay_move(m);
    }
    Ok(())
}

/// A game's result as its `Result` tag and its termination marker give it
/// ([`outcome`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome<'a> {
    /// `1-0`, `0-1` or `1/2-1/2`; when neither holds one, the tag as
    /// written (else the marker), such as `*`; `None` when both are missing.
    pub token: Option<&'a str>,
    /// Both hold a result and they differ (the tag's is taken).
    pub disagrees: bool,
}

/// The one rule for a game's result, for every reader of PGN (`book build`,
/// `records import`): the `Result` tag decides when it holds a result
/// (`1-0`, `0-1`, `1/2-1/2`); otherwise the movetext's termination marker
/// when it holds one (a missing or `*` tag, as python-chess fills it);
/// otherwise the game has none. When both hold results and they differ the
/// tag's is taken and [`Outcome::disagrees`] says so, for the caller to count.
pub fn outcome<'a>(tag: Option<&'a str>, marker: Option<&'a str>) -> Outcome<'a> {
    let known = |t: &Option<&'a str>| t.filter(|t| matches!(*t, "1-0" | "0-1" | "1/2-1/2"));
    let (tag_result, marker_result) = (known(&tag), known(&marker));
    Outcome {
        token: tag_result.or(marker_result).or(tag).or(marker),
        disagrees: matches!((tag_result, marker_result), (Some(t), Some(m)) if t != m),
    }
}

#[cfg(test)]
mod tests;
