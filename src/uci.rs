//! The UCI loop: read a line, turn it into a command or an error, dispatch
//! it to the [`Engine`], format what comes back. Never panics on input:
//! every line is handled inside `catch_unwind`, and anything unknown or
//! malformed is answered with `info string …`.
//!
//! Every line becomes a [`Command`] in one place ([`command`]: `vampirc-uci`
//! plus the documented workarounds for `position` and `go ponder`).
//! Extensions: `d`, `eval`, `bench [depth]`, `go perft N`, and OpenBench's
//! `genfens N seed S book <None|FILE>` (`N` lines `info string genfens
//! <FEN>`, see [`crate::selfplay::genfens`]).

use crate::board::notation::uci_string;
use crate::engine::{Engine, OptionKind, OPTIONS};
use crate::search::time::Clock;
use crate::search::{Limits, Reporter, Score, SearchEvent};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;

pub mod command;
pub use command::{Command, Go};

/// Shared stdout writer: one line at a time, flushed, also logged.
#[derive(Default)]
pub struct Output {
    lock: Mutex<()>,
}

impl Output {
    pub fn line(&self, text: &str) {
        let _g = self.lock.lock();
        let mut out = std::io::stdout().lock();
        // A closed stdout (GUI gone) is not worth a panic.
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
        tracing::debug!(">> {text}");
    }
}

