//! Every way a request fails, with its status ([`ApiError::status`], the
//! one place a status is chosen) and its message: the answer is the status
//! and `{"error": message}` ([`IntoResponse`]), for every route. An index
//! error is logged as it is answered (the file needs rebuilding).

use super::lenient::LenientFenError;
use crate::explorer::index::ExplorerError;
use crate::tb::TbError;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use thiserror::Error;

/// Why a request is not answered.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ApiError {
    /// A query string that is not the route's (a repeated or missing
    /// parameter), as axum words it.
    #[error(transparent)]
    Query(#[from] QueryRejection),
    /// A body that could not be read (too long, cut off), as axum words it.
    #[error(transparent)]
    Body(#[from] BytesRejection),
    #[error("bad FEN '{fen}': {source}")]
    BadFen { fen: String, source: LenientFenError },
    /// A parameter missing or refused; `reason` is the whole message.
    #[error("{reason}")]
    BadParam { name: &'static str, reason: String },
    #[error("illegal uci: {0}")]
    IllegalMove(String),
    /// The variant asked for, or what is served instead.
    #[error("variant not supported: {0}")]
    Variant(String),
    #[error("no legal move to search")]
    NoLegalMove,
    #[error("the body is not UTF-8: {0}")]
    NotUtf8(#[from] std::str::Utf8Error),
    #[error("no book named '{0}'")]
    UnknownBook(String),
    /// What is not there: a route, a game id, a file, an evaluation.
    #[error("{0}")]
    NotFound(&'static str),
    #[error("only GET is served (and POST /standard)")]
    MethodNotAllowed,
    #[error("only application/json and application/cbor are served")]
    NotAcceptable,
    #[error("query longer than {0} bytes")]
    QueryTooLong(usize),
    #[error("{lines} lines: a batch holds at most {max}")]
    TooManyLines { lines: usize, max: usize },
    #[error("all {0} search slots are busy; try again later")]
    Busy(usize),
    /// A position outside the tables (404), or a table that cannot be read
    /// (500).
    #[error(transparent)]
    Tablebase(#[from] TbError),
    /// A damaged or unreadable explorer index, with its file and offset.
    #[error("explorer index: {0}")]
    Index(#[from] ExplorerError),
    #[error("the service is stopping")]
    Stopping,
    #[error("not answered within {0} s")]
    Timeout(u64),
    #[error("the lookup failed: {0}")]
    Lookup(#[from] tokio::task::JoinError),
    #[error("encoding the answer: {0}")]
    Encoding(String),
    #[error("no search thread: {0}")]
    NoThread(std::io::Error),
}

impl ApiError {
    /// The status of the answer.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::Query(_)
            | ApiError::BadFen { .. }
            | ApiError::BadParam { .. }
            | ApiError::IllegalMove(_)
            | ApiError::Variant(_)
            | ApiError::NoLegalMove
            | ApiError::NotUtf8(_) => StatusCode::BAD_REQUEST,
            ApiError::Body(e) => e.status(),
            ApiError::UnknownBook(_) | ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
            ApiError::QueryTooLong(_) => StatusCode::URI_TOO_LONG,
            ApiError::TooManyLines { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Tablebase(e) if !e.is_failure() => StatusCode::NOT_FOUND,
            ApiError::Tablebase(_)
            | ApiError::Index(_)
            | ApiError::Lookup(_)
            | ApiError::Encoding(_)
            | ApiError::NoThread(_) => StatusCode::INTERNAL_SERVER_ERROR,
            ApiError::Stopping | ApiError::Timeout(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    /// `fen` refused.
    pub fn bad_fen(fen: &str, source: impl Into<LenientFenError>) -> ApiError {
        ApiError::BadFen { fen: fen.to_string(), source: source.into() }
    }

    /// Parameter `name` refused, `reason` the whole message.
    pub fn bad_param(name: &'static str, reason: impl Into<String>) -> ApiError {
        ApiError::BadParam { name, reason: reason.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::Index(e) = &self {
            tracing::error!("explorer index: {e}");
        }
        (self.status(), Json(serde_json::json!({ "error": self.to_string() }))).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_failure_has_its_status_and_message() {
        let cases = [
            (ApiError::bad_param("moves", "moves must be a count"), 400, "moves must be a count"),
            (ApiError::IllegalMove("e2e5".into()), 400, "illegal uci: e2e5"),
            (ApiError::Variant("atomic".into()), 400, "variant not supported: atomic"),
            (ApiError::UnknownBook("x.bin".into()), 404, "no book named 'x.bin'"),
            (ApiError::NotFound("no such route"), 404, "no such route"),
            (ApiError::MethodNotAllowed, 405, "only GET is served (and POST /standard)"),
            (ApiError::QueryTooLong(1024), 414, "query longer than 1024 bytes"),
            (ApiError::TooManyLines { lines: 1001, max: 1000 }, 413, "1001 lines: a batch holds at most 1000"),
            (ApiError::Busy(2), 429, "all 2 search slots are busy; try again later"),
            (ApiError::Timeout(30), 503, "not answered within 30 s"),
            (ApiError::Stopping, 503, "the service is stopping"),
            (ApiError::Encoding("x".into()), 500, "encoding the answer: x"),
        ];
        for (e, status, message) in cases {
            assert_eq!((e.status().as_u16(), e.to_string()), (status, message.to_string()));
        }
        let fen = ApiError::bad_fen("x", LenientFenError::Empty);
        assert_eq!((fen.status().as_u16(), fen.to_string()), (400, "bad FEN 'x': empty FEN".to_string()));
        let damaged = ExplorerError::Corrupt { offset: 7, what: "bad entry" };
        let index = ApiError::from(damaged);
        assert_eq!((index.status().as_u16(), index.to_string()), (500, "explorer index: bad entry at offset 7".into()));
    }
}
