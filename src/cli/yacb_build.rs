//! `archivist book analyse` and `book from-tt`: the YACB builders from
//! engine analysis (`book build --format yacb` is in [`super::book_build`]).

use crate::analysis::positions::{self, GatherOptions};
use crate::analysis::{from_tt, AnalyseOptions, Analyser};
use crate::board::Board;
use crate::book::format::yacb::{self, Elo, KeyType};
use anyhow::{bail, Context};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// Positions to analyse: a YACB book (walked from the start position or
    /// each --root through positions it has), a PGN file (every position of
    /// every game up to --max-ply) or an EPD/FEN file (one position per line).
    pub input: PathBuf,
    /// Output YACB book.
    #[arg(long)]
    pub out: PathBuf,
    /// Nodes per position.
    #[arg(long, default_value_t = 100_000)]
    pub nodes: u64,
    /// Search threads (the elo estimate accounts for them).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Hash table size in MB, cleared before each position.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// PGN and YACB input: positions up to this many plies from the start.
    #[arg(long, default_value_t = 40)]
    pub max_ply: usize,
    /// YACB input: walk from this position instead of the start position (repeatable).
    #[arg(long = "root", value_name = "FEN")]
    pub roots: Vec<String>,
}

/// The distinct positions of the input ([`positions::gather`]), skipped
/// games and lines reported; and how many were skipped.
fn positions(args: &AnalyseArgs) -> anyhow::Result<(Vec<Board>, usize)> {
    let mut roots = Vec::new();
    for f in &args.roots {
        roots.push(Board::from_fen(f, false).with_context(|| format!("bad --root FEN '{f}'"))?);
    }
    let gathered = positions::gather(&args.input, &GatherOptions { max_ply: args.max_ply, roots })?;
    for w in &gathered.warnings {
        eprintln!("warning: {w}");
    }
    Ok((gathered.boards, gathered.skipped))
}

pub fn analyse(args: AnalyseArgs) -> anyhow::Result<ExitCode> {
    if args.nodes == 0 {
        bail!("--nodes must be at least 1");
    }
    let (boards, skipped) = positions(&args)?;
    let options = AnalyseOptions {
        nodes: args.nodes,
        threads: args.threads.clamp(1, 1024),
        hash_mb: args.hash.clamp(1, 1 << 20),
    };
    let mut analyser = Analyser::new(options);
    let bar = indicatif::ProgressBar::new(boards.len() as u64);
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    let style =
        indicatif::ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} positions, {per_sec}, eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    let mut entries = Vec::with_capacity(boards.len());
    let mut game_over = 0usize;
    for b in &boards {
        match analyser.analyse(b) {
            Some(e) => entries.push(e),
            None => game_over += 1,
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let elo = match analyser.elo() {
        Elo::Rated(v) => v.to_string(),
        Elo::Irreplaceable => "irreplaceable".into(),
    };
    let n = yacb::write(&args.out, &KeyType::Engine, entries)?;
    println!(
        "{} positions analysed at {} nodes on {} thread(s) (elo {elo}), {game_over} without moves, {skipped} skipped; {n} entries written to {}",
        boards.len(),
        args.nodes,
        args.threads.max(1),
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct FromTtArgs {
    /// A saved transposition table (SFTT).
    pub hash: PathBuf,
    /// Output YACB book.
    #[arg(long)]
    pub out: PathBuf,
    /// Keep entries of at least this depth.
    #[arg(long, default_value_t = 1)]
    pub min_depth: i32,
    /// Also walk from this position (repeatable); the file's root_pos (or
    /// the start position) is always walked.
    #[arg(long = "root", value_name = "FEN")]
    pub roots: Vec<String>,
}

pub fn from_tt(args: FromTtArgs) -> anyhow::Result<ExitCode> {
    let map = crate::tt::persist::map(&args.hash).with_context(|| format!("opening {}", args.hash.display()))?;
    let mut roots = Vec::new();
    for f in &args.roots {
        roots.push(Board::from_fen(f, false).with_context(|| format!("bad --root FEN '{f}'"))?);
    }
    let (entries, stats) =
        from_tt::convert(&map, args.min_depth, &roots).with_context(|| format!("reading {}", args.hash.display()))?;
    let n = yacb::write(&args.out, &KeyType::Engine, entries)?;
    println!(
        "{} TT entries: {} below depth {}, {} never reached from the roots, {} without a value, {} TT moves illegal (dropped); {n} entries written to {}",
        stats.entries_in_file,
        stats.below_min_depth,
        args.min_depth,
        stats.unreached,
        stats.without_value,
        stats.illegal_moves,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
