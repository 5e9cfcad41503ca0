//! SBOB opening books ([docs/formats.md#sbob](../../docs/formats.md#sbob)). Little-endian.
//!
//! The container is game-agnostic: a position is a FEN string (a shogi SFEN
//! passes through untouched) and a move is a pair of `(row, col)` squares
//! with a piece type number. Header, 24 bytes:
//!
//! | offset | size | field            | validated                                        |
//! |--------|------|------------------|--------------------------------------------------|
//! | 0      | 4    | magic `"SBOB"`   | exact                                            |
//! | 4      | 4    | version (u32)    | must be 1                                        |
//! | 8      | 8    | entry count (u64)| equals the number of occupied slots              |
//! | 16     | 8    | table size (u64) | a power of two, ≥ count; the table fits the file |
//!
//! Hash table at offset 24: `size` slots of 16 bytes, `hash u64` then
//! `offset u64` (absolute file offset of a position entry). An empty slot is
//! all zero (a zero offset with a non-zero hash is an error). Open addressing
//! with linear probing from `hash & (size − 1)`. `hash` is the 64-bit FNV-1a
//! of the FEN's first four whitespace-separated fields joined by single
//! spaces ([`position_hash`]). Validated per slot: the offset lies after the
//! table and inside the file, the entry's hash equals the slot's, and the
//! slot is reachable by probing (no empty slot between its home and itself).
//!
//! Position entry, at its offset:
//!
//! | offset | size | field            | validated                                  |
//! |--------|------|------------------|--------------------------------------------|
//! | 0      | 4    | FEN length (u32) | the FEN ends inside the file               |
//! | 4      | n    | FEN              | UTF-8                                      |
//! | 4 + n  | 4    | move count (u32) | the moves end inside the file              |
//! | 8 + n  | 16·m | moves            | see below                                  |
//!
//! Entries may not overlap, and two entries may not hold the same position
//! (same first four FEN fields). Gaps between entries are tolerated.
//!
//! Move, 16 bytes:
//!
//! | offset | size | field              | validated                      |
//! |--------|------|--------------------|--------------------------------|
//! | 0      | 2    | from (u16)         | `row << 8 \| col`; `0xFFFF` for a drop |
//! | 2      | 2    | to (u16)           | `row << 8 \| col`              |
//! | 4      | 1    | piece_type (u8)    | — (numbering is game-specific) |
//! | 5      | 1    | is_drop (u8)       | 0 or 1                         |
//! | 6      | 1    | is_promotion (u8)  | — (chess: 0 or the piece 2..5) |
//! | 7      | 4    | weight (u32)       | —                              |
//! | 11     | 4    | evaluation (i32)   | — (centipawns)                 |
//! | 15     | 1    | reserved           | must be 0                      |
//!
//! The writer lays a book out canonically: table size = the smallest power
//! of two ≥ 2·count (at least 1), position entries right after the table in
//! the book's order, slots filled in that order. Reading a canonical file
//! and writing it again gives the same bytes.
//!
//! **Chess** ([`from_chess_move`], [`to_chess_move`]): row = rank (rank 1 =
//! 0), col = file (a = 0); piece_type 1 pawn, 2 knight, 3 bishop, 4 rook,
//! 5 queen, 6 king; `is_promotion` 0 or the promotion piece's type (2..5).
//! Castling is written as the king moving onto its own rook's square (`e1h1`,
//! as Polyglot and the engine; unambiguous in Chess960); in standard chess the
//! king-to-destination form (`e1g1`) is read as castling too. **Shogi**
//! (for names only, see [`piece_name`]): the YaneuraOu/Apery numbering, 1 pawn,
//! 2 lance, 3 knight, 4 silver, 5 bishop, 6 rook, 7 gold, 8 king, 9..14 the
//! promoted pawn, lance, knight, silver, bishop (horse) and rook (dragon).

