//! The search-state file: the move-ordering and correction histories a
//! search has learnt, its killers, counter moves and root move order, saved
//! beside an SFTT hash file (as `<Hash File>.hist`) so that a later session
//! that loads the table also starts with the statistics that shaped it: a
//! deeper search of the saved position then goes on node for node as the
//! saved search would have. Without them a warm start re-searches much of
//! the tree: reductions and pruning depend on the histories, so a search
//! with empty ones asks the table for depths it never stored.
//!
//! All integers little-endian:
//!
//! | offset | size | field                                              |
//! |--------|------|----------------------------------------------------|
//! | 0      | 4    | magic `ARSS`                                       |
//! | 4      | 4    | version, u32 = 1                                   |
//! | 8      | 4    | section count `n`, u32                             |
//! | 12     | …    | `n` sections, one after the other (below)          |
//! | end-8  | 8    | FNV-1a 64 of every byte before it, u64             |
//!
//! A section:
//!
//! | offset | size    | field                                           |
//! |--------|---------|-------------------------------------------------|
//! | 0      | 4       | tag, 4 ASCII bytes (below)                      |
//! | 4      | 1       | element kind: 1 = i16, 2 = i32                  |
//! | 5      | 3       | zero                                            |
//! | 8      | 8       | element count `c`, u64                          |
//! | 16     | 2c / 4c | the elements                                    |
//!
//! The tables, by tag: the histories `BFLY` (butterfly, i32), `CONT`
//! (continuation), `CAPT` (captures) and the corrections `PCOR`, `NPCR`
//! (i16); and the moves, as raw 16-bit codes in i32 (0 = none): `CMOV` the
//! counter moves `[piece][to]`, `KILL` the two killers per ply, `ROOT` the
//! root position's key (four 16-bit parts, low first) then its root moves
//! in the order the search left them, zero-padded to 256. A move restored
//! is only a hint: the search plays none it has not checked legal.
//!
//! Validated before anything is restored: magic, version, checksum, each
//! known tag's kind and count (they are fixed by the build), and every
//! value within the bound its table keeps. A tag this build does not know is
//! skipped (a newer build's extra table); a known tag that is missing leaves
//! its table empty.

use crate::codec::{fnv1a64, Put, Reader, Truncated};
use crate::types::Move;
use thiserror::Error;

/// The bound of a move table's values: raw 16-bit move codes.
const MOVE_BOUND: i32 = u16::MAX as i32;

/// The move tables' tags: counter moves, killers, root key and order.
pub const MOVE_TAGS: [[u8; 4]; 3] = [*b"CMOV", *b"KILL", *b"ROOT"];

/// A move table to write.
pub fn move_table(tag: [u8; 4], raw: &[i32]) -> Named<Table<'_>> {
    Named { tag, bound: MOVE_BOUND, table: Table::I32(raw) }
}

/// A move table to restore into.
pub fn move_table_mut(tag: [u8; 4], raw: &mut [i32]) -> Named<TableMut<'_>> {
    Named { tag, bound: MOVE_BOUND, table: TableMut::I32(raw) }
}

/// The `ROOT` table's length: four key parts and room for every legal move.
pub const ROOT_LEN: usize = 4 + 256;

/// Moves as a move table's values.
pub fn raw_moves<'a>(moves: impl Iterator<Item = &'a Move>) -> Vec<i32> {
    moves.map(|m| i32::from(m.raw())).collect()
}

/// A move table's value as a move (a negative one, which the bound lets
/// through, is no move).
pub fn move_of(raw: i32) -> Move {
    u16::try_from(raw).map_or(Move::NONE, Move::from_raw)
}

/// A position key as four 16-bit values, low first.
pub fn key_parts(key: u64) -> [i32; 4] {
    [0, 1, 2, 3].map(|i| (key >> (16 * i) & 0xFFFF) as i32)
}

/// The key of [`key_parts`]'s values.
pub fn key_of(parts: &[i32]) -> u64 {
    parts.iter().take(4).enumerate().fold(0, |k, (i, &p)| k | (p as u64 & 0xFFFF) << (16 * i))
}

/// One table as the search holds it.
pub enum Table<'a> {
    I16(&'a [i16]),
    I32(&'a [i32]),
}

/// One table to restore into.
pub enum TableMut<'a> {
    I16(&'a mut [i16]),
    I32(&'a mut [i32]),
}

/// A named table with the magnitude its values never exceed.
pub struct Named<T> {
    pub tag: [u8; 4],
    pub bound: i32,
    pub table: T,
}

#[derive(Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum StateError {
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("not a search-state file (bad magic at offset 0)")]
    BadMagic,
    #[error("unsupported version {version} at offset 4")]
    UnsupportedVersion { version: u32 },
    #[error("checksum mismatch at offset {offset}")]
    BadChecksum { offset: usize },
    #[error("section {tag} at offset {offset}: unknown element kind {kind}")]
    BadKind { tag: String, offset: usize, kind: u8 },
    #[error("section {tag} at offset {offset}: {found} elements of kind {kind}, this build keeps {expected}")]
    WrongShape { tag: String, offset: usize, kind: u8, found: u64, expected: u64 },
    #[error("section {tag}: value {value} at offset {offset} is outside ±{bound}")]
    OutOfRange { tag: String, offset: usize, value: i32, bound: i32 },
    #[error("{0} bytes after the checksum")]
    TrailingBytes(usize),
}

