//! Syzygy table files: `.rtbw` (WDL) and `.rtbz` (DTZ). This module parses
//! and validates a file and decompresses single values; it is the
//! specification of the byte layout.
//!
//! Integers are little-endian, except the compressed bit stream, which is
//! read as big-endian 64- and 32-bit words. Offsets are from the file start.
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic: WDL `71 E8 23 5D`, DTZ `D7 66 0C A5` |
//! | 4 | 1 | layout: bit 0 *split* (a WDL file holds both sides to move), bit 1 *pawns* (4 subtables, one per leading-pawn file a–d), bits 4–7 the piece count (not relied on) |
//! | 5 | … | piece headers, see below; then one zero byte if needed to reach an even offset |
//! | | | pairs headers, one per subtable, file-major (`file 0 wtm, file 0 btm, file 1 wtm, …`) |
//! | | | DTZ only: value maps of the files whose subtable is *mapped*, then padding to an even offset |
//! | | | index tables, one per subtable, in the same order: `ceil(size / 2^idxbits)` entries of 6 bytes (`u32` block, `u16` offset) |
//! | | | block-length tables: one `u16` (values in the block − 1) per block, `real_num_blocks + extra_blocks` entries |
//! | | | data: per subtable, starting on a 64-byte boundary, `real_num_blocks` blocks of `2^blocksize` bytes |
//! | len − 16 | 16 | checksum, not checked; the file length is 16 mod 64 |
//!
//! **Piece headers.** Pawnless: one `order` byte and one byte per piece.
//! With pawns: for each of the 4 files an `order` byte, a second `order2`
//! byte when both sides have pawns, and one byte per piece. In every byte the
//! low nibble belongs to the white-to-move subtable and the high nibble to
//! the black-to-move one (DTZ files use only the low nibble). A piece nibble
//! is `1 P, 2 N, 3 B, 4 R, 5 Q, 6 K`, plus 8 for black; identical pieces are
//! adjacent. The list starts with the leading group (three unique pieces, the
//! two kings, or the leading colour's pawns followed by the other colour's
//! pawns); `order`/`order2` give the position of the leading and second pawn
//! groups among the index digits (see `index.rs`).
//!
//! **Pairs header** (one per subtable):
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 1 | flags: bit 7 *single value* (then byte 1 is the WDL value and the header is 2 bytes); DTZ: bit 0 stores black to move, bit 1 *mapped*, bit 2 wins in plies, bit 3 losses in plies, bit 4 *wide* (16-bit maps) |
//! | 1 | 1 | `blocksize`: log2 of the block size in bytes |
//! | 2 | 1 | `idxbits`: log2 of the values between index entries |
//! | 3 | 1 | `extra_blocks` |
//! | 4 | 4 | `real_num_blocks` |
//! | 8 | 1 | `max_len`: longest Huffman code in bits |
//! | 9 | 1 | `min_len`: shortest Huffman code in bits |
//! | 10 | 2·h | `lowest_sym[h]`, `h = max_len − min_len + 1`: first symbol of each code length |
//! | 10 + 2h | 2 | `num_syms` |
//! | 12 + 2h | 3·num_syms | symbol pairs: 12-bit left and right children (`right = 0xFFF` marks a leaf whose value is `left`) |
//! | | 0 or 1 | padding when `num_syms` is odd |
//!
//! **Value maps** (DTZ, mapped subtables): four maps in the order win, loss,
//! cursed win, blessed loss. Narrow: a `u8` length `L` and `L` bytes. Wide:
//! padding to an even offset, then a `u16` length and `L` `u16` values.
//!
//! **Decompression.** The value at index `i` lives in the block found via
//! index entry `i >> idxbits` and the offset `(i mod 2^idxbits) −
//! 2^(idxbits−1) + entry.offset`, walking the block-length table backwards or
//! forwards until the offset falls inside a block. The block is a canonical
//! Huffman stream of symbols; each symbol expands (recursively, through the
//! pairs) to `symlen + 1` values.
//!
//! **Validated** when a file is opened: length (16 mod 64), magic, layout
//! flags against the material, every piece header against the material, the
//! order nibbles, code lengths and Huffman bases, the symbol graph (children
//! in range, no cycles), and that every table region lies inside the file.
//! At probe time every read is bounds-checked; a block, symbol or map value
//! out of range is reported as [`TbError::Corrupt`], never a panic.

