//! `archivist explorer build|merge|info|verify`: the opening explorer's
//! index ([`crate::explorer::index`], built by
//! [`crate::explorer::build`]).

use super::book_build::{index_error, open_index, Bar, GameFilterArgs};
use crate::book::tools::build::{self, Rejection};
use crate::codec::unnamed;
use crate::explorer::build::{self as tool, ExplorerBuildError, ExplorerOptions, ExplorerSummary, Refusal};
use crate::explorer::index::{Explorer, DEFAULT_MAX_PLY};
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Subcommand, Debug)]
pub enum ExplorerCommand {
    /// Index PGN databases (plain or compressed, `-` for standard input)
    /// for the opening explorer: per position and move the results by
    /// speed, rating group and month, and the games.
    Build(BuildArgs),
    /// Join indexes built separately (with the same --max-ply) into one: the
    /// index their inputs, one after another, would have built.
    Merge {
        /// The indexes, in order.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        /// Memory budget in MB.
        #[arg(long, default_value_t = 1024)]
        memory: usize,
        /// Threads that count the positions.
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Header figures: games, positions, singles, sizes.
    Info { index: PathBuf },
    /// Read and check every byte; exit status 0 only for a valid index.
    Verify { index: PathBuf },
}

/// `explorer build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// PGN files (plain or compressed), read in order; `-` is standard input.
    #[arg(long, num_args = 1.., required = true)]
    pub pgn: Vec<PathBuf>,
    /// The index to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Index the positions of the first N plies of each game (1..=255).
    #[arg(long, default_value_t = DEFAULT_MAX_PLY)]
    pub max_ply: u8,
    /// A masters index (`serve --masters`), as Lichess's masters database:
    /// games whose mean rating is 2200 or more and dated at most tomorrow;
    /// each year's 15 best games kept.
    #[arg(long)]
    pub masters: bool,
    /// Keep the games Lichess's importer refuses: BOT games, games without
    /// both ratings (a missing one takes the other's) and games without a
    /// month (month 0), and with --masters games under 2200 or in the future.
    #[arg(long)]
    pub all_games: bool,
    /// Threads that parse and replay games.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Memory budget in MB (position visits beyond it are spilled to disk).
    #[arg(long, default_value_t = 1024)]
    pub memory: usize,
    /// Directory for spilled visits (default: the system's temporary directory).
    #[arg(long)]
    pub temp_dir: Option<PathBuf>,
    /// Write the index even when an input is damaged (truncated compressed stream).
    #[arg(long)]
    pub allow_damaged: bool,
    #[command(flatten)]
    pub games: GameFilterArgs,
}

pub fn run(command: ExplorerCommand) -> anyhow::Result<ExitCode> {
    match command {
        ExplorerCommand::Build(args) => build_index(args),
        ExplorerCommand::Merge { shards, out, memory, threads } => {
            let options = ExplorerOptions {
                memory_mb: memory.max(1),
                threads: threads.clamp(1, 256),
                ..ExplorerOptions::default()
            };
            let summary = tool::merge(&shards, &out, &options).map_err(|e| match e {
                ExplorerBuildError::Index { path, source } => index_error(&path, &source),
                e => e.into(),
            })?;
            print_summary(&summary);
            println!(
                "{} indexes merged: {} games ({} already indexed), {} positions, {} singles, {} bytes written to {}",
                shards.len(),
                summary.indexed,
                summary.duplicates,
                summary.positions,
                summary.singles,
                summary.index_bytes,
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        ExplorerCommand::Info { index } => {
            let e = open_index(&index)?;
            println!(
                "file:      {}\nformat:    explorer index (AXPL version {}, {})\nmax ply:   {}\ngames:     {}\npositions: {} (reached in two games or more)\nsingles:   {} (reached in one game)\nblocks:    {} of {} bytes, each with its checksum\nbytes:     {}",
                index.display(),
                crate::explorer::index::VERSION,
                if e.top_games() == crate::explorer::build::MASTERS_GAMES as u8 { "masters" } else { "Lichess" },
                e.max_ply(),
                e.games(),
                e.positions(),
                e.singles(),
                e.blocks().0,
                e.blocks().1,
                e.len_bytes()
            );
            Ok(ExitCode::SUCCESS)
        }
        ExplorerCommand::Verify { index } => match Explorer::open(&index).and_then(|e| e.verify()) {
            Ok(s) => {
                println!(
                    "{}: valid explorer index, {} games ({} plies), {} positions, {} singles",
                    index.display(),
                    s.games,
                    s.plies,
                    s.positions,
                    s.singles
                );
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                println!("{}: invalid: {}", index.display(), unnamed(&index, &e));
                Ok(ExitCode::FAILURE)
            }
        },
    }
}

fn build_index(args: BuildArgs) -> anyhow::Result<ExitCode> {
    if args.max_ply == 0 {
        anyhow::bail!("--max-ply must be 1 to 255");
    }
    let options = ExplorerOptions {
        max_ply: args.max_ply,
        masters: args.masters,
        all_games: args.all_games,
        filters: args.games.filters()?,
        threads: args.threads.clamp(1, 256),
        memory_mb: args.memory.max(16),
        temp_dir: args.temp_dir.clone(),
        allow_damaged: args.allow_damaged,
    };
    let mut observer = Bar::new();
    let result = tool::build(&args.pgn, &args.out, &options, &mut observer);
    observer.0.finish_and_clear();
    let summary = result?;
    print_summary(&summary);
    println!(
        "{} games read, {} indexed, {} positions, {} singles, {} bytes written to {}",
        summary.games,
        summary.indexed,
        summary.positions,
        summary.singles,
        summary.index_bytes,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn print_summary(s: &ExplorerSummary) {
    let rejected: Vec<String> = Rejection::ALL
        .iter()
        .zip(s.rejected)
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| format!("{n} by {}", r.name()))
        .collect();
    let secs = s.seconds.max(1e-9);
    eprintln!(
        "summary: {} games read, {} indexed; skipped: {} already indexed, {} not 1-0/0-1/1/2-1/2, {} variant or set-up, {} illegal move, {}, {} filtered out{}; {} input(s) damaged",
        s.games,
        s.indexed,
        s.duplicates,
        s.bad_result,
        s.variants,
        s.illegal,
        Refusal::ALL.iter().zip(s.refused).map(|(r, n)| format!("{n} {}", r.name())).collect::<Vec<_>>().join(", "),
        s.rejected.iter().sum::<u64>(),
        if rejected.is_empty() { String::new() } else { format!(" ({})", rejected.join(", ")) },
        s.damaged.len()
    );
    eprintln!(
        "summary: {:.1} MB PGN ({:.1} MB read) in {:.2} s ({:.2} s reading the games, {:.2} s counting the positions, {:.2} s writing the index): {:.1} MB/s, {:.0} games/s; {} position visits; index {} bytes; peak memory {} MB",
        s.text_bytes as f64 / 1e6,
        s.source_bytes as f64 / 1e6,
        s.seconds,
        s.read_seconds,
        s.count_seconds,
        s.seconds - s.read_seconds - s.count_seconds,
        s.text_bytes as f64 / 1e6 / secs,
        s.games as f64 / secs,
        s.events,
        s.index_bytes,
        build::peak_rss_kb().map_or_else(|| "?".into(), |k| (k / 1024).to_string())
    );
}
