//! Streaming tools over record files, the steps of a training-data
//! pipeline: [`filter`] (drop positions by ply, check, tactical best move,
//! score limit, score-versus-result disagreement), [`dedup`] (drop repeated
//! positions), [`shuffle`] (games, or single positions, in a seeded
//! order), [`mix::interleave`] (merge files in a seeded random order) and
//! [`mix::split`] (one file into several).
//!
//! Every tool reads its inputs game by game (mapped, validated as read:
//! a damaged input stops the tool with its [`RecordError`]) and writes
//! whole games. Memory is bounded: filter, interleave and split hold one
//! game per input; dedup and shuffle spill to temporary files in a
//! directory beside the output and hold at most about `memory` bytes of
//! them at once (see each module). Dedup's go through the program's one
//! key-bucketed spill-and-sort ([`crate::spill`], validated as read);
//! shuffle's buckets of whole games are read back only when they hold the
//! bytes written to them ([`read_back`]) and whole games: else the tool
//! stops with an error.
//!
//! Dropping positions from a game cannot leave a hole in its move chain:
//! each run of kept positions becomes a game of its own that starts at the
//! run's first position and carries the game's result (the format allows
//! any start). A run whose last position would contradict the result
//! without the history before the run (a repetition or fifty-move draw with
//! a decisive result) or whose start cannot be stored (halfmove clock over
//! 255) is dropped and counted.

pub mod dedup;
pub mod filter;
pub mod mix;
pub mod shuffle;

use super::{contradiction, Game, GameRecorder, Reader, RecordError};
use crate::codec::TempDir;
use std::io::Write;
use std::path::Path;

/// What a tool read and wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games_in: u64,
    pub positions_in: u64,
    pub games_out: u64,
    pub positions_out: u64,
    /// Kept positions lost with a run that could not be stored.
    pub positions_unstorable: u64,
}

impl Summary {
    /// Counts a game of `positions` copied through unchanged.
    pub fn pass_through(&mut self, positions: u64) {
        self.games_in += 1;
        self.positions_in += positions;
        self.games_out += 1;
        self.positions_out += positions;
    }
}

/// One game of an input: its bytes and its decoding.
pub struct Item<'a> {
    pub bytes: &'a [u8],
    pub game: Game,
}

/// The games of `data` with their bytes; stops at the first invalid game.
pub fn games(data: &[u8]) -> impl Iterator<Item = Result<Item<'_>, RecordError>> + '_ {
    let mut reader = Reader::new(data);
    std::iter::from_fn(move || {
        let start = reader.offset() as usize;
        let game = reader.next()?;
        let end = reader.offset() as usize;
        Some(game.map(|game| Item { bytes: data.get(start..end).unwrap_or_default(), game }))
    })
}

/// Writes the plies of `item` whose `keep` is true, as whole games: the
/// game's own bytes when all are kept, otherwise one game per run of kept
/// plies (one per ply with `single`). Updates `summary`'s output counts.
pub fn write_kept(
    item: &Item,
    keep: &[bool],
    single: bool,
    out: &mut dyn Write,
    summary: &mut Summary,
) -> Result<(), RecordError> {
    let game = &item.game;
    if !single && keep.iter().all(|&k| k) {
        out.write_all(item.bytes)?;
        summary.games_out += 1;
        summary.positions_out += game.plies.len() as u64;
        return Ok(());
    }
    let mut run: Option<GameRecorder> = None;
    let mut flush = |run: &mut Option<GameRecorder>, summary: &mut Summary| -> Result<(), RecordError> {
        if let Some(rec) = run.take() {
            let n = rec.plies() as u64;
            if contradiction(rec.board(), game.result).is_some() {
                summary.positions_unstorable += n;
            } else {
                out.write_all(&rec.finish(game.result))?;
                summary.games_out += 1;
                summary.positions_out += n;
            }
        }
        Ok(())
    };
    let mut board = game.start.clone();
    let mut result = Ok(());
    for (ply, &k) in game.plies.iter().zip(keep) {
        if result.is_err() {
            break;
        }
        if !k || single {
            result = flush(&mut run, summary);
        }
        if k {
            if run.is_none() {
                match GameRecorder::new(&board) {
                    Ok(rec) => run = Some(rec),
                    Err(_) => summary.positions_unstorable += 1,
                }
            }
            if let Some(rec) = run.as_mut() {
                rec.push_visits(ply.mv, ply.score, &ply.visits)?;
            }
        }
        board.make_move(ply.mv);
    }
    result?;
    flush(&mut run, summary)
}

/// The bytes of temporary file `name` in `dir`, which must be the `len`
/// bytes written to it (a file never written reads as empty when `len` is 0).
pub fn read_back(dir: &TempDir, name: &str, len: u64) -> Result<Vec<u8>, RecordError> {
    let path = dir.file(name);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && len == 0 => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    if bytes.len() as u64 != len {
        return Err(damaged(&path, &format!("{} bytes where {len} were written", bytes.len())));
    }
    Ok(bytes)
}

/// The error of a temporary file that does not read back as written.
pub fn damaged(path: &Path, what: &str) -> RecordError {
    let message = format!("{}: temporary file damaged: {what}", path.display());
    RecordError::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, message))
}

/// How many parts `total` bytes need so each fits `memory` bytes.
pub fn parts_for(total: u64, memory: u64) -> usize {
    usize::try_from(total.div_ceil(memory.max(1)).max(1)).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests;
