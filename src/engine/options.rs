//! UCI options: their specifications (for the `uci` answer and config files)
//! and their current values.

use super::EngineError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
    Str { default: &'static str },
    Combo { default: &'static str, vars: &'static [&'static str] },
    Button,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    pub help: &'static str,
}

/// Every option the engine understands, in the order `uci` lists them.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "Hash",
        kind: OptionKind::Spin { default: 16, min: 1, max: 65536 },
        help: "Transposition table size in MB",
    },
    OptionSpec {
        name: "Threads",
        kind: OptionKind::Spin { default: 1, min: 1, max: 256 },
        help: "Search threads (Lazy SMP)",
    },
    OptionSpec { name: "Clear Hash", kind: OptionKind::Button, help: "Empty the transposition table" },
    OptionSpec {
        name: "MultiPV",
        kind: OptionKind::Spin { default: 1, min: 1, max: 256 },
        help: "Number of principal variations reported",
    },
    OptionSpec {
        name: "Move Overhead",
        kind: OptionKind::Spin { default: 20, min: 0, max: 5000 },
        help: "Milliseconds kept in reserve per move for GUI and pipe latency",
    },
    OptionSpec { name: "Ponder", kind: OptionKind::Check { default: false }, help: "Allow pondering (GUI hint)" },
    OptionSpec {
        name: "UCI_Chess960",
        kind: OptionKind::Check { default: false },
        help: "Chess960: castling written king-takes-rook (e1h1), Shredder-FEN",
    },
    OptionSpec {
        name: "UCI_ShowWDL",
        kind: OptionKind::Check { default: false },
        help: "Add `wdl W D L` (per mille) to info lines",
    },
    OptionSpec {
        name: "Hash File",
        kind: OptionKind::Str { default: "" },
        help: "SFTT file for Save/Load Hash and Persistent Hash",
    },
    OptionSpec { name: "Save Hash to File", kind: OptionKind::Button, help: "Write the TT to Hash File (SFTT)" },
    OptionSpec { name: "Load Hash from File", kind: OptionKind::Button, help: "Read Hash File into the TT" },
    OptionSpec {
        name: "Never Clear Hash",
        kind: OptionKind::Check { default: false },
        help: "ucinewgame and Clear Hash keep the table",
    },
    OptionSpec {
        name: "Persistent Hash",
        kind: OptionKind::Check { default: false },
        help: "Load Hash File when set (or at start), save it at quit",
    },
    OptionSpec {
        name: "Hash File Min Depth",
        kind: OptionKind::Spin { default: 0, min: 0, max: 255 },
        help: "Only entries at least this deep are saved (min_entry_depth)",
    },
    OptionSpec { name: "OwnBook", kind: OptionKind::Check { default: true }, help: "Play moves from BookFile" },
    OptionSpec {
        name: "BookFile",
        kind: OptionKind::Str { default: "" },
        help: "YACB books, separated by ':' and probed in order",
    },
    OptionSpec {
        name: "BookDepth",
        kind: OptionKind::Spin { default: 40, min: 0, max: 1000 },
        help:
            "Use the book (OwnBook, BookInSearch) while the game ply, counted from the FEN move number, is below this",
    },
    OptionSpec {
        name: "BookSelection",
        kind: OptionKind::Combo { default: "weighted", vars: &["best", "weighted", "uniform"] },
        help: "best: the highest expected score; weighted: random within BookVariety; uniform: any book move alike",
    },
    OptionSpec {
        name: "BookVariety",
        kind: OptionKind::Spin { default: 20, min: 0, max: 1000 },
        help: "Centipawn margin below the best move for weighted selection",
    },
    OptionSpec {
        name: "BookFileWhite",
        kind: OptionKind::Str { default: "" },
        help: "Books probed before BookFile when the engine plays white (':'-separated)",
    },
    OptionSpec {
        name: "BookFileBlack",
        kind: OptionKind::Str { default: "" },
        help: "Books probed before BookFile when the engine plays black (':'-separated)",
    },
    OptionSpec {
        name: "BookMinWeight",
        kind: OptionKind::Spin { default: 0, min: 0, max: 65535 },
        help: "Skip Polyglot moves lighter than this, YACB moves scoring below this (40000 = certain win)",
    },
    OptionSpec {
        name: "BookWidth",
        kind: OptionKind::Spin { default: 0, min: 0, max: 256 },
        help: "Choose only among the best N book moves (0: all)",
    },
    OptionSpec {
        name: "BookLearn",
        kind: OptionKind::Check { default: false },
        help: "Learn game results for positions played from YACB books (side file BOOK.learn)",
    },
    OptionSpec {
        name: "Read only learning",
        kind: OptionKind::Check { default: false },
        help: "BookLearn uses the side files but never writes them",
    },
    OptionSpec {
        name: "BookInSearch",
        kind: OptionKind::Check { default: false },
        help: "The search uses YACB entries rated at least its own elo like TT entries",
    },
    OptionSpec {
        name: "SyzygyPath",
        kind: OptionKind::Str { default: "" },
        help: "Syzygy tablebase directories, separated by ':' or ';' (';' only on Windows or when a drive letter is present)",
    },
    OptionSpec {
        name: "SyzygyProbeDepth",
        kind: OptionKind::Spin { default: 1, min: 1, max: 100 },
        help: "Minimum remaining depth for WDL probes in the search",
    },
    OptionSpec {
        name: "SyzygyProbeLimit",
        kind: OptionKind::Spin { default: 7, min: 0, max: 7 },
        help: "Probe only positions with at most this many pieces",
    },
    OptionSpec {
        name: "Syzygy50MoveRule",
        kind: OptionKind::Check { default: true },
        help: "Cursed wins and blessed losses count as draws",
    },
    OptionSpec {
        name: "EvalFile",
        kind: OptionKind::Str { default: "" },
        help: "Network file (ARNN v1, `archivist train` output) the search evaluates with; empty: the hand-written evaluation. A bad file is reported and the current evaluation kept",
    },
    OptionSpec {
        name: "Debug Log File",
        kind: OptionKind::Str { default: "" },
        help: "Log UCI traffic and diagnostics to this file (empty: warnings to stderr only)",
    },
];

