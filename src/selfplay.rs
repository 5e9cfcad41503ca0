//! Self-play data generation: game threads play independent games against
//! themselves and one writer appends them to a compressed-board game record
//! file ([`crate::records`]).
//!
//! Invariants:
//! * Only whole games reach the file: each game is encoded into a buffer by
//!   its thread, then written and flushed by the single writer. When the
//!   stop flag is raised (Ctrl-C, SIGTERM) the game threads drop their
//!   unfinished games, the writer writes what was finished and returns.
//! * Game `i` depends only on the settings, the seed and `i`: its opening
//!   comes from `game_rng(seed, i)` and the search starts each game with
//!   a cleared table and history. With one thread the file's bytes are the
//!   same run after run; with more, the same games come out in another order.
//! * An existing output file is refused unless appending; appending checks
//!   the file's framing first. A game cut short at the end of the file (a
//!   crash mid-write: the tail is a valid beginning of a game) is removed
//!   before appending; any other damage refuses the file. A failed write
//!   truncates the file back to its last whole game.
//! * Every run is logged beside the file ([`runlog`], `<out>.runs.json`):
//!   seed, game indices, settings, counts. A run's first game index is the
//!   next unused index of its seed in the log (0 for a new seed; for a file
//!   without a log, the number of games in it), so no game repeats.
//!
//! Hooks: an opening book plugs in as an [`OpeningSource`] (see
//! [`openings::BookWalk`] and [`crate::book::play::offer`]) through [`open_book`],
//! Syzygy tablebases as an [`Adjudicator`] through [`open_tablebases`].

pub mod adjudication;
pub mod config;
pub mod game;
pub mod genfens;
pub mod openings;
pub mod output;
pub mod progress;
pub mod runlog;

pub use adjudication::{Adjudicator, Ending, ScoreRules};
pub use openings::{OpeningError, OpeningSource};

use crate::codec::PathIoError;
use crate::records::{GameResult, RecordError};
use crate::search::Limits;
use game::{FinishedGame, Player, StopSlot};
use output::{LogEntry, Output};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SelfplayError {
    #[error("{0} exists; use --append to add games to it")]
    OutputExists(PathBuf),
    #[error("{path}: cannot append: {source}")]
    BadExistingFile { path: PathBuf, source: RecordError },
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Openings(#[from] OpeningError),
    #[error("tablebases: {0}")]
    Tablebases(String),
    #[error(transparent)]
    RunLog(#[from] runlog::RunLogError),
}

/// The search budget of every move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchLimit {
    Nodes(u64),
    Depth(i32),
}

/// A resolved self-play run (see [`config::Preset`] for the defaults).
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub out: PathBuf,
    pub append: bool,
    pub games: u64,
    /// Play until the file holds this many games instead of `games` more.
    pub fill: Option<u64>,
    /// The hard limit of every search.
    pub limit: SearchLimit,
    /// Soft node limit: no new iteration once the nodes pass it.
    pub soft_nodes: Option<u64>,
    /// Write no visit distributions (count byte 0: 5 bytes a position).
    pub value_only: bool,
    /// Game threads; each search is single-threaded.
    pub threads: usize,
    /// Transposition table per game thread.
    pub hash_mb: usize,
    pub seed: u64,
    /// Random legal plies played after the opening source's position.
    pub random_plies: u32,
    pub chess960: bool,
    /// Recorded plies after which a game is a draw.
    pub max_plies: u32,
    /// An opening whose first search scores beyond ± this is discarded.
    pub opening_cp_limit: i32,
    pub score_rules: ScoreRules,
    pub progress_interval: Duration,
    /// The command line that started the run, for the run log.
    pub command: Option<String>,
}

impl Settings {
    pub fn limits(&self) -> Limits {
        match self.limit {
            SearchLimit::Nodes(n) => Limits { nodes: Some(n), soft_nodes: self.soft_nodes, ..Limits::default() },
            SearchLimit::Depth(d) => Limits { depth: Some(d), ..Limits::default() },
        }
    }

