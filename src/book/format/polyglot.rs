//! Polyglot opening books ([docs/formats.md#polyglot](../../docs/formats.md#polyglot)). Big-endian.
//!
//! A book is a bare array of 16-byte entries, no header:
//!
//! | offset | size | field      | validated                                              |
//! |--------|------|------------|--------------------------------------------------------|
//! | 0      | 8    | key (u64)  | keys ascending (equal keys allowed, one entry per move) |
//! | 8      | 2    | move (u16) | bit 15 clear; promotion code (bits 12–14) 0..=4         |
//! | 10     | 2    | weight     | — (0 is kept; selection never picks it)                 |
//! | 12     | 4    | learn      | —                                                       |
//!
//! The file length must be a multiple of 16 (the real `polyglot` tool and
//! python-chess's reader differ here: the tool accepts anything silently).
//! Entry `i` starts at offset `16·i`.
//!
//! Move field: bits 0–2 to-file, 3–5 to-row, 6–8 from-file, 9–11 from-row,
//! 12–14 promotion (none 0, N 1, B 2, R 3, Q 4). Castling is king-takes-rook
//! (`e1h1`, `e1a1`, `e8h8`, `e8a8`; in Chess960 the king's square to its
//! rook's square), which is also the engine's own castling move. In standard
//! chess the king-to-destination form (`e1g1` …) that some books use is
//! accepted as castling too, as python-chess does. A raw move that is not a
//! legal move of the probed position (hash collision, garbage, a drop with
//! from = to) is skipped, never played.
//!
//! Keys: [`polyglot_key`]. For Chess960 the seed describes an extended
//! 16-entry `RandomCastle` table whose values were never published ("to be
//! filled in"); xboard, which the seed names as the implementer, and
//! python-chess both hash castling rights by side only (entries 768..772, one
//! per colour and wing whichever rook holds the right). This module does the
//! same, so a Chess960 position with two rooks on one wing of its king and
//! rights for the inner one shares its key with the outer-rook position: the
//! seed's "outer rook" convention is the limitation.
//!
//! Tools: [`merge`] (as `polyglot merge-book`), [`edit`] (one position's weights).

use crate::board::notation::{castling_king_target, to_polyglot_move};
use crate::board::zobrist::polyglot_key;
use crate::board::{Board, MoveList};
use crate::codec::FileBytes as Storage;
use crate::codec::{Fixed, IoAt, PathIoError, Put, Reader, Truncated};
use crate::types::{Move, PieceType, Square};
use std::path::Path;
use thiserror::Error;

pub mod edit;
pub mod merge;

/// Bytes per entry.
pub const ENTRY_LEN: usize = 16;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PolyglotError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error("size {len} is not a multiple of 16: {extra} trailing bytes at offset {offset}")]
    BadSize { len: u64, extra: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: key {key:016x} is below the previous key {previous:016x} (keys must be sorted)")]
    UnsortedKeys { index: u64, offset: u64, key: u64, previous: u64 },
    #[error("entry {index} at offset {offset}: move field {raw:#06x} is invalid: {reason}")]
    BadMove { index: u64, offset: u64, raw: u16, reason: &'static str },
}

/// One 16-byte record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct PolyglotEntry {
    pub key: u64,
    pub raw_move: u16,
    pub weight: u16,
    pub learn: u32,
}

impl PolyglotEntry {
    /// Reads the entry at the cursor.
    pub fn read(r: &mut Reader) -> Result<PolyglotEntry, Truncated> {
        Ok(PolyglotEntry { key: r.u64_be()?, raw_move: r.u16_be()?, weight: r.u16_be()?, learn: r.u32_be()? })
    }

    pub fn from_bytes(b: &[u8; ENTRY_LEN]) -> PolyglotEntry {
        // The array holds exactly one entry: the read cannot fail.
        PolyglotEntry::read(&mut Reader::new(b)).unwrap_or_default()
    }

