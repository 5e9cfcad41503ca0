//! Writing an explorer index: each section into a temporary file beside
//! the output while the games (in order) and then the positions and
//! singles (each in key order) come, assembled with the block checksums
//! and the header at the end, atomically. Memory holds the strings, the
//! newest game ids (the others spilled: [`GameIds`]), one block of
//! singles and the block checksums (8 bytes a block).

mod ids;

pub use ids::GameIds;

use super::blocks::Summer;
use super::reader::{single_bits, Header};
use super::record::{encode_game, encode_position, BitWriter, PackedMoves};
use super::{GameRecord, PositionEntry, BLOCK, BLOCK_SHIFT, GAME_BLOCK, HEADER_LEN};
use crate::codec::{IoAt, MixMap, PathIoError, Put, TempDir};
use crate::explorer::model::GameId;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// One section being written: a temporary file and its length.
struct Section {
    file: BufWriter<File>,
    path: PathBuf,
    len: u64,
}

impl Section {
    fn create(path: PathBuf) -> Result<Section, PathIoError> {
        let file = BufWriter::with_capacity(1 << 16, File::create(&path).at(&path)?);
        Ok(Section { file, path, len: 0 })
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), PathIoError> {
        self.len += bytes.len() as u64;
        self.file.write_all(bytes).at(&self.path)
    }
}

const STRINGS: usize = 0;
const GAME_OFFSETS: usize = 1;
const GAMES: usize = 2;
const POSITION_KEYS: usize = 3;
const POSITION_OFFSETS: usize = 4;
const POSITIONS: usize = 5;
const SINGLES_DIR: usize = 6;
const SINGLES: usize = 7;
/// The id table: game numbers in id order, made at the end.
const IDS: usize = 8;
/// The sections in the file's order: the ids after the game data.
const ORDER: [usize; 9] =
    [STRINGS, GAME_OFFSETS, GAMES, IDS, POSITION_KEYS, POSITION_OFFSETS, POSITIONS, SINGLES_DIR, SINGLES];
/// Memory for the ids of a writer made by [`ExplorerWriter::create`].
const ID_BYTES: usize = 16 << 20;

/// Writes an index (see the module doc).
pub struct ExplorerWriter {
    out: PathBuf,
    dir: TempDir,
    max_ply: u8,
    top_games: u8,
    string_numbers: MixMap<String, u64>,
    sections: Vec<Section>,
    ids: GameIds,
    game_count: u64,
    position_count: u64,
    last_key: Option<u64>,
    /// The singles' widths (game numbers, plies), known once the games
    /// have ended (at the first position or single, or at the end); the
    /// singles packed, the bytes not yet in their section.
    single_widths: Option<(u32, u32)>,
    singles_packed: BitWriter,
    single_count: u64,
    last_single: Option<u64>,
    scratch: Vec<u8>,
}

impl ExplorerWriter {
    /// A writer of the index `out`, its sections in a temporary directory
    /// beside it; `top_games` is the header's count of top games per cell.
    pub fn create(out: &Path, max_ply: u8, top_games: u8) -> Result<ExplorerWriter, PathIoError> {
        ExplorerWriter::create_with(out, max_ply, top_games, None, ID_BYTES)
    }

    /// [`ExplorerWriter::create`], the game ids held in about `id_bytes`
    /// of memory and spilled to `spill` (else beside `out`).
    pub fn create_with(
        out: &Path,
        max_ply: u8,
        top_games: u8,
        spill: Option<&Path>,
        id_bytes: usize,
    ) -> Result<ExplorerWriter, PathIoError> {
        let dir = TempDir::beside(out).at(out)?;
        let ids = GameIds::new(spill.unwrap_or(dir.path()), id_bytes);
        let mut sections = Vec::new();
        for i in 0..9 {
            sections.push(Section::create(dir.file(&format!("section-{i}")))?);
        }
        let mut w = ExplorerWriter {
            out: out.to_path_buf(),
            dir,
            max_ply,
            top_games: top_games.max(1),
            string_numbers: MixMap::default(),
            sections,
            ids,
            game_count: 0,
            position_count: 0,
            last_key: None,
            single_widths: None,
            singles_packed: BitWriter::default(),
            single_count: 0,
            last_single: None,
            scratch: Vec::new(),
        };
        w.string("")?;
        w.sections[POSITION_OFFSETS].put(&0u64.to_le_bytes())?;
        Ok(w)
    }