use crate::board::notation::castling_king_target;
use crate::board::{Board, MoveList};
use crate::codec::{IoAt, PathIoError, Put, Reader, Truncated};
use crate::types::{Move, PieceType, Square};
use std::collections::HashSet;
use std::path::Path;
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"SBOB";
pub const VERSION: u32 = 1;
pub const HEADER_LEN: usize = 24;
pub const SLOT_LEN: usize = 16;
pub const MOVE_LEN: usize = 16;
/// The `from` field of a drop.
pub const DROP_FROM: u16 = 0xFFFF;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SbobError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("bad magic at offset 0: expected \"SBOB\"")]
    BadMagic,
    #[error("unsupported version {version} at offset 4 (expected {VERSION})")]
    UnsupportedVersion { version: u32 },
    #[error("table size {size} at offset 16 is not a power of two at least the entry count {count}")]
    BadTableSize { size: u64, count: u64 },
    #[error("entry count {count} at offset 8, but {found} slots are occupied")]
    CountMismatch { count: u64, found: u64 },
    #[error("slot {slot} at offset {offset}: zero entry offset with a non-zero hash")]
    BadSlot { slot: u64, offset: u64 },
    #[error("slot {slot}: entry offset {offset} lies outside the entry area ({start}..{len})")]
    OffsetOutOfRange { slot: u64, offset: u64, start: u64, len: u64 },
    #[error("entry at offset {offset}: FEN length {length} runs past the end of the file")]
    FenBeyondFile { offset: u64, length: u64 },
    #[error("entry at offset {offset}: the FEN is not UTF-8")]
    BadFen { offset: u64 },
    #[error("slot {slot}: hash {hash:016x} differs from the hash of the entry at offset {offset}")]
    HashMismatch { slot: u64, hash: u64, offset: u64 },
    #[error("slot {slot}: not reachable by linear probing from its home slot {home}")]
    MisplacedSlot { slot: u64, home: u64 },
    #[error("entry at offset {offset} overlaps the entry before it")]
    OverlappingEntries { offset: u64 },
    #[error("entry at offset {offset}: position '{fen}' occurs twice")]
    DuplicatePosition { offset: u64, fen: String },
    #[error("move at offset {offset}: reserved byte is {value:#04x}, must be 0")]
    NonZeroReserved { offset: u64, value: u8 },
    #[error("move at offset {offset}: is_drop is {value}, must be 0 or 1")]
    BadFlag { offset: u64, value: u8 },
    #[error("position {index} ('{fen}') has the same first four FEN fields as an earlier one")]
    DuplicateFen { index: usize, fen: String },
    #[error("position {index}: FEN or move list too long for the format")]
    TooLarge { index: usize },
}

/// One move record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SbobMove {
    /// `row << 8 | col`, or [`DROP_FROM`].
    pub from: u16,
    pub to: u16,
    pub piece_type: u8,
    pub is_drop: bool,
    /// 0, or non-zero for a promotion (chess: the promotion piece's type).
    pub is_promotion: u8,
    pub weight: u32,
    pub evaluation: i32,
}

/// `row << 8 | col`.
pub const fn square_field(row: u8, col: u8) -> u16 {
    (row as u16) << 8 | col as u16
}

impl SbobMove {
    /// `(row, col)` of the origin, `None` for a drop.
    pub fn from_square(&self) -> Option<(u8, u8)> {
        (self.from != DROP_FROM).then_some(((self.from >> 8) as u8, self.from as u8))
    }

    pub fn to_square(&self) -> (u8, u8) {
        ((self.to >> 8) as u8, self.to as u8)
    }

    fn encode(&self, out: &mut Vec<u8>) {
        out.put_u16_le(self.from);
        out.put_u16_le(self.to);
        out.put(&[self.piece_type, u8::from(self.is_drop), self.is_promotion]);
        out.put_u32_le(self.weight);
        out.put_i32_le(self.evaluation);
        out.put_u8(0);
    }

    /// Reads the move at the cursor.
    fn decode(r: &mut Reader) -> Result<SbobMove, SbobError> {
        let offset = r.offset() as u64;
        let (from, to, piece_type, is_drop, is_promotion) = (r.u16_le()?, r.u16_le()?, r.u8()?, r.u8()?, r.u8()?);
        let (weight, evaluation, reserved) = (r.u32_le()?, r.i32_le()?, r.u8()?);
        if reserved != 0 {
            return Err(SbobError::NonZeroReserved { offset: offset + 15, value: reserved });
        }
        if is_drop > 1 {
            return Err(SbobError::BadFlag { offset: offset + 5, value: is_drop });
        }
        Ok(SbobMove { from, to, piece_type, is_drop: is_drop == 1, is_promotion, weight, evaluation })
    }
}

/// A position and its moves.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SbobPosition {
    pub fen: String,
    pub moves: Vec<SbobMove>,
}