    /// Appends the entry's 16 bytes.
    pub fn put(&self, out: &mut impl Put) {
        out.put_u64_be(self.key);
        out.put_u16_be(self.raw_move);
        out.put_u16_be(self.weight);
        out.put_u32_be(self.learn);
    }

    pub fn to_bytes(&self) -> [u8; ENTRY_LEN] {
        let mut b = Fixed::<ENTRY_LEN>::new();
        self.put(&mut b);
        b.into_array()
    }
}

/// A book move converted to a legal engine move of the probed position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolyglotMove {
    /// The engine move (castling king-takes-rook).
    pub mv: Move,
    pub raw_move: u16,
    pub weight: u16,
    pub learn: u32,
}

/// Why a move field is invalid, if it is.
pub fn check_move_field(raw: u16) -> Result<(), &'static str> {
    if raw & 0x8000 != 0 {
        return Err("bit 15 is set");
    }
    if (raw >> 12 & 7) > 4 {
        return Err("promotion code above 4 (queen)");
    }
    Ok(())
}

/// Validates a whole book image; returns the number of entries.
pub fn parse(bytes: &[u8]) -> Result<usize, PolyglotError> {
    let len = bytes.len();
    let extra = len % ENTRY_LEN;
    if extra != 0 {
        return Err(PolyglotError::BadSize { len: len as u64, extra: extra as u64, offset: (len - extra) as u64 });
    }
    let mut previous = 0u64;
    let mut r = Reader::new(bytes);
    let mut index = 0;
    while let (offset, Ok(e)) = (r.offset() as u64, PolyglotEntry::read(&mut r)) {
        if e.key < previous {
            return Err(PolyglotError::UnsortedKeys { index: index as u64, offset, key: e.key, previous });
        }
        if let Err(reason) = check_move_field(e.raw_move) {
            return Err(PolyglotError::BadMove { index: index as u64, offset, raw: e.raw_move, reason });
        }
        previous = e.key;
        index += 1;
    }
    Ok(len / ENTRY_LEN)
}

/// A validated Polyglot book, memory-mapped (or owned, for books built in memory).
pub struct PolyglotBook {
    storage: Storage,
    len: usize,
}

impl std::fmt::Debug for PolyglotBook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolyglotBook").field("entries", &self.len).finish()
    }
}

impl PolyglotBook {
    /// Maps and validates the book at `path`.
    pub fn open(path: &Path) -> Result<PolyglotBook, PolyglotError> {
        let file = std::fs::File::open(path).at(path)?;
        let size = file.metadata().at(path)?.len();
        if size == 0 {
            return Ok(PolyglotBook { storage: Storage::Owned(Vec::new()), len: 0 });
        }
        let map = crate::mapped::map_file(&file).at(path)?;
        let len = parse(&map)?;
        Ok(PolyglotBook { storage: Storage::Mapped(map), len })
    }