use super::index::{self, Groups, MAX_PIECES, THREE_UNIQUE, TWO_KINGS};
use super::material::Material;
use super::position::Pos;
use super::TbError;
use crate::codec;
/// The bytes of a table: a read-only mapping, or a buffer (tests).
pub(crate) use crate::codec::FileBytes as Storage;
use crate::types::{Color, PieceType};
use std::sync::Arc;

const WDL_MAGIC: [u8; 4] = [0x71, 0xE8, 0x23, 0x5D];
const DTZ_MAGIC: [u8; 4] = [0xD7, 0x66, 0x0C, 0xA5];

const LAYOUT_SPLIT: u8 = 1;
const LAYOUT_PAWNS: u8 = 2;

const FLAG_STM: u8 = 1;
const FLAG_MAPPED: u8 = 2;
const FLAG_WIN_PLIES: u8 = 4;
const FLAG_LOSS_PLIES: u8 = 8;
const FLAG_WIDE: u8 = 16;
const FLAG_SINGLE: u8 = 128;

/// Which kind of file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Wdl,
    Dtz,
}

impl Kind {
    pub fn extension(self) -> &'static str {
        match self {
            Kind::Wdl => "rtbw",
            Kind::Dtz => "rtbz",
        }
    }
}

/// One symbol of the pair grammar: children and the number of values it
/// expands to, minus one.
#[derive(Clone, Copy, Debug, Default)]
struct Sym {
    left: u16,
    right: u16,
    len: u32,
}

/// Decompression data of one subtable.
#[derive(Debug, Default)]
struct Pairs {
    flags: u8,
    /// The value every position has (single-value subtables).
    single: Option<u16>,
    block_log2: u32,
    idx_bits: u32,
    num_blocks: u64,
    real_blocks: u64,
    min_len: u32,
    /// Left-aligned smallest code of each length (`base[l − min_len]`).
    base: Vec<u64>,
    lowest: Vec<u16>,
    syms: Vec<Sym>,
    num_indices: u64,
    index_off: usize,
    size_off: usize,
    data_off: usize,
}

/// Where the four DTZ value maps of a subtable are.
#[derive(Clone, Copy, Debug)]
struct DtzMap {
    wide: bool,
    /// Start offset and length of the win, loss, cursed-win, blessed-loss maps.
    maps: [(usize, usize); 4],
}

/// One subtable: a leading-pawn file and a side to move.
#[derive(Debug)]
struct SubTable {
    /// Piece nibbles (kind | 8 for black) in index order.
    pieces: [u8; MAX_PIECES],
    groups: Groups,
    pairs: Pairs,
    map: Option<DtzMap>,
}

/// A parsed, validated table file.
pub(crate) struct Table {
    storage: Storage,
    kind: Kind,
    label: Arc<str>,
    /// The material the table calls white.
    white: Material,
    symmetric: bool,
    pawns: bool,
    /// Subtables: `file * sides + side`.
    subs: Vec<SubTable>,
    sides: usize,
}

/// Structure parsing: little-endian reads at an offset (through
/// [`codec::Reader`]) whose failures are corruption errors naming it. The
/// probe paths read with the `read_*` functions below, without the cursor.
struct Reader<'a> {
    b: &'a [u8],
    label: &'a Arc<str>,
}

impl Reader<'_> {
    fn corrupt(&self, offset: usize, reason: &'static str) -> TbError {
        TbError::Corrupt { file: self.label.clone(), offset: offset as u64, reason }
    }
    fn truncated(&self, t: codec::Truncated) -> TbError {
        TbError::Corrupt { file: self.label.clone(), offset: t.offset, reason: "unexpected end of file" }
    }
    fn u8(&self, off: usize) -> Result<u8, TbError> {
        codec::Reader::at(self.b, off).u8().map_err(|t| self.truncated(t))
    }
    fn u16(&self, off: usize) -> Result<u16, TbError> {
        codec::Reader::at(self.b, off).u16_le().map_err(|t| self.truncated(t))
    }
    fn u32(&self, off: usize) -> Result<u32, TbError> {
        codec::Reader::at(self.b, off).u32_le().map_err(|t| self.truncated(t))
    }
}

