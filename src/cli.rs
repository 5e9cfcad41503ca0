//! Command-line tools. With no subcommand the binary speaks UCI.
//! `anyhow` is used here and only here.

use crate::board::zobrist::polyglot_key;
use crate::board::Board;
use clap::{Parser, Subcommand};
use std::io::{BufRead, Write};
use std::process::ExitCode;

pub mod tb;

#[derive(Parser, Debug)]
#[command(name = "archivist", version, about = "A UCI chess engine that keeps everything on disk")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count leaf nodes of the legal move tree, per root move (like Stockfish's `go perft`).
    Perft {
        depth: u32,
        #[arg(long)]
        fen: Option<String>,
        #[arg(long)]
        chess960: bool,
    },
    /// Print FEN, engine key, Polyglot key and legal move count of positions
    /// (the `--fen` position, or each FEN line on standard input).
    Show {
        #[arg(long)]
        fen: Option<String>,
        #[arg(long)]
        chess960: bool,
    },
    /// Syzygy tablebases: probe positions, list tables.
    Tb {
        #[command(subcommand)]
        command: tb::TbCommand,
    },
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        None => {
            anyhow::bail!("the UCI loop is not built yet");
        }
        Some(Command::Perft { depth, fen, chess960 }) => {
            let mut board = match fen {
                Some(f) => Board::from_fen(&f, chess960)?,
                None => {
                    let mut b = Board::startpos();
                    b.set_chess960(chess960);
                    b
                }
            };
            print!("{}", crate::perft::divide_report(&mut board, depth));
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Show { fen, chess960 }) => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            match fen {
                Some(f) => writeln!(out, "{}", show(&f, chess960))?,
                None => {
                    for line in std::io::stdin().lock().lines() {
                        let line = line?;
                        if line.trim().is_empty() {
                            continue;
                        }
                        writeln!(out, "{}", show(line.trim(), chess960))?;
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Tb { command }) => tb::run(command),
    }
}

/// The `show` report for one FEN; a bad FEN gives an `Error: …` line.
pub fn show(fen: &str, chess960: bool) -> String {
    match Board::from_fen(fen, chess960) {
        Ok(b) => describe(&b),
        Err(e) => format!("Fen: {fen}\nError: {e}"),
    }
}

/// `Fen:`, `Key:`, `Polyglot key:` and `Legal moves:` lines for a position.
pub fn describe(b: &Board) -> String {
    format!(
        "Fen: {}\nKey: {:016X}\nPolyglot key: {:016x}\nLegal moves: {}",
        b.fen(),
        b.key(),
        polyglot_key(b),
        b.count_legal()
    )
}
