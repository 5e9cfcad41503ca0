//! YACB: the engine's own opening book ([docs/formats.md#yacb](../../docs/formats.md#yacb)). All integers
//! little-endian.
//!
//! | offset | size   | field      | validated                                         |
//! |--------|--------|------------|---------------------------------------------------|
//! | 0      | 4      | `"YACB"`   | exact                                             |
//! | 4      | 1      | version    | must be 0                                         |
//! | 5      | 1      | key_type   | 0 engine (Stockfish) keys, 1 embedded Zobrist table |
//! | 6      | 26     | reserved   | all zero                                          |
//! | 32     | 6248   | Zobrist    | only when key_type = 1: 781 u64, Polyglot order   |
//! | …      | 16·n   | entries    | size must be exactly header + table + 16·n       |
//!
//! Entry (16 bytes), keys strictly ascending:
//!
//! | offset | size | field      | meaning / validation                                         |
//! |--------|------|------------|--------------------------------------------------------------|
//! | 0      | 8    | key        | position key (engine key, or Polyglot algorithm with the table) |
//! | 8      | 2    | elo        | i16 Elo of the analysis vs the baseline; 0xFFFF = irreplaceable |
//! | 10     | 1    | value_meta | bits 7–5 value type (0–4; 5–7 rejected), 4–3 bound, 2–1 source, bit 0 must be 0 |
//! | 11     | 1    | reserved   | must be 0                                                    |
//! | 12     | 2    | value      | i16 (cp, DTZ, DTM, white's view) or u16 perf% 0..=40000      |
//! | 14     | 2    | best_move  | engine move; checked for legality before use                  |
//!
//! [`YacbBook::open`] checks the header, the table and the size (instant, so
//! books larger than RAM work); [`YacbBook::verify`] checks every entry.
//! Lookups ([`YacbBook::find`]) use an in-memory fence index (every 64th
//! key, at most 2^20 of them = 8 MB, built on the first lookup) and
//! interpolation over the uniformly distributed keys, and validate the entry
//! they return.

use crate::board::zobrist::polyglot_key_with;
use crate::board::Board;
use crate::codec::FileBytes as Bytes;
use crate::codec::{Fixed, IoAt, PathIoError, Put, Reader, Truncated};
use crate::types::Move;
use std::fs::File;
use std::path::Path;
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"YACB";
pub const HEADER_LEN: usize = 32;
pub const TABLE_LEN: usize = 781 * 8;
pub const ENTRY_LEN: usize = 16;
pub const PERF_MAX: u16 = 40_000;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum YacbError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("bad magic at offset 0: expected \"YACB\"")]
    BadMagic,
    #[error("unsupported version {version} at offset 4 (expected 0)")]
    UnsupportedVersion { version: u8 },
    #[error("unknown key_type {key_type} at offset 5 (expected 0 or 1)")]
    BadKeyType { key_type: u8 },
    #[error("reserved byte at offset {offset} is {value:#04x}, must be 0")]
    NonZeroReserved { offset: u64, value: u8 },
    #[error("size {len} is not header + table + 16·n: {extra} trailing bytes at offset {offset}")]
    BadSize { len: u64, extra: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: key not greater than the previous one (unsorted or duplicate)")]
    UnsortedKeys { index: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: value type {value_type} is reserved")]
    BadValueType { index: u64, offset: u64, value_type: u8 },
    #[error("entry {index} at offset {offset}: perf% {value} is above 40000")]
    PerfOutOfRange { index: u64, offset: u64, value: u16 },
    #[error("entry {index}: {reason}")]
    InvalidEntry { index: u64, reason: String },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    Centipawns = 0,
    KnownWin = 1,
    Dtz = 2,
    Dtm = 3,
    Perf = 4,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BoundType {
    Exact = 0,
    Lower = 1,
    Upper = 2,
    Proven = 3,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    Tt = 0,
    Engine = 1,
    Statistical = 2,
    Other = 3,
}

/// Elo of the analysis behind an entry, relative to the seed's baseline
/// (Stockfish, 1 thread, 1M nodes per move = 0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Elo {
    Rated(i16),
    /// 0xFFFF: never replaced; ranks above every rated value.
    Irreplaceable,
}

impl Elo {
    /// An estimate as stored: −1 would collide with 0xFFFF, so it becomes −2.
    pub fn rated(v: i32) -> Elo {
        let v = v.clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        Elo::Rated(if v == -1 { -2 } else { v })
    }

    pub fn raw(self) -> u16 {
        match self {
            Elo::Irreplaceable => 0xFFFF,
            Elo::Rated(v) => v as u16,
        }
    }

    pub fn from_raw(raw: u16) -> Elo {
        if raw == 0xFFFF {
            Elo::Irreplaceable
        } else {
            Elo::Rated(raw as i16)
        }
    }

    /// Ordering key: irreplaceable above everything.
    pub fn rank(self) -> i32 {
        match self {
            Elo::Irreplaceable => i32::MAX,
            Elo::Rated(v) => v as i32,
        }
    }
}

/// One decoded entry. `value` is white's view (i16) or perf% (0..=40000).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct YacbEntry {
    pub key: u64,
    pub elo: Elo,
    pub value_type: ValueType,
    pub bound: BoundType,
    pub source: Source,
    pub value: i32,
    pub best_move: Move,
}

