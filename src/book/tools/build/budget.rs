//! How `book build` spends `--memory`: every size and count of the build
//! that takes memory is derived here, from the budget, the threads and
//! the event layout, so that nothing else holds a number of its own.
//!
//! While reading the games (60% of the budget): the batches in flight
//! (each token's text and events, ~4× the text), the batches being parsed
//! (~12× the text a thread), the readers and decoders (~6 MB), and the
//! events held by bucket, which get the rest. While counting the buckets,
//! the held events stay (the last part of the input, never written out)
//! and each counting thread gets a fifth of the budget shared by the
//! threads. Spill files are read in place, as many at once as the
//! open-file limit leaves room for and an eighth of the budget holds
//! their indexes ([`INDEX_BYTES`] a file).
//!
//! Invariants (tested): when the pipeline's buffers fit 60% of the budget
//! (32 MB and more for 2 threads, 1 GB for 8), the held events and the
//! pipeline stay within the budget while reading, and the held events and
//! every counting thread's bucket within it while counting. The output
//! depends on none of these numbers.

use super::event::{Event, Layout};
use super::BuildOptions;
use crate::spill::INDEX_BYTES;

/// How a build spends its memory budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Events held before a spill.
    pub held: usize,
    /// Bytes of PGN text per batch, and batches in flight.
    pub batch: usize,
    pub tokens: usize,
    /// Bytes a counting thread spends on one bucket.
    pub bucket: usize,
    /// Spill files read at once.
    pub fan_in: usize,
}

/// Spill files read at once never go below this, whatever the budget.
const MIN_FAN_IN: usize = 16;
/// Files kept free of the open-file limit for everything else.
const SPARE_FILES: usize = 64;
/// Bytes of the readers and decoders while reading the games.
const READERS: usize = 6 << 20;

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

impl Budget {
    /// Shares `options.memory_mb` (see the module's doc); a set
    /// `bucket_bytes` or `merge_fan_in` wins.
    pub fn of(options: &BuildOptions) -> Budget {
        Budget::with_file_limit(options, open_file_limit().unwrap_or(1024))
    }

    fn with_file_limit(options: &BuildOptions, files: usize) -> Budget {
        let total = options.memory_mb.max(1) << 20;
        let batch = (total / 256).clamp(64 << 10, 1 << 20);
        let threads = options.threads.max(1);
        // Enough batches in flight that the workers go on while the
        // counting thread spills a file.
        let tokens = 6 * threads + 6;
        let overhead = tokens * batch * 4 + threads * batch * 12 + READERS;
        let layout = options.target.counting().layout();
        let held = (total / 5 * 3).saturating_sub(overhead).max(1 << 18) / held_event_bytes(layout);
        let bucket = options.bucket_bytes.unwrap_or((total / 5 / threads).max(1 << 18));
        let by_files = files.saturating_sub(SPARE_FILES);
        let by_memory = total / 8 / INDEX_BYTES;
        let fan_in = options.merge_fan_in.unwrap_or_else(|| by_files.min(by_memory).max(MIN_FAN_IN)).max(2);
        Budget { held, batch, tokens, bucket, fan_in }
    }
}

/// Whether `n` events fit `bytes` to be sorted (the events and the
/// sort's scratch); else they are added up in a map.
pub fn sorts(n: usize, bytes: usize) -> bool {
    n.saturating_mul(2 * std::mem::size_of::<Event>()) <= bytes
}

/// Events held, out of a counting thread's `bytes`, while a bucket too
/// large to count is split again.
pub fn split_limit(bytes: usize) -> usize {
    bytes / 2 / std::mem::size_of::<Event>()
}

