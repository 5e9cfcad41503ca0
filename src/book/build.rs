//! `book build` on databases of any size: PGN streamed from files or
//! standard input (plain, gzip, zstd or bzip2, told by content), parsed and
//! replayed on several threads ([`pipeline`]), filtered ([`filter`]), and
//! turned into counting events: one a move (Polyglot), or a visit and a
//! move (YACB). The events are held by bucket of keys in input order and
//! spilled as runs ([`run`]) when they reach the memory budget
//! ([`partition`]); then each bucket is read back and counted alone
//! ([`count`]), several at a time, and the buckets' entries put one after
//! another make a Polyglot book (byte-identical to `polyglot make-book`,
//! see [`crate::book::make_book`]) or a YACB book ([`output`]).
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

pub mod count;
pub mod filter;
pub mod output;
pub mod partition;
pub mod pipeline;
pub mod run;

use self::count::Group;
use self::filter::{Filters, Rejection};
use self::partition::{count_bucket, Buckets, CountSpec, Scratch, Spilled};
use self::pipeline::{run_pass, Counting, Item, Meter, PassSpec};
use self::run::{Layout, RunError, BUCKETS};
use crate::book::make_book::MakeBookOptions;
use crate::book::yacb::{self, KeyType};
use crate::input::InputError;
use crate::pgn::ReplayError;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
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
    /// (default: a share of the budget, see [`budget`]); smaller means
    /// more buckets counted in a map or split again. The output does not
    /// depend on it.
    pub bucket_bytes: Option<usize>,
    /// Tuning: the most runs read at once (default: as many as the
    /// open-file limit and an eighth of the budget allow, see [`budget`]);
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
    /// Counting events made, runs spilled and the events in them.
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
    #[error("the positions of one bucket of keys do not fit in {bytes} bytes even split as far as keys allow; give more memory")]
    Budget { bytes: usize },
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
    /// Events held before a spill.
    held: usize,
    /// Bytes of PGN text per batch, and batches in flight.
    batch: usize,
    tokens: usize,
    /// Bytes a counting thread spends on one bucket.
    bucket: usize,
    /// Runs read at once.
    fan_in: usize,
}

/// Runs read at once never go below this, whatever the budget.
const MIN_FAN_IN: usize = 16;
/// Files kept free of the open-file limit for everything else.
const SPARE_FILES: usize = 64;
/// Bytes an event takes while held in `layout`. Full: 12, and the room a
/// held batch's buffer keeps beyond its events (it is reserved for an
/// event every 6 bytes of text, and movetext has about one every 7.5).
/// Compact: 9, and the room a reused buffer keeps from a larger batch.
fn held_event_bytes(layout: Layout) -> usize {
    match layout {
        Layout::Full => 15,
        Layout::Compact => 11,
    }
}

/// Shares the memory budget. While reading the games: the batches in
/// flight (each token's text and events, ~4x the text), the batches being
/// parsed (~12x), the readers and decoders (~6 MB), and the events held
/// by bucket, which get the rest of 60% of the budget. While counting the
/// buckets, the held events stay (the last part of the input, never
/// written out) and each counting thread gets a fifth of the budget
/// shared by the threads. Runs are read in place, as many at once as the
/// open-file limit leaves room for and an eighth of the budget holds
/// their indexes ([`run::INDEX_BYTES`] a run).
fn budget(options: &BuildOptions) -> Budget {
    let mb = options.memory_mb.max(1);
    let total = mb << 20;
    let batch = (total / 256).clamp(64 << 10, 1 << 20);
    let threads = options.threads.max(1);
    // Enough batches in flight that the workers go on while the counting
    // thread spills a run (tens of milliseconds): with 2 + 2 a thread
    // they waited, and 2 threads read 12% slower. With 4 + 4 they still
    // waited at each spill once the runs were compact (the CPU ~6% idle
    // while reading 2.2 GB); 6 + 6, which leaves fewer events held (more,
    // shorter runs), read 3 to 8% faster.
    let tokens = 6 * threads + 6;
    let overhead = tokens * batch * 4 + threads * batch * 12 + (6 << 20);
    let held =
        (total / 5 * 3).saturating_sub(overhead).max(1 << 18) / held_event_bytes(options.target.counting().layout());
    let bucket = options.bucket_bytes.unwrap_or((total / 5 / threads).max(1 << 18));
    let by_files = open_file_limit().unwrap_or(1024).saturating_sub(SPARE_FILES);
    let by_memory = total / 8 / run::INDEX_BYTES;
    let fan_in = options.merge_fan_in.unwrap_or_else(|| by_files.min(by_memory).max(MIN_FAN_IN)).max(2);
    Budget { held, batch, tokens, bucket, fan_in }
}