    /// Validates an in-memory book image.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<PolyglotBook, PolyglotError> {
        let len = parse(&bytes)?;
        Ok(PolyglotBook { storage: Storage::Owned(bytes), len })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The raw file image.
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.bytes()
    }

    /// Entry `index`, or `None` past the end.
    pub fn entry(&self, index: usize) -> Option<PolyglotEntry> {
        PolyglotEntry::read(&mut Reader::at(self.storage.bytes(), index.checked_mul(ENTRY_LEN)?)).ok()
    }

    fn key_at(&self, index: usize) -> u64 {
        let start = index * ENTRY_LEN;
        match self.storage.bytes().get(start..start + 8) {
            Some(k) => k.iter().fold(0u64, |acc, &b| acc << 8 | b as u64),
            None => u64::MAX,
        }
    }

    /// Every entry in file order.
    pub fn iter(&self) -> impl Iterator<Item = PolyglotEntry> + '_ {
        (0..self.len).filter_map(move |i| self.entry(i))
    }

    /// Index range of the entries with `key` (binary search for the first).
    pub fn range(&self, key: u64) -> std::ops::Range<usize> {
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut end = lo;
        while end < self.len && self.key_at(end) == key {
            end += 1;
        }
        lo..end
    }

    /// Every entry with `key`, in file order.
    pub fn entries(&self, key: u64) -> impl Iterator<Item = PolyglotEntry> + '_ {
        self.range(key).filter_map(move |i| self.entry(i))
    }

    pub fn contains_key(&self, key: u64) -> bool {
        !self.range(key).is_empty()
    }

    /// The entries of `board` whose moves are legal there, in file order,
    /// weight 0 included (as python-chess's `find_all(board, minimum_weight=0)`).
    pub fn moves(&self, board: &Board) -> Vec<PolyglotMove> {
        let range = self.range(polyglot_key(board));
        if range.is_empty() {
            return Vec::new();
        }
        let legal = board.legal_moves();
        range
            .filter_map(|i| self.entry(i))
            .filter_map(|e| {
                let mv = decode_move(board, &legal, e.raw_move)?;
                Some(PolyglotMove { mv, raw_move: e.raw_move, weight: e.weight, learn: e.learn })
            })
            .collect()
    }
}

/// The legal move of `board` (whose legal moves are `legal`) for a raw
/// Polyglot move field, if there is one.
pub fn decode_move(board: &Board, legal: &MoveList, raw: u16) -> Option<Move> {
    check_move_field(raw).ok()?;
    let to = Square::new((raw & 63) as u8);
    let from = Square::new((raw >> 6 & 63) as u8);
    let promo = match raw >> 12 & 7 {
        0 => None,
        1 => Some(PieceType::Knight),
        2 => Some(PieceType::Bishop),
        3 => Some(PieceType::Rook),
        _ => Some(PieceType::Queen),
    };
    if from == to {
        return None;
    }
    legal.iter().find(|&m| {
        m.from() == from
            && m.promotion_piece() == promo
            && (m.to() == to || (m.is_castling() && !board.is_chess960() && castling_king_target(m) == to))
    })
}

/// The Polyglot entry for a legal move `m` of `board`.
pub fn entry_for(board: &Board, m: Move, weight: u16, learn: u32) -> PolyglotEntry {
    PolyglotEntry { key: polyglot_key(board), raw_move: to_polyglot_move(m), weight, learn }
}

/// Book order: keys ascending, heaviest first within a key, equal weights in
/// their given order (a stable sort, as `polyglot make-book`'s glibc qsort,
/// which is a merge sort, leaves them).
pub fn sort_entries(entries: &mut [PolyglotEntry]) {
    entries.sort_by(|a, b| a.key.cmp(&b.key).then(b.weight.cmp(&a.weight)));
}

/// The file image of `entries` in book order.
pub fn encode(entries: &[PolyglotEntry]) -> Vec<u8> {
    let mut sorted = entries.to_vec();
    sort_entries(&mut sorted);
    let mut out = Vec::with_capacity(sorted.len() * ENTRY_LEN);
    for e in &sorted {
        e.put(&mut out);
    }
    out
}

/// Writes `entries` in book order (temporary file, sync, rename).
pub fn write_book(path: &Path, entries: &[PolyglotEntry]) -> Result<(), PolyglotError> {
    Ok(super::write_atomic(path, &encode_book(entries)?).at(path)?)
}

/// The image [`write_book`] writes: [`encode`] after every move field is
/// checked.
pub fn encode_book(entries: &[PolyglotEntry]) -> Result<Vec<u8>, PolyglotError> {
    for (index, e) in entries.iter().enumerate() {
        if let Err(reason) = check_move_field(e.raw_move) {
            let offset = (index * ENTRY_LEN) as u64;
            return Err(PolyglotError::BadMove { index: index as u64, offset, raw: e.raw_move, reason });
        }
    }
    Ok(encode(entries))
}

#[cfg(test)]
mod tests;
