//! Books from other programs: Arena's ABK as `book probe` shows it, and
//! SugaR-family experience files (`book import-exp`).

use crate::board::Board;
use crate::book::format::exp;
use crate::book::format::yacb::{self, KeyType, YacbBook};
use crate::book::play::report::{MoveDetail, Report};
use anyhow::{bail, Context};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Merges experience files and imports them into a YACB book.
#[derive(Args, Debug)]
pub struct ImportExpArgs {
    /// Experience files (.exp, versions 1 and 2), merged in order.
    #[arg(num_args = 1.., required = true)]
    pub inputs: Vec<PathBuf>,
    /// The YACB book to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Walk from this position instead of the start position (repeatable).
    #[arg(long = "root", value_name = "FEN")]
    pub roots: Vec<String>,
    /// Internal units per pawn of the engine that wrote the files (208: Stockfish 12–15).
    #[arg(long, default_value_t = exp::DEFAULT_PAWN_VALUE)]
    pub pawn_value: i32,
    /// An existing YACB book (engine keys) to merge with: its entries win elo ties.
    #[arg(long)]
    pub into: Option<PathBuf>,
}

/// `book probe`'s text for an ABK book, from its report
/// ([`crate::book::play::report`]): the position's moves with Arena's statistics.
pub fn print_probe_abk(out: &Report) {
    let moves = &out.moves;
    println!("Fen: {}", out.fen);
    println!("Format: abk");
    println!("Moves: {}", moves.len());
    for m in moves {
        let MoveDetail::Abk { priority, games, won, lost, .. } = m.detail else { continue };
        println!(
            "  {:<6} {:<8} priority {priority:>3}  games {games:>6}  won {won:>6}  lost {lost:>6}  weight {:>5}",
            m.uci, m.san, m.weight
        );
    }
}

/// `book import-exp`.
pub fn import_exp(args: ImportExpArgs) -> anyhow::Result<ExitCode> {
    if args.pawn_value <= 0 {
        bail!("--pawn-value must be positive");
    }
    let mut files = Vec::new();
    for p in &args.inputs {
        let f = exp::open(p).with_context(|| p.display().to_string())?;
        println!(
            "{}: version {}, {} entries",
            p.display(),
            if f.version == exp::ExpVersion::V2 { 2 } else { 1 },
            f.entries.len()
        );
        files.push(f);
    }
    let merged = exp::merge(&files);
    let roots = if args.roots.is_empty() {
        vec![Board::startpos()]
    } else {
        args.roots
            .iter()
            .map(|f| Board::from_fen(f, false).with_context(|| format!("bad --root FEN '{f}'")))
            .collect::<anyhow::Result<Vec<Board>>>()?
    };
    let (entries, report) = exp::to_yacb(&merged, &roots, args.pawn_value);
    let mut all = Vec::new();
    if let Some(into) = &args.into {
        let book = YacbBook::open(into).with_context(|| into.display().to_string())?;
        book.verify().with_context(|| into.display().to_string())?;
        if book.key_type() != &KeyType::Engine {
            bail!("{}: --into needs a book with engine keys (key_type 0)", into.display());
        }
        all = book.iter().collect::<Result<Vec<_>, _>>()?;
    }
    all.extend(entries);
    let written =
        yacb::write(&args.out, &KeyType::Engine, all).with_context(|| format!("writing {}", args.out.display()))?;
    println!("{} entries merged: {report}; {written} entries written to {}", merged.len(), args.out.display());
    Ok(ExitCode::SUCCESS)
}
