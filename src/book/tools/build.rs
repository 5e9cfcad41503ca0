//! `book build` on databases of any size: PGN streamed from files or
//! standard input (plain, gzip, zstd or bzip2, told by content), parsed and
//! replayed on several threads ([`pipeline`]), filtered ([`filter`]), and
//! turned into counting events ([`games`], [`event`]): one a move
//! (Polyglot), or a visit and a move (YACB). The events are held by bucket
//! of keys in input order and written to spill files when they reach the
//! memory budget ([`budget`]), through the program's one spill-and-sort
//! ([`crate::spill`], with the events' [`event::Layout`]); then each
//! bucket is read back and counted alone ([`count`]), several at a time,
//! and the buckets' entries put one after another make a Polyglot book
//! (byte-identical to `polyglot make-book`, see
//! [`crate::book::tools::make_book`]) or a YACB book ([`output`]).
//!
//! Invariants:
//! * A position's events are all in one bucket, in input order, whatever
//!   the number of threads or the memory budget: each position is counted
//!   exactly as one pass over the games counts it, so the output depends
//!   on neither. That includes Polyglot's halving (when a move reaches
//!   16384 plays), which depends on the order of the games.
//! * Buckets hold ranges of keys, in key order: their entries, one after
//!   another, are in key order.
//! * The book is written atomically, and only when every input was read
//!   whole (unless `allow_damaged`); games with illegal moves or bad FENs
//!   are reported and skipped.

mod budget;
mod count;
mod event;
mod from_explorer;
mod games;
mod output;
pub(crate) mod pipeline;

pub use self::from_explorer::build_from_explorer;
pub use crate::explorer::model::filter::{parse_result, rating, Filters, GameTags, Rejection};
pub use crate::explorer::model::parse_day;
pub use crate::pgn::pipeline::{Observer, Progress};

use self::budget::Budget;
use self::count::{CountSpec, Scratch};
use self::event::{Buckets, Counting, BUCKETS};
use self::games::PassSpec;
use self::pipeline::{count_bodies, run_pass, Item};
use crate::book::format::yacb::{self, KeyType};
use crate::book::tools::make_book::MakeBookOptions;
use crate::codec::PathIoError;
use crate::input::InputError;
use crate::pgn::pipeline::Meter;
use crate::spill::SpillError;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;
use thiserror::Error;

/// The book to write.
#[derive(Clone, Debug, PartialEq)]
pub enum Target {
    Polyglot(MakeBookOptions),
    /// Statistical YACB entries; `elo` overrides the games' ratings.
    Yacb {
        max_ply: usize,
        min_game: u32,
        elo: Option<i32>,
    },
}

impl Target {
    /// The plies of each game it counts.
    fn max_ply(&self) -> usize {
        match self {
            Target::Polyglot(o) => o.max_ply,
            Target::Yacb { max_ply, .. } => *max_ply,
        }
    }

    /// What its events count.
    fn counting(&self) -> Counting {
        match self {
            Target::Polyglot(_) => Counting::Polyglot,
            Target::Yacb { .. } => Counting::Yacb,
        }
    }
}

/// Everything `book build` is told.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub target: Target,
    pub filters: Filters,
    pub threads: usize,
    /// Memory budget in MB.
    pub memory_mb: usize,
    /// Where runs go (default: the system's temporary directory).
    pub temp_dir: Option<PathBuf>,
    /// Write the book even when an input was damaged.
    pub allow_damaged: bool,
    /// Tuning: the bytes a counting thread may spend on one bucket
    /// (default: a share of the budget, see [`Budget`]); smaller means
    /// more buckets counted in a map or split again. The output does not
    /// depend on it.
    pub bucket_bytes: Option<usize>,
    /// Tuning: the most runs read at once (default: as many as the
    /// open-file limit and an eighth of the budget allow, see [`Budget`]);
    /// more runs are combined in stages first. The output does not depend
    /// on it.
    pub merge_fan_in: Option<usize>,
}

impl BuildOptions {
    /// No filters, one thread, 1024 MB, the system's temporary directory.
    pub fn new(target: Target) -> BuildOptions {
        BuildOptions {
            target,
            filters: Filters::default(),
            threads: 1,
            memory_mb: 1024,
            temp_dir: None,
            allow_damaged: false,
            bucket_bytes: None,
            merge_fan_in: None,
        }
    }
}

/// Figures of a build.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub games: u64,
    pub kept: u64,
    pub rejected: [u64; Rejection::ALL.len()],
    pub skipped: u64,
    /// Inputs that failed while read, with the error.
    pub damaged: Vec<(String, String)>,
    /// Decompressed PGN bytes and source bytes read.
    pub text_bytes: u64,
    pub source_bytes: u64,
    /// Counting events made, spill files written and the events in them.
    pub events: u64,
    pub runs: usize,
    pub spilled_events: u64,
    /// Buckets whose positions did not fit in memory, split again.
    pub splits: u64,
    pub entries: u64,
    pub seconds: f64,
    /// Of `seconds`: the pass over the games (reading, replaying,
    /// spilling); the rest is counting the buckets and writing the book.
    pub count_seconds: f64,
}

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Spill(#[from] SpillError),
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error("{}", crate::pgn::pipeline::damaged_message(&.summary.damaged, "book"))]
    Damaged { summary: Box<Summary> },
    #[error("the positions of one bucket of keys do not fit in {bytes} bytes even split as far as keys allow; give more memory")]
    Budget { bytes: usize },
    #[error("{}: {source}", .path.display())]
    Explorer { path: PathBuf, source: crate::explorer::index::ExplorerError },
    #[error("{}: the index counts the first {indexed} plies of each game; --max-ply {asked} asks for more", .path.display())]
    ExplorerPlies { path: PathBuf, indexed: u8, asked: usize },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io(PathIoError::new(path, source))
}

