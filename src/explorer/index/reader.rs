//! Reading an explorer index: the header and its checks, the lookups
//! (games, ids, positions, singles) and the full verification.

use super::blocks::{self, Blocks};
use super::record::{bits_at, bits_for, decode_game, decode_position};
use super::{ExplorerError, GameRecord, PositionEntry, BLOCK, BLOCK_SHIFTS, GAME_BLOCK, HEADER_LEN, MAGIC, VERSION};
use crate::codec::FileBytes as Bytes;
use crate::codec::{hash64, Fixed, IoAt, Put, Reader, Truncated};
use crate::explorer::model::GameId;
use std::path::Path;

/// The header's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub max_ply: u8,
    pub top_games: u8,
    pub games: u64,
    pub strings: u64,
    pub positions: u64,
    pub singles: u64,
    /// Strings, game offsets, game data, ids, position keys, position
    /// offsets, position data, singles directory, singles, and `D`, where
    /// the block checksums start.
    pub sections: [u64; 10],
    /// The file's length.
    pub len: u64,
    pub block_shift: u8,
    /// The block checksums' checksum.
    pub directory: u64,
}

/// The sections' names, as errors name them.
const SECTIONS: [&str; 9] = [
    "strings",
    "game offsets",
    "game data",
    "ids",
    "position keys",
    "position offsets",
    "position data",
    "singles directory",
    "singles",
];

/// Where the header's checksum lies (it covers the bytes before it).
const HEADER_SUM: usize = 144;

/// Bits of a single: low byte, game, ply.
pub(super) fn single_bits(games: u64, max_ply: u8) -> (u32, u32) {
    (bits_for(games).max(1), bits_for(u64::from(max_ply)).max(1))
}

