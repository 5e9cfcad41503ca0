//! `records shuffle`: the games (or, with `positions`, every position as a
//! one-ply game) in an order drawn from a seed, in bounded memory.
//!
//! Pass 1 deals each game to one of `k` bucket files (a seeded random
//! choice), `k = ⌈input bytes / memory⌉` (one-ply games take about ten
//! times the bytes of a position in a game, so `positions` multiplies the
//! estimate by 10). Pass 2 reads one bucket at a time, shuffles its games
//! (Fisher–Yates, the same generator: [`crate::codec::SplitMix64`] seeded
//! with the seed) and writes them. The order depends
//! only on the input, the seed, `memory` and `positions`.

use super::{damaged, games, parts_for, read_back, write_kept, Summary};
use crate::codec::{SplitMix64, TempDir};
use crate::records::{framing_spans, RecordError};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Shuffles `data` into `out`; the bucket files go beside `output_path`.
pub fn shuffle(
    data: &[u8],
    seed: u64,
    memory: u64,
    positions: bool,
    output_path: &Path,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary, RecordError> {
    let estimate = data.len() as u64 * if positions { 10 } else { 1 };
    let k = parts_for(estimate, memory);
    let dir = TempDir::beside(output_path)?;
    let mut buckets = Vec::with_capacity(k);
    for i in 0..k {
        buckets.push(BufWriter::new(File::create(dir.file(&format!("bucket-{i}")))?));
    }
    let mut written = vec![0u64; k];
    let mut rng = SplitMix64::new(seed);
    let mut summary = Summary::default();
    let mut read = 0u64;
    let mut spare = Vec::new();
    for item in games(data) {
        let item = item?;
        summary.games_in += 1;
        summary.positions_in += item.game.plies.len() as u64;
        if positions {
            spare.clear();
            let mut s = Summary::default();
            write_kept(&item, &vec![true; item.game.plies.len()], true, &mut spare, &mut s)?;
            summary.positions_unstorable += s.positions_unstorable;
            for span in framing_spans(&spare) {
                let b = rng.below(k as u64) as usize;
                if let (Some(w), Some(n), Some(bytes)) = (buckets.get_mut(b), written.get_mut(b), spare.get(span)) {
                    w.write_all(bytes)?;
                    *n += bytes.len() as u64;
                }
            }
        } else {
            let b = rng.below(k as u64) as usize;
            if let (Some(w), Some(n)) = (buckets.get_mut(b), written.get_mut(b)) {
                w.write_all(item.bytes)?;
                *n += item.bytes.len() as u64;
            }
        }
        read += item.bytes.len() as u64;
        progress(read / 2);
    }
    for w in buckets {
        w.into_inner().map_err(|e| e.into_error())?;
    }
    for (i, &len) in written.iter().enumerate() {
        let name = format!("bucket-{i}");
        let bytes = read_back(&dir, &name, len)?;
        let mut spans = framing_spans(&bytes);
        if spans.last().map_or(0, |s| s.end) != bytes.len() {
            return Err(damaged(&dir.file(&name), "not whole games"));
        }
        rng.shuffle(&mut spans);
        for span in spans {
            if let Some(game) = bytes.get(span) {
                out.write_all(game)?;
                summary.games_out += 1;
            }
        }
        progress(data.len() as u64 / 2 + data.len() as u64 * (i as u64 + 1) / (2 * k as u64));
    }
    summary.positions_out = summary.positions_in - summary.positions_unstorable;
    Ok(summary)
}