/// A whole book, positions in file (or insertion) order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SbobBook {
    pub positions: Vec<SbobPosition>,
}

/// The FEN's first four fields joined by single spaces (what is hashed and compared).
pub fn position_key(fen: &str) -> String {
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// 64-bit FNV-1a of [`position_key`].
pub fn position_hash(fen: &str) -> u64 {
    let mut h = crate::codec::Fnv1a64::new();
    for (i, field) in fen.split_whitespace().take(4).enumerate() {
        if i > 0 {
            h.update(b" ");
        }
        h.update(field.as_bytes());
    }
    h.finish()
}

/// The canonical table size for `count` positions.
pub fn table_size(count: usize) -> usize {
    count.saturating_mul(2).max(1).checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1))
}

/// Decodes the entry at `offset`; returns it and the offset just past it.
fn decode_entry(bytes: &[u8], offset: usize) -> Result<(SbobPosition, usize), SbobError> {
    let at = offset as u64;
    let mut r = Reader::at(bytes, offset);
    let fen_len = r.u32_le()?;
    let fen = r.bytes(fen_len as usize).map_err(|_| SbobError::FenBeyondFile { offset: at, length: fen_len as u64 })?;
    let fen = std::str::from_utf8(fen).map_err(|_| SbobError::BadFen { offset: at })?.to_string();
    let count = r.u32_le()? as usize;
    // The whole list must be there before anything is allocated for it.
    let mut list = r.clone();
    r.skip_u64(count as u64 * MOVE_LEN as u64)?;
    let moves = (0..count).map(|_| SbobMove::decode(&mut list)).collect::<Result<_, _>>()?;
    Ok((SbobPosition { fen, moves }, r.offset()))
}

struct Header {
    count: u64,
    size: usize,
    table_end: usize,
}

fn parse_header(bytes: &[u8]) -> Result<Header, SbobError> {
    let mut r = Reader::new(bytes);
    let mut h = Reader::new(r.bytes(HEADER_LEN)?);
    if &h.array::<4>()? != MAGIC {
        return Err(SbobError::BadMagic);
    }
    let version = h.u32_le()?;
    if version != VERSION {
        return Err(SbobError::UnsupportedVersion { version });
    }
    let (count, size) = (h.u64_le()?, h.u64_le()?);
    if !size.is_power_of_two() || size < count {
        return Err(SbobError::BadTableSize { size, count });
    }
    r.skip_u64(size.saturating_mul(SLOT_LEN as u64))?;
    Ok(Header { count, size: size as usize, table_end: r.offset() })
}

fn slot(bytes: &[u8], i: usize) -> (u64, u64) {
    let mut r = Reader::at(bytes, HEADER_LEN + i * SLOT_LEN);
    (r.u64_le().unwrap_or_default(), r.u64_le().unwrap_or_default())
}

/// For each slot, how many occupied slots precede it without an empty one
/// in between (cyclically; `usize::MAX` when the table has no empty slot).
fn run_lengths(occupied: &[bool]) -> Vec<usize> {
    let n = occupied.len();
    let Some(empty) = occupied.iter().position(|&o| !o) else { return vec![usize::MAX; n] };
    let mut runs = vec![0; n];
    let mut run = 0;
    for step in 1..=n {
        let i = (empty + step) % n;
        runs[i] = run;
        run = if occupied[i] { run + 1 } else { 0 };
    }
    runs
}

