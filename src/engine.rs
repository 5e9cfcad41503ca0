//! The engine facade between the protocol (UCI, self-play) and the search:
//! options, the current position, and starting/stopping searches.
//!
//! A search runs on its own thread (which spawns the Lazy SMP helpers), so
//! the caller keeps reading commands; `stop`, `ponderhit` and `quit` act on
//! the shared stop/ponder flags. The engine never prints: search output and
//! messages go to the [`Reporter`] given at construction.

use crate::atomic_file;
use crate::board::notation::NotationError;
use crate::board::{Board, FenError};
use crate::search::book::BookInSearch;
use crate::search::Outcome;
use crate::search::{Limits, Reporter, SearchConfig, SearchEvent, Searcher, Shared};
use crate::tt::persist::{self, SfttHeader};
use parking_lot::Mutex;
use std::io::Write;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::thread::JoinHandle;
use thiserror::Error;

pub mod learning;
pub mod options;
pub use options::{OptionKind, OptionSpec, Options, OPTIONS};

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EngineError {
    #[error("no such option: {0}")]
    UnknownOption(String),
    #[error("option {name}: {reason}")]
    BadOptionValue { name: String, reason: String },
    #[error("invalid FEN ({0}); position unchanged")]
    BadFen(#[from] FenError),
    #[error("move {index} '{text}' is illegal ({source}); position kept after the last legal move")]
    IllegalMove { index: usize, text: String, source: NotationError },
}

struct Running {
    handle: JoinHandle<Outcome>,
    shared: Arc<Shared>,
    fen: String,
}

/// What the last finished search was about (the SFTT header fields).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastSearch {
    pub fen: String,
    pub nodes: u64,
    pub depth: i32,
}

pub struct Engine {
    board: Board,
    options: Options,
    /// Locked by the search thread while it runs; everything else stops
    /// the search first.
    searcher: Arc<Mutex<Searcher>>,
    running: Option<Running>,
    report: Reporter,
    last_outcome: Option<Outcome>,
    last_search: Option<LastSearch>,
    tb: Option<Arc<crate::tb::Tablebases>>,
    /// The network in use (`None`: the hand-written evaluation).
    net: Option<Arc<crate::nnue::Network>>,
    /// The network built into the binary, used when EvalFile is empty.
    builtin: Option<Arc<crate::nnue::Network>>,
    books: Arc<crate::book::play::shelf::OpeningBooks>,
    /// BookFileWhite, BookFileBlack: probed before `books` for that colour.
    side_books: [crate::book::play::shelf::OpeningBooks; 2],
    learner: learning::Learner,
    rng: u64,
}