#[inline]
fn read_le16(b: &[u8], off: usize) -> Option<u16> {
    b.get(off..off.wrapping_add(2)).and_then(|s| s.try_into().ok()).map(u16::from_le_bytes)
}

#[inline]
fn read_be32(b: &[u8], off: usize) -> Option<u32> {
    b.get(off..off.wrapping_add(4)).and_then(|s| s.try_into().ok()).map(u32::from_be_bytes)
}

#[inline]
fn read_be64(b: &[u8], off: usize) -> Option<u64> {
    b.get(off..off.wrapping_add(8)).and_then(|s| s.try_into().ok()).map(u64::from_be_bytes)
}

fn piece_of_nibble(n: u8) -> Option<(Color, PieceType)> {
    let color = if n & 8 != 0 { Color::Black } else { Color::White };
    let pt = match n & 7 {
        1 => PieceType::Pawn,
        2 => PieceType::Knight,
        3 => PieceType::Bishop,
        4 => PieceType::Rook,
        5 => PieceType::Queen,
        6 => PieceType::King,
        _ => return None,
    };
    Some((color, pt))
}

impl Table {
    /// Parses and validates a table whose file name says `material`.
    pub fn parse(storage: Storage, kind: Kind, material: Material, label: Arc<str>) -> Result<Table, TbError> {
        let b = storage.bytes();
        let r = Reader { b, label: &label };
        if b.len() % 64 != 16 {
            return Err(r.corrupt(b.len(), "file length is not 16 mod 64 (truncated?)"));
        }
        let magic = match kind {
            Kind::Wdl => WDL_MAGIC,
            Kind::Dtz => DTZ_MAGIC,
        };
        if b.get(..4) != Some(&magic[..]) {
            return Err(r.corrupt(0, "bad magic"));
        }
        let layout = r.u8(4)?;
        let pawns = material.has_pawns();
        let symmetric = material.is_symmetric();
        if (layout & LAYOUT_PAWNS != 0) != pawns {
            return Err(r.corrupt(4, "pawn layout flag disagrees with the material"));
        }
        if (layout & LAYOUT_SPLIT != 0) == symmetric {
            return Err(r.corrupt(4, "split flag disagrees with the material"));
        }
        let sides = if kind == Kind::Wdl && !symmetric { 2 } else { 1 };
        let files = if pawns { 4 } else { 1 };
        let both_pawns =
            material.count(Color::White, PieceType::Pawn) > 0 && material.count(Color::Black, PieceType::Pawn) > 0;
        let n = material.total() as usize;
        let mut ptr = 5usize;
        let mut subs = Vec::with_capacity(files * sides);
        for file in 0..files {
            let order_at = ptr;
            let pieces_at = ptr + 1 + both_pawns as usize;
            for side in 0..sides {
                let nib = |v: u8| if side == 0 { v & 0xf } else { v >> 4 };
                let order = nib(r.u8(order_at)?);
                let order2 = if both_pawns { nib(r.u8(order_at + 1)?) } else { 0x0f };
                let mut pieces = [0u8; MAX_PIECES];
                for (i, p) in pieces.iter_mut().enumerate().take(n) {
                    *p = nib(r.u8(pieces_at + i)?);
                }
                let groups = group_pieces(&r, order_at, &pieces[..n], material, order, order2, file)?;
                subs.push(SubTable { pieces, groups, pairs: Pairs::default(), map: None });
            }
            ptr = pieces_at + n;
        }
        ptr += ptr & 1;
        let white = check_piece_lists(&r, &subs, n, material, pawns)?;

        for sub in subs.iter_mut() {
            let (pairs, next) = parse_pairs(&r, ptr, sub.groups.size, kind)?;
            sub.pairs = pairs;
            ptr = next;
        }
        if kind == Kind::Dtz {
            for sub in subs.iter_mut() {
                if sub.pairs.flags & FLAG_MAPPED != 0 {
                    let (map, next) = parse_map(&r, ptr, sub.pairs.flags & FLAG_WIDE != 0)?;
                    sub.map = Some(map);
                    ptr = next;
                }
            }
            ptr += ptr & 1;
        }
        lay_out(&r, &mut subs, ptr)?;
        Ok(Table { kind, white, symmetric, pawns, subs, sides, label, storage })
    }

