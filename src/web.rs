//! What the browser build offers, in Rust terms: the calls of
//! `web/js/archivist.js` (README.md, "In the browser") before they are turned
//! into bytes across the WebAssembly boundary (`web/src/lib.rs`). Every
//! answer here is the native program's: a probe is `book probe --json`'s
//! object, a conversion `book convert`'s bytes and report, [`bench()`]
//! `archivist bench`'s node count. Native tests hold that.
//!
//! | call | answer |
//! |---|---|
//! | [`WebBook::open`] | a book told by content as [`crate::book::play::open`] tells a file's (and the old `openingBook.json`) |
//! | [`WebBook::probe`] | Polyglot, YACB, ABK: [`report::report`]'s object (`moves: []` where the book has nothing); SBOB, JSON, old JSON: `{fen, moves}`, the position's entry of `book convert --to json`'s output, or `None` |
//! | [`convert`] | the bytes `book convert --to TO` writes and its report line (without the paths) |
//! | [`search`] | one thread, a fresh table of the default `Hash` size, the built-in network: `{bestmove, depth, nodes, score, pv}` |
//! | [`bench()`] | the `bench` node count |
//! | [`moves`] | the legal moves of a position with their SAN and the FEN after each (for the page's board) |
//!
//! An SBOB book is probed in place over its bytes
//! ([`crate::book::format::sbob::SbobFile::lookup`]).

use crate::board::Board;
use crate::book::format::json::{self, JsonMove, JsonPosition};
use crate::book::format::sbob::{self, SbobFile};
use crate::book::play::report;
use crate::book::play::{format_of_bytes, open_bytes, Book, BookError, BookFormat};
use crate::book::tools::convert::{convert_book, ConvertError, Names};
use crate::search::{Limits, Score, SearchConfig, SearchEvent, Searcher};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// Why a call failed: the native program's message.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WebError {
    #[error(transparent)]
    Book(#[from] BookError),
    #[error(transparent)]
    Convert(#[from] ConvertError),
    #[error("bad FEN '{fen}': {reason}")]
    Fen { fen: String, reason: String },
    #[error("{0}")]
    Usage(String),
}

/// An opened book, kept as the browser probes it.
pub enum WebBook {
    /// Polyglot, YACB and ABK: played books, probed as `book probe` does.
    Played(Book),
    /// SBOB: the validated file, probed in place.
    Sbob(SbobFile),
    /// SBOB's JSON form (or the old `openingBook.json`, read into it): its
    /// positions by [`sbob::position_key`].
    Json { format: BookFormat, positions: Vec<JsonPosition>, by_key: HashMap<String, usize> },
}

/// A probe's answer for SBOB and JSON books: the position's entry.
#[derive(Debug, Serialize)]
pub struct EntryAnswer<'a> {
    pub fen: &'a str,
    pub moves: &'a [JsonMove],
}

impl WebBook {
    /// Validates `bytes` in full, the format told by content, or by `name`
    /// (the file's name) where native tells it by name: an ABK book
    /// without Arena's signature.
    pub fn open(bytes: Vec<u8>, name: Option<&str>) -> Result<WebBook, WebError> {
        let name = name.map(Path::new);
        if format_of_bytes(&bytes, name) == BookFormat::Sbob {
            return Ok(WebBook::Sbob(SbobFile::from_bytes(bytes).map_err(BookError::from)?));
        }
        Ok(match open_bytes(bytes, name)? {
            Book::Json(j) => WebBook::json(BookFormat::Json, j.positions),
            Book::LegacyJson(j, _) => WebBook::json(BookFormat::LegacyJson, j.positions),
            book => WebBook::Played(book),
        })
    }

    fn json(format: BookFormat, positions: Vec<JsonPosition>) -> WebBook {
        let mut by_key = HashMap::with_capacity(positions.len());
        for (i, p) in positions.iter().enumerate() {
            by_key.entry(sbob::position_key(&p.fen)).or_insert(i);
        }
        WebBook::Json { format, positions, by_key }
    }

    /// The format's name: `polyglot`, `yacb`, `abk`, `sbob`, `json`,
    /// `legacy-json`.
    pub fn format(&self) -> BookFormat {
        match self {
            WebBook::Played(b) => b.format(),
            WebBook::Sbob(_) => BookFormat::Sbob,
            WebBook::Json { format, .. } => *format,
        }
    }

    /// What the book says about `fen`, as JSON text (see the module table);
    /// `None` where an SBOB or JSON book does not hold the position.
    pub fn probe(&self, fen: &str) -> Result<Option<String>, WebError> {
        match self {
            WebBook::Played(book) => {
                let mut board = parse_fen(fen)?;
                let out = report::report(book, &mut board, None).map_err(|e| WebError::Usage(e.to_string()))?;
                Ok(Some(text(&out)))
            }
            WebBook::Sbob(file) => Ok(file.lookup(fen).map(|p| {
                let p = json::position_from_sbob(&p);
                text(&EntryAnswer { fen: &p.fen, moves: &p.moves })
            })),
            WebBook::Json { positions, by_key, .. } => Ok(by_key.get(&sbob::position_key(fen)).map(|&i| {
                let p = &positions[i];
                text(&EntryAnswer { fen: &p.fen, moves: &p.moves })
            })),
        }
    }
}

/// JSON text of an answer: plain structs of strings and numbers, which
/// always serialise.
fn text<T: Serialize>(answer: &T) -> String {
    serde_json::to_string(answer).unwrap_or_default()
}

