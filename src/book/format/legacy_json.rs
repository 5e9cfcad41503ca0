//! The old `openingBook.json`, SBOB's predecessor (seed 003, "Current JSON
//! Format Issues"; [docs/formats.md#legacy-json](../../docs/formats.md#legacy-json)):
//! read, checked and turned into SBOB's JSON model ([`JsonBook`]), from
//! which [`json::to_sbob`](super::json::to_sbob) makes the binary book.
//!
//! ```json
//! [
//!   { "name": "Aggressive Rook",
//!     "moves": { "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1":
//!                [ { "from": "27", "to": "26" } ] } }
//! ]
//! ```
//!
//! | where                    | JSON type | meaning                                 | validated                                            |
//! |--------------------------|-----------|-----------------------------------------|------------------------------------------------------|
//! | top level                | array     | the openings, in order (`[]`: no moves) | an array                                             |
//! | `[i].name`               | string    | the opening's name                      | present                                              |
//! | `[i].moves`              | object    | shogi SFEN → that position's moves      | present; each key's board field is a 9×9 shogi board |
//! | `[i].moves[fen][j].from` | string    | origin: file digit, then rank digit     | exactly two digits 1–9; a piece stands there         |
//! | `[i].moves[fen][j].to`   | string    | destination, the same way               | exactly two digits 1–9                               |
//!
//! Unknown fields are errors (nothing is dropped silently); a leading UTF-8
//! byte order mark is skipped. The board is the SFEN's first field: 9 rows
//! separated by `/`, each 9 cells wide, where a digit 1–9 is a run of empty
//! cells and a cell is one of `PLNSGBRK` (either case: upper sente, lower
//! gote), with `+` before the promotable `PLNSBR`. The other fields are kept
//! as written and not checked.
//!
//! Conversion ([`parse`]):
//!
//! * Squares: square `"fr"` (file f, rank r) becomes `[row, col]` =
//!   `[r − 1, f − 1]`, so `"27"` → `[6, 1]`. Row 0 is the SFEN's first row
//!   (rank 1); SFEN rows list files 9..1, so file f is cell 9 − f of its row
//!   (counting from 0). The seed's own example ("27 = 1*9 + 2 = row 1, col 2")
//!   is not arithmetic and is not followed.
//! * `piece_type`: the piece standing on `from` in the SFEN, by SBOB's shogi
//!   numbering ([`sbob::piece_name`]: 1 Pawn … 8 King, 9..14 the promoted
//!   pawn, lance, knight, silver, bishop = Horse, rook = Dragon), written as
//!   a name; both colours give the same number.
//! * The old format has no drops, promotions, frequencies or evaluations:
//!   `is_drop` and `is_promotion` are `false`, `weight` is 1 (every move
//!   equally likely), `evaluation` 0. `move_notation` and `promotion` are
//!   left out.
//! * The opening's `name` becomes each of its moves' `opening_name`.
//! * Positions are identified by [`sbob::position_key`] (the first four SFEN
//!   fields) and come out in order of first appearance, under the SFEN as
//!   first written; moves come out in order of first appearance. A move
//!   (same `from` and `to`) that a position already has, under the same or
//!   another opening, is dropped: the first opening's name is kept, and the
//!   drop is counted in [`LegacyReport::duplicate_moves`].
//!
//! Refusals are typed ([`LegacyJsonError`]): malformed JSON and wrong shapes
//! with serde's line and column; a bad board, a bad square or an empty
//! origin naming the opening (index in the array and name), the SFEN and,
//! for squares, the move's index in that position's list (from 0).

use super::json::{JsonBook, JsonMove, JsonPosition, PieceTag};
use super::sbob::{self, GameKind};
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::collections::{HashMap, HashSet};
use std::fmt;
use thiserror::Error;

/// The weight given to every converted move.
pub const WEIGHT: u32 = 1;
/// The evaluation given to every converted move.
pub const EVALUATION: i32 = 0;

/// Which square of a move is at fault.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveEnd {
    From,
    To,
}

impl fmt::Display for MoveEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MoveEnd::From => "from",
            MoveEnd::To => "to",
        })
    }
}

/// Why a position's board is not a 9×9 shogi board. Rows count from 0 (rank 1).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum BoardProblem {
    #[error("the FEN is empty")]
    Missing,
    #[error("{rows} rows, expected 9")]
    Rows { rows: usize },
    #[error("row {row} ('{text}') is {width} cells wide, expected 9")]
    Width { row: usize, text: String, width: usize },
    #[error("row {row} ('{text}'): '{ch}' is neither a shogi piece letter (PLNSGBRK) nor a digit 1-9")]
    Letter { row: usize, text: String, ch: char },
    #[error("row {row} ('{text}'): '+' must stand before one of P, L, N, S, B, R")]
    Promotion { row: usize, text: String },
}

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LegacyJsonError {
    #[error("line {line}, column {column}: {message}")]
    Syntax { line: usize, column: usize, message: String },
    #[error("line {line}, column {column}: not an old opening book: {message}")]
    Shape { line: usize, column: usize, message: String },
    #[error("opening {opening} ('{name}'), position '{fen}': not a 9×9 shogi board: {problem}")]
    BadBoard { opening: usize, name: String, fen: String, problem: BoardProblem },
    #[error(
        "opening {opening} ('{name}'), position '{fen}', move {index}: {end} square '{square}' is not two digits 1-9 (file, then rank)"
    )]
    BadSquare { opening: usize, name: String, fen: String, index: usize, end: MoveEnd, square: String },
    #[error(
        "opening {opening} ('{name}'), position '{fen}', move {index}: no piece stands on the from square '{square}'"
    )]
    EmptyFrom { opening: usize, name: String, fen: String, index: usize, square: String },
}

