//! The JSON routes of `archivist serve`: each reads `fen` (and its own
//! parameters) from the query, answers from what [`super::State`] opened
//! at start, and gives `{"error": …}` with a 4xx for a bad request.

use super::{blocking, ApiError, State};
use crate::board::Board;
use crate::book::play::report::{report, MoveReport, Report};
use crate::search::table_line;
use crate::types::Move;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State as Shared};
use axum::Json;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::sync::Arc;

/// The query of a position: `fen`, and `chess960` for X-FEN castling.
#[derive(Debug, Deserialize)]
pub struct FenQuery {
    pub fen: String,
    #[serde(default)]
    pub chess960: bool,
}

#[derive(Debug, Deserialize)]
pub struct BookQuery {
    pub fen: String,
    #[serde(default)]
    pub chess960: bool,
    /// Only the book of this name (its file name).
    pub book: Option<String>,
}

/// The board of a query, or a 400 that says what is wrong.
pub fn board(fen: &str, chess960: bool) -> Result<Board, ApiError> {
    Board::from_fen(fen.trim(), chess960).map_err(|e| ApiError::bad_fen(fen, e))
}

/// The query, or a 400 that says what is missing.
pub fn query<T>(q: Result<Query<T>, QueryRejection>) -> Result<T, ApiError> {
    Ok(q?.0)
}

type Answer = Result<Json<Value>, ApiError>;

/// `GET /api/info`.
pub async fn info(Shared(s): Shared<Arc<State>>) -> Json<Value> {
    let books: Vec<Value> =
        s.books.iter().map(|b| json!({"name": b.name, "format": b.book.format().title(), "entries": b.book.len(), "learn": b.learn.is_some()})).collect();
    Json(json!({
        "books": books,
        "tablebases": s.tb_loaded.then(|| json!({"tables": s.tb.table_count(), "max_pieces": s.tb.max_pieces()})),
        "saved_table": s.saved.as_ref().map(|(tt, h)| json!({"mb": tt.size_mb(), "root": h.root_pos})),
        "searches": {"hash_mb": s.search_hash_mb, "seconds": s.search_seconds},
        "explorer": {
            "lichess": (!s.lichess.shards.is_empty()).then(|| json!({"shards": s.lichess.shards.len(), "games": s.lichess.games()})),
            "masters": (!s.masters.shards.is_empty()).then(|| json!({"shards": s.masters.shards.len(), "games": s.masters.games()})),
        },
    }))
}

/// `GET /api/moves?fen=`: the legal moves with SAN and the FEN after each.
pub async fn moves(q: Result<Query<FenQuery>, QueryRejection>) -> Answer {
    let q = query(q)?;
    let mut b = board(&q.fen, q.chess960)?;
    let mut moves = Vec::new();
    for m in b.legal_moves().iter() {
        let (uci, san) = (b.move_to_uci(m), b.move_to_san(m));
        b.make_move(m);
        moves.push(json!({"uci": uci, "san": san, "fen": b.fen()}));
        b.unmake_move();
    }
    Ok(Json(json!({"fen": b.fen(), "check": b.in_check(), "moves": moves})))
}

/// `GET /api/book?fen=[&book=NAME]`: `{"fen", "books": [...]}`, one
/// object per book (or only the book named): its `name` and its report on
/// the position ([`crate::book::play::report`], what `book probe --json`
/// prints: Polyglot weight and learn; ABK priority, games, won, lost and
/// the weight it is played with; YACB the position's entry, and per move
/// the weight and expected score used in play, the entry it leads to and
/// the results learned there when the book has a learn file). A book that
/// is not played (SBOB, JSON) has an `error` and no moves.
pub async fn book(
    Shared(s): Shared<Arc<State>>,
    q: Result<Query<BookQuery>, QueryRejection>,
) -> Result<Json<BookAnswer>, ApiError> {
    let q = query(q)?;
    let mut b = board(&q.fen, q.chess960)?;
    if let Some(name) = &q.book {
        if !s.books.iter().any(|nb| &nb.name == name) {
            return Err(ApiError::UnknownBook(name.clone()));
        }
    }
    let answer = blocking(&s, move |s| {
        let books = s
            .books
            .iter()
            .filter(|nb| q.book.as_ref().map_or(true, |n| n == &nb.name))
            .map(|nb| match report(&nb.book, &mut b, nb.learn.as_ref()) {
                Ok(report) => BookReport::Report { name: nb.name.clone(), report },
                Err(e) => BookReport::Refused {
                    name: nb.name.clone(),
                    format: nb.book.format().title(),
                    moves: Vec::new(),
                    error: e.to_string(),
                },
            })
            .collect();
        BookAnswer { fen: b.fen(), books }
    })
    .await?;
    Ok(Json(answer))
}

/// The answer of `/api/book`: the position and each book's report.
#[derive(Serialize)]
pub struct BookAnswer {
    pub fen: String,
    pub books: Vec<BookReport>,
}

/// One book's part of [`BookAnswer`]: its name and its report, or why it
/// is not played (SBOB, JSON).
#[derive(Serialize)]
#[serde(untagged)]
pub enum BookReport {
    Report {
        name: String,
        #[serde(flatten)]
        report: Report,
    },
    Refused {
        name: String,
        format: &'static str,
        moves: Vec<MoveReport>,
        error: String,
    },
}

/// `GET /api/analysis?fen=`: `{"loaded", "found", "depth", "bound",
/// "score", "pv": [{uci, san}]}` from the saved table: the position's
/// entry, and the line found by following the entries' moves while they
/// are legal and no position repeats ([`table_line`], the search's own).
pub async fn analysis(Shared(s): Shared<Arc<State>>, q: Result<Query<FenQuery>, QueryRejection>) -> Answer {
    let q = query(q)?;
    let b = board(&q.fen, q.chess960)?;
    Ok(Json(blocking(&s, move |s| saved_analysis(s, &b)).await?))
}

/// The answer of `/api/analysis` for `b`.
fn saved_analysis(s: &State, b: &Board) -> Value {
    let Some((tt, _)) = s.saved.as_ref() else {
        return json!({"loaded": false, "found": false});
    };
    let Some(entry) = tt.probe(b.key()) else {
        return json!({"loaded": true, "found": false});
    };
    let pv = line_json(b, &table_line(tt, b, MAX_LINE));
    json!({
        "loaded": true, "found": true,
        "depth": entry.depth(), "bound": entry.bound().name(),
        "score": score_json(i32::from(entry.value)), "pv": pv,
    })
}

/// Moves at most in the line walked through the saved table.
const MAX_LINE: usize = 64;

/// A line of moves from `root` as `[{uci, san}, …]`.
pub fn line_json(root: &Board, line: &[Move]) -> Vec<Value> {
    let mut b = root.clone();
    line.iter()
        .map(|&m| {
            let v = json!({"uci": b.move_to_uci(m), "san": b.move_to_san(m)});
            b.make_move(m);
            v
        })
        .collect()
}

/// A score as `{"cp": N}` or `{"mate": N}` (the side to move's view).
pub fn score_json(value: i32) -> Value {
    match crate::search::Score::from_value(value) {
        crate::search::Score::Cp(cp) => json!({"cp": cp}),
        crate::search::Score::Mate(n) => json!({"mate": n}),
    }
}
