//! ABK: Arena's opening book, a tree of moves. All integers little-endian
//! (the file is Arena's in-memory array of packed C structs, written on x86).
//!
//! | offset      | size   | field   | validated |
//! |-------------|--------|---------|-----------|
//! | 0           | 25200  | header  | length only: 900 entry-sized slots Arena uses for its own settings (comment, author, selection weights); not interpreted, kept byte for byte. Books written by Arena start with `03 41 42 4B` (`"ABK"` as a Pascal string) according to one source only, so it is not required; [`AbkBook::new`] writes it |
//! | 25200       | 28·n   | entries | size must be exactly 25200 + 28·n; entry `i` (numbered from 900) starts at offset 28·i |
//!
//! Entry (28 bytes); the start position's first move is entry 900:
//!
//! | offset | size | field          | meaning / validation |
//! |--------|------|----------------|----------------------|
//! | 0      | 1    | from           | square 0..=63, a1 = 0, b1 = 1, …, h8 = 63 |
//! | 1      | 1    | to             | square 0..=63, not `from`; castling is the king's move (`e1g1`) |
//! | 2      | 1    | promotion      | i8: 0 none, ±1 rook, ±2 knight, ±3 bishop, ±4 queen (either sign is read; the writer writes the positive code) |
//! | 3      | 1    | priority       | u8, Arena's user weight (default 5; 0 = never play) |
//! | 4      | 4    | games          | i32 ≥ 0: games in which the move was played |
//! | 8      | 4    | won            | i32 ≥ 0: of those, won by the side that played it |
//! | 12     | 4    | lost           | i32 ≥ 0, and won + lost ≤ games |
//! | 16     | 4    | ply_count      | i32, kept but not interpreted |
//! | 20     | 4    | next_move      | i32: entry of the first reply (the line goes on), −1 or 0 = none, else 900..900+n |
//! | 24     | 4    | next_sibling   | i32: entry of the next alternative in the same position, −1 or 0 = none, else 900..900+n |
//!
//! Layout from the chessprogramming wiki's ABK page (struct `SBookMoveEntry`,
//! root at index 900), checked against four independent readers' structs
//! (ChessX's `ABK_ENTRY`, a C++ `ABK_Entry`, two C# readers); none of them is
//! copied here. [`AbkBook::parse`] also checks that every link is in range
//! and that walking the tree from entry 900 never reaches an entry twice (a
//! cycle or a shared subtree), so a walk always ends. Entries no link
//! reaches (left behind when Arena deletes a line) are allowed and counted.
//! Moves are checked for legality when the tree is replayed from the start
//! position ([`AbkBook::positions`]); an illegal move drops its subtree and
//! is counted, never played.
//!
//! Converting ([`to_polyglot`], [`to_yacb`]): positions are keyed, so lines
//! that transpose merge (games, wins and losses summed per move, the highest
//! priority kept). Polyglot weight: 0 for priority 0; else `2·won + drawn`
//! (as `polyglot make-book` counts) when the move has games, the priority
//! when it has none, capped at 65535. YACB: one entry per position, the
//! heaviest move as best move (ties: more games, then file order), perf% for
//! white over the position's games (statistical; a position without games
//! gets 0 cp, source "other"), elo unknown (−2000).

use super::polyglot::{self, PolyglotEntry};
use super::yacb::{BoundType, Elo, Source, ValueType, YacbEntry};
use crate::board::zobrist::polyglot_key;
use crate::board::Board;
use crate::codec::{Fixed, IoAt, PathIoError, Put, Reader, Truncated};
use crate::types::{Color, Move};
use std::collections::HashMap;
use std::path::Path;
use thiserror::Error;

