//! `archivist serve`: one local HTTP service that shows a user's own
//! books, tablebases and saved analysis side by side, by position, in a
//! browser, with nothing fetched from outside (axum on tokio, JSON with
//! serde).
//!
//! | route | answer |
//! |---|---|
//! | `GET /` | the page ([`page.html`](serve/page.html)): SVG board, FEN input, moves by click or drag, back/forward, SAN move list, the panels below |
//! | `GET /api/moves?fen=` | the legal moves: `{fen, check, moves: [{uci, san, fen}]}` (the page has no chess rules of its own) |
//! | `GET /api/tablebase?fen=` | a drop-in for Lichess's tablebase API ([`api::tablebase`]) |
//! | `GET /api/book?fen=[&book=NAME]` | the moves each book offers, with everything its format knows ([`api::book`]) |
//! | `GET /api/analysis?fen=` | what the loaded SFTT holds: depth, bound, score and the line found by walking the table ([`api::analysis`]) |
//! | `GET /api/analyse?fen=&multipv=` | a live search streamed as server-sent events ([`live`]) |
//! | `GET /api/info` | what was loaded: books (name, format, entries), tables, the saved table |
//!
//! Safe by default: it listens on 127.0.0.1 unless told otherwise; no file
//! path comes from a request (books are named on the command line and
//! chosen by name); queries longer than [`MAX_QUERY`] bytes and request
//! bodies longer than [`MAX_BODY`] are refused; bad FENs and unknown books
//! get a 4xx with `{"error": …}`, never a panic. Books, tables and the
//! saved table are opened once at start through the project's own layers
//! and shared read-only by every request.

mod api;
mod live;

use crate::book::{self, Book};
use crate::tb::Tablebases;
use crate::tt::TranspositionTable;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;
use tokio::sync::Semaphore;

/// Longest query string accepted (a FEN is at most about 90 bytes).
pub const MAX_QUERY: usize = 1024;
/// Longest request body accepted (every route is a GET).
pub const MAX_BODY: usize = 1024;
/// Where the service listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9090";

/// What `archivist serve` is given.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub books: Vec<PathBuf>,
    /// Syzygy directories (`:`-separated, as `SyzygyPath`).
    pub syzygy: Option<String>,
    pub hash_file: Option<PathBuf>,
    pub listen: SocketAddr,
    /// Live searches at most at once.
    pub searches: usize,
    /// Table of each live search, MB.
    pub search_hash_mb: usize,
    /// A live search stops after this long.
    pub search_seconds: u64,
}

/// Why the service could not start.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ServeError {
    #[error("{path}: {source}")]
    Book { path: PathBuf, source: book::BookError },
    #[error("two books are named '{0}' (books are chosen by file name)")]
    DuplicateBook(String),
    #[error("{path}: {source}")]
    HashFile { path: PathBuf, source: crate::tt::persist::SfttError },
    #[error("listening on {addr}: {source}")]
    Listen { addr: SocketAddr, source: std::io::Error },
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A book opened at start, named by its file name.
pub struct NamedBook {
    pub name: String,
    pub book: Book,
    /// Learned results beside it (`BookLearn`'s side file), when one exists.
    pub learn: Option<book::learn::LearnTable>,
}

/// What every request shares, read-only.
pub struct State {
    pub books: Vec<NamedBook>,
    pub tb: Option<Arc<Tablebases>>,
    /// The saved table and its file's header, when `--hash-file` was given.
    pub saved: Option<(TranspositionTable, crate::tt::persist::SfttHeader)>,
    /// One permit per live search that may run (`searches` of them).
    pub slots: Arc<Semaphore>,
    pub searches: usize,
    pub search_hash_mb: usize,
    pub search_seconds: u64,
}

impl State {
    /// Opens everything `options` names; fails on the first unreadable file.
    pub fn open(options: &ServeOptions) -> Result<State, ServeError> {
        let mut books: Vec<NamedBook> = Vec::new();
        for path in &options.books {
            let name = book_name(path);
            if books.iter().any(|b| b.name == name) {
                return Err(ServeError::DuplicateBook(name));
            }
            let b = book::open(path).map_err(|source| ServeError::Book { path: path.clone(), source })?;
            // The learn side file as play reads it (none: an empty table);
            // one that cannot be read is reported and left out, the book
            // still serves.
            let side = book::learn::side_path(path);
            let learn = match book::learn::LearnTable::load(&side) {
                Ok(t) => (!t.entries.is_empty()).then_some(t),
                Err(e) => {
                    tracing::warn!("{}: not used: {e}", side.display());
                    None
                }
            };
            books.push(NamedBook { name, book: b, learn });
        }
        let tb = options.syzygy.as_deref().map(|dirs| {
            let (tables, issues) = Tablebases::new(dirs);
            for issue in issues {
                tracing::warn!("{issue}");
            }
            Arc::new(tables)
        });
        let saved = match &options.hash_file {
            Some(path) => {
                // Twice the file's size: room for every entry it holds.
                let bytes = std::fs::metadata(path)?.len();
                let tt = TranspositionTable::new(usize::try_from(bytes >> 19).unwrap_or(usize::MAX).max(1));
                let (header, _) = crate::tt::persist::load(&tt, path)
                    .map_err(|source| ServeError::HashFile { path: path.clone(), source })?;
                Some((tt, header))
            }
            None => None,
        };
        Ok(State {
            books,
            tb,
            saved,
            slots: Arc::new(Semaphore::new(options.searches.max(1))),
            searches: options.searches.max(1),
            search_hash_mb: options.search_hash_mb.max(1),
            search_seconds: options.search_seconds.max(1),
        })
    }
}

/// A book's name: its file name (what `book=` chooses).
fn book_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The service's routes over `state`.
pub fn router(state: Arc<State>) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/info", get(api::info))
        .route("/api/moves", get(api::moves))
        .route("/api/tablebase", get(api::tablebase))
        .route("/api/book", get(api::book))
        .route("/api/analysis", get(api::analysis))
        .route("/api/analyse", get(live::analyse))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(limit_query))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Serves until the process is stopped; `ready` gets the address bound
/// (port 0 picks a free one).
pub fn run(options: &ServeOptions, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let state = Arc::new(State::open(options)?);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async move {
        let addr = options.listen;
        let listener =
            tokio::net::TcpListener::bind(addr).await.map_err(|source| ServeError::Listen { addr, source })?;
        ready(listener.local_addr()?);
        axum::serve(listener, router(state)).await?;
        Ok::<(), ServeError>(())
    })
}

async fn page() -> Html<&'static str> {
    Html(include_str!("serve/page.html"))
}

/// An error answer: a status and `{"error": message}`.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub message: String,
}

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::BAD_REQUEST, message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(serde_json::json!({ "error": self.message }))).into_response()
    }
}

async fn not_found() -> ApiError {
    ApiError { status: StatusCode::NOT_FOUND, message: "no such route".into() }
}

async fn method_not_allowed() -> ApiError {
    ApiError { status: StatusCode::METHOD_NOT_ALLOWED, message: "only GET is served".into() }
}

/// Refuses long query strings before any handler reads them.
async fn limit_query(request: Request, next: Next) -> Response {
    if request.uri().query().map_or(0, str::len) > MAX_QUERY {
        let message = format!("query longer than {MAX_QUERY} bytes");
        return ApiError { status: StatusCode::URI_TOO_LONG, message }.into_response();
    }
    next.run(request).await
}
