//! Syzygy endgame tablebases: finding table files, mapping them lazily,
//! probing WDL and DTZ, and ranking root moves.
//!
//! * [`Tablebases::new`] scans the directories of a `SyzygyPath`
//!   (`dir1:dir2:…`, or `;`-separated: see [`split_dirs`]) for `.rtbw`/`.rtbz` files named after their material
//!   (`KRPvKR.rtbw`). Nothing is opened then: each file is mapped and
//!   validated on its first probe (`tb/table.rs` documents the byte layout
//!   and what is checked), and the parsed table is kept in a
//!   [`OnceLock`], so any number of search threads can probe a shared
//!   `&Tablebases` at once.
//! * [`Tablebases::probe_wdl`] and [`Tablebases::probe_dtz`] answer exactly as
//!   python-chess's `chess.syzygy` does (captures and en passant resolved by
//!   a small search, DTZ50'' with its rounding); see `probe.rs`.
//! * [`Tablebases::rank_root_moves`] ranks the legal moves of a root
//!   position the way Stockfish does (see `root.rs`).
//!
//! A missing, truncated or corrupt table is an error ([`TbError`]), never a
//! panic: a file that fails validation is reported once by
//! [`Tablebases::check_all`] and behaves like a missing table afterwards.
//!
//! Invariants: WDL values are from the side to move's point of view
//! (−2 loss … 2 win); positions with castling rights are never probed, and
//! no table is looked up for more than [`MAX_PIECES`] pieces.

mod index;
mod line;
mod material;
mod moves;
mod order;
mod path;
mod position;
mod probe;
mod root;
mod table;
#[cfg(test)]
mod tests;

pub use index::MAX_PIECES;
pub use line::{LineEnd, LineStep, MainlineAnswer, MainlineStep, TbLine};
pub use material::Material;
pub use moves::{Category, MoveAnswer, MoveInfo, MovesReport, PositionAnswer, PositionInfo, TablebaseAnswer};
pub use path::{split_dirs, split_search_path};
pub use root::{rank_bound, RankedMove, RootRanking, TbScore, MAX_DTZ};
pub use table::Kind;

use crate::codec::MixMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use table::{Storage, Table};
use thiserror::Error;

/// Win/draw/loss from the side to move's point of view. A cursed win is a
/// win that the 50-move rule turns into a draw; a blessed loss the converse.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Wdl {
    Loss = -2,
    BlessedLoss = -1,
    Draw = 0,
    CursedWin = 1,
    Win = 2,
}

impl Wdl {
    /// The value −2..=2 (python-chess's convention).
    pub const fn value(self) -> i32 {
        self as i32
    }

    /// From −2..=2; values outside are clamped.
    pub const fn from_value(v: i32) -> Wdl {
        match v {
            i32::MIN..=-2 => Wdl::Loss,
            -1 => Wdl::BlessedLoss,
            0 => Wdl::Draw,
            1 => Wdl::CursedWin,
            _ => Wdl::Win,
        }
    }
}

/// Distance to zeroing (a capture or pawn move) in plies, python-chess's
/// `probe_dtz`: positive when the side to move wins, negative when it loses,
/// 0 for a draw; beyond ±100 for cursed wins and blessed losses. It may be
/// one ply too large in positions whose table rounds to full moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dtz(pub i32);

/// Why a probe failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TbError {
    /// No usable table for this material (or one reached by a capture).
    #[error("missing table {name}")]
    MissingTable { name: TableName },
    /// A table file failed validation or decompression.
    #[error("corrupt table {file} at offset {offset}: {reason}")]
    Corrupt { file: Arc<str>, offset: u64, reason: &'static str },
    /// A table file could not be opened or mapped.
    #[error("cannot read {file}: {reason}")]
    Io { file: Arc<str>, reason: String },
    #[error("{count} pieces on the board; tables hold at most {max}")]
    TooManyPieces { count: u32, max: u32 },
    #[error("positions with castling rights are not in the tables")]
    Castling,
}

impl TbError {
    /// A damaged or unreadable file, as opposed to a position the tables
    /// do not cover (missing table, too many pieces, castling rights).
    pub fn is_failure(&self) -> bool {
        matches!(self, TbError::Corrupt { .. } | TbError::Io { .. })
    }
}

/// The name of a table in its usual orientation (`KRPvKR`), without
/// allocating.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableName(pub Material);

impl fmt::Display for TableName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.normalized().fmt(f)
    }
}

