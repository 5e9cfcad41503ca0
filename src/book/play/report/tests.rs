use super::*;
use crate::book::format::polyglot::{encode, PolyglotEntry};
use crate::book::format::yacb::KeyType;
use crate::types::Move;

fn entry(board: &Board, value: i32, best_move: Move) -> YacbEntry {
    YacbEntry {
        key: board.key(),
        elo: Elo::Rated(-300),
        value_type: ValueType::Centipawns,
        bound: BoundType::Lower,
        source: Source::Engine,
        value,
        best_move,
    }
}

/// The start position names 1. e4 (+25); 1. d4 leads to +100.
fn book() -> Book {
    let mut b = Board::startpos();
    let [e4, d4] = ["e2e4", "d2d4"].map(|m| b.parse_uci(m).unwrap());
    let mut entries = vec![entry(&b, 25, e4)];
    b.make_move(d4);
    entries.push(entry(&b, 100, Move::NONE));
    let dir = crate::testdata::TempDir::new("report");
    let path = dir.path().join("b.yacb");
    crate::book::format::yacb::write(&path, &KeyType::Engine, entries).unwrap();
    Book::Yacb(YacbBook::from_vec(std::fs::read(&path).unwrap()).unwrap())
}

#[test]
fn yacb_report_gives_the_entry_and_each_move_as_play_scores_it() {
    let (book, mut b) = (book(), Board::startpos());
    let report = report(&book, &mut b, None).unwrap();
    assert_eq!((report.format, report.key.as_str()), ("yacb", format!("{:016x}", b.key()).as_str()));
    // The JSON `book probe --json` prints and the service answers.
    let r = serde_json::to_value(&report).unwrap();
    let own = &r["entry"];
    assert_eq!(
        (own["value"].as_i64(), own["bound"].as_str(), own["best_move"].as_str()),
        (Some(25), Some("lower"), Some("e2e4"))
    );
    let moves: Vec<(&str, bool, bool)> = r["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["uci"].as_str().unwrap(), m["best_move"].as_bool().unwrap(), m["entry"].is_null()))
        .collect();
    // d4 scores its child's +100, e4 (the own best move, no child entry) the position's +25.
    assert_eq!(moves, [("d2d4", false, false), ("e2e4", true, true)]);
    let expected = crate::types::expected_score(100.0);
    let first = &r["moves"][0];
    assert!((first["expected"].as_f64().unwrap() - expected).abs() < 1e-12);
    assert_eq!(first["weight"].as_u64(), Some((expected * 40_000.0).round() as u64));
    assert_eq!(first["san"].as_str(), Some("d4"));
    assert!(r["moves"].as_array().unwrap().iter().all(|m| m["learned"].is_null() && m["learn"].is_null()));
}

#[test]
fn learned_results_move_the_expected_score_and_are_shown() {
    let (book, mut b) = (book(), Board::startpos());
    let d4 = b.parse_uci("d2d4").unwrap();
    b.make_move(d4);
    let child = b.key();
    b.unmake_move();
    let mut learn = LearnTable::default();
    for _ in 0..8 {
        learn.add(child, 0);
    }
    let r = serde_json::to_value(report(&book, &mut b, Some(&learn)).unwrap()).unwrap();
    let d4 = r["moves"].as_array().unwrap().iter().find(|m| m["uci"] == "d2d4").unwrap();
    assert_eq!((d4["learned"]["games"].as_u64(), d4["learned"]["white_points"].as_u64()), (Some(8), Some(0)));
    assert!(d4["expected"].as_f64().unwrap() < crate::types::expected_score(100.0));
}

#[test]
fn polyglot_report_lists_weight_zero_entries_with_fields_in_order() {
    let mut b = Board::startpos();
    let key = polyglot_key(&b);
    let (e2e4, c2c4) = (1 << 9 | 4 << 6 | 3 << 3 | 4, 1 << 9 | 2 << 6 | 3 << 3 | 2);
    let entries = [(e2e4, 5), (c2c4, 0)].map(|(raw_move, weight)| PolyglotEntry { key, raw_move, weight, learn: 7 });
    let book = Book::Polyglot(PolyglotBook::from_bytes(encode(&entries)).unwrap());
    let r = report(&book, &mut b, None).unwrap();
    let text = serde_json::to_string(&r).unwrap();
    assert!(text.starts_with(&format!(
        "{{\"fen\":\"{}\",\"key\":\"{key:016x}\",\"format\":\"polyglot\",\"entry\":null,",
        b.fen()
    )));
    let moves: Vec<(&str, u32, Option<u32>)> = r.moves.iter().map(|m| (m.san.as_str(), m.weight, m.learn)).collect();
    assert_eq!(moves, [("e4", 5, Some(7)), ("c4", 0, Some(7))]);
    assert!(text.contains(r#""uci":"e2e4","san":"e4","weight":5,"learn":7,"entry":null}"#), "{text}");
}
