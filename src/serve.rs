//! `archivist serve`: one local HTTP service that shows a user's own
//! books, tablebases and saved analysis side by side, by position, in a
//! browser, with nothing fetched from outside (axum on tokio, JSON with
//! serde).
//!
//! The routes, each with what it answers, are [`ROUTES`]: the router is
//! checked against it, and so are README.md's route tables. Lichess's
//! tablebase and cloud evaluation ([`lichess`], [`batch`] for `POST
//! /standard`), its opening explorer ([`explorer`]), the page's JSON
//! ([`api`], [`live`]) and the browser build's site ([`web`]).
//!
//! Safe by default: it listens on 127.0.0.1 unless told otherwise; no file
//! path comes from a request (books are named on the command line and
//! chosen by name) but the site's, which stays inside its folder ([`web`]);
//! queries longer than [`MAX_QUERY`] bytes and request bodies longer than
//! [`MAX_BODY`] are refused; bad FENs and unknown books
//! get a 4xx with `{"error": …}`, never a panic: every failure is one kind
//! of [`ApiError`], which chooses its status. Books, tables and the
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
mod error;
mod explorer;
mod lenient;
pub mod lichess;
mod live;
pub mod web;

pub use error::ApiError;

use crate::book::format::learn;
use crate::book::play::{self, Book};
use crate::codec::{IoAt, PathIoError};
use crate::tb::Tablebases;
use crate::tt::TranspositionTable;
use axum::extract::{DefaultBodyLimit, Request};
use axum::handler::Handler;
use axum::http::header::{HeaderValue, ACCESS_CONTROL_ALLOW_ORIGIN};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use axum::Router;
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
/// MB of explorer answers kept unless told otherwise (`--explorer-cache-mb`):
/// the 40,000 answers lila-openingexplorer keeps, at 1.8 kB an answer with
/// its key (`/lichess`'s mean over the bench's positions and filters).
pub const EXPLORER_CACHE_MB: usize = 72;
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
    /// Bytes of `/lichess` and `/masters` answers kept ([`explorer`]; 0
    /// keeps none).
    pub explorer_cache_bytes: usize,
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
    pub answers: answers::AnswerCache<answers::AnswerKey>,
    /// `/lichess`'s and `/masters`'s answers, kept by typed query
    /// ([`explorer`]).
    pub explorer_answers: answers::AnswerCache<explorer::ExplorerKey>,
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
            explorer_answers: answers::AnswerCache::new(options.explorer_cache_bytes),
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
    let permit = Arc::clone(&state.jobs).acquire_owned().await.map_err(|_| ApiError::Stopping)?;
    let state = Arc::clone(state);
    Ok(tokio::task::spawn_blocking(move || {
        let _permit = permit;
        job(&state)
    })
    .await?)
}

/// A book's name: its file name (what `book=` chooses).
fn book_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// Every route the service answers, written once: method, path (axum's
/// syntax) and what it answers. [`router`] is checked against it, and so
/// are README.md's route tables (the tests below).
pub const ROUTES: &[(&str, &str, &str)] = &[
    ("GET", "/", "the page (`page.html`): board, FEN input, moves, SAN move list, the panels"),
    ("GET", "/api/info", "what was loaded: books, tables, the saved table, explorer indexes"),
    ("GET", "/api/moves", "the legal moves: `{fen, check, moves: [{uci, san, fen}]}` (the page's rules)"),
    ("GET", "/api/book", "the moves each book offers, with everything its format knows (`api::book`)"),
    ("GET", "/api/analysis", "what the loaded SFTT holds: depth, bound, score and the line found by walking the table"),
    ("GET", "/api/analyse", "a live search streamed as server-sent events (`live`)"),
    ("GET", "/web", "a redirect to `/web/`"),
    ("GET", "/web/", "the static site's index (`--web DIR`; `web`)"),
    ("GET", "/web/{*path}", "a file of the static site, the browser build (`--web DIR`; `web`)"),
    ("GET", "/standard", "Lichess's tablebase API, exactly (`lichess`)"),
    ("POST", "/standard", "a FEN a line: a `/standard` answer a line, NDJSON or CBOR (`batch`)"),
    ("GET", "/standard/mainline", "Lichess's tablebase mainline"),
    ("GET", "/api/tablebase", "`/standard`"),
    ("GET", "/api/cloud-eval", "Lichess's cloud evaluation, from the saved table (`lichess::cloud_eval`)"),
    ("GET", "/atomic", "400: variants are not served"),
    ("GET", "/atomic/mainline", "400: variants are not served"),
    ("GET", "/antichess", "400: variants are not served"),
    ("GET", "/antichess/mainline", "400: variants are not served"),
    ("GET", "/lichess", "Lichess's opening explorer over the `--lichess` indexes (`explorer`)"),
    ("GET", "/masters", "Lichess's masters database over the `--masters` indexes (`explorer`)"),
    ("GET", "/master", "`/masters`"),
    ("GET", "/masters/pgn/{id}", "a game of the `--masters` indexes as PGN"),
    ("GET", "/master/pgn/{id}", "`/masters/pgn/{id}`"),
    ("GET", "/game/export/{id}", "a game of the `--lichess` indexes as PGN"),
    ("GET", "/player", "a player's games through a position, one NDJSON line (`explorer`)"),
];

/// A router that notes the method and path of each route it is given, for
/// the check against [`ROUTES`].
struct Routes {
    router: Router<Arc<State>>,
    served: Vec<(&'static str, &'static str)>,
}

impl Routes {
    fn new() -> Routes {
        Routes { router: Router::new(), served: Vec::new() }
    }

