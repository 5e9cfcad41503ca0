use super::*;
use proptest::prelude::*;

/// One entry written field by field from the module's layout table.
fn raw(key: u64, mv: u32, value: i32, depth: i32, tail: [u8; 4]) -> Vec<u8> {
    let mut b = key.to_le_bytes().to_vec();
    b.extend_from_slice(&mv.to_le_bytes());
    b.extend_from_slice(&value.to_le_bytes());
    b.extend_from_slice(&depth.to_le_bytes());
    b.extend_from_slice(&tail);
    b
}

fn uci_raw(board: &Board, text: &str) -> u32 {
    board.parse_uci(text).unwrap().raw() as u32
}

fn after(moves: &[&str]) -> Board {
    let mut b = Board::startpos();
    for m in moves {
        b.make_move(b.parse_uci(m).unwrap());
    }
    b
}

/// Hand-written version-2 golden file: the start position with e2e4 (depth
/// 20, +40 for white, played 3 times) and d2d4 (depth 18); after 1. e4,
/// c7c5 (depth 22, −10 for black to move); and one key nothing reaches.
fn golden_v2() -> Vec<u8> {
    let start = Board::startpos();
    let e4 = after(&["e2e4"]);
    let mut bytes = b"SugaR Experience version 2".to_vec();
    bytes.extend(raw(start.key(), uci_raw(&start, "e2e4"), 83, 20, [3, 0, 0, 0]));
    bytes.extend(raw(start.key(), uci_raw(&start, "d2d4"), 200, 18, [1, 0, 0, 0]));
    bytes.extend(raw(e4.key(), uci_raw(&e4, "c7c5"), -21, 22, [2, 0, 0, 0]));
    bytes.extend(raw(0x1234_5678_9ABC_DEF0, uci_raw(&start, "g1f3"), 5, 9, [1, 0, 0, 0]));
    bytes
}

#[test]
fn golden_v2_file_parses() {
    let f = parse(&golden_v2()).unwrap();
    assert_eq!(f.version, ExpVersion::V2);
    assert_eq!(f.entries.len(), 4);
    let e = f.entries[0];
    assert_eq!((e.key, e.value, e.depth, e.count), (Board::startpos().key(), 83, 20, 3));
    assert_eq!(Board::startpos().move_to_uci(e.mv), "e2e4");
    assert_eq!(f.entries[2].value, -21);
}

#[test]
fn version_1_files_have_no_count_and_round_trip() {
    let start = Board::startpos();
    let mut bytes = b"SugaR".to_vec();
    bytes.extend(raw(start.key(), uci_raw(&start, "c2c4"), 12, 7, [0x00, 0xFF, 0x00, 0xFF]));
    let f = parse(&bytes).unwrap();
    assert_eq!(f.version, ExpVersion::V1);
    assert_eq!((f.entries[0].depth, f.entries[0].count), (7, 1));
    assert_eq!(encode(&f), bytes);
}