const MAGIC: &[u8; 4] = b"ARSS";
const VERSION: u32 = 1;

fn tag_text(tag: [u8; 4]) -> String {
    String::from_utf8_lossy(&tag).into_owned()
}

/// The file's bytes for `tables`.
pub fn write(tables: &[Named<Table>]) -> Vec<u8> {
    let mut out = Vec::new();
    out.put(MAGIC);
    out.put_u32_le(VERSION);
    out.put_u32_le(tables.len() as u32);
    for t in tables {
        out.put(&t.tag);
        let (kind, count) = match t.table {
            Table::I16(v) => (1u8, v.len()),
            Table::I32(v) => (2u8, v.len()),
        };
        out.put(&[kind, 0, 0, 0]);
        out.put_u64_le(count as u64);
        match t.table {
            Table::I16(v) => v.iter().for_each(|&x| out.put_i16_le(x)),
            Table::I32(v) => v.iter().for_each(|&x| out.put_i32_le(x)),
        }
    }
    let sum = fnv1a64(&out);
    out.put_u64_le(sum);
    out
}

/// A section found in the file: where its elements start.
struct Found {
    index: usize,
    data: usize,
}

/// Validates `bytes` against `tables` (their tags, kinds, sizes and
/// bounds), then copies every section found into its table. On error no
/// table is touched.
pub fn restore(bytes: &[u8], tables: &mut [Named<TableMut>]) -> Result<(), StateError> {
    let mut r = Reader::new(bytes);
    if &r.array::<4>()? != MAGIC {
        return Err(StateError::BadMagic);
    }
    // The header and the checksum at least.
    Reader::new(bytes).skip(12 + 8)?;
    let version = r.u32_le()?;
    if version != VERSION {
        return Err(StateError::UnsupportedVersion { version });
    }
    let count = r.u32_le()?;
    let mut found = Vec::new();
    for _ in 0..count {
        let at = r.offset();
        let (tag, [kind, ..], elements) = (r.array::<4>()?, r.array::<4>()?, r.u64_le()?);
        let width: u64 = match kind {
            1 => 2,
            2 => 4,
            _ => return Err(StateError::BadKind { tag: tag_text(tag), offset: at + 4, kind }),
        };
        let data = r.offset();
        let len = elements.checked_mul(width).and_then(|l| usize::try_from(l).ok());
        r.skip(len.ok_or(r.truncated(usize::MAX))?)?;
        if let Some(index) = tables.iter().position(|t| t.tag == tag) {
            let (want_kind, want) = match &tables[index].table {
                TableMut::I16(v) => (1, v.len() as u64),
                TableMut::I32(v) => (2, v.len() as u64),
            };
            if kind != want_kind || elements != want {
                return Err(StateError::WrongShape {
                    tag: tag_text(tag),
                    offset: at,
                    kind,
                    found: elements,
                    expected: want,
                });
            }
            found.push(Found { index, data });
        }
    }
    let sum_at = r.offset();
    let stored = r.u64_le()?;
    if fnv1a64(bytes.get(..sum_at).unwrap_or_default()) != stored {
        return Err(StateError::BadChecksum { offset: sum_at });
    }
    if !r.is_empty() {
        return Err(StateError::TrailingBytes(r.remaining()));
    }
    // Every value within its bound before any table changes.
    for f in &found {
        let t = &tables[f.index];
        let (n, width) = match &t.table {
            TableMut::I16(v) => (v.len(), 2),
            TableMut::I32(v) => (v.len(), 4),
        };
        let mut r = Reader::at(bytes, f.data);
        for _ in 0..n {
            let o = r.offset();
            let value = element(&mut r, width);
            if value.abs() > t.bound {
                return Err(StateError::OutOfRange { tag: tag_text(t.tag), offset: o, value, bound: t.bound });
            }
        }
    }
    for f in found {
        let mut r = Reader::at(bytes, f.data);
        match &mut tables[f.index].table {
            TableMut::I16(v) => v.iter_mut().for_each(|x| *x = element(&mut r, 2) as i16),
            TableMut::I32(v) => v.iter_mut().for_each(|x| *x = element(&mut r, 4)),
        }
    }
    Ok(())
}

