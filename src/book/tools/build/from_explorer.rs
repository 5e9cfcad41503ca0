//! `book build --from-explorer`: a book from the games of explorer
//! indexes ([`crate::explorer::index`]) instead of PGN, so a
//! repertoire book is made without reading the databases again.
//!
//! The stored games are taken in index order (the shards one after
//! another), those the [`Filter`] admits (speeds, rating groups of the
//! mean rating, months: what the index answers exactly), and each is
//! replayed for its first `max_ply` plies into the same counting events
//! as a PGN game ([`super::games::push_events`]); the rest of the build
//! (spill, count, write) is [`super::build`]'s. On games in which no
//! position repeats, the book equals `book build --max-ply N` on the PGN
//! the index was built from (the index keeps a position once per game,
//! `book build` every time it is reached; and the index holds only the
//! games it kept: 1-0, 0-1, ½-½, standard chess, one copy of each id).
//!
//! Workers decode and replay ranges of games; the events come back in
//! game order ([`crate::ordered`]), so the book does not depend on the
//! number of threads.

use super::budget::Budget;
use super::event::{Buckets, Counting, Event, Grouped};
use super::games::{push_events, GameFacts};
use super::{write_book, BuildError, BuildOptions, Observer, Progress, Rejection, Summary};
use crate::board::{Board, PolyglotBoard};
use crate::codec::PathIoError;
use crate::explorer::index::{Explorer, GameRecord};
use crate::explorer::model::filter::Admitted;
use crate::explorer::query::Filter;
use crate::pgn::ReplayBoard;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Games a worker takes at a time.
const GAMES_PER_JOB: u32 = 4096;

/// An index opened, with its strings.
struct Opened {
    path: PathBuf,
    index: Explorer,
    strings: Vec<String>,
}

/// What a worker makes of a range of games.
struct Chunk {
    grouped: Grouped,
    games: u64,
    kept: u64,
    rejected: [u64; Rejection::ALL.len()],
}

/// Builds the book at `out` from the games of the explorer indexes
/// `indexes` that `filter` admits. `options.filters` must be empty (the
/// caller refuses the filters an index does not answer).
pub fn build_from_explorer(
    indexes: &[PathBuf],
    filter: &Filter,
    out: &Path,
    options: &BuildOptions,
    observer: &mut dyn Observer,
) -> Result<Summary, BuildError> {
    let start = Instant::now();
    let budget = Budget::of(options);
    let counting = options.target.counting();
    let max_ply = options.target.max_ply();
    let mut opened = Vec::with_capacity(indexes.len());
    for path in indexes {
        let failed = |source| BuildError::Explorer { path: path.clone(), source };
        let index = Explorer::open(path).map_err(failed)?;
        if max_ply > usize::from(index.max_ply()) {
            return Err(BuildError::ExplorerPlies { path: path.clone(), indexed: index.max_ply(), asked: max_ply });
        }
        let strings = index.strings().map_err(failed)?;
        opened.push(Opened { path: path.clone(), index, strings });
    }
    let parent = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let temp = crate::codec::TempDir::in_dir(&parent, "archivist-book").map_err(|e| PathIoError::new(&parent, e))?;
    let mut summary = Summary::default();
    let mut buckets = Buckets::new(0, counting.layout(), budget.held, temp.path(), "run".to_string());
    let opened = &opened;
    let produce = |feed: &mut crate::ordered::Feed<(usize, Range<u32>)>| {
        for (i, o) in opened.iter().enumerate() {
            let games = u32::try_from(o.index.games()).unwrap_or(u32::MAX);
            for first in (0..games).step_by(GAMES_PER_JOB as usize) {
                if !feed.send((i, first..games.min(first + GAMES_PER_JOB))) {
                    return;
                }
            }
        }
    };
    let worker = || {
        let mut scratch = (Vec::new(), Vec::new());
        move |(i, games): (usize, Range<u32>), spares: &crate::ordered::Spares<Grouped>| {
            let o = &opened[i];
            let chunk = replay_games(o, games, filter, counting, max_ply, &mut scratch, spares.take());
            chunk.map_err(|source| BuildError::Explorer { path: o.path.clone(), source })
        }
    };
    let mut last_report = Instant::now();
    crate::ordered::run(options.threads.max(1), budget.tokens, produce, worker, |chunk| {
        let chunk = chunk?;
        summary.games += chunk.games;
        summary.kept += chunk.kept;
        summary.events += chunk.grouped.len() as u64;
        for (r, n) in summary.rejected.iter_mut().zip(chunk.rejected) {
            *r += n;
        }
        let written = buckets.push_grouped(chunk.grouped)?;
        if last_report.elapsed().as_millis() >= 200 {
            last_report = Instant::now();
            let seconds = start.elapsed().as_secs_f64();
            observer.progress(&Progress { games: summary.games, text_bytes: 0, source_bytes: 0, seconds });
        }
        Ok::<_, BuildError>(written)
    })?;
    summary.count_seconds = start.elapsed().as_secs_f64();
    write_book(buckets, summary, &budget, options, &temp, out, start)
}

/// The events of games `games` of one index that `filter` admits.
fn replay_games(
    o: &Opened,
    games: Range<u32>,
    filter: &Filter,
    counting: Counting,
    max_ply: usize,
    scratch: &mut (Vec<Event>, Vec<Event>),
    buffers: Option<Grouped>,
) -> Result<Chunk, crate::explorer::index::ExplorerError> {
    let (events, aux) = scratch;
    events.clear();
    let mut chunk =
        Chunk { grouped: buffers.unwrap_or_default(), games: 0, kept: 0, rejected: [0; Rejection::ALL.len()] };
    for i in games {
        let g = o.index.game(i, &o.strings)?;
        chunk.games += 1;
        if let Some(r) = rejection(filter, &g) {
            chunk.rejected[r.index()] += 1;
            continue;
        }
        chunk.kept += 1;
        match counting {
            Counting::Polyglot => game_events(&g, PolyglotBoard::startpos(), counting, max_ply, events),
            Counting::Yacb => game_events(&g, Board::startpos(), counting, max_ply, events),
        }
    }
    chunk.grouped.fill(events, aux, counting.layout());
    Ok(chunk)
}

/// Why `filter` leaves `g` out, as `book build` counts it: its speed (a
/// time control), its rating group (Elo) or its month (date).
fn rejection(filter: &Filter, g: &GameRecord) -> Option<Rejection> {
    let cell = g.cell();
    let only = |f: Filter| !f.admits(cell);
    if only(Filter { speeds: filter.speeds.clone(), ..Filter::default() }) {
        Some(Rejection::TimeControl)
    } else if only(Filter { groups: filter.groups.clone(), ..Filter::default() }) {
        Some(Rejection::Elo)
    } else if !filter.admits(cell) {
        Some(Rejection::Date)
    } else {
        None
    }
}

/// The events of a stored game's first `max_ply` plies, replayed on
/// `board` (which carries the key of the counting).
fn game_events<B: ReplayBoard>(g: &GameRecord, mut board: B, counting: Counting, max_ply: usize, out: &mut Vec<Event>) {
    let white_points = g.outcome.white_points();
    let admitted = Admitted { white_counts: true, black_counts: true, rating: g.mean_rating(), date: g.date };
    let facts = GameFacts::of(white_points, &admitted);
    for &m in g.moves.iter().take(max_ply) {
        push_events(counting, facts, &board, Some(m), out);
        board.replay_move(m);
    }
    if counting == Counting::Yacb {
        push_events(counting, facts, &board, None, out);
    }
}
