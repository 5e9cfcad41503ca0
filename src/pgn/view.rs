//! Games seen in place: for readers that want only the tags, the main
//! line's moves and the result (`book build`), without building a
//! `Game` per game. [`for_each_game`] reads text as
//! [`super::parse_with`] does with variations and notes skipped (the same
//! tokenizer, [`super::read::tokenize`]) and shows each game as a
//! [`GameView`] (instead of a [`super::Game`]) whose tags and moves are slices of the text; its buffers
//! are reused from game to game, so a game costs no allocation.

use super::read::{tag_pair, tokenize, Sink, Token};
use super::{chess960_variant, replay_sans, start_position, GameSource, ReplayBoard, ReplayError};
use crate::types::Move;
use std::borrow::Cow;

/// One game of a text, borrowed from it (see the module doc).
#[derive(Debug, Default)]
pub struct GameView<'t> {
    tags: Vec<(&'t str, Cow<'t, str>)>,
    moves: Vec<&'t str>,
    result: Option<&'t str>,
    number: usize,
}

impl<'t> GameView<'t> {
    /// The value of tag `name` (the first one of that name).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_ref())
    }

    /// The tag pairs, in order.
    pub fn tags(&self) -> impl Iterator<Item = (&str, &str)> {
        self.tags.iter().map(|(k, v)| (*k, v.as_ref()))
    }

    /// The main line's SAN moves, annotation suffixes removed.
    pub fn moves(&self) -> &[&'t str] {
        &self.moves
    }

    /// `1-0`, `0-1`, `1/2-1/2`, `*`, or `None` when the text ended first.
    pub fn result(&self) -> Option<&'t str> {
        self.result
    }

    /// The game's 1-based number in the text.
    pub fn number(&self) -> usize {
        self.number
    }

    /// As [`super::Game::is_chess960`].
    pub fn is_chess960(&self) -> bool {
        chess960_variant(self.tag("Variant"))
    }

    /// Sets `board` to the game's start (as [`super::Game::start_board`]) and
    /// plays its first `max_ply` moves, calling `visit(board_before, move)`
    /// (which must leave the board as it found it); `board` ends at the
    /// position reached. `start` is the standard start position, copied
    /// into `board` (its allocation kept) when the game has no FEN tag;
    /// `board` is a [`crate::board::Board`] or, for Polyglot keys, a
    /// [`crate::board::PolyglotBoard`]. `source` names the game in an error.
    pub fn replay_first<B: ReplayBoard>(
        &self,
        board: &mut B,
        start: &B,
        max_ply: usize,
        source: impl FnOnce() -> GameSource,
        visit: impl FnMut(&mut B, Move),
    ) -> Result<(), ReplayError> {
        let chess960 = self.is_chess960();
        match self.tag("FEN") {
            Some(fen) => match start_position(Some(fen), chess960) {
                Ok(b) => board.set_start(b),
                Err(error) => return Err(ReplayError::BadStart { game: source(), error }),
            },
            None => {
                board.clone_from(start);
                board.set_chess960(chess960);
            }
        }
        replay_sans(board, self.moves.iter().copied(), max_ply, source, visit)
    }
}

/// Calls `visit` with every game of `text`, in order (see the module doc).
pub fn for_each_game<'t>(text: &'t str, visit: impl FnMut(&GameView<'t>)) {
    let mut b = ViewBuilder { view: GameView::default(), skip: 0, in_moves: false, games: 0, visit };
    tokenize(text, &mut b);
    if !b.view.moves.is_empty() || !b.view.tags.is_empty() {
        b.finish(None);
    }
}

/// [`super::read`]'s builder with variations and notes skipped, keeping
/// one game at a time.
struct ViewBuilder<'t, F> {
    view: GameView<'t>,
    /// Depth of variations being skipped.
    skip: usize,
    in_moves: bool,
    games: usize,
    visit: F,
}

impl<'t, F: FnMut(&GameView<'t>)> ViewBuilder<'t, F> {
    fn finish(&mut self, result: Option<&'t str>) {
        self.skip = 0;
        self.games += 1;
        self.view.result = result;
        self.view.number = self.games;
        (self.visit)(&self.view);
        self.view.tags.clear();
        self.view.moves.clear();
        self.in_moves = false;
    }
}

impl<'t, F: FnMut(&GameView<'t>)> Sink<'t> for ViewBuilder<'t, F> {
    fn in_moves(&self) -> bool {
        self.in_moves
    }

    fn in_variation(&self) -> bool {
        self.skip > 0
    }

    fn token(&mut self, t: &'t str) {
        match Token::of(t) {
            Token::Result if self.skip == 0 => self.finish(Some(t)),
            Token::Move { san, .. } if self.skip == 0 => {
                self.view.moves.push(san);
                self.in_moves = true;
            }
            _ => {}
        }
    }

    fn tag(&mut self, inner: &'t str) {
        if self.in_moves {
            // A new tag section without a result: close the game.
            self.finish(None);
        }
        if let Some(pair) = tag_pair(inner) {
            self.view.tags.push(pair);
        }
    }

    fn comment(&mut self, _: &'t str) {}

    fn open_variation(&mut self) {
        self.skip += 1;
    }

    fn close_variation(&mut self) {
        self.skip = self.skip.saturating_sub(1);
    }
}
