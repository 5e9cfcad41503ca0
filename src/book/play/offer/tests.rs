use super::*;
use crate::board::zobrist::polyglot_key;
use crate::book::format::polyglot::{encode, PolyglotEntry};
use crate::book::format::yacb::{BoundType, Elo, Source};

fn polyglot(entries: &[(u64, u16, u16)]) -> PolyglotBook {
    let entries: Vec<PolyglotEntry> =
        entries.iter().map(|&(key, raw_move, weight)| PolyglotEntry { key, raw_move, weight, learn: 0 }).collect();
    PolyglotBook::from_bytes(encode(&entries)).unwrap()
}

#[test]
fn polyglot_weighted_and_best_picks_follow_python_chess() {
    let mut b = Board::startpos();
    let key = polyglot_key(&b);
    let e2e4 = 1 << 9 | 4 << 6 | 3 << 3 | 4;
    let d2d4 = 1 << 9 | 3 << 6 | 3 << 3 | 3;
    let c2c4 = 1 << 9 | 2 << 6 | 3 << 3 | 2;
    let book = polyglot(&[(key, e2e4, 3), (key, d2d4, 3), (key, c2c4, 0)]);
    let offers = book.offers(&mut b);
    let pick = |r| pick_weighted(&offers, r).map(|o| b.move_to_uci(o.mv)).unwrap();
    // Cumulative weights 3, 6, 6: r in 0..3 → e2e4, 3..6 → d2d4, never c2c4.
    assert_eq!((0..12).map(pick).collect::<Vec<_>>().join(" "), "e2e4 e2e4 e2e4 d2d4 d2d4 d2d4 ".repeat(2).trim());
    assert_eq!(pick_best(&offers).map(|o| b.move_to_uci(o.mv)).as_deref(), Some("e2e4"), "first of equals");
    let zero = polyglot(&[(key, c2c4, 0)]).offers(&mut b);
    assert_eq!(zero.len(), 1);
    assert!(pick_best(&zero).is_none() && pick_weighted(&zero, 7).is_none());
}

#[test]
fn blend_moves_the_book_value_towards_the_learned_score() {
    let entry = YacbEntry {
        key: 5,
        elo: Elo::Rated(0),
        value_type: ValueType::Perf,
        bound: BoundType::Exact,
        source: Source::Statistical,
        value: 20_000,
        best_move: Move::NONE,
    };
    let mut t = LearnTable::default();
    assert_eq!(blend(&t, entry), entry);
    for _ in 0..8 {
        t.add(5, 2);
    }
    // Prior 0.5 weighted 8 games, then 8 white wins: 0.75.
    let b = blend(&t, entry);
    assert_eq!((b.value_type, b.value), (ValueType::Perf, 30_000));
    let cp = YacbEntry { value_type: ValueType::Centipawns, value: 0, ..entry };
    assert_eq!(blend(&t, cp).value, 30_000);
}

/// A YACB book (engine keys) of `entries`, read back from a temp file.
/// Each call has its own directory: tests running in parallel build the
/// same book.
fn yacb(name: &str, entries: Vec<YacbEntry>) -> YacbBook {
    let dir = crate::testdata::TempDir::new(&format!("offer-{name}"));
    let path = dir.path().join("b.yacb");
    crate::book::format::yacb::write(&path, &crate::book::format::yacb::KeyType::Engine, entries).unwrap();
    YacbBook::from_vec(std::fs::read(&path).unwrap()).unwrap()
}

fn cp_entry(board: &Board, value: i32, best_move: Move) -> YacbEntry {
    YacbEntry {
        key: board.key(),
        elo: Elo::Rated(0),
        value_type: ValueType::Centipawns,
        bound: BoundType::Exact,
        source: Source::Engine,
        value,
        best_move,
    }
}

/// The start position names 1. e4 (+25, no entry after it); 1. d4 leads to
/// +100, 1. c4 to −50 (white's view).
fn three_move_book() -> YacbBook {
    let mut b = Board::startpos();
    let [e4, d4, c4] = ["e2e4", "d2d4", "c2c4"].map(|m| b.parse_uci(m).unwrap());
    let mut entries = vec![cp_entry(&b, 25, e4)];
    for (m, cp) in [(d4, 100), (c4, -50)] {
        b.make_move(m);
        entries.push(cp_entry(&b, cp, Move::NONE));
        b.unmake_move();
    }
    yacb("three", entries)
}

#[test]
fn yacb_offers_are_the_engines_candidates_on_the_perf_scale() {
    let book = three_move_book();
    let mut b = Board::startpos();
    let offered: Vec<(String, u32)> = book.offers(&mut b).iter().map(|o| (b.move_to_uci(o.mv), o.weight)).collect();
    let perf = |cp: f64| (40_000.0 / (1.0 + (-cp / 400.0).exp())).round() as u32;
    // Highest expected score first; the own best move without a child
    // entry is offered with the position's own value.
    assert_eq!(offered, [("d2d4".into(), perf(100.0)), ("e2e4".into(), perf(25.0)), ("c2c4".into(), perf(-50.0))]);
    let exact: Vec<Move> = yacb_candidates(&book, &mut b, None).iter().map(|c| c.mv).collect();
    assert_eq!(exact, book.offers(&mut b).iter().map(|o| o.mv).collect::<Vec<_>>());
}

#[test]
fn book_export_and_self_play_walk_a_yacb_book_by_the_engines_weighting() {
    use crate::selfplay::openings::{BookWalk, OpeningSource, Rng};
    let book = three_move_book();
    // book export: heaviest first, so the main line is 1. d4 (+100), not the
    // position's own best move 1. e4, and 1. e4 is there without a child entry.
    let tree = crate::book::tools::export::book_tree(&book, 1);
    let b = Board::startpos();
    let moves: Vec<String> = tree.children.iter().map(|c| b.move_to_uci(c.mv.unwrap())).collect();
    assert_eq!(moves, ["d2d4", "e2e4", "c2c4"]);
    // Self-play: the walk draws in proportion to the same weights.
    let walk = BookWalk { book, name: "three".into(), max_plies: 1, chess960: false };
    let mut counts = std::collections::HashMap::new();
    let mut rng = Rng::new(11);
    for _ in 0..3000 {
        let end = walk.opening(&mut rng).unwrap();
        *counts.entry(end.fen().split(' ').next().unwrap().to_string()).or_insert(0u32) += 1;
    }
    let share = |placement: &str| f64::from(counts[placement]) / 3000.0;
    let total = [100.0, 25.0, -50.0].iter().map(|cp: &f64| 1.0 / (1.0 + (-cp / 400.0).exp())).sum::<f64>();
    let want_d4 = 1.0 / (1.0 + (-100.0f64 / 400.0).exp()) / total;
    assert!((share("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR") - want_d4).abs() < 0.03, "{counts:?}");
}
