//! `archivist serve`: one local HTTP service that shows a user's own
//! books, tablebases and saved analysis side by side, by position, in a
//! browser, with nothing fetched from outside (axum on tokio, JSON with
//! serde).
//!
//! | route | answer |
//! |---|---|
//! | `GET /` | the page ([`page.html`](serve/page.html)): SVG board, FEN input, moves by click or drag, back/forward, SAN move list, the panels below |
//! | `GET /api/moves?fen=` | the legal moves: `{fen, check, moves: [{uci, san, fen}]}` (the page has no chess rules of its own) |
//! | `GET /standard?fen=`, `/standard/mainline?fen=` | Lichess's tablebase API, exactly ([`lichess`]); `/api/tablebase` is `/standard` |
//! | `POST /standard` | many positions at once, a FEN a line: one `/standard` answer a line, NDJSON or a CBOR sequence ([`batch`]) |
//! | `GET /api/cloud-eval?fen=&multiPv=` | Lichess's cloud evaluation, from the saved table ([`lichess::cloud_eval`]) |
//! | `GET /lichess`, `/masters`, `/player`, `/masters/pgn/{id}` | Lichess's opening explorer over explorer indexes (`--lichess`, `--masters`; [`explorer`]) |
//! | `GET /api/book?fen=[&book=NAME]` | the moves each book offers, with everything its format knows ([`api::book`]) |
//! | `GET /api/analysis?fen=` | what the loaded SFTT holds: depth, bound, score and the line found by walking the table ([`api::analysis`]) |
//! | `GET /api/analyse?fen=&multipv=` | a live search streamed as server-sent events ([`live`]) |
//! | `GET /api/info` | what was loaded: books (name, format, entries), tables, the saved table, explorer indexes (shards, games) |
//! | `GET /web/…` | the files of a static site, the browser build (`--web DIR`; [`web`]) |
//!
//! Safe by default: it listens on 127.0.0.1 unless told otherwise; no file
//! path comes from a request (books are named on the command line and
//! chosen by name) but the site's, which stays inside its folder ([`web`]);
//! queries longer than [`MAX_QUERY`] bytes and request bodies longer than
//! [`MAX_BODY`] are refused; bad FENs and unknown books
//! get a 4xx with `{"error": …}`, never a panic. Books, tables and the
//! saved table are opened once at start through the project's own layers
//! and shared read-only by every request.
//!
//! A service that stays up ([`Limits`]): at most `max_connections` open
//! connections (more wait to be accepted); a connection that has not sent
//! a whole request head within `header_seconds` is closed (slow clients,
//! idle keep-alives); request heads over [`MAX_HEADER_BYTES`] get 431; a
//! request not answered within `request_seconds` gets 503. Probes and book
//! and table lookups run on tokio's blocking pool, at most
//! `blocking_jobs` at once ([`blocking`]), so a slow disk never stalls the
//! async workers that accept and answer.

mod answers;
mod api;
mod batch;
mod explorer;
mod lenient;
pub mod lichess;
mod live;
pub mod web;

use crate::book::format::learn;
use crate::book::play::{self, Book};
use crate::codec::{IoAt, PathIoError};
use crate::tb::Tablebases;
use crate::tt::TranspositionTable;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::header::{HeaderValue, ACCESS_CONTROL_ALLOW_ORIGIN};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use tokio::sync::Semaphore;

/// Longest query string accepted (a FEN is at most about 90 bytes).
pub const MAX_QUERY: usize = 1024;
/// Longest request body accepted (but by `POST /standard`, which takes
/// [`batch::MAX_BATCH_BYTES`]).
pub const MAX_BODY: usize = 1024;
/// Longest request head (request line and headers) accepted; longer ones
/// get 431.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// Where the service listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9090";

/// What keeps the service up under many or hostile clients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Open connections at most; more wait in the listen queue.
    pub max_connections: usize,
    /// A connection must send a whole request head within this long, or it
    /// is closed (also the longest idle keep-alive).
    pub header_seconds: u64,
    /// A request not answered within this long gets 503.
    pub request_seconds: u64,
    /// Probes and lookups running at once on the blocking pool.
    pub blocking_jobs: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_connections: 1024, header_seconds: 5, request_seconds: 30, blocking_jobs: 64 }
    }
}

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
    pub limits: Limits,
    /// Explorer indexes served as Lichess's explorer (`/lichess`) and as
    /// its masters database (`/masters`); each list's shards add up.
    pub lichess: Vec<PathBuf>,
    pub masters: Vec<PathBuf>,
    /// A static site served under `/web/` ([`web`]).
    pub web: Option<PathBuf>,
    /// Bytes of `/standard` answers kept ([`answers`]; 0 keeps none).
    pub tb_cache_bytes: usize,
}