/// Validates a whole file image and decodes it (positions in file order).
pub fn parse(bytes: &[u8]) -> Result<SbobBook, SbobError> {
    let h = parse_header(bytes)?;
    let mask = h.size as u64 - 1;
    let occupied: Vec<bool> = (0..h.size).map(|i| slot(bytes, i) != (0, 0)).collect();
    let runs = run_lengths(&occupied);
    let mut entries = Vec::new();
    for (i, &used) in occupied.iter().enumerate() {
        if !used {
            continue;
        }
        let (hash, offset) = slot(bytes, i);
        if offset == 0 {
            return Err(SbobError::BadSlot { slot: i as u64, offset: (HEADER_LEN + i * SLOT_LEN) as u64 });
        }
        if offset < h.table_end as u64 || offset >= bytes.len() as u64 {
            let (start, len) = (h.table_end as u64, bytes.len() as u64);
            return Err(SbobError::OffsetOutOfRange { slot: i as u64, offset, start, len });
        }
        let (position, end) = decode_entry(bytes, offset as usize)?;
        if position_hash(&position.fen) != hash {
            return Err(SbobError::HashMismatch { slot: i as u64, hash, offset });
        }
        let home = (hash & mask) as usize;
        let distance = (i + h.size - home) % h.size;
        if distance > runs[i] {
            return Err(SbobError::MisplacedSlot { slot: i as u64, home: home as u64 });
        }
        entries.push((offset as usize, end, position));
    }
    if entries.len() as u64 != h.count {
        return Err(SbobError::CountMismatch { count: h.count, found: entries.len() as u64 });
    }
    entries.sort_by_key(|e| e.0);
    let mut seen = HashSet::new();
    let mut previous_end = 0;
    let mut positions = Vec::with_capacity(entries.len());
    for (offset, end, position) in entries {
        if offset < previous_end {
            return Err(SbobError::OverlappingEntries { offset: offset as u64 });
        }
        if !seen.insert(position_key(&position.fen)) {
            return Err(SbobError::DuplicatePosition { offset: offset as u64, fen: position.fen });
        }
        previous_end = end;
        positions.push(position);
    }
    Ok(SbobBook { positions })
}

/// The canonical file image of `book` (see the module documentation).
pub fn encode(book: &SbobBook) -> Result<Vec<u8>, SbobError> {
    let n = book.positions.len();
    let size = table_size(n);
    let table_end = HEADER_LEN + size * SLOT_LEN;
    let mut seen = HashSet::new();
    let mut table = vec![(0u64, 0u64); size];
    let mut body = Vec::new();
    for (index, p) in book.positions.iter().enumerate() {
        if !seen.insert(position_key(&p.fen)) {
            return Err(SbobError::DuplicateFen { index, fen: p.fen.clone() });
        }
        let too_large = || SbobError::TooLarge { index };
        let fen_len = u32::try_from(p.fen.len()).map_err(|_| too_large())?;
        let move_count = u32::try_from(p.moves.len()).map_err(|_| too_large())?;
        let offset = (table_end + body.len()) as u64;
        let hash = position_hash(&p.fen);
        let mut i = (hash & (size as u64 - 1)) as usize;
        while table[i].1 != 0 {
            i = (i + 1) % size;
        }
        table[i] = (hash, offset);
        body.put_u32_le(fen_len);
        body.put(p.fen.as_bytes());
        body.put_u32_le(move_count);
        for m in &p.moves {
            m.encode(&mut body);
        }
    }
    let mut out = Vec::with_capacity(table_end + body.len());
    out.put(MAGIC);
    out.put_u32_le(VERSION);
    out.put_u64_le(n as u64);
    out.put_u64_le(size as u64);
    for (hash, offset) in table {
        out.put_u64_le(hash);
        out.put_u64_le(offset);
    }
    out.put(&body);
    Ok(out)
}

/// Writes `book` canonically (temporary file, sync, rename).
pub fn write(path: &Path, book: &SbobBook) -> Result<(), SbobError> {
    let bytes = encode(book)?;
    Ok(super::write_atomic(path, &bytes).at(path)?)
}

/// Reads and validates the book at `path`.
pub fn read(path: &Path) -> Result<SbobBook, SbobError> {
    Ok(SbobFile::open(path)?.book)
}

/// A validated SBOB file kept in memory, probed through its own hash table.
#[derive(Debug)]
pub struct SbobFile {
    bytes: Vec<u8>,
    book: SbobBook,
}

