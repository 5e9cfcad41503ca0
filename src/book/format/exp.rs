//! Experience files (`.exp`) of the SugaR family of engines (SugaR, Eman,
//! HypnoS, and the BrainLearn/ShashChess builds that share their learning
//! code): a signature, then fixed-size entries. All integers little-endian.
//!
//! | offset | size  | field     | validated |
//! |--------|-------|-----------|-----------|
//! | 0      | 26    | `"SugaR Experience version 2"` (version 2) | exact; told apart from version 1 by this longer signature |
//! | 0      | 5     | `"SugaR"` (version 1)                      | exact |
//! | s      | 24·n  | entries   | size must be exactly signature + 24·n; entry `i` starts at s + 24·i |
//!
//! Entry (24 bytes), one per (position, move):
//!
//! | offset | size | field   | meaning / validation |
//! |--------|------|---------|----------------------|
//! | 0      | 8    | key     | Stockfish's Zobrist key of the position (the engine key here, [`crate::board::zobrist`]) |
//! | 8      | 4    | move    | u32 holding a Stockfish 16-bit move (the engine move); must be below 65536, not 0 (none) and not from = to |
//! | 12     | 4    | value   | i32, Stockfish internal units, for the side to move; must be within ±32001 |
//! | 16     | 4    | depth   | i32 search depth; must be 0..=255 |
//! | 20     | 2    | count   | version 2: u16 times the move was played or searched; version 1 has no count (read as 1) |
//! | 22     | 2    | padding | version 2: must be zero; version 1: bytes 20–23 are padding (SugaR writes `00 FF 00 FF`), not checked |
//!
//! Sources: SugaR's `experience.h` (as kept in HypnoS: `V1::ExpEntry` and
//! `V2::ExpEntry`, both asserted to be 24 bytes) and `experience.cpp` (the
//! two signatures and their readers), cross-checked with Eman's experience
//! tools (26-byte signature, 24-byte stride, depth at +16, count at +20).
//! Not read: ShashChess's and BrainLearn's newer headerless `experience.exp`
//! (key, depth, score, move, performance) and SugaR's later 34-byte entries
//! behind a binary header; both are refused with a typed error (signature or
//! size), never misread.
//!
//! [`merge`] combines files as SugaR's own merge does: for one (key, move)
//! the counts add (capped at 65535), the deeper entry's value and depth win,
//! and equal depths average their values. [`to_yacb`] walks from root
//! positions through moves into positions the experience knows (the key
//! alone tells neither the position nor the side to move) and makes one
//! entry per position reached: the move with the greatest depth (then
//! count, then value) as best move, its value as centipawns for white
//! (`value · 100 / pawn_value`, `pawn_value` 208 = Stockfish 12–15's endgame
//! pawn; values of 10000 and beyond become "known win"), source engine,
//! bound exact, elo from the depth ([`crate::book::format::elo::estimate_for_depth`]).

use super::yacb::{BoundType, Elo, Source, ValueType, YacbEntry};
use crate::board::Board;
use crate::book::format::same_move;
use crate::codec::{Fixed, IoAt, PathIoError, Put, Reader, Truncated};
use crate::types::{Color, Move};
use std::collections::HashMap;
use std::path::Path;
use thiserror::Error;

pub const SIGNATURE_V1: &[u8] = b"SugaR";
pub const SIGNATURE_V2: &[u8] = b"SugaR Experience version 2";
pub const ENTRY_LEN: usize = 24;
/// Largest |value| accepted (Stockfish's VALUE_INFINITE).
pub const VALUE_MAX: i32 = 32_001;
/// Stockfish 12–15's endgame pawn value in internal units.
pub const DEFAULT_PAWN_VALUE: i32 = 208;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpVersion {
    V1,
    V2,
}

