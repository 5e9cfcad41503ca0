//! `records dedup`: keeps the first occurrence of each position (by its
//! Zobrist key: placement, side to move, castling rights, en-passant
//! square; the clocks are not part of it) and drops the later ones.
//!
//! Bounded memory, exact up to key collisions (64-bit keys), on the
//! program's one key-bucketed spill-and-sort ([`crate::spill`], the one
//! `book build` counts with):
//!
//! 1. Every position's (key, index) pair, its index being its place in
//!    the input, is held by bucket of key and spilled when the held pairs
//!    reach their share of `memory`. Keys seen often (the start position)
//!    are caught early by an in-memory set of at most [`HOT_KEYS`] keys: a
//!    later occurrence of one of those goes straight to the drop list, so
//!    no bucket swells with copies of one key.
//! 2. Bucket by bucket (one too large to sort is split by the next key
//!    bits), the pairs are sorted; every index after the first of its key
//!    joins the drop list, a spill of its own keyed by the index scaled to
//!    the top bits ([`DropList`]), so that its buckets come back in input
//!    order.
//! 3. The input is read again; the positions on the drop list are left
//!    out (runs of kept positions become games, see [`super`]).
//!
//! `memory` is shared: half for the held pairs, a quarter for the bucket
//! being sorted, an eighth each for the drop list's held indices and the
//! set of frequent keys. Reading the drop list back holds one of its 4096
//! buckets at a time. The output depends on none of these numbers.

use super::{games, write_kept, Summary};
use crate::codec::TempDir;
use crate::records::RecordError;
use crate::spill::{bucket_of, Buckets, Pairs, SpillError, Spilled, BUCKETS};
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

/// Frequent keys remembered at most (fewer with little memory).
pub const HOT_KEYS: usize = 1 << 20;
/// Bytes a remembered key takes in the set, load factor included.
const HOT_KEY_BYTES: u64 = 24;
/// Bytes a held pair takes (two u64).
const PAIR_BYTES: u64 = 16;
/// Spill files read at once (more are combined first).
const FAN_IN: usize = 128;

/// Drops repeated positions of `data` into `out`; temporary files go
/// beside `output_path`.
pub fn dedup(
    data: &[u8],
    memory: u64,
    output_path: &Path,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary, RecordError> {
    let dir = TempDir::beside(output_path)?;
    let share = |part: u64| usize::try_from((memory / part / PAIR_BYTES).max(1)).unwrap_or(usize::MAX);
    let hot_limit = usize::try_from(memory / 8 / HOT_KEY_BYTES).unwrap_or(usize::MAX).min(HOT_KEYS);
    let mut keys = Buckets::new(0, Pairs, share(2), dir.path(), "keys".into());
    let mut drops = DropList::new(data.len() as u64, share(8), &dir);
    let mut hot: HashSet<u64> = HashSet::new();
    let (mut index, mut read, mut pairs) = (0u64, 0u64, Vec::new());
    let third = data.len() as u64 / 3;
    // 1. Every position to its bucket, or to the drop list when frequent.
    for item in games(data) {
        let item = item?;
        pairs.clear();
        let mut dropped = Ok(());
        item.game.replay(|board, _| {
            let key = board.key();
            if hot.contains(&key) {
                if dropped.is_ok() {
                    dropped = drops.push(index);
                }
            } else {
                if hot.len() < hot_limit {
                    hot.insert(key);
                }
                pairs.push((key, index));
            }
            index += 1;
        });
        dropped?;
        keys.push(&pairs)?;
        read += item.bytes.len() as u64;
        progress(read / 3);
    }
    drop(hot);
    // 2. Each bucket sorted: the later occurrences of a key are dropped.
    let keys = keys.finish(FAN_IN)?;
    keys.for_each_bucket(share(4), FAN_IN, dir.path(), "split", &mut |bucket: &mut Vec<(u64, u64)>, _level: u8| {
        bucket.sort_unstable();
        for w in bucket.windows(2) {
            if let [(k0, _), (k1, i1)] = w {
                if k0 == k1 {
                    drops.push(*i1)?;
                }
            }
        }
        if let Some(&(key, _)) = bucket.first() {
            progress(third + third * (bucket_of(key, 0) as u64 + 1) / BUCKETS as u64);
        }
        Ok::<(), RecordError>(())
    })?;
    drop(keys);
    // 3. The input without them.
    write_without(data, drops.finish()?, out, progress)
}

/// The indices of the positions to drop, held by bucket of the index
/// scaled to the top key bits (`index << shift`, `shift` the leading
/// zeros of an upper bound of the indices: the input's length), so that
/// buckets in order hold indices in order.
struct DropList {
    buckets: Buckets<Pairs>,
    shift: u32,
}

impl DropList {
    fn new(bound: u64, limit: usize, dir: &TempDir) -> DropList {
        let buckets = Buckets::new(0, Pairs, limit, dir.path(), "drops".into());
        DropList { buckets, shift: bound.max(1).leading_zeros() }
    }

    fn push(&mut self, index: u64) -> Result<(), SpillError> {
        self.buckets.push(&[(index << self.shift, index)])
    }

    fn finish(self) -> Result<Drops, SpillError> {
        Ok(Drops { src: self.buckets.finish(FAN_IN)?, bucket: 0, list: Vec::new(), at: 0, shift: self.shift })
    }
}

/// The drop list read back in input order, a bucket at a time.
struct Drops {
    src: Spilled<Pairs>,
    /// The next bucket to read.
    bucket: usize,
    /// The indices of the bucket read last, sorted, and the first not passed.
    list: Vec<u64>,
    at: usize,
    shift: u32,
}

impl Drops {
    /// Whether position `index` is dropped; indices come in increasing order.
    fn contains(&mut self, index: u64) -> Result<bool, SpillError> {
        let wanted = bucket_of(index << self.shift, 0);
        while self.bucket <= wanted {
            let mut pairs = Vec::new();
            self.src.append(self.bucket, &mut Vec::new(), &mut pairs)?;
            self.list = pairs.into_iter().map(|(_, i)| i).collect();
            self.list.sort_unstable();
            self.at = 0;
            self.bucket += 1;
        }
        while self.list.get(self.at).is_some_and(|&d| d < index) {
            self.at += 1;
        }
        Ok(self.list.get(self.at) == Some(&index))
    }
}

/// Pass 3: the input without the positions on the drop list.
fn write_without(
    data: &[u8],
    mut drops: Drops,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary, RecordError> {
    let mut summary = Summary::default();
    let (mut index, mut read, mut keep) = (0u64, 0u64, Vec::new());
    for item in games(data) {
        let item = item?;
        keep.clear();
        for _ in &item.game.plies {
            keep.push(!drops.contains(index)?);
            index += 1;
        }
        summary.games_in += 1;
        summary.positions_in += item.game.plies.len() as u64;
        write_kept(&item, &keep, false, out, &mut summary)?;
        read += item.bytes.len() as u64;
        progress(2 * (data.len() as u64 / 3) + read / 3);
    }
    Ok(summary)
}
