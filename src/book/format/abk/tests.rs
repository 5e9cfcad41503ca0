use super::*;
use crate::book::format::polyglot::PolyglotBook;
use crate::book::format::yacb::YacbBook;
use proptest::prelude::*;

/// One entry written field by field from the module's layout table (not
/// through `AbkEntry::encode`).
#[allow(clippy::too_many_arguments)]
fn raw_entry(from: u8, to: u8, promo: i8, prio: u8, games: i32, won: i32, lost: i32, next: i32, sib: i32) -> Vec<u8> {
    let mut b = vec![from, to, promo as u8, prio];
    for v in [games, won, lost, 0, next, sib] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b
}

/// Hand-written golden book: 1. e4 (10 games: +5 −3) e5 (6: +2 −2) / c5 (4:
/// +1 −1); 1. d4 (4 games: +1 −1); 1. e4 c5 2. Nf3.
fn golden() -> Vec<u8> {
    let mut bytes = vec![0u8; HEADER_LEN];
    bytes[..4].copy_from_slice(b"\x03ABK");
    // 900: e2e4 (12 → 28), replies at 902, sibling 901.
    bytes.extend(raw_entry(12, 28, 0, 5, 10, 5, 3, 902, 901));
    // 901: d2d4 (11 → 27), no replies, no sibling.
    bytes.extend(raw_entry(11, 27, 0, 5, 4, 1, 1, -1, -1));
    // 902: e7e5 (52 → 36), sibling 903.
    bytes.extend(raw_entry(52, 36, 0, 5, 6, 2, 2, -1, 903));
    // 903: c7c5 (50 → 34), reply 904 (the "0 = none" form for its sibling).
    bytes.extend(raw_entry(50, 34, 0, 3, 4, 1, 1, 904, 0));
    // 904: g1f3 (6 → 21), hand-entered: no games.
    bytes.extend(raw_entry(6, 21, 0, 7, 0, 0, 0, -1, -1));
    bytes
}

/// An entry without statistics or links.
fn entry(from: u8, to: u8, promotion: i8) -> AbkEntry {
    AbkEntry {
        from,
        to,
        promotion,
        priority: 1,
        games: 0,
        won: 0,
        lost: 0,
        ply_count: 0,
        next_move: -1,
        next_sibling: -1,
    }
}

fn uci(board: &Board, moves: &[AbkMove]) -> Vec<String> {
    moves.iter().map(|m| board.move_to_uci(m.mv)).collect()
}

fn set(bytes: &mut [u8], index: usize, field: usize, value: &[u8]) {
    let at = index * ENTRY_LEN + field;
    bytes[at..at + value.len()].copy_from_slice(value);
}

/// The error of the golden book with `value` written into `field` of entry `index`.
fn rejected(index: usize, field: usize, value: &[u8]) -> AbkError {
    let mut bytes = golden();
    set(&mut bytes, index, field, value);
    AbkBook::parse(&bytes).unwrap_err()
}

#[test]
fn golden_book_parses_with_its_tree() {
    let book = AbkBook::parse(&golden()).unwrap();
    assert_eq!(book.len(), 5);
    assert_eq!(&book.header()[..4], SIGNATURE);
    let root = book.entry(900).unwrap();
    assert_eq!((root.from, root.to, root.games, root.won, root.lost), (12, 28, 10, 5, 3));
    assert_eq!((root.reply(), root.sibling()), (Some(902), Some(901)));
    assert_eq!((book.entry(903).unwrap().sibling(), book.entry(903).unwrap().next_sibling), (None, 0));
    assert!(book.entry(899).is_none() && book.entry(905).is_none());
    let chain: Vec<u32> = book.siblings(Some(902)).map(|(i, _)| i).collect();
    assert_eq!(chain, [902, 903]);
}

#[test]
fn golden_book_replays_into_positions_and_probes() {
    let book = AbkBook::parse(&golden()).unwrap();
    let (positions, report) = book.positions();
    assert_eq!(report, AbkReport { positions: 3, moves: 5, illegal_moves: 0, unreachable_entries: 0 });
    let start = Board::startpos();
    assert_eq!(uci(&start, &book.probe(&start)), ["e2e4", "d2d4"]);
    let mut after_e4 = start.clone();
    after_e4.make_move(after_e4.parse_uci("e2e4").unwrap());
    let replies = book.probe(&after_e4);
    assert_eq!(uci(&after_e4, &replies), ["e7e5", "c7c5"]);
    assert_eq!((replies[0].games, replies[0].won, replies[0].lost, replies[0].drawn()), (6, 2, 2, 2));
    assert_eq!(positions[0].board.fen(), start.fen());
}

