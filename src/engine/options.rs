//! UCI options, each declared once in [`OPTIONS`] (Stockfish's shape): its
//! name, kind with default and range, how a value is stored in [`Options`],
//! and what the engine does after a change ([`Change`]). The `uci` listing,
//! [`Options::default`] and the config file's path options all come from
//! that table.
//!
//! Invariant: [`Options`] only holds values; opening files, resizing the
//! table and the like happen in the engine, on the option's [`Change`].

use super::EngineError;
use crate::book::play::select::Selection;
use OptionKind::{Button, Check, Combo, Spin, Str};

/// An option's UCI type with its default and range, and the function that
/// stores a parsed value (the default too) in [`Options`].
#[derive(Clone, Copy, Debug)]
pub enum OptionKind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
        set: fn(&mut Options, i64),
    },
    Check {
        default: bool,
        set: fn(&mut Options, bool),
    },
    /// `path`: the value is a file or directory (or a list of them), so a
    /// config file's relative paths are resolved against its directory.
    Str {
        default: &'static str,
        path: bool,
        set: fn(&mut Options, String),
    },
    /// `set` receives one of `vars`, as the table spells it.
    Combo {
        default: &'static str,
        vars: &'static [&'static str],
        set: fn(&mut Options, &str),
    },
    Button,
}

#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub kind: OptionKind,
    /// What the engine does after the option is set.
    pub on_change: Change,
    /// One line for people (`archivist options`).
    pub help: &'static str,
}

impl OptionSpec {
    /// Whether a config file's relative paths in this option are resolved
    /// against the config file's directory.
    pub fn is_path(&self) -> bool {
        matches!(self.kind, Str { path: true, .. })
    }
}

/// What the engine does after an option is set.
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
    /// Open (or, when empty, close) the debug log file.
    DebugLogFile,
}