/// The soft limit on open files (`/proc/self/limits`), where known.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
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
    let budget = budget(options);
    let counting = options.target.counting();
    let max_ply = match &options.target {
        Target::Polyglot(o) => o.max_ply,
        Target::Yacb { max_ply, .. } => *max_ply,
    };
    let spec = PassSpec {
        inputs,
        counting,
        max_ply,
        filters: &options.filters,
        threads: options.threads,
        batch_bytes: budget.batch,
        tokens: budget.tokens,
    };
    let temp = TempDir::new(options.temp_dir.as_deref())?;
    let mut summary = Summary::default();
    let mut buckets = Buckets::new(0, counting.layout(), budget.held, &temp.0, "run".to_string());
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
        summary.events += batch.grouped.event_count() as u64;
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
    let spilled = buckets.finish(budget.fan_in)?;
    summary.runs = spilled.run_count;
    summary.spilled_events = spilled.spilled;
    let bodies: Vec<PathBuf> = (0..BODIES).map(|c| temp.0.join(format!("body-{c:03}"))).collect();
    let spec = CountSpec { counting, bytes: budget.bucket, fan_in: budget.fan_in, dir: &temp.0, name: "" };
    let counted = count_buckets(&spec, &spilled, &options.target, &bodies, options.threads)?;
    drop(spilled);
    summary.entries = counted.entries;
    summary.splits = counted.splits;
    let header = match options.target {
        Target::Yacb { .. } => yacb::header(&KeyType::Engine),
        Target::Polyglot(_) => Vec::new(),
    };
    concatenate(out, &header, &bodies)?;
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

/// What counting the buckets gave.
#[derive(Default)]
struct Counted {
    entries: u64,
    splits: u64,
}

/// Counts every bucket of `src` into the body files (`bodies[i]`: the
/// entries of the `i`-th range of buckets, no header), `threads` bodies
/// at a time, each thread as `spec` says under a name of its own.
///
/// Bodies are taken from the last one down, so the runs are used up from
/// their ends: a helper thread cuts them short behind the counting
/// ([`Spilled::release_from`]), and their pages (gigabytes for a large
/// input) are given back while the counting goes on, not when they are
/// deleted at the end, where the kernel's work was a second's wait.
fn count_buckets(
    spec: &CountSpec<'_>,
    src: &Spilled,
    target: &Target,
    bodies: &[PathBuf],
    threads: usize,
) -> Result<Counted, BuildError> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (entries, splits) = (AtomicU64::new(0), AtomicU64::new(0));
    let error = parking_lot::Mutex::new(None);
    // Which bodies are done, and the first of the done bodies at the end.
    let done = parking_lot::Mutex::new((vec![false; bodies.len()], bodies.len()));
    let (cut_tx, cut_rx) = crossbeam_channel::unbounded::<usize>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Ok(mut first) = cut_rx.recv() {
                // Only the latest cut matters.
                first = cut_rx.try_iter().fold(first, usize::min);
                src.release_from(first * PER_BODY);
            }
        });
        for t in 0..threads.max(1) {
            let (next, failed, entries, splits, error, done) = (&next, &failed, &entries, &splits, &error, &done);
            let cut_tx = cut_tx.clone();
            scope.spawn(move || {
                let name = format!("split-{t}");
                let spec = CountSpec { name: &name, ..*spec };
                let mut scratch = Scratch::default();
                loop {
                    let taken = next.fetch_add(1, Relaxed);
                    if taken >= bodies.len() || failed.load(Relaxed) {
                        break;
                    }
                    let body = bodies.len() - 1 - taken;
                    match count_body(&spec, src, target, body, &bodies[body], &mut scratch) {
                        Ok(c) => {
                            entries.fetch_add(c.entries, Relaxed);
                            splits.fetch_add(c.splits, Relaxed);
                            let mut done = done.lock();
                            let (flags, first) = &mut *done;
                            flags[body] = true;
                            let was = *first;
                            while *first > 0 && flags[*first - 1] {
                                *first -= 1;
                            }
                            if *first < was {
                                let _ = cut_tx.send(*first);
                            }
                        }
                        Err(e) => {
                            failed.store(true, Relaxed);
                            error.lock().get_or_insert(e);
                        }
                    }
                }
            });
        }
        drop(cut_tx);
    });
    match error.into_inner() {
        Some(e) => Err(e),
        None => Ok(Counted { entries: entries.into_inner(), splits: splits.into_inner() }),
    }
}

/// Counts the buckets of body `index` and writes their entries to `path`.
fn count_body(
    spec: &CountSpec<'_>,
    src: &Spilled,
    target: &Target,
    index: usize,
    path: &Path,
    scratch: &mut Scratch,
) -> Result<Counted, BuildError> {
    let file = std::fs::File::create(path).map_err(io_err(path))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
    let mut counted = Counted::default();
    let mut entries = Vec::new();
    let mut emit = |g: &Group| -> Result<(), BuildError> {
        match target {
            Target::Polyglot(book) => {
                output::polyglot_entries(g, book, &mut entries);
                for (e, _) in &entries {
                    w.write_all(&e.to_bytes()).map_err(io_err(path))?;
                    counted.entries += 1;
                }
            }
            Target::Yacb { min_game, elo, .. } => {
                if let Some(e) = output::yacb_entry(g, *min_game, *elo) {
                    w.write_all(&e.encode()).map_err(io_err(path))?;
                    counted.entries += 1;
                }
            }
        }
        Ok(())
    };
    let mut splits = 0;
    for b in index * PER_BODY..(index + 1) * PER_BODY {
        splits += count_bucket(spec, src, b, scratch, &mut emit)?;
    }
    w.flush().map_err(io_err(path))?;
    counted.splits = splits;
    Ok(counted)
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

#[cfg(test)]
mod tests;
