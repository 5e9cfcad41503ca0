use super::*;
use crate::board::zobrist::polyglot_key;
use crate::book::polyglot::{encode, PolyglotEntry};
use crate::book::yacb::{BoundType, Elo, Source};

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
