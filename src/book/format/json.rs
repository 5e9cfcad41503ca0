//! SBOB's JSON form ([docs/formats.md#sbob-json](../../docs/formats.md#sbob-json)), for development and review.
//!
//! ```json
//! {
//!   "version": 1,
//!   "positions": {
//!     "FEN": {
//!       "moves": [
//!         { "from": [1, 2] | null, "to": [1, 1], "piece_type": "Rook",
//!           "is_drop": false, "is_promotion": false, "weight": 850,
//!           "evaluation": 15, "opening_name": "…", "move_notation": "…",
//!           "promotion": "Queen" }
//!       ]
//!     }
//!   }
//! }
//! ```
//!
//! * Order is stable: positions appear in the book's order (an SBOB file's
//!   entry order, a JSON file's key order), moves in record order, fields in
//!   the order above. Output is laid out as the seed's example (two-space
//!   indents, one field per line, `[row, col]` on one line, final newline).
//!   Duplicate FEN keys and unknown fields are errors.
//! * `from` is `[row, col]`, `null` for the `0xFFFF` drop origin.
//! * `piece_type` is a name from the position's game table
//!   ([`sbob::piece_name`]: chess for 8-rank boards, shogi for 9-rank boards)
//!   or, for a number the table lacks, the number itself; both are read.
//! * `is_promotion` is a boolean. The binary byte is recovered as: `false` →
//!   0; `"promotion"` present → that piece's number; otherwise 1.
//! * `opening_name` and `move_notation` have no place in the binary form and
//!   are dropped by [`to_sbob`] (which counts them). [`from_sbob`] writes SAN
//!   into `move_notation` for chess positions whose move is legal; other games'
//!   notations cannot be derived and are left out.
//!
//! So SBOB → JSON → SBOB is lossless, and a canonical SBOB file comes back
//! byte for byte. Syntax and structure errors carry serde's line and column.

use super::sbob::{self, GameKind, SbobBook, SbobMove, SbobPosition, DROP_FROM};
use crate::board::Board;
use crate::codec::{IoAt, PathIoError};
use serde::de::{MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::HashSet;
use std::fmt;
use std::path::Path;
use thiserror::Error;

pub const VERSION: u32 = 1;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum JsonError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error("line {line}, column {column}: {message}")]
    Syntax { line: usize, column: usize, message: String },
    #[error("unsupported version {version} (expected {VERSION})")]
    UnsupportedVersion { version: u32 },
    #[error("position '{fen}', move {index}: unknown piece name '{name}'")]
    UnknownPiece { fen: String, index: usize, name: String },
    #[error("position '{fen}', move {index}: from [255, 255] is the drop marker; write null")]
    AmbiguousFrom { fen: String, index: usize },
}

impl From<serde_json::Error> for JsonError {
    fn from(e: serde_json::Error) -> JsonError {
        let message = e.to_string();
        // serde_json appends " at line L column C"; keep the message bare.
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        JsonError::Syntax { line: e.line(), column: e.column(), message }
    }
}

/// A piece type: a name from the game's table, or a bare number.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum PieceTag {
    Number(u8),
    Name(String),
}

/// One move as the JSON form has it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JsonMove {
    pub from: Option<[u8; 2]>,
    pub to: [u8; 2],
    pub piece_type: PieceTag,
    pub is_drop: bool,
    pub is_promotion: bool,
    pub weight: u32,
    pub evaluation: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_notation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion: Option<PieceTag>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MovesRepr {
    moves: Vec<JsonMove>,
}

/// A position and its moves.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct JsonPosition {
    pub fen: String,
    pub moves: Vec<JsonMove>,
}

/// A whole JSON book, positions in order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct JsonBook {
    pub positions: Vec<JsonPosition>,
}

/// The `positions` object, kept in order, duplicates rejected.
struct Positions(Vec<JsonPosition>);