/// Every option the engine understands, in the order `uci` lists them.
pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "Hash",
        kind: Spin { default: 16, min: 1, max: 65536, set: |o, v| o.hash_mb = v as usize },
        on_change: Change::Hash,
        help: "Transposition table size in MB",
    },
    OptionSpec {
        name: "Threads",
        kind: Spin { default: 1, min: 1, max: 256, set: |o, v| o.threads = v as usize },
        on_change: Change::Threads,
        help: "Search threads (Lazy SMP)",
    },
    OptionSpec { name: "Clear Hash", kind: Button, on_change: Change::ClearHash, help: "Empty the transposition table" },
    OptionSpec {
        name: "MultiPV",
        kind: Spin { default: 1, min: 1, max: 256, set: |o, v| o.multipv = v as usize },
        on_change: Change::None,
        help: "Number of principal variations reported",
    },
    OptionSpec {
        name: "Move Overhead",
        kind: Spin { default: 20, min: 0, max: 5000, set: |o, v| o.move_overhead_ms = v as u64 },
        on_change: Change::None,
        help: "Milliseconds kept in reserve per move for GUI and pipe latency",
    },
    OptionSpec {
        name: "Ponder",
        kind: Check { default: false, set: |o, v| o.ponder = v },
        on_change: Change::None,
        help: "Allow pondering (GUI hint)",
    },
    OptionSpec {
        name: "UCI_Chess960",
        kind: Check { default: false, set: |o, v| o.chess960 = v },
        on_change: Change::Chess960,
        help: "Chess960: castling written king-takes-rook (e1h1), Shredder-FEN",
    },
    OptionSpec {
        name: "UCI_ShowWDL",
        kind: Check { default: false, set: |o, v| o.show_wdl = v },
        on_change: Change::None,
        help: "Add `wdl W D L` (per mille) to info lines",
    },
    OptionSpec {
        name: "Hash File",
        kind: Str { default: "", path: true, set: |o, v| o.hash_file = v },
        on_change: Change::PersistentHash,
        help: "SFTT file for Save/Load Hash and Persistent Hash",
    },
    OptionSpec {
        name: "Save Hash to File",
        kind: Button,
        on_change: Change::SaveHash,
        help: "Write the TT to Hash File (SFTT)",
    },
    OptionSpec {
        name: "Load Hash from File",
        kind: Button,
        on_change: Change::LoadHash,
        help: "Read Hash File into the TT",
    },
    OptionSpec {
        name: "Never Clear Hash",
        kind: Check { default: false, set: |o, v| o.never_clear_hash = v },
        on_change: Change::None,
        help: "ucinewgame and Clear Hash keep the table",
    },
    OptionSpec {
        name: "Persistent Hash",
        kind: Check { default: false, set: |o, v| o.persistent_hash = v },
        on_change: Change::PersistentHash,
        help: "Load Hash File when set (or at start), save it at quit",
    },
    OptionSpec {
        name: "Hash File Min Depth",
        kind: Spin { default: 0, min: 0, max: 255, set: |o, v| o.hash_file_min_depth = v as u8 },
        on_change: Change::None,
        help: "Only entries at least this deep are saved (min_entry_depth)",
    },
    OptionSpec {
        name: "OwnBook",
        kind: Check { default: true, set: |o, v| o.own_book = v },
        on_change: Change::None,
        help: "Play moves from BookFile",
    },
    OptionSpec {
        name: "BookFile",
        kind: Str { default: "", path: true, set: |o, v| o.book_file = v },
        on_change: Change::BookFile,
        help: "Books (YACB, Polyglot or ABK, told by content), separated by ':' and probed in order",
    },
    OptionSpec {
        name: "BookDepth",
        kind: Spin { default: 40, min: 0, max: 1000, set: |o, v| o.book_depth = v as u32 },
        on_change: Change::None,
        help:
            "Use the book (OwnBook, BookInSearch) while the game ply, counted from the FEN move number, is below this",
    },
    OptionSpec {
        name: "BookSelection",
        kind: Combo {
            default: "weighted",
            vars: &["best", "weighted", "uniform"],
            set: |o, v| o.book_selection = Selection::parse(v).unwrap_or(o.book_selection),
        },
        on_change: Change::None,
        help: "best: the highest expected score; weighted: random within BookVariety; uniform: any book move alike",
    },
    OptionSpec {
        name: "BookVariety",
        kind: Spin { default: 20, min: 0, max: 1000, set: |o, v| o.book_variety = v as i32 },
        on_change: Change::None,
        help: "Centipawn margin below the best move for weighted selection",
    },
    OptionSpec {
        name: "BookFileWhite",
        kind: Str { default: "", path: true, set: |o, v| o.book_file_white = v },
        on_change: Change::BookFile,
        help: "Books probed before BookFile when the engine plays white (':'-separated)",
    },
    OptionSpec {
        name: "BookFileBlack",
        kind: Str { default: "", path: true, set: |o, v| o.book_file_black = v },
        on_change: Change::BookFile,
        help: "Books probed before BookFile when the engine plays black (':'-separated)",
    },
    OptionSpec {
        name: "BookMinWeight",
        kind: Spin { default: 0, min: 0, max: 65535, set: |o, v| o.book_min_weight = v as u32 },
        on_change: Change::None,
        help: "Skip Polyglot moves lighter than this, YACB moves scoring below this (40000 = certain win)",
    },
    OptionSpec {
        name: "BookWidth",
        kind: Spin { default: 0, min: 0, max: 256, set: |o, v| o.book_width = v as usize },
        on_change: Change::None,
        help: "Choose only among the best N book moves (0: all)",
    },
    OptionSpec {
        name: "BookLearn",
        kind: Check { default: false, set: |o, v| o.book_learn = v },
        on_change: Change::BookLearn,
        help: "Learn game results for positions played from YACB books (side file BOOK.learn)",
    },
    OptionSpec {
        name: "Read only learning",
        kind: Check { default: false, set: |o, v| o.read_only_learning = v },
        on_change: Change::BookLearn,
        help: "BookLearn uses the side files but never writes them",
    },
    OptionSpec {
        name: "BookInSearch",
        kind: Check { default: false, set: |o, v| o.book_in_search = v },
        on_change: Change::None,
        help: "The search uses YACB entries rated at least its own elo like TT entries",
    },
    OptionSpec {
        name: "SyzygyPath",
        kind: Str { default: "", path: true, set: |o, v| o.syzygy_path = v },
        on_change: Change::SyzygyPath,
        help: "Syzygy tablebase directories, separated by ':' or ';' (';' only on Windows or when a drive letter is present)",
    },
    OptionSpec {
        name: "SyzygyProbeDepth",
        kind: Spin { default: 1, min: 1, max: 100, set: |o, v| o.syzygy_probe_depth = v as i32 },
        on_change: Change::None,
        help: "Minimum remaining depth for WDL probes in the search",
    },
    OptionSpec {
        name: "SyzygyProbeLimit",
        kind: Spin { default: 7, min: 0, max: 7, set: |o, v| o.syzygy_probe_limit = v as u32 },
        on_change: Change::None,
        help: "Probe only positions with at most this many pieces",
    },
    OptionSpec {
        name: "Syzygy50MoveRule",
        kind: Check { default: true, set: |o, v| o.syzygy_50_move_rule = v },
        on_change: Change::None,
        help: "Cursed wins and blessed losses count as draws",
    },
    OptionSpec {
        name: "EvalFile",
        kind: Str { default: "", path: true, set: |o, v| o.eval_file = v },
        on_change: Change::EvalFile,
        help: "Network file (ARNN v1, `archivist train` output) the search evaluates with; empty: the network built into the binary, or the hand-written evaluation when it has none. A bad file is reported and the current evaluation kept",
    },
    OptionSpec {
        name: "UseNetwork",
        kind: Check { default: true, set: |o, v| o.use_network = v },
        on_change: Change::EvalFile,
        help: "Evaluate with a network (EvalFile, else the built-in one); false: the hand-written evaluation",
    },
    OptionSpec {
        name: "Debug Log File",
        kind: Str { default: "", path: true, set: |o, v| o.debug_log_file = v },
        on_change: Change::DebugLogFile,
        help: "Log UCI traffic and diagnostics to this file (empty: warnings to stderr only)",
    },
];

