//! `POST /standard`: many positions in one request. The body holds FENs,
//! one a line (read as Lichess reads a FEN, [`super::lenient`]; `\r\n`
//! ends a line too); the answer has one line per line of the body, in its
//! order: the `/standard` answer of that position ([`TablebaseAnswer`]),
//! or `{"error": …}` for a line that is not a position (an empty line
//! included) or whose probe failed, while the other lines still answer.
//! JSON answers are NDJSON (`application/x-ndjson`, each object followed by
//! a newline); `Accept: application/cbor` gets a CBOR sequence
//! (`application/cbor-seq`, RFC 8742: the items one after another).
//!
//! Limits: at most [`MAX_BATCH_LINES`] lines and [`MAX_BATCH_BYTES`]
//! bytes, or 413 with nothing probed; a body that is not UTF-8 gets 400.
//! The positions are probed in chunks of [`CHUNK`] on the blocking pool,
//! each chunk holding one job permit as a single request does, and one of
//! the [`lanes`] that all batches share: batches together never hold more
//! than half the cores, and a single request never waits behind a whole
//! batch, only behind a chunk. Answers come from, and go to, the same
//! cache as single requests ([`super::answers`]), so a batch answers each
//! line exactly as `GET /standard` answers that position.
//!
//! [`TablebaseAnswer`]: crate::tb::TablebaseAnswer

use super::answers::AnswerKey;
use super::answers::Format;
use super::lichess::{format, lichess_board, probe_standard};
use super::{blocking, ApiError, State};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State as Shared};
use axum::http::header::{HeaderValue, CONTENT_TYPE};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::sync::Arc;

/// Lines a batch may hold at most.
pub const MAX_BATCH_LINES: usize = 1000;
/// Bytes a batch's body may hold at most (1 MiB).
pub const MAX_BATCH_BYTES: usize = 1 << 20;
/// Positions probed by one job of the blocking pool.
pub const CHUNK: usize = 16;

/// The body limit of `POST /standard` (the other routes keep
/// [`super::MAX_BODY`]).
pub fn body_limit() -> DefaultBodyLimit {
    DefaultBodyLimit::max(MAX_BATCH_BYTES)
}

/// Chunks of batch positions probed at once, all batches together: half
/// the cores (at least one).
pub fn lanes() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get() / 2).max(1)
}

/// The line of a position that has no answer.
#[derive(Serialize)]
struct LineError {
    error: String,
}

/// `POST /standard`: see the module documentation.
pub async fn standard(
    Shared(s): Shared<Arc<State>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let format = format(&headers)?;
    let body = body?;
    let text = std::str::from_utf8(&body)?;
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    if lines.len() > MAX_BATCH_LINES {
        return Err(ApiError::TooManyLines { lines: lines.len(), max: MAX_BATCH_LINES });
    }
    let mut out = Vec::new();
    let mut lines = lines.into_iter();
    loop {
        let chunk: Vec<String> = lines.by_ref().take(CHUNK).collect();
        if chunk.is_empty() {
            break;
        }
        let lane = Arc::clone(&s.batch_lanes).acquire_owned().await.map_err(|_| ApiError::Stopping)?;
        let answers = blocking(&s, move |s| chunk.iter().map(|fen| line(s, fen, format)).collect::<Vec<_>>()).await?;
        drop(lane);
        for answer in answers {
            out.extend_from_slice(&answer);
            if format == Format::Json {
                out.push(b'\n');
            }
        }
        tokio::task::yield_now().await;
    }
    let content_type = match format {
        Format::Json => "application/x-ndjson",
        Format::Cbor => "application/cbor-seq",
    };
    Ok(([(CONTENT_TYPE, HeaderValue::from_static(content_type))], out).into_response())
}

/// The encoded answer of one line: kept, probed, or its error.
fn line(s: &State, fen: &str, format: Format) -> Bytes {
    let key = AnswerKey::new(fen, format);
    let answer = match key.as_ref().and_then(|k| s.answers.get(k)) {
        Some(kept) => Ok(kept),
        None => lichess_board(fen).and_then(|board| probe_standard(s, board, key, format)),
    };
    answer.unwrap_or_else(|e| {
        // A struct of one string always encodes.
        Bytes::from(format.encode(&LineError { error: e.to_string() }).unwrap_or_default())
    })
}
