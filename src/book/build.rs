//! `book build` on databases of any size: PGN streamed from files or
//! standard input (plain, gzip, zstd or bzip2, told by content), parsed and
//! replayed on several threads, filtered ([`filter`]), counted in tables
//! sharded by position key ([`counter`], [`table`]) and bounded by a
//! memory budget, that spill sorted runs ([`run`]) to a temporary
//! directory, merged at the end ([`merge`]) into
//! a Polyglot book (byte-identical to `polyglot make-book`, see
//! [`crate::book::make_book`]) or a YACB book ([`output`]).
//!
//! Invariants:
//! * Each shard takes the events in input order whatever the number of
//!   threads ([`pipeline`], [`counter`]), so the output depends on neither
//!   `threads` nor the memory budget.
//! * Polyglot's halving (when a move reaches 16384 plays) depends on the
//!   order of the games. A position counted in one place from its first
//!   game is exact; one split across runs whose counts reach the halving
//!   limit is counted again, alone, in a second pass over the inputs.
//!   Standard input cannot be read twice: there such positions (none
//!   unless the memory budget is far too small) get the halving applied to
//!   their added-up counts, and the summary says how many.
//! * The book is written atomically, and only when every input was read
//!   whole (unless `allow_damaged`); games with illegal moves or bad FENs
//!   are reported and skipped.

pub mod counter;
pub mod filter;
pub mod merge;
pub mod output;
pub mod pipeline;
pub mod run;
pub mod table;

pub use self::counter::PIN_VISITS;

use self::counter::{Counter, Shards};
use self::filter::{Filters, Rejection};
use self::merge::Merge;
use self::pipeline::{run_pass, Counting, Item, Meter, PassSpec};
use self::run::{RunError, RunReader, RunWriter};
use self::table::Rec;
use crate::book::make_book::MakeBookOptions;
use crate::book::yacb::{self, KeyType};
use crate::input::InputError;
use crate::pgn::ReplayError;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
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

/// Everything `book build` is told.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    pub target: Target,
    pub filters: Filters,
    pub threads: usize,
    /// Memory budget in MB (the table gets most of it).
    pub memory_mb: usize,
    /// Where runs go (default: the system's temporary directory).
    pub temp_dir: Option<PathBuf>,
    /// Write the book even when an input was damaged.
    pub allow_damaged: bool,
    /// Tuning: positions visited this often between two spills stay in
    /// memory ([`PIN_VISITS`]); the output does not depend on it.
    pub pin_visits: u32,
    /// Tuning: the most runs merged at once ([`MERGE_FAN_IN`]); more runs
    /// are merged in stages. The output does not depend on it.
    pub merge_fan_in: usize,
}

/// Runs merged at once: 64 open files and 2 MB of read buffers, whatever
/// the input size.
pub const MERGE_FAN_IN: usize = 64;

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
            pin_visits: PIN_VISITS,
            merge_fan_in: MERGE_FAN_IN,
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
    pub runs: usize,
    pub spilled_records: u64,
    /// Positions counted again in a second pass, and those whose halving
    /// was applied to added-up counts (standard input).
    pub recounted: usize,
    pub approximated: usize,
    pub entries: u64,
    pub seconds: f64,
}

/// Live figures for a progress display.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub games: u64,
    pub text_bytes: u64,
    pub source_bytes: u64,
    pub seconds: f64,
}

/// What the caller hears about while the build runs.
pub trait Observer {
    fn skipped(&mut self, error: &ReplayError);
    fn damaged(&mut self, input: &str, error: &str);
    fn progress(&mut self, progress: &Progress);
}

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} input(s) damaged ({}); no book written", .summary.damaged.len(), .summary.damaged.iter().map(|(i, e)| format!("{i}: {e}")).collect::<Vec<_>>().join("; "))]
    Damaged { summary: Box<Summary> },
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
    move |source| BuildError::Io { path: path.to_path_buf(), source }
}