/// Something found while scanning `SyzygyPath`. Every kind but
/// `Duplicate` means a table file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TbLoadIssue {
    UnreadableDirectory {
        path: PathBuf,
        reason: String,
    },
    UnreadableFile {
        path: PathBuf,
        reason: String,
    },
    /// Table files are 16 mod 64 bytes long; anything else is truncated.
    BadLength {
        path: PathBuf,
        len: u64,
    },
    /// A second file for the same table; the first one found is used.
    Duplicate {
        path: PathBuf,
        kept: PathBuf,
    },
}

impl TbLoadIssue {
    pub fn path(&self) -> &Path {
        match self {
            TbLoadIssue::UnreadableDirectory { path, .. }
            | TbLoadIssue::UnreadableFile { path, .. }
            | TbLoadIssue::BadLength { path, .. }
            | TbLoadIssue::Duplicate { path, .. } => path,
        }
    }

    /// Does this issue make a table file unusable?
    pub fn is_failure(&self) -> bool {
        !matches!(self, TbLoadIssue::Duplicate { .. })
    }
}

impl fmt::Display for TbLoadIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.path().display())?;
        match self {
            TbLoadIssue::UnreadableDirectory { reason, .. } => write!(f, "cannot read directory: {reason}"),
            TbLoadIssue::UnreadableFile { reason, .. } => write!(f, "cannot read: {reason}"),
            TbLoadIssue::BadLength { len, .. } => write!(f, "length {len} is not 16 mod 64 (truncated?)"),
            TbLoadIssue::Duplicate { kept, .. } => write!(f, "duplicate of {}, ignored", kept.display()),
        }
    }
}

/// One file of a table, mapped and parsed on first use.
struct LazyTable {
    path: PathBuf,
    label: Arc<str>,
    kind: Kind,
    material: Material,
    cell: OnceLock<Result<Table, TbError>>,
}

impl LazyTable {
    #[inline]
    fn get(&self) -> Result<&Table, TbError> {
        self.cell.get_or_init(|| self.load()).as_ref().map_err(Clone::clone)
    }

    fn load(&self) -> Result<Table, TbError> {
        let io = |e: std::io::Error| TbError::Io { file: self.label.clone(), reason: e.to_string() };
        let file = std::fs::File::open(&self.path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len % 64 != 16 {
            let reason = "file length is not 16 mod 64 (truncated?)";
            return Err(TbError::Corrupt { file: self.label.clone(), offset: len, reason });
        }
        let map = crate::mapped::map_file(&file).map_err(io)?;
        // Probes touch a few scattered bytes: read-ahead only wastes memory.
        #[cfg(unix)]
        let _ = map.advise(memmap2::Advice::Random);
        Table::parse(Storage::Mapped(map), self.kind, self.material, self.label.clone())
    }
}

/// The WDL and DTZ files of one material.
struct Entry {
    material: Material,
    wdl: Option<LazyTable>,
    dtz: Option<LazyTable>,
}

/// The state of one table file, for `tb info`.
#[derive(Debug)]
pub enum FileStatus {
    Missing,
    Ok { path: PathBuf },
    Failed { path: PathBuf, error: TbError },
}

/// A table and its two files, for `tb info`.
#[derive(Debug)]
pub struct TableStatus {
    pub name: String,
    pub pieces: u32,
    pub wdl: FileStatus,
    pub dtz: FileStatus,
}

/// A set of Syzygy tables. `Send + Sync`: share one `&Tablebases` between
/// search threads.
pub struct Tablebases {
    entries: Vec<Entry>,
    by_key: MixMap<u64, usize>,
    max_pieces: u32,
}

impl fmt::Debug for Tablebases {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tablebases")
            .field("tables", &self.entries.len())
            .field("max_pieces", &self.max_pieces)
            .finish_non_exhaustive()
    }
}

impl Tablebases {
    /// No tables: every probe is a missing table (`archivist serve` without
    /// `--syzygy` answers every position `unknown`).
    pub fn empty() -> Tablebases {
        Tablebases { entries: Vec::new(), by_key: MixMap::default(), max_pieces: 0 }
    }

    /// Finds the tables in `path` (directories separated by `:` or `;`, see
    /// [`split_dirs`]). Files are not opened yet. Unreadable directories, files of the wrong length
    /// and duplicates are reported (and skipped), not fatal.
    pub fn new(path: &str) -> (Tablebases, Vec<TbLoadIssue>) {
        let mut tb = Tablebases::empty();
        let mut issues = Vec::new();
        for dir in split_search_path(path) {
            tb.scan_dir(Path::new(dir), &mut issues);
        }
        (tb, issues)
    }