impl Engine {
    pub fn new(report: Reporter) -> Engine {
        let options = Options::default();
        Engine {
            board: Board::startpos(),
            searcher: Arc::new(Mutex::new(Searcher::new(options.hash_mb, options.threads))),
            options,
            running: None,
            report,
            last_outcome: None,
            last_search: None,
            tb: None,
            net: crate::nnue::builtin::network(),
            builtin: crate::nnue::builtin::network(),
            books: Arc::new(crate::book::play::shelf::OpeningBooks::default()),
            side_books: Default::default(),
            learner: learning::Learner::default(),
            rng: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0x9E37_79B9, |d| d.as_nanos() as u64)
                | 1,
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Replaces the built-in network (tests of the selection with and
    /// without one) and selects the evaluation again.
    #[cfg(test)]
    pub(crate) fn set_builtin_network(&mut self, net: Option<Arc<crate::nnue::Network>>) {
        self.builtin = net;
        let current = self.options.eval_file.clone();
        self.load_network(current);
    }

    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The size of the transposition table in MiB.
    pub fn hash_mb(&self) -> usize {
        self.searcher.lock().tt().size_mb()
    }

    fn message(&self, text: impl Into<String>) {
        (self.report)(SearchEvent::Message(text.into()));
    }

    /// Applies `setoption`. Returns an optional message to show the user.
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<Option<String>, EngineError> {
        use options::Change;
        let file_action =
            options::find(name).is_some_and(|s| matches!(s.on_change, Change::SaveHash | Change::LoadHash));
        if file_action && self.is_searching() {
            // Never write a table that is still changing, nor stop the user's analysis.
            return Err(EngineError::BadOptionValue {
                name: name.trim().to_string(),
                reason: "refused while a search is running; send stop first".into(),
            });
        }
        self.stop();
        let previous = self.options.clone();
        let change = self.options.set(name, value)?;
        Ok(match change {
            Change::None => None,
            Change::Hash => {
                self.resize_tt();
                None
            }
            Change::Threads => {
                self.searcher.lock().set_threads(self.options.threads);
                None
            }
            Change::ClearHash if self.options.never_clear_hash => Some("Never Clear Hash is on: table kept".into()),
            Change::ClearHash => {
                self.searcher.lock().clear_tt();
                None
            }
            Change::SaveHash => Some(self.save_hash()),
            Change::LoadHash => Some(self.load_hash()),
            Change::PersistentHash if self.options.persistent_hash && !self.options.hash_file.is_empty() => {
                Some(self.load_hash())
            }
            Change::PersistentHash => None,
            Change::SyzygyPath => self.load_tablebases(),
            Change::EvalFile => Some(self.load_network(previous.eval_file)),
            Change::BookFile => self.load_books(),
            Change::BookLearn => self.load_learning(),
            Change::Chess960 => {
                self.board.set_chess960(self.options.chess960 || self.board.is_chess960());
                None
            }
            Change::DebugLogFile => {
                self.open_debug_log(previous.debug_log_file)?;
                None
            }
        })
    }

    /// Opens the Debug Log File (an empty one closes the log); a file that
    /// cannot be opened is an error and the option keeps its old value.
    fn open_debug_log(&mut self, previous: String) -> Result<(), EngineError> {
        crate::logging::set_log_file(&self.options.debug_log_file).map_err(|e| {
            self.options.debug_log_file = previous;
            EngineError::BadOptionValue { name: "Debug Log File".into(), reason: e.to_string() }
        })
    }

    fn resize_tt(&mut self) {
        self.searcher.lock().resize_tt(self.options.hash_mb);
    }

    pub fn new_game(&mut self) {
        self.stop();
        self.finish_game();
        let mut searcher = self.searcher.lock();
        if !self.options.never_clear_hash {
            searcher.clear_tt();
        }
        searcher.clear_history();
    }

    /// Sets the position. A bad FEN leaves the position unchanged; an illegal
    /// move leaves it after the last legal move and is reported as an error.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), EngineError> {
        self.stop();
        let mut board = match fen {
            Some(f) => Board::from_fen(f, self.options.chess960)?,
            None => {
                let mut b = Board::startpos();
                b.set_chess960(self.options.chess960);
                b
            }
        };
        let mut result = Ok(());
        for (i, text) in moves.iter().enumerate() {
            match board.parse_uci(text) {
                Ok(m) => board.make_move(m),
                Err(source) => {
                    result = Err(EngineError::IllegalMove { index: i + 1, text: text.to_string(), source });
                    break;
                }
            }
        }
        if self.options.book_learn {
            if self.learner.starts_new_game(fen, moves) {
                self.finish_game();
            }
            self.learner.position(fen, moves, &board);
        }
        self.board = board;
        result
    }

    /// Starts a search in the background; `bestmove` arrives through the
    /// reporter. A search still running (a GUI that forgot `stop`) is stopped
    /// first, so commands never wait on a `go infinite`.
    pub fn go(&mut self, limits: Limits) {
        self.stop();
        self.last_outcome = None;
        if !limits.infinite && !limits.ponder && limits.searchmoves.is_empty() {
            if let Some(choice) = self.book_move() {
                let name = choice.book.display().to_string();
                let uci = self.board.move_to_uci(choice.mv);
                self.message(format!(
                    "book move {uci} from {name} (expected score {:.3}, {} candidates)",
                    choice.score, choice.candidates
                ));
                let ponder = self.book_ponder(choice.mv);
                if let (true, Some(key)) = (self.options.book_learn, choice.yacb_key) {
                    self.learner.book_move(choice.book.clone(), key, &self.board, choice.mv);
                }
                (self.report)(SearchEvent::BestMove { best: choice.mv, ponder });
                return;
            }
        }
        let shared = Arc::new(self.searcher.lock().control(limits.ponder));
        let mut config = self.search_config();
        // Beyond BookDepth at the root, no node below it is within either.
        let in_depth = crate::book::play::within_book_depth(&self.board, self.options.book_depth);
        if self.options.book_in_search && !self.books.is_empty() && in_depth {
            let min_elo = search_elo(&limits, self.options.threads, self.options.move_overhead_ms);
            self.message(format!("book in search: entries rated {min_elo} or more are used"));
            config.book =
                Some(BookInSearch { books: Arc::clone(&self.books), min_elo, book_depth: self.options.book_depth });
        }
        let board = self.board.clone();
        let searcher = Arc::clone(&self.searcher);
        let report = Arc::clone(&self.report);
        let sh = Arc::clone(&shared);
        let spawn = std::thread::Builder::new().name("search".into()).stack_size(32 << 20).spawn(move || {
            let out = searcher.lock().search(&board, &limits, &config, &sh, Some(&report));
            report(SearchEvent::BestMove { best: out.best, ponder: out.ponder });
            out
        });
        match spawn {
            Ok(handle) => self.running = Some(Running { handle, shared, fen: self.board.fen() }),
            Err(e) => self.message(format!("cannot start the search thread: {e}")),
        }
    }

    /// The search settings from the current options.
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            multipv: self.options.multipv,
            move_overhead_ms: self.options.move_overhead_ms,
            tb: self.tb.clone(),
            net: self.net.clone(),
            tb_probe_depth: self.options.syzygy_probe_depth,
            tb_probe_limit: self.options.syzygy_probe_limit,
            tb_50_move_rule: self.options.syzygy_50_move_rule,
            book: None,
        }
    }

    /// (Re)selects the evaluation after `EvalFile` or `UseNetwork` changed:
    /// the hand-written evaluation when UseNetwork is false, else the
    /// EvalFile network, else the built-in one, else the hand-written
    /// evaluation. A file that does not load is reported and the evaluation
    /// in use (and the option's old value) kept.
    fn load_network(&mut self, previous: String) -> String {
        let path = self.options.eval_file.clone();
        if !self.options.use_network {
            self.net = None;
            return "UseNetwork false: the hand-written evaluation".into();
        }
        if path.is_empty() {
            self.net = self.builtin.clone();
            return match &self.net {
                Some(net) => format!("EvalFile: the built-in network {} {}", crate::nnue::builtin::NAME, net.shape()),
                None => "EvalFile: the hand-written evaluation".into(),
            };
        }
        match crate::nnue::Network::load(std::path::Path::new(&path)) {
            Ok(net) => {
                let shape = net.shape();
                self.net = Some(Arc::new(net));
                format!("EvalFile: network {path} {shape} loaded")
            }
            Err(e) => {
                self.options.eval_file = previous;
                let kept = if self.net.is_some() { "the network in use" } else { "the hand-written evaluation" };
                // An I/O error names the path itself.
                let what =
                    if matches!(e, crate::nnue::NetError::Io(_)) { e.to_string() } else { format!("{path}: {e}") };
                format!("EvalFile {what}; {kept} is kept")
            }
        }
    }

    /// The evaluation of the current position for the UCI `eval` command:
    /// the network's score (the built-in network or EvalFile's), else (with
    /// UseNetwork false) the hand-written evaluation's breakdown.
    pub fn eval_report(&self) -> String {
        match &self.net {
            Some(net) => {
                let out = net.evaluate_board(&self.board);
                let name = if self.options.eval_file.is_empty() {
                    crate::nnue::builtin::NAME
                } else {
                    self.options.eval_file.as_str()
                };
                let cp = crate::search::with_base(&self.board, net, out);
                let white = if self.board.side_to_move() == crate::types::Color::White { cp } else { -cp };
                let base = match net.base() {
                    crate::nnue::Base::Zero => String::new(),
                    crate::nnue::Base::HandWritten => format!(
                        "\nHand-written evaluation {} cp + network {out} cp (side to move)",
                        crate::eval::evaluate(&self.board)
                    ),
                };
                format!(
                    "Network {name} {}{base}\nNNUE evaluation: {:+.2} (white side), {cp} cp for the side to move",
                    net.shape(),
                    f64::from(white) / 100.0
                )
            }
            None => crate::eval::trace(&self.board),
        }
    }

    /// (Re)reads `SyzygyPath`; the message is Stockfish's `Found W WDL and D
    /// DTZ tablebase files (up to K-man).`, counting the files that pass
    /// validation (bad ones are named, and counted, in messages before it).
    fn load_tablebases(&mut self) -> Option<String> {
        let path = self.options.syzygy_path.clone();
        if path.is_empty() {
            self.tb = None;
            return None;
        }
        let (tb, issues) = crate::tb::Tablebases::new(&path);
        // Every file is opened and its header and structure validated now,
        // so a bad table is named here rather than failing in a search.
        let mut bad = 0;
        for issue in issues.iter().filter(|i| i.is_failure()) {
            self.message(format!("bad tablebase file {issue}"));
            bad += 1;
        }
        let (mut wdl, mut dtz, mut max_pieces) = (0, 0, 0);
        for table in tb.check_all() {
            for (file, count) in [(&table.wdl, &mut wdl), (&table.dtz, &mut dtz)] {
                match file {
                    crate::tb::FileStatus::Failed { path, error } => {
                        self.message(format!("bad tablebase file {}: {error}", path.display()));
                        bad += 1;
                    }
                    crate::tb::FileStatus::Ok { .. } => *count += 1,
                    crate::tb::FileStatus::Missing => {}
                }
            }
            if matches!(table.wdl, crate::tb::FileStatus::Ok { .. }) {
                max_pieces = max_pieces.max(table.pieces);
            }
        }
        if bad > 0 {
            self.message(format!("{bad} bad files, named above, are not used"));
        }
        self.tb = (tb.table_count() > 0).then(|| Arc::new(tb));
        Some(format!("Found {wdl} WDL and {dtz} DTZ tablebase files (up to {max_pieces}-man)."))
    }

    /// (Re)opens `BookFile`, `BookFileWhite` and `BookFileBlack`; every
    /// book is verified in full first.
    fn load_books(&mut self) -> Option<String> {
        use crate::book::play::shelf::OpeningBooks;
        let mut parts = Vec::new();
        let lists = [
            ("", self.options.book_file.clone()),
            ("white ", self.options.book_file_white.clone()),
            ("black ", self.options.book_file_black.clone()),
        ];
        for (i, (label, list)) in lists.into_iter().enumerate() {
            let (books, problems) = OpeningBooks::open(&list);
            if !list.is_empty() {
                let mut msg = format!("{} {label}book(s) loaded, {} entries", books.len(), books.entries());
                for p in &problems {
                    msg.push_str(&format!("; not used: {p}"));
                }
                parts.push(msg);
            }
            match i {
                0 => self.books = Arc::new(books),
                _ => self.side_books[i - 1] = books,
            }
        }
        if let Some(m) = self.load_learning() {
            parts.push(m);
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }

    /// (Re)reads the BookLearn side files of every YACB book.
    fn load_learning(&mut self) -> Option<String> {
        if !self.options.book_learn {
            self.learner.learned.clear();
            return None;
        }
        let paths: Vec<std::path::PathBuf> = [&*self.books, &self.side_books[0], &self.side_books[1]]
            .iter()
            .flat_map(|b| b.yacb_paths().cloned().collect::<Vec<_>>())
            .collect();
        let problems = self.learner.load(paths.into_iter());
        (!problems.is_empty()).then(|| problems.join("; "))
    }

    /// Ends the game BookLearn follows and records its result (unless
    /// `Read only learning`).
    fn finish_game(&mut self) {
        if !self.options.book_learn {
            return;
        }
        let (_, per_book) = self.learner.finish();
        if self.options.read_only_learning || per_book.is_empty() {
            return;
        }
        for msg in self.learner.record(per_book) {
            self.message(msg);
        }
    }

    /// The book lists for the side to move: its colour's books, then BookFile's.
    fn book_lists(&self, side: crate::types::Color) -> [&crate::book::play::shelf::OpeningBooks; 2] {
        [&self.side_books[side as usize], &*self.books]
    }

    fn book_play(&self) -> crate::book::play::select::Play<'_> {
        let o = &self.options;
        crate::book::play::select::Play {
            selection: o.book_selection,
            variety_cp: o.book_variety,
            min_weight: o.book_min_weight,
            width: o.book_width,
            learned: o.book_learn.then_some(&self.learner.learned),
        }
    }

    /// The ponder move after the book move `mv`, when the reply is in the books.
    fn book_ponder(&self, mv: crate::types::Move) -> Option<crate::types::Move> {
        let mut after = self.board.clone();
        after.make_move(mv);
        let lists = self.book_lists(after.side_to_move());
        crate::book::play::select::ponder_in(&lists, &self.board, mv, &self.book_play())
    }

    /// Seeds the book's random choices (tests, reproducible self-play).
    pub fn seed_book_rng(&mut self, seed: u64) {
        self.rng = seed | 1;
    }

    /// A book move for the current position, if the options allow one.
    pub fn book_move(&mut self) -> Option<crate::book::play::select::BookChoice> {
        let o = &self.options;
        let b = &self.board;
        let lists = self.book_lists(b.side_to_move());
        if !o.own_book || lists.iter().all(|l| l.is_empty()) || !crate::book::play::within_book_depth(b, o.book_depth) {
            return None;
        }
        let mut board = self.board.clone();
        let mut rng = self.rng;
        let choice = crate::book::play::select::choose_in(&lists, &mut board, &self.book_play(), &mut rng);
        self.rng = rng;
        choice
    }

    pub fn tablebases(&self) -> Option<&Arc<crate::tb::Tablebases>> {
        self.tb.as_ref()
    }

    /// Searches synchronously and returns the outcome (bench, self-play, tools).
    pub fn search_sync(&mut self, limits: Limits) -> Option<Outcome> {
        if limits.infinite || limits.ponder {
            return None;
        }
        self.go(limits);
        self.wait();
        self.last_outcome.clone()
    }

    /// A search is running until its stop flag is set (by `stop`, a limit, or
    /// its own end just before `bestmove`); after that, joining is immediate.
    pub fn is_searching(&self) -> bool {
        self.running.as_ref().is_some_and(|r| !r.handle.is_finished() && !r.shared.stop.load(Relaxed))
    }

    /// Asks a running search to stop (bestmove follows promptly).
    pub fn stop(&mut self) {
        if let Some(r) = &self.running {
            r.shared.pondering.store(false, Relaxed);
            r.shared.stop.store(true, Relaxed);
        }
        self.wait();
    }

    /// The opponent played the expected move: the ponder search becomes a
    /// normal timed search.
    pub fn ponderhit(&mut self) {
        if let Some(r) = &self.running {
            r.shared.pondering.store(false, Relaxed);
        }
    }

    /// Waits for a running search to finish.
    pub fn wait(&mut self) {
        if let Some(r) = self.running.take() {
            match r.handle.join() {
                Ok(out) => {
                    if self.options.book_learn {
                        self.learner.search_done(out.best, out.score, self.board.side_to_move());
                    }
                    self.last_search = Some(LastSearch { fen: r.fen, nodes: out.nodes, depth: out.depth });
                    self.last_outcome = Some(out);
                }
                Err(_) => self.message("the search thread failed; the engine keeps running"),
            }
        }
    }

    pub fn last_outcome(&self) -> Option<&Outcome> {
        self.last_outcome.as_ref()
    }

    pub fn last_search(&self) -> Option<&LastSearch> {
        self.last_search.as_ref()
    }

    /// `Save Hash to File`: the message to show (entries, bytes, time, or why not).
    pub fn save_hash(&mut self) -> String {
        let path = self.options.hash_file.clone();
        if path.is_empty() {
            return "Save Hash to File: set Hash File first".into();
        }
        let header = SfttHeader {
            root_pos: self.last_search.as_ref().map(|s| s.fen.clone()),
            nodes: self.last_search.as_ref().map_or(0, |s| s.nodes),
            root_depth: self.last_search.as_ref().map_or(0, |s| s.depth.clamp(0, 255) as u8),
            min_entry_depth: self.options.hash_file_min_depth,
        };
        let searcher = self.searcher.lock();
        match persist::save(searcher.tt(), &header, std::path::Path::new(&path)) {
            Ok(stats) => {
                // The histories beside the table (see search::state_file).
                let state = searcher.save_state();
                let written = atomic_file::write_with(&state_path(&path), 1 << 16, |w| w.write_all(&state));
                let state = match written {
                    Ok(()) => format!("; search state {} bytes", state.len()),
                    Err(e) => format!("; search state not saved: {e}"),
                };
                format!("Saved hash to {path}: {}{state}", stats.describe())
            }
            Err(e) => format!("Save Hash to File failed, previous file kept: {e}"),
        }
    }

    /// `Load Hash from File`: validates the whole file first; on error the
    /// table is untouched.
    pub fn load_hash(&mut self) -> String {
        let path = self.options.hash_file.clone();
        if path.is_empty() {
            return "Load Hash from File: set Hash File first".into();
        }
        let mut searcher = self.searcher.lock();
        match persist::load(searcher.tt(), std::path::Path::new(&path)) {
            Ok((header, stats)) => {
                let root = header.root_pos.as_deref().unwrap_or("none");
                let state = match std::fs::read(state_path(&path)) {
                    Ok(bytes) => match searcher.restore_state(&bytes) {
                        Ok(()) => "; search state restored".to_string(),
                        Err(e) => format!("; search state not restored ({path}.hist): {e}"),
                    },
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
                    Err(e) => format!("; search state not restored ({path}.hist): {e}"),
                };
                format!(
                    "Loaded hash from {path}: {} (root {root}, depth {}){state}",
                    stats.describe(),
                    header.root_depth
                )
            }
            Err(e) => format!("Load Hash from File failed, table unchanged: {e}"),
        }
    }

    /// Called at `quit`: saves the table when `Persistent Hash` is on.
    pub fn shutdown(&mut self) {
        self.stop();
        self.finish_game();
        if self.options.persistent_hash && !self.options.hash_file.is_empty() {
            let msg = self.save_hash();
            self.message(msg);
        }
    }
}

