//! The UCI loop: read a line, turn it into a command or an error, dispatch
//! it to the [`Engine`], format what comes back. Never panics on input:
//! every line is handled inside `catch_unwind`, and anything unknown or
//! malformed is answered with `info string …`.
//!
//! Parsing uses `vampirc-uci` except for `position`, whose FEN goes to our
//! own validating parser (vampirc's grammar rejects Chess960 castling
//! fields), and the `ponder` flag of `go` (vampirc keeps only one of
//! `ponder` and the clock). Extensions: `d`, `eval`, `bench [depth]`,
//! `go perft N`, and OpenBench's `genfens N seed S book <None|FILE>`
//! (`N` lines `info string genfens <FEN>`, see [`crate::selfplay::genfens`]).

use crate::board::notation::uci_string;
use crate::engine::{Engine, OptionKind, OPTIONS};
use crate::search::time::Clock;
use crate::search::{Limits, Reporter, Score, SearchEvent};
use parking_lot::Mutex;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Duration;
use vampirc_uci::{UciMessage, UciTimeControl};

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
        let (w, d, l) = wdl_model(info.value);
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

/// Win/draw/loss per mille from a score (a logistic model: a draw is most
/// likely at 0, a win at ≥ +400 cp; mates are certain).
pub fn wdl_model(value: i32) -> (u32, u32, u32) {
    if value >= crate::search::MATE_IN_MAX_PLY {
        return (1000, 0, 0);
    }
    if value <= -crate::search::MATE_IN_MAX_PLY {
        return (0, 0, 1000);
    }
    let v = value.clamp(-4000, 4000) as f64;
    let w = 1000.0 / (1.0 + ((200.0 - v) / 90.0).exp());
    let l = 1000.0 / (1.0 + ((200.0 + v) / 90.0).exp());
    let (w, l) = (w.round() as u32, l.round() as u32);
    (w, 1000u32.saturating_sub(w + l), l)
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
        let line = line.trim();
        if line.is_empty() {
            return false;
        }
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        match first {
            "d" => {
                self.out.line(&format!("{}\n{}", self.engine.board().diagram(), self.engine.board().describe()));
                return false;
            }
            "eval" => {
                self.out.line(&crate::eval::trace(self.engine.board()));
                return false;
            }
            "bench" => {
                let depth = words.next().and_then(|d| d.parse().ok());
                self.engine.stop();
                let report = crate::bench::run(depth, |l| self.out.line(l));
                self.out.line(&report);
                return false;
            }
            "position" => {
                self.position(line);
                return false;
            }
            "genfens" => {
                self.genfens(line);
                return false;
            }
            "go" if line.split_whitespace().nth(1) == Some("perft") => {
                match line.split_whitespace().nth(2).and_then(|d| d.parse::<u32>().ok()) {
                    Some(depth) if depth <= 10 => {
                        self.engine.stop();
                        let mut b = self.engine.board().clone();
                        self.out.line(crate::perft::divide_report(&mut b, depth).trim_end());
                    }
                    _ => self.info("usage: go perft N (N from 0 to 10)"),
                }
                return false;
            }
            _ => {}
        }
        let msg = match std::panic::catch_unwind(|| vampirc_uci::parse_one(line)) {
            Ok(m) => m,
            Err(_) => UciMessage::Unknown(line.to_string(), None),
        };
        match msg {
            UciMessage::Uci => {
                self.out.line(&format!("id name Archivist {}", env!("CARGO_PKG_VERSION")));
                self.out.line("id author the Archivist developers");
                for spec in OPTIONS {
                    self.out.line(&option_line(spec));
                }
                self.out.line("uciok");
            }
            UciMessage::IsReady => self.out.line("readyok"),
            UciMessage::Debug(_) | UciMessage::Register { .. } => {}
            UciMessage::SetOption { name, value } => {
                if let Err(e) = self.set_option(&name, value.as_deref()) {
                    self.info(&e.to_string());
                }
            }
            UciMessage::UciNewGame => self.engine.new_game(),
            UciMessage::Stop => self.engine.stop(),
            UciMessage::PonderHit => self.engine.ponderhit(),
            UciMessage::Quit => return true,
            UciMessage::Go { time_control, search_control } => {
                let ponder = line.split_whitespace().any(|w| w == "ponder");
                self.go(time_control, search_control, ponder);
            }
            _ => self.info(&format!("unknown or malformed command: {}", printable(line))),
        }
        false
    }

    fn position(&mut self, line: &str) {
        let tokens: Vec<&str> = line.split_whitespace().skip(1).collect();
        let moves_at = tokens.iter().position(|&t| t == "moves");
        let (spec, moves) = match moves_at {
            Some(i) => (&tokens[..i], &tokens[i + 1..]),
            None => (&tokens[..], &[][..]),
        };
        let fen = match spec.first() {
            Some(&"startpos") if spec.len() == 1 => None,
            Some(&"fen") if spec.len() > 1 => Some(spec[1..].join(" ")),
            _ => {
                self.info(&format!("malformed position command: {}", printable(line)));
                return;
            }
        };
        if let Err(e) = self.engine.set_position(fen.as_deref(), moves) {
            self.info(&e.to_string());
        }
        self.chess960.store(self.engine.options().chess960 || self.engine.board().is_chess960(), Relaxed);
    }

    fn go(&mut self, tc: Option<UciTimeControl>, sc: Option<vampirc_uci::UciSearchControl>, ponder: bool) {
        let mut limits = Limits { ponder, ..Limits::default() };
        let ms = |d: Option<vampirc_uci::Duration>| d.map(|d| d.num_milliseconds().max(0) as u64);
        match tc {
            Some(UciTimeControl::Infinite) => limits.infinite = true,
            Some(UciTimeControl::MoveTime(d)) => limits.movetime_ms = ms(Some(d)),
            Some(UciTimeControl::TimeLeft {
                white_time,
                black_time,
                white_increment,
                black_increment,
                moves_to_go,
            }) => {
                let white = self.engine.board().side_to_move() == crate::types::Color::White;
                let (t, i) = if white { (white_time, white_increment) } else { (black_time, black_increment) };
                if let Some(time) = ms(t) {
                    limits.clock = Some(Clock {
                        time: Duration::from_millis(time),
                        inc: Duration::from_millis(ms(i).unwrap_or(0)),
                        movestogo: moves_to_go.map(u32::from).filter(|&m| m > 0),
                    });
                }
            }
            Some(UciTimeControl::Ponder) | None => {}
        }
        if let Some(sc) = sc {
            limits.depth = sc.depth.map(|d| i32::from(d).max(1));
            limits.nodes = sc.nodes;
            limits.mate = sc.mate.map(i32::from);
            for m in &sc.search_moves {
                match self.engine.board().parse_uci(&m.to_string()) {
                    Ok(mv) => limits.searchmoves.push(mv),
                    Err(e) => self.info(&format!("searchmoves: {e}")),
                }
            }
        }
        self.engine.go(limits);
    }
}

fn option_line(spec: &crate::engine::OptionSpec) -> String {
    match &spec.kind {
        OptionKind::Spin { default, min, max } => {
            format!("option name {} type spin default {default} min {min} max {max}", spec.name)
        }
        OptionKind::Check { default } => format!("option name {} type check default {default}", spec.name),
        OptionKind::Str { default } => {
            let d = if default.is_empty() { "<empty>" } else { default };
            format!("option name {} type string default {d}", spec.name)
        }
        OptionKind::Combo { default, vars } => {
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