fn parse_fen(fen: &str) -> Result<Board, WebError> {
    Board::from_fen(fen, false).map_err(|e| WebError::Fen { fen: fen.to_string(), reason: e.to_string() })
}

/// The format a conversion's `to` names: `sbob`, `json`, `polyglot`, `yacb`.
pub fn target_format(to: &str) -> Result<BookFormat, WebError> {
    match to {
        "sbob" => Ok(BookFormat::Sbob),
        "json" => Ok(BookFormat::Json),
        "polyglot" => Ok(BookFormat::Polyglot),
        "yacb" => Ok(BookFormat::Yacb),
        other => Err(WebError::Usage(format!("cannot convert to '{other}': sbob, json, polyglot or yacb"))),
    }
}

/// `book convert --to TO` on a book image: the bytes it writes and its
/// report line as it prints it after the paths (`FROM -> TO: …`). `name`
/// is the input's file name, as for [`WebBook::open`].
pub fn convert(bytes: Vec<u8>, to: &str, name: Option<&str>) -> Result<(Vec<u8>, String), WebError> {
    let to = target_format(to)?;
    let book = open_bytes(bytes, name.map(Path::new))?;
    let names = Names { input: Path::new("input"), output: Path::new("output") };
    let (out, report) = convert_book(book, to, &[], names)?;
    let from = report.from.map_or_else(|| "?".to_string(), |f| f.to_string());
    Ok((out, format!("{from} -> {to}: {report}")))
}

/// How long a browser search runs: exactly one of the three.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchLimit {
    Depth(i32),
    MoveTime(u64),
    Nodes(u64),
}

/// A score from the side to move's view, as JSON has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WebScore {
    Cp(i32),
    Mate(i32),
}

impl From<Score> for WebScore {
    fn from(s: Score) -> WebScore {
        match s {
            Score::Cp(cp) => WebScore::Cp(cp),
            Score::Mate(n) => WebScore::Mate(n),
        }
    }
}

/// One completed iteration, or the search's answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SearchAnswer {
    pub bestmove: Option<String>,
    pub depth: i32,
    pub nodes: u64,
    pub score: WebScore,
    pub pv: Vec<String>,
}

/// Searches `fen` on this thread with a fresh table of the engine's
/// default `Hash` size and the built-in network; `info` gets each
/// completed iteration (its `bestmove` the line's first move).
pub fn search(
    fen: &str,
    limit: SearchLimit,
    info: impl Fn(&SearchAnswer) + Send + Sync + 'static,
) -> Result<SearchAnswer, WebError> {
    let board = parse_fen(fen)?;
    let limits = match limit {
        SearchLimit::Depth(d) => Limits { depth: Some(d.clamp(1, 64)), ..Limits::default() },
        SearchLimit::MoveTime(ms) => Limits { movetime_ms: Some(ms.max(1)), ..Limits::default() },
        SearchLimit::Nodes(n) => Limits { nodes: Some(n.max(1)), ..Limits::default() },
    };
    let hash_mb = crate::engine::options::Options::default().hash_mb;
    let mut searcher = Searcher::new(hash_mb, 1);
    let control = searcher.control(false);
    let chess960 = board.is_chess960();
    let uci = move |m| crate::board::notation::uci_string(m, chess960);
    let reporter: crate::search::Reporter = Arc::new(move |event| {
        if let SearchEvent::Info(line) = event {
            if line.bound.is_none() {
                let pv: Vec<String> = line.pv.iter().map(|&m| uci(m)).collect();
                let answer = SearchAnswer {
                    bestmove: pv.first().cloned(),
                    depth: line.depth,
                    nodes: line.nodes,
                    score: line.score.into(),
                    pv,
                };
                info(&answer);
            }
        }
    });
    let out = searcher.search(&board, &limits, &SearchConfig::default(), &control, Some(&reporter));
    let Some(rm) = out.root_moves.first().filter(|_| !out.best.is_none()) else {
        // No legal move: checkmate (mate 0) or stalemate (0), at depth 1,
        // as the engine's own `info` line says.
        let score = if board.in_check() { WebScore::Mate(0) } else { WebScore::Cp(0) };
        return Ok(SearchAnswer { bestmove: None, depth: out.depth.max(1), nodes: out.nodes, score, pv: Vec::new() });
    };
    let pv = rm.pv.iter().map(|&m| uci(m)).collect();
    let score = Score::from_value(out.score).into();
    Ok(SearchAnswer { bestmove: Some(uci(out.best)), depth: out.depth, nodes: out.nodes, score, pv })
}

/// A legal move of a position, for a page that plays on a board.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LegalMove {
    pub uci: String,
    pub san: String,
    /// The position after the move.
    pub fen: String,
}

/// The legal moves of `fen`, in the move generator's order.
pub fn moves(fen: &str) -> Result<Vec<LegalMove>, WebError> {
    let mut board = parse_fen(fen)?;
    let legal = board.legal_moves();
    let mut out = Vec::with_capacity(legal.len());
    for m in legal.iter() {
        let (uci, san) = (board.move_to_uci(m), board.move_to_san(m));
        board.make_move(m);
        out.push(LegalMove { uci, san, fen: board.fen() });
        board.unmake_move();
    }
    Ok(out)
}

/// `archivist bench`'s node count (the default depth, every position).
pub fn bench() -> u64 {
    let b = crate::bench::run_with(
        crate::bench::DEFAULT_DEPTH,
        1,
        16,
        crate::bench::POSITIONS.len(),
        SearchConfig::default(),
        |_| {},
    );
    b.nodes
}

#[cfg(test)]
mod tests;