impl ExpVersion {
    pub fn signature(self) -> &'static [u8] {
        match self {
            ExpVersion::V1 => SIGNATURE_V1,
            ExpVersion::V2 => SIGNATURE_V2,
        }
    }
}

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExpError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("no experience signature at offset 0 (expected \"SugaR Experience version 2\" or \"SugaR\")")]
    BadSignature,
    #[error("size {len} is not signature + 24·n: {extra} trailing bytes at offset {offset}")]
    BadSize { len: u64, extra: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: move field {raw:#x} is not a move")]
    BadMove { index: u64, offset: u64, raw: u32 },
    #[error("entry {index} at offset {offset}: value {value} is outside ±32001")]
    BadValue { index: u64, offset: u64, value: i32 },
    #[error("entry {index} at offset {offset}: depth {depth} is outside 0..=255")]
    BadDepth { index: u64, offset: u64, depth: i32 },
    #[error("entry {index} at offset {offset}: padding is {value:#06x}, must be 0")]
    NonZeroPadding { index: u64, offset: u64, value: u16 },
}

/// One entry (version 1 entries read with count 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExpEntry {
    pub key: u64,
    pub mv: Move,
    pub value: i32,
    pub depth: i32,
    pub count: u16,
}

impl ExpEntry {
    pub fn encode(&self, version: ExpVersion) -> [u8; ENTRY_LEN] {
        let mut b = Fixed::<ENTRY_LEN>::new();
        b.put_u64_le(self.key);
        b.put_u32_le(self.mv.raw() as u32);
        b.put_i32_le(self.value);
        b.put_i32_le(self.depth);
        match version {
            ExpVersion::V2 => {
                b.put_u16_le(self.count);
                b.put_u16_le(0);
            }
            ExpVersion::V1 => b.put(&[0x00, 0xFF, 0x00, 0xFF]),
        }
        b.into_array()
    }

    /// Decodes and validates one entry (`index`/`offset` name it in errors).
    pub fn decode(b: &[u8; ENTRY_LEN], version: ExpVersion, index: u64, offset: u64) -> Result<ExpEntry, ExpError> {
        let mut r = Reader::new(b);
        let key = r.u64_le()?;
        let raw = r.u32_le()?;
        let mv = Move::from_raw(raw as u16);
        if raw > u16::MAX as u32 || mv.is_none() || mv.from() == mv.to() {
            return Err(ExpError::BadMove { index, offset: offset + 8, raw });
        }
        let value = r.i32_le()?;
        if !(-VALUE_MAX..=VALUE_MAX).contains(&value) {
            return Err(ExpError::BadValue { index, offset: offset + 12, value });
        }
        let depth = r.i32_le()?;
        if !(0..=255).contains(&depth) {
            return Err(ExpError::BadDepth { index, offset: offset + 16, depth });
        }
        let count = match version {
            ExpVersion::V1 => 1,
            ExpVersion::V2 => {
                let (count, pad) = (r.u16_le()?, r.u16_le()?);
                if pad != 0 {
                    return Err(ExpError::NonZeroPadding { index, offset: offset + 22, value: pad });
                }
                count
            }
        };
        Ok(ExpEntry { key, mv, value, depth, count })
    }
}

/// A parsed experience file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpFile {
    pub version: ExpVersion,
    pub entries: Vec<ExpEntry>,
}

/// Validates a whole file image (see the module table).
pub fn parse(bytes: &[u8]) -> Result<ExpFile, ExpError> {
    let version = if bytes.starts_with(SIGNATURE_V2) {
        ExpVersion::V2
    } else if bytes.starts_with(SIGNATURE_V1) {
        ExpVersion::V1
    } else {
        return Err(ExpError::BadSignature);
    };
    let mut r = Reader::at(bytes, version.signature().len());
    let extra = r.remaining() % ENTRY_LEN;
    if extra != 0 {
        let len = bytes.len() as u64;
        return Err(ExpError::BadSize { len, extra: extra as u64, offset: len - extra as u64 });
    }
    let count = r.remaining() / ENTRY_LEN;
    let mut entries = Vec::with_capacity(count);
    for i in 0..count {
        let offset = r.offset() as u64;
        entries.push(ExpEntry::decode(&r.array()?, version, i as u64, offset)?);
    }
    Ok(ExpFile { version, entries })
}

pub fn open(path: &Path) -> Result<ExpFile, ExpError> {
    parse(&crate::codec::read_file(path)?)
}

