//! `book build` on databases of any size: PGN streamed from files or
//! standard input (plain, gzip, zstd or bzip2, told by content), parsed and
//! replayed on several threads, filtered ([`filter`]), counted in tables
//! sharded by position key ([`counter`], [`table`]) and bounded by a
//! memory budget, that spill sorted runs ([`run`]) to a temporary
//! directory. Each shard holds one range of keys, so the shards' runs are
//! merged ([`merge`]) apart, on several threads, and their entries put
//! one after another make
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
use self::merge::{Group, Merge};
use self::pipeline::{run_pass, Counting, Item, Meter, PassSpec};
use self::run::{RunError, RunReader, RunWriter};
use self::table::Rec;
use crate::book::make_book::MakeBookOptions;
use crate::book::polyglot::PolyglotEntry;
use crate::book::yacb::{self, KeyType};
use crate::input::InputError;
use crate::pgn::ReplayError;
use std::collections::HashMap;
use std::io::{Read, Write};
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
    /// Tuning: the most runs merged at once (default: as many as the
    /// memory budget and the open-file limit allow, see [`budget`]); more
    /// runs are merged in stages. The output does not depend on it.
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
            pin_visits: PIN_VISITS,
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
    pub runs: usize,
    pub spilled_records: u64,
    /// Positions counted again in a second pass, and those whose halving
    /// was applied to added-up counts (standard input).
    pub recounted: usize,
    pub approximated: usize,
    pub entries: u64,
    pub seconds: f64,
    /// Of `seconds`: the counting pass (reading, replaying, counting,
    /// spilling); the rest is merging and writing the book.
    pub count_seconds: f64,
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

/// How a build spends its memory budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Budget {
    /// The counting tables' bytes (all shards).
    table: usize,
    /// Bytes of PGN text per batch, and batches in flight.
    batch: usize,
    tokens: usize,
    /// Runs merged at once per merging thread.
    fan_in: usize,
}

/// Runs merged at once never go below this, whatever the budget.
const MIN_FAN_IN: usize = 16;
/// Files kept free of the open-file limit for everything else.
const SPARE_FILES: usize = 64;

/// Shares the memory budget. While counting: the batches in flight (each
/// token's text and events, ~4x the text), the batches being parsed
/// (~12x), the readers and decoders (~6 MB), and the tables, which get the
/// rest of 80% of the budget (their own accounting includes a growth's
/// peak, see [`table::Table::new`]). While merging, the pipeline's
/// buffers are gone: each merging thread reads its runs through a
/// [`run::READ_BUFFER`] apiece, a quarter of the budget in all, and at
/// most as many runs as the open-file limit leaves room for. Fewer,
/// larger runs and a wide merge mean one merge pass even for databases
/// many times the budget.
fn budget(options: &BuildOptions) -> Budget {
    let mb = options.memory_mb.max(1);
    let total = mb << 20;
    let batch = (total / 256).clamp(64 << 10, 1 << 20);
    let threads = options.threads.max(1);
    let tokens = 2 * threads + 2;
    let overhead = tokens * batch * 4 + threads * batch * 12 + (6 << 20);
    let table = (total / 5 * 4).saturating_sub(overhead).max(1 << 20);
    let by_memory = total / 4 / threads / run::READ_BUFFER;
    let by_files = open_file_limit().unwrap_or(1024).saturating_sub(SPARE_FILES) / threads;
    let fan_in = options.merge_fan_in.unwrap_or_else(|| by_memory.min(by_files).max(MIN_FAN_IN)).max(2);
    Budget { table, batch, tokens, fan_in }
}

/// The soft limit on open files (`/proc/self/limits`), where known.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

type Source = Box<dyn Iterator<Item = Result<Rec, RunError>> + Send>;