    /// The search limit in words: `5000 nodes`, `depth 8` or
    /// `5000 soft nodes (hard 40000)`.
    pub fn limit_text(&self) -> String {
        match (self.limit, self.soft_nodes) {
            (SearchLimit::Nodes(n), Some(s)) => format!("{s} soft nodes (hard {n})"),
            (SearchLimit::Nodes(n), None) => format!("{n} nodes"),
            (SearchLimit::Depth(d), _) => format!("depth {d}"),
        }
    }
}

/// Optional sources of knowledge from other modules.
#[derive(Default)]
pub struct Hooks {
    pub openings: Option<Box<dyn OpeningSource>>,
    pub adjudicator: Option<Box<dyn Adjudicator>>,
    /// The network the players evaluate with, and its description for the
    /// run log (`None`: the hand-written evaluation).
    pub net: Option<(std::sync::Arc<crate::nnue::Network>, String)>,
}

/// A book that [`crate::book::play::Book::playable`] accepted.
struct PlayableBook(crate::book::play::Book);

impl crate::book::play::offer::Offers for PlayableBook {
    fn offers(&self, board: &mut crate::board::Board) -> Vec<crate::book::play::offer::Offer> {
        self.0.playable().map_or_else(|_| Vec::new(), |b| b.offers(board))
    }
}

/// Opens a playable book (through [`crate::book::play::open()`]) as an opening
/// source that walks the book's offers from the start position.
pub fn open_book(path: &Path, chess960: bool, max_plies: u32) -> Result<Box<dyn OpeningSource>, OpeningError> {
    let path_name = path.display().to_string();
    let book =
        crate::book::play::open(path).map_err(|source| OpeningError::Book { path: path_name.clone(), source })?;
    if let Err(source) = book.playable() {
        return Err(OpeningError::NotPlayable { path: path_name, source });
    }
    let name = format!("{} book {path_name}", book.format().title());
    Ok(Box::new(openings::BookWalk { book: PlayableBook(book), name, max_plies, chess960 }))
}

/// Tablebase adjudication: a WDL probe when the tables cover the position.
struct TbAdjudicator(crate::tb::Tablebases, String);

impl Adjudicator for TbAdjudicator {
    fn adjudicate(&self, board: &crate::board::Board) -> Option<GameResult> {
        if board.castling_rights() != 0 || board.piece_count() > self.0.max_pieces() {
            return None;
        }
        let stm = board.side_to_move();
        Some(match self.0.probe_wdl(board).ok()? {
            crate::tb::Wdl::Win => GameResult::win_for(stm),
            crate::tb::Wdl::Loss => GameResult::win_for(!stm),
            _ => GameResult::Draw,
        })
    }
    fn describe(&self) -> String {
        format!("Syzygy tablebases ({}, {} tables)", self.1, self.0.table_count())
    }
}

/// Opens Syzygy tablebases (directories separated by `:` or `;`, see [`crate::tb::split_dirs`]) as an adjudicator.
pub fn open_tablebases(dirs: &str) -> Result<Box<dyn Adjudicator>, SelfplayError> {
    let (tb, _issues) = crate::tb::Tablebases::new(dirs);
    if tb.table_count() == 0 {
        return Err(SelfplayError::Tablebases(format!("no tables found in {dirs}")));
    }
    Ok(Box::new(TbAdjudicator(tb, dirs.to_string())))
}

/// Counters of a run so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub games_done: u64,
    pub games_target: u64,
    pub positions: u64,
    /// White wins, draws, black wins.
    pub results: [u64; 3],
    pub elapsed: Duration,
}

/// What a finished (or interrupted) run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub snapshot: Snapshot,
    pub endings: BTreeMap<Ending, u64>,
    /// Games given up because no opening passed the balance check.
    pub skipped: u64,
    /// Share of the game threads' time spent outside the search.
    pub outside_search: f64,
    pub interrupted: bool,
    pub seed: u64,
    /// Games already in the file before the run (when appending).
    pub existing_games: u64,
    /// The run's first game index.
    pub first_index: u64,
    /// Bytes of a game cut short removed from the end of the file first.
    pub torn_bytes_removed: u64,
    pub out: PathBuf,
    /// The run log written beside the output.
    pub log: PathBuf,
}