    fn corrupt(&self, offset: usize, reason: &'static str) -> TbError {
        TbError::Corrupt { file: self.label.clone(), offset: offset as u64, reason }
    }

    /// Finds the subtable and index of `pos` (whose material is `mat`, one
    /// orientation of this table's). `None`: a DTZ table that stores the
    /// other side to move.
    fn locate(&self, pos: &Pos, mat: Material) -> Result<Option<(&SubTable, u64)>, TbError> {
        let black_to_move = pos.side == Color::Black;
        let flip = if self.symmetric { black_to_move } else { mat != self.white };
        let bside = black_to_move ^ flip;
        let mirror = if flip { 56 } else { 0 };
        let color_of = |nibble: u8| {
            let c = if nibble & 8 != 0 { Color::Black } else { Color::White };
            if flip {
                !c
            } else {
                c
            }
        };
        let mut squares = [0u8; MAX_PIECES];
        let mut used = 0u64;
        let mut lead = 0;
        let mut file = 0;
        if self.pawns {
            let first = self.subs.first().map_or(0, |s| s.pieces[0]);
            let bb = pos.pieces_of(color_of(first), PieceType::Pawn);
            for (i, sq) in bb.take(MAX_PIECES).enumerate() {
                squares[i] = sq.index() as u8 ^ mirror;
                lead = i + 1;
            }
            used = bb.0;
            file = index::leading_pawn_file(&mut squares[..lead]);
        }
        let side = if self.sides == 2 && bside { 1 } else { 0 };
        let sub = self.subs.get(file * self.sides + side).ok_or_else(|| self.corrupt(0, "missing subtable"))?;
        if self.kind == Kind::Dtz && (sub.pairs.flags & FLAG_STM != 0) != bside && (self.pawns || !self.symmetric) {
            return Ok(None);
        }
        let n = (mat.total() as usize).min(MAX_PIECES);
        for (slot, &nib) in squares[..n].iter_mut().zip(&sub.pieces).skip(lead) {
            let (_, pt) = piece_of_nibble(nib).ok_or_else(|| self.corrupt(5, "bad piece"))?;
            let free = pos.pieces_of(color_of(nib), pt).0 & !used;
            if free == 0 {
                return Err(self.corrupt(5, "piece list does not match the position"));
            }
            let sq = free.trailing_zeros() as u8;
            used |= 1 << sq;
            *slot = sq ^ mirror;
        }
        let sq = &mut squares[..n];
        let idx =
            if self.pawns { index::encode_pawns(sq, &sub.groups) } else { index::encode_pawnless(sq, &sub.groups) };
        match idx {
            Some(i) if i < sub.groups.size => Ok(Some((sub, i))),
            _ => Err(self.corrupt(5, "position index outside the table")),
        }
    }

    /// WDL value −2..=2 of `pos` from the side to move's view, as stored
    /// (captures not resolved).
    pub fn probe_wdl(&self, pos: &Pos, mat: Material) -> Result<i32, TbError> {
        let Some((sub, idx)) = self.locate(pos, mat)? else {
            return Err(self.corrupt(5, "WDL table without this side to move"));
        };
        let v = self.decompress(&sub.pairs, idx)?;
        match v & 0xff {
            v @ 0..=4 => Ok(v as i32 - 2),
            _ => Err(self.corrupt(sub.pairs.data_off, "WDL value out of range")),
        }
    }

