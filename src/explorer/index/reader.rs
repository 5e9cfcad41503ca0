//! Reading an explorer index: the header and its checks, the lookups
//! (games, ids, positions, singles) and the full verification.

use super::record::{bits_at, bits_for, decode_game, decode_position};
use super::{ExplorerError, GameRecord, PositionEntry, BLOCK, GAME_BLOCK, HEADER_LEN, MAGIC, VERSION};
use crate::codec::FileBytes as Bytes;
use crate::codec::{fnv1a64, Fixed, IoAt, Put, Reader};
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
    /// offsets, position data, singles directory, singles, end.
    pub sections: [u64; 10],
    pub checksum: u64,
}

/// Bits of a single: low byte, game, ply.
pub(super) fn single_bits(games: u64, max_ply: u8) -> (u32, u32) {
    (bits_for(games).max(1), bits_for(u64::from(max_ply)).max(1))
}

impl Header {
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
        b.put_u64_le(self.checksum);
        b.into_array()
    }

    fn decode(bytes: &[u8]) -> Result<Header, ExplorerError> {
        if !MAGIC.starts_with(bytes.get(..4).unwrap_or(bytes)) {
            return Err(ExplorerError::BadMagic);
        }
        let mut r = Reader::new(Reader::new(bytes).bytes(HEADER_LEN)?);
        r.skip(4)?;
        let version = r.u16_le()?;
        if version != VERSION {
            return Err(ExplorerError::UnsupportedVersion { version });
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
        let checksum = r.u64_le()?;
        let h = Header { max_ply, top_games, games, strings, positions, singles, sections, checksum };
        h.check(bytes.len() as u64)?;
        Ok(h)
    }

    /// The sections' bounds against the counts and the file's length.
    fn check(&self, len: u64) -> Result<(), ExplorerError> {
        let s = &self.sections;
        let bad = |i: usize, what| Err(ExplorerError::BadHeader { offset: 40 + 8 * i as u64, what });
        if s[0] != HEADER_LEN as u64 {
            return bad(0, "strings do not start after the header");
        }
        for i in 1..s.len() {
            if s[i] < s[i - 1] {
                return bad(i, "sections out of order");
            }
        }
        if s[9] != len {
            return bad(9, "the end is not the file's length");
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

impl Explorer {
    pub fn open(path: &Path) -> Result<Explorer, ExplorerError> {
        let file = std::fs::File::open(path).at(path)?;
        let map = crate::mapped::map_file(&file).at(path)?;
        Explorer::from_storage(Bytes::Mapped(map))
    }

    pub fn from_bytes(bytes: Vec<u8>) -> Result<Explorer, ExplorerError> {
        Explorer::from_storage(Bytes::Owned(bytes))
    }

    fn from_storage(bytes: Bytes) -> Result<Explorer, ExplorerError> {
        let header = Header::decode(&bytes)?;
        let e = Explorer { bytes, header };
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
                let v = self.u64_at(at);
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
                let k = self.u64_at(at);
                if prev.is_some_and(|p| if strict { k <= p } else { k < p }) {
                    return Err(ExplorerError::corrupt(at, what));
                }
                prev = Some(k);
            }
        }
        Ok(())
    }

    /// A u64 inside the file (the header's checks put every table in it).
    fn u64_at(&self, at: usize) -> u64 {
        self.bytes.get(at..at + 8).and_then(|b| b.try_into().ok()).map_or(0, u64::from_le_bytes)
    }

    fn section(&self, i: usize) -> (usize, &[u8]) {
        let (a, b) = (self.header.sections[i] as usize, self.header.sections[i + 1] as usize);
        (a, &self.bytes[a..b])
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

    /// The strings (players, events, sites, rounds, time controls).
    pub fn strings(&self) -> Result<Vec<String>, ExplorerError> {
        let (base, bytes) = self.section(0);
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

    /// The bytes of game `i`'s record (after its length) and their offset.
    fn game_bytes(&self, i: u32) -> Result<(usize, &[u8]), ExplorerError> {
        let s = self.header.sections;
        if u64::from(i) >= self.header.games {
            return Err(ExplorerError::corrupt(s[2] as usize, "game number out of range"));
        }
        let block = i as usize / GAME_BLOCK;
        let (data_base, data) = self.section(2);
        let mut r = Reader::at(data, self.u64_at(s[1] as usize + 8 * block) as usize);
        for j in 0..=(i as usize % GAME_BLOCK) {
            let at = data_base + r.offset();
            let len = r.varint().map_err(|_| ExplorerError::corrupt(at, "game record cut short"))?;
            let start = r.offset();
            let body =
                r.bytes(len as usize).map_err(|_| ExplorerError::corrupt(at, "game record past the game data"))?;
            if j == i as usize % GAME_BLOCK {
                return Ok((data_base + start, body));
            }
        }
        Err(ExplorerError::corrupt(data_base, "game record not found"))
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
    fn id_of(&self, i: u32) -> Option<[u8; 8]> {
        self.game_bytes(i).ok().and_then(|(_, b)| b.get(..8)).and_then(|b| b.try_into().ok())
    }

    /// The number of the game with `id`, if any (the first when several).
    pub fn game_by_id(&self, id: &[u8; 8]) -> Option<u32> {
        let (_, ids) = self.section(3);
        let n = ids.len() / 4;
        let number = |j: usize| u32::from_le_bytes([ids[4 * j], ids[4 * j + 1], ids[4 * j + 2], ids[4 * j + 3]]);
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.id_of(number(mid))? < *id {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo < n && self.id_of(number(lo)) == Some(*id)).then(|| number(lo))
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
            if key_at(mid) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo == n || key_at(lo) != key {
            return Ok(None);
        }
        self.position_at(lo).map(Some)
    }

    fn position_at(&self, i: usize) -> Result<PositionEntry, ExplorerError> {
        let s = self.header.sections;
        let off = |j: usize| self.u64_at(s[5] as usize + 8 * j) as usize;
        let base = s[6] as usize + off(i);
        decode_position(&self.bytes[base..s[6] as usize + off(i + 1)], base, self.header.games)
    }

    /// Single `j`: (low byte, game, ply).
    fn single_at(&self, j: u64) -> Option<(u8, u32, u8)> {
        let (g, p) = single_bits(self.header.games, self.header.max_ply);
        let w = u64::from(8 + g + p);
        let (_, bytes) = self.section(8);
        let low = bits_at(bytes, j * w, 8)? as u8;
        let game = bits_at(bytes, j * w + 8, g)? as u32;
        let ply = bits_at(bytes, j * w + 8 + u64::from(g), p)? as u8;
        Some((low, game, ply))
    }

    /// The singles whose key may be `key`: `(game, ply)` of those in its
    /// block (or the block before, which equal first keys may spill from)
    /// with its low byte.
    pub fn single_candidates(&self, key: u64) -> Vec<(u32, u8)> {
        let s = self.header.sections;
        let blocks = self.header.singles.div_ceil(BLOCK as u64) as usize;
        let first = |b: usize| self.u64_at(s[7] as usize + 8 * b);
        let (mut lo, mut hi) = (0, blocks);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if first(mid) <= key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut out = Vec::new();
        for b in lo.saturating_sub(2)..lo {
            let end = ((b + 1) * BLOCK).min(self.header.singles as usize);
            for j in b * BLOCK..end {
                if let Some((low, game, ply)) = self.single_at(j as u64) {
                    if low == key as u8 {
                        out.push((game, ply));
                    }
                }
            }
        }
        out
    }

    /// The single at `key`: its game, the ply and the game, found by
    /// replaying the candidates.
    pub fn single(&self, key: u64, strings: &[String]) -> Result<Option<(u32, u8, GameRecord)>, ExplorerError> {
        for (game, ply) in self.single_candidates(key) {
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

    /// Reads every record and checks the checksum.
    pub fn verify(&self) -> Result<Summary, ExplorerError> {
        let computed = fnv1a64(&self.bytes[HEADER_LEN..]);
        if computed != self.header.checksum {
            return Err(ExplorerError::Checksum { stored: self.header.checksum, computed });
        }
        let strings = self.strings()?;
        let mut summary = Summary { strings: strings.len() as u64, ..Summary::default() };
        let mut ids = Vec::with_capacity(self.header.games.min(1 << 26) as usize);
        for i in 0..self.header.games as u32 {
            let g = self.game(i, &strings)?;
            summary.plies += g.moves.len() as u64;
            ids.push((g.id, i));
        }
        let (data_base, data) = self.section(2);
        let last = self.header.games.checked_sub(1).map(|i| self.game_bytes(i as u32));
        if let Some(Ok((at, body))) = last {
            if at + body.len() != data_base + data.len() {
                return Err(ExplorerError::corrupt(at + body.len(), "bytes after the last game"));
            }
        }
        ids.sort_unstable();
        let (base, table) = self.section(3);
        for (j, (_, i)) in ids.iter().enumerate() {
            let stored = u32::from_le_bytes([table[4 * j], table[4 * j + 1], table[4 * j + 2], table[4 * j + 3]]);
            if stored != *i {
                return Err(ExplorerError::corrupt(base + 4 * j, "ids table not in id order"));
            }
        }
        for p in 0..self.header.positions as usize {
            self.position_at(p)?;
        }
        // Singles: each in range; the first of each block replayed to its
        // key (the directory's), which its low byte must match.
        let (dir, at) = (self.header.sections[7] as usize, self.header.sections[8] as usize);
        for j in 0..self.header.singles {
            let (low, game, ply) = self.single_at(j).ok_or(ExplorerError::corrupt(at, "single cut short"))?;
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
                if key != self.u64_at(dir + 8 * (j as usize / BLOCK)) || key as u8 != low {
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