impl<'de> Deserialize<'de> for Positions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Positions, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Positions;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object mapping FEN strings to {\"moves\": [...]}")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Positions, A::Error> {
                let mut seen = HashSet::new();
                let mut out = Vec::new();
                while let Some((fen, repr)) = map.next_entry::<String, MovesRepr>()? {
                    if !seen.insert(fen.clone()) {
                        return Err(serde::de::Error::custom(format!("duplicate position '{fen}'")));
                    }
                    out.push(JsonPosition { fen, moves: repr.moves });
                }
                Ok(Positions(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BookRepr {
    version: u32,
    positions: Positions,
}

/// Parses JSON text.
pub fn parse(text: &str) -> Result<JsonBook, JsonError> {
    let repr: BookRepr = serde_json::from_str(text)?;
    if repr.version != VERSION {
        return Err(JsonError::UnsupportedVersion { version: repr.version });
    }
    Ok(JsonBook { positions: repr.positions.0 })
}

/// JSON text in the seed's layout: two-space indents, one field per line,
/// `[row, col]` arrays on one line, a final newline.
pub fn to_string(book: &JsonBook) -> String {
    let mut out = String::from("{\n  \"version\": 1,\n  \"positions\": {");
    for (i, p) in book.positions.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        out.push_str(&format!("    {}: {{\n      \"moves\": [", quote(&p.fen)));
        for (j, m) in p.moves.iter().enumerate() {
            out.push_str(if j == 0 { "\n" } else { ",\n" });
            write_move(&mut out, m);
        }
        out.push_str(if p.moves.is_empty() { "]\n    }" } else { "\n      ]\n    }" });
    }
    out.push_str(if book.positions.is_empty() { "}\n}\n" } else { "\n  }\n}\n" });
    out
}

fn quote(s: &str) -> String {
    // Serialising a string cannot fail.
    serde_json::to_string(s).unwrap_or_default()
}

fn tag(t: &PieceTag) -> String {
    match t {
        PieceTag::Number(n) => n.to_string(),
        PieceTag::Name(name) => quote(name),
    }
}

fn write_move(out: &mut String, m: &JsonMove) {
    let square = |[r, c]: [u8; 2]| format!("[{r}, {c}]");
    let mut fields = vec![
        ("from", m.from.map_or_else(|| "null".to_string(), square)),
        ("to", square(m.to)),
        ("piece_type", tag(&m.piece_type)),
        ("is_drop", m.is_drop.to_string()),
        ("is_promotion", m.is_promotion.to_string()),
        ("weight", m.weight.to_string()),
        ("evaluation", m.evaluation.to_string()),
    ];
    if let Some(name) = &m.opening_name {
        fields.push(("opening_name", quote(name)));
    }
    if let Some(notation) = &m.move_notation {
        fields.push(("move_notation", quote(notation)));
    }
    if let Some(p) = &m.promotion {
        fields.push(("promotion", tag(p)));
    }
    out.push_str("        {\n");
    for (k, (name, value)) in fields.iter().enumerate() {
        let comma = if k + 1 < fields.len() { "," } else { "" };
        out.push_str(&format!("          \"{name}\": {value}{comma}\n"));
    }
    out.push_str("        }");
}

pub fn read(path: &Path) -> Result<JsonBook, JsonError> {
    let text = std::fs::read_to_string(path).at(path)?;
    parse(&text)
}

/// Writes `book` (temporary file, sync, rename).
pub fn write(path: &Path, book: &JsonBook) -> Result<(), JsonError> {
    Ok(super::write_atomic(path, to_string(book).as_bytes()).at(path)?)
}

fn piece_tag(game: GameKind, n: u8) -> PieceTag {
    match sbob::piece_name(game, n) {
        Some(name) => PieceTag::Name(name.to_string()),
        None => PieceTag::Number(n),
    }
}

fn piece_value(game: GameKind, tag: &PieceTag, fen: &str, index: usize) -> Result<u8, JsonError> {
    match tag {
        PieceTag::Number(n) => Ok(*n),
        PieceTag::Name(name) => sbob::piece_number(game, name).ok_or_else(|| JsonError::UnknownPiece {
            fen: fen.to_string(),
            index,
            name: name.clone(),
        }),
    }
}

/// SAN of an SBOB chess record in `board`, if it is a legal move there.
fn chess_san(board: &mut Option<Board>, m: &SbobMove) -> Option<String> {
    let b = board.as_mut()?;
    let legal = b.legal_moves();
    let mv = sbob::to_chess_move(b, &legal, m)?;
    Some(b.move_to_san(mv))
}

/// The JSON form of an SBOB book: every field, piece names, SAN for chess.
pub fn from_sbob(book: &SbobBook) -> JsonBook {
    JsonBook { positions: book.positions.iter().map(position_from_sbob).collect() }
}

/// The JSON form of one SBOB position (its entry in [`from_sbob`]'s book).
pub fn position_from_sbob(p: &SbobPosition) -> JsonPosition {
    let game = sbob::game_kind(&p.fen);
    let mut board = match game {
        GameKind::Chess => Board::from_fen(&p.fen, false).ok(),
        _ => None,
    };
    let moves = p
        .moves
        .iter()
        .map(|m| {
            let (tr, tc) = m.to_square();
            JsonMove {
                from: m.from_square().map(|(r, c)| [r, c]),
                to: [tr, tc],
                piece_type: piece_tag(game, m.piece_type),
                is_drop: m.is_drop,
                is_promotion: m.is_promotion != 0,
                weight: m.weight,
                evaluation: m.evaluation,
                opening_name: None,
                move_notation: chess_san(&mut board, m),
                promotion: (m.is_promotion > 1).then(|| piece_tag(game, m.is_promotion)),
            }
        })
        .collect();
    JsonPosition { fen: p.fen.clone(), moves }
}

/// What [`to_sbob`] could not carry over.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dropped {
    pub opening_names: usize,
    pub move_notations: usize,
}

/// The SBOB book of a JSON book; `opening_name` and `move_notation` are dropped (counted).
pub fn to_sbob(book: &JsonBook) -> Result<(SbobBook, Dropped), JsonError> {
    let mut dropped = Dropped::default();
    let mut positions = Vec::with_capacity(book.positions.len());
    for p in &book.positions {
        let game = sbob::game_kind(&p.fen);
        let mut moves = Vec::with_capacity(p.moves.len());
        for (index, m) in p.moves.iter().enumerate() {
            dropped.opening_names += usize::from(m.opening_name.is_some());
            dropped.move_notations += usize::from(m.move_notation.is_some());
            let from = match m.from {
                None => DROP_FROM,
                Some([r, c]) => {
                    let f = sbob::square_field(r, c);
                    if f == DROP_FROM {
                        return Err(JsonError::AmbiguousFrom { fen: p.fen.clone(), index });
                    }
                    f
                }
            };
            let is_promotion = match (&m.promotion, m.is_promotion) {
                (_, false) => 0,
                (Some(tag), true) => piece_value(game, tag, &p.fen, index)?,
                (None, true) => 1,
            };
            moves.push(SbobMove {
                from,
                to: sbob::square_field(m.to[0], m.to[1]),
                piece_type: piece_value(game, &m.piece_type, &p.fen, index)?,
                is_drop: m.is_drop,
                is_promotion,
                weight: m.weight,
                evaluation: m.evaluation,
            });
        }
        positions.push(SbobPosition { fen: p.fen.clone(), moves });
    }
    Ok((SbobBook { positions }, dropped))
}

#[cfg(test)]
mod tests;
