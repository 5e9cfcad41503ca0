//! EPD and FEN lines: the one reader of position-per-line files (self-play
//! openings, `book analyse` input, `genfens` books).
//!
//! A line is the four position fields (placement, side to move, castling,
//! en passant), then optionally the two FEN clocks (halfmove clock,
//! fullmove number; one alone is the halfmove clock), then EPD operations:
//! `opcode operand…;` each, the last `;` optional, operands in `"…"` may
//! hold `;`. The operations `hmvc N` and `fmvn N` set the clocks (over any
//! FEN clocks); every operation is kept in order as opcode and operand
//! text (quotes removed from a single quoted operand): `bm e4;`,
//! `id "x";`, `c0 "…";`. Blank lines and lines starting with `#` are not
//! positions. Errors name the 1-based line number.

use crate::board::{Board, FenError};
use thiserror::Error;

/// One position line.
#[derive(Debug, Clone)]
pub struct Epd {
    /// The 1-based line number.
    pub line: usize,
    pub board: Board,
    /// The operations, in order: (opcode, operands).
    pub ops: Vec<(String, String)>,
}

impl Epd {
    /// The operands of the first operation `opcode`.
    pub fn op(&self, opcode: &str) -> Option<&str> {
        self.ops.iter().find(|(k, _)| k == opcode).map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EpdError {
    #[error("line {line}: expected at least 4 position fields, found {found}")]
    TooFewFields { line: usize, found: usize },
    #[error("line {line}: {opcode} needs a number, found '{found}'")]
    BadClock { line: usize, opcode: String, found: String },
    #[error("line {line}: unterminated string in '{op}'")]
    UnterminatedString { line: usize, op: String },
    #[error("line {line}: {source}")]
    Fen { line: usize, source: FenError },
}

impl EpdError {
    /// The 1-based line number.
    pub fn line(&self) -> usize {
        match self {
            EpdError::TooFewFields { line, .. }
            | EpdError::BadClock { line, .. }
            | EpdError::UnterminatedString { line, .. }
            | EpdError::Fen { line, .. } => *line,
        }
    }
}

/// Whether a line holds no position (blank, or a `#` comment).
pub fn is_skipped(line: &str) -> bool {
    let line = line.trim();
    line.is_empty() || line.starts_with('#')
}

/// Every position line of `text`, in order (skipped lines left out).
pub fn lines(text: &str, chess960: bool) -> impl Iterator<Item = Result<Epd, EpdError>> + '_ {
    text.lines().enumerate().filter(|(_, l)| !is_skipped(l)).map(move |(i, l)| parse_line(l, i + 1, chess960))
}

/// Parses line number `line` (1-based, for errors) of a file.
pub fn parse_line(text: &str, line: usize, chess960: bool) -> Result<Epd, EpdError> {
    let text = text.trim();
    let mut rest = text;
    let mut fields = Vec::with_capacity(4);
    while fields.len() < 4 {
        let Some((field, after)) = next_field(rest) else { break };
        fields.push(field);
        rest = after;
    }
    if fields.len() < 4 {
        return Err(EpdError::TooFewFields { line, found: fields.len() });
    }
    let mut clocks: Vec<&str> = Vec::with_capacity(2);
    while clocks.len() < 2 {
        match next_field(rest) {
            Some((f, after)) if f.bytes().all(|b| b.is_ascii_digit()) => {
                clocks.push(f);
                rest = after;
            }
            _ => break,
        }
    }
    let ops = operations(rest, line)?;
    let mut halfmove = clocks.first().map_or("0", |c| c).to_string();
    let mut fullmove = clocks.get(1).map_or("1", |c| c).to_string();
    for (opcode, operand) in &ops {
        let slot = match opcode.as_str() {
            "hmvc" => &mut halfmove,
            "fmvn" => &mut fullmove,
            _ => continue,
        };
        if operand.is_empty() || !operand.bytes().all(|b| b.is_ascii_digit()) {
            return Err(EpdError::BadClock { line, opcode: opcode.clone(), found: operand.clone() });
        }
        *slot = operand.clone();
    }
    let fen = format!("{} {halfmove} {fullmove}", fields.join(" "));
    let board = Board::from_fen(&fen, chess960).map_err(|source| EpdError::Fen { line, source })?;
    Ok(Epd { line, board, ops })
}

/// The next whitespace-separated field and the text after it.
fn next_field(text: &str) -> Option<(&str, &str)> {
    let text = text.trim_start();
    if text.is_empty() {
        return None;
    }
    let end = text.find(char::is_whitespace).unwrap_or(text.len());
    Some((&text[..end], &text[end..]))
}

/// The `;`-terminated operations of `text`.
fn operations(text: &str, line: usize) -> Result<Vec<(String, String)>, EpdError> {
    let mut ops = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let push = |op: &str, ops: &mut Vec<(String, String)>| {
        let op = op.trim();
        if op.is_empty() {
            return;
        }
        let (opcode, operands) = op.split_once(char::is_whitespace).unwrap_or((op, ""));
        let operands = operands.trim();
        let single_string = operands.len() >= 2
            && operands.starts_with('"')
            && operands.ends_with('"')
            && !operands[1..operands.len() - 1].contains('"');
        let value = if single_string { &operands[1..operands.len() - 1] } else { operands };
        ops.push((opcode.to_string(), value.to_string()));
    };
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            ';' if !quoted => push(&std::mem::take(&mut current), &mut ops),
            c => current.push(c),
        }
    }
    if quoted {
        return Err(EpdError::UnterminatedString { line, op: current.trim().to_string() });
    }
    push(&current, &mut ops);
    Ok(ops)
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";

    #[test]
    fn hmvc_and_fmvn_set_the_clocks() {
        let e = parse_line(&format!("{START} hmvc 7; fmvn 23; bm e4;"), 1, false).unwrap();
        assert!(e.board.fen().ends_with(" 7 23"), "{}", e.board.fen());
        assert_eq!(e.op("bm"), Some("e4"));
        let fen = parse_line(&format!("{START} 3 9"), 1, false).unwrap();
        assert!(fen.board.fen().ends_with(" 3 9"));
        let bare = parse_line(START, 1, false).unwrap();
        assert!(bare.board.fen().ends_with(" 0 1"));
    }

    #[test]
    fn keeps_operations_as_key_values_with_quoted_semicolons() {
        let e = parse_line(&format!("{START} bm e4 d4; id \"a; b\"; c0 \"x\" \"y\"; noop"), 1, false).unwrap();
        let ops: Vec<(&str, &str)> = e.ops.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(ops, vec![("bm", "e4 d4"), ("id", "a; b"), ("c0", "\"x\" \"y\""), ("noop", "")]);
    }

    #[test]
    fn skips_blank_and_comment_lines_and_numbers_the_rest() {
        let text = format!("# openings\n\n{START} 0 1\n   \n{START} id \"two\";\n");
        let got: Vec<Epd> = lines(&text, false).collect::<Result<_, _>>().unwrap();
        assert_eq!(got.iter().map(|e| e.line).collect::<Vec<_>>(), vec![3, 5]);
        assert_eq!(got[1].op("id"), Some("two"));
    }

    #[test]
    fn rejects_bad_lines_with_their_line_number() {
        let text = format!("{START}\nrnbqkbnr/pppppppp w KQkq\n{START} hmvc x;\nbad w - -\n{START} id \"open;\n");
        let errs: Vec<EpdError> = lines(&text, false).filter_map(Result::err).collect();
        assert_eq!(errs.len(), 4);
        assert!(matches!(errs[0], EpdError::TooFewFields { line: 2, found: 3 }));
        assert!(matches!(&errs[1], EpdError::BadClock { line: 3, opcode, .. } if opcode == "hmvc"));
        assert!(matches!(errs[2], EpdError::Fen { line: 4, .. }));
        assert!(matches!(errs[3], EpdError::UnterminatedString { line: 5, .. }));
        assert!(errs[2].to_string().starts_with("line 4: "));
        assert_eq!(errs.iter().map(EpdError::line).collect::<Vec<_>>(), vec![2, 3, 4, 5]);
    }

    #[test]
    fn chess960_castling_files_are_read_when_asked() {
        let e = parse_line("bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1", 1, true).unwrap();
        assert_eq!(e.board.fen(), "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1");
    }

    proptest::proptest! {
        #[test]
        fn any_line_parses_or_fails_with_its_number(line in "[pnbrqkPNBRQK1-8/ wb\\-a-hKQkq0-9;\"]{0,80}") {
            match parse_line(&line, 7, false) {
                Ok(e) => proptest::prop_assert_eq!(e.line, 7),
                Err(e) => proptest::prop_assert_eq!(e.line(), 7),
            }
        }
    }
}