    fn scan_dir(&mut self, dir: &Path, issues: &mut Vec<TbLoadIssue>) {
        let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
            Ok(rd) => rd.filter_map(|e| e.ok().map(|e| e.path())).collect(),
            Err(e) => {
                issues.push(TbLoadIssue::UnreadableDirectory { path: dir.to_path_buf(), reason: e.to_string() });
                return;
            }
        };
        files.sort();
        for path in files {
            let ext = path.extension().and_then(|e| e.to_str());
            let Some(kind) = [Kind::Wdl, Kind::Dtz].into_iter().find(|k| Some(k.extension()) == ext) else {
                continue;
            };
            let Some(material) = path.file_stem().and_then(|s| s.to_str()).and_then(Material::parse) else {
                continue;
            };
            if material.total() < 3 {
                continue;
            }
            match std::fs::metadata(&path) {
                Ok(m) if m.is_file() && m.len() % 64 == 16 => {}
                Ok(m) if m.is_file() => {
                    issues.push(TbLoadIssue::BadLength { path, len: m.len() });
                    continue;
                }
                Ok(_) => continue,
                Err(e) => {
                    issues.push(TbLoadIssue::UnreadableFile { path, reason: e.to_string() });
                    continue;
                }
            }
            self.add(path, kind, material, issues);
        }
    }

    fn add(&mut self, path: PathBuf, kind: Kind, material: Material, issues: &mut Vec<TbLoadIssue>) {
        let index = match self.by_key.get(&material.key()) {
            Some(&i) => i,
            None => {
                self.entries.push(Entry { material, wdl: None, dtz: None });
                let i = self.entries.len() - 1;
                self.by_key.insert(material.key(), i);
                self.by_key.insert(material.flipped().key(), i);
                i
            }
        };
        let entry = &mut self.entries[index];
        let slot = match kind {
            Kind::Wdl => &mut entry.wdl,
            Kind::Dtz => &mut entry.dtz,
        };
        if let Some(existing) = slot {
            issues.push(TbLoadIssue::Duplicate { path, kept: existing.path.clone() });
            return;
        }
        let label: Arc<str> = path.file_name().map_or_else(|| "?".into(), |n| n.to_string_lossy().into());
        // The file's name gives the orientation its headers are checked against.
        *slot = Some(LazyTable { path, label, kind, material, cell: OnceLock::new() });
        if kind == Kind::Wdl {
            self.max_pieces = self.max_pieces.max(material.total());
        }
    }

    /// Most pieces of any WDL table found (0 when there are none).
    pub fn max_pieces(&self) -> u32 {
        self.max_pieces
    }

    /// Number of materials with at least one table file.
    pub fn table_count(&self) -> usize {
        self.entries.len()
    }

    /// The parsed table of `kind` for the material `key`, or why there is
    /// none.
    #[inline]
    fn table(&self, material: Material, kind: Kind) -> Result<&Table, TbError> {
        let missing = || TbError::MissingTable { name: TableName(material) };
        let entry = self.by_key.get(&material.key()).and_then(|&i| self.entries.get(i)).ok_or_else(missing)?;
        let slot = match kind {
            Kind::Wdl => &entry.wdl,
            Kind::Dtz => &entry.dtz,
        };
        slot.as_ref().ok_or_else(missing)?.get()
    }

    /// Maps and validates every table now; returns the status of each, in
    /// name order.
    pub fn check_all(&self) -> Vec<TableStatus> {
        let status = |slot: &Option<LazyTable>| match slot {
            None => FileStatus::Missing,
            Some(t) => match t.get() {
                Ok(_) => FileStatus::Ok { path: t.path.clone() },
                Err(error) => FileStatus::Failed { path: t.path.clone(), error },
            },
        };
        let mut out: Vec<TableStatus> = self
            .entries
            .iter()
            .map(|e| TableStatus {
                name: e.material.normalized().to_string(),
                pieces: e.material.total(),
                wdl: status(&e.wdl),
                dtz: status(&e.dtz),
            })
            .collect();
        out.sort_by(|a, b| (a.pieces, &a.name).cmp(&(b.pieces, &b.name)));
        out
    }
}