/// The image of `file` (its signature, then its entries).
pub fn encode(file: &ExpFile) -> Vec<u8> {
    let mut out = file.version.signature().to_vec();
    for e in &file.entries {
        out.extend_from_slice(&e.encode(file.version));
    }
    out
}

/// Writes `file` atomically (temporary file, sync, rename).
pub fn write(path: &Path, file: &ExpFile) -> Result<(), ExpError> {
    Ok(super::write_atomic(path, &encode(file)).at(path)?)
}

/// Merges the entries of `files` per (key, move), SugaR's way (see the
/// module doc); the result is in first-met order.
pub fn merge(files: &[ExpFile]) -> Vec<ExpEntry> {
    let mut out: Vec<ExpEntry> = Vec::new();
    let mut slot: HashMap<(u64, u16), usize> = HashMap::new();
    for e in files.iter().flat_map(|f| f.entries.iter()) {
        match slot.get(&(e.key, e.mv.raw())) {
            None => {
                slot.insert((e.key, e.mv.raw()), out.len());
                out.push(*e);
            }
            Some(&i) => {
                let m = &mut out[i];
                m.count = m.count.saturating_add(e.count);
                if e.depth > m.depth {
                    (m.value, m.depth) = (e.value, e.depth);
                } else if e.depth == m.depth {
                    m.value = (m.value + e.value) / 2;
                }
            }
        }
    }
    out
}

/// What an import carried over and left behind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub positions: usize,
    /// Entries (after merging) whose position the walk never reached.
    pub unreached_entries: usize,
    /// Entries whose move is not legal in the position they were reached in.
    pub illegal_moves: usize,
}

impl std::fmt::Display for ImportReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} positions", self.positions)?;
        if self.unreached_entries > 0 {
            write!(f, "; {} entries not reached from the roots", self.unreached_entries)?;
        }
        if self.illegal_moves > 0 {
            write!(f, "; {} illegal moves dropped", self.illegal_moves)?;
        }
        Ok(())
    }
}

/// The YACB value (type, centipawns for white) of an experience value for
/// the side to move `mover`.
pub fn yacb_value(value: i32, mover: Color, pawn_value: i32) -> (ValueType, i32) {
    let cp = value as i64 * 100 / pawn_value.max(1) as i64;
    let white = if mover == Color::White { cp } else { -cp };
    let kind = if value.abs() >= 10_000 { ValueType::KnownWin } else { ValueType::Centipawns };
    (kind, white.clamp(i16::MIN as i64 + 1, i16::MAX as i64) as i32)
}

/// One YACB entry per position reached from `roots` (see the module doc),
/// from merged experience entries.
pub fn to_yacb(entries: &[ExpEntry], roots: &[Board], pawn_value: i32) -> (Vec<YacbEntry>, ImportReport) {
    let mut by_key: HashMap<u64, Vec<&ExpEntry>> = HashMap::new();
    for e in entries {
        by_key.entry(e.key).or_default().push(e);
    }
    let mut out = Vec::new();
    let mut report = ImportReport::default();
    let mut used = 0usize;
    let visit = |board: &Board, legal: &crate::board::MoveList| {
        let Some(list) = by_key.get(&board.key()) else { return };
        used += list.len();
        let mut best: Option<(&ExpEntry, Move)> = None;
        for e in list {
            let Some(m) = legal.iter().find(|&m| same_move(m, e.mv)) else {
                report.illegal_moves += 1;
                continue;
            };
            if best.map_or(true, |(b, _)| (e.depth, e.count, e.value) > (b.depth, b.count, b.value)) {
                best = Some((e, m));
            }
        }
        let Some((e, m)) = best else { return };
        let (value_type, value) = yacb_value(e.value, board.side_to_move(), pawn_value);
        out.push(YacbEntry {
            key: board.key(),
            elo: Elo::rated(super::elo::estimate_for_depth(e.depth)),
            value_type,
            bound: BoundType::Exact,
            source: Source::Engine,
            value,
            best_move: m,
        });
    };
    super::walk_known(roots, usize::MAX, |b| b.key(), visit, |_: &(), _, child| by_key.contains_key(&child));
    report.positions = out.len();
    report.unreached_entries = entries.len() - used;
    (out, report)
}

#[cfg(test)]
mod tests;