    /// Stored DTZ of `pos` (in plies, rounded as the table says) for the
    /// given WDL value (±1 or ±2), and whether it was stored in full moves
    /// (then it is even and may be one ply too large); `None` when this
    /// table stores the other side to move.
    pub fn probe_dtz(&self, pos: &Pos, mat: Material, wdl: i32) -> Result<Option<(i32, bool)>, TbError> {
        let Some((sub, idx)) = self.locate(pos, mat)? else { return Ok(None) };
        let mut v = self.decompress(&sub.pairs, idx)? as usize;
        let flags = sub.pairs.flags;
        if let Some(map) = &sub.map {
            let which = match wdl {
                2 => 0,
                -2 => 1,
                1 => 2,
                _ => 3,
            };
            let (start, len) = map.maps[which];
            if v >= len {
                return Err(self.corrupt(start, "DTZ value outside its map"));
            }
            let b = self.storage.bytes();
            v = if map.wide {
                read_le16(b, start + 2 * v).map(usize::from)
            } else {
                b.get(start + v).copied().map(usize::from)
            }
            .ok_or_else(|| self.corrupt(start, "unexpected end of file"))?;
        }
        let plies = match wdl {
            2 => flags & FLAG_WIN_PLIES != 0,
            -2 => flags & FLAG_LOSS_PLIES != 0,
            _ => false,
        };
        let v = v as i32;
        Ok(Some(if plies { (v, false) } else { (2 * v, true) }))
    }

    /// The value at `idx` of one subtable.
    fn decompress(&self, d: &Pairs, idx: u64) -> Result<u16, TbError> {
        if let Some(v) = d.single {
            return Ok(v);
        }
        let b = self.storage.bytes();
        let eof = |off: usize| self.corrupt(off, "read past the end of the file");
        let main = (idx >> d.idx_bits) as usize;
        let entry = d.index_off + 6 * main;
        let mut block = u64::from(read_le32(b, entry).ok_or_else(|| eof(entry))?);
        let offset = read_le16(b, entry + 4).ok_or_else(|| eof(entry))?;
        let half = 1i64 << (d.idx_bits - 1);
        let mut lit = (idx & ((1u64 << d.idx_bits) - 1)) as i64 - half + i64::from(offset);
        let block_len = |blk: u64| -> Result<i64, TbError> {
            if blk >= d.num_blocks {
                return Err(self.corrupt(d.size_off, "block number out of range"));
            }
            let off = d.size_off + 2 * blk as usize;
            read_le16(b, off).map(|v| i64::from(v) + 1).ok_or_else(|| eof(off))
        };
        if lit < 0 {
            while lit < 0 {
                block = block.checked_sub(1).ok_or_else(|| self.corrupt(entry, "block number below zero"))?;
                lit += block_len(block)?;
            }
        } else {
            loop {
                let len = block_len(block)?;
                if lit < len {
                    break;
                }
                lit -= len;
                block += 1;
            }
        }
        if block >= d.real_blocks {
            return Err(self.corrupt(entry, "block number out of range"));
        }
        let mut ptr = d.data_off + ((block as usize) << d.block_log2);
        let mut code = read_be64(b, ptr).ok_or_else(|| eof(ptr))?;
        ptr += 8;
        let mut empty = 0u32;
        let h = d.base.len();
        let sym = loop {
            let mut l = 0;
            while l + 1 < h && code < d.base[l] {
                l += 1;
            }
            let len = d.min_len + l as u32;
            let sym = u64::from(d.lowest[l]) + ((code - d.base[l]) >> (64 - len));
            let s = d.syms.get(sym as usize).ok_or_else(|| self.corrupt(ptr, "symbol out of range"))?;
            if lit <= i64::from(s.len) {
                break sym as usize;
            }
            lit -= i64::from(s.len) + 1;
            code <<= len;
            empty += len;
            if empty >= 32 {
                empty -= 32;
                code |= u64::from(read_be32(b, ptr).ok_or_else(|| eof(ptr))?) << empty;
                ptr += 4;
            }
        };
        // Walk down the pair tree to the value; the graph is acyclic (checked
        // on load), so this ends.
        let mut s = d.syms[sym];
        while s.right != 0xfff {
            let left = d.syms[s.left as usize];
            if lit <= i64::from(left.len) {
                s = left;
            } else {
                lit -= i64::from(left.len) + 1;
                s = d.syms[s.right as usize];
            }
        }
        Ok(s.left)
    }
}