/// Formats an `info` line.
pub fn format_info(info: &crate::search::InfoLine, chess960: bool, show_wdl: bool) -> String {
    let score = match info.score {
        Score::Cp(v) => format!("cp {v}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let bound = match info.bound {
        Some(crate::tt::Bound::Lower) => " lowerbound",
        Some(crate::tt::Bound::Upper) => " upperbound",
        _ => "",
    };
    let wdl = if show_wdl {
        let (w, d, l) = crate::search::wdl_model(info.value);
        format!(" wdl {w} {d} {l}")
    } else {
        String::new()
    };
    let pv: Vec<String> = info.pv.iter().map(|&m| uci_string(m, chess960)).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {score}{bound}{wdl} nodes {} nps {} hashfull {} tbhits {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
        info.time_ms,
        pv.join(" ")
    )
    .trim_end()
    .to_string()
}

pub struct Uci {
    engine: Engine,
    out: Arc<Output>,
    chess960: Arc<AtomicBool>,
    show_wdl: Arc<AtomicBool>,
}

impl Default for Uci {
    fn default() -> Self {
        Uci::new()
    }
}

impl Uci {
    pub fn new() -> Uci {
        let out = Arc::new(Output::default());
        let chess960 = Arc::new(AtomicBool::new(false));
        let show_wdl = Arc::new(AtomicBool::new(false));
        let (o, c, w) = (Arc::clone(&out), Arc::clone(&chess960), Arc::clone(&show_wdl));
        let report: Reporter = Arc::new(move |ev| match ev {
            SearchEvent::Info(info) => o.line(&format_info(&info, c.load(Relaxed), w.load(Relaxed))),
            SearchEvent::Message(m) => o.line(&format!("info string {m}")),
            SearchEvent::BestMove { best, ponder } => {
                let c960 = c.load(Relaxed);
                match ponder {
                    Some(p) => o.line(&format!("bestmove {} ponder {}", uci_string(best, c960), uci_string(p, c960))),
                    None => o.line(&format!("bestmove {}", uci_string(best, c960))),
                }
            }
        });
        Uci { engine: Engine::new(report), out, chess960, show_wdl }
    }

    pub fn engine_mut(&mut self) -> &mut Engine {
        &mut self.engine
    }

    fn info(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }

    /// Applies an option (from `setoption` or a config file).
    pub fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), crate::engine::EngineError> {
        if let Some(m) = self.configure(name, value)? {
            self.info(&m);
        }
        Ok(())
    }

    /// Applies an option without printing: the message (books or tables
    /// loaded) is returned. Used for config files, read before the GUI has
    /// said `uci`, when stdout must stay quiet.
    pub fn configure(&mut self, name: &str, value: Option<&str>) -> Result<Option<String>, crate::engine::EngineError> {
        let msg = self.engine.set_option(name, value)?;
        self.chess960.store(self.engine.options().chess960 || self.engine.board().is_chess960(), Relaxed);
        self.show_wdl.store(self.engine.options().show_wdl, Relaxed);
        Ok(msg)
    }

    /// Reads commands until `quit` or end of input. Lines are read as bytes:
    /// invalid UTF-8 is replaced, never fatal.
    pub fn run(&mut self, mut input: impl BufRead) {
        let mut buf = Vec::with_capacity(256);
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            let line = String::from_utf8_lossy(&buf);
            tracing::debug!("<< {}", line.trim_end());
            let quit = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(&line)));
            match quit {
                Ok(true) => break,
                Ok(false) => {}
                Err(_) => self.info("internal error while handling that line; still running"),
            }
        }
        self.engine.shutdown();
    }

    /// Handles command-line arguments as UCI lines (`archivist "genfens 10
    /// seed 1 book None" "quit"`), exactly as if they came on stdin; without
    /// a `quit`, a search started by the last lines is waited for.
    pub fn run_lines(&mut self, lines: &[String]) {
        let mut quit = false;
        for line in lines {
            tracing::debug!("<< {line}");
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(line))) {
                Ok(true) => {
                    quit = true;
                    break;
                }
                Ok(false) => {}
                Err(_) => self.info("internal error while handling that line; still running"),
            }
        }
        if !quit {
            self.engine.wait();
        }
        self.engine.shutdown();
    }

    fn genfens(&mut self, line: &str) {
        use crate::selfplay::genfens;
        let req = match genfens::Request::parse(line) {
            Ok(r) => r,
            Err(e) => return self.info(&e),
        };
        self.engine.stop();
        let chess960 = self.engine.options().chess960;
        match genfens::generate(&req, chess960) {
            Ok(fens) => {
                let text: Vec<String> = fens.iter().map(|f| format!("info string genfens {f}")).collect();
                if !text.is_empty() {
                    self.out.line(&text.join("\n"));
                }
            }
            Err(e) => self.info(&format!("genfens: {e}")),
        }
    }

    /// Handles one line; returns true on `quit`.
    pub fn handle(&mut self, line: &str) -> bool {
        match Command::parse(line) {
            Command::Empty | Command::Ignored => {}
            Command::Uci => {
                self.out.line(&format!("id name Archivist {}", env!("CARGO_PKG_VERSION")));
                self.out.line("id author the Archivist developers");
                for spec in OPTIONS {
                    self.out.line(&option_line(spec));
                }
                self.out.line("uciok");
            }
            Command::IsReady => self.out.line("readyok"),
            Command::SetOption { name, value } => {
                if let Err(e) = self.set_option(&name, value.as_deref()) {
                    self.info(&e.to_string());
                }
            }
            Command::UciNewGame => self.engine.new_game(),
            Command::Position { fen, moves } => {
                let moves: Vec<&str> = moves.iter().map(String::as_str).collect();
                if let Err(e) = self.engine.set_position(fen.as_deref(), &moves) {
                    self.info(&e.to_string());
                }
                self.chess960.store(self.engine.options().chess960 || self.engine.board().is_chess960(), Relaxed);
            }
            Command::Go(go) => self.go(go),
            Command::Stop => self.engine.stop(),
            Command::PonderHit => self.engine.ponderhit(),
            Command::Quit => return true,
            Command::Display => {
                self.out.line(&format!("{}\n{}", self.engine.board().diagram(), self.engine.board().describe()));
            }
            Command::Eval => self.out.line(&self.engine.eval_report()),
            Command::Bench { depth } => {
                self.engine.stop();
                let report = crate::bench::run(depth, |l| self.out.line(l));
                self.out.line(&report);
            }
            Command::Perft { depth } => {
                self.engine.stop();
                let mut b = self.engine.board().clone();
                self.out.line(crate::perft::divide_report(&mut b, depth).trim_end());
            }
            Command::GenFens(line) => self.genfens(&line),
            Command::Malformed { usage } => self.info(&format!("usage: {usage}")),
            Command::Unknown(line) => self.info(&format!("unknown or malformed command: {}", printable(&line))),
        }
        false
    }

    fn go(&mut self, go: Go) {
        let mut limits =
            Limits { ponder: go.ponder, infinite: go.infinite, movetime_ms: go.movetime_ms, ..Limits::default() };
        let white = self.engine.board().side_to_move() == crate::types::Color::White;
        let (time, inc) = if white { (go.wtime_ms, go.winc_ms) } else { (go.btime_ms, go.binc_ms) };
        if let Some(time) = time {
            limits.clock = Some(Clock {
                time: Duration::from_millis(time),
                inc: Duration::from_millis(inc.unwrap_or(0)),
                movestogo: go.movestogo.filter(|&m| m > 0),
            });
        }
        limits.depth = go.depth.map(|d| d.max(1));
        limits.nodes = go.nodes;
        limits.mate = go.mate;
        for m in &go.searchmoves {
            match self.engine.board().parse_uci(m) {
                Ok(mv) => limits.searchmoves.push(mv),
                Err(e) => self.info(&format!("searchmoves: {e}")),
            }
        }
        self.engine.go(limits);
    }
}

