//! SFTT: the transposition table saved to disk ([docs/formats.md#sftt](../../docs/formats.md#sftt)).
//! All integers little-endian.
//!
//! | offset | size | field             | validated                                   |
//! |--------|------|-------------------|---------------------------------------------|
//! | 0      | 4    | magic `"SFTT"`    | exact                                       |
//! | 4      | 1    | version           | must be 1 (engine keys)                     |
//! | 5      | 91   | root_pos          | FEN padded with NUL, or all NUL; must parse |
//! | 96     | 8    | nodes (u64)       | —                                           |
//! | 104    | 1    | root_depth        | —                                           |
//! | 105    | 1    | min_entry_depth   | —                                           |
//! | 106    | 22   | reserved          | all zero                                    |
//! | 128    | 16·n | entries           | file size must be exactly 128 + 16·n        |
//!
//! Entry (16 bytes, exactly the engine's TT entry, see [`crate::tt`]):
//!
//! | offset | size | field        | validated                                          |
//! |--------|------|--------------|----------------------------------------------------|
//! | 0      | 8    | key64        | —                                                  |
//! | 8      | 1    | depth8       | non-zero; depth8 − 7 ≥ min_entry_depth             |
//! | 9      | 1    | gen_bound8   | bound bits (0–1) non-zero                          |
//! | 10     | 2    | move         | not checked here: moves are matched against the legal moves before use |
//! | 12     | 2    | value (i16)  | —                                                  |
//! | 14     | 2    | eval (i16)   | —                                                  |
//!
//! Saving writes every entry whose depth is at least `min_entry_depth` into a
//! temporary file in the target directory through a large buffer, syncs it
//! and renames it over the old file, so a crash or a full disk never leaves a
//! damaged file in its place. Loading validates the whole file before it
//! touches the table.

use super::{TranspositionTable, TtEntry, DEPTH_OFFSET};
use crate::board::Board;
use crate::codec::{Fixed, IoAt, PathIoError, Put, Reader, Truncated};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::Instant;
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"SFTT";
pub const VERSION: u8 = 1;
pub const HEADER_LEN: usize = 128;
pub const ENTRY_LEN: usize = 16;
const ROOT_POS: std::ops::Range<usize> = 5..96;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SfttError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("bad magic at offset 0: expected \"SFTT\"")]
    BadMagic,
    #[error("unsupported version {version} at offset 4 (expected {VERSION})")]
    UnsupportedVersion { version: u8 },
    #[error("root_pos at offset {offset}: {reason}")]
    BadRootPos { offset: usize, reason: String },
    #[error("reserved byte at offset {offset} is {value:#04x}, must be 0")]
    NonZeroReserved { offset: usize, value: u8 },
    #[error("size {len} is not 128 + 16·n: {extra} trailing bytes at offset {offset}")]
    BadSize { len: u64, extra: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: depth8 is 0 (an empty slot)")]
    EmptyEntry { index: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: bound bits are 0")]
    BadBound { index: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: depth {depth} is below min_entry_depth {min}")]
    BelowMinDepth { index: u64, offset: u64, depth: i32, min: u8 },
}

/// The header fields.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SfttHeader {
    /// FEN of the last searched position.
    pub root_pos: Option<String>,
    pub nodes: u64,
    pub root_depth: u8,
    pub min_entry_depth: u8,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub entries: u64,
    pub bytes: u64,
    pub seconds: f64,
}

impl Stats {
    pub fn describe(&self) -> String {
        let mb = self.bytes as f64 / (1024.0 * 1024.0);
        let rate = if self.seconds > 0.0 { mb / self.seconds } else { 0.0 };
        format!("{} entries, {} bytes, {:.3} s ({rate:.0} MB/s)", self.entries, self.bytes, self.seconds)
    }
}

pub fn encode_header(h: &SfttHeader) -> [u8; HEADER_LEN] {
    let mut b = Fixed::<HEADER_LEN>::new();
    b.put(MAGIC);
    b.put_u8(VERSION);
    let fen = h.root_pos.as_deref().unwrap_or_default().as_bytes();
    b.put(fen.get(..ROOT_POS.len()).unwrap_or(fen));
    b.skip_to(ROOT_POS.end);
    b.put_u64_le(h.nodes);
    b.put(&[h.root_depth, h.min_entry_depth]);
    b.into_array()
}

pub fn encode_entry(e: &TtEntry) -> [u8; ENTRY_LEN] {
    let mut b = Fixed::<ENTRY_LEN>::new();
    b.put_u64_le(e.key);
    b.put(&[e.depth8, e.gen_bound8]);
    b.put_u16_le(e.mv);
    b.put_i16_le(e.value);
    b.put_i16_le(e.eval);
    b.into_array()
}

/// Reads the entry at the cursor.
fn read_entry(r: &mut Reader) -> Result<TtEntry, Truncated> {
    let key = r.u64_le()?;
    let [depth8, gen_bound8] = r.array()?;
    Ok(TtEntry { key, depth8, gen_bound8, mv: r.u16_le()?, value: r.i16_le()?, eval: r.i16_le()? })
}

/// Validates and parses the header.
pub fn parse_header(bytes: &[u8]) -> Result<SfttHeader, SfttError> {
    let mut r = Reader::new(Reader::new(bytes).bytes(HEADER_LEN)?);
    if &r.array::<4>()? != MAGIC {
        return Err(SfttError::BadMagic);
    }
    let version = r.u8()?;
    if version != VERSION {
        return Err(SfttError::UnsupportedVersion { version });
    }
    let raw = r.bytes(ROOT_POS.len())?;
    let len = raw.iter().position(|&c| c == 0).unwrap_or(raw.len());
    if let Some(i) = raw[len..].iter().position(|&c| c != 0) {
        let offset = ROOT_POS.start + len + i;
        return Err(SfttError::BadRootPos { offset, reason: "non-NUL byte after the NUL padding".into() });
    }
    let root_pos = if len == 0 {
        None
    } else {
        let text = std::str::from_utf8(&raw[..len]).map_err(|e| SfttError::BadRootPos {
            offset: ROOT_POS.start + e.valid_up_to(),
            reason: "not UTF-8".into(),
        })?;
        Board::from_fen(text, false)
            .map_err(|e| SfttError::BadRootPos { offset: ROOT_POS.start, reason: format!("invalid FEN: {e}") })?;
        Some(text.to_string())
    };
    let (nodes, [root_depth, min_entry_depth]) = (r.u64_le()?, r.array()?);
    if let Some((i, &value)) = r.rest().iter().enumerate().find(|(_, &v)| v != 0) {
        return Err(SfttError::NonZeroReserved { offset: r.offset() + i, value });
    }
    Ok(SfttHeader { root_pos, nodes, root_depth, min_entry_depth })
}

/// Validates a whole file image; returns its header and entry count.
pub fn validate(bytes: &[u8]) -> Result<(SfttHeader, u64), SfttError> {
    let header = parse_header(bytes)?;
    let mut r = Reader::at(bytes, HEADER_LEN);
    let extra = (r.remaining() % ENTRY_LEN) as u64;
    if extra != 0 {
        let len = bytes.len() as u64;
        return Err(SfttError::BadSize { len, extra, offset: len - extra });
    }
    let count = r.remaining() / ENTRY_LEN;
    for i in 0..count {
        let index = i as u64;
        let offset = r.offset() as u64;
        let TtEntry { depth8, gen_bound8, .. } = read_entry(&mut r)?;
        if depth8 == 0 {
            return Err(SfttError::EmptyEntry { index, offset });
        }
        if gen_bound8 & 3 == 0 {
            return Err(SfttError::BadBound { index, offset });
        }
        let depth = depth8 as i32 + DEPTH_OFFSET;
        if depth < header.min_entry_depth as i32 {
            return Err(SfttError::BelowMinDepth { index, offset, depth, min: header.min_entry_depth });
        }
    }
    Ok((header, count as u64))
}

/// Iterates over the entries of a validated image.
pub fn entries(bytes: &[u8]) -> impl Iterator<Item = TtEntry> + '_ {
    let mut r = Reader::at(bytes, HEADER_LEN);
    std::iter::from_fn(move || read_entry(&mut r).ok())
}