#[inline]
fn read_le32(b: &[u8], off: usize) -> Option<u32> {
    b.get(off..off.wrapping_add(4)).and_then(|s| s.try_into().ok()).map(u32::from_le_bytes)
}

fn add(ptr: usize, len: u64) -> Option<usize> {
    ptr.checked_add(usize::try_from(len).ok()?)
}

/// Places the index tables, block-length tables and data of every subtable
/// from `ptr` on (in that order, data 64-byte aligned) and checks that they
/// fit in the file.
fn lay_out(r: &Reader<'_>, subs: &mut [SubTable], mut ptr: usize) -> Result<(), TbError> {
    let overflow = |off: usize| r.corrupt(off, "table size overflows");
    for sub in subs.iter_mut() {
        sub.pairs.index_off = ptr;
        let len = sub.pairs.num_indices.checked_mul(6).ok_or_else(|| overflow(ptr))?;
        ptr = add(ptr, len).ok_or_else(|| overflow(ptr))?;
    }
    for sub in subs.iter_mut() {
        sub.pairs.size_off = ptr;
        let len = sub.pairs.num_blocks.checked_mul(2).ok_or_else(|| overflow(ptr))?;
        ptr = add(ptr, len).ok_or_else(|| overflow(ptr))?;
    }
    for sub in subs.iter_mut() {
        ptr = ptr.checked_add(63).ok_or_else(|| overflow(ptr))? & !63;
        sub.pairs.data_off = ptr;
        let len = sub.pairs.real_blocks.checked_shl(sub.pairs.block_log2).ok_or_else(|| overflow(ptr))?;
        ptr = add(ptr, len).ok_or_else(|| overflow(ptr))?;
    }
    if ptr > r.b.len() {
        return Err(r.corrupt(r.b.len(), "table data extends past the end of the file"));
    }
    Ok(())
}

/// Groups of one subtable's piece list and the resulting index weights.
fn group_pieces(
    r: &Reader<'_>,
    at: usize,
    pieces: &[u8],
    material: Material,
    order: u8,
    order2: u8,
    file: usize,
) -> Result<Groups, TbError> {
    let bad = |reason| r.corrupt(at, reason);
    let mut lens = [0u8; MAX_PIECES];
    let mut count;
    let lead_len;
    let lead_size;
    let mut second = false;
    if material.has_pawns() {
        let first = *pieces.first().ok_or_else(|| bad("empty piece list"))?;
        if first & 7 != 1 {
            return Err(bad("a table with pawns must list a pawn first"));
        }
        lead_len = pieces.iter().take_while(|&&p| p == first).count();
        lead_size = index::lead_pawn_factor(lead_len, file).ok_or_else(|| bad("too many leading pawns"))?;
        lens[0] = lead_len as u8;
        count = 1;
        let other = first ^ 8;
        let second_len = pieces[lead_len..].iter().take_while(|&&p| p == other).count();
        if second_len > 0 {
            lens[1] = second_len as u8;
            count = 2;
            second = true;
        }
    } else {
        lead_len = match material.unique_pieces() {
            u if u >= 3 => 3,
            2 => 2,
            _ => return Err(bad("unsupported material")),
        };
        lead_size = if lead_len == 3 { THREE_UNIQUE } else { TWO_KINGS };
        lens[0] = lead_len as u8;
        count = 1;
    }
    let mut i = lens[..count].iter().map(|&l| l as usize).sum::<usize>();
    while i < pieces.len() {
        let run = pieces[i..].iter().take_while(|&&p| p == pieces[i]).count();
        lens[count] = run as u8;
        count += 1;
        i += run;
    }
    Groups::new(&lens[..count], lead_size, order, order2, second).ok_or_else(|| bad("inconsistent order nibbles"))
}

