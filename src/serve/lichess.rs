//! The routes shaped as Lichess's own services, so that their clients
//! (berserk, lila, lichess-bot, GUIs) work against `archivist serve` by a
//! change of base URL:
//!
//! | route | Lichess's service | answer |
//! |---|---|---|
//! | `GET /standard?fen=` | lila-tablebase | [`TablebaseAnswer`] (also at `/api/tablebase`) |
//! | `POST /standard` | none (lila-tablebase has no batch) | one [`TablebaseAnswer`] per FEN line ([`super::batch`]) |
//! | `GET /standard/mainline?fen=` | lila-tablebase | [`MainlineAnswer`]; 404 outside the tables |
//! | `GET /atomic…`, `/antichess…` | lila-tablebase | 400: variants are not served |
//! | `GET /api/cloud-eval?fen=&multiPv=` | lichess.org | the saved table's line ([`CloudEval`]); 404 when it has none |
//!
//! FENs are read as Lichess reads them ([`super::lenient`]: underscores
//! for spaces, bad castling rights and en-passant squares dropped); `dtc=`
//! is accepted and ignored. `Accept: application/cbor` gets CBOR, anything
//! else that accepts JSON (or `*/*`, or no `Accept`) JSON, and an `Accept`
//! that takes neither 406, as lila-tablebase's content negotiation does.
//! Errors are `{"error": …}` in JSON. Every answer of these routes carries
//! `Access-Control-Allow-Origin: *`. Probes run on the blocking pool
//! ([`super::blocking`]), never on the async workers; `/standard`'s
//! answers are kept, encoded, by position ([`super::answers`]), so a
//! position asked again is not probed again.

use super::answers::{AnswerKey, Format};
use super::api::query;
use super::{blocking, ApiError, State};
use crate::board::Board;
use crate::search::{table_line, Score};
use crate::tb::{MainlineAnswer, TablebaseAnswer, Tablebases, TbError};
use crate::types::Color;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State as Shared};
use axum::http::HeaderMap;
use axum::response::Response;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The format of a request, or its 406.
pub fn format(headers: &HeaderMap) -> Result<Format, ApiError> {
    Format::negotiate(headers).ok_or(ApiError::NotAcceptable)
}

/// The query of lila-tablebase: `fen`, and `dtc` (accepted, ignored: no
/// DTC tables are read).
#[derive(Debug, Deserialize)]
pub struct TablebaseQuery {
    pub fen: String,
    #[serde(default)]
    pub dtc: Option<String>,
}

/// The board of a Lichess request, or its 400.
pub fn lichess_board(fen: &str) -> Result<Board, ApiError> {
    super::lenient::board(fen).map_err(|e| ApiError::bad_fen(fen, e))
}

/// `GET /standard?fen=` (and `/api/tablebase`): every legal move ranked,
/// as lila-tablebase answers ([`TablebaseAnswer`]). A position outside the
/// tables (too many pieces, castling rights, a missing table, no
/// `--syzygy`) is answered `unknown`, not refused.
pub async fn standard(
    Shared(s): Shared<Arc<State>>,
    headers: HeaderMap,
    q: Result<Query<TablebaseQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let format = format(&headers)?;
    let fen = query(q)?.fen;
    let key = AnswerKey::new(&fen, format);
    if let Some(kept) = key.as_ref().and_then(|k| s.answers.get(k)) {
        return Ok(format.reply(kept));
    }
    let board = lichess_board(&fen)?;
    let body = blocking(&s, move |s| probe_standard(s, board, key, format)).await??;
    Ok(format.reply(body))
}

/// `board`'s `/standard` answer encoded in `format`, probed here (a
/// blocking thread) and kept in the state's cache under `key`.
pub fn probe_standard(s: &State, mut board: Board, key: Option<AnswerKey>, format: Format) -> Result<Bytes, ApiError> {
    let answer: TablebaseAnswer = s.tb.probe_moves(&mut board).map(|r| r.answer())?;
    let body = Bytes::from(format.encode(&answer)?);
    if let Some(key) = key {
        s.answers.insert(key, body.clone());
    }
    Ok(body)
}