    fn string(&mut self, s: &str) -> Result<u64, PathIoError> {
        // Strings longer than 255 bytes are cut at a character boundary.
        let mut end = s.len().min(255);
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        let s = &s[..end];
        if let Some(&n) = self.string_numbers.get(s) {
            return Ok(n);
        }
        let n = self.string_numbers.len() as u64;
        self.sections[STRINGS].put(&[s.len() as u8])?;
        self.sections[STRINGS].put(s.as_bytes())?;
        self.string_numbers.insert(s.to_string(), n);
        Ok(n)
    }

    /// Whether a game of id `id` was added.
    pub fn has_game(&mut self, id: &GameId) -> Result<bool, PathIoError> {
        self.ids.contains(id.as_bytes())
    }

    /// Adds the next game (its moves packed: [`PackedMoves`]), before any
    /// position or single; returns its number.
    pub fn game(&mut self, g: &GameRecord, moves: &PackedMoves) -> Result<u32, PathIoError> {
        debug_assert!(self.single_widths.is_none(), "a game after the positions or singles");
        let site = if super::record::is_lichess_site(g) { "" } else { g.site.as_str() };
        let mut numbers = [0u64; 6];
        for (n, s) in numbers.iter_mut().zip([g.white.as_str(), &g.black, &g.event, site, &g.round, &g.time_control]) {
            *n = self.string(s)?;
        }
        let mut next = numbers.into_iter();
        let mut body = std::mem::take(&mut self.scratch);
        body.clear();
        encode_game(g, moves, |_| next.next().unwrap_or(0), &mut body);
        if self.game_count % GAME_BLOCK as u64 == 0 {
            let at = self.sections[GAMES].len;
            self.sections[GAME_OFFSETS].put(&at.to_le_bytes())?;
        }
        let mut len = Vec::with_capacity(4);
        len.put_varint(body.len() as u64);
        self.sections[GAMES].put(&len)?;
        self.sections[GAMES].put(&body)?;
        self.scratch = body;
        let n = self.game_count as u32;
        self.ids.add(*g.id.as_bytes(), n)?;
        self.game_count += 1;
        Ok(n)
    }

    /// Ends the games (the next are positions and singles): the memory
    /// that told new ids from old is given back.
    pub fn end_games(&mut self) -> Result<(), PathIoError> {
        self.single_widths();
        self.ids.seal()
    }

    /// The singles' widths, fixed by the games added so far.
    fn single_widths(&mut self) -> (u32, u32) {
        let (games, max_ply) = (self.game_count, self.max_ply);
        *self.single_widths.get_or_insert_with(|| single_bits(games, max_ply))
    }

    /// Adds the next position (keys increasing).
    pub fn position(&mut self, key: u64, entry: &PositionEntry) -> Result<(), PathIoError> {
        let mut bytes = std::mem::take(&mut self.scratch);
        bytes.clear();
        encode_position(entry, &mut bytes);
        let done = self.position_encoded(key, &bytes);
        self.scratch = bytes;
        done
    }

    /// Adds the next position (keys increasing), its entry already
    /// encoded ([`encode_position`]).
    pub fn position_encoded(&mut self, key: u64, bytes: &[u8]) -> Result<(), PathIoError> {
        self.end_games()?;
        debug_assert!(self.last_key.map_or(true, |k| k < key));
        self.last_key = Some(key);
        self.sections[POSITION_KEYS].put(&key.to_le_bytes())?;
        self.sections[POSITIONS].put(bytes)?;
        let end = self.sections[POSITIONS].len;
        self.sections[POSITION_OFFSETS].put(&end.to_le_bytes())?;
        self.position_count += 1;
        Ok(())
    }