impl YacbEntry {
    pub fn encode(&self) -> [u8; ENTRY_LEN] {
        let v: u16 = match self.value_type {
            ValueType::Perf => self.value.clamp(0, PERF_MAX as i32) as u16,
            _ => self.value.clamp(i16::MIN as i32, i16::MAX as i32) as i16 as u16,
        };
        let mut b = Fixed::<ENTRY_LEN>::new();
        b.put_u64_le(self.key);
        b.put_u16_le(self.elo.raw());
        b.put_u8((self.value_type as u8) << 5 | (self.bound as u8) << 3 | (self.source as u8) << 1);
        b.put_u8(0);
        b.put_u16_le(v);
        b.put_u16_le(self.best_move.raw());
        b.into_array()
    }

    /// Decodes and validates one entry (`index`/`offset` name it in errors).
    pub fn decode(b: &[u8; ENTRY_LEN], index: u64, offset: u64) -> Result<YacbEntry, YacbError> {
        let mut r = Reader::new(b);
        let (key, elo, meta, reserved) = (r.u64_le()?, r.u16_le()?, r.u8()?, r.u8()?);
        let (raw, best_move) = (r.u16_le()?, r.u16_le()?);
        let value_type = match meta >> 5 {
            0 => ValueType::Centipawns,
            1 => ValueType::KnownWin,
            2 => ValueType::Dtz,
            3 => ValueType::Dtm,
            4 => ValueType::Perf,
            t => return Err(YacbError::BadValueType { index, offset, value_type: t }),
        };
        if meta & 1 != 0 {
            return Err(YacbError::NonZeroReserved { offset: offset + 10, value: meta & 1 });
        }
        if reserved != 0 {
            return Err(YacbError::NonZeroReserved { offset: offset + 11, value: reserved });
        }
        let value = if value_type == ValueType::Perf {
            if raw > PERF_MAX {
                return Err(YacbError::PerfOutOfRange { index, offset, value: raw });
            }
            raw as i32
        } else {
            raw as i16 as i32
        };
        Ok(YacbEntry {
            key,
            elo: Elo::from_raw(elo),
            value_type,
            bound: [BoundType::Exact, BoundType::Lower, BoundType::Upper, BoundType::Proven][(meta >> 3 & 3) as usize],
            source: [Source::Tt, Source::Engine, Source::Statistical, Source::Other][(meta >> 1 & 3) as usize],
            value,
            best_move: Move::from_raw(best_move),
        })
    }
}

/// How keys are computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyType {
    /// key_type 0: the engine (Stockfish) key.
    Engine,
    /// key_type 1: the Polyglot algorithm with this table.
    Zobrist(Box<[u64; 781]>),
}

impl KeyType {
    pub fn key(&self, board: &Board) -> u64 {
        match self {
            KeyType::Engine => board.key(),
            KeyType::Zobrist(t) => polyglot_key_with(board, t),
        }
    }

    fn code(&self) -> u8 {
        match self {
            KeyType::Engine => 0,
            KeyType::Zobrist(_) => 1,
        }
    }
}

pub struct YacbBook {
    bytes: Bytes,
    key_type: KeyType,
    start: usize,
    count: usize,
    /// Built on the first lookup (see [`YacbBook::find`]).
    fences: std::sync::OnceLock<Fences>,
}

/// Every `stride`-th key, kept in memory: `keys[j]` is the key of entry
/// `j · stride`.
struct Fences {
    stride: usize,
    keys: Vec<u64>,
}

/// Fewest entries between fences (1 KB of entries): the in-memory index is
/// 1/128 of the book, and the interpolation inside a stretch lands within a
/// cache line or two. `make book-bench` measured strides 256 / 128 / 64 at
/// about 5.0 / 5.7 / 6.0M hits/s on a 10M-entry book.
const FENCE_STRIDE_MIN: usize = 64;
/// Most fences (8 MB of keys): books above 64M entries get a longer stride.
const FENCES_MAX: usize = 1 << 20;

/// Entries between fences for a book of `count` entries.
fn fence_stride(count: usize) -> usize {
    FENCE_STRIDE_MIN.max(count.div_ceil(FENCES_MAX).next_power_of_two())
}

