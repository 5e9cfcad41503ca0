//! `records export`: compressed-board game records to what trainers read.
//!
//! | format | module | unit | score | result |
//! |--------|--------|------|-------|--------|
//! | viriformat | [`viriformat`] | a game (binary) | white-relative cp, i16 | white's W/D/L: 2/1/0 |
//! | bullet-text | [`bullet_text`] | a position, one line | white-relative cp | white's 1.0/0.5/0.0 |
//! | sf-plain | [`sf_plain`] | a position, six lines | side to move's cp | side to move's 1/0/−1 |
//!
//! Scores: a record holds the side to move's expected score; it becomes
//! centipawns by `cp = round(400 · ln(s / (65535 − s)))`, mates and
//! tablebase results ±32000 ([`super::score`]), then the sign is turned to
//! white's view where the format wants it. Results come from the game.
//!
//! Export streams game by game and stops at the first invalid game with
//! its [`RecordError`] (game index and byte offset); the CLI writes the
//! output atomically, so a failed export leaves no file.

pub mod bullet_text;
pub mod sf_plain;
pub mod viriformat;

use super::{score, Game, GameResult, Reader, RecordError};
use crate::board::Board;
use crate::types::{Color, Move};
use std::io::Write;

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Viriformat,
    BulletText,
    SfPlain,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Viriformat => "viriformat",
            Format::BulletText => "bullet-text",
            Format::SfPlain => "sf-plain",
        }
    }
}

/// One position of a game as the per-position writers see it.
pub struct Position<'a> {
    pub board: &'a Board,
    pub mv: Move,
    /// The side to move's centipawns.
    pub cp: i32,
    pub result: GameResult,
}

impl Position<'_> {
    /// White's centipawns.
    pub fn white_cp(&self) -> i32 {
        match self.board.side_to_move() {
            Color::White => self.cp,
            Color::Black => -self.cp,
        }
    }
}

/// Calls `visit` for each position of `game`.
pub fn positions(game: &Game, mut visit: impl FnMut(&Position)) {
    game.replay(|board, ply| {
        visit(&Position { board, mv: ply.mv, cp: score::to_cp(ply.score), result: game.result });
    });
}

/// Totals of an export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportSummary {
    pub games: u64,
    pub positions: u64,
    /// Bytes of the record file read so far.
    pub bytes_read: u64,
}

/// Writes every game of `data` in `format`; `progress` gets the totals
/// after each game.
pub fn export(
    data: &[u8],
    format: Format,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(&ExportSummary),
) -> Result<ExportSummary, RecordError> {
    let mut summary = ExportSummary::default();
    let mut reader = Reader::new(data);
    let mut text = String::new();
    while let Some(game) = reader.next() {
        let game = game?;
        match format {
            Format::Viriformat => out.write_all(&viriformat::encode(&game))?,
            Format::BulletText | Format::SfPlain => {
                text.clear();
                positions(&game, |p| match format {
                    Format::BulletText => bullet_text::push_line(&mut text, p),
                    _ => sf_plain::push_entry(&mut text, p),
                });
                out.write_all(text.as_bytes())?;
            }
        }
        summary.games += 1;
        summary.positions += game.plies.len() as u64;
        summary.bytes_read = reader.offset();
        progress(&summary);
    }
    Ok(summary)
}

#[cfg(test)]
mod tests;