/// The `uci` listing's line of an option (`option name … type …`).
pub fn option_line(spec: &crate::engine::OptionSpec) -> String {
    match &spec.kind {
        OptionKind::Spin { default, min, max, .. } => {
            format!("option name {} type spin default {default} min {min} max {max}", spec.name)
        }
        OptionKind::Check { default, .. } => format!("option name {} type check default {default}", spec.name),
        OptionKind::Str { default, .. } => {
            let d = if default.is_empty() { "<empty>" } else { default };
            format!("option name {} type string default {d}", spec.name)
        }
        OptionKind::Combo { default, vars, .. } => {
            let vars: String = vars.iter().map(|v| format!(" var {v}")).collect();
            format!("option name {} type combo default {default}{vars}", spec.name)
        }
        OptionKind::Button => format!("option name {} type button", spec.name),
    }
}

/// A line shortened and stripped of control characters for echoing back.
fn printable(line: &str) -> String {
    let s: String = line.chars().filter(|c| !c.is_control()).take(120).collect();
    if line.chars().count() > 120 {
        format!("{s}…")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An option's value in a new engine, read from the engine's state and
    /// written as `uci` writes a default; `None` for a button.
    fn value_after_construction(engine: &Engine, name: &str) -> Option<String> {
        let o = engine.options();
        let text = |s: &str| if s.is_empty() { "<empty>".to_string() } else { s.to_string() };
        let value = match name {
            "Hash" => engine.hash_mb().to_string(),
            "Threads" => o.threads.to_string(),
            "MultiPV" => o.multipv.to_string(),
            "Move Overhead" => o.move_overhead_ms.to_string(),
            "Ponder" => o.ponder.to_string(),
            "UCI_Chess960" => engine.board().is_chess960().to_string(),
            "UCI_ShowWDL" => o.show_wdl.to_string(),
            "Hash File" => text(&o.hash_file),
            "Never Clear Hash" => o.never_clear_hash.to_string(),
            "Persistent Hash" => o.persistent_hash.to_string(),
            "Hash File Min Depth" => o.hash_file_min_depth.to_string(),
            "OwnBook" => o.own_book.to_string(),
            "BookFile" => text(&o.book_file),
            "BookDepth" => o.book_depth.to_string(),
            "BookSelection" => format!("{:?}", o.book_selection).to_ascii_lowercase(),
            "BookVariety" => o.book_variety.to_string(),
            "BookFileWhite" => text(&o.book_file_white),
            "BookFileBlack" => text(&o.book_file_black),
            "BookMinWeight" => o.book_min_weight.to_string(),
            "BookWidth" => o.book_width.to_string(),
            "BookLearn" => o.book_learn.to_string(),
            "Read only learning" => o.read_only_learning.to_string(),
            "BookInSearch" => o.book_in_search.to_string(),
            "SyzygyPath" => text(&o.syzygy_path),
            "SyzygyProbeDepth" => o.syzygy_probe_depth.to_string(),
            "SyzygyProbeLimit" => o.syzygy_probe_limit.to_string(),
            "Syzygy50MoveRule" => o.syzygy_50_move_rule.to_string(),
            "EvalFile" => text(&o.eval_file),
            "UseNetwork" => o.use_network.to_string(),
            "Debug Log File" => text(&o.debug_log_file),
            _ => return None,
        };
        Some(value)
    }

    #[test]
    fn every_listed_default_is_the_value_after_construction() {
        let engine = Engine::new(Arc::new(|_| {}));
        for spec in OPTIONS {
            let line = option_line(spec);
            let listed = line.split_once(" default ").and_then(|(_, rest)| rest.split(' ').next());
            assert_eq!(listed.map(str::to_string), value_after_construction(&engine, spec.name), "{line}");
        }
    }
}