/// What changed, so the engine can act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    None,
    Hash,
    Threads,
    ClearHash,
    Chess960,
    SaveHash,
    LoadHash,
    /// Persistent Hash or Hash File changed: load if persistence is on.
    PersistentHash,
    SyzygyPath,
    EvalFile,
    BookFile,
    BookLearn,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead_ms: u64,
    pub ponder: bool,
    pub chess960: bool,
    pub show_wdl: bool,
    pub debug_log_file: String,
    pub hash_file: String,
    pub never_clear_hash: bool,
    pub persistent_hash: bool,
    pub hash_file_min_depth: u8,
    pub syzygy_path: String,
    /// EvalFile: the network in use (empty: the hand-written evaluation).
    pub eval_file: String,
    pub syzygy_probe_depth: i32,
    pub syzygy_probe_limit: u32,
    pub syzygy_50_move_rule: bool,
    pub own_book: bool,
    pub book_file: String,
    pub book_depth: u32,
    pub book_selection: crate::book::select::Selection,
    pub book_variety: i32,
    pub book_in_search: bool,
    pub book_file_white: String,
    pub book_file_black: String,
    pub book_min_weight: u32,
    pub book_width: usize,
    pub book_learn: bool,
    pub read_only_learning: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 20,
            ponder: false,
            chess960: false,
            show_wdl: false,
            debug_log_file: String::new(),
            hash_file: String::new(),
            never_clear_hash: false,
            persistent_hash: false,
            hash_file_min_depth: 0,
            syzygy_path: String::new(),
            eval_file: String::new(),
            syzygy_probe_depth: 1,
            syzygy_probe_limit: 7,
            syzygy_50_move_rule: true,
            own_book: true,
            book_file: String::new(),
            book_depth: 40,
            book_selection: crate::book::select::Selection::Weighted,
            book_variety: 20,
            book_in_search: false,
            book_file_white: String::new(),
            book_file_black: String::new(),
            book_min_weight: 0,
            book_width: 0,
            book_learn: false,
            read_only_learning: false,
        }
    }
}

pub fn find(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name.trim()))
}

/// Names other engines use that GUIs and bot configurations send: `Book
/// File` (Cfish, Brainfish) is `BookFile`; `BestBookMove` true is
/// `BookSelection best`, false `weighted`. Not listed by `uci`.
fn alias(name: &str, value: Option<&str>) -> Option<(&'static str, Option<String>)> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("Book File") {
        return Some(("BookFile", value.map(str::to_string)));
    }
    if name.eq_ignore_ascii_case("BestBookMove") {
        let v = match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("true") => "best",
            Some("false") => "weighted",
            _ => "",
        };
        return Some(("BookSelection", Some(v.to_string())));
    }
    None
}

fn bad(name: &str, reason: impl Into<String>) -> EngineError {
    EngineError::BadOptionValue { name: name.to_string(), reason: reason.into() }
}

/// Parses a spin value and checks its range.
pub fn parse_spin(spec: &OptionSpec, value: Option<&str>) -> Result<i64, EngineError> {
    let OptionKind::Spin { min, max, .. } = spec.kind else {
        return Err(bad(spec.name, "not a spin option"));
    };
    let text = value.ok_or_else(|| bad(spec.name, "missing value"))?.trim();
    let v: i64 = text.parse().map_err(|_| bad(spec.name, format!("'{text}' is not an integer")))?;
    if !(min..=max).contains(&v) {
        return Err(bad(spec.name, format!("{v} is outside {min}..={max}")));
    }
    Ok(v)
}

pub fn parse_check(spec: &OptionSpec, value: Option<&str>) -> Result<bool, EngineError> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        other => Err(bad(spec.name, format!("expected true or false, got {other:?}"))),
    }
}