/// The search-state file saved beside a hash file.
fn state_path(hash_file: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{hash_file}.hist"))
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Nodes per second one search thread is assumed to reach when a time limit
/// is turned into nodes for [`search_elo`] (`make bench` measures 2.8M on
/// the development machine; game positions run somewhat slower).
pub const NPS_PER_THREAD: u64 = 2_000_000;

/// What a search with these limits is worth on the YACB elo scale
/// ([`crate::book::format::elo`]): the smallest node budget any limit allows (`go
/// nodes`; a time limit at [`NPS_PER_THREAD`] per thread; `go depth` at the
/// bench's nodes for that depth), estimated for `threads`. A search without
/// any of these limits (`go infinite`, `go mate`) is worth more than every
/// rated entry, so BookInSearch then uses only irreplaceable ones.
pub fn search_elo(limits: &Limits, threads: usize, overhead_ms: u64) -> i32 {
    use crate::book::format::elo;
    let threads = threads.max(1);
    let per_ms = NPS_PER_THREAD / 1000 * threads as u64;
    let mut budgets: Vec<(u64, usize)> = Vec::new();
    if let Some(n) = limits.nodes {
        budgets.push((n, threads));
    }
    if let Some(ms) = limits.movetime_ms {
        budgets.push((ms.saturating_sub(overhead_ms).max(1) * per_ms, threads));
    }
    if let Some(clock) = &limits.clock {
        let b = crate::search::time::budget(clock, overhead_ms);
        budgets.push((b.optimum_ms.max(1) * per_ms, threads));
    }
    if let Some(d) = limits.depth {
        budgets.push((elo::nodes_for_depth(d), 1));
    }
    if limits.infinite || budgets.is_empty() {
        return i32::MAX;
    }
    budgets.into_iter().map(|(n, t)| elo::estimate(n, t)).min().unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests;
