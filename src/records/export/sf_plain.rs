//! Stockfish's `.plain` training-data text (the form of its `convert` and
//! `gensfen` tools): one entry a position, six lines,
//!
//! ```text
//! fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
//! move e2e4
//! score 31
//! ply 0
//! result 0
//! e
//! ```
//!
//! | line | meaning / validation |
//! |------|----------------------|
//! | `fen` | the position; must be legal (Shredder-FEN castling letters in Chess960) |
//! | `move` | the move played, UCI (Chess960: king takes rook); must be legal |
//! | `score` | the side to move's centipawns, an integer in −32000…32000 (±32000: decided) |
//! | `ply` | the game ply of the position: 2 · (fullmove − 1) + (1 if black is to move) |
//! | `result` | the side to move's result: `1` win, `0` draw, `-1` loss |
//! | `e` | the end of the entry |
//!
//! The scores are the records' centipawns ([`crate::records::score`]), not
//! rescaled to Stockfish's internal units. [`parse`] checks every entry and
//! names the line and byte offset of a problem.

use super::Position;
use crate::board::Board;
use crate::records::GameResult;
use crate::types::{Color, Move};
use std::fmt::Write as _;
use thiserror::Error;

/// What is wrong with a `.plain` file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SfPlainError {
    #[error("line {line}, byte {offset}: expected '{expected} …', found '{found}'")]
    Expected { line: u64, offset: u64, expected: &'static str, found: String },
    #[error("line {line}, byte {offset}: bad FEN: {reason}")]
    BadFen { line: u64, offset: u64, reason: String },
    #[error("line {line}, byte {offset}: '{text}' is not a legal move here")]
    IllegalMove { line: u64, offset: u64, text: String },
    #[error("line {line}, byte {offset}: bad {field} '{text}'")]
    BadNumber { line: u64, offset: u64, field: &'static str, text: String },
    #[error("the file ends inside an entry (line {line}, byte {offset})")]
    Truncated { line: u64, offset: u64 },
}

/// The side to move's result: 1, 0 or −1.
pub fn stm_result(result: GameResult, stm: Color) -> i32 {
    let white = result as i32 - 1;
    if stm == Color::White {
        white
    } else {
        -white
    }
}

/// Appends the entry of one position.
pub fn push_entry(out: &mut String, p: &Position) {
    let b = p.board;
    let _ = write!(
        out,
        "fen {}\nmove {}\nscore {}\nply {}\nresult {}\ne\n",
        b.fen(),
        b.move_to_uci(p.mv),
        p.cp,
        b.game_ply(),
        stm_result(p.result, b.side_to_move())
    );
}

/// A parsed entry.
#[derive(Debug, Clone)]
pub struct Entry {
    pub board: Board,
    pub mv: Move,
    /// The side to move's centipawns.
    pub score: i32,
    pub ply: u32,
    /// The side to move's result, 1 / 0 / −1.
    pub result: i32,
}

/// Lines with their numbers and offsets.
struct Lines<'a> {
    iter: std::str::SplitInclusive<'a, char>,
    line: u64,
    offset: u64,
}

impl<'a> Lines<'a> {
    /// The value after `key ` on the next line.
    fn field(&mut self, key: &'static str) -> Result<(&'a str, u64, u64), SfPlainError> {
        let (line, offset) = (self.line + 1, self.offset);
        let Some(raw) = self.iter.next() else { return Err(SfPlainError::Truncated { line, offset }) };
        self.line += 1;
        self.offset += raw.len() as u64;
        let text = raw.trim_end_matches(['\n', '\r']);
        let value = if text == key { Some("") } else { text.strip_prefix(key).and_then(|r| r.strip_prefix(' ')) };
        match value {
            Some(v) => Ok((v, line, offset)),
            None => Err(SfPlainError::Expected { line, offset, expected: key, found: text.to_string() }),
        }
    }

    fn number(&mut self, key: &'static str, range: std::ops::RangeInclusive<i64>) -> Result<i64, SfPlainError> {
        let (v, line, offset) = self.field(key)?;
        v.trim().parse::<i64>().ok().filter(|n| range.contains(n)).ok_or_else(|| SfPlainError::BadNumber {
            line,
            offset,
            field: key,
            text: v.to_string(),
        })
    }
}

fn entry(lines: &mut Lines) -> Result<Entry, SfPlainError> {
    let (fen, line, offset) = lines.field("fen")?;
    let chess960 = fen.split_whitespace().nth(2).is_some_and(|c| c.chars().any(|ch| !"KQkq-".contains(ch)));
    let board =
        Board::from_fen(fen, chess960).map_err(|e| SfPlainError::BadFen { line, offset, reason: e.to_string() })?;
    let (text, line, offset) = lines.field("move")?;
    let mv = board.parse_uci(text).map_err(|_| SfPlainError::IllegalMove { line, offset, text: text.to_string() })?;
    let cp = i64::from(crate::records::score::DECISIVE_CP);
    let score = lines.number("score", -cp..=cp)? as i32;
    let ply = lines.number("ply", 0..=i64::from(u32::MAX))? as u32;
    let result = lines.number("result", -1..=1)? as i32;
    lines.field("e")?;
    Ok(Entry { board, mv, score, ply, result })
}

/// Parses and checks every entry of a file.
pub fn parse(text: &str) -> Result<Vec<Entry>, SfPlainError> {
    let mut lines = Lines { iter: text.split_inclusive('\n'), line: 0, offset: 0 };
    let mut out = Vec::new();
    while lines.offset < text.len() as u64 {
        out.push(entry(&mut lines)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRY: &str =
        "fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\nmove e2e4\nscore 31\nply 0\nresult 0\ne\n";

    #[test]
    fn reads_an_entry() {
        let e = parse(ENTRY).unwrap();
        assert_eq!(e.len(), 1);
        assert_eq!((e[0].score, e[0].ply, e[0].result), (31, 0, 0));
        assert_eq!(e[0].board.move_to_uci(e[0].mv), "e2e4");
    }

    #[test]
    fn results_are_the_side_to_moves() {
        assert_eq!(stm_result(GameResult::WhiteWin, Color::White), 1);
        assert_eq!(stm_result(GameResult::WhiteWin, Color::Black), -1);
        assert_eq!(stm_result(GameResult::BlackWin, Color::Black), 1);
        assert_eq!(stm_result(GameResult::Draw, Color::Black), 0);
    }

    #[test]
    fn rejects_each_kind_of_damage_with_line_and_offset() {
        let two = ENTRY.repeat(2);
        let e = parse(&two[..two.len() - 2]).unwrap_err();
        assert_eq!(e, SfPlainError::Truncated { line: 12, offset: two.len() as u64 - 2 });
        assert!(matches!(parse(&ENTRY.replace("e2e4", "e2e5")), Err(SfPlainError::IllegalMove { line: 2, .. })));
        assert!(matches!(
            parse(&ENTRY.replace("8/8/8/8", "8/8/8")),
            Err(SfPlainError::BadFen { line: 1, offset: 0, .. })
        ));
        assert!(matches!(
            parse(&ENTRY.replace("result 0", "result 2")),
            Err(SfPlainError::BadNumber { line: 5, field: "result", .. })
        ));
        assert!(matches!(
            parse(&ENTRY.replace("score", "scor")),
            Err(SfPlainError::Expected { line: 3, offset: 71, expected: "score", .. })
        ));
    }
}
