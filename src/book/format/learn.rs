//! YACL: the results `BookLearn` learned for a YACB book, kept in a side
//! file next to it (`BOOK.yacb.learn`) so the book itself is never written.
//! All integers little-endian.
//!
//! | offset | size | field    | validated |
//! |--------|------|----------|-----------|
//! | 0      | 4    | `"YACL"` | exact |
//! | 4      | 1    | version  | must be 0 |
//! | 5      | 11   | reserved | all zero |
//! | 16     | 16·n | entries  | size must be exactly 16 + 16·n |
//!
//! Entry (16 bytes), keys strictly ascending:
//!
//! | offset | size | field        | meaning / validation |
//! |--------|------|--------------|----------------------|
//! | 0      | 8    | key          | the position's key in the book's key type (the position a book move led to) |
//! | 8      | 4    | games        | u32 ≥ 1: games learned through this position |
//! | 12     | 4    | white_points | u32 half-points for white (2 a win, 1 a draw), at most 2 · games |
//!
//! Learned results change how a position scores in play, never the book
//! (see [`crate::book::play::offer`], where they are blended in).
//!
//! Updates ([`record`]) add a finished game's results while holding the
//! lock file `BOOK.yacb.learn.lock` (created exclusively, removed after; one
//! older than [`STALE_LOCK`] is left from a crash and taken over): the side
//! file is read again, the counts added, and the result written atomically
//! (temporary file, sync, rename), so engines sharing a book do not lose
//! each other's games and a crash leaves the old side file. A damaged side
//! file is reported and left as it is, never overwritten.

use crate::codec::{IoAt, PathIoError, Put, Reader, Truncated};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"YACL";
pub const HEADER_LEN: usize = 16;
pub const ENTRY_LEN: usize = 16;
/// A lock file older than this is taken to be left by a crashed engine.
pub const STALE_LOCK: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LearnError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("bad magic at offset 0: expected \"YACL\"")]
    BadMagic,
    #[error("unsupported version {version} at offset 4 (expected 0)")]
    UnsupportedVersion { version: u8 },
    #[error("reserved byte at offset {offset} is {value:#04x}, must be 0")]
    NonZeroReserved { offset: u64, value: u8 },
    #[error("size {len} is not 16 + 16·n: {extra} trailing bytes at offset {offset}")]
    BadSize { len: u64, extra: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: key not greater than the previous one (unsorted or duplicate)")]
    UnsortedKeys { index: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: {games} games with {points} half-points for white (needs 1 game or more and at most 2 per game)")]
    BadCounts { index: u64, offset: u64, games: u32, points: u32 },
}

/// Games and white's half-points learned for one position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Learned1 {
    pub games: u32,
    pub white_points: u32,
}

/// The learned results of one book, by key.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LearnTable {
    pub entries: BTreeMap<u64, Learned1>,
}

/// Learned results per YACB book path.
pub type Learned = HashMap<PathBuf, LearnTable>;

/// The side file of `book`.
pub fn side_path(book: &Path) -> PathBuf {
    let mut name = book.as_os_str().to_owned();
    name.push(".learn");
    PathBuf::from(name)
}

impl LearnTable {
    /// Validates a side-file image (see the module table).
    pub fn parse(bytes: &[u8]) -> Result<LearnTable, LearnError> {
        let len = bytes.len() as u64;
        let mut h = Reader::new(Reader::new(bytes).bytes(HEADER_LEN)?);
        if &h.array::<4>()? != MAGIC {
            return Err(LearnError::BadMagic);
        }
        let version = h.u8()?;
        if version != 0 {
            return Err(LearnError::UnsupportedVersion { version });
        }
        if let Some((i, &value)) = h.rest().iter().enumerate().find(|(_, &v)| v != 0) {
            return Err(LearnError::NonZeroReserved { offset: 5 + i as u64, value });
        }
        let mut r = Reader::at(bytes, HEADER_LEN);
        let extra = (r.remaining() % ENTRY_LEN) as u64;
        if extra != 0 {
            return Err(LearnError::BadSize { len, extra, offset: len - extra });
        }
        let mut entries = BTreeMap::new();
        let mut prev: Option<u64> = None;
        for i in 0..r.remaining() / ENTRY_LEN {
            let (index, offset) = (i as u64, r.offset() as u64);
            let (key, games, points) = (r.u64_le()?, r.u32_le()?, r.u32_le()?);
            if prev.is_some_and(|p| key <= p) {
                return Err(LearnError::UnsortedKeys { index, offset });
            }
            if games == 0 || points as u64 > 2 * games as u64 {
                return Err(LearnError::BadCounts { index, offset, games, points });
            }
            prev = Some(key);
            entries.insert(key, Learned1 { games, white_points: points });
        }
        Ok(LearnTable { entries })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.entries.len() * ENTRY_LEN);
        out.extend_from_slice(MAGIC);
        out.resize(HEADER_LEN, 0);
        for (key, l) in &self.entries {
            out.put_u64_le(*key);
            out.put_u32_le(l.games);
            out.put_u32_le(l.white_points);
        }
        out
    }

    /// Reads the side file at `path`; a missing file is an empty table.
    pub fn load(path: &Path) -> Result<LearnTable, LearnError> {
        match std::fs::read(path) {
            Ok(bytes) => LearnTable::parse(&bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LearnTable::default()),
            Err(source) => Err(PathIoError::new(path, source).into()),
        }
    }

    /// Adds one game's result (`white_points`: 2, 1 or 0) to `key`.
    pub fn add(&mut self, key: u64, white_points: u32) {
        let l = self.entries.entry(key).or_default();
        l.games = l.games.saturating_add(1);
        l.white_points = l.white_points.saturating_add(white_points.min(2)).min(l.games.saturating_mul(2));
    }
}

/// Adds `results` (key, white half-points) to the side file of `book` under
/// its lock, atomically (see the module doc). Returns the updated table.
pub fn record(book: &Path, results: &[(u64, u32)]) -> Result<LearnTable, LearnError> {
    let path = side_path(book);
    let mut lock_name = path.as_os_str().to_owned();
    lock_name.push(".lock");
    let lock_path = PathBuf::from(lock_name);
    acquire(&lock_path).at(&lock_path)?;
    let update = || {
        let mut table = LearnTable::load(&path)?;
        for &(key, points) in results {
            table.add(key, points);
        }
        super::write_atomic(&path, &table.encode()).at(&path)?;
        Ok(table)
    };
    let out = update();
    let _ = std::fs::remove_file(&lock_path);
    out
}

/// Creates `lock` exclusively, waiting up to twice [`STALE_LOCK`] for
/// another engine to release it and taking over a stale one.
fn acquire(lock: &Path) -> std::io::Result<()> {
    let start = std::time::Instant::now();
    loop {
        match std::fs::OpenOptions::new().write(true).create_new(true).open(lock) {
            Ok(_) => return Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let age = std::fs::metadata(lock).and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
                if age.is_some_and(|a| a > STALE_LOCK) {
                    let _ = std::fs::remove_file(lock);
                } else if start.elapsed() > 2 * STALE_LOCK {
                    return Err(std::io::Error::new(e.kind(), "lock held too long by another engine"));
                } else {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
            }
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests;