pub const HEADER_LEN: usize = 25_200;
pub const ENTRY_LEN: usize = 28;
/// Index of the start position's first move.
pub const ROOT_INDEX: usize = 900;
/// What Arena's books start with, per one source (not validated).
pub const SIGNATURE: &[u8; 4] = b"\x03ABK";

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AbkError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("size {len} is not 25200 + 28·n: {extra} trailing bytes at offset {offset}")]
    BadSize { len: u64, extra: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: square {value} is not 0..=63")]
    BadSquare { index: u64, offset: u64, value: u8 },
    #[error("entry {index} at offset {offset}: from and to are the same square")]
    NullMove { index: u64, offset: u64 },
    #[error("entry {index} at offset {offset}: promotion {value} is not -4..=4")]
    BadPromotion { index: u64, offset: u64, value: i8 },
    #[error("entry {index} at offset {offset}: {field} is negative ({value})")]
    NegativeCount { index: u64, offset: u64, field: &'static str, value: i32 },
    #[error("entry {index} at offset {offset}: won {won} + lost {lost} exceed games {games}")]
    ResultsAboveGames { index: u64, offset: u64, games: i32, won: i32, lost: i32 },
    #[error("entry {index} at offset {offset}: link {link} is outside the entries (900..{end})")]
    BadLink { index: u64, offset: u64, link: i32, end: u64 },
    #[error("entry {index} at offset {offset} is reached twice from the root (a cycle or a shared subtree)")]
    ReachedTwice { index: u64, offset: u64 },
}

/// One decoded entry. Links are kept as stored (−1 or 0 for none, so the
/// bytes round-trip); [`AbkEntry::reply`] and [`AbkEntry::sibling`] read them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AbkEntry {
    pub from: u8,
    pub to: u8,
    pub promotion: i8,
    pub priority: u8,
    pub games: i32,
    pub won: i32,
    pub lost: i32,
    pub ply_count: i32,
    pub next_move: i32,
    pub next_sibling: i32,
}

fn link_raw(link: Option<u32>) -> i32 {
    link.map_or(-1, |l| l as i32)
}

/// A validated link: none (−1, 0) or an entry index.
fn link(raw: i32) -> Option<u32> {
    (raw >= ROOT_INDEX as i32).then_some(raw as u32)
}

impl AbkEntry {
    pub fn encode(&self) -> [u8; ENTRY_LEN] {
        let mut b = Fixed::<ENTRY_LEN>::new();
        b.put(&[self.from, self.to, self.promotion as u8, self.priority]);
        for v in [self.games, self.won, self.lost, self.ply_count, self.next_move, self.next_sibling] {
            b.put_i32_le(v);
        }
        b.into_array()
    }

    /// Decodes and validates entry `index` of a book of `count` entries.
    pub fn decode(b: &[u8; ENTRY_LEN], index: usize, count: usize) -> Result<AbkEntry, AbkError> {
        let offset = (index * ENTRY_LEN) as u64;
        let index64 = index as u64;
        let mut r = Reader::new(b);
        let [from, to, promotion, priority] = r.array()?;
        for (at, value) in [(0, from), (1, to)] {
            if value > 63 {
                return Err(AbkError::BadSquare { index: index64, offset: offset + at, value });
            }
        }
        if from == to {
            return Err(AbkError::NullMove { index: index64, offset });
        }
        let promotion = promotion as i8;
        if !(-4..=4).contains(&promotion) {
            return Err(AbkError::BadPromotion { index: index64, offset: offset + 2, value: promotion });
        }
        let (games, won, lost, ply_count) = (r.i32_le()?, r.i32_le()?, r.i32_le()?, r.i32_le()?);
        for (at, field, value) in [(4, "games", games), (8, "won", won), (12, "lost", lost)] {
            if value < 0 {
                return Err(AbkError::NegativeCount { index: index64, offset: offset + at, field, value });
            }
        }
        if won as i64 + lost as i64 > games as i64 {
            return Err(AbkError::ResultsAboveGames { index: index64, offset: offset + 4, games, won, lost });
        }
        let end = (ROOT_INDEX + count) as u64;
        let mut link = || -> Result<i32, AbkError> {
            let at = offset + r.offset() as u64;
            match r.i32_le()? {
                l @ (-1 | 0) => Ok(l),
                l if l >= ROOT_INDEX as i32 && (l as u64) < end => Ok(l),
                l => Err(AbkError::BadLink { index: index64, offset: at, link: l, end }),
            }
        };
        let (next_move, next_sibling) = (link()?, link()?);
        Ok(AbkEntry { from, to, promotion, priority, games, won, lost, ply_count, next_move, next_sibling })
    }