impl YacbBook {
    /// Maps `path` and checks header, table and size (not every entry).
    pub fn open(path: &Path) -> Result<YacbBook, YacbError> {
        let file = File::open(path).at(path)?;
        let map = crate::mapped::map_file(&file).at(path)?;
        YacbBook::from_bytes(Bytes::Mapped(map))
    }

    pub fn from_vec(bytes: Vec<u8>) -> Result<YacbBook, YacbError> {
        YacbBook::from_bytes(Bytes::Owned(bytes))
    }

    fn from_bytes(bytes: Bytes) -> Result<YacbBook, YacbError> {
        let len = bytes.len() as u64;
        let mut r = Reader::new(&bytes);
        let mut h = Reader::new(r.bytes(HEADER_LEN)?);
        if &h.array::<4>()? != MAGIC {
            return Err(YacbError::BadMagic);
        }
        let (version, key_type) = (h.u8()?, h.u8()?);
        if version != 0 {
            return Err(YacbError::UnsupportedVersion { version });
        }
        if let Some((i, &v)) = h.rest().iter().enumerate().find(|(_, &v)| v != 0) {
            return Err(YacbError::NonZeroReserved { offset: 6 + i as u64, value: v });
        }
        let key_type = match key_type {
            0 => KeyType::Engine,
            1 => {
                let mut t = Reader::new(r.bytes(TABLE_LEN)?);
                let mut table = Box::new([0u64; 781]);
                for slot in table.iter_mut() {
                    *slot = t.u64_le()?;
                }
                KeyType::Zobrist(table)
            }
            k => return Err(YacbError::BadKeyType { key_type: k }),
        };
        let (start, body) = (r.offset(), r.remaining());
        let extra = (body % ENTRY_LEN) as u64;
        if extra != 0 {
            return Err(YacbError::BadSize { len, extra, offset: len - extra });
        }
        Ok(YacbBook { count: body / ENTRY_LEN, bytes, key_type, start, fences: std::sync::OnceLock::new() })
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    pub fn key_type(&self) -> &KeyType {
        &self.key_type
    }

    #[inline]
    fn raw(&self, i: usize) -> &[u8; ENTRY_LEN] {
        let o = self.start + i * ENTRY_LEN;
        // In bounds: i < count and the size was checked at open.
        self.bytes.get(o..o + ENTRY_LEN).and_then(|s| s.try_into().ok()).unwrap_or(&[0; ENTRY_LEN])
    }

    #[inline]
    fn key_at(&self, i: usize) -> u64 {
        self.raw(i).first_chunk().map_or(0, |k| u64::from_le_bytes(*k))
    }

    pub fn entry(&self, i: usize) -> Result<YacbEntry, YacbError> {
        YacbEntry::decode(self.raw(i), i as u64, (self.start + i * ENTRY_LEN) as u64)
    }

    /// Validates every entry: sorted unique keys, value types, perf range,
    /// reserved bits.
    pub fn verify(&self) -> Result<(), YacbError> {
        let mut prev: Option<u64> = None;
        for i in 0..self.count {
            let e = self.entry(i)?;
            if prev.is_some_and(|p| e.key <= p) {
                return Err(YacbError::UnsortedKeys { index: i as u64, offset: (self.start + i * ENTRY_LEN) as u64 });
            }
            prev = Some(e.key);
        }
        Ok(())
    }

    /// Bytes of the in-memory fence index (0 until the first lookup).
    pub fn index_bytes(&self) -> usize {
        self.fences.get().map_or(0, |f| f.keys.len() * 8)
    }

    fn fences(&self) -> &Fences {
        self.fences.get_or_init(|| {
            let stride = fence_stride(self.count);
            Fences { stride, keys: (0..self.count).step_by(stride).map(|i| self.key_at(i)).collect() }
        })
    }

    /// Index of `key`, in two steps that both use the uniform spread of the
    /// keys but stay correct for any sorted book:
    /// 1. the fence index (every 64th key, in memory, built on the first
    ///    lookup) gives the stretch of at most 64 entries (more in books of
    ///    over 64M entries) that can hold `key`: an interpolated guess, walked a
    ///    few fences to the right one (binary search over the fences when
    ///    the walk is long: keys that are not uniform);
    /// 2. inside the stretch, interpolation between its two fence keys
    ///    (already in memory) gives one probe, usually within a cache line
    ///    or two of the entry, and a short scan finishes.
    ///
    /// So a lookup costs about one random read of the mapped file.
    pub fn find(&self, key: u64) -> Option<usize> {
        if self.count == 0 {
            return None;
        }
        let f = self.fences();
        let m = f.keys.len();
        // Step 1: the last fence whose key is <= key.
        // Uniform keys put the guess within a few fences of the answer, so
        // walk from it (contiguous memory); give up after 32 steps.
        let mut j = ((key as u128 * m as u128) >> 64) as usize;
        let mut steps = 0;
        while steps < 32 && j > 0 && f.keys[j] > key {
            j -= 1;
            steps += 1;
        }
        while steps < 32 && j + 1 < m && f.keys[j + 1] <= key {
            j += 1;
            steps += 1;
        }
        if steps == 32 {
            j = match f.keys.partition_point(|&k| k <= key) {
                0 => return None,
                p => p - 1,
            };
        }
        if f.keys[j] > key {
            return None;
        }
        // Step 2: interpolate between the fences, then scan.
        let lo = j * f.stride;
        let hi = ((j + 1) * f.stride).min(self.count) - 1;
        let (klo, khi) = (f.keys[j], if j + 1 < m { f.keys[j + 1] } else { self.key_at(hi) });
        if key == klo {
            return Some(lo);
        }
        if key > khi && j + 1 == m {
            return None;
        }
        // A guess only (clamped, then corrected by the scan): f64 is precise enough.
        let width = (khi.max(klo + 1) - klo) as f64;
        let mut pos = (lo + ((key - klo) as f64 / width * (hi - lo) as f64) as usize).clamp(lo, hi);
        let k = self.key_at(pos);
        if k < key {
            while pos < hi {
                pos += 1;
                match self.key_at(pos).cmp(&key) {
                    std::cmp::Ordering::Less => {}
                    std::cmp::Ordering::Equal => return Some(pos),
                    std::cmp::Ordering::Greater => return None,
                }
            }
            None
        } else if k > key {
            while pos > lo {
                pos -= 1;
                match self.key_at(pos).cmp(&key) {
                    std::cmp::Ordering::Greater => {}
                    std::cmp::Ordering::Equal => return Some(pos),
                    std::cmp::Ordering::Less => return None,
                }
            }
            None
        } else {
            Some(pos)
        }
    }

    /// The validated entry for `key`, if any (a corrupt entry reads as absent).
    pub fn lookup(&self, key: u64) -> Option<YacbEntry> {
        self.find(key).and_then(|i| self.entry(i).ok())
    }

    /// The entry of a position.
    pub fn probe(&self, board: &Board) -> Option<YacbEntry> {
        self.lookup(self.key_type.key(board))
    }

    pub fn iter(&self) -> impl Iterator<Item = Result<YacbEntry, YacbError>> + '_ {
        (0..self.count).map(|i| self.entry(i))
    }
}