impl From<serde_json::Error> for LegacyJsonError {
    fn from(e: serde_json::Error) -> LegacyJsonError {
        let (line, column) = (e.line(), e.column());
        let message = e.to_string();
        // serde_json appends " at line L column C"; keep the message bare.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        match e.classify() {
            serde_json::error::Category::Data => LegacyJsonError::Shape { line, column, message },
            _ => LegacyJsonError::Syntax { line, column, message },
        }
    }
}

/// What [`parse`] read and kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LegacyReport {
    /// Openings in the array.
    pub openings: usize,
    /// Distinct positions (by [`sbob::position_key`]) written.
    pub positions: usize,
    /// Distinct moves written.
    pub moves: usize,
    /// Moves dropped because their position already had them (same from/to).
    pub duplicate_moves: usize,
}

impl fmt::Display for LegacyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} openings: {} positions, {} moves, {} duplicate moves dropped (first opening's name kept)",
            self.openings, self.positions, self.moves, self.duplicate_moves
        )
    }
}

// ----- the file's shape ---------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an opening {\"name\": …, \"moves\": {SFEN: [...]}}")]
struct OpeningRepr {
    name: String,
    moves: PositionsRepr,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a move {\"from\": \"27\", \"to\": \"26\"}")]
struct MoveRepr {
    from: String,
    to: String,
}

/// The openings, in order.
struct Openings(Vec<OpeningRepr>);

impl<'de> Deserialize<'de> for Openings {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Openings, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Openings;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of openings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Openings, A::Error> {
                let mut out = Vec::new();
                while let Some(o) = seq.next_element()? {
                    out.push(o);
                }
                Ok(Openings(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// One opening's `moves` object, kept in order (a repeated key is kept too:
/// it is the same position, merged like any other).
struct PositionsRepr(Vec<(String, Vec<MoveRepr>)>);

impl<'de> Deserialize<'de> for PositionsRepr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PositionsRepr, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PositionsRepr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object mapping SFEN strings to arrays of moves")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PositionsRepr, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = map.next_entry::<String, Vec<MoveRepr>>()? {
                    out.push(entry);
                }
                Ok(PositionsRepr(out))
            }
        }
        d.deserialize_map(V)
    }
}

// ----- shogi boards and squares -------------------------------------------

/// A shogi board: `cells[row][i]` is SBOB's piece number (0: empty) of file
/// 9 − i on rank row + 1.
struct ShogiBoard {
    cells: [[u8; 9]; 9],
}

/// SBOB's shogi number of an unpromoted piece letter, either colour.
fn letter_number(c: char) -> Option<u8> {
    Some(match c.to_ascii_uppercase() {
        'P' => 1,
        'L' => 2,
        'N' => 3,
        'S' => 4,
        'B' => 5,
        'R' => 6,
        'G' => 7,
        'K' => 8,
        _ => return None,
    })
}

/// Promoting pieces 1..=6 (pawn … rook) gives 9..=14.
const PROMOTED: u8 = 8;

fn parse_row(row: usize, text: &str) -> Result<[u8; 9], BoardProblem> {
    let mut cells = [0u8; 9];
    let mut width = 0usize;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let piece = if c == '+' {
            match chars.next().and_then(letter_number).filter(|&n| n <= 6) {
                Some(n) => n + PROMOTED,
                None => return Err(BoardProblem::Promotion { row, text: text.to_string() }),
            }
        } else if let Some(run) = c.to_digit(10).filter(|&d| d >= 1) {
            width += run as usize;
            continue;
        } else {
            letter_number(c).ok_or_else(|| BoardProblem::Letter { row, text: text.to_string(), ch: c })?
        };
        if let Some(cell) = cells.get_mut(width) {
            *cell = piece;
        }
        width += 1;
    }
    if width != 9 {
        return Err(BoardProblem::Width { row, text: text.to_string(), width });
    }
    Ok(cells)
}

impl ShogiBoard {
    /// The board field of an SFEN.
    fn parse(fen: &str) -> Result<ShogiBoard, BoardProblem> {
        let board = fen.split_whitespace().next().ok_or(BoardProblem::Missing)?;
        let rows: Vec<&str> = board.split('/').collect();
        if rows.len() != 9 {
            return Err(BoardProblem::Rows { rows: rows.len() });
        }
        let mut cells = [[0u8; 9]; 9];
        for ((row, text), out) in rows.iter().enumerate().zip(cells.iter_mut()) {
            *out = parse_row(row, text)?;
        }
        Ok(ShogiBoard { cells })
    }