/// Merges groups of `fan_in` runs into one run each, again and again,
/// until at most `fan_in` remain (each merged run is deleted); the file
/// handles and read buffers of the final merge stay bounded. Merged runs
/// are named `{prefix}-{n}`.
fn merge_in_stages(
    mut runs: Vec<PathBuf>,
    fan_in: usize,
    dir: &Path,
    prefix: &str,
) -> Result<Vec<PathBuf>, BuildError> {
    let mut made = 0usize;
    while runs.len() > fan_in {
        let mut next = Vec::with_capacity(runs.len().div_ceil(fan_in));
        for chunk in runs.chunks(fan_in) {
            if chunk.len() == 1 {
                next.push(chunk[0].clone());
                continue;
            }
            let path = dir.join(format!("{prefix}-{made:06}"));
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

/// What merging one shard gave.
#[derive(Default)]
struct ShardBook {
    /// Entries written to the shard's body file.
    entries: u64,
    /// Polyglot: the unsettled positions, in key order, kept out of the body.
    unsettled: Vec<Group>,
}

/// Merges every shard's runs and table into its body file (`bodies[i]`:
/// Polyglot or YACB entries, no header), `threads` shards at a time.
fn merge_shards(
    counters: Vec<Counter>,
    target: &Target,
    bodies: &[PathBuf],
    threads: usize,
    fan_in: usize,
    dir: &Path,
) -> Result<Vec<ShardBook>, BuildError> {
    let todo = parking_lot::Mutex::new(counters.into_iter().rev().collect::<Vec<_>>());
    let done = parking_lot::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let Some(c) = todo.lock().pop() else { break };
                let shard = c.shard();
                let result = merge_shard(c, target, &bodies[shard], fan_in, dir);
                let failed = result.is_err();
                done.lock().push((shard, result));
                if failed {
                    todo.lock().clear();
                }
            });
        }
    });
    let mut done = done.into_inner();
    done.sort_by_key(|(shard, _)| *shard);
    done.into_iter().map(|(_, r)| r).collect()
}

