//! The explorer index (`.axi`): what was played from each position of a
//! game database and how it scored, split so that Lichess's explorer
//! filters (speed, rating group, month) are answered exactly, with the
//! games themselves. Memory-mapped; integers little-endian; `varint` is an
//! unsigned LEB128 ([`crate::codec::Reader::varint`]); bit fields are
//! packed from the lowest bit of each byte up.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `AXPL` |
//! | 4 | 2 | version, 2 (version 1, before block checksums and Lichess's rules for games, is refused: rebuild it) |
//! | 6 | 1 | max ply: the positions of the first this many plies of a game are indexed (1..=255) |
//! | 7 | 1 | games kept per cell: 8, a Lichess index (each cell's newest); 15, a masters index (each year's best) |
//! | 8 | 8 | `G`: games |
//! | 16 | 8 | `S`: strings |
//! | 24 | 8 | `P`: positions (reached in two games or more) |
//! | 32 | 8 | `N`: singles (positions reached in one game) |
//! | 40 | 8×9 | section offsets, from the file's start: strings, game offsets, game data, ids, position keys, position offsets, position data, singles directory, singles; each section ends where the next starts |
//! | 112 | 8 | `D`: the end of the singles, where the block checksums start |
//! | 120 | 8 | the file's length: `D` + 8 × ⌈(`D` − 152) / block⌉ |
//! | 128 | 1 | the block size as a power of two (10..=24; 16 written: 64 KiB) |
//! | 129 | 7 | zero |
//! | 136 | 8 | the block checksums' checksum: [`hash64`] seeded with `D` of bytes `D` to the end |
//! | 144 | 8 | the header's checksum: [`hash64`] seeded with 0 of bytes 0..144 |
//!
//! Blocks: the bytes from 152 to `D` (every section) cut into blocks of
//! the block size, the last shorter; block `i` starts at `152 + i·block`
//! and its checksum, [`hash64`] of its bytes seeded with that offset, is
//! the u64 at `D + 8i`. A block's bytes copied to another place (a splice)
//! fail its checksum there.
//!
//! | section | layout |
//! |---|---|
//! | strings | `S` × (u8 length, UTF-8 bytes); string 0 is empty |
//! | game offsets | (⌈`G` / 16⌉ + 1) × u64: where games 0, 16, 32, … start in the game data, then its length (increasing) |
//! | game data | the games in input order, each a varint length and that many bytes ([`record`]): id (8 letters and digits), White, Black (varint string numbers), White's and Black's ratings (u16, 0 unknown), flags (u8: bits 0–1 result, 0 White won, 1 Black, 2 draw; bits 2–4 [`Speed`]; bit 5: the site is `https://lichess.org/` and the id), year (u16), month, day (u8; 0 unknown), event, site (0 with bit 5), round, time control (varint string numbers), plies (varint), then the moves packed ([`PackedMoves`], to the end of the record): per ply the moving piece's square as its rank among the mover's pieces (⌈log₂ n⌉ bits, `n` the mover's pieces), the destination as its rank among that piece's targets (⌈log₂ t⌉ bits; targets: a pawn's pushes and captures, the en-passant square included; a king's steps and its side's castling rooks, castling being the king taking its rook; any other piece's attacks on squares not of its side), and 2 bits of promotion (knight, bishop, rook, queen) for a pawn reaching the last rank |
//! | ids | `G` × u32: the game numbers in order of (id, number) |
//! | position keys | `P` × u64, increasing ([`crate::board::Board::key_legal_ep`]) |
//! | position offsets | (`P` + 1) × u64 into the position data: 0, increasing, its length |
//! | position data | per position a [`PositionEntry`] ([`record`]) |
//! | singles directory | ⌈`N` / 64⌉ × u64: the first key of each block of 64 singles |
//! | singles | `N` bit fields of `8 + g + p` bits, by key: the key's low byte, the game's number in `g` bits and the ply in `p` bits (`g`, `p`: the bits of `G − 1` and of max ply − 1, at least 1): the position before that ply's move |
//! | block checksums | ⌈(`D` − 152) / block⌉ × u64, from `D` to the end: each block's checksum (above) |
//!
//! A position reached in one game is a single: not stored with its key,
//! it is found by its block and low byte, and the candidates' games are
//! replayed to the ply to compare their keys ([`Explorer::single`]).
//!
//! The reader ([`Explorer::open`]) checks the header's checksum, that the
//! sections are in order and fit the file's length, and the block
//! checksums' checksum; every read goes through one accessor that checks
//! each block it touches against its checksum the first time (a block's
//! state, unchecked, good or damaged, kept in an atomic), so no byte of a
//! damaged block is decoded: a read that touches one is
//! [`ExplorerError::Damaged`], naming the file and the block's offset, and
//! reads elsewhere go on. At open it also checks that the offset tables and
//! keys increase (reading their blocks); each record is checked as it is
//! read; [`Explorer::verify`] checks every block and reads every record.
//! Every error names its byte offset.

