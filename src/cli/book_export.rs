//! `archivist book export`: a book's lines as an EPD opening suite or a PGN
//! tree ([`crate::book::tools::export`]); the optional eval window searches each
//! position ([`crate::analysis::Analyser`]).

use crate::analysis::{AnalyseOptions, Analyser};
use crate::board::Board;
use crate::book;
use crate::book::format::yacb::ValueType;
use crate::book::play::InputKind;
use crate::book::tools::export::{self, Node};
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportFormat {
    Epd,
    Pgn,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A playable book (YACB, Polyglot or ABK, as `book::play::open` tells them;
    /// Polyglot by a .bin name), or a PGN (plain or compressed; `-` is
    /// standard input).
    pub input: PathBuf,
    /// Output file.
    #[arg(long)]
    pub out: PathBuf,
    /// epd (an opening suite) or pgn (one game, the book's tree as
    /// variations); default: pgn when OUT ends in .pgn, else epd.
    #[arg(long, value_enum)]
    pub format: Option<ExportFormat>,
    /// EPD: positions from this many plies from the start.
    #[arg(long, default_value_t = 0)]
    pub min_ply: usize,
    /// Lines up to this many plies (EPD: positions up to it).
    #[arg(long, default_value_t = 16)]
    pub max_ply: usize,
    /// EPD: search each position with this many nodes and keep it when the
    /// score for white is within --eval-window (0: no search).
    #[arg(long, default_value_t = 0)]
    pub eval_nodes: u64,
    /// EPD: the window in centipawns, |score| <= W.
    #[arg(long, default_value_t = 100)]
    pub eval_window: i32,
    /// EPD: gzip the output (also when OUT ends in .gz).
    #[arg(long)]
    pub gzip: bool,
}

/// The input's tree, and the games skipped (PGN).
fn tree(input: &Path, max_ply: usize) -> anyhow::Result<(Node, usize)> {
    match book::play::input_kind(input).with_context(|| input.display().to_string())? {
        InputKind::Book(_) => {}
        InputKind::Pgn => {
            return export::pgn_tree(input, max_ply).with_context(|| format!("reading {}", input.display()))
        }
        InputKind::Epd => bail!("{}: an EPD file; `book export` reads books and PGN games", input.display()),
    }
    let book = book::play::open(input).with_context(|| input.display().to_string())?;
    let offers = book.playable().with_context(|| input.display().to_string())?;
    Ok((export::book_tree(offers, max_ply), 0))
}

pub fn export(args: ExportArgs) -> anyhow::Result<ExitCode> {
    let by_name = args.out.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let format =
        args.format.unwrap_or(if by_name.as_deref() == Some("pgn") { ExportFormat::Pgn } else { ExportFormat::Epd });
    if args.min_ply > args.max_ply {
        bail!("--min-ply {} is above --max-ply {}", args.min_ply, args.max_ply);
    }
    let (root, skipped) = tree(&args.input, args.max_ply)?;
    if skipped > 0 {
        eprintln!(
            "warning: {skipped} game(s) skipped (illegal move, or a FEN tag: the tree starts from the start position)"
        );
    }
    if format == ExportFormat::Pgn {
        let text = export::pgn_text(&root, &format!("{} tree", args.input.display()));
        book::format::write_atomic(&args.out, text.as_bytes()).with_context(|| args.out.display().to_string())?;
        println!("{} moves in the tree written to {}", root.size() - 1, args.out.display());
        return Ok(ExitCode::SUCCESS);
    }
    let boards = export::positions(&root, args.min_ply, args.max_ply);
    let gzip = args.gzip || by_name.as_deref() == Some("gz");
    let mut analyser = (args.eval_nodes > 0)
        .then(|| Analyser::new(AnalyseOptions { nodes: args.eval_nodes, threads: 1, hash_mb: 16 }));
    let mut score = |b: &Board| -> Option<i32> {
        let e = analyser.as_mut()?.analyse(b)?;
        (e.value_type == ValueType::Centipawns).then_some(e.value)
    };
    let filter: Option<export::Scorer<'_>> = if args.eval_nodes > 0 { Some(&mut score) } else { None };
    let balance = export::write_epd(&args.out, &boards, filter, args.eval_window, gzip)
        .with_context(|| args.out.display().to_string())?;
    println!("{} distinct positions at plies {}..={}; written: {balance}", boards.len(), args.min_ply, args.max_ply);
    Ok(ExitCode::SUCCESS)
}