impl Summary {
    /// The one-line summary printed at the end of a run.
    pub fn line(&self) -> String {
        let s = &self.snapshot;
        let secs = s.elapsed.as_secs_f64();
        format!(
            "selfplay{}: {} games (white {}, draw {}, black {}), {} positions in {:.1} s, {:.0} positions/s, \
             {:.2}% of the time outside the search, seed {}, written to {}",
            if self.interrupted { " (interrupted)" } else { "" },
            s.games_done,
            s.results[0],
            s.results[1],
            s.results[2],
            s.positions,
            secs,
            s.positions as f64 / secs.max(1e-9),
            100.0 * self.outside_search,
            self.seed,
            self.out.display()
        )
    }

    /// Where the run was logged and which game indices it used, e.g.
    /// `run log: data.bin.runs.json (seed 7, game indices from 0; 0 games were already in the file)`.
    pub fn log_line(&self) -> String {
        if self.snapshot.games_target == 0 {
            return format!("nothing to play: {} holds {} games", self.out.display(), self.existing_games);
        }
        let torn = if self.torn_bytes_removed > 0 {
            format!("; removed a game cut short ({} bytes) from the end of the file first", self.torn_bytes_removed)
        } else {
            String::new()
        };
        format!(
            "run log: {} (seed {}, game indices from {}; {} games were already in the file{torn})",
            self.log.display(),
            self.seed,
            self.first_index,
            self.existing_games
        )
    }

    /// How the games ended, e.g. `endings: mate 10, repetition 3`.
    pub fn endings_line(&self) -> String {
        let parts: Vec<String> = self.endings.iter().map(|(e, n)| format!("{} {n}", e.name())).collect();
        let skipped =
            if self.skipped > 0 { format!("; skipped {} (no balanced opening)", self.skipped) } else { String::new() };
        format!("endings: {}{skipped}", if parts.is_empty() { "none".to_string() } else { parts.join(", ") })
    }
}

/// Time accounting of one game thread.
#[derive(Clone, Copy, Debug, Default)]
struct ThreadTimes {
    search: Duration,
    total: Duration,
    skipped: u64,
}

/// Plays the run. `stop` ends it early (all finished games are kept);
/// `progress` sees a snapshot after every game and about every 200 ms.
/// The run is logged in the run log beside the output before the first
/// game and when it ends.
pub fn run(
    settings: &Settings,
    hooks: &Hooks,
    stop: &AtomicBool,
    progress: &mut dyn progress::Progress,
) -> Result<Summary, SelfplayError> {
    let mut out = Output::open(&settings.out, settings.append)?;
    let games = match settings.fill {
        Some(total) => total.saturating_sub(out.games_before),
        None => settings.games,
    };
    let mut summary = Summary {
        snapshot: Snapshot { games_target: games, ..Snapshot::default() },
        seed: settings.seed,
        existing_games: out.games_before,
        torn_bytes_removed: out.torn_bytes_removed,
        out: settings.out.clone(),
        log: runlog::path_for(&settings.out),
        ..Summary::default()
    };
    if games == 0 {
        out.remove_torn_game()?;
        return Ok(summary);
    }
    // The log is read (and may refuse the run) before the file changes.
    let mut log = LogEntry::start(settings, hooks, &out, games)?;
    out.remove_torn_game()?;
    summary.first_index = log.first_index();
    let played = play_games(settings, hooks, stop, progress, &mut out, &mut summary);
    let (status, result) = match played.write_error {
        Some(source) => (runlog::Status::Failed, Err(SelfplayError::Io(PathIoError::new(&settings.out, source)))),
        None => match out.sync() {
            Ok(()) if summary.interrupted => (runlog::Status::Interrupted, Ok(())),
            Ok(()) => (runlog::Status::Finished, Ok(())),
            Err(e) => (runlog::Status::Failed, Err(e)),
        },
    };
    let search: f64 = played.times.iter().map(|t| t.search.as_secs_f64()).sum();
    let total: f64 = played.times.iter().map(|t| t.total.as_secs_f64()).sum();
    summary.outside_search = if total > 0.0 { (1.0 - search / total).max(0.0) } else { 0.0 };
    summary.skipped = played.times.iter().map(|t| t.skipped).sum();
    let logged = log.finish(&summary, played.end_index, out.bytes, status);
    result?;
    logged?;
    Ok(summary)
}

