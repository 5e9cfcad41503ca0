//! `archivist book info|dump|merge` and `probe` for YACB books.

use crate::book::format::yacb::{Elo, KeyType, YacbBook};
use crate::book::play::report::{entry_report, EloReport, EntryReport, Report};
use anyhow::Context;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn open(path: &Path) -> anyhow::Result<YacbBook> {
    YacbBook::open(path).with_context(|| format!("opening {}", path.display()))
}

/// `book probe`'s text for a YACB book, from its report
/// ([`crate::book::play::report`]): the position's entry, and the moves the book
/// offers there with their weights and the entries they lead to.
pub fn print_probe(out: &Report) -> anyhow::Result<()> {
    println!("Fen: {}\nKey: {}\nFormat: yacb", out.fen, out.key);
    println!("Entry: {}", serde_json::to_string(&out.entry)?);
    let moves = &out.moves;
    println!("Moves: {}", moves.len());
    for m in moves {
        println!("  {:<6} {:<8} weight {:>5}  {}", m.uci, m.san, m.weight, serde_json::to_string(&m.entry)?);
    }
    Ok(())
}

pub fn info(path: &Path, book: &YacbBook) -> anyhow::Result<ExitCode> {
    let key_type = match book.key_type() {
        KeyType::Engine => "0 (engine keys)",
        KeyType::Zobrist(_) => "1 (embedded Zobrist table, Polyglot order)",
    };
    println!("file:     {}\nformat:   YACB version 0\nkey_type: {key_type}\nentries:  {}", path.display(), book.len());
    let (mut types, mut bounds, mut sources) = ([0u64; 5], [0u64; 4], [0u64; 4]);
    let (mut irreplaceable, mut lo, mut hi) = (0u64, i32::MAX, i32::MIN);
    for e in book.iter() {
        let e = e?;
        types[e.value_type as usize] += 1;
        bounds[e.bound as usize] += 1;
        sources[e.source as usize] += 1;
        match e.elo {
            Elo::Irreplaceable => irreplaceable += 1,
            Elo::Rated(v) => {
                lo = lo.min(v as i32);
                hi = hi.max(v as i32);
            }
        }
    }
    println!("values:   cp {} cp_known_win {} dtz {} dtm {} perf {}", types[0], types[1], types[2], types[3], types[4]);
    println!("bounds:   exact {} lower {} upper {} proven {}", bounds[0], bounds[1], bounds[2], bounds[3]);
    println!("sources:  tt {} engine {} statistical {} other {}", sources[0], sources[1], sources[2], sources[3]);
    if lo <= hi {
        println!("elo:      {lo}..{hi}, irreplaceable {irreplaceable}");
    } else {
        println!("elo:      irreplaceable {irreplaceable}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A line of `book dump --json`: the entry's key and its report.
#[derive(Serialize)]
struct Dumped {
    key: String,
    #[serde(flatten)]
    entry: EntryReport,
}

pub fn dump(book: &YacbBook, as_json: bool) -> anyhow::Result<ExitCode> {
    for e in book.iter() {
        let e = e?;
        let r = entry_report(&e, None);
        if as_json {
            println!("{}", serde_json::to_string(&Dumped { key: format!("{:016x}", e.key), entry: r })?);
        } else {
            let elo = match r.elo {
                EloReport::Rated(x) => x.to_string(),
                EloReport::Named(n) => n.to_string(),
            };
            println!(
                "{:016x} {:>6} {:<12} {:<6} {:<11} elo {:<13} best {}",
                e.key,
                e.value,
                r.value_type,
                r.bound,
                r.source,
                elo,
                r.best_move.as_deref().unwrap_or("-")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn merge(inputs: &[PathBuf], out: &Path) -> anyhow::Result<ExitCode> {
    let books = inputs.iter().map(|p| open(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let key_type = books.first().map(|b| b.key_type().clone()).context("no input books")?;
    let entries = crate::book::tools::merge::merge(&books)?;
    let n = crate::book::format::yacb::write(out, &key_type, entries)?;
    println!("{} books merged: {n} entries written to {}", books.len(), out.display());
    Ok(ExitCode::SUCCESS)
}