mod blocks;
mod reader;
pub mod record;
mod writer;

pub use reader::{Explorer, Summary};
pub use record::PackedMoves;
pub use writer::ExplorerWriter;

use crate::board::Board;
#[cfg(doc)]
use crate::codec::hash64;
use crate::codec::{PathIoError, Truncated};
use crate::explorer::model::{mean_rating, GameDate, GameId, Month, Outcome, RatingGroup, Speed};
use crate::types::{Color, Move};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"AXPL";
pub const VERSION: u16 = 2;
pub const HEADER_LEN: usize = 152;
/// Blocks of 2^16 bytes are written; 2^10 to 2^24 are read.
pub const BLOCK_SHIFT: u8 = 16;
pub const BLOCK_SHIFTS: std::ops::RangeInclusive<u8> = 10..=24;
/// Singles per directory block.
pub const BLOCK: usize = 64;
/// Games per entry of the game offsets.
pub const GAME_BLOCK: usize = 16;
/// Lichess's explorer indexes the first 50 plies of a game.
pub const DEFAULT_MAX_PLY: u8 = 50;
/// The site of a Lichess game is this and its id.
pub const LICHESS_SITE: &str = "https://lichess.org/";

/// Where a game's counts go: its month, speed and rating group, packed as
/// `month << 8 | speed << 4 | group`, so cells sort by month.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cell(pub u32);

impl Cell {
    pub fn new(month: Month, speed: Speed, group: RatingGroup) -> Cell {
        Cell(u32::from(month.code()) << 8 | (speed as u32) << 4 | u32::from(group.index() & 15))
    }
    pub fn month(self) -> Month {
        Month::from_code((self.0 >> 8) as u16)
    }
    pub fn speed(self) -> Speed {
        Speed::from_u8((self.0 >> 4 & 15) as u8).unwrap_or(Speed::Correspondence)
    }
    pub fn group(self) -> RatingGroup {
        RatingGroup::from_index((self.0 & 15) as u8).unwrap_or_default()
    }
    pub(crate) fn is_valid(self) -> bool {
        Speed::from_u8((self.0 >> 4 & 15) as u8).is_some() && RatingGroup::from_index((self.0 & 15) as u8).is_some()
    }
}

/// One game of the store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// Lichess's 8-character id, or one made from the game ([`crate::explorer::build`]).
    pub id: GameId,
    pub white: String,
    pub black: String,
    /// 0: unknown.
    pub white_rating: u16,
    pub black_rating: u16,
    pub outcome: Outcome,
    pub speed: Speed,
    /// Its parts 0 where unknown.
    pub date: GameDate,
    pub event: String,
    pub site: String,
    pub round: String,
    pub time_control: String,
    /// The moves (empty when read by [`Explorer::game_header`]).
    pub moves: Vec<Move>,
}

impl GameRecord {
    /// The floored mean of the known ratings ([`mean_rating`]; `None`
    /// when neither is).
    pub fn mean_rating(&self) -> Option<u32> {
        let known = |r: u16| (r > 0).then_some(u32::from(r));
        mean_rating(known(self.white_rating), known(self.black_rating))
    }

    /// The game's cell.
    pub fn cell(&self) -> Cell {
        Cell::new(self.date.month(), self.speed, RatingGroup::of_mean(self.mean_rating()))
    }

    /// The game's cell in a Lichess index, or a masters index (where only
    /// the year counts: a game of an unknown month is in its January).
    pub fn cell_of(&self, masters: bool) -> Cell {
        match self.date.month {
            0 if masters => {
                Cell::new(Month::new(self.date.year, 1), self.speed, RatingGroup::of_mean(self.mean_rating()))
            }
            _ => self.cell(),
        }
    }

    /// The order of Lichess's masters database (`WhiteElo + BlackElo`,
    /// then the id's value: [`GameId::value`]) as one
    /// number, the sum in the top 16 bits.
    pub fn masters_rank(&self) -> u64 {
        let sum = u64::from(self.white_rating) + u64::from(self.black_rating);
        sum.min(0xffff) << 48 | self.id.value() & ((1 << 48) - 1)
    }

    /// The rating of the player of `color` (0: unknown).
    pub fn rating(&self, color: Color) -> u16 {
        if color == Color::White {
            self.white_rating
        } else {
            self.black_rating
        }
    }