/// Declares [`Options`] and `Options::blank`, every field its type's
/// default, on which [`Options::default`] stores the table's defaults.
macro_rules! options_struct {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// The current value of every option; [`OPTIONS`] says how each is set.
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct Options {
            $($(#[$doc])* pub $field: $ty,)*
        }

        impl Options {
            fn blank() -> Options {
                Options { $($field: Default::default(),)* }
            }
        }
    };
}

options_struct! {
    hash_mb: usize,
    threads: usize,
    multipv: usize,
    move_overhead_ms: u64,
    ponder: bool,
    chess960: bool,
    show_wdl: bool,
    debug_log_file: String,
    hash_file: String,
    never_clear_hash: bool,
    persistent_hash: bool,
    hash_file_min_depth: u8,
    syzygy_path: String,
    /// EvalFile: the network file in use (empty: the built-in network, or
    /// the hand-written evaluation when the binary has none).
    eval_file: String,
    /// UseNetwork: false selects the hand-written evaluation.
    use_network: bool,
    syzygy_probe_depth: i32,
    syzygy_probe_limit: u32,
    syzygy_50_move_rule: bool,
    own_book: bool,
    book_file: String,
    book_depth: u32,
    book_selection: Selection,
    book_variety: i32,
    book_in_search: bool,
    book_file_white: String,
    book_file_black: String,
    book_min_weight: u32,
    book_width: usize,
    book_learn: bool,
    read_only_learning: bool,
}

impl Default for Options {
    /// Every option at its default from [`OPTIONS`].
    fn default() -> Self {
        let mut o = Options::blank();
        for spec in OPTIONS {
            match spec.kind {
                Spin { default, set, .. } => set(&mut o, default),
                Check { default, set } => set(&mut o, default),
                Str { default, set, .. } => set(&mut o, default.to_string()),
                Combo { default, set, .. } => set(&mut o, default),
                Button => {}
            }
        }
        o
    }
}

/// A string option's value: trimmed, and empty for `<empty>` (the UCI
/// convention for an empty string, which `uci` lists as the default of an
/// empty option).
fn string_value(value: Option<&str>) -> String {
    match value.unwrap_or("").trim() {
        "<empty>" => String::new(),
        v => v.to_string(),
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
fn parse_spin(name: &str, (min, max): (i64, i64), value: Option<&str>) -> Result<i64, EngineError> {
    let text = value.ok_or_else(|| bad(name, "missing value"))?.trim();
    let v: i64 = text.parse().map_err(|_| bad(name, format!("'{text}' is not an integer")))?;
    if !(min..=max).contains(&v) {
        return Err(bad(name, format!("{v} is outside {min}..={max}")));
    }
    Ok(v)
}

fn parse_check(name: &str, value: Option<&str>) -> Result<bool, EngineError> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        other => Err(bad(name, format!("expected true or false, got {other:?}"))),
    }
}

/// The combo's var that `value` names (case-insensitive), as the table spells it.
fn parse_combo(name: &str, vars: &[&'static str], value: Option<&str>) -> Result<&'static str, EngineError> {
    let v = value.unwrap_or("");
    let found = vars.iter().find(|var| var.eq_ignore_ascii_case(v.trim()));
    found.copied().ok_or_else(|| bad(name, format!("'{v}' is not one of {}", vars.join(", "))))
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
        let spec = find(name).ok_or_else(|| EngineError::UnknownOption(name.trim().to_string()))?;
        match spec.kind {
            Spin { min, max, set, .. } => set(self, parse_spin(spec.name, (min, max), value)?),
            Check { set, .. } => set(self, parse_check(spec.name, value)?),
            Str { set, .. } => set(self, string_value(value)),
            Combo { vars, set, .. } => set(self, parse_combo(spec.name, vars, value)?),
            Button => {}
        }
        Ok(spec.on_change)
    }
}
