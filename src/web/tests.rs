//! The browser's calls answer as the native program does.

use super::*;
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};

fn data(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{}/engine-tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(data(name)).unwrap()
}

fn parsed(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// The positions of `book convert --to json`'s output, by FEN.
fn converted_entries(bytes: Vec<u8>) -> serde_json::Map<String, Value> {
    let (json, _) = convert(bytes, "json", None).unwrap();
    let v: Value = serde_json::from_slice(&json).unwrap();
    v["positions"].as_object().unwrap().clone()
}

#[test]
fn an_sbob_probe_is_the_positions_entry_in_the_converted_json() {
    for name in ["sbob_golden.sbob", "sbob_golden.json"] {
        let bytes = read(name);
        let book = WebBook::open(bytes.clone(), None).unwrap();
        let entries = converted_entries(bytes);
        assert!(!entries.is_empty());
        for (fen, entry) in &entries {
            // Other move counters: the same position.
            let query: Vec<&str> = fen.split_whitespace().take(4).chain(["9", "99"]).collect();
            let answer = parsed(&book.probe(&query.join(" ")).unwrap().unwrap());
            assert_eq!(answer["fen"], Value::String(fen.clone()), "{name}");
            assert_eq!(answer["moves"], entry["moves"], "{name}: {fen}");
        }
        assert_eq!(book.probe("8/8/8/8/8/8/8/K6k w - - 0 1").unwrap(), None, "{name}");
    }
}

#[test]
fn a_polyglot_probe_is_book_probes_report() {
    let bytes = read("shared/books/lasker-trap.bin");
    let book = WebBook::open(bytes, None).unwrap();
    assert_eq!(book.format(), BookFormat::Polyglot);
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let native = crate::book::play::open(&data("shared/books/lasker-trap.bin")).unwrap();
    let expected = report::report(&native, &mut Board::from_fen(fen, false).unwrap(), None).unwrap();
    assert_eq!(parsed(&book.probe(fen).unwrap().unwrap()), serde_json::to_value(&expected).unwrap());
    // A position the book lacks: the report with no moves, not null.
    let empty = parsed(&book.probe("8/8/8/8/8/8/8/K6k w - - 0 1").unwrap().unwrap());
    assert_eq!(empty["moves"], Value::Array(Vec::new()));
    assert!(matches!(book.probe("not a fen"), Err(WebError::Fen { .. })));
}

#[test]
fn a_conversion_in_memory_writes_what_book_convert_writes() {
    let dir = crate::testdata::TempDir::new("web-convert");
    let input = data("shared/books/lasker-trap.bin");
    for to in ["sbob", "json", "polyglot", "yacb"] {
        let out = dir.path().join(format!("out.{to}"));
        let native = crate::book::tools::convert::convert(&input, &out, target_format(to).unwrap(), &[]).unwrap();
        let (bytes, line) = convert(std::fs::read(&input).unwrap(), to, None).unwrap();
        assert_eq!(bytes, std::fs::read(&out).unwrap(), "{to}");
        assert_eq!(line, format!("polyglot -> {to}: {native}"));
    }
    assert!(matches!(convert(read("sbob_golden.sbob"), "abk", None), Err(WebError::Usage(_))));
}

#[test]
fn a_damaged_book_fails_with_the_native_message() {
    let mut bytes = read("shared/books/lasker-trap.bin");
    bytes.truncate(16 * 3 + 5);
    let dir = crate::testdata::TempDir::new("web-damaged");
    let path = dir.path().join("cut.bin");
    std::fs::write(&path, &bytes).unwrap();
    let native = crate::book::play::open(&path).unwrap_err().to_string();
    let web = WebBook::open(bytes, None).err().unwrap().to_string();
    assert_eq!(web, native);
    assert!(web.contains("offset 48"), "{web}");
}

#[test]
fn a_search_answers_with_its_last_lines_first_move() {
    let lines = Arc::new(AtomicUsize::new(0));
    let seen = lines.clone();
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let answer = search(fen, SearchLimit::Depth(6), move |line| {
        assert_eq!(line.bestmove.as_deref(), line.pv.first().map(String::as_str));
        seen.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(answer.depth, 6);
    assert!(lines.load(Ordering::Relaxed) >= 6);
    let best = answer.bestmove.clone().unwrap();
    assert_eq!(answer.pv.first(), Some(&best));
    assert!(moves(fen).unwrap().iter().any(|m| m.uci == best), "{best}");
    // Mate in one: a mate score from the side to move.
    let mate = search("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", SearchLimit::Nodes(20_000), |_| {}).unwrap();
    assert_eq!((mate.bestmove.as_deref(), mate.score), (Some("d1d8"), WebScore::Mate(1)));
    assert!(matches!(search("8/8/8 w", SearchLimit::Depth(1), |_| {}), Err(WebError::Fen { .. })));
}

#[test]
fn moves_lists_each_legal_move_with_its_san_and_the_position_after_it() {
    let list = moves("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
    assert_eq!(list.len(), 20);
    let e4 = list.iter().find(|m| m.uci == "e2e4").unwrap();
    assert_eq!(e4.san, "e4");
    // The en-passant square only where a capture is possible, as the board writes FENs.
    assert_eq!(e4.fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}