/// The next element of `width` bytes (2 or 4; in bounds: checked by `restore`).
fn element(r: &mut Reader, width: usize) -> i32 {
    match width {
        2 => r.i16_le().map_or(0, i32::from),
        _ => r.i32_le().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> (Vec<i16>, Vec<i32>) {
        ((0..100).map(|i| (i * 7 - 300) as i16).collect(), (0..50).map(|i| i * 100 - 2000).collect())
    }

    fn bytes() -> Vec<u8> {
        let (a, b) = sample();
        write(&[
            Named { tag: *b"AAAA", bound: 1000, table: Table::I16(&a) },
            Named { tag: *b"BBBB", bound: 5000, table: Table::I32(&b) },
        ])
    }

    fn restore_into(bytes: &[u8]) -> (Result<(), StateError>, Vec<i16>, Vec<i32>) {
        let (mut a, mut b) = (vec![1i16; 100], vec![1i32; 50]);
        let r = restore(
            bytes,
            &mut [
                Named { tag: *b"AAAA", bound: 1000, table: TableMut::I16(&mut a) },
                Named { tag: *b"BBBB", bound: 5000, table: TableMut::I32(&mut b) },
            ],
        );
        (r, a, b)
    }

    fn resum(mut b: Vec<u8>) -> Vec<u8> {
        let n = b.len() - 8;
        let sum = fnv1a64(&b[..n]);
        b[n..].copy_from_slice(&sum.to_le_bytes());
        b
    }

    #[test]
    fn round_trip_restores_every_table() {
        let (r, a, b) = restore_into(&bytes());
        assert_eq!(r, Ok(()));
        assert_eq!((a, b), sample());
    }

    #[test]
    fn rejects_each_damage_and_touches_nothing() {
        let good = bytes();
        let mut magic = good.clone();
        magic[0] = b'X';
        let mut version = good.clone();
        version[4] = 2;
        let mut flipped = good.clone();
        flipped[40] ^= 1;
        let mut kind = good.clone();
        kind[16] = 9;
        let mut shape = good.clone();
        shape[20] = 99;
        let mut range = good.clone();
        range[28..30].copy_from_slice(&2000i16.to_le_bytes());
        let mut trailing = good.clone();
        trailing.push(0);
        type Expect = fn(&StateError) -> bool;
        let cases: Vec<(Vec<u8>, Expect)> = vec![
            (magic, |e| matches!(e, StateError::BadMagic)),
            (version, |e| matches!(e, StateError::UnsupportedVersion { version: 2 })),
            (flipped, |e| matches!(e, StateError::BadChecksum { .. })),
            (resum(kind), |e| matches!(e, StateError::BadKind { kind: 9, offset: 16, .. })),
            (resum(shape), |e| matches!(e, StateError::WrongShape { found: 99, .. })),
            (resum(range), |e| matches!(e, StateError::OutOfRange { value: 2000, offset: 28, .. })),
            (good[..good.len() - 3].to_vec(), |e| matches!(e, StateError::Truncated(_))),
            (trailing, |e| matches!(e, StateError::TrailingBytes(1))),
        ];
        for (i, (b, want)) in cases.into_iter().enumerate() {
            let (r, a, bb) = restore_into(&b);
            let e = r.expect_err("damaged file accepted");
            assert!(want(&e), "case {i}: {e}");
            assert!(a.iter().all(|&x| x == 1) && bb.iter().all(|&x| x == 1), "case {i} changed a table");
        }
    }

    #[test]
    fn moves_and_keys_survive_their_tables_and_a_negative_move_is_none() {
        let moves = [Move::NONE, Move::from_raw(1), Move::from_raw(0x1234), Move::from_raw(u16::MAX)];
        let raw = raw_moves(moves.iter());
        assert!(raw.iter().all(|&r| (0..=MOVE_BOUND).contains(&r)));
        assert_eq!(raw.iter().map(|&r| move_of(r)).collect::<Vec<_>>(), moves);
        assert_eq!(move_of(-5), Move::NONE);
        for key in [0, 1, u64::MAX, 0x8000_0000_0000_0001, 0x0123_4567_89AB_CDEF] {
            let parts = key_parts(key);
            assert!(parts.iter().all(|&p| (0..=MOVE_BOUND).contains(&p)));
            assert_eq!(key_of(&parts), key);
        }
    }

    #[test]
    fn unknown_sections_are_skipped_and_missing_ones_left_alone() {
        let (a, _) = sample();
        let other = [5i32; 3];
        let b = write(&[
            Named { tag: *b"ZZZZ", bound: 10, table: Table::I32(&other) },
            Named { tag: *b"AAAA", bound: 1000, table: Table::I16(&a) },
        ]);
        let (r, got_a, got_b) = restore_into(&b);
        assert_eq!(r, Ok(()));
        assert_eq!(got_a, a);
        assert!(got_b.iter().all(|&x| x == 1));
    }

    proptest::proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
            let _ = restore_into(&bytes);
        }
    }
}