/// `GET /standard/mainline?fen=`: [`MainlineAnswer`], 404 for a position
/// outside the tables.
pub async fn mainline(
    Shared(s): Shared<Arc<State>>,
    headers: HeaderMap,
    q: Result<Query<TablebaseQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let format = format(&headers)?;
    let board = lichess_board(&query(q)?.fen)?;
    let answer: Result<MainlineAnswer, TbError> = blocking(&s, move |s| s.tb.mainline(&board)).await?;
    Ok(format.respond(&answer?))
}

/// `/atomic`, `/antichess` and their mainlines: the variants lila-tablebase
/// also serves, not served here.
pub async fn variant() -> ApiError {
    ApiError::Variant("only /standard is served".into())
}

/// The query of Lichess's cloud evaluation.
#[derive(Debug, Deserialize)]
pub struct CloudEvalQuery {
    pub fen: String,
    #[serde(rename = "multiPv", default = "one")]
    pub multi_pv: u32,
    #[serde(default)]
    pub variant: Option<String>,
}

fn one() -> u32 {
    1
}

/// Lichess's cloud evaluation answer, from the saved table: the position's
/// FEN, the saved search's `depth` and `knodes`, and one line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CloudEval {
    pub fen: String,
    /// Thousands of nodes of the saved search when the position is its
    /// root (the SFTT header's count), else 0: the table keeps no count per
    /// entry.
    pub knodes: u64,
    pub depth: i32,
    pub pvs: Vec<CloudLine>,
}

/// One line: its moves as one space-separated UCI string and its score
/// from White's side (`cp`, or `mate` in moves, positive when White mates).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CloudLine {
    pub moves: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
}

/// Moves at most in a cloud line (Lichess's are shorter).
const MAX_CLOUD_LINE: usize = 32;

/// `GET /api/cloud-eval?fen=&multiPv=&variant=`: the saved table's entry
/// for the position as Lichess's cloud evaluation; 404 when the table
/// (or `--hash-file`) has no entry with a legal move for it. `multiPv` (1
/// to 5, as Lichess) above 1 gives the one line the table holds.
pub async fn cloud_eval(
    Shared(s): Shared<Arc<State>>,
    headers: HeaderMap,
    q: Result<Query<CloudEvalQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let format = format(&headers)?;
    let q = query(q)?;
    if !(1..=5).contains(&q.multi_pv) {
        return Err(ApiError::bad_param("multiPv", "multiPv must be 1 to 5"));
    }
    if q.variant.as_deref().is_some_and(|v| v != "standard" && v != "chess") {
        return Err(ApiError::Variant("only standard".into()));
    }
    let board = lichess_board(&q.fen)?;
    let eval = blocking(&s, move |s| saved_eval(s, &board)).await?;
    eval.map(|e| format.respond(&e)).ok_or(ApiError::NotFound("No cloud evaluation available for that position"))
}

/// The saved table's line for `board`, if it holds one.
fn saved_eval(s: &State, board: &Board) -> Option<CloudEval> {
    let (tt, header) = s.saved.as_ref()?;
    let entry = tt.probe(board.key())?;
    let line = table_line(tt, board, MAX_CLOUD_LINE);
    if line.is_empty() {
        return None;
    }
    let mut b = board.clone();
    let moves: Vec<String> = line
        .iter()
        .map(|&m| {
            let uci = b.move_to_uci(m);
            b.make_move(m);
            uci
        })
        .collect();
    let white = if board.side_to_move() == Color::White { 1 } else { -1 };
    let (cp, mate) = match Score::from_value(i32::from(entry.value)) {
        Score::Cp(cp) => (Some(white * cp), None),
        Score::Mate(n) => (None, Some(white * n)),
    };
    let root = header.root_pos.as_deref().and_then(|f| Board::from_fen(f, false).ok());
    let knodes = if root.is_some_and(|r| r.key() == board.key()) { header.nodes / 1000 } else { 0 };
    Some(CloudEval {
        fen: board.fen(),
        knodes,
        depth: entry.depth(),
        pvs: vec![CloudLine { moves: moves.join(" "), cp, mate }],
    })
}

/// No tables: what `State` holds without `--syzygy`.
pub fn no_tables() -> Arc<Tablebases> {
    Arc::new(Tablebases::empty())
}
