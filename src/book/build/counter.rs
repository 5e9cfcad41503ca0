//! The counts of a pass, split by position key into [`SHARDS`] counting
//! tables ([`Table`]) that spill sorted runs ([`super::run`]) on their own.
//! A position lives in one shard, and each shard takes the batches in
//! input order (a worker that reaches a shard before the previous batch
//! has been applied there waits), so every position is counted exactly as
//! one table fed in input order would count it, whatever the number of
//! workers, while the workers apply different shards at once.

use super::pipeline::{Counting, Event};
use super::run::RunWriter;
use super::table::{Table, HEAD};
use super::BuildError;
use parking_lot::{Condvar, Mutex};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Shards of the key space (fixed: the spills do not depend on the threads).
pub const SHARDS: usize = 8;

/// The shard of a position key: its top bits, so each shard holds one
/// range of keys and the shards' books, merged apart, follow one another
/// in key order. Keys are Zobrist hashes, so the shards are even.
#[inline]
pub fn shard_of(key: u64) -> usize {
    (key >> (64 - SHARDS.trailing_zeros())) as usize
}

/// Positions visited this often since the last spill stay in the table.
pub const PIN_VISITS: u32 = 32;

/// The table and its spilled runs.
pub(super) struct Counter {
    pub table: Table,
    /// Run files are `run-{shard}-{n}`.
    shard: usize,
    counting: Counting,
    dir: PathBuf,
    pub runs: Vec<PathBuf>,
    pub spilled: u64,
    pin: u32,
    /// Second pass: never spill; note an overflow instead.
    no_spill: bool,
    pub overflow: bool,
}

impl Counter {
    fn new(shard: usize, table_bytes: usize, counting: Counting, dir: &Path, pin: u32, no_spill: bool) -> Counter {
        Counter {
            table: Table::new(table_bytes, counting == Counting::Polyglot),
            shard,
            counting,
            dir: dir.to_path_buf(),
            runs: Vec::new(),
            spilled: 0,
            pin,
            no_spill,
            overflow: false,
        }
    }

    pub fn apply(&mut self, events: &[Event]) -> Result<(), BuildError> {
        // The table is far larger than the caches: fetch a few events ahead.
        const AHEAD: usize = 8;
        for (i, e) in events.iter().enumerate() {
            if let Some(f) = events.get(i + AHEAD) {
                self.table.prefetch(f.key);
            }
            if !self.table.reserve(1) {
                if self.no_spill {
                    self.overflow = true;
                    return Ok(());
                }
                self.spill()?;
                if !self.table.reserve(1) {
                    self.spill_all()?;
                }
            }
            match (self.counting, e.mv) {
                (Counting::Polyglot, _) => self.table.add_pair(e.key, e.mv, e.white, e.points as u32, e.seq),
                (Counting::Yacb, HEAD) => {
                    self.table.add_visit(e.key, e.points as u32, (e.rating > 0).then_some(e.rating as u32), e.seq)
                }
                (Counting::Yacb, mv) => {
                    self.table.add_move(e.key, mv, e.points as u32, e.seq);
                }
            }
        }
        Ok(())
    }

    fn new_run(&mut self) -> Result<(PathBuf, RunWriter), BuildError> {
        let path = self.dir.join(format!("run-{}-{:05}", self.shard, self.runs.len()));
        let w = RunWriter::create(&path)?;
        Ok((path, w))
    }

    /// Spills the cold positions.
    fn spill(&mut self) -> Result<(), BuildError> {
        let (path, mut w) = self.new_run()?;
        self.spilled += self.table.spill(self.pin, |r| w.push(&r))? as u64;
        w.finish()?;
        self.runs.push(path);
        Ok(())
    }

    /// Spills everything (the table is left empty).
    fn spill_all(&mut self) -> Result<(), BuildError> {
        let table = std::mem::replace(&mut self.table, Table::new(0, self.counting == Counting::Polyglot));
        let max = table.max_bytes();
        let (path, mut w) = self.new_run()?;
        for r in table.into_sorted() {
            w.push(&r)?;
            self.spilled += 1;
        }
        w.finish()?;
        self.runs.push(path);
        self.table = Table::new(max, self.counting == Counting::Polyglot);
        Ok(())
    }

    /// The shard's index.
    pub fn shard(&self) -> usize {
        self.shard
    }
}

/// One counter per shard, each with the sequence number of the next batch
/// it takes.
pub struct Shards {
    shards: Vec<(Mutex<(Counter, u64)>, Condvar)>,
    failed: AtomicBool,
    error: Mutex<Option<BuildError>>,
}

impl Shards {
    /// Shards sharing `table_bytes`; their runs go to `dir`.
    pub(super) fn new(table_bytes: usize, counting: Counting, dir: &Path, pin: u32, no_spill: bool) -> Shards {
        let each = table_bytes / SHARDS;
        Shards {
            shards: (0..SHARDS)
                .map(|s| (Mutex::new((Counter::new(s, each, counting, dir, pin, no_spill), 0)), Condvar::new()))
                .collect(),
            failed: AtomicBool::new(false),
            error: Mutex::new(None),
        }
    }

    /// Applies batch `seq`'s events of `shard`, after batch `seq - 1`'s.
    /// Every batch must come to every shard, with or without events. After
    /// a failure the batches only pass (see [`Shards::take_error`]).
    pub fn apply(&self, shard: usize, seq: u64, events: &[Event]) {
        let (lock, turn) = &self.shards[shard];
        let mut guard = lock.lock();
        while guard.1 != seq {
            turn.wait(&mut guard);
        }
        if !self.failed.load(Ordering::Relaxed) {
            if let Err(e) = guard.0.apply(events) {
                self.error.lock().get_or_insert(e);
                self.failed.store(true, Ordering::Release);
            }
        }
        guard.1 += 1;
        turn.notify_all();
    }

    /// Whether a shard failed (its error is then in [`Shards::take_error`]).
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    /// The first error of any shard.
    pub(super) fn take_error(&self) -> Option<BuildError> {
        self.error.lock().take()
    }

    /// The counters, in shard order.
    pub(super) fn into_counters(self) -> Vec<Counter> {
        self.shards.into_iter().map(|(m, _)| m.into_inner().0).collect()
    }
}
