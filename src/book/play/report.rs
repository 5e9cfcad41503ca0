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
//! | `entry` | null | null | the position's own entry ([`entry_json`]) |
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
use serde::Serialize;
use serde_json::{json, Value};

/// One book's report on one position (see the module table).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub fen: String,
    pub key: String,
    pub format: &'static str,
    pub entry: Option<Value>,
    pub moves: Vec<Value>,
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

fn polyglot(book: &PolyglotBook, board: &mut Board) -> Report {
    let moves: Vec<Value> = book
        .moves(board)
        .iter()
        .map(|m| json!({"uci": board.move_to_uci(m.mv), "san": board.move_to_san(m.mv), "weight": m.weight, "learn": m.learn, "entry": null}))
        .collect();
    Report { fen: board.fen(), format: "polyglot", key: format!("{:016x}", polyglot_key(board)), entry: None, moves }
}

fn abk(book: &AbkBook, board: &mut Board) -> Report {
    let moves: Vec<Value> = book
        .probe(board)
        .iter()
        .map(|m| {
            json!({
                "uci": board.move_to_uci(m.mv), "san": board.move_to_san(m.mv), "weight": m.weight(),
                "priority": m.priority, "games": m.games, "won": m.won, "lost": m.lost, "drawn": m.drawn(), "learn": null, "entry": null,
            })
        })
        .collect();
    Report { fen: board.fen(), format: "abk", key: format!("{:016x}", polyglot_key(board)), entry: None, moves }
}

fn yacb(book: &YacbBook, board: &mut Board, learn: Option<&LearnTable>) -> Report {
    let key = book.key_type().key(board);
    let own = book.lookup(key).map(|e| entry_json(&e, Some(&*board)));
    let mut moves = Vec::new();
    for c in yacb_candidates(book, board, learn) {
        let (uci, san) = (board.move_to_uci(c.mv), board.move_to_san(c.mv));
        board.make_move(c.mv);
        let child_key = book.key_type().key(board);
        let entry = book.lookup(child_key).map(|e| entry_json(&e, Some(&*board)));
        let learned = learn
            .and_then(|l| l.entries.get(&child_key))
            .map(|l| json!({"games": l.games, "white_points": l.white_points}));
        board.unmake_move();
        moves.push(json!({
            "uci": uci, "san": san,
            "weight": (c.score * f64::from(crate::book::format::yacb::PERF_MAX)).round() as u32,
            "expected": c.score, "best_move": c.is_best_move, "entry": entry, "learned": learned, "learn": null,
        }));
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

fn elo_json(e: Elo) -> Value {
    match e {
        Elo::Irreplaceable => json!("irreplaceable"),
        Elo::Rated(v) => json!(v),
    }
}

/// A YACB entry as JSON (`value`, `value_type`, `bound`, `source`, `elo`,
/// `best_move`). The best move is in standard UCI notation (`e1g1`) unless
/// the position is Chess960, and null when there is none or it is not
/// legal in `board` (when a board is known).
pub fn entry_json(e: &YacbEntry, board: Option<&Board>) -> Value {
    let best = match board {
        Some(b) => {
            b.legal_moves().iter().find(|&m| crate::book::format::same_move(e.best_move, m)).map(|m| b.move_to_uci(m))
        }
        None => (!e.best_move.is_none()).then(|| crate::board::notation::uci_string(e.best_move, false)),
    };
    json!({
        "value": e.value,
        "value_type": value_type_name(e.value_type),
        "bound": bound_name(e.bound),
        "source": source_name(e.source),
        "elo": elo_json(e.elo),
        "best_move": best,
    })
}

#[cfg(test)]
mod tests;