/// What the game threads and the writer did.
struct Played {
    times: Vec<ThreadTimes>,
    write_error: Option<std::io::Error>,
    /// The first game index not handed out.
    end_index: u64,
}

/// Runs the game threads over the indices `summary.first_index` onwards
/// and writes their games until `summary.snapshot.games_target` are done,
/// the stop flag or a write error.
fn play_games(
    settings: &Settings,
    hooks: &Hooks,
    stop: &AtomicBool,
    progress: &mut dyn progress::Progress,
    out: &mut Output,
    summary: &mut Summary,
) -> Played {
    let threads = settings.threads.max(1);
    let slots: Vec<Arc<StopSlot>> = (0..threads).map(|_| Arc::new(StopSlot::default())).collect();
    let next = AtomicU64::new(summary.first_index);
    let end = summary.first_index.saturating_add(summary.snapshot.games_target);
    let halt = AtomicBool::new(false);
    let (tx, rx) = crossbeam_channel::bounded::<FinishedGame>(threads * 2);
    let start = Instant::now();
    let mut write_error = None;
    let times: Vec<ThreadTimes> = std::thread::scope(|s| {
        let handles: Vec<_> = slots
            .iter()
            .map(|slot| {
                let (tx, slot, next, halt) = (tx.clone(), Arc::clone(slot), &next, &halt);
                s.spawn(move || game_thread(settings, hooks, slot, next, end, halt, tx))
            })
            .collect();
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(game) if write_error.is_none() => match out.write_game(&game.bytes) {
                    Ok(()) => record(summary, &game),
                    Err(e) => write_error = Some(e),
                },
                Ok(_) | Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
            }
            if (stop.load(Relaxed) || write_error.is_some()) && !halt.swap(true, Relaxed) {
                summary.interrupted = true;
                slots.iter().for_each(|s| s.stop());
            }
            summary.snapshot.elapsed = start.elapsed();
            progress.update(&summary.snapshot);
        }
        handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    summary.snapshot.elapsed = start.elapsed();
    progress.finish(&summary.snapshot);
    Played { times, write_error, end_index: next.load(Relaxed).min(end) }
}

fn record(summary: &mut Summary, game: &FinishedGame) {
    let s = &mut summary.snapshot;
    s.games_done += 1;
    s.positions += game.plies as u64;
    s.results[match game.result {
        crate::records::GameResult::WhiteWin => 0,
        crate::records::GameResult::Draw => 1,
        crate::records::GameResult::BlackWin => 2,
    }] += 1;
    *summary.endings.entry(game.ending).or_insert(0) += 1;
}

/// One game thread: takes game indices until `end` or `halt`.
fn game_thread(
    settings: &Settings,
    hooks: &Hooks,
    slot: Arc<StopSlot>,
    next: &AtomicU64,
    end: u64,
    halt: &AtomicBool,
    tx: crossbeam_channel::Sender<FinishedGame>,
) -> ThreadTimes {
    let started = Instant::now();
    let mut player = Player::new(settings.hash_mb, settings.limits(), slot);
    player.set_network(hooks.net.as_ref().map(|(net, _)| std::sync::Arc::clone(net)));
    let mut skipped = 0;
    while !halt.load(Relaxed) {
        let index = next.fetch_add(1, Relaxed);
        if index >= end {
            break;
        }
        match game::play(&mut player, settings, hooks, index, halt) {
            Ok(Some(game)) => {
                if halt.load(Relaxed) || tx.send(game).is_err() {
                    break;
                }
            }
            Ok(None) => skipped += u64::from(!halt.load(Relaxed)),
            Err(e) => tracing::warn!("selfplay game {index} dropped: {e}"),
        }
    }
    ThreadTimes { search: player.search_time, total: started.elapsed(), skipped }
}

#[cfg(test)]
mod tests;
