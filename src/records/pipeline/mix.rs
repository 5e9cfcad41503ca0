//! `records interleave` and `records split`: many files into one, one into
//! many, whole games, streaming (one game per input in memory).
//!
//! Interleave draws the next game from input `i` with probability
//! `remaining_i / remaining` (a seeded generator), so every input is spread
//! evenly over the output and runs out at about the same time; the counts
//! come from a framing scan first. Split deals games round-robin to `parts`
//! outputs (`game i` to part `i mod parts`), or fills each part with
//! `games_per_part` games in order.

use super::{games, Summary};
use crate::codec::SplitMix64;
use crate::records::{framing, RecordError};
use std::io::Write;

/// Interleaves `inputs` into `out` in an order drawn from `seed`.
pub fn interleave(
    inputs: &[&[u8]],
    seed: u64,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary, RecordError> {
    let mut remaining: Vec<u64> = inputs.iter().map(|d| framing(d).games).collect();
    let mut iters: Vec<_> = inputs.iter().map(|d| games(d)).collect();
    let mut total: u64 = remaining.iter().sum();
    let mut rng = SplitMix64::new(seed);
    let mut summary = Summary::default();
    let mut read = 0u64;
    while total > 0 {
        let mut pick = rng.below(total);
        let i = remaining.iter().position(|&r| {
            if pick < r {
                true
            } else {
                pick -= r;
                false
            }
        });
        let Some(i) = i else { break };
        let (Some(it), Some(r)) = (iters.get_mut(i), remaining.get_mut(i)) else { break };
        *r -= 1;
        total -= 1;
        // The framing scan counted whole games; a game that fails to
        // decode is the input's error.
        let Some(item) = it.next() else { continue };
        let item = item?;
        out.write_all(item.bytes)?;
        summary.pass_through(item.game.plies.len() as u64);
        read += item.bytes.len() as u64;
        progress(read);
    }
    // Bytes after the last whole game of an input are damage: report it.
    for it in &mut iters {
        if let Some(item) = it.next() {
            item?;
        }
    }
    Ok(summary)
}

/// How [`split`] deals games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitBy {
    /// Round-robin over this many parts.
    Parts(usize),
    /// This many games per part, in order (the last part may hold fewer).
    GamesPerPart(u64),
}

/// Splits `data` over `outs` (as many as [`parts_needed`] says).
pub fn split(
    data: &[u8],
    by: SplitBy,
    outs: &mut [&mut dyn Write],
    progress: &mut dyn FnMut(u64),
) -> Result<Summary, RecordError> {
    let mut summary = Summary::default();
    let mut read = 0u64;
    for (i, item) in games(data).enumerate() {
        let item = item?;
        let part = match by {
            SplitBy::Parts(n) => i % n.max(1),
            SplitBy::GamesPerPart(g) => (i as u64 / g.max(1)) as usize,
        };
        let Some(out) = outs.get_mut(part) else {
            return Err(RecordError::Unencodable { reason: format!("game {i} has no part {part} to go to") });
        };
        out.write_all(item.bytes)?;
        summary.pass_through(item.game.plies.len() as u64);
        read += item.bytes.len() as u64;
        progress(read);
    }
    Ok(summary)
}

/// The number of output files a split of `data` writes.
pub fn parts_needed(data: &[u8], by: SplitBy) -> usize {
    match by {
        SplitBy::Parts(n) => n.max(1),
        SplitBy::GamesPerPart(g) => (framing(data).games.div_ceil(g.max(1))).max(1) as usize,
    }
}
