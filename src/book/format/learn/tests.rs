use super::*;
use proptest::prelude::*;

/// Hand-written side file: key 5 (3 games, 4 half-points), key 9 (1, 0).
fn golden() -> Vec<u8> {
    let mut b = b"YACL".to_vec();
    b.resize(16, 0);
    for (k, g, p) in [(5u64, 3u32, 4u32), (9, 1, 0)] {
        b.extend_from_slice(&k.to_le_bytes());
        b.extend_from_slice(&g.to_le_bytes());
        b.extend_from_slice(&p.to_le_bytes());
    }
    b
}

/// A book path in a scratch directory (removed with the directory).
fn temp_book(name: &str) -> (crate::testdata::TempDir, PathBuf) {
    let dir = crate::testdata::TempDir::new(&format!("learn-{name}"));
    let book = dir.file("book.yacb");
    (dir, book)
}

#[test]
fn golden_side_file_parses_and_round_trips() {
    let t = LearnTable::parse(&golden()).unwrap();
    assert_eq!(t.entries.len(), 2);
    assert_eq!(t.entries[&5], Learned1 { games: 3, white_points: 4 });
    assert_eq!(t.encode(), golden());
}

#[test]
fn add_counts_games_and_caps_points() {
    let mut t = LearnTable::default();
    t.add(7, 2);
    t.add(7, 1);
    t.add(7, 9);
    assert_eq!(t.entries[&7], Learned1 { games: 3, white_points: 5 });
}

#[test]
fn record_merges_into_the_side_file_and_leaves_the_book_alone() {
    let (_dir, book) = temp_book("record");
    std::fs::write(&book, b"not touched").unwrap();
    record(&book, &[(3, 2), (1, 1)]).unwrap();
    let t = record(&book, &[(3, 0)]).unwrap();
    assert_eq!(t.entries[&3], Learned1 { games: 2, white_points: 2 });
    assert_eq!(LearnTable::load(&side_path(&book)).unwrap(), t);
    assert_eq!(std::fs::read(&book).unwrap(), b"not touched");
    assert_eq!(side_path(&book).file_name().unwrap(), "book.yacb.learn");
}

#[test]
fn record_refuses_to_overwrite_a_damaged_side_file() {
    let (_dir, book) = temp_book("damaged");
    std::fs::write(side_path(&book), b"YACL\x07").unwrap();
    assert!(matches!(record(&book, &[(1, 1)]), Err(LearnError::Truncated(t)) if t.len == 5 && t.needed == 16));
    assert_eq!(std::fs::read(side_path(&book)).unwrap(), b"YACL\x07");
}

#[test]
fn a_missing_side_file_is_an_empty_table() {
    let (_dir, book) = temp_book("missing");
    assert_eq!(LearnTable::load(&side_path(&book)).unwrap(), LearnTable::default());
}

#[test]
fn rejects_a_short_header() {
    assert!(matches!(LearnTable::parse(b"YACL"), Err(LearnError::Truncated(t)) if t.len == 4 && t.offset == 0));
}

#[test]
fn rejects_a_bad_magic() {
    let mut b = golden();
    b[0] = b'X';
    assert!(matches!(LearnTable::parse(&b), Err(LearnError::BadMagic)));
}

#[test]
fn rejects_an_unknown_version() {
    let mut b = golden();
    b[4] = 1;
    assert!(matches!(LearnTable::parse(&b), Err(LearnError::UnsupportedVersion { version: 1 })));
}

#[test]
fn rejects_non_zero_reserved_bytes() {
    let mut b = golden();
    b[9] = 4;
    assert!(matches!(LearnTable::parse(&b), Err(LearnError::NonZeroReserved { offset: 9, value: 4 })));
}

#[test]
fn rejects_a_partial_entry() {
    let mut b = golden();
    b.push(0);
    assert!(matches!(LearnTable::parse(&b), Err(LearnError::BadSize { extra: 1, offset: 48, .. })));
}

#[test]
fn rejects_unsorted_keys() {
    let mut b = golden();
    b[32..40].copy_from_slice(&5u64.to_le_bytes());
    assert!(matches!(LearnTable::parse(&b), Err(LearnError::UnsortedKeys { index: 1, offset: 32 })));
}

#[test]
fn rejects_impossible_counts() {
    let mut b = golden();
    b[28..32].copy_from_slice(&7u32.to_le_bytes());
    let err = LearnTable::parse(&b).unwrap_err();
    assert!(matches!(err, LearnError::BadCounts { index: 0, offset: 16, games: 3, points: 7 }), "{err:?}");
}

#[test]
fn reading_a_directory_is_an_io_error() {
    assert!(matches!(LearnTable::load(&std::env::temp_dir()), Err(LearnError::Io(_))));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..120), header in any::<bool>()) {
        let mut bytes = if header { golden()[..16].to_vec() } else { Vec::new() };
        bytes.extend_from_slice(&tail);
        if let Ok(t) = LearnTable::parse(&bytes) {
            prop_assert_eq!(t.encode(), bytes);
        }
    }
}
