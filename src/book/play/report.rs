//! What a playable book says about one position, as JSON: the object `book
//! probe --json` prints and `archivist serve`'s `/api/book` answers for
//! each book. The moves are the book's offers ([`super::offer`]), in the
//! order and with the weights it plays them with.
//!
//! | field | Polyglot | ABK | YACB |
//! |---|---|---|---|
//! | `fen` | the position | the position | the position |
//! | `key` | Polyglot key, 16 hex digits | Polyglot key | the book's key (its key type) |
//! | `format` | `"polyglot"` | `"abk"` | `"yacb"` |
//! | `entry` | null | null | the position's own entry ([`entry_report`]) |
//! | `moves[]` | `uci`, `san`, `weight`, `learn`, `entry` (null) | the same (`learn` null) and `priority`, `games`, `won`, `lost`, `drawn` | the same (`learn` null) and `expected`, `best_move`, `learned` |
//!
//! Every format's moves have the Polyglot fields (`uci`, `san`, `weight`,
//! `learn`, `entry`), null where the format has no such field.
//!
//! The top-level fields come in the table's order.
//!
//! * Polyglot: `weight` and `learn` as stored; weight-0 entries are listed.
//! * ABK: Arena's statistics of the move and the Polyglot weight it is
//!   played with (`2·won + drawn`, see [`crate::book::format::abk::AbkMove::weight`]).
//! * YACB: `expected` is the mover's expected score the engine plays the
//!   move by (learned results blended in when a learn table is given),
//!   `weight` the same on the perf scale (× 40000, rounded); `best_move`
//!   says whether the position's own entry names the move; `entry` is the
//!   stored entry of the position the move leads to (null for the own best
//!   move without one); `learned` is `{games, white_points}` learned for
//!   that position, or null. YACB entries hold no game count: a book built
//!   from games keeps its statistics as a perf% value (`value_type:
//!   "perf"`), not as counts.

use super::offer::{yacb_candidates, NotPlayable};
use super::Book;
use crate::board::zobrist::polyglot_key;
use crate::board::Board;
use crate::book::format::abk::AbkBook;
use crate::book::format::learn::LearnTable;
use crate::book::format::polyglot::PolyglotBook;
use crate::book::format::yacb::{BoundType, Elo, Source, ValueType, YacbBook, YacbEntry};
use crate::types::Move;
use serde::Serialize;

/// One book's report on one position (see the module table): what `book
/// probe --json` prints, its text printers read and the service answers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub fen: String,
    pub key: String,
    pub format: &'static str,
    pub entry: Option<EntryReport>,
    pub moves: Vec<MoveReport>,
}

/// A YACB entry (see [`entry_report`]). The fields in name order: the text
/// of `book probe` shows the entry as this JSON object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EntryReport {
    pub best_move: Option<String>,
    pub bound: &'static str,
    pub elo: EloReport,
    pub source: &'static str,
    pub value: i32,
    pub value_type: &'static str,
}

/// An entry's elo: a number, or `"irreplaceable"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum EloReport {
    Rated(i32),
    Named(&'static str),
}

/// One move a book offers: the fields every format has (null where it has
/// no such field) and the format's own ([`MoveDetail`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveReport {
    pub uci: String,
    pub san: String,
    pub weight: u32,
    pub learn: Option<u32>,
    pub entry: Option<EntryReport>,
    #[serde(flatten)]
    pub detail: MoveDetail,
}

/// What only one format says about a move.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum MoveDetail {
    Polyglot {},
    /// Arena's statistics of the move.
    Abk {
        priority: u8,
        games: i64,
        won: i64,
        lost: i64,
        drawn: i64,
    },
    /// The mover's expected score, whether the position's entry names the
    /// move, and the results learned for the position it leads to.
    Yacb {
        expected: f64,
        best_move: bool,
        learned: Option<LearnedReport>,
    },
}

/// Results learned in play for a position (`BookLearn`'s side file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LearnedReport {
    pub games: u32,
    pub white_points: u32,
}

/// The report of `book` on `board` (see the module table); `learn` is the
/// YACB book's learn table, when it has one. SBOB and JSON books are
/// refused as in play. `board` is left as it was found.
pub fn report(book: &Book, board: &mut Board, learn: Option<&LearnTable>) -> Result<Report, NotPlayable> {
    match book {
        Book::Polyglot(b) => Ok(polyglot(b, board)),
        Book::Abk(b) => Ok(abk(b, board)),
        Book::Yacb(b) => Ok(yacb(b, board, learn)),
        other => Err(NotPlayable { format: other.format() }),
    }
}

