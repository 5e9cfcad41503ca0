//! bulletformat's text form: one position a line,
//!
//! ```text
//! FEN | score | result
//! rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | -31 | 0.5
//! ```
//!
//! | field | meaning / validation |
//! |-------|----------------------|
//! | FEN | the position (Shredder-FEN castling letters in Chess960); must be a legal position |
//! | score | white-relative centipawns, an integer in −32000…32000 (±32000: decided) |
//! | result | white's result: `1.0`, `0.5` or `0.0` |
//!
//! Fields are separated by ` | `; lines end with `\n`. [`parse_line`]
//! checks a line and names what is wrong with its line number and the
//! byte offset of the field.

use super::Position;
use crate::board::Board;
use crate::records::GameResult;
use std::fmt::Write as _;
use thiserror::Error;

/// What is wrong with a bullet-text line.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BulletTextError {
    #[error("line {line}: expected `FEN | score | result`, found {found} fields")]
    FieldCount { line: u64, offset: u64, found: usize },
    #[error("line {line}, byte {offset}: bad FEN: {reason}")]
    BadFen { line: u64, offset: u64, reason: String },
    #[error("line {line}, byte {offset}: score '{text}' is not an integer in -32000..=32000")]
    BadScore { line: u64, offset: u64, text: String },
    #[error("line {line}, byte {offset}: result '{text}' is not 1.0, 0.5 or 0.0")]
    BadResult { line: u64, offset: u64, text: String },
}

/// White's result as the format writes it.
pub fn result_text(result: GameResult) -> &'static str {
    match result {
        GameResult::WhiteWin => "1.0",
        GameResult::Draw => "0.5",
        GameResult::BlackWin => "0.0",
    }
}

/// Appends the line of one position.
pub fn push_line(out: &mut String, p: &Position) {
    let _ = writeln!(out, "{} | {} | {}", p.board.fen(), p.white_cp(), result_text(p.result));
}

/// A parsed line.
#[derive(Debug, Clone)]
pub struct Line {
    pub board: Board,
    pub white_cp: i32,
    pub result: GameResult,
}

/// Parses and checks one line (without its `\n`); `line` (1-based) and
/// `offset` (of the line in its file) go into errors.
pub fn parse_line(text: &str, line: u64, offset: u64) -> Result<Line, BulletTextError> {
    let fields: Vec<&str> = text.split('|').collect();
    let [fen, score, result] = fields.as_slice() else {
        return Err(BulletTextError::FieldCount { line, offset, found: fields.len() });
    };
    let at = |field: &str| offset + (field.as_ptr() as usize).saturating_sub(text.as_ptr() as usize) as u64;
    let chess960 = fen.split_whitespace().nth(2).is_some_and(|c| c.chars().any(|ch| !"KQkq-".contains(ch)));
    let board = Board::from_fen(fen.trim(), chess960).map_err(|e| BulletTextError::BadFen {
        line,
        offset: at(fen),
        reason: e.to_string(),
    })?;
    let white_cp = score
        .trim()
        .parse::<i32>()
        .ok()
        .filter(|cp| cp.abs() <= crate::records::score::DECISIVE_CP)
        .ok_or_else(|| BulletTextError::BadScore { line, offset: at(score), text: score.trim().to_string() })?;
    let result = match result.trim() {
        "1.0" => GameResult::WhiteWin,
        "0.5" => GameResult::Draw,
        "0.0" => GameResult::BlackWin,
        other => return Err(BulletTextError::BadResult { line, offset: at(result), text: other.to_string() }),
    };
    Ok(Line { board, white_cp, result })
}

/// Parses every line of a file.
pub fn parse(text: &str) -> Result<Vec<Line>, BulletTextError> {
    let mut offset = 0u64;
    let mut lines = Vec::new();
    for (i, l) in text.split_inclusive('\n').enumerate() {
        lines.push(parse_line(l.trim_end_matches('\n'), i as u64 + 1, offset)?);
        offset += l.len() as u64;
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 | -31 | 0.5";

    #[test]
    fn reads_a_line() {
        let l = parse_line(LINE, 1, 0).unwrap();
        assert_eq!(l.white_cp, -31);
        assert_eq!(l.result, GameResult::Draw);
        assert_eq!(l.board.fen(), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    }

    #[test]
    fn rejects_each_bad_field_with_its_offset() {
        let text = format!("{LINE}\nfoo | 1\n");
        assert_eq!(parse(&text).unwrap_err(), BulletTextError::FieldCount { line: 2, offset: 71, found: 2 });
        let bad_fen = LINE.replace("4P3", "9");
        assert!(matches!(parse_line(&bad_fen, 3, 10), Err(BulletTextError::BadFen { line: 3, offset: 10, .. })));
        let e = parse_line(&LINE.replace("-31", "40000"), 1, 0).unwrap_err();
        assert_eq!(e, BulletTextError::BadScore { line: 1, offset: 60, text: "40000".into() });
        let e = parse_line(&LINE.replace("0.5", "1/2"), 1, 0).unwrap_err();
        assert!(matches!(e, BulletTextError::BadResult { offset: 66, .. }), "{e:?}");
    }
}
