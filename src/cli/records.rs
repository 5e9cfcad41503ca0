//! `archivist records dump|stats|verify FILE`: compressed-board game record
//! files as text, as statistics, or checked byte by byte (exit status 0 only
//! for a valid file).

use crate::records::{self, text, RecordError};
use anyhow::Context;
use clap::Subcommand;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum RecordsCommand {
    /// Print every game: plies with scores and visit counts, or PGN, or FEN lines.
    Dump {
        file: PathBuf,
        /// PGN games (FEN and Variant tags when needed).
        #[arg(long, conflicts_with = "fen")]
        pgn: bool,
        /// One line per position: `FEN | score | result | move`, where score
        /// is the side to move's expected score and result is white's (1.0,
        /// 0.5, 0.0).
        #[arg(long)]
        fen: bool,
    },
    /// Games, positions, results, lengths and the score histogram.
    Stats { file: PathBuf },
    /// Replay every move and check every field; exit status 0 only for a valid file.
    Verify { file: PathBuf },
}

pub fn run(command: RecordsCommand) -> anyhow::Result<ExitCode> {
    let (RecordsCommand::Dump { file, .. } | RecordsCommand::Stats { file } | RecordsCommand::Verify { file }) =
        &command;
    let map = records::map(file).with_context(|| format!("opening {}", file.display()))?;
    let invalid = |e: &RecordError| {
        eprintln!("{}: invalid: {e}", file.display());
        Ok(ExitCode::FAILURE)
    };
    match &command {
        RecordsCommand::Dump { pgn, fen, .. } => {
            let format = match (pgn, fen) {
                (true, _) => text::DumpFormat::Pgn,
                (_, true) => text::DumpFormat::Fen,
                _ => text::DumpFormat::Plain,
            };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let r = text::dump(&map, format, &mut out);
            let flushed = out.flush();
            match r {
                Ok(_) => Ok(ExitCode::SUCCESS),
                // A closed pipe (`| head`) is not an error of the file.
                Err(RecordError::Io(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
                Err(e) => {
                    drop(flushed);
                    invalid(&e)
                }
            }
        }
        RecordsCommand::Stats { .. } => match text::stats(&map) {
            Ok(s) => {
                println!("file:         {}", file.display());
                print!("{}", s.report());
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => invalid(&e),
        },
        RecordsCommand::Verify { .. } => match records::validate(&map) {
            Ok(t) => {
                println!("{}: valid, {} games, {} positions", file.display(), t.games, t.positions);
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                println!("{}: invalid: {e}", file.display());
                Ok(ExitCode::FAILURE)
            }
        },
    }
}