impl Header {
    /// The header's bytes, its checksum computed.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = Fixed::<HEADER_LEN>::new();
        b.put(MAGIC);
        b.put_u16_le(VERSION);
        b.put_u8(self.max_ply);
        b.put_u8(self.top_games);
        for v in [self.games, self.strings, self.positions, self.singles] {
            b.put_u64_le(v);
        }
        for v in self.sections {
            b.put_u64_le(v);
        }
        b.put_u64_le(self.len);
        b.put_u8(self.block_shift);
        b.put(&[0u8; 7]);
        b.put_u64_le(self.directory);
        let mut bytes = b.into_array();
        let sum = hash64(0, &bytes[..HEADER_SUM]);
        bytes[HEADER_SUM..].copy_from_slice(&sum.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8]) -> Result<Header, ExplorerError> {
        if !MAGIC.starts_with(bytes.get(..4).unwrap_or(bytes)) {
            return Err(ExplorerError::BadMagic);
        }
        let mut r = Reader::new(bytes);
        r.skip(4)?;
        match r.u16_le()? {
            VERSION => {}
            version @ 1 => return Err(ExplorerError::Outdated { version }),
            version => return Err(ExplorerError::UnsupportedVersion { version }),
        }
        let head = Reader::new(bytes).bytes(HEADER_LEN)?;
        let mut r = Reader::at(head, 6);
        let computed = hash64(0, &head[..HEADER_SUM]);
        let stored = Reader::at(head, HEADER_SUM).u64_le()?;
        if stored != computed {
            return Err(ExplorerError::HeaderChecksum { stored, computed });
        }
        let (max_ply, top_games) = (r.u8()?, r.u8()?);
        if max_ply == 0 {
            return Err(ExplorerError::BadHeader { offset: 6, what: "max ply 0" });
        }
        if top_games == 0 {
            return Err(ExplorerError::BadHeader { offset: 7, what: "top games 0" });
        }
        let (games, strings, positions, singles) = (r.u64_le()?, r.u64_le()?, r.u64_le()?, r.u64_le()?);
        let mut sections = [0u64; 10];
        for s in &mut sections {
            *s = r.u64_le()?;
        }
        let len = r.u64_le()?;
        let block_shift = r.u8()?;
        if r.bytes(7)?.iter().any(|&b| b != 0) {
            return Err(ExplorerError::BadHeader { offset: 129, what: "padding not zero" });
        }
        let directory = r.u64_le()?;
        let h =
            Header { max_ply, top_games, games, strings, positions, singles, sections, len, block_shift, directory };
        h.check(bytes.len() as u64)?;
        Ok(h)
    }

    /// The sections' bounds against the counts and the file's length.
    fn check(&self, len: u64) -> Result<(), ExplorerError> {
        let s = &self.sections;
        let bad = |i: usize, what| Err(ExplorerError::BadHeader { offset: 40 + 8 * i as u64, what });
        if len < self.len {
            return Err(ExplorerError::Truncated(Truncated { offset: len, needed: self.len - len, len }));
        }
        if len > self.len {
            return Err(ExplorerError::BadHeader { offset: 120, what: "the file is longer than its header says" });
        }
        if !BLOCK_SHIFTS.contains(&self.block_shift) {
            return Err(ExplorerError::BadHeader { offset: 128, what: "block size out of range" });
        }
        if s[0] != HEADER_LEN as u64 {
            return bad(0, "strings do not start after the header");
        }
        for i in 1..s.len() {
            if s[i] < s[i - 1] {
                return bad(i, "sections out of order");
            }
        }
        let sums = blocks::count(s[9], self.block_shift) * 8;
        if s[9].checked_add(sums) != Some(len) {
            return bad(9, "the block checksums do not end the file");
        }
        if self.games > u64::from(u32::MAX) {
            return Err(ExplorerError::BadHeader { offset: 8, what: "more games than a u32 numbers" });
        }
        let size = |i: usize| s[i + 1] - s[i];
        let expect = |i: usize, n: Option<u64>, what| match n {
            Some(n) if size(i) == n => Ok(()),
            _ => bad(i, what),
        };
        expect(1, (self.games.div_ceil(GAME_BLOCK as u64) + 1).checked_mul(8), "game offsets' length")?;
        expect(3, self.games.checked_mul(4), "ids' length")?;
        expect(4, self.positions.checked_mul(8), "position keys' length")?;
        expect(5, self.positions.checked_add(1).and_then(|n| n.checked_mul(8)), "position offsets' length")?;
        expect(7, Some(self.singles.div_ceil(BLOCK as u64) * 8), "singles directory's length")?;
        let (g, p) = single_bits(self.games, self.max_ply);
        let bits = self.singles.checked_mul(u64::from(8 + g + p));
        expect(8, bits.map(|b| b.div_ceil(8)), "singles' length")?;
        Ok(())
    }
}

/// An explorer index, opened.
pub struct Explorer {
    bytes: Bytes,
    header: Header,
    blocks: Blocks,
    /// The file as errors name it.
    file: String,
}

/// What [`Explorer::verify`] read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub games: u64,
    pub positions: u64,
    pub singles: u64,
    pub strings: u64,
    pub plies: u64,
}

/// Singles read at once: their bytes and the bit of the first.
struct Singles<'a> {
    bytes: &'a [u8],
    first_bit: u64,
    bits: (u32, u32),
}

impl Singles<'_> {
    /// Single `j`: (low byte, game, ply).
    fn get(&self, j: u64) -> Option<(u8, u32, u8)> {
        let (g, p) = self.bits;
        let at = (j * u64::from(8 + g + p)).checked_sub(self.first_bit)?;
        let low = bits_at(self.bytes, at, 8)? as u8;
        let game = bits_at(self.bytes, at + 8, g)? as u32;
        let ply = bits_at(self.bytes, at + 8 + u64::from(g), p)? as u8;
        Some((low, game, ply))
    }
}