#[test]
fn version_2_files_round_trip_through_a_written_file() {
    let bytes = golden_v2();
    let f = parse(&bytes).unwrap();
    assert_eq!(encode(&f), bytes);
    let path = std::env::temp_dir().join(format!("archivist-exp-{}.exp", std::process::id()));
    write(&path, &f).unwrap();
    assert_eq!(open(&path).unwrap(), f);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn merge_adds_counts_keeps_the_deeper_value_and_averages_equal_depths() {
    let start = Board::startpos();
    let mv = start.parse_uci("e2e4").unwrap();
    let e = |value, depth, count| ExpEntry { key: 7, mv, value, depth, count };
    let a = ExpFile { version: ExpVersion::V2, entries: vec![e(10, 20, 2)] };
    let b = ExpFile { version: ExpVersion::V1, entries: vec![e(30, 20, 1), e(-5, 25, u16::MAX)] };
    let merged = merge(&[a.clone(), b]);
    assert_eq!(merged, [e(-5, 25, u16::MAX)]);
    let c = ExpFile { version: ExpVersion::V2, entries: vec![e(31, 20, 1)] };
    assert_eq!(merge(&[a, c]), [e(20, 20, 3)]);
}

#[test]
fn import_walks_from_the_root_and_turns_values_to_white_centipawns() {
    let merged = merge(&[parse(&golden_v2()).unwrap()]);
    let (entries, report) = to_yacb(&merged, &[Board::startpos()], DEFAULT_PAWN_VALUE);
    assert_eq!(report, ImportReport { positions: 2, unreached_entries: 1, illegal_moves: 0 });
    let start = Board::startpos();
    let root = entries.iter().find(|e| e.key == start.key()).unwrap();
    // e2e4 is deeper than d2d4: it is the best move; 83 · 100 / 208 = 39 cp.
    assert_eq!(start.move_to_uci(root.best_move), "e2e4");
    assert_eq!((root.value_type, root.value, root.source), (ValueType::Centipawns, 39, Source::Engine));
    assert_eq!(root.elo, Elo::rated(crate::book::format::elo::estimate_for_depth(20)));
    let e4 = after(&["e2e4"]);
    let reply = entries.iter().find(|e| e.key == e4.key()).unwrap();
    // −21 for black to move is +10 cp for white.
    assert_eq!(reply.value, 10);
    assert_eq!(e4.move_to_uci(reply.best_move), "c7c5");
}

#[test]
fn import_drops_moves_that_are_illegal_where_reached() {
    let start = Board::startpos();
    let mut bytes = b"SugaR Experience version 2".to_vec();
    // e2e5 is no legal move of the start position.
    bytes.extend(raw(start.key(), (12 << 6) | 36, 10, 12, [1, 0, 0, 0]));
    let (entries, report) = to_yacb(&parse(&bytes).unwrap().entries, &[start], DEFAULT_PAWN_VALUE);
    assert!(entries.is_empty());
    assert_eq!(report.illegal_moves, 1);
}

#[test]
fn mate_range_values_become_known_wins() {
    assert_eq!(yacb_value(31_990, Color::Black, 208), (ValueType::KnownWin, -15_379));
    assert_eq!(yacb_value(-208, Color::White, 208), (ValueType::Centipawns, -100));
}

#[test]
fn rejects_a_file_without_a_signature() {
    assert!(matches!(parse(b"Sugar"), Err(ExpError::BadSignature)));
    assert!(matches!(parse(b""), Err(ExpError::BadSignature)));
    // ShashChess's headerless layout starts with a key, not a signature.
    assert!(matches!(parse(&[0u8; 48]), Err(ExpError::BadSignature)));
}

#[test]
fn rejects_a_partial_entry() {
    let mut bytes = golden_v2();
    bytes.truncate(bytes.len() - 3);
    let err = parse(&bytes).unwrap_err();
    assert!(matches!(err, ExpError::BadSize { extra: 21, offset: 98, .. }), "{err:?}");
    assert!(err.to_string().contains("offset 98"), "{err}");
}

#[test]
fn rejects_a_move_field_that_is_no_move() {
    for mv in [0u32, 0x1_0000 | 796, (12 << 6) | 12] {
        let mut bytes = b"SugaR".to_vec();
        bytes.extend(raw(1, mv, 0, 1, [0; 4]));
        let err = parse(&bytes).unwrap_err();
        assert!(matches!(err, ExpError::BadMove { index: 0, offset: 13, .. }), "{mv:#x}: {err:?}");
    }
}

#[test]
fn rejects_a_value_beyond_infinite() {
    let mut bytes = golden_v2();
    bytes.extend(raw(1, 796, -40_000, 1, [1, 0, 0, 0]));
    let err = parse(&bytes).unwrap_err();
    assert!(matches!(err, ExpError::BadValue { index: 4, offset: 134, value: -40_000 }), "{err:?}");
}

#[test]
fn rejects_a_negative_or_huge_depth() {
    for depth in [-1, 256] {
        let mut bytes = b"SugaR".to_vec();
        bytes.extend(raw(1, 796, 0, depth, [0; 4]));
        let err = parse(&bytes).unwrap_err();
        assert!(matches!(err, ExpError::BadDepth { index: 0, offset: 21, .. }), "{err:?}");
    }
}

#[test]
fn rejects_non_zero_padding_in_version_2() {
    let mut bytes = b"SugaR Experience version 2".to_vec();
    bytes.extend(raw(1, 796, 0, 3, [1, 0, 0, 9]));
    let err = parse(&bytes).unwrap_err();
    assert!(matches!(err, ExpError::NonZeroPadding { index: 0, offset: 48, value: 0x0900 }), "{err:?}");
}

#[test]
fn opening_a_missing_file_is_an_io_error() {
    assert!(matches!(open(Path::new("/nonexistent/x.exp")), Err(ExpError::Io(_))));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(v2 in any::<bool>(), tail in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = parse(&tail);
        let mut bytes = if v2 { SIGNATURE_V2.to_vec() } else { SIGNATURE_V1.to_vec() };
        bytes.extend_from_slice(&tail);
        if let Ok(f) = parse(&bytes) {
            prop_assert_eq!(&encode(&f)[..f.version.signature().len()], f.version.signature());
            let merged = merge(&[f]);
            let _ = to_yacb(&merged, &[Board::startpos()], DEFAULT_PAWN_VALUE);
        }
    }
}