    /// The game's moves from the start position, replayed (at most `plies`).
    pub fn replay(&self, plies: usize, mut visit: impl FnMut(&Board, Move)) -> Result<Board, usize> {
        let mut b = Board::startpos();
        for (ply, &m) in self.moves.iter().enumerate().take(plies) {
            if !b.is_legal(m) {
                return Err(ply);
            }
            visit(&b, m);
            b.make_move(m);
        }
        Ok(b)
    }
}

/// Counts of one move in one cell.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    /// The sum of the known ratings of the players who made the move, and
    /// how many there were.
    pub rating_sum: u64,
    pub rated: u64,
}

impl Stats {
    pub fn add(&mut self, o: &Stats) {
        self.white += o.white;
        self.draws += o.draws;
        self.black += o.black;
        self.rating_sum += o.rating_sum;
        self.rated += o.rated;
    }
    pub fn games(&self) -> u64 {
        self.white + self.draws + self.black
    }
    /// One game with `outcome`, its mover rated `rating` (0: unknown).
    pub fn of_game(outcome: Outcome, rating: u16) -> Stats {
        let mut s = Stats::default();
        match outcome {
            Outcome::White => s.white = 1,
            Outcome::Black => s.black = 1,
            Outcome::Draw => s.draws = 1,
        }
        if rating > 0 {
            s.rating_sum = u64::from(rating);
            s.rated = 1;
        }
        s
    }
}

/// A move of a position and its counts by cell (cells increasing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveStats {
    pub mv: Move,
    pub cells: Vec<MoveCell>,
}

/// A move's counts in one cell, and the game when there is only one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveCell {
    pub cell: Cell,
    pub stats: Stats,
    /// The game, when the move was played in exactly one game of the cell.
    pub game: Option<u32>,
}

/// A game listed for a position: its number, the index of the move it
/// played there in the position's moves, and (a masters index's top
/// games) its rank.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameRef {
    pub game: u32,
    pub mv: u32,
    /// [`GameRecord::masters_rank`] in a masters index's top games; 0 in
    /// recent games' lists.
    pub rank: u64,
}

/// The games of one cell that a position lists: the best rated and the
/// latest ([`crate::explorer::build`] says how many and in which order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellGames {
    pub cell: Cell,
    pub top: Vec<GameRef>,
    pub recent: Vec<GameRef>,
}

/// Everything stored about one position reached in two games or more.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionEntry {
    /// Reached in many games: each move's counts by cell, each cell's top
    /// and recent games.
    Counted { moves: Vec<MoveStats>, games: Vec<CellGames> },
    /// Reached in a few games ([`LISTED`] at most): the moves, and every
    /// game with the index of its move (games increasing); what is known
    /// of them is read from the games.
    Listed { moves: Vec<Move>, games: Vec<GameRef> },
}

/// Positions reached in at most this many games list them ([`PositionEntry::Listed`]).
pub const LISTED: usize = 32;

/// Why an index was refused.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExplorerError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error("bad magic at offset 0: expected \"AXPL\"")]
    BadMagic,
    #[error("unsupported version {version} at offset 4 (expected {VERSION}; an index of an older version is rebuilt with `archivist explorer build`)")]
    UnsupportedVersion { version: u16 },
    #[error(
        "explorer index version {version} at offset 4: rebuild it with `archivist explorer build` \
         (this archivist reads version {VERSION}, with block checksums)"
    )]
    Outdated { version: u16 },
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("bad header field at offset {offset}: {what}")]
    BadHeader { offset: u64, what: &'static str },
    #[error("{what} at offset {offset}")]
    Corrupt { offset: u64, what: &'static str },
    #[error("header checksum mismatch at offset 144: stored {stored:#018x}, computed {computed:#018x}")]
    HeaderChecksum { stored: u64, computed: u64 },
    #[error(
        "block checksums damaged at offset {offset} (their checksum at offset 136: stored {stored:#018x}, \
         computed {computed:#018x})"
    )]
    Directory { offset: u64, stored: u64, computed: u64 },
    /// A block whose bytes fail its checksum: nothing in it is read.
    #[error("damaged block at offset {offset} of {file} ({len} bytes from there, {section}): checksum mismatch")]
    Damaged { file: String, offset: u64, len: u64, section: &'static str },
}

impl ExplorerError {
    pub(crate) fn corrupt(offset: usize, what: &'static str) -> ExplorerError {
        ExplorerError::Corrupt { offset: offset as u64, what }
    }
}

#[cfg(test)]
mod tests;