    /// The piece number on `[row, col]` (col = file − 1), if any.
    fn piece_at(&self, [row, col]: [u8; 2]) -> Option<u8> {
        let cell = 8usize.checked_sub(col as usize)?;
        self.cells.get(row as usize)?.get(cell).copied().filter(|&n| n != 0)
    }
}

/// `"27"` (file 2, rank 7) → `[6, 1]`: `[rank − 1, file − 1]`.
fn square(text: &str) -> Option<[u8; 2]> {
    match *text.as_bytes() {
        [file @ b'1'..=b'9', rank @ b'1'..=b'9'] => Some([rank - b'1', file - b'1']),
        _ => None,
    }
}

// ----- conversion ---------------------------------------------------------

/// Where in the file a refusal was found.
struct At<'a> {
    opening: usize,
    name: &'a str,
    fen: &'a str,
}

impl At<'_> {
    fn bad_square(&self, index: usize, end: MoveEnd, square: &str) -> LegacyJsonError {
        LegacyJsonError::BadSquare {
            opening: self.opening,
            name: self.name.to_string(),
            fen: self.fen.to_string(),
            index,
            end,
            square: square.to_string(),
        }
    }
}

#[derive(Default)]
struct Converter {
    book: JsonBook,
    report: LegacyReport,
    /// Position key → index in `book.positions`.
    index: HashMap<String, usize>,
    /// (position index, from, to) already written.
    seen: HashSet<(usize, [u8; 2], [u8; 2])>,
}

impl Converter {
    fn position(&mut self, at: &At, moves: &[MoveRepr]) -> Result<(), LegacyJsonError> {
        let board = ShogiBoard::parse(at.fen).map_err(|problem| LegacyJsonError::BadBoard {
            opening: at.opening,
            name: at.name.to_string(),
            fen: at.fen.to_string(),
            problem,
        })?;
        let key = sbob::position_key(at.fen);
        let pos = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.book.positions.push(JsonPosition { fen: at.fen.to_string(), moves: Vec::new() });
                self.index.insert(key, self.book.positions.len() - 1);
                self.book.positions.len() - 1
            }
        };
        for (index, m) in moves.iter().enumerate() {
            let from = square(&m.from).ok_or_else(|| at.bad_square(index, MoveEnd::From, &m.from))?;
            let to = square(&m.to).ok_or_else(|| at.bad_square(index, MoveEnd::To, &m.to))?;
            let piece = board.piece_at(from).ok_or_else(|| LegacyJsonError::EmptyFrom {
                opening: at.opening,
                name: at.name.to_string(),
                fen: at.fen.to_string(),
                index,
                square: m.from.clone(),
            })?;
            if !self.seen.insert((pos, from, to)) {
                self.report.duplicate_moves += 1;
                continue;
            }
            let piece_type = match sbob::piece_name(GameKind::Shogi, piece) {
                Some(name) => PieceTag::Name(name.to_string()),
                None => PieceTag::Number(piece),
            };
            let out = JsonMove {
                from: Some(from),
                to,
                piece_type,
                is_drop: false,
                is_promotion: false,
                weight: WEIGHT,
                evaluation: EVALUATION,
                opening_name: Some(at.name.to_string()),
                move_notation: None,
                promotion: None,
            };
            if let Some(p) = self.book.positions.get_mut(pos) {
                p.moves.push(out);
                self.report.moves += 1;
            }
        }
        Ok(())
    }
}

/// Reads an old `openingBook.json` into SBOB's JSON model (see the module
/// doc for the mapping), with what was kept and dropped.
pub fn parse(text: &str) -> Result<(JsonBook, LegacyReport), LegacyJsonError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Openings(openings) = serde_json::from_str(text)?;
    let mut conv = Converter::default();
    for (opening, o) in openings.iter().enumerate() {
        for (fen, moves) in &o.moves.0 {
            conv.position(&At { opening, name: &o.name, fen }, moves)?;
        }
    }
    conv.report.openings = openings.len();
    conv.report.positions = conv.book.positions.len();
    Ok((conv.book, conv.report))
}

/// JSON's whitespace (a form feed or other control byte cannot occur in JSON text).
fn json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether `head` (a file's first bytes) looks like an old opening book:
/// after optional whitespace (and an optional UTF-8 byte order mark) `[`,
/// then after optional whitespace `{` or `]`; the head is UTF-8 (a character
/// cut at its end still counts) with no control byte but whitespace, as
/// JSON text has none. A Polyglot book (headerless, keys of random bytes,
/// mostly zero learn fields) whose first byte is `[` practically never passes.
pub fn looks_like(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut bytes = head.iter().copied().skip_while(|&b| json_space(b));
    let opens = bytes.next() == Some(b'[') && matches!(bytes.find(|&b| !json_space(b)), Some(b'{' | b']'));
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    opens && utf8 && !head.iter().any(|&b| b < 0x20 && !json_space(b))
}

#[cfg(test)]
pub(crate) mod tests;
