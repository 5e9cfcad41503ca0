//! `archivist book info|dump|merge` and `probe` for YACB books.

use crate::board::Board;
use crate::book::offer::Offers;
use crate::book::yacb::{BoundType, Elo, KeyType, Source, ValueType, YacbBook, YacbEntry};
use anyhow::Context;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn value_type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Centipawns => "cp",
        ValueType::KnownWin => "cp_known_win",
        ValueType::Dtz => "dtz",
        ValueType::Dtm => "dtm",
        ValueType::Perf => "perf",
    }
}

fn bound_name(b: BoundType) -> &'static str {
    match b {
        BoundType::Exact => "exact",
        BoundType::Lower => "lower",
        BoundType::Upper => "upper",
        BoundType::Proven => "proven",
    }
}

fn source_name(s: Source) -> &'static str {
    match s {
        Source::Tt => "tt",
        Source::Engine => "engine",
        Source::Statistical => "statistical",
        Source::Other => "other",
    }
}

fn elo_json(e: Elo) -> Value {
    match e {
        Elo::Irreplaceable => json!("irreplaceable"),
        Elo::Rated(v) => json!(v),
    }
}

/// An entry as the `probe --json`/`dump --json` object. The best move is in
/// standard UCI notation (`e1g1`) unless the position is Chess960, and null
/// when there is none or it is not legal in `board` (when a board is known).
pub fn entry_json(e: &YacbEntry, board: Option<&Board>) -> Value {
    let best = match board {
        Some(b) => {
            b.legal_moves().iter().find(|&m| crate::book::offer::same_move(e.best_move, m)).map(|m| b.move_to_uci(m))
        }
        None => (!e.best_move.is_none()).then(|| crate::board::notation::uci_string(e.best_move, false)),
    };
    json!({
        "value": e.value,
        "value_type": value_type_name(e.value_type),
        "bound": bound_name(e.bound),
        "source": source_name(e.source),
        "elo": elo_json(e.elo),
        "best_move": best,
    })
}

pub fn open(path: &Path) -> anyhow::Result<YacbBook> {
    YacbBook::open(path).with_context(|| format!("opening {}", path.display()))
}

/// `book probe` on a YACB book: the position's entry, and the moves the
/// book offers there ([`crate::book::offer`]) with their weights and the
/// entries of the positions they lead to.
pub fn probe(book: &YacbBook, board: &mut Board, as_json: bool) -> anyhow::Result<ExitCode> {
    let key = book.key_type().key(board);
    let entry = book.lookup(key);
    let mut moves = Vec::new();
    for o in book.offers(board) {
        let san = board.move_to_san(o.mv);
        board.make_move(o.mv);
        let child = book.probe(board).map(|e| entry_json(&e, Some(board)));
        board.unmake_move();
        moves.push(
            json!({"uci": board.move_to_uci(o.mv), "san": san, "weight": o.weight, "learn": null, "entry": child}),
        );
    }
    let out = json!({
        "fen": board.fen(),
        "key": format!("{key:016x}"),
        "format": "yacb",
        "entry": entry.map(|e| entry_json(&e, Some(board))),
        "moves": moves,
    });
    if as_json {
        println!("{out}");
    } else {
        println!("Fen: {}\nKey: {key:016x}\nFormat: yacb", board.fen());
        println!("Entry: {}", out["entry"]);
        println!("Moves: {}", moves.len());
        for m in &moves {
            let (uci, san) = (m["uci"].as_str().unwrap_or(""), m["san"].as_str().unwrap_or(""));
            println!("  {uci:<6} {san:<8} weight {:>5}  {}", m["weight"], m["entry"]);
        }
    }
    Ok(ExitCode::SUCCESS)
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

pub fn dump(book: &YacbBook, as_json: bool) -> anyhow::Result<ExitCode> {
    for e in book.iter() {
        let e = e?;
        let mut v = entry_json(&e, None);
        if as_json {
            v["key"] = json!(format!("{:016x}", e.key));
            println!("{v}");
        } else {
            println!(
                "{:016x} {:>6} {:<12} {:<6} {:<11} elo {:<13} best {}",
                e.key,
                e.value,
                v["value_type"].as_str().unwrap_or(""),
                v["bound"].as_str().unwrap_or(""),
                v["source"].as_str().unwrap_or(""),
                match e.elo {
                    Elo::Irreplaceable => "irreplaceable".to_string(),
                    Elo::Rated(x) => x.to_string(),
                },
                v["best_move"].as_str().unwrap_or("-")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn merge(inputs: &[PathBuf], out: &Path) -> anyhow::Result<ExitCode> {
    let books = inputs.iter().map(|p| open(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let key_type = books.first().map(|b| b.key_type().clone()).context("no input books")?;
    let entries = crate::book::merge::merge(&books)?;
    let n = crate::book::yacb::write(out, &key_type, entries)?;
    println!("{} books merged: {n} entries written to {}", books.len(), out.display());
    Ok(ExitCode::SUCCESS)
}