/// A temporary directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(parent: Option<&Path>) -> Result<TempDir, BuildError> {
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
        let dir = parent.join(format!("archivist-book-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(io_err(&dir))?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Sizes derived from the memory budget: (table bytes, batch bytes, tokens).
fn budget(options: &BuildOptions) -> (usize, usize, usize) {
    let mb = options.memory_mb.max(1);
    let total = mb << 20;
    let batch = (total / 256).clamp(64 << 10, 1 << 20);
    let threads = options.threads.max(1);
    let tokens = 2 * threads + 2;
    // In flight: each token's text and events (~4x the text); each worker
    // parses a batch (~12x the text); readers and decoders ~6 MB. Measured
    // on 300 MB of PGN with --memory 128, the allocator keeps ~50 MB more
    // than this estimate (per-thread arenas), so the table gets 60%.
    let overhead = tokens * batch * 4 + threads * batch * 12 + (6 << 20);
    let table = (total / 5 * 3).saturating_sub(overhead).max(1 << 20);
    (table, batch, tokens)
}

type Source = Box<dyn Iterator<Item = Result<Rec, RunError>> + Send>;

/// Merges groups of `fan_in` runs into one run each, again and again,
/// until at most `fan_in` remain (each merged run is deleted); the file
/// handles and read buffers of the final merge stay bounded.
fn merge_in_stages(mut runs: Vec<PathBuf>, fan_in: usize, dir: &Path) -> Result<Vec<PathBuf>, BuildError> {
    let mut made = 0usize;
    while runs.len() > fan_in {
        let mut next = Vec::with_capacity(runs.len().div_ceil(fan_in));
        for chunk in runs.chunks(fan_in) {
            if chunk.len() == 1 {
                next.push(chunk[0].clone());
                continue;
            }
            let path = dir.join(format!("merged-{made:06}"));
            made += 1;
            let mut w = RunWriter::create(&path)?;
            merge::merge_into(Merge::new(open_runs(chunk)?)?, &mut w)?;
            w.finish()?;
            for p in chunk {
                let _ = std::fs::remove_file(p);
            }
            next.push(path);
        }
        runs = next;
    }
    Ok(runs)
}

fn open_runs(runs: &[PathBuf]) -> Result<Vec<Source>, BuildError> {
    let mut out: Vec<Source> = Vec::with_capacity(runs.len());
    for r in runs {
        out.push(Box::new(RunReader::open(r)?));
    }
    Ok(out)
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
    let (table_bytes, batch_bytes, tokens) = budget(options);
    let (counting, max_ply) = match &options.target {
        Target::Polyglot(o) => (Counting::Polyglot, o.max_ply),
        Target::Yacb { max_ply, .. } => (Counting::Yacb, *max_ply),
    };
    let mut spec = PassSpec {
        inputs,
        counting,
        max_ply,
        filters: &options.filters,
        threads: options.threads,
        batch_bytes,
        tokens,
        focus: None,
    };
    let temp = TempDir::new(options.temp_dir.as_deref())?;
    let mut summary = Summary::default();
    let mut recount = Recount::default();
    let shards = Shards::new(table_bytes, counting, &temp.0, options.pin_visits, false);
    let meter = Meter::default();
    let mut last_report = Instant::now();
    let passed = run_pass(&spec, &meter, &shards, |item| {
        let batch = match item {
            Item::Damaged { input, error } => {
                observer.damaged(&input, &error);
                summary.damaged.push((input, error));
                return Ok(());
            }
            Item::Batch(b) => b,
        };
        summary.games += batch.games;
        summary.kept += batch.kept;
        summary.text_bytes += batch.text_bytes;
        summary.skipped += batch.skipped.len() as u64;
        for (r, n) in summary.rejected.iter_mut().zip(batch.rejected) {
            *r += n;
        }
        for e in &batch.skipped {
            observer.skipped(e);
        }
        if let Some(e) = shards.failed().then(|| shards.take_error()).flatten() {
            return Err(e);
        }
        if last_report.elapsed().as_millis() >= 200 {
            last_report = Instant::now();
            summary.source_bytes = meter.source_bytes.load(Relaxed);
            observer.progress(&progress(&summary, start));
        }
        Ok::<(), BuildError>(())
    });
    passed?;
    if let Some(e) = shards.take_error() {
        return Err(e);
    }
    summary.source_bytes = meter.source_bytes.load(Relaxed);
    observer.progress(&progress(&summary, start));
    let counters = shards.into_counters();
    summary.runs = counters.iter().map(|c| c.runs.len()).sum();
    summary.spilled_records = counters.iter().map(|c| c.spilled).sum();
    if !summary.damaged.is_empty() && !options.allow_damaged {
        summary.seconds = start.elapsed().as_secs_f64();
        return Err(BuildError::Damaged { summary: Box::new(summary) });
    }
    let merge = if summary.runs == 0 {
        let sources: Vec<Source> =
            counters.into_iter().map(|c| Box::new(c.table.into_sorted().into_iter().map(Ok)) as Source).collect();
        Merge::new(sources)?
    } else {
        let mut runs = Vec::new();
        for c in counters {
            runs.extend(c.finish()?);
        }
        let runs = merge_in_stages(runs, options.merge_fan_in.max(2), &temp.0)?;
        if counting == Counting::Polyglot {
            let unsettled = unsettled_keys(Merge::new(open_runs(&runs)?)?)?;
            if !unsettled.is_empty() {
                if inputs.iter().any(|p| p == Path::new("-")) {
                    recount.approximate = true;
                } else {
                    spec.focus = Some(Arc::new(unsettled));
                    recount = second_pass(&spec, table_bytes, &temp.0)?;
                }
            }
        }
        Merge::new(open_runs(&runs)?)?
    };
    summary.entries = write_book(out, &options.target, merge, &recount, &mut summary)?;
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

/// Positions counted again in the second pass (Polyglot halving).
#[derive(Default)]
struct Recount {
    moves: HashMap<u64, Vec<Rec>>,
    /// The order is lost for good (standard input, or too many positions):
    /// halve the added-up counts.
    approximate: bool,
}

/// The positions whose halving lost its order (see [`merge::Group::unsettled`]).
fn unsettled_keys(mut merge: Merge) -> Result<HashSet<u64>, BuildError> {
    let mut keys = HashSet::new();
    while let Some(g) = merge.next_group()? {
        if g.unsettled() {
            keys.insert(g.key);
        }
    }
    Ok(keys)
}

/// Counts the focus positions again, in game order, from the first game.
fn second_pass(spec: &PassSpec<'_>, table_bytes: usize, dir: &Path) -> Result<Recount, BuildError> {
    let shards = Shards::new(table_bytes, spec.counting, dir, u32::MAX, true);
    run_pass(spec, &Meter::default(), &shards, |_| Ok::<(), BuildError>(()))?;
    if let Some(e) = shards.take_error() {
        return Err(e);
    }
    let counters: Vec<Counter> = shards.into_counters();
    if counters.iter().any(|c| c.overflow) {
        return Ok(Recount { approximate: true, ..Recount::default() });
    }
    let mut moves: HashMap<u64, Vec<Rec>> = HashMap::new();
    for c in counters {
        for r in c.table.into_sorted() {
            moves.entry(r.key).or_default().push(r);
        }
    }
    Ok(Recount { moves, approximate: false })
}

/// Writes the book from the merged groups; returns the entries written.
fn write_book(
    out: &Path,
    target: &Target,
    mut merge: Merge,
    recount: &Recount,
    summary: &mut Summary,
) -> Result<u64, BuildError> {
    let mut failed: Option<BuildError> = None;
    let mut entries = 0u64;
    let mut fill = |w: &mut dyn Write| -> std::io::Result<()> {
        if let Target::Yacb { .. } = target {
            w.write_all(&yacb::header(&KeyType::Engine))?;
        }
        loop {
            let mut group = match merge.next_group() {
                Ok(Some(g)) => g,
                Ok(None) => return Ok(()),
                Err(e) => {
                    failed = Some(e.into());
                    return Err(std::io::Error::other("merge failed"));
                }
            };
            match target {
                Target::Polyglot(options) => {
                    let mut halve = false;
                    if group.unsettled() {
                        match recount.moves.get(&group.key) {
                            Some(m) if !recount.approximate => {
                                group.moves = m.clone();
                                summary.recounted += 1;
                            }
                            _ => {
                                halve = true;
                                summary.approximated += 1;
                            }
                        }
                    }
                    for e in output::polyglot_entries(&group, options, halve) {
                        w.write_all(&e.to_bytes())?;
                        entries += 1;
                    }
                }
                Target::Yacb { min_game, elo, .. } => {
                    if let Some(e) = output::yacb_entry(&group, *min_game, *elo) {
                        w.write_all(&e.encode())?;
                        entries += 1;
                    }
                }
            }
        }
    };
    let written = crate::atomic_file::write_with(out, 1 << 16, |w| fill(w));
    if let Some(e) = failed {
        return Err(e);
    }
    written.map_err(io_err(out))?;
    Ok(entries)
}

#[cfg(test)]
mod tests;