/// The report of a move of a Polyglot or ABK book (no entry of its own).
fn weighted(board: &mut Board, mv: Move, weight: u16, learn: Option<u32>, detail: MoveDetail) -> MoveReport {
    let (uci, san) = (board.move_to_uci(mv), board.move_to_san(mv));
    MoveReport { uci, san, weight: u32::from(weight), learn, entry: None, detail }
}

fn polyglot(book: &PolyglotBook, board: &mut Board) -> Report {
    let moves = book
        .moves(board)
        .iter()
        .map(|m| weighted(board, m.mv, m.weight, Some(m.learn), MoveDetail::Polyglot {}))
        .collect();
    Report { fen: board.fen(), format: "polyglot", key: format!("{:016x}", polyglot_key(board)), entry: None, moves }
}

fn abk(book: &AbkBook, board: &mut Board) -> Report {
    let moves = book
        .probe(board)
        .iter()
        .map(|m| {
            let detail =
                MoveDetail::Abk { priority: m.priority, games: m.games, won: m.won, lost: m.lost, drawn: m.drawn() };
            weighted(board, m.mv, m.weight(), None, detail)
        })
        .collect();
    Report { fen: board.fen(), format: "abk", key: format!("{:016x}", polyglot_key(board)), entry: None, moves }
}

fn yacb(book: &YacbBook, board: &mut Board, learn: Option<&LearnTable>) -> Report {
    let key = book.key_type().key(board);
    let own = book.lookup(key).map(|e| entry_report(&e, Some(&*board)));
    let mut moves = Vec::new();
    for c in yacb_candidates(book, board, learn) {
        let (uci, san) = (board.move_to_uci(c.mv), board.move_to_san(c.mv));
        board.make_move(c.mv);
        let child_key = book.key_type().key(board);
        let entry = book.lookup(child_key).map(|e| entry_report(&e, Some(&*board)));
        let learned = learn
            .and_then(|l| l.entries.get(&child_key))
            .map(|l| LearnedReport { games: l.games, white_points: l.white_points });
        board.unmake_move();
        moves.push(MoveReport {
            uci,
            san,
            weight: (c.score * f64::from(crate::book::format::yacb::PERF_MAX)).round() as u32,
            learn: None,
            entry,
            detail: MoveDetail::Yacb { expected: c.score, best_move: c.is_best_move, learned },
        });
    }
    Report { fen: board.fen(), format: "yacb", key: format!("{key:016x}"), entry: own, moves }
}

pub fn value_type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Centipawns => "cp",
        ValueType::KnownWin => "cp_known_win",
        ValueType::Dtz => "dtz",
        ValueType::Dtm => "dtm",
        ValueType::Perf => "perf",
    }
}

pub fn bound_name(b: BoundType) -> &'static str {
    match b {
        BoundType::Exact => "exact",
        BoundType::Lower => "lower",
        BoundType::Upper => "upper",
        BoundType::Proven => "proven",
    }
}

pub fn source_name(s: Source) -> &'static str {
    match s {
        Source::Tt => "tt",
        Source::Engine => "engine",
        Source::Statistical => "statistical",
        Source::Other => "other",
    }
}

/// A YACB entry's report: `value`, `value_type`, `bound`, `source`, `elo`,
/// `best_move`. The best move is in standard UCI notation (`e1g1`) unless
/// the position is Chess960, and null when there is none or it is not
/// legal in `board` (when a board is known).
pub fn entry_report(e: &YacbEntry, board: Option<&Board>) -> EntryReport {
    let best_move = match board {
        Some(b) => {
            b.legal_moves().iter().find(|&m| crate::book::format::same_move(e.best_move, m)).map(|m| b.move_to_uci(m))
        }
        None => (!e.best_move.is_none()).then(|| crate::board::notation::uci_string(e.best_move, false)),
    };
    EntryReport {
        best_move,
        bound: bound_name(e.bound),
        elo: match e.elo {
            Elo::Irreplaceable => EloReport::Named("irreplaceable"),
            Elo::Rated(v) => EloReport::Rated(i32::from(v)),
        },
        source: source_name(e.source),
        value: e.value,
        value_type: value_type_name(e.value_type),
    }
}

#[cfg(test)]
mod tests;