impl Explorer {
    /// Maps `path` and checks its header and block checksums' checksum
    /// (and its tables: [`crate::explorer::index`]).
    pub fn open(path: &Path) -> Result<Explorer, ExplorerError> {
        let file = std::fs::File::open(path).at(path)?;
        let map = crate::mapped::map_file(&file).at(path)?;
        Explorer::from_storage(Bytes::Mapped(map), path.display().to_string())
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Result<Explorer, ExplorerError> {
        Explorer::from_storage(Bytes::Owned(bytes), "(bytes)".into())
    }

    fn from_storage(bytes: Bytes, file: String) -> Result<Explorer, ExplorerError> {
        let header = Header::decode(&bytes)?;
        let end = header.sections[9];
        let computed = bytes.get(end as usize..).map_or(0, |sums| hash64(end, sums));
        if computed != header.directory {
            return Err(ExplorerError::Directory { offset: end, stored: header.directory, computed });
        }
        let blocks = Blocks::new(end, header.block_shift);
        let e = Explorer { bytes, header, blocks, file };
        e.check_tables()?;
        Ok(e)
    }

    /// The offset tables and the keys increase and fit their sections.
    fn check_tables(&self) -> Result<(), ExplorerError> {
        let s = self.header.sections;
        let increasing = |table: usize, data: usize, n: u64, what| -> Result<(), ExplorerError> {
            let base = s[table] as usize;
            let end = s[data + 1] - s[data];
            let mut prev = 0u64;
            for i in 0..=n as usize {
                let at = base + 8 * i;
                let v = self.u64_at(at)?;
                let ok = if i == 0 { v == 0 } else { v >= prev } && v <= end && (i < n as usize || v == end);
                if !ok {
                    return Err(ExplorerError::corrupt(at, what));
                }
                prev = v;
            }
            Ok(())
        };
        let blocks = self.header.games.div_ceil(GAME_BLOCK as u64);
        increasing(1, 2, blocks, "game offsets not increasing or past the game data")?;
        increasing(5, 6, self.header.positions, "position offsets not increasing or past the position data")?;
        for (table, n, strict, what) in [
            (4, self.header.positions, true, "position keys not increasing"),
            (7, self.header.singles.div_ceil(BLOCK as u64), false, "singles directory not increasing"),
        ] {
            let mut prev = None;
            for i in 0..n as usize {
                let at = s[table] as usize + 8 * i;
                let k = self.u64_at(at)?;
                if prev.is_some_and(|p| if strict { k <= p } else { k < p }) {
                    return Err(ExplorerError::corrupt(at, what));
                }
                prev = Some(k);
            }
        }
        Ok(())
    }

    /// Bytes `at..at + len` of the sections, every block they touch
    /// checked against its checksum first: the one way bytes are read.
    fn read(&self, at: usize, len: usize) -> Result<&[u8], ExplorerError> {
        let end = at.checked_add(len).filter(|&end| at >= HEADER_LEN && end <= self.header.sections[9] as usize);
        let bytes = end.and_then(|end| self.bytes.get(at..end));
        let Some(bytes) = bytes else { return Err(ExplorerError::corrupt(at, "a read past the sections")) };
        for b in self.blocks.touched(at, len) {
            if !self.blocks.check(&self.bytes, b) {
                return Err(self.damaged(b));
            }
        }
        Ok(bytes)
    }

    /// Block `b` is damaged: where, and in which section it starts.
    fn damaged(&self, b: usize) -> ExplorerError {
        let (start, end) = self.blocks.range(b);
        let i = self.header.sections[..9].iter().rposition(|&s| s <= start as u64).unwrap_or(0);
        ExplorerError::Damaged {
            file: self.file.clone(),
            offset: start as u64,
            len: (end - start) as u64,
            section: SECTIONS[i],
        }
    }

    fn u64_at(&self, at: usize) -> Result<u64, ExplorerError> {
        let b = self.read(at, 8)?;
        Ok(u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
    }

    fn u32_at(&self, at: usize) -> Result<u32, ExplorerError> {
        let b = self.read(at, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Section `i`, checked whole, and its offset.
    fn section(&self, i: usize) -> Result<(usize, &[u8]), ExplorerError> {
        let (a, b) = (self.header.sections[i] as usize, self.header.sections[i + 1] as usize);
        Ok((a, self.read(a, b - a)?))
    }

    pub fn max_ply(&self) -> u8 {
        self.header.max_ply
    }
    pub fn top_games(&self) -> u8 {
        self.header.top_games
    }
    pub fn games(&self) -> u64 {
        self.header.games
    }
    pub fn positions(&self) -> u64 {
        self.header.positions
    }
    pub fn singles(&self) -> u64 {
        self.header.singles
    }
    pub fn len_bytes(&self) -> u64 {
        self.bytes.len() as u64
    }
    /// Checksummed blocks and their size in bytes.
    pub fn blocks(&self) -> (usize, usize) {
        (self.blocks.len(), 1 << self.header.block_shift)
    }

    /// The strings (players, events, sites, rounds, time controls).
    pub fn strings(&self) -> Result<Vec<String>, ExplorerError> {
        let (base, bytes) = self.section(0)?;
        let mut r = Reader::new(bytes);
        let mut out = Vec::with_capacity(self.header.strings.min(1 << 24) as usize);
        for _ in 0..self.header.strings {
            let at = base + r.offset();
            let cut = |_| ExplorerError::corrupt(at, "string cut short");
            let len = usize::from(r.u8().map_err(cut)?);
            let text = r.bytes(len).map_err(cut)?;
            out.push(String::from_utf8(text.to_vec()).map_err(|_| ExplorerError::corrupt(at, "string not UTF-8"))?);
        }
        if !r.is_empty() {
            return Err(ExplorerError::corrupt(base + r.offset(), "bytes after the last string"));
        }
        if out.first().map_or(self.header.strings > 0, |s| !s.is_empty()) || out.is_empty() {
            return Err(ExplorerError::corrupt(base, "string 0 is not the empty string"));
        }
        Ok(out)
    }

    /// Where game `i`'s record starts (after its length), for errors.
    pub fn game_offset(&self, i: u32) -> Result<u64, ExplorerError> {
        Ok(self.game_bytes(i)?.0 as u64)
    }

    /// The bytes of game `i`'s record (after its length) and their offset:
    /// its group of [`GAME_BLOCK`] games read.
    fn game_bytes(&self, i: u32) -> Result<(usize, &[u8]), ExplorerError> {
        let s = self.header.sections.map(|v| v as usize);
        if u64::from(i) >= self.header.games {
            return Err(ExplorerError::corrupt(s[2], "game number out of range"));
        }
        let group = i as usize / GAME_BLOCK;
        let at = s[1] + 8 * group;
        let (from, to) = (self.u64_at(at)? as usize, self.u64_at(at + 8)? as usize);
        let len = to.checked_sub(from).ok_or(ExplorerError::corrupt(at, "game offsets not increasing"))?;
        let base = s[2] + from;
        let mut r = Reader::new(self.read(base, len)?);
        for j in 0..=(i as usize % GAME_BLOCK) {
            let at = base + r.offset();
            let len = r.varint().map_err(|_| ExplorerError::corrupt(at, "game record cut short"))?;
            let start = r.offset();
            let body = r.bytes(len as usize).map_err(|_| ExplorerError::corrupt(at, "game record past its group"))?;
            if j == i as usize % GAME_BLOCK {
                return Ok((base + start, body));
            }
        }
        Err(ExplorerError::corrupt(base, "game record not found"))
    }

    /// Game `i`, its strings resolved in `strings` ([`Explorer::strings`]),
    /// its moves replayed.
    pub fn game(&self, i: u32, strings: &[String]) -> Result<GameRecord, ExplorerError> {
        let (base, bytes) = self.game_bytes(i)?;
        decode_game(bytes, base, strings, true)
    }

    /// Game `i` without its moves (a quick read of its tags).
    pub fn game_header(&self, i: u32, strings: &[String]) -> Result<GameRecord, ExplorerError> {
        let (base, bytes) = self.game_bytes(i)?;
        decode_game(bytes, base, strings, false)
    }

    /// The id of game `i`.
    fn id_of(&self, i: u32) -> Result<[u8; 8], ExplorerError> {
        let (at, bytes) = self.game_bytes(i)?;
        bytes.get(..8).and_then(|b| b.try_into().ok()).ok_or(ExplorerError::corrupt(at, "game record without its id"))
    }

    /// The number of the game with `id`, if any (the first when several).
    pub fn game_by_id(&self, id: &GameId) -> Result<Option<u32>, ExplorerError> {
        let base = self.header.sections[3] as usize;
        let number = |j: usize| self.u32_at(base + 4 * j);
        let (mut lo, mut hi) = (0, self.header.games as usize);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.id_of(number(mid)?)? < *id.as_bytes() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == self.header.games as usize {
            return Ok(None);
        }
        let n = number(lo)?;
        Ok((self.id_of(n)? == *id.as_bytes()).then_some(n))
    }

    /// The stored entry of the position `key`, if it was reached in two
    /// games or more.
    pub fn position(&self, key: u64) -> Result<Option<PositionEntry>, ExplorerError> {
        let s = self.header.sections;
        let n = self.header.positions as usize;
        let key_at = |i: usize| self.u64_at(s[4] as usize + 8 * i);
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if key_at(mid)? < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == n || key_at(lo)? != key {
            return Ok(None);
        }
        self.position_at(lo).map(Some)
    }

    fn position_at(&self, i: usize) -> Result<PositionEntry, ExplorerError> {
        let s = self.header.sections.map(|v| v as usize);
        let at = s[5] + 8 * i;
        let (from, to) = (self.u64_at(at)? as usize, self.u64_at(at + 8)? as usize);
        let len = to.checked_sub(from).ok_or(ExplorerError::corrupt(at, "position offsets not increasing"))?;
        let base = s[6] + from;
        decode_position(self.read(base, len)?, base, self.header.games)
    }

    /// Singles `from..to`, read at once.
    fn singles_in(&self, from: u64, to: u64) -> Result<Singles<'_>, ExplorerError> {
        let bits = single_bits(self.header.games, self.header.max_ply);
        let w = u64::from(8 + bits.0 + bits.1);
        let (first, end) = (from * w / 8, (to * w).div_ceil(8));
        let bytes = self.read(self.header.sections[8] as usize + first as usize, (end - first) as usize)?;
        Ok(Singles { bytes, first_bit: first * 8, bits })
    }

    /// The singles whose key may be `key`: `(game, ply)` of those in its
    /// block (or the block before, which equal first keys may spill from)
    /// with its low byte.
    pub fn single_candidates(&self, key: u64) -> Result<Vec<(u32, u8)>, ExplorerError> {
        let s = self.header.sections;
        let blocks = self.header.singles.div_ceil(BLOCK as u64) as usize;
        let first = |b: usize| self.u64_at(s[7] as usize + 8 * b);
        let (mut lo, mut hi) = (0, blocks);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if first(mid)? <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let (from, to) = ((lo.saturating_sub(2) * BLOCK) as u64, ((lo * BLOCK) as u64).min(self.header.singles));
        let singles = self.singles_in(from, to.max(from))?;
        let mut out = Vec::new();
        for j in from..to {
            if let Some((low, game, ply)) = singles.get(j) {
                if low == key as u8 {
                    out.push((game, ply));
                }
            }
        }
        Ok(out)
    }

    /// The single at `key`: its game, the ply and the game, found by
    /// replaying the candidates.
    pub fn single(&self, key: u64, strings: &[String]) -> Result<Option<(u32, u8, GameRecord)>, ExplorerError> {
        for (game, ply) in self.single_candidates(key)? {
            let g = self.game(game, strings)?;
            if usize::from(ply) >= g.moves.len() {
                return Err(ExplorerError::corrupt(self.header.sections[8] as usize, "a single past its game's end"));
            }
            let b = g.replay(usize::from(ply), |_, _| {}).map_err(|_| ExplorerError::corrupt(0, "unreachable"))?;
            if b.key_legal_ep() == key {
                return Ok(Some((game, ply, g)));
            }
        }
        Ok(None)
    }

    /// Checks every block, then reads every record.
    pub fn verify(&self) -> Result<Summary, ExplorerError> {
        for b in 0..self.blocks.len() {
            if !self.blocks.check(&self.bytes, b) {
                return Err(self.damaged(b));
            }
        }
        let strings = self.strings()?;
        let mut summary = Summary { strings: strings.len() as u64, ..Summary::default() };
        let mut ids = Vec::with_capacity(self.header.games.min(1 << 26) as usize);
        for i in 0..self.header.games as u32 {
            let g = self.game(i, &strings)?;
            summary.plies += g.moves.len() as u64;
            ids.push((g.id, i));
        }
        let data_end = self.header.sections[3] as usize;
        if let Some(last) = self.header.games.checked_sub(1) {
            let (at, body) = self.game_bytes(last as u32)?;
            if at + body.len() != data_end {
                return Err(ExplorerError::corrupt(at + body.len(), "bytes after the last game"));
            }
        }
        ids.sort_unstable();
        let (base, table) = self.section(3)?;
        for (j, ((_, i), stored)) in ids.iter().zip(table.chunks_exact(4)).enumerate() {
            if u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]) != *i {
                return Err(ExplorerError::corrupt(base + 4 * j, "ids table not in id order"));
            }
        }
        for p in 0..self.header.positions as usize {
            self.position_at(p)?;
        }
        // Singles: each in range; the first of each block replayed to its
        // key (the directory's), which its low byte must match.
        let (dir, at) = (self.header.sections[7] as usize, self.header.sections[8] as usize);
        let singles = self.singles_in(0, self.header.singles)?;
        for j in 0..self.header.singles {
            let (low, game, ply) = singles.get(j).ok_or(ExplorerError::corrupt(at, "single cut short"))?;
            if u64::from(game) >= self.header.games || ply >= self.header.max_ply {
                return Err(ExplorerError::corrupt(at, "single's game or ply out of range"));
            }
            if j % BLOCK as u64 == 0 {
                let g = self.game(game, &strings)?;
                let board = match g.replay(usize::from(ply), |_, _| {}) {
                    Ok(b) if usize::from(ply) < g.moves.len() => b,
                    _ => return Err(ExplorerError::corrupt(at, "a single past its game's end")),
                };
                let key = board.key_legal_ep();
                if key != self.u64_at(dir + 8 * (j as usize / BLOCK))? || key as u8 != low {
                    return Err(ExplorerError::corrupt(at, "a block's first single is not its directory key"));
                }
            }
        }
        summary.games = self.header.games;
        summary.positions = self.header.positions;
        summary.singles = self.header.singles;
        Ok(summary)
    }
}

#[cfg(test)]
impl Explorer {
    /// The index `bytes` with blocks of 2^`shift` bytes (small indexes of
    /// many blocks, for tests).
    pub(crate) fn reblocked(bytes: &[u8], shift: u8) -> Result<Vec<u8>, ExplorerError> {
        let mut h = Header::decode(bytes)?;
        let end = h.sections[9] as usize;
        let mut sums = blocks::Summer::new(shift);
        sums.update(&bytes[HEADER_LEN..end]);
        let sums = sums.finish();
        h.block_shift = shift;
        h.len = (end + sums.len()) as u64;
        h.directory = hash64(end as u64, &sums);
        let mut out = h.encode().to_vec();
        out.extend_from_slice(&bytes[HEADER_LEN..end]);
        out.extend_from_slice(&sums);
        Ok(out)
    }
}