/// Why the service could not start.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ServeError {
    #[error("{path}: {source}")]
    Book { path: PathBuf, source: play::BookError },
    #[error("two books are named '{0}' (books are chosen by file name)")]
    DuplicateBook(String),
    #[error("{path}: {source}")]
    HashFile { path: PathBuf, source: crate::tt::persist::SfttError },
    #[error(transparent)]
    HashFileIo(#[from] PathIoError),
    #[error("--web {}: {reason}", path.display())]
    Web { path: PathBuf, reason: String },
    /// The path once: an I/O error of the index names it already.
    #[error("{}: {}", path.display(), crate::codec::unnamed(path, source))]
    Explorer { path: PathBuf, source: crate::explorer::index::ExplorerError },
    #[error("listening on {addr}: {source}")]
    Listen { addr: SocketAddr, source: std::io::Error },
    #[error("starting the service: {0}")]
    Runtime(std::io::Error),
}

/// A book opened at start, named by its file name.
pub struct NamedBook {
    pub name: String,
    pub book: Book,
    /// Learned results beside it (`BookLearn`'s side file), when one exists.
    pub learn: Option<learn::LearnTable>,
}

/// What every request shares, read-only.
pub struct State {
    pub books: Vec<NamedBook>,
    /// The tables of `--syzygy` (none without it: every position unknown).
    pub tb: Arc<Tablebases>,
    /// Whether `--syzygy` was given.
    pub tb_loaded: bool,
    /// The saved table and its file's header, when `--hash-file` was given.
    pub saved: Option<(TranspositionTable, crate::tt::persist::SfttHeader)>,
    /// One permit per live search that may run (`searches` of them).
    pub slots: Arc<Semaphore>,
    /// One permit per job that may run on the blocking pool at once.
    pub jobs: Arc<Semaphore>,
    /// One permit per chunk of batch positions probed at once, all batches
    /// together ([`batch`]): half the cores, so that batches never hold
    /// them all.
    pub batch_lanes: Arc<Semaphore>,
    /// `/standard`'s answers, kept by position ([`answers`]).
    pub answers: answers::AnswerCache,
    /// The explorer indexes of `--lichess` and `--masters`.
    pub lichess: crate::explorer::query::Shards,
    pub masters: crate::explorer::query::Shards,
    pub searches: usize,
    pub search_hash_mb: usize,
    pub search_seconds: u64,
    /// The site's folder, absolute, links resolved (`--web`).
    pub web: Option<PathBuf>,
}

impl State {
    /// Opens everything `options` names; fails on the first unreadable file.
    pub fn open(options: &ServeOptions) -> Result<State, ServeError> {
        let web = match &options.web {
            Some(path) => Some(web::open_root(path).map_err(|reason| ServeError::Web { path: path.clone(), reason })?),
            None => None,
        };
        let mut books: Vec<NamedBook> = Vec::new();
        for path in &options.books {
            let name = book_name(path);
            if books.iter().any(|b| b.name == name) {
                return Err(ServeError::DuplicateBook(name));
            }
            let b = play::open(path).map_err(|source| ServeError::Book { path: path.clone(), source })?;
            // The learn side file as play reads it (none: an empty table);
            // one that cannot be read is reported and left out, the book
            // still serves.
            let side = learn::side_path(path);
            let learn = match learn::LearnTable::load(&side) {
                Ok(t) => (!t.entries.is_empty()).then_some(t),
                Err(e) => {
                    tracing::warn!("{}: not used: {e}", side.display());
                    None
                }
            };
            books.push(NamedBook { name, book: b, learn });
        }
        let tb = match options.syzygy.as_deref() {
            Some(dirs) => {
                let (tables, issues) = Tablebases::new(dirs);
                for issue in issues {
                    tracing::warn!("{issue}");
                }
                tables
            }
            None => Tablebases::empty(),
        };
        let saved = match &options.hash_file {
            Some(path) => {
                // Twice the file's size: room for every entry it holds.
                let bytes = std::fs::metadata(path).at(path)?.len();
                let tt = TranspositionTable::new(usize::try_from(bytes >> 19).unwrap_or(usize::MAX).max(1));
                let (header, _) = crate::tt::persist::load(&tt, path)
                    .map_err(|source| ServeError::HashFile { path: path.clone(), source })?;
                Some((tt, header))
            }
            None => None,
        };
        let open = |paths: &[PathBuf]| {
            crate::explorer::query::Shards::open(paths).map_err(|(path, source)| ServeError::Explorer { path, source })
        };
        Ok(State {
            lichess: open(&options.lichess)?,
            masters: open(&options.masters)?,
            books,
            tb: Arc::new(tb),
            tb_loaded: options.syzygy.is_some(),
            saved,
            slots: Arc::new(Semaphore::new(options.searches.max(1))),
            jobs: Arc::new(Semaphore::new(options.limits.blocking_jobs.max(1))),
            batch_lanes: Arc::new(Semaphore::new(batch::lanes())),
            answers: answers::AnswerCache::new(options.tb_cache_bytes),
            searches: options.searches.max(1),
            search_hash_mb: options.search_hash_mb.max(1),
            search_seconds: options.search_seconds.max(1),
            web,
        })
    }
}