    /// The entry of the first reply, if the line goes on.
    pub fn reply(&self) -> Option<u32> {
        link(self.next_move)
    }

    /// The entry of the next alternative move in the same position.
    pub fn sibling(&self) -> Option<u32> {
        link(self.next_sibling)
    }

    /// The move as a Polyglot move field (to, from, promotion N1 B2 R3 Q4),
    /// which [`polyglot::decode_move`] turns into a legal move.
    pub fn polyglot_move(&self) -> u16 {
        let promo: u16 = match self.promotion.unsigned_abs() {
            1 => 3,
            2 => 1,
            3 => 2,
            4 => 4,
            _ => 0,
        };
        self.to as u16 | (self.from as u16) << 6 | promo << 12
    }

    /// Games drawn (games − won − lost; never negative once validated).
    pub fn drawn(&self) -> i32 {
        (self.games - self.won - self.lost).max(0)
    }
}

/// A whole book: Arena's header kept as read, and the entries from 900 on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbkBook {
    header: Vec<u8>,
    entries: Vec<AbkEntry>,
}

/// A move with its statistics and replies, for building a book
/// ([`AbkBook::from_tree`]); the entry's links are set when it is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbkNode {
    pub entry: AbkEntry,
    pub replies: Vec<AbkNode>,
}

impl AbkBook {
    /// An empty book with a header of zeros but for [`SIGNATURE`].
    pub fn new() -> AbkBook {
        let mut header = vec![0u8; HEADER_LEN];
        header[..4].copy_from_slice(SIGNATURE);
        AbkBook { header, entries: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn header(&self) -> &[u8] {
        &self.header
    }

    /// Entry `index` (900 is the root), if it exists.
    pub fn entry(&self, index: u32) -> Option<&AbkEntry> {
        self.entries.get((index as usize).checked_sub(ROOT_INDEX)?)
    }

    pub fn entries(&self) -> &[AbkEntry] {
        &self.entries
    }

    /// Validates a whole book image (see the module table).
    pub fn parse(bytes: &[u8]) -> Result<AbkBook, AbkError> {
        let len = bytes.len();
        let mut r = Reader::new(bytes);
        let header = r.bytes(HEADER_LEN)?;
        let extra = r.remaining() % ENTRY_LEN;
        if extra != 0 {
            return Err(AbkError::BadSize { len: len as u64, extra: extra as u64, offset: (len - extra) as u64 });
        }
        let count = r.remaining() / ENTRY_LEN;
        let mut entries = Vec::with_capacity(count);
        for i in 0..count {
            entries.push(AbkEntry::decode(&r.array()?, ROOT_INDEX + i, count)?);
        }
        let book = AbkBook { header: header.to_vec(), entries };
        book.check_tree()?;
        Ok(book)
    }

    pub fn open(path: &Path) -> Result<AbkBook, AbkError> {
        AbkBook::parse(&crate::codec::read_file(path)?)
    }

    /// Entries reached from the root, each once; errors on a second visit.
    fn check_tree(&self) -> Result<usize, AbkError> {
        if self.entries.is_empty() {
            return Ok(0);
        }
        let mut seen = vec![false; self.entries.len()];
        let mut stack = vec![ROOT_INDEX as u32];
        let mut reached = 0;
        while let Some(i) = stack.pop() {
            let slot = i as usize - ROOT_INDEX;
            if std::mem::replace(&mut seen[slot], true) {
                return Err(AbkError::ReachedTwice { index: i as u64, offset: i as u64 * ENTRY_LEN as u64 });
            }
            reached += 1;
            let e = &self.entries[slot];
            stack.extend(e.sibling());
            stack.extend(e.reply());
        }
        Ok(reached)
    }

    /// The sibling chain that starts at `first`: the moves of one position.
    pub fn siblings(&self, first: Option<u32>) -> impl Iterator<Item = (u32, &AbkEntry)> + '_ {
        // Terminates: `parse` checked that no chain revisits an entry.
        let mut next = first;
        std::iter::from_fn(move || {
            let i = next?;
            let e = self.entry(i)?;
            next = e.sibling();
            Some((i, e))
        })
    }

    /// The image of the book (header as read, then the entries).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.entries.len() * ENTRY_LEN);
        out.extend_from_slice(&self.header);
        out.resize(HEADER_LEN, 0);
        for e in &self.entries {
            out.put(&e.encode());
        }
        out
    }

