//! `archivist records …`: compressed-board game record files as text, as
//! statistics, or checked byte by byte (`dump`, `stats`, `verify`: exit
//! status 0 only for a valid file); PGNs imported (`import`); exported to
//! trainers' formats (`export`); and the pipeline tools (`filter`, `dedup`,
//! `shuffle`, `interleave`, `split`). The work is done in
//! [`crate::records`]; this module parses arguments, shows progress and
//! writes outputs atomically.

mod convert;
mod progress;
mod tools;

use crate::records::import::{ImportOptions, Unscored};
use crate::records::pipeline::filter::FilterOptions;
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
        /// With --pgn: each move's score as a cutechess comment, `{+0.35/1}`
        /// (the mover's centipawns), which `records import` reads back.
        #[arg(long, requires = "pgn")]
        scores: bool,
    },
    /// PGNs (plain, .gz, .zst, .bz2, `-` for stdin) with engine scores in
    /// the move comments (`{+0.35/12 0.81s}`, `[%eval …]`) into records.
    Import {
        /// Input PGN (repeatable; read in order).
        #[arg(long = "pgn", required = true)]
        pgns: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        /// Moves without a score: `skip` (leading ones become the start,
        /// other unscored games are skipped) or `keep` (stored as 0.5).
        #[arg(long, default_value = "skip", value_parser = convert::unscored)]
        unscored: Unscored,
        /// Every game is Chess960 (for files without Variant tags).
        #[arg(long)]
        chess960: bool,
        /// Conversion threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Records to a trainer's format: viriformat, bullet-text or sf-plain.
    Export {
        file: PathBuf,
        #[arg(long, value_parser = convert::format)]
        format: records::export::Format,
        #[arg(long)]
        out: PathBuf,
    },
    /// Keep only the positions that pass every given test.
    Filter {
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Lowest game ply kept.
        #[arg(long)]
        min_ply: Option<u32>,
        /// Highest game ply kept.
        #[arg(long)]
        max_ply: Option<u32>,
        /// Drop positions where the side to move is in check.
        #[arg(long)]
        no_check: bool,
        /// Drop positions whose best move is a capture or a promotion.
        #[arg(long)]
        no_tactical: bool,
        /// Drop positions whose |score| exceeds CP centipawns.
        #[arg(long, value_name = "CP")]
        max_cp: Option<i32>,
        /// Drop positions whose score disagrees with the result by more than
        /// CP: |cp| > CP in a draw, the winner's cp < -CP in a win.
        #[arg(long, value_name = "CP")]
        max_disagreement: Option<i32>,
    },
    /// Drop repeated positions (the first occurrence stays), bounded memory.
    Dedup {
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Memory for the sort buckets, MB.
        #[arg(long, default_value_t = 256)]
        memory: u64,
    },
    /// Games (or single positions) in a seeded order, bounded memory.
    Shuffle {
        file: PathBuf,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Memory for one bucket, MB.
        #[arg(long, default_value_t = 256)]
        memory: u64,
        /// Shuffle positions: each becomes a one-ply game.
        #[arg(long)]
        positions: bool,
    },
    /// Merge files, the next game drawn from each in proportion to what is left.
    Interleave {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// One file into PREFIX-0.bin, PREFIX-1.bin, …: round-robin or in chunks.
    Split {
        file: PathBuf,
        #[arg(long, value_name = "PREFIX")]
        out_prefix: PathBuf,
        /// Round-robin over N parts.
        #[arg(long, conflicts_with = "games_per_part", required_unless_present = "games_per_part")]
        parts: Option<usize>,
        /// N games per part, in order.
        #[arg(long)]
        games_per_part: Option<u64>,
    },
    /// Games, positions, results, lengths and the score histogram.
    Stats { file: PathBuf },
    /// Replay every move and check every field; exit status 0 only for a valid file.
    Verify { file: PathBuf },
}

const MB: u64 = 1 << 20;

pub fn run(command: RecordsCommand) -> anyhow::Result<ExitCode> {
    use tools::Tool;
    match command {
        RecordsCommand::Import { pgns, out, unscored, chess960, threads } => {
            let options = ImportOptions { unscored, chess960, threads, ..ImportOptions::default() };
            convert::import(&pgns, &out, &options)?;
            Ok(ExitCode::SUCCESS)
        }
        RecordsCommand::Export { file, format, out } => convert::export(&file, format, &out),
        RecordsCommand::Filter { file, out, min_ply, max_ply, no_check, no_tactical, max_cp, max_disagreement } => {
            let o = FilterOptions { min_ply, max_ply, no_check, no_tactical, max_cp, max_disagreement };
            tools::run_one("filter", Tool::Filter(o), &file, &out)
        }
        RecordsCommand::Dedup { file, out, memory } => {
            tools::run_one("dedup", Tool::Dedup { memory: memory.max(1) * MB }, &file, &out)
        }
        RecordsCommand::Shuffle { file, out, seed, memory, positions } => {
            let tool = Tool::Shuffle { seed, memory: memory.max(1) * MB, positions };
            tools::run_one("shuffle", tool, &file, &out)
        }
        RecordsCommand::Interleave { files, out, seed } => tools::interleave(&files, seed, &out),
        RecordsCommand::Split { file, out_prefix, parts, games_per_part } => {
            let by = match (parts, games_per_part) {
                (Some(n), _) => tools::SplitBy::Parts(n),
                (None, Some(g)) => tools::SplitBy::GamesPerPart(g),
                (None, None) => anyhow::bail!("give --parts or --games-per-part"),
            };
            tools::split(&file, by, &out_prefix)
        }
        view => run_view(view),
    }
}

/// `dump`, `stats` and `verify`.
fn run_view(command: RecordsCommand) -> anyhow::Result<ExitCode> {
    let (RecordsCommand::Dump { file, .. } | RecordsCommand::Stats { file } | RecordsCommand::Verify { file }) =
        &command
    else {
        anyhow::bail!("not a view of a record file");
    };
    let map = records::map(file).with_context(|| format!("opening {}", file.display()))?;
    let invalid = |e: &RecordError| {
        eprintln!("{}: invalid: {e}", file.display());
        Ok(ExitCode::FAILURE)
    };
    match &command {
        RecordsCommand::Dump { pgn, fen, scores, .. } => {
            let format = match (pgn, fen) {
                (true, _) if *scores => text::DumpFormat::PgnScores,
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
        _ => match records::validate(&map) {
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