impl Options {
    /// Sets one option by its UCI name (case-insensitive, as UCI asks).
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Change, EngineError> {
        if let Some((canonical, v)) = alias(name, value) {
            return self.set(canonical, v.as_deref()).map_err(|e| match e {
                EngineError::BadOptionValue { reason, .. } => bad(name.trim(), reason),
                other => other,
            });
        }
        self.set_known(name, value)
    }

    fn set_known(&mut self, name: &str, value: Option<&str>) -> Result<Change, EngineError> {
        let spec = find(name).ok_or_else(|| EngineError::UnknownOption(name.trim().to_string()))?;
        Ok(match spec.name {
            "Hash" => {
                self.hash_mb = parse_spin(spec, value)? as usize;
                Change::Hash
            }
            "Threads" => {
                self.threads = parse_spin(spec, value)? as usize;
                Change::Threads
            }
            "Clear Hash" => Change::ClearHash,
            "MultiPV" => {
                self.multipv = parse_spin(spec, value)? as usize;
                Change::None
            }
            "Move Overhead" => {
                self.move_overhead_ms = parse_spin(spec, value)? as u64;
                Change::None
            }
            "Ponder" => {
                self.ponder = parse_check(spec, value)?;
                Change::None
            }
            "UCI_Chess960" => {
                self.chess960 = parse_check(spec, value)?;
                Change::Chess960
            }
            "UCI_ShowWDL" => {
                self.show_wdl = parse_check(spec, value)?;
                Change::None
            }
            "Hash File" => {
                self.hash_file = value.unwrap_or("").trim().to_string();
                Change::PersistentHash
            }
            "Save Hash to File" => Change::SaveHash,
            "Load Hash from File" => Change::LoadHash,
            "Never Clear Hash" => {
                self.never_clear_hash = parse_check(spec, value)?;
                Change::None
            }
            "Persistent Hash" => {
                self.persistent_hash = parse_check(spec, value)?;
                Change::PersistentHash
            }
            "Hash File Min Depth" => {
                self.hash_file_min_depth = parse_spin(spec, value)? as u8;
                Change::None
            }
            "OwnBook" => {
                self.own_book = parse_check(spec, value)?;
                Change::None
            }
            "BookFile" => {
                let v = value.unwrap_or("").trim();
                self.book_file = if v == "<empty>" { String::new() } else { v.to_string() };
                Change::BookFile
            }
            "BookDepth" => {
                self.book_depth = parse_spin(spec, value)? as u32;
                Change::None
            }
            "BookSelection" => {
                let v = value.unwrap_or("");
                self.book_selection = crate::book::select::Selection::parse(v)
                    .ok_or_else(|| bad(spec.name, format!("'{v}' is not one of best, weighted, uniform")))?;
                Change::None
            }
            "BookVariety" => {
                self.book_variety = parse_spin(spec, value)? as i32;
                Change::None
            }
            "BookFileWhite" | "BookFileBlack" => {
                let v = value.unwrap_or("").trim();
                let v = if v == "<empty>" { String::new() } else { v.to_string() };
                if spec.name == "BookFileWhite" {
                    self.book_file_white = v;
                } else {
                    self.book_file_black = v;
                }
                Change::BookFile
            }
            "BookMinWeight" => {
                self.book_min_weight = parse_spin(spec, value)? as u32;
                Change::None
            }
            "BookWidth" => {
                self.book_width = parse_spin(spec, value)? as usize;
                Change::None
            }
            "BookLearn" => {
                self.book_learn = parse_check(spec, value)?;
                Change::BookLearn
            }
            "Read only learning" => {
                self.read_only_learning = parse_check(spec, value)?;
                Change::BookLearn
            }
            "BookInSearch" => {
                self.book_in_search = parse_check(spec, value)?;
                Change::None
            }
            "SyzygyPath" => {
                let v = value.unwrap_or("").trim();
                self.syzygy_path = if v == "<empty>" { String::new() } else { v.to_string() };
                Change::SyzygyPath
            }
            "EvalFile" => {
                let v = value.unwrap_or("").trim();
                self.eval_file = if v == "<empty>" { String::new() } else { v.to_string() };
                Change::EvalFile
            }
            "SyzygyProbeDepth" => {
                self.syzygy_probe_depth = parse_spin(spec, value)? as i32;
                Change::None
            }
            "SyzygyProbeLimit" => {
                self.syzygy_probe_limit = parse_spin(spec, value)? as u32;
                Change::None
            }
            "Syzygy50MoveRule" => {
                self.syzygy_50_move_rule = parse_check(spec, value)?;
                Change::None
            }
            "Debug Log File" => {
                let path = value.unwrap_or("").trim().to_string();
                crate::logging::set_log_file(&path).map_err(|e| bad(spec.name, e.to_string()))?;
                self.debug_log_file = path;
                Change::None
            }
            _ => Change::None,
        })
    }
}
