//! `records dedup`: keeps the first occurrence of each position (by its
//! Zobrist key: placement, side to move, castling rights, en-passant
//! square; the clocks are not part of it) and drops the later ones.
//!
//! Bounded memory, exact up to key collisions (64-bit keys):
//!
//! 1. Every position's `(key, index)` goes to one of `k` bucket files by
//!    the key's top bits, `k` chosen so a bucket fits `memory` bytes. Keys
//!    seen often (the start position) are caught early by an in-memory set
//!    of at most 1M keys: a later occurrence of one of those goes straight
//!    to the drop list, so no bucket swells with copies of one key.
//! 2. Each bucket is sorted; every index after the first of its key joins
//!    the drop list, spread over range files of `memory / 8` indices.
//! 3. The input is read again; the positions on the drop list are left
//!    out (runs of kept positions become games, see [`super`]).

use super::{games, parts_for, write_kept, Summary};
use crate::codec::TempDir;
use crate::records::RecordError;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

const HOT_KEYS: usize = 1 << 20;

/// Append-only files of u64 pairs or indices, created when first used.
struct Spill<'a> {
    dir: &'a TempDir,
    prefix: &'static str,
    files: HashMap<usize, (BufWriter<File>, u64)>,
}

/// The bytes written to each part of a [`Spill`].
struct Written {
    prefix: &'static str,
    lens: HashMap<usize, u64>,
}

impl Spill<'_> {
    fn push(&mut self, part: usize, values: &[u64]) -> std::io::Result<()> {
        let (w, len) = match self.files.entry(part) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let f = File::create(self.dir.file(&format!("{}-{part}", self.prefix)))?;
                v.insert((BufWriter::new(f), 0))
            }
        };
        for v in values {
            w.write_all(&v.to_le_bytes())?;
        }
        *len += 8 * values.len() as u64;
        Ok(())
    }

    fn finish(self) -> std::io::Result<Written> {
        let mut lens = HashMap::new();
        for (part, (w, len)) in self.files {
            w.into_inner().map_err(|e| e.into_error())?;
            lens.insert(part, len);
        }
        Ok(Written { prefix: self.prefix, lens })
    }
}

impl Written {
    /// The u64s of part `part` (none when it was never written), checked
    /// to be what was written.
    fn read(&self, dir: &TempDir, part: usize) -> Result<Vec<u64>, RecordError> {
        let len = self.lens.get(&part).copied().unwrap_or(0);
        let bytes = super::read_back(dir, &format!("{}-{part}", self.prefix), len)?;
        Ok(bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect())
    }
}

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
    // Positions take at least 5 bytes, an entry 16.
    let k = parts_for(data.len() as u64 / 5 * 16, memory).next_power_of_two();
    let shift = 64 - k.trailing_zeros();
    let range = (memory / 8).max(1);
    let mut buckets = Spill { dir: &dir, prefix: "keys", files: HashMap::new() };
    let mut drops = Spill { dir: &dir, prefix: "drops", files: HashMap::new() };
    let mut hot: HashSet<u64> = HashSet::new();
    let mut index = 0u64;
    let third = data.len() as u64 / 3;
    let mut read = 0u64;
    for item in games(data) {
        let item = item?;
        let mut err = Ok(());
        item.game.replay(|board, _| {
            let key = board.key();
            let r = if hot.contains(&key) {
                drops.push((index / range) as usize, &[index])
            } else {
                if hot.len() < HOT_KEYS {
                    hot.insert(key);
                }
                let bucket = if shift >= 64 { 0 } else { (key >> shift) as usize };
                buckets.push(bucket, &[key, index])
            };
            if err.is_ok() {
                err = r;
            }
            index += 1;
        });
        err?;
        read += item.bytes.len() as u64;
        progress(read / 3);
    }
    drop(hot);
    let keys = buckets.finish()?;
    for b in 0..k {
        let flat = keys.read(&dir, b)?;
        let mut pairs: Vec<(u64, u64)> = flat.chunks_exact(2).map(|c| (c[0], c[1])).collect();
        drop(flat);
        pairs.sort_unstable();
        for w in pairs.windows(2) {
            if let [(k0, _), (k1, i1)] = w {
                if k0 == k1 {
                    drops.push((i1 / range) as usize, &[*i1])?;
                }
            }
        }
        progress(third + third * (b as u64 + 1) / k as u64);
    }
    let drops = drops.finish()?;
    write_without(data, &dir, &drops, range, out, progress)
}

/// Pass 3: the input without the positions on the drop list.
fn write_without(
    data: &[u8],
    dir: &TempDir,
    drops: &Written,
    range: u64,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary, RecordError> {
    let mut summary = Summary::default();
    let (mut part, mut list, mut at) = (usize::MAX, Vec::new(), 0usize);
    let mut index = 0u64;
    let mut keep = Vec::new();
    let mut read = 0u64;
    for item in games(data) {
        let item = item?;
        keep.clear();
        for _ in &item.game.plies {
            let p = (index / range) as usize;
            if p != part {
                part = p;
                list = drops.read(dir, p)?;
                list.sort_unstable();
                at = 0;
            }
            while list.get(at).is_some_and(|&d| d < index) {
                at += 1;
            }
            keep.push(list.get(at) != Some(&index));
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
