//! `archivist book info|dump|merge|edit` for Polyglot books (`info` and
//! `dump` get the book opened through [`crate::book::play::open()`]); `merge`
//! hands YACB books to `cli/yacb.rs`.
//!
//! * `info`: entries, positions, moves per position, weight and learn
//!   statistics.
//! * `dump [--json]`: one line (or JSON object) per entry in file order:
//!   key, move as written (`e1h1` for castling), weight, learn.
//! * `merge A.bin B.bin [C.bin …] --out OUT`: as `polyglot merge-book -in1 A
//!   -in2 B -out OUT` ([`crate::book::format::polyglot::merge`]).
//! * `edit BOOK --fen FEN --set MOVE=WEIGHT … --remove MOVE …`: one
//!   position's weights ([`crate::book::format::polyglot::edit`]), written
//!   atomically over BOOK or to `--out`.

use crate::board::Board;
use crate::book::format::polyglot::edit::{edit as edit_entries, Change};
use crate::book::format::polyglot::{merge as pg_merge, PolyglotBook, PolyglotEntry};
use crate::book::play::BookFormat;
use crate::types::Square;
use anyhow::{bail, Context};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args, Debug)]
pub struct EditArgs {
    /// The Polyglot book.
    pub book: PathBuf,
    /// The position whose moves change.
    #[arg(long)]
    pub fen: String,
    /// MOVE=WEIGHT (UCI or SAN, weight 0..65535); adds the move when absent. Repeatable.
    #[arg(long = "set", value_name = "MOVE=WEIGHT")]
    pub set: Vec<String>,
    /// Remove the move's entries. Repeatable.
    #[arg(long = "remove", value_name = "MOVE")]
    pub remove: Vec<String>,
    /// Write here instead of over BOOK.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

fn format_of(path: &Path) -> anyhow::Result<BookFormat> {
    crate::book::play::format_of(path).with_context(|| path.display().to_string())
}

fn open(path: &Path) -> anyhow::Result<PolyglotBook> {
    PolyglotBook::open(path).with_context(|| format!("opening {}", path.display()))
}

/// The move field as text without a board: from, to, promotion letter.
pub fn raw_move_text(raw: u16) -> String {
    let square = |v: u16| Square::new((v & 63) as u8).to_string();
    let promo = ["", "n", "b", "r", "q"].get(usize::from(raw >> 12 & 7)).copied().unwrap_or("?");
    format!("{}{}{promo}", square(raw >> 6), square(raw))
}

pub fn info(path: &Path, book: &PolyglotBook) -> anyhow::Result<ExitCode> {
    let (mut positions, mut widest, mut run, mut last) = (0u64, 0u64, 0u64, None);
    let (mut total, mut zero, mut learned, mut lo, mut hi) = (0u64, 0u64, 0u64, u16::MAX, 0u16);
    for e in book.iter() {
        if last != Some(e.key) {
            positions += 1;
            run = 0;
            last = Some(e.key);
        }
        run += 1;
        widest = widest.max(run);
        total += u64::from(e.weight);
        zero += u64::from(e.weight == 0);
        learned += u64::from(e.learn != 0);
        lo = lo.min(e.weight);
        hi = hi.max(e.weight);
    }
    let mean = if positions > 0 { book.len() as f64 / positions as f64 } else { 0.0 };
    println!("file:      {}\nformat:    polyglot\nentries:   {}", path.display(), book.len());
    println!("positions: {positions}\nmoves:     {mean:.2} per position, at most {widest}");
    if book.is_empty() {
        println!("weights:   none");
    } else {
        println!("weights:   total {total}, {lo}..{hi}, {zero} of weight 0");
    }
    println!("learn:     {learned} entries non-zero");
    Ok(ExitCode::SUCCESS)
}

/// A line of `book dump --json` for a Polyglot book.
#[derive(Serialize)]
struct Dumped {
    key: String,
    #[serde(rename = "move")]
    mv: String,
    raw_move: u16,
    weight: u16,
    learn: u32,
}

pub fn dump(book: &PolyglotBook, as_json: bool) -> anyhow::Result<ExitCode> {
    use std::io::Write;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for e in book.iter() {
        let mv = raw_move_text(e.raw_move);
        if as_json {
            let line =
                Dumped { key: format!("{:016x}", e.key), mv, raw_move: e.raw_move, weight: e.weight, learn: e.learn };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        } else {
            writeln!(out, "{:016x} {mv:<6} weight {:>5} learn {}", e.key, e.weight, e.learn)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn merge(inputs: &[PathBuf], out: &Path) -> anyhow::Result<ExitCode> {
    let formats = inputs.iter().map(|p| format_of(p)).collect::<anyhow::Result<Vec<_>>>()?;
    if formats.iter().all(|f| *f == BookFormat::Yacb) {
        return super::yacb::merge(inputs, out);
    }
    if let Some((p, f)) = inputs.iter().zip(&formats).find(|(_, f)| **f != BookFormat::Polyglot) {
        bail!("{}: is {f}; `book merge` merges Polyglot books with Polyglot books, YACB with YACB", p.display());
    }
    let books = inputs.iter().map(|p| open(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let entries = pg_merge::merge(&books);
    pg_merge::write_in_order(out, &entries)?;
    println!("{} books merged: {} entries written to {}", books.len(), entries.len(), out.display());
    Ok(ExitCode::SUCCESS)
}

fn parse_move(board: &Board, text: &str) -> anyhow::Result<crate::types::Move> {
    board
        .parse_uci(text)
        .or_else(|_| board.parse_san(text))
        .map_err(|e| anyhow::anyhow!("move '{text}' in {}: {e}", board.fen()))
}

pub fn edit(args: EditArgs) -> anyhow::Result<ExitCode> {
    if format_of(&args.book)? != BookFormat::Polyglot {
        bail!("{}: `book edit` edits Polyglot weights; this book is not Polyglot", args.book.display());
    }
    let board = Board::from_fen(&args.fen, false).with_context(|| format!("bad FEN '{}'", args.fen))?;
    let mut changes = Vec::new();
    for s in &args.set {
        let (mv, weight) = s.split_once('=').with_context(|| format!("--set '{s}': expected MOVE=WEIGHT"))?;
        let weight: u16 = weight.trim().parse().with_context(|| format!("--set '{s}': weight must be 0..65535"))?;
        changes.push(Change::Set(parse_move(&board, mv.trim())?, weight));
    }
    for s in &args.remove {
        changes.push(Change::Remove(parse_move(&board, s.trim())?));
    }
    if changes.is_empty() {
        bail!("nothing to do: pass --set MOVE=WEIGHT or --remove MOVE");
    }
    let book = open(&args.book)?;
    let (entries, report): (Vec<PolyglotEntry>, _) = edit_entries(&book, &board, &changes);
    let out = args.out.as_ref().unwrap_or(&args.book);
    pg_merge::write_in_order(out, &entries)?;
    println!(
        "{}: {} updated, {} added, {} removed; {} entries written to {}",
        board.fen(),
        report.updated,
        report.added,
        report.removed,
        entries.len(),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}