/// Maps a file read-only.
pub fn map(path: &Path) -> Result<memmap2::Mmap, SfttError> {
    let file = File::open(path).at(path)?;
    Ok(crate::mapped::map_file(&file).at(path)?)
}

/// Saves every entry of `tt` whose depth is at least `header.min_entry_depth`,
/// streaming through an 8 MB buffer into a synced temporary file renamed over
/// `path` ([`crate::atomic_file`]).
pub fn save(tt: &TranspositionTable, header: &SfttHeader, path: &Path) -> Result<Stats, SfttError> {
    let start = Instant::now();
    let min = header.min_entry_depth as i32;
    let entries = crate::atomic_file::write_with(path, 8 << 20, |w| {
        w.write_all(&encode_header(header))?;
        let mut n = 0u64;
        for e in tt.entries() {
            if e.depth() >= min && e.gen_bound8 & 3 != 0 {
                w.write_all(&encode_entry(&e))?;
                n += 1;
            }
        }
        Ok(n)
    })
    .at(path)?;
    let bytes = (HEADER_LEN + ENTRY_LEN * entries as usize) as u64;
    Ok(Stats { entries, bytes, seconds: start.elapsed().as_secs_f64() })
}

/// Validates `path` completely, then inserts its entries into `tt` with the
/// normal replacement rule (a smaller table keeps the deepest entries). On
/// any error the table is untouched.
pub fn load(tt: &TranspositionTable, path: &Path) -> Result<(SfttHeader, Stats), SfttError> {
    let start = Instant::now();
    let map = map(path)?;
    let (header, count) = validate(&map)?;
    let generation = tt.generation();
    for mut e in entries(&map) {
        // Loaded entries count as current: they should not be the first to go.
        e.gen_bound8 = generation | (e.gen_bound8 & 7);
        tt.insert_entry(e);
    }
    let stats = Stats { entries: count, bytes: map.len() as u64, seconds: start.elapsed().as_secs_f64() };
    Ok((header, stats))
}

#[cfg(test)]
mod tests;