/// Runs `job` on tokio's blocking pool once one of the state's job permits
/// is free (waiting without holding an async worker), and gives its result.
pub async fn blocking<T, F>(state: &Arc<State>, job: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&State) -> T + Send + 'static,
{
    let unavailable = |what: String| ApiError { status: StatusCode::SERVICE_UNAVAILABLE, message: what };
    let permit =
        Arc::clone(&state.jobs).acquire_owned().await.map_err(|_| unavailable("the service is stopping".into()))?;
    let state = Arc::clone(state);
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        job(&state)
    })
    .await
    .map_err(|e| ApiError::internal(format!("the lookup failed: {e}")))
}

/// A book's name: its file name (what `book=` chooses).
fn book_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The service's routes over `state`.
pub fn router(state: Arc<State>, limits: &Limits) -> Router {
    let lichess = Router::new()
        .route("/standard", get(lichess::standard).post(batch::standard).layer(batch::body_limit()))
        .route("/standard/mainline", get(lichess::mainline))
        .route("/api/tablebase", get(lichess::standard))
        .route("/api/cloud-eval", get(lichess::cloud_eval))
        .route("/atomic", get(lichess::variant))
        .route("/atomic/mainline", get(lichess::variant))
        .route("/antichess", get(lichess::variant))
        .route("/antichess/mainline", get(lichess::variant))
        .route("/lichess", get(explorer::lichess))
        .route("/masters", get(explorer::masters))
        .route("/master", get(explorer::masters))
        .route("/masters/pgn/{id}", get(explorer::masters_pgn))
        .route("/master/pgn/{id}", get(explorer::masters_pgn))
        .route("/game/export/{id}", get(explorer::lichess_pgn))
        .route("/player", get(explorer::player))
        .layer(middleware::from_fn(any_origin));
    let seconds = limits.request_seconds.max(1);
    Router::new()
        .route("/", get(page))
        .route("/api/info", get(api::info))
        .route("/api/moves", get(api::moves))
        .route("/api/book", get(api::book))
        .route("/api/analysis", get(api::analysis))
        .route("/api/analyse", get(live::analyse))
        .route("/web", get(web::redirect))
        .route("/web/", get(web::index))
        .route("/web/{*path}", get(web::file))
        .merge(lichess)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(move |r, n| time_limit(seconds, r, n)))
        .layer(middleware::from_fn(limit_query))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Serves until the process is stopped; `ready` gets the address bound
/// (port 0 picks a free one).
pub fn run(options: &ServeOptions, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let state = Arc::new(State::open(options)?);
    let limits = options.limits.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(limits.blocking_jobs.max(1) + 16)
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    runtime.block_on(async move {
        let addr = options.listen;
        let listen = |source| ServeError::Listen { addr, source };
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(listen)?;
        ready(listener.local_addr().map_err(listen)?);
        accept_loop(listener, router(state, &limits), &limits).await;
        Ok(())
    })
}

/// Accepts connections, at most `max_connections` open at once, and
/// serves each with HTTP/1.1 under the head size and head time limits.
async fn accept_loop(listener: tokio::net::TcpListener, app: Router, limits: &Limits) {
    let open = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(limits.header_seconds.max(1)))
        .max_header_size(MAX_HEADER_BYTES);
    loop {
        let Ok(permit) = Arc::clone(&open).acquire_owned().await else { return };
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: wait, then go on.
                tracing::warn!("accept: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = http.serve_connection(TokioIo::new(stream), service);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("connection: {e}");
            }
            drop(permit);
        });
    }
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

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError { status: StatusCode::INTERNAL_SERVER_ERROR, message: message.into() }
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
    ApiError { status: StatusCode::METHOD_NOT_ALLOWED, message: "only GET is served (and POST /standard)".into() }
}

/// Refuses long query strings before any handler reads them.
async fn limit_query(request: Request, next: Next) -> Response {
    if request.uri().query().map_or(0, str::len) > MAX_QUERY {
        let message = format!("query longer than {MAX_QUERY} bytes");
        return ApiError { status: StatusCode::URI_TOO_LONG, message }.into_response();
    }
    next.run(request).await
}

/// 503 for a request not answered within `seconds` (a stream, once
/// started, is not cut: the live search ends by its own limit).
async fn time_limit(seconds: u64, request: Request, next: Next) -> Response {
    match tokio::time::timeout(Duration::from_secs(seconds), next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            ApiError { status: StatusCode::SERVICE_UNAVAILABLE, message: format!("not answered within {seconds} s") }
                .into_response()
        }
    }
}

/// `Access-Control-Allow-Origin: *`, as Lichess's services send it.
async fn any_origin(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    response.headers_mut().insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}