/// One shard: its runs (merged in stages first when there are many) and
/// what its table still holds, merged into its body file.
fn merge_shard(c: Counter, target: &Target, body: &Path, fan_in: usize, dir: &Path) -> Result<ShardBook, BuildError> {
    let prefix = format!("merged-{}", c.shard());
    let runs = merge_in_stages(c.runs, fan_in, dir, &prefix)?;
    let mut sources = open_runs(&runs)?;
    sources.push(Box::new(c.table.into_sorted().into_iter().map(Ok)));
    let merge = Merge::new(sources)?;
    match target {
        Target::Polyglot(book) => write_polyglot_body(body, book, merge),
        Target::Yacb { min_game, elo, .. } => write_yacb_body(body, merge, *min_game, *elo),
    }
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
    let Budget { table: table_bytes, batch: batch_bytes, tokens, fan_in } = budget(options);
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
    summary.count_seconds = start.elapsed().as_secs_f64();
    let counters = shards.into_counters();
    summary.runs = counters.iter().map(|c| c.runs.len()).sum();
    summary.spilled_records = counters.iter().map(|c| c.spilled).sum();
    if !summary.damaged.is_empty() && !options.allow_damaged {
        summary.seconds = start.elapsed().as_secs_f64();
        return Err(BuildError::Damaged { summary: Box::new(summary) });
    }
    let bodies: Vec<PathBuf> = (0..counters.len()).map(|s| temp.0.join(format!("body-{s}"))).collect();
    let books = merge_shards(counters, &options.target, &bodies, options.threads, fan_in, &temp.0)?;
    summary.entries = match &options.target {
        Target::Yacb { .. } => {
            concatenate(out, &yacb::header(&KeyType::Engine), &bodies)?;
            books.iter().map(|b| b.entries).sum()
        }
        Target::Polyglot(book) => {
            // The unsettled positions are counted again (or approximated)
            // and spliced in by key.
            let mut unsettled: Vec<Group> = books.into_iter().flat_map(|b| b.unsettled).collect();
            let mut recount = Recount::default();
            if !unsettled.is_empty() {
                if inputs.iter().any(|p| p == Path::new("-")) {
                    recount.approximate = true;
                } else {
                    spec.focus = Some(Arc::new(unsettled.iter().map(|g| g.key).collect()));
                    recount = second_pass(&spec, table_bytes, &temp.0)?;
                }
            }
            let mut spliced = Vec::with_capacity(unsettled.len());
            for group in &mut unsettled {
                let halve = match recount.moves.get(&group.key) {
                    Some(m) if !recount.approximate => {
                        group.moves = m.clone();
                        summary.recounted += 1;
                        false
                    }
                    _ => {
                        summary.approximated += 1;
                        true
                    }
                };
                spliced.push((group.key, output::polyglot_entries(group, book, halve)));
            }
            splice_polyglot(out, &bodies, &spliced)?
        }
    };
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

/// Writes the Polyglot entries of every settled position, in key order,
/// to `body`; gives the unsettled positions (see
/// [`merge::Group::unsettled`]), in key order.
fn write_polyglot_body(body: &Path, options: &MakeBookOptions, mut merge: Merge) -> Result<ShardBook, BuildError> {
    let file = std::fs::File::create(body).map_err(io_err(body))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
    let mut book = ShardBook::default();
    while let Some(group) = merge.next_group()? {
        if group.unsettled() {
            book.unsettled.push(group.clone());
            continue;
        }
        for e in output::polyglot_entries(group, options, false) {
            w.write_all(&e.to_bytes()).map_err(io_err(body))?;
            book.entries += 1;
        }
    }
    w.flush().map_err(io_err(body))?;
    Ok(book)
}

/// Writes the YACB entries of the merged positions, in key order, to `body`.
fn write_yacb_body(body: &Path, mut merge: Merge, min_game: u32, elo: Option<i32>) -> Result<ShardBook, BuildError> {
    let file = std::fs::File::create(body).map_err(io_err(body))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
    let mut book = ShardBook::default();
    while let Some(group) = merge.next_group()? {
        if let Some(e) = output::yacb_entry(group, min_game, elo) {
            w.write_all(&e.encode()).map_err(io_err(body))?;
            book.entries += 1;
        }
    }
    w.flush().map_err(io_err(body))?;
    Ok(book)
}

/// Writes the book at `out`: `header`, then the bodies one after another.
fn concatenate(out: &Path, header: &[u8], bodies: &[PathBuf]) -> Result<(), BuildError> {
    let mut failed = None;
    let written = crate::atomic_file::write_with(out, 1 << 16, |w| {
        w.write_all(header)?;
        for body in bodies {
            match std::fs::File::open(body) {
                Ok(mut f) => {
                    std::io::copy(&mut f, w)?;
                }
                Err(e) => {
                    failed = Some(io_err(body)(e));
                    return Err(std::io::Error::other("body missing"));
                }
            }
        }
        Ok(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    written.map_err(io_err(out))
}

/// Writes the Polyglot book at `out`: the bodies' entries with each of
/// `spliced`'s (key-ordered) positions put in its place; returns the
/// entries written.
fn splice_polyglot(out: &Path, bodies: &[PathBuf], spliced: &[(u64, Vec<PolyglotEntry>)]) -> Result<u64, BuildError> {
    let mut entries = 0u64;
    let mut failed = None;
    let written = crate::atomic_file::write_with(out, 1 << 16, |w| {
        let mut next = spliced.iter().peekable();
        let put = |w: &mut dyn Write, list: &[PolyglotEntry]| -> std::io::Result<u64> {
            for e in list {
                w.write_all(&e.to_bytes())?;
            }
            Ok(list.len() as u64)
        };
        for body in bodies {
            let mut input = match std::fs::File::open(body) {
                Ok(f) => std::io::BufReader::with_capacity(1 << 16, f),
                Err(e) => {
                    failed = Some(io_err(body)(e));
                    return Err(std::io::Error::other("body missing"));
                }
            };
            let mut raw = [0u8; 16];
            loop {
                match input.read_exact(&mut raw) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
                    Err(e) => return Err(e),
                }
                let key = u64::from_be_bytes([raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7]]);
                while let Some((_, list)) = next.next_if(|(k, _)| *k < key) {
                    entries += put(w, list)?;
                }
                w.write_all(&raw)?;
                entries += 1;
            }
        }
        for (_, list) in next {
            entries += put(w, list)?;
        }
        Ok(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    written.map_err(io_err(out))?;
    Ok(entries)
}

#[cfg(test)]
mod tests;