/// Checks every subtable's pieces against the material and the leading
/// group rules; returns the material the table calls white.
fn check_piece_lists(
    r: &Reader<'_>,
    subs: &[SubTable],
    n: usize,
    material: Material,
    pawns: bool,
) -> Result<Material, TbError> {
    let bad = |reason| r.corrupt(5, reason);
    let mut white = None;
    for sub in subs {
        let mut m = Material::default();
        for &nib in &sub.pieces[..n] {
            let (c, pt) = piece_of_nibble(nib).ok_or_else(|| bad("bad piece nibble"))?;
            m.add(c, pt);
        }
        if m != material && m != material.flipped() {
            return Err(bad("piece list does not match the file name"));
        }
        if *white.get_or_insert(m) != m {
            return Err(bad("subtables disagree about the material"));
        }
        let lead = sub.groups.lens[0] as usize;
        let leading = &sub.pieces[..lead];
        if pawns {
            if sub.pieces[0] != subs[0].pieces[0] {
                return Err(bad("subtables disagree about the leading pawns"));
            }
            let (c, _) = piece_of_nibble(sub.pieces[0]).ok_or_else(|| bad("bad piece nibble"))?;
            if m.count(c, PieceType::Pawn) as usize != lead {
                return Err(bad("leading pawns are not all listed first"));
            }
            if sub.groups.second_pawns && m.count(!c, PieceType::Pawn) as usize != sub.groups.lens[1] as usize {
                return Err(bad("the other pawns are not listed second"));
            }
        } else {
            for &nib in leading {
                let (c, pt) = piece_of_nibble(nib).ok_or_else(|| bad("bad piece nibble"))?;
                let ok = if lead == 2 { pt == PieceType::King } else { m.count(c, pt) == 1 };
                if !ok || leading.iter().filter(|&&x| x == nib).count() != 1 {
                    return Err(bad("leading pieces are not unique"));
                }
            }
        }
    }
    white.ok_or_else(|| bad("no subtables"))
}

/// Parses the pairs header at `ptr` for a subtable of `size` values; returns
/// it and the offset after it.
fn parse_pairs(r: &Reader<'_>, ptr: usize, size: u64, kind: Kind) -> Result<(Pairs, usize), TbError> {
    let flags = r.u8(ptr)?;
    if flags & FLAG_SINGLE != 0 {
        let value = match kind {
            Kind::Wdl => u16::from(r.u8(ptr + 1)?),
            Kind::Dtz => 0,
        };
        if kind == Kind::Wdl && value > 4 {
            return Err(r.corrupt(ptr + 1, "WDL value out of range"));
        }
        return Ok((Pairs { flags, single: Some(value), ..Pairs::default() }, ptr + 2));
    }
    let block_log2 = u32::from(r.u8(ptr + 1)?);
    let idx_bits = u32::from(r.u8(ptr + 2)?);
    let extra = u64::from(r.u8(ptr + 3)?);
    let real_blocks = u64::from(r.u32(ptr + 4)?);
    let max_len = u32::from(r.u8(ptr + 8)?);
    let min_len = u32::from(r.u8(ptr + 9)?);
    if !(3..=30).contains(&block_log2) {
        return Err(r.corrupt(ptr + 1, "block size out of range"));
    }
    if !(1..=40).contains(&idx_bits) {
        return Err(r.corrupt(ptr + 2, "index spacing out of range"));
    }
    if min_len == 0 || min_len > max_len || max_len > 32 {
        return Err(r.corrupt(ptr + 8, "Huffman code lengths out of range"));
    }
    let h = (max_len - min_len + 1) as usize;
    let mut lowest = Vec::with_capacity(h);
    for i in 0..h {
        lowest.push(r.u16(ptr + 10 + 2 * i)?);
    }
    let mut base = vec![0u64; h];
    for i in (0..h - 1).rev() {
        let v = (base[i + 1] + u64::from(lowest[i]))
            .checked_sub(u64::from(lowest[i + 1]))
            .ok_or_else(|| r.corrupt(ptr + 10 + 2 * i, "Huffman symbol counts are inconsistent"))?;
        base[i] = v / 2;
        if base[i] * 2 < base[i + 1] {
            return Err(r.corrupt(ptr + 10 + 2 * i, "Huffman bases are not canonical"));
        }
    }
    for (i, b) in base.iter_mut().enumerate() {
        *b <<= 64 - (min_len + i as u32);
    }
    let syms_at = ptr + 10 + 2 * h;
    let num_syms = usize::from(r.u16(syms_at)?);
    let pat = syms_at + 2;
    let mut syms = Vec::with_capacity(num_syms);
    for s in 0..num_syms {
        let at = pat + 3 * s;
        let (b0, b1, b2) = (r.u8(at)?, r.u8(at + 1)?, r.u8(at + 2)?);
        let left = (u16::from(b1 & 0xf) << 8) | u16::from(b0);
        let right = (u16::from(b2) << 4) | u16::from(b1 >> 4);
        if right != 0xfff && (usize::from(left) >= num_syms || usize::from(right) >= num_syms) {
            return Err(r.corrupt(at, "symbol refers to a symbol that does not exist"));
        }
        syms.push(Sym { left, right, len: 0 });
    }
    symbol_lengths(&mut syms).map_err(|s| r.corrupt(pat + 3 * s, "symbol refers to itself"))?;
    let next = pat + 3 * num_syms + (num_syms & 1);
    let num_indices = size.div_ceil(1u64 << idx_bits);
    let pairs = Pairs {
        flags,
        single: None,
        block_log2,
        idx_bits,
        num_blocks: real_blocks + extra,
        real_blocks,
        min_len,
        base,
        lowest,
        syms,
        num_indices,
        index_off: 0,
        size_off: 0,
        data_off: 0,
    };
    Ok((pairs, next))
}

