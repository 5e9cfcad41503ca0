//! `archivist tb probe`, `tb line` and `tb info`: the tablebase tools.
//!
//! `probe` prints one `FEN;WDL;DTZ` line per position (the FEN exactly as
//! given, WDL −2..2 and DTZ from the side to move's point of view, as
//! python-chess's `probe_wdl`/`probe_dtz`), or `FEN;error;REASON` (a bad
//! FEN, a missing table such as `missing table KRPvKR`, castling rights …)
//! and goes on with the next position. `probe --moves [--json]` ranks every
//! legal move as the Lichess tablebase API does (see `cli/tb_moves.rs`);
//! `line` prints the DTZ-optimal line to mate or a draw. `info` lists the tables found and
//! every file that fails validation, with the reason.

use crate::board::Board;
use crate::tb::{FileStatus, Tablebases};
use clap::Subcommand;
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Print `FEN;WDL;DTZ` for the FEN (argument or `--fen`), or for each
    /// FEN line on standard input; `--moves`: every legal move ranked, as the
    /// Lichess tablebase API.
    Probe {
        /// Table directories, separated by `:` or `;`.
        #[arg(long)]
        path: String,
        #[arg(long, conflicts_with = "position")]
        fen: Option<String>,
        /// The position (one argument: quote it).
        #[arg(value_name = "FEN")]
        position: Option<String>,
        /// Every legal move with the WDL, DTZ and category of the position
        /// after it, best first.
        #[arg(long)]
        moves: bool,
        /// With --moves: one Lichess-shaped JSON object per position, a line
        /// each; FEN lines on standard input make the batch form, as `POST
        /// /standard` of `archivist serve` (the same answers, lila-tablebase's
        /// order), one line per position.
        #[arg(long, requires = "moves")]
        json: bool,
    },
    /// The DTZ-optimal line from a position, through zeroing moves, to mate
    /// or a draw, in UCI and SAN.
    Line {
        /// Table directories, separated by `:` or `;`.
        #[arg(long)]
        path: String,
        /// The position (one argument: quote it).
        fen: String,
        /// Stop after the first zeroing move (capture or pawn move).
        #[arg(long)]
        to_zeroing: bool,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the tables found and those that fail validation (exit status 1
    /// when any does).
    Info {
        /// Table directories, separated by `:` or `;`.
        #[arg(long)]
        path: String,
    },
}

fn open(path: &str) -> Tablebases {
    let (tb, issues) = Tablebases::new(path);
    for issue in issues {
        eprintln!("warning: {issue}");
    }
    tb
}

pub fn run(command: TbCommand) -> anyhow::Result<ExitCode> {
    match command {
        TbCommand::Probe { path, fen, position, moves, json } => {
            let tb = open(&path);
            let answer = |fen: &str| {
                if moves {
                    super::tb_moves::moves_output(&tb, fen, json)
                } else {
                    format!("{}\n", probe_line(&tb, fen))
                }
            };
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            match fen.or(position) {
                Some(f) => write!(out, "{}", answer(&f))?,
                None => {
                    for line in std::io::stdin().lock().lines() {
                        let line = line?;
                        let fen = line.strip_suffix('\r').unwrap_or(&line);
                        if !fen.trim().is_empty() {
                            write!(out, "{}", answer(fen))?;
                        }
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        TbCommand::Line { path, fen, to_zeroing, json } => {
            let tb = open(&path);
            let board = Board::from_fen(&fen, false).map_err(|e| anyhow::anyhow!("bad FEN '{fen}': {e}"))?;
            let line = tb.line(&board, to_zeroing).map_err(|e| anyhow::anyhow!("{fen}: {e}"))?;
            if json {
                println!("{}", super::tb_moves::line_json(&fen, &line));
            } else {
                print!("{}", super::tb_moves::line_text(&fen, &line));
            }
            Ok(ExitCode::SUCCESS)
        }
        TbCommand::Info { path } => {
            let (tb, issues) = Tablebases::new(&path);
            let report = info_report(&tb, &issues);
            print!("{}", report.text);
            Ok(if report.failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
    }
}

/// The output line of `tb probe` for one FEN.
pub fn probe_line(tb: &Tablebases, fen: &str) -> String {
    let board = match Board::from_fen(fen, false) {
        Ok(b) => b,
        Err(e) => return format!("{fen};error;{e}"),
    };
    match tb.probe_wdl(&board).and_then(|w| tb.probe_dtz(&board).map(|d| (w, d))) {
        Ok((wdl, dtz)) => format!("{fen};{};{}", wdl.value(), dtz.0),
        Err(e) => format!("{fen};error;{e}"),
    }
}

pub struct InfoReport {
    pub text: String,
    pub failed: usize,
}

/// `table NAME pieces N wdl ok|missing|failed dtz …` per table, a `failed
/// PATH: REASON` line per file that cannot be used, a `note PATH: …` line
/// per ignored duplicate, and a summary.
pub fn info_report(tb: &Tablebases, issues: &[crate::tb::TbLoadIssue]) -> InfoReport {
    use std::fmt::Write as _;
    let mut text = String::new();
    let mut failures = Vec::new();
    let (mut wdl, mut dtz) = (0, 0);
    let statuses = tb.check_all();
    let mut word = |f: &FileStatus, count: &mut usize| match f {
        FileStatus::Missing => "missing",
        FileStatus::Ok { .. } => {
            *count += 1;
            "ok"
        }
        FileStatus::Failed { path, error } => {
            failures.push(format!("failed {}: {error}", path.display()));
            "failed"
        }
    };
    for s in &statuses {
        let w = word(&s.wdl, &mut wdl);
        let d = word(&s.dtz, &mut dtz);
        let _ = writeln!(text, "table {} pieces {} wdl {w} dtz {d}", s.name, s.pieces);
    }
    failures.extend(issues.iter().filter(|i| i.is_failure()).map(|i| format!("failed {i}")));
    for f in &failures {
        let _ = writeln!(text, "{f}");
    }
    for i in issues.iter().filter(|i| !i.is_failure()) {
        let _ = writeln!(text, "note {i}");
    }
    let _ = writeln!(
        text,
        "{} tables ({wdl} WDL, {dtz} DTZ usable), up to {} pieces; {} failed",
        statuses.len(),
        tb.max_pieces(),
        failures.len()
    );
    InfoReport { text, failed: failures.len() }
}