#[test]
fn polyglot_weights_follow_make_book_and_priority() {
    let book = AbkBook::parse(&golden()).unwrap();
    let (positions, _) = book.positions();
    let entries = to_polyglot(&positions);
    assert_eq!(entries.len(), 5);
    let pg = PolyglotBook::from_bytes(polyglot::encode(&entries)).unwrap();
    let start = Board::startpos();
    let w: Vec<(String, u16)> = pg.moves(&start).iter().map(|m| (start.move_to_uci(m.mv), m.weight)).collect();
    // e4: 2·5 + 2 drawn = 12; d4: 2·1 + 2 = 4.
    assert_eq!(w, [("e2e4".to_string(), 12), ("d2d4".to_string(), 4)]);
    let mut b = start.clone();
    for m in ["e2e4", "c7c5"] {
        b.make_move(b.parse_uci(m).unwrap());
    }
    // Nf3 has no games: its priority 7 is its weight.
    assert_eq!(pg.moves(&b).iter().map(|m| m.weight).collect::<Vec<_>>(), [7]);
}

#[test]
fn yacb_entries_hold_white_perf_and_the_heaviest_move() {
    let book = AbkBook::parse(&golden()).unwrap();
    let (positions, _) = book.positions();
    let entries = to_yacb(&positions);
    assert_eq!(entries.len(), 3);
    let start = Board::startpos();
    let e = entries.iter().find(|e| e.key == start.key()).unwrap();
    // 14 games, white scored 2·6 + 4 drawn = 16 of 28 half-points.
    assert_eq!((e.value_type, e.value, e.source), (ValueType::Perf, 22_857, Source::Statistical));
    assert_eq!(start.move_to_uci(e.best_move), "e2e4");
    let mut b = start.clone();
    b.make_move(b.parse_uci("e2e4").unwrap());
    let e = entries.iter().find(|e| e.key == b.key()).unwrap();
    // Black moves here: black scored 2·3 + 4 = 10 of 20, so white 50%.
    assert_eq!(e.value, 20_000);
    let path = std::env::temp_dir().join(format!("archivist-abk-{}.yacb", std::process::id()));
    crate::book::format::yacb::write(&path, &crate::book::format::yacb::KeyType::Engine, entries).unwrap();
    let y = YacbBook::open(&path).unwrap();
    y.verify().unwrap();
    assert_eq!(y.len(), 3);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn bytes_round_trip_and_tree_builder_matches_the_golden_book() {
    let bytes = golden();
    let book = AbkBook::parse(&bytes).unwrap();
    assert_eq!(book.to_bytes(), bytes);
    let node = |from, to, priority, games, won, lost, replies| AbkNode {
        entry: AbkEntry { priority, games, won, lost, ..entry(from, to, 0) },
        replies,
    };
    let built = AbkBook::from_tree(&[
        node(
            12,
            28,
            5,
            10,
            5,
            3,
            vec![node(52, 36, 5, 6, 2, 2, vec![]), node(50, 34, 3, 4, 1, 1, vec![node(6, 21, 7, 0, 0, 0, vec![])])],
        ),
        node(11, 27, 5, 4, 1, 1, vec![]),
    ]);
    let reparsed = AbkBook::parse(&built.to_bytes()).unwrap();
    assert_eq!(reparsed, built);
    assert_eq!(reparsed.positions().1, book.positions().1);
    assert_eq!(to_polyglot(&reparsed.positions().0), to_polyglot(&book.positions().0));
    let path = std::env::temp_dir().join(format!("archivist-abk-rt-{}.abk", std::process::id()));
    built.write(&path).unwrap();
    assert_eq!(AbkBook::open(&path).unwrap(), built);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn castling_is_the_kings_move_and_promotions_read_either_sign() {
    let e = entry;
    let castle = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
    let legal = castle.legal_moves();
    let m = polyglot::decode_move(&castle, &legal, e(4, 6, 0).polyglot_move()).unwrap();
    assert!(m.is_castling());
    let promo = Board::from_fen("8/P6k/8/8/8/8/p6K/8 w - - 0 1", false).unwrap();
    for (code, want) in [(1, "a7a8r"), (-2, "a7a8n"), (3, "a7a8b"), (-4, "a7a8q")] {
        let legal = promo.legal_moves();
        let m = polyglot::decode_move(&promo, &legal, e(48, 56, code).polyglot_move()).unwrap();
        assert_eq!(promo.move_to_uci(m), want);
    }
}

#[test]
fn an_illegal_move_drops_its_line_and_is_counted() {
    let mut bytes = golden();
    // 902 becomes e7e4 (52 → 28): illegal after 1. e4.
    set(&mut bytes, 902, 1, &[28]);
    let book = AbkBook::parse(&bytes).unwrap();
    let (positions, report) = book.positions();
    assert_eq!(report.illegal_moves, 1);
    assert_eq!(report.positions, 3);
    assert_eq!(positions.iter().map(|p| p.moves.len()).sum::<usize>(), 4);
}

#[test]
fn unlinked_entries_are_allowed_and_counted() {
    let mut bytes = golden();
    bytes.extend(raw_entry(1, 18, 0, 5, 0, 0, 0, -1, -1));
    let (_, report) = AbkBook::parse(&bytes).unwrap().positions();
    assert_eq!(report.unreachable_entries, 1);
}

#[test]
fn a_header_alone_is_an_empty_book() {
    let book = AbkBook::parse(&vec![0u8; HEADER_LEN]).unwrap();
    assert!(book.is_empty());
    assert_eq!(book.positions().1, AbkReport::default());
}

#[test]
fn rejects_a_file_shorter_than_the_header() {
    let err = AbkBook::parse(&[0u8; 100]).unwrap_err();
    assert!(matches!(err, AbkError::Truncated(Truncated { offset: 0, needed: 25_200, len: 100 })), "{err:?}");
    assert!(err.to_string().contains("offset 100"), "{err}");
}

#[test]
fn rejects_a_partial_entry() {
    let mut bytes = golden();
    bytes.extend_from_slice(&[0; 5]);
    let err = AbkBook::parse(&bytes).unwrap_err();
    assert!(matches!(err, AbkError::BadSize { extra: 5, offset, .. } if offset == 25_200 + 5 * 28), "{err:?}");
}

#[test]
fn rejects_a_square_above_63() {
    let err = rejected(901, 1, &[64]);
    assert!(matches!(err, AbkError::BadSquare { index: 901, offset: 25_229, value: 64 }), "{err:?}");
}

#[test]
fn rejects_a_move_from_a_square_to_itself() {
    let err = rejected(903, 1, &[50]);
    assert!(matches!(err, AbkError::NullMove { index: 903, offset: 25_284 }), "{err:?}");
}

#[test]
fn rejects_a_promotion_code_outside_minus_4_to_4() {
    let err = rejected(900, 2, &[5]);
    assert!(matches!(err, AbkError::BadPromotion { index: 900, offset: 25_202, value: 5 }), "{err:?}");
}

#[test]
fn rejects_negative_game_counts() {
    let err = rejected(901, 12, &(-1i32).to_le_bytes());
    assert!(matches!(err, AbkError::NegativeCount { index: 901, offset: 25_240, field: "lost", value: -1 }), "{err:?}");
}

#[test]
fn rejects_more_results_than_games() {
    let err = rejected(900, 8, &9i32.to_le_bytes());
    assert!(matches!(err, AbkError::ResultsAboveGames { index: 900, games: 10, won: 9, lost: 3, .. }), "{err:?}");
}

#[test]
fn rejects_a_link_outside_the_entries() {
    for link in [905i32, 899, -2, 1] {
        let mut bytes = golden();
        set(&mut bytes, 902, 24, &link.to_le_bytes());
        let err = AbkBook::parse(&bytes).unwrap_err();
        assert!(matches!(err, AbkError::BadLink { index: 902, offset: 25_280, end: 905, .. }), "{link}: {err:?}");
    }
}

#[test]
fn rejects_a_cycle_reached_from_the_root() {
    let mut bytes = golden();
    // 904's reply links back to 900.
    set(&mut bytes, 904, 20, &900i32.to_le_bytes());
    let err = AbkBook::parse(&bytes).unwrap_err();
    assert!(matches!(err, AbkError::ReachedTwice { index: 900, offset: 25_200 }), "{err:?}");
}

#[test]
fn opening_a_missing_file_is_an_io_error() {
    let err = AbkBook::open(Path::new("/nonexistent/book.abk")).unwrap_err();
    assert!(matches!(err, AbkError::Io(_)), "{err:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..400), short in 0usize..HEADER_LEN + 1) {
        prop_assert!(AbkBook::parse(&vec![7u8; short.min(HEADER_LEN - 1)]).is_err());
        let mut bytes = vec![0u8; HEADER_LEN];
        bytes.extend_from_slice(&tail);
        if let Ok(book) = AbkBook::parse(&bytes) {
            prop_assert_eq!(book.to_bytes(), bytes);
            let (positions, _) = book.positions();
            let _ = to_polyglot(&positions);
            let _ = to_yacb(&positions);
        }
    }

    #[test]
    fn random_entries_with_valid_fields_never_panic(raw in proptest::collection::vec((0u8..64, 0u8..64, -4i8..=4, 0i32..20, -1i32..912, -1i32..912), 1..12)) {
        let mut bytes = vec![0u8; HEADER_LEN];
        for &(from, to, promo, games, next, sib) in &raw {
            bytes.extend(raw_entry(from, to, promo, 5, games, games / 2, 0, next, sib));
        }
        if let Ok(book) = AbkBook::parse(&bytes) {
            let (positions, report) = book.positions();
            prop_assert!(report.unreachable_entries <= book.len());
            let _ = to_yacb(&positions);
        }
    }
}