    /// Writes the book atomically (temporary file, sync, rename).
    pub fn write(&self, path: &Path) -> Result<(), AbkError> {
        Ok(super::write_atomic(path, &self.to_bytes()).at(path)?)
    }

    /// A book whose root position has the moves `tree` (each with its
    /// replies). Siblings are stored next to each other, lines depth first.
    pub fn from_tree(tree: &[AbkNode]) -> AbkBook {
        let mut book = AbkBook::new();
        book.push_chain(tree);
        book
    }

    /// Appends the chain `nodes` and their subtrees; returns the first index.
    fn push_chain(&mut self, nodes: &[AbkNode]) -> Option<u32> {
        let first = ROOT_INDEX + self.entries.len();
        for (k, n) in nodes.iter().enumerate() {
            let next_sibling = (k + 1 < nodes.len()).then(|| (first + k + 1) as u32);
            self.entries.push(AbkEntry { next_move: -1, next_sibling: link_raw(next_sibling), ..n.entry });
        }
        for (k, n) in nodes.iter().enumerate() {
            if !n.replies.is_empty() {
                let child = self.push_chain(&n.replies);
                if let Some(e) = self.entries.get_mut(first - ROOT_INDEX + k) {
                    e.next_move = link_raw(child);
                }
            }
        }
        (!nodes.is_empty()).then_some(first as u32)
    }
}

impl Default for AbkBook {
    fn default() -> Self {
        AbkBook::new()
    }
}

/// A book move of one position, merged over the lines that reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AbkMove {
    pub mv: Move,
    pub priority: u8,
    pub games: i64,
    pub won: i64,
    pub lost: i64,
}

impl AbkMove {
    pub fn drawn(&self) -> i64 {
        (self.games - self.won - self.lost).max(0)
    }

    /// The Polyglot weight (see the module doc).
    pub fn weight(&self) -> u16 {
        let w = match (self.priority, self.games) {
            (0, _) => 0,
            (p, 0) => p as i64,
            _ => 2 * self.won + self.drawn(),
        };
        w.clamp(0, u16::MAX as i64) as u16
    }
}

/// A position of the book with its moves in file order.
#[derive(Clone, Debug)]
pub struct AbkPosition {
    pub board: Board,
    pub moves: Vec<AbkMove>,
}

/// What replaying the tree found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AbkReport {
    pub positions: usize,
    pub moves: usize,
    /// Entries whose move is not legal where the line reaches it (their
    /// subtrees are dropped with them).
    pub illegal_moves: usize,
    /// Entries no link reaches.
    pub unreachable_entries: usize,
}

impl std::fmt::Display for AbkReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} positions, {} moves", self.positions, self.moves)?;
        if self.illegal_moves > 0 {
            write!(f, "; {} illegal moves dropped with their lines", self.illegal_moves)?;
        }
        if self.unreachable_entries > 0 {
            write!(f, "; {} entries not linked from the root", self.unreachable_entries)?;
        }
        Ok(())
    }
}