    /// `path` answered by `handler` for `methods` (which `handler` serves).
    fn route(mut self, methods: &[&'static str], path: &'static str, handler: MethodRouter<Arc<State>>) -> Routes {
        self.served.extend(methods.iter().map(|&m| (m, path)));
        self.router = self.router.route(path, handler);
        self
    }

    /// `path` answered by `handler` for GET (and so HEAD) only.
    fn get<H: Handler<T, Arc<State>>, T: 'static>(self, path: &'static str, handler: H) -> Routes {
        self.route(&["GET"], path, get(handler))
    }
}

/// Lichess's routes (each answer with `Access-Control-Allow-Origin: *`).
fn lichess_routes() -> Routes {
    Routes::new()
        .route(&["GET", "POST"], "/standard", get(lichess::standard).post(batch::standard).layer(batch::body_limit()))
        .get("/standard/mainline", lichess::mainline)
        .get("/api/tablebase", lichess::standard)
        .get("/api/cloud-eval", lichess::cloud_eval)
        .get("/atomic", lichess::variant)
        .get("/atomic/mainline", lichess::variant)
        .get("/antichess", lichess::variant)
        .get("/antichess/mainline", lichess::variant)
        .get("/lichess", explorer::lichess)
        .get("/masters", explorer::masters)
        .get("/master", explorer::masters)
        .get("/masters/pgn/{id}", explorer::masters_pgn)
        .get("/master/pgn/{id}", explorer::masters_pgn)
        .get("/game/export/{id}", explorer::lichess_pgn)
        .get("/player", explorer::player)
}

/// The page's own routes and the static site's.
fn own_routes() -> Routes {
    Routes::new()
        .get("/", page)
        .get("/api/info", api::info)
        .get("/api/moves", api::moves)
        .get("/api/book", api::book)
        .get("/api/analysis", api::analysis)
        .get("/api/analyse", live::analyse)
        .get("/web", web::redirect)
        .get("/web/", web::index)
        .get("/web/{*path}", web::file)
}

/// The service's routes ([`ROUTES`]) over `state`.
pub fn router(state: Arc<State>, limits: &Limits) -> Router {
    let lichess = lichess_routes().router.layer(middleware::from_fn(any_origin));
    let seconds = limits.request_seconds.max(1);
    own_routes()
        .router
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

async fn not_found() -> ApiError {
    ApiError::NotFound("no such route")
}

async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}

/// Refuses long query strings before any handler reads them.
async fn limit_query(request: Request, next: Next) -> Response {
    if request.uri().query().map_or(0, str::len) > MAX_QUERY {
        return ApiError::QueryTooLong(MAX_QUERY).into_response();
    }
    next.run(request).await
}

/// 503 for a request not answered within `seconds` (a stream, once
/// started, is not cut: the live search ends by its own limit).
async fn time_limit(seconds: u64, request: Request, next: Next) -> Response {
    match tokio::time::timeout(Duration::from_secs(seconds), next.run(request)).await {
        Ok(response) => response,
        Err(_) => ApiError::Timeout(seconds).into_response(),
    }
}

/// `Access-Control-Allow-Origin: *`, as Lichess's services send it.
async fn any_origin(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    response.headers_mut().insert(ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    response
}

#[cfg(test)]
mod tests {
    use super::{lichess_routes, own_routes, ROUTES};
    use std::collections::BTreeSet;

    type Set = BTreeSet<(String, String)>;

    fn table() -> Set {
        let set: Set = ROUTES.iter().map(|&(m, p, _)| (m.to_string(), p.to_string())).collect();
        assert_eq!(set.len(), ROUTES.len(), "a route twice in ROUTES");
        set
    }

    #[test]
    fn the_router_serves_exactly_the_table() {
        let served: Vec<_> = lichess_routes().served.into_iter().chain(own_routes().served).collect();
        let set: Set = served.iter().map(|&(m, p)| (m.to_string(), p.to_string())).collect();
        assert_eq!(set.len(), served.len(), "a route routed twice");
        assert_eq!(set, table());
    }

    /// The routes of README.md's route tables: in each row whose first
    /// cell starts with `` `GET /`` or `` `POST /``, every code span of
    /// that cell that is a path (the method carried over from the span
    /// before), without its query.
    fn readme_routes(readme: &str) -> Set {
        let mut out = Set::new();
        for line in readme.lines() {
            let Some(cell) = line.strip_prefix("| `").and_then(|l| l.split(" | ").next()) else { continue };
            if !(cell.starts_with("GET /") || cell.starts_with("POST /")) {
                continue;
            }
            let mut method = "";
            for span in format!("`{cell}").split('`').skip(1).step_by(2) {
                let path = match span.split_once(' ') {
                    Some((m @ ("GET" | "POST"), path)) => {
                        method = m;
                        path
                    }
                    _ => span,
                };
                if path.starts_with('/') {
                    out.insert((method.to_string(), path.split('?').next().unwrap_or(path).to_string()));
                }
            }
        }
        out
    }

    #[test]
    fn the_readme_documents_exactly_the_table() {
        let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));
        assert_eq!(readme_routes(readme), table());
    }

    #[test]
    fn readme_rows_are_read_as_routes() {
        let rows = "| `GET /a?fen=` (also `/b`), `/c/{id}` | x `/not` |\n| `POST /a` | y |\n| `--opt` | `/z` |";
        let want: Set = [("GET", "/a"), ("GET", "/b"), ("GET", "/c/{id}"), ("POST", "/a")]
            .iter()
            .map(|&(m, p)| (m.to_string(), p.to_string()))
            .collect();
        assert_eq!(readme_routes(rows), want);
    }
}