    /// Adds the next single (keys not decreasing): the position before
    /// ply `ply` of game `game`.
    pub fn single(&mut self, key: u64, game: u32, ply: u8) -> Result<(), PathIoError> {
        self.singles(&[(key, game, ply)])
    }

    /// Adds the next singles (keys not decreasing), as [`Self::single`].
    pub fn singles(&mut self, singles: &[(u64, u32, u8)]) -> Result<(), PathIoError> {
        self.end_games()?;
        let (g, p) = self.single_widths();
        let mut directory = Vec::new();
        for &(key, game, ply) in singles {
            debug_assert!(self.last_single.map_or(true, |k| k <= key));
            self.last_single = Some(key);
            if self.single_count % BLOCK as u64 == 0 {
                directory.extend_from_slice(&key.to_le_bytes());
            }
            // The three fields (8, g and p bits) in one put of at most 48.
            let field = |v: u64, width: u32| v & ((1u64 << width) - 1);
            let packed = u64::from(key as u8) | field(u64::from(game), g) << 8 | field(u64::from(ply), p) << (8 + g);
            self.singles_packed.put(packed, 8 + g + p);
            self.single_count += 1;
        }
        self.sections[SINGLES_DIR].put(&directory)?;
        if self.singles_packed.whole().len() >= 1 << 16 {
            self.sections[SINGLES].put(self.singles_packed.whole())?;
            self.singles_packed.clear_whole();
        }
        Ok(())
    }

    /// Games added so far.
    pub fn games(&self) -> u64 {
        self.game_count
    }

    /// Writes the index (header, sections, block checksums) at the output
    /// path, atomically; returns its length.
    pub fn finish(mut self) -> Result<u64, PathIoError> {
        self.end_games()?;
        let mut rest = Vec::new();
        self.singles_packed.append_to(&mut rest);
        self.sections[SINGLES].put(&rest)?;
        let end = self.sections[GAMES].len;
        self.sections[GAME_OFFSETS].put(&end.to_le_bytes())?;
        let ids = &mut self.sections[IDS];
        self.ids.for_each_number(self.game_count, |n| ids.put(&n.to_le_bytes()))?;
        for s in &mut self.sections {
            s.file.flush().at(&s.path)?;
        }
        let mut offsets = [0u64; 10];
        let mut at = HEADER_LEN as u64;
        for (i, &s) in ORDER.iter().enumerate() {
            offsets[i] = at;
            at += self.sections[s].len;
        }
        offsets[9] = at;
        let len = at + 8 * super::blocks::count(at, BLOCK_SHIFT);
        let paths: Vec<PathBuf> = self.sections.iter().map(|s| s.path.clone()).collect();
        let mut header = Header {
            max_ply: self.max_ply,
            top_games: self.top_games,
            games: self.game_count,
            strings: self.string_numbers.len() as u64,
            positions: self.position_count,
            singles: self.single_count,
            sections: offsets,
            len,
            block_shift: BLOCK_SHIFT,
            directory: 0,
        };
        drop(self.sections);
        let out = self.out.clone();
        crate::atomic_file::write_with(&out, 1 << 20, |w| {
            w.write_all(&header.encode())?;
            let mut sums = Summer::new(header.block_shift);
            let mut buf = vec![0u8; 1 << 20];
            for i in ORDER {
                let mut f = File::open(&paths[i])?;
                loop {
                    let n = f.read(&mut buf)?;
                    if n == 0 {
                        break;
                    }
                    sums.update(&buf[..n]);
                    w.write_all(&buf[..n])?;
                }
            }
            let sums = sums.finish();
            header.directory = crate::codec::hash64(at, &sums);
            w.write_all(&sums)?;
            w.seek(std::io::SeekFrom::Start(0))?;
            w.write_all(&header.encode())
        })
        .at(&out)?;
        drop(self.dir);
        Ok(len)
    }
}