/// The bytes before the entries: the header and, for key_type 1, the table.
/// Streaming writers (`book build`) write these, then entries in key order.
pub fn header(key_type: &KeyType) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    bytes.put(MAGIC);
    bytes.put_u8(0);
    bytes.put_u8(key_type.code());
    bytes.resize(HEADER_LEN, 0);
    if let KeyType::Zobrist(t) = key_type {
        for &v in t.iter() {
            bytes.put_u64_le(v);
        }
    }
    bytes
}

/// Sorts, removes duplicates (the higher elo wins; ties keep the first) and
/// validates `entries`, then writes a book through a temporary file that is
/// synced and renamed over `path`. Refuses to write an invalid book.
pub fn write(path: &Path, key_type: &KeyType, entries: Vec<YacbEntry>) -> Result<u64, YacbError> {
    let (bytes, count) = encode(key_type, entries)?;
    crate::book::format::write_atomic(path, &bytes).at(path)?;
    Ok(count)
}

/// The book image [`write()`] writes, and its entry count.
pub fn encode(key_type: &KeyType, mut entries: Vec<YacbEntry>) -> Result<(Vec<u8>, u64), YacbError> {
    for (i, e) in entries.iter().enumerate() {
        let bad = match e.value_type {
            ValueType::Perf => !(0..=PERF_MAX as i32).contains(&e.value),
            _ => !(i16::MIN as i32..=i16::MAX as i32).contains(&e.value),
        };
        if bad {
            return Err(YacbError::InvalidEntry {
                index: i as u64,
                reason: format!("value {} out of range for {:?}", e.value, e.value_type),
            });
        }
    }
    entries.sort_by_key(|e| e.key);
    let mut unique: Vec<YacbEntry> = Vec::with_capacity(entries.len());
    for e in entries {
        match unique.last_mut() {
            Some(last) if last.key == e.key => {
                if e.elo.rank() > last.elo.rank() && last.elo != Elo::Irreplaceable {
                    *last = e;
                }
            }
            _ => unique.push(e),
        }
    }
    let mut bytes = header(key_type);
    bytes.reserve(unique.len() * ENTRY_LEN);
    for e in &unique {
        bytes.extend_from_slice(&e.encode());
    }
    Ok((bytes, unique.len() as u64))
}

#[cfg(test)]
mod tests;