impl AbkBook {
    /// Replays the tree from the start position: each position once (by
    /// Polyglot key, lines that transpose merged), in the order first met.
    pub fn positions(&self) -> (Vec<AbkPosition>, AbkReport) {
        let mut report = AbkReport::default();
        let mut out: Vec<AbkPosition> = Vec::new();
        let mut by_key: HashMap<u64, usize> = HashMap::new();
        let mut reached = 0usize;
        let first = (!self.entries.is_empty()).then_some(ROOT_INDEX as u32);
        let mut stack: Vec<(Option<u32>, Board)> = vec![(first, Board::startpos())];
        while let Some((chain, board)) = stack.pop() {
            let legal = board.legal_moves();
            let key = polyglot_key(&board);
            for (_, e) in self.siblings(chain) {
                reached += 1;
                let Some(mv) = polyglot::decode_move(&board, &legal, e.polyglot_move()) else {
                    report.illegal_moves += 1;
                    reached += self.subtree_len(e.reply());
                    continue;
                };
                let slot = *by_key.entry(key).or_insert_with(|| {
                    let mut b = board.clone();
                    b.clear_history();
                    out.push(AbkPosition { board: b, moves: Vec::new() });
                    out.len() - 1
                });
                let moves = &mut out[slot].moves;
                match moves.iter_mut().find(|m| m.mv == mv) {
                    Some(m) => {
                        m.games += e.games as i64;
                        m.won += e.won as i64;
                        m.lost += e.lost as i64;
                        m.priority = m.priority.max(e.priority);
                    }
                    None => moves.push(AbkMove {
                        mv,
                        priority: e.priority,
                        games: e.games as i64,
                        won: e.won as i64,
                        lost: e.lost as i64,
                    }),
                }
                if e.reply().is_some() {
                    let mut child = board.clone();
                    child.make_move(mv);
                    stack.push((e.reply(), child));
                }
            }
        }
        report.positions = out.len();
        report.moves = out.iter().map(|p| p.moves.len()).sum();
        report.unreachable_entries = self.entries.len().saturating_sub(reached);
        (out, report)
    }

    /// Entries in the subtree of a chain (the chain, its siblings' and its
    /// replies' subtrees).
    fn subtree_len(&self, chain: Option<u32>) -> usize {
        let mut n = 0;
        let mut stack = vec![chain];
        while let Some(c) = stack.pop() {
            for (_, e) in self.siblings(c) {
                n += 1;
                stack.push(e.reply());
            }
        }
        n
    }

    /// The book moves of `board` (matched by Polyglot key after replaying
    /// the tree), in file order.
    pub fn probe(&self, board: &Board) -> Vec<AbkMove> {
        let key = polyglot_key(board);
        let (positions, _) = self.positions();
        positions.into_iter().find(|p| polyglot_key(&p.board) == key).map_or_else(Vec::new, |p| p.moves)
    }
}

/// Polyglot entries (sorted) for every position of the book.
pub fn to_polyglot(positions: &[AbkPosition]) -> Vec<PolyglotEntry> {
    let mut entries: Vec<PolyglotEntry> = positions
        .iter()
        .flat_map(|p| p.moves.iter().map(|m| polyglot::entry_for(&p.board, m.mv, m.weight(), 0)))
        .collect();
    polyglot::sort_entries(&mut entries);
    entries
}

/// One YACB entry (engine key) per position (see the module doc).
pub fn to_yacb(positions: &[AbkPosition]) -> Vec<YacbEntry> {
    positions
        .iter()
        .filter_map(|p| {
            let mut best: Option<&AbkMove> = None;
            for m in &p.moves {
                if best.map_or(true, |b| (m.weight(), m.games) > (b.weight(), b.games)) {
                    best = Some(m);
                }
            }
            let best = best?;
            let games: i64 = p.moves.iter().map(|m| m.games).sum();
            let mover_points: i64 = p.moves.iter().map(|m| 2 * m.won + m.drawn()).sum();
            let white_points = match p.board.side_to_move() {
                Color::White => mover_points,
                Color::Black => 2 * games - mover_points,
            };
            let (value_type, value, source) = if games > 0 {
                let perf = (white_points as f64 / (2 * games) as f64 * 40_000.0).round() as i32;
                (ValueType::Perf, perf.clamp(0, 40_000), Source::Statistical)
            } else {
                (ValueType::Centipawns, 0, Source::Other)
            };
            Some(YacbEntry {
                key: p.board.key(),
                elo: Elo::rated(crate::book::format::UNKNOWN_ELO),
                value_type,
                bound: BoundType::Exact,
                source,
                value,
                best_move: best.mv,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