/// Computes every symbol's expansion length − 1 without recursion; `Err`
/// with a symbol on a cycle.
fn symbol_lengths(syms: &mut [Sym]) -> Result<(), usize> {
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; syms.len()];
    let mut stack = Vec::new();
    for root in 0..syms.len() {
        if state[root] != NEW {
            continue;
        }
        stack.push(root);
        while let Some(&s) = stack.last() {
            let Sym { left, right, .. } = syms[s];
            if right == 0xfff {
                state[s] = DONE;
                stack.pop();
                continue;
            }
            let (l, r) = (usize::from(left), usize::from(right));
            if state[s] == NEW {
                state[s] = OPEN;
                for c in [l, r] {
                    match state[c] {
                        OPEN => return Err(c),
                        NEW => stack.push(c),
                        _ => {}
                    }
                }
            } else {
                syms[s].len = syms[l].len.saturating_add(syms[r].len).saturating_add(1);
                state[s] = DONE;
                stack.pop();
            }
        }
    }
    Ok(())
}

/// Parses the four value maps of a mapped DTZ subtable at `ptr`.
fn parse_map(r: &Reader<'_>, mut ptr: usize, wide: bool) -> Result<(DtzMap, usize), TbError> {
    let mut maps = [(0, 0); 4];
    if wide {
        ptr += ptr & 1;
    }
    for m in maps.iter_mut() {
        if wide {
            let len = usize::from(r.u16(ptr)?);
            *m = (ptr + 2, len);
            ptr += 2 + 2 * len;
        } else {
            let len = usize::from(r.u8(ptr)?);
            *m = (ptr + 1, len);
            ptr += 1 + len;
        }
    }
    if ptr > r.b.len() {
        return Err(r.corrupt(ptr, "DTZ map extends past the end of the file"));
    }
    Ok((DtzMap { wide, maps }, ptr))
}

#[cfg(test)]
impl Table {
    /// Histogram of stored values over every index of every subtable.
    pub(crate) fn histogram(&self) -> Vec<(usize, [u64; 8])> {
        self.subs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut h = [0u64; 8];
                for idx in 0..s.groups.size {
                    let v = self.decompress(&s.pairs, idx).map_or(7, |v| (v as usize).min(6));
                    h[v] += 1;
                }
                (i, h)
            })
            .collect()
    }
}