impl SbobFile {
    pub fn open(path: &Path) -> Result<SbobFile, SbobError> {
        let bytes = crate::codec::read_file(path)?;
        SbobFile::from_bytes(bytes)
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Result<SbobFile, SbobError> {
        let book = parse(&bytes)?;
        Ok(SbobFile { bytes, book })
    }

    /// The decoded positions, in file order.
    pub fn book(&self) -> &SbobBook {
        &self.book
    }

    /// The position whose first four FEN fields match `fen`'s, found through
    /// the file's hash table in place: one hash of `fen`, one probe sequence
    /// over the bytes, and no allocation but the answer's FEN and move list.
    pub fn lookup(&self, fen: &str) -> Option<SbobPosition> {
        let bytes = &self.bytes;
        let size = Reader::at(bytes, 16).u64_le().ok()? as usize;
        let hash = position_hash(fen);
        let mut i = (hash & (size as u64).wrapping_sub(1)) as usize;
        for _ in 0..size {
            let (h, offset) = slot(bytes, i);
            if (h, offset) == (0, 0) {
                return None;
            }
            if h == hash {
                let mut r = Reader::at(bytes, offset as usize);
                let stored = r.u32_le().ok().and_then(|n| r.bytes(n as usize).ok());
                let stored = stored.and_then(|f| std::str::from_utf8(f).ok())?;
                if same_position(stored, fen) {
                    return decode_entry(bytes, offset as usize).ok().map(|(p, _)| p);
                }
            }
            i = (i + 1) % size;
        }
        None
    }
}

/// Whether two FENs share their first four fields ([`position_key`]'s
/// comparison, without building the keys).
fn same_position(a: &str, b: &str) -> bool {
    a.split_whitespace().take(4).eq(b.split_whitespace().take(4))
}

// ----- game-specific piece naming and the chess mapping -------------------

/// Which piece table a FEN's moves use, told from the board field alone
/// (8 ranks: chess, 9: shogi); the FEN is not otherwise interpreted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    Chess,
    Shogi,
    Other,
}

pub fn game_kind(fen: &str) -> GameKind {
    match fen.split_whitespace().next().map(|b| b.split('/').count()) {
        Some(8) => GameKind::Chess,
        Some(9) => GameKind::Shogi,
        _ => GameKind::Other,
    }
}

const CHESS_PIECES: [&str; 6] = ["Pawn", "Knight", "Bishop", "Rook", "Queen", "King"];
const SHOGI_PIECES: [&str; 14] = [
    "Pawn",
    "Lance",
    "Knight",
    "Silver",
    "Bishop",
    "Rook",
    "Gold",
    "King",
    "PromotedPawn",
    "PromotedLance",
    "PromotedKnight",
    "PromotedSilver",
    "Horse",
    "Dragon",
];

fn piece_table(game: GameKind) -> &'static [&'static str] {
    match game {
        GameKind::Chess => &CHESS_PIECES,
        GameKind::Shogi => &SHOGI_PIECES,
        GameKind::Other => &[],
    }
}

/// The name of piece type `n` (numbers start at 1), if the game names it.
pub fn piece_name(game: GameKind, n: u8) -> Option<&'static str> {
    piece_table(game).get((n as usize).checked_sub(1)?).copied()
}

/// The number of a piece name in `game`'s table.
pub fn piece_number(game: GameKind, name: &str) -> Option<u8> {
    piece_table(game).iter().position(|&p| p == name).map(|i| i as u8 + 1)
}

fn chess_square(field: u16) -> Option<Square> {
    let (row, col) = ((field >> 8) as u8, field as u8);
    (row < 8 && col < 8).then(|| Square::from_coords(col, row))
}

fn chess_field(sq: Square) -> u16 {
    square_field(sq.rank(), sq.file())
}

/// The SBOB record of a legal chess move `m` of `board`.
pub fn from_chess_move(board: &Board, m: Move, weight: u32, evaluation: i32) -> SbobMove {
    let piece_type = board.piece_on(m.from()).map_or(0, |p| p.kind().index() as u8 + 1);
    SbobMove {
        from: chess_field(m.from()),
        to: chess_field(m.to()),
        piece_type,
        is_drop: false,
        is_promotion: m.promotion_piece().map_or(0, |p| p.index() as u8 + 1),
        weight,
        evaluation,
    }
}

/// The legal move of `board` (legal moves `legal`) an SBOB chess record
/// stands for, if any: squares, moving piece and promotion must all match.
pub fn to_chess_move(board: &Board, legal: &MoveList, m: &SbobMove) -> Option<Move> {
    if m.is_drop || m.from == DROP_FROM {
        return None;
    }
    let from = chess_square(m.from)?;
    let to = chess_square(m.to)?;
    let promo = match m.is_promotion {
        0 => None,
        n @ 2..=5 => Some(PieceType::from_index(n as usize - 1)),
        _ => return None,
    };
    let piece = board.piece_on(from)?;
    if piece.kind().index() as u8 + 1 != m.piece_type {
        return None;
    }
    legal.iter().find(|&mv| {
        mv.from() == from
            && mv.promotion_piece() == promo
            && (mv.to() == to || (mv.is_castling() && !board.is_chess960() && castling_king_target(mv) == to))
    })
}

#[cfg(test)]
pub(crate) mod tests;
