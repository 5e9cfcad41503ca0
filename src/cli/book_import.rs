//! Books from other programs: Arena's ABK (`book probe`, `book convert`)
//! and SugaR-family experience files (`book import-exp`).

use crate::board::Board;
use crate::book::abk::{self, AbkBook};
use crate::book::exp;
use crate::book::yacb::{self, KeyType, YacbBook};
use crate::book::{polyglot, BookFormat};
use anyhow::{bail, Context};
use clap::Args;
use std::path::{Path, PathBuf};
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

/// Whether `path` holds an ABK book: its name ends in `.abk`, or it has
/// the header size and Arena's signature.
pub fn is_abk(path: &Path) -> bool {
    let by_name = path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("abk"));
    by_name
        || crate::book::read_head(path).is_ok_and(|h| {
            h.starts_with(abk::SIGNATURE)
                && std::fs::metadata(path).is_ok_and(|m| {
                    m.len() >= abk::HEADER_LEN as u64 && (m.len() - abk::HEADER_LEN as u64) % abk::ENTRY_LEN as u64 == 0
                })
        })
}

fn open_abk(path: &Path) -> anyhow::Result<AbkBook> {
    AbkBook::open(path).with_context(|| path.display().to_string())
}

/// `book probe` for an ABK book: the position's moves with Arena's statistics.
pub fn probe_abk(path: &Path, board: &mut Board, json: bool) -> anyhow::Result<ExitCode> {
    let book = open_abk(path)?;
    let moves = book.probe(board);
    if json {
        let rows: Vec<serde_json::Value> = moves
            .iter()
            .map(|m| {
                serde_json::json!({
                    "uci": board.move_to_uci(m.mv), "san": board.move_to_san(m.mv), "priority": m.priority,
                    "games": m.games, "won": m.won, "lost": m.lost, "weight": m.weight(),
                })
            })
            .collect();
        println!("{}", serde_json::json!({"fen": board.fen(), "format": "abk", "moves": rows}));
        return Ok(ExitCode::SUCCESS);
    }
    println!("Fen: {}", board.fen());
    println!("Format: abk");
    println!("Moves: {}", moves.len());
    for m in &moves {
        println!(
            "  {:<6} {:<8} priority {:>3}  games {:>6}  won {:>6}  lost {:>6}  weight {:>5}",
            board.move_to_uci(m.mv),
            board.move_to_san(m.mv),
            m.priority,
            m.games,
            m.won,
            m.lost,
            m.weight()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `book convert` from an ABK book to Polyglot or YACB.
pub fn convert_abk(input: &Path, output: &Path, to: BookFormat, roots: &[String]) -> anyhow::Result<ExitCode> {
    if !roots.is_empty() {
        bail!("--root does not apply to ABK books: their tree starts at the start position");
    }
    let book = open_abk(input)?;
    let (positions, report) = book.positions();
    match to {
        BookFormat::Polyglot => {
            let entries = abk::to_polyglot(&positions);
            polyglot::write_book(output, &entries).with_context(|| format!("writing {}", output.display()))?;
        }
        BookFormat::Yacb => {
            let entries = abk::to_yacb(&positions);
            yacb::write(output, &KeyType::Engine, entries).with_context(|| format!("writing {}", output.display()))?;
        }
        other => bail!("ABK books convert to polyglot or yacb, not {other}; convert the result further"),
    }
    println!("{} (abk) -> {} ({to}): {report}", input.display(), output.display());
    Ok(ExitCode::SUCCESS)
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