/// The soft limit on open files (`/proc/self/limits`), where known.
fn open_file_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::super::Target;
    use super::*;
    use crate::book::tools::make_book::MakeBookOptions;

    fn options(target: &Target, threads: usize, memory_mb: usize) -> BuildOptions {
        BuildOptions { threads, memory_mb, ..BuildOptions::new(target.clone()) }
    }

    fn polyglot() -> Target {
        Target::Polyglot(MakeBookOptions::default())
    }

    fn yacb() -> Target {
        Target::Yacb { max_ply: 40, min_game: 1, elo: None }
    }

    /// Bytes of the pipeline while reading the games.
    fn pipeline(b: &Budget, threads: usize) -> usize {
        b.tokens * b.batch * 4 + threads * b.batch * 12 + READERS
    }

    #[test]
    fn every_share_stays_within_the_memory_given() {
        for target in [polyglot(), yacb()] {
            let per_event = held_event_bytes(target.counting().layout());
            for memory in [32, 128, 1024, 16 << 10] {
                for threads in [1, 2, 8] {
                    let b = Budget::with_file_limit(&options(&target, threads, memory), 1024);
                    let total = memory << 20;
                    if pipeline(&b, threads) > total / 5 * 3 {
                        assert!(threads > 2 && memory < 1024, "{memory} MB, {threads} threads");
                        continue;
                    }
                    let held = b.held * per_event;
                    assert!(held + pipeline(&b, threads) <= total, "reading: {memory} MB, {threads} threads: {b:?}");
                    assert!(held + threads * b.bucket <= total, "counting: {memory} MB, {threads} threads: {b:?}");
                    assert!(b.batch >= 64 << 10 && b.batch <= 1 << 20);
                    assert_eq!(b.tokens, 6 * threads + 6);
                }
            }
        }
    }

    #[test]
    fn more_memory_holds_more_events_and_larger_buckets() {
        let at = |mb| Budget::with_file_limit(&options(&polyglot(), 2, mb), 1024);
        for (small, large) in [(32, 128), (128, 1024), (1024, 8192)] {
            let (s, l) = (at(small), at(large));
            assert!(s.held < l.held && s.bucket < l.bucket, "{small} MB: {s:?}, {large} MB: {l:?}");
        }
        // YACB's full events take more room each: fewer are held.
        let y = Budget::with_file_limit(&options(&yacb(), 2, 128), 1024);
        assert!(y.held < at(128).held);
    }

    #[test]
    fn the_fan_in_is_as_many_files_as_the_limit_and_an_eighth_of_the_memory_allow() {
        // An eighth of 128 MB holds 511 indexes of 32 kB and 8 bytes.
        let by_memory = (128 << 20) / 8 / INDEX_BYTES;
        assert_eq!(by_memory, 511);
        let fan_in = |mb, files| Budget::with_file_limit(&options(&polyglot(), 2, mb), files).fan_in;
        assert_eq!(fan_in(128, 1024), 511);
        assert_eq!(fan_in(128, 300), 300 - SPARE_FILES);
        assert_eq!(fan_in(1, 1024), MIN_FAN_IN);
        assert_eq!(fan_in(128, 10), MIN_FAN_IN);
        let b = Budget::of(&options(&polyglot(), 2, 128));
        assert_eq!(b.fan_in, open_file_limit().unwrap_or(1024).saturating_sub(SPARE_FILES).clamp(MIN_FAN_IN, 511));
    }

    #[test]
    fn a_set_fan_in_and_bucket_size_win() {
        let set = BuildOptions { merge_fan_in: Some(5), bucket_bytes: Some(777), ..options(&polyglot(), 2, 128) };
        assert_eq!((Budget::of(&set).fan_in, Budget::of(&set).bucket), (5, 777));
        let one = BuildOptions { merge_fan_in: Some(1), ..options(&polyglot(), 2, 128) };
        assert_eq!(Budget::of(&one).fan_in, 2, "two files at least");
    }

    #[test]
    fn the_counting_thresholds_follow_the_bytes() {
        assert!(sorts(1000, 24_000) && !sorts(1001, 24_000));
        assert_eq!(split_limit(24_000), 1000);
    }
}