/// The peak resident memory of this process in kB (`VmHWM`), where known.
pub fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Builds the book at `out` from `inputs` (`-`: standard input).
pub fn build(
    inputs: &[PathBuf],
    out: &Path,
    options: &BuildOptions,
    observer: &mut dyn Observer,
) -> Result<Summary, BuildError> {
    let start = Instant::now();
    let budget = Budget::of(options);
    let counting = options.target.counting();
    let max_ply = options.target.max_ply();
    let spec = PassSpec {
        inputs,
        counting,
        max_ply,
        filters: &options.filters,
        threads: options.threads,
        batch_bytes: budget.batch,
        tokens: budget.tokens,
    };
    let parent = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let temp = crate::codec::TempDir::in_dir(&parent, "archivist-book").map_err(io_err(&parent))?;
    let mut summary = Summary::default();
    let mut buckets = Buckets::new(0, counting.layout(), budget.held, temp.path(), "run".to_string());
    let meter = Meter::default();
    let mut last_report = Instant::now();
    let passed = run_pass(&spec, &meter, |item| {
        let batch = match item {
            Item::Damaged { input, error } => {
                observer.damaged(&input, &error);
                summary.damaged.push((input, error));
                return Ok(Vec::new());
            }
            Item::Batch(b) => b,
        };
        summary.games += batch.games;
        summary.kept += batch.kept;
        summary.text_bytes += batch.text_bytes;
        summary.skipped += batch.skipped.len() as u64;
        summary.events += batch.grouped.len() as u64;
        for (r, n) in summary.rejected.iter_mut().zip(batch.rejected) {
            *r += n;
        }
        for e in &batch.skipped {
            observer.skipped(e);
        }
        let written = buckets.push_grouped(batch.grouped)?;
        if last_report.elapsed().as_millis() >= 200 {
            last_report = Instant::now();
            summary.source_bytes = meter.source_bytes.load(Relaxed);
            observer.progress(&progress(&summary, start));
        }
        Ok::<_, BuildError>(written)
    });
    passed?;
    summary.source_bytes = meter.source_bytes.load(Relaxed);
    observer.progress(&progress(&summary, start));
    summary.count_seconds = start.elapsed().as_secs_f64();
    if !summary.damaged.is_empty() && !options.allow_damaged {
        summary.seconds = start.elapsed().as_secs_f64();
        return Err(BuildError::Damaged { summary: Box::new(summary) });
    }
    write_book(buckets, summary, &budget, options, &temp, out, start)
}

/// The second half of a build: the held events counted bucket by bucket
/// and the book written.
fn write_book(
    buckets: Buckets,
    mut summary: Summary,
    budget: &Budget,
    options: &BuildOptions,
    temp: &crate::codec::TempDir,
    out: &Path,
    start: Instant,
) -> Result<Summary, BuildError> {
    let counting = options.target.counting();
    let spilled = buckets.finish(budget.fan_in)?;
    summary.runs = spilled.file_count;
    summary.spilled_events = spilled.spilled;
    let bodies: Vec<PathBuf> = (0..BODIES).map(|c| temp.file(&format!("body-{c:03}"))).collect();
    let spec = CountSpec { counting, bytes: budget.bucket, fan_in: budget.fan_in, dir: temp.path(), name: "" };
    let names = |t: usize| (format!("split-{t}"), Scratch::default());
    let counted = count_bodies(&spilled, BODIES, PER_BODY, options.threads, names, |(name, scratch), body| {
        let spec = CountSpec { name, ..spec };
        let buckets = body * PER_BODY..(body + 1) * PER_BODY;
        output::count_body(&spec, &spilled, &options.target, buckets, &bodies[body], scratch)
    })?;
    drop(spilled);
    summary.entries = counted.entries;
    summary.splits = counted.splits;
    let header = match options.target {
        Target::Yacb { .. } => yacb::header(&KeyType::Engine),
        Target::Polyglot(_) => Vec::new(),
    };
    output::concatenate(out, &header, &bodies)?;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

fn progress(summary: &Summary, start: Instant) -> Progress {
    Progress {
        games: summary.games,
        text_bytes: summary.text_bytes,
        source_bytes: summary.source_bytes,
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// Body files: each holds the entries of `PER_BODY` buckets in a row.
const BODIES: usize = 64;
const PER_BODY: usize = BUCKETS / BODIES;

#[cfg(test)]
mod held_tests;
#[cfg(test)]
mod tests;
