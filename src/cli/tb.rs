//! `archivist tb probe` and `archivist tb info`: the tablebase tools.
//!
//! `probe` prints one `FEN;WDL;DTZ` line per position (the FEN exactly as
//! given, WDL −2..2 and DTZ from the side to move's point of view, as
//! python-chess's `probe_wdl`/`probe_dtz`), or `FEN;error;REASON` (a bad
//! FEN, a missing table such as `missing table KRPvKR`, castling rights …)
//! and goes on with the next position. `info` lists the tables found and
//! every file that fails validation, with the reason.

use crate::board::Board;
use crate::tb::{FileStatus, Tablebases};
use clap::Subcommand;
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Print `FEN;WDL;DTZ` for the `--fen` position, or for each FEN line on
    /// standard input.
    Probe {
        /// Table directories, separated by `:`.
        #[arg(long)]
        path: String,
        #[arg(long)]
        fen: Option<String>,
    },
    /// List the tables found and those that fail validation (exit status 1
    /// when any does).
    Info {
        /// Table directories, separated by `:`.
        #[arg(long)]
        path: String,
    },
}

pub fn run(command: TbCommand) -> anyhow::Result<ExitCode> {
    match command {
        TbCommand::Probe { path, fen } => {
            let (tb, issues) = Tablebases::new(&path);
            for issue in issues {
                eprintln!("warning: {issue}");
            }
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            match fen {
                Some(f) => writeln!(out, "{}", probe_line(&tb, &f))?,
                None => {
                    for line in std::io::stdin().lock().lines() {
                        let line = line?;
                        let fen = line.strip_suffix('\r').unwrap_or(&line);
                        if !fen.trim().is_empty() {
                            writeln!(out, "{}", probe_line(&tb, fen))?;
                        }
                    }
                }
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
