//! Polyglot tests: layout, one rejection per error, castling, selection as
//! python-chess, the python-chess cross-check vectors, random bytes.

use super::*;
use proptest::prelude::*;
use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

/// A shared test file, or `None` when it is not available (the test skips).
fn shared(path: &str) -> Option<PathBuf> {
    crate::testdata::path(path)
}

const GNUCHESS_BOOK: &str = "/usr/share/games/gnuchess/book.bin";

fn e(key: u64, raw_move: u16, weight: u16) -> PolyglotEntry {
    PolyglotEntry { key, raw_move, weight, learn: 0 }
}

fn board(fen: &str) -> Board {
    Board::from_fen(fen, false).unwrap()
}

fn uci_list(board: &Board, moves: &[PolyglotMove]) -> Vec<String> {
    moves.iter().map(|m| board.move_to_uci(m.mv)).collect()
}

#[test]
fn entry_bytes_are_big_endian_and_round_trip() {
    let entry = PolyglotEntry { key: 0x0102_0304_0506_0708, raw_move: 0x090A, weight: 0x0B0C, learn: 0x0D0E_0F10 };
    let bytes = entry.to_bytes();
    assert_eq!(bytes, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
    assert_eq!(PolyglotEntry::from_bytes(&bytes), entry);
}

#[test]
fn encode_sorts_by_key_then_heaviest_first_keeping_ties_in_order() {
    let entries = [e(9, 1, 5), e(3, 2, 1), e(9, 3, 7), e(3, 4, 1), e(9, 5, 5)];
    let book = PolyglotBook::from_bytes(encode(&entries)).unwrap();
    let order: Vec<(u64, u16)> = book.iter().map(|x| (x.key, x.raw_move)).collect();
    assert_eq!(order, vec![(3, 2), (3, 4), (9, 3), (9, 1), (9, 5)]);
    assert_eq!(book.range(9), 2..5);
    assert_eq!(book.range(4), 2..2);
    assert_eq!(book.entries(3).count(), 2);
    assert!(!book.contains_key(0) && book.contains_key(3));
}

#[test]
fn write_book_then_open_round_trips() {
    let path = std::env::temp_dir().join(format!("archivist-pg-roundtrip-{}.bin", std::process::id()));
    let entries: Vec<PolyglotEntry> = (0..100u64).map(|i| e(i * 7919 % 101, (i % 4096) as u16, i as u16)).collect();
    write_book(&path, &entries).unwrap();
    let book = PolyglotBook::open(&path).unwrap();
    assert_eq!(book.len(), 100);
    let mut expected = entries.clone();
    sort_entries(&mut expected);
    assert_eq!(book.iter().collect::<Vec<_>>(), expected);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn rejects_a_size_that_is_not_a_multiple_of_16() {
    let mut bytes = encode(&[e(1, 1, 1)]);
    bytes.push(0);
    let err = PolyglotBook::from_bytes(bytes).unwrap_err();
    assert!(matches!(err, PolyglotError::BadSize { len: 17, extra: 1, offset: 16 }), "{err}");
}

#[test]
fn rejects_unsorted_keys_naming_the_entry() {
    let mut bytes = Vec::new();
    for x in [e(1, 1, 1), e(5, 1, 1), e(4, 1, 1)] {
        bytes.extend_from_slice(&x.to_bytes());
    }
    let err = PolyglotBook::from_bytes(bytes).unwrap_err();
    assert!(matches!(err, PolyglotError::UnsortedKeys { index: 2, offset: 32, key: 4, previous: 5 }), "{err}");
}

#[test]
fn rejects_an_invalid_move_field() {
    for raw in [0x8000u16, 5 << 12, 7 << 12 | 0x123] {
        let err = PolyglotBook::from_bytes(e(1, raw, 1).to_bytes().to_vec()).unwrap_err();
        assert!(matches!(err, PolyglotError::BadMove { index: 0, raw: r, .. } if r == raw), "{err}");
    }
    let path = std::env::temp_dir().join("archivist-never-written.bin");
    assert!(matches!(write_book(&path, &[e(1, 0x8000, 1)]), Err(PolyglotError::BadMove { .. })));
    assert!(!path.exists());
}

#[test]
fn opening_a_missing_file_is_an_io_error_with_the_path() {
    let err = PolyglotBook::open(Path::new("/nonexistent/book.bin")).unwrap_err();
    assert!(matches!(&err, PolyglotError::Io(e) if e.path.ends_with("book.bin")), "{err}");
}

#[test]
fn empty_book_opens_and_has_no_moves() {
    let path = std::env::temp_dir().join(format!("archivist-pg-empty-{}.bin", std::process::id()));
    std::fs::write(&path, b"").unwrap();
    let book = PolyglotBook::open(&path).unwrap();
    assert!(book.is_empty() && book.moves(&Board::startpos()).is_empty());
    std::fs::remove_file(&path).unwrap();
}

/// Golden file: python-chess reads lasker-trap.bin as one black move per
/// position along the Lasker Trap, weight 2, learn 0.
#[test]
fn lasker_trap_golden_book_reads_as_python_chess_reads_it() {
    let book = PolyglotBook::open(&shared("books/lasker-trap.bin").unwrap()).unwrap();
    assert_eq!(book.len(), 7);
    let mut b = Board::startpos();
    let line = "d4 d5 c4 e5 dxe5 d4 e3 Bb4+ Bd2 dxe3 Bxb4 exf2+ Ke2 fxg1=N+";
    let expected = ["", "d7d5", "", "e7e5", "", "d5d4", "", "f8b4", "", "d4e3", "", "e3f2", "", "f2g1n"];
    for (san, want) in line.split(' ').zip(expected) {
        let moves = book.moves(&b);
        assert_eq!(uci_list(&b, &moves).join(" "), want, "before {san}");
        assert!(moves.iter().all(|m| m.weight == 2 && m.learn == 0));
        let m = b.parse_san(san).unwrap();
        b.make_move(m);
    }
}

#[test]
fn castling_e1h1_is_the_engines_castling_move_and_e1g1_is_accepted() {
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let key = polyglot_key(&b);
    let e1h1 = 4 << 6 | 7;
    let e1g1 = 4 << 6 | 6;
    let e1a1 = 4 << 6;
    let book = PolyglotBook::from_bytes(encode(&[e(key, e1h1, 3), e(key, e1g1, 2), e(key, e1a1, 1)])).unwrap();
    let moves = book.moves(&b);
    assert_eq!(moves.len(), 3);
    assert!(moves.iter().all(|m| m.mv.is_castling()));
    assert_eq!(uci_list(&b, &moves), vec!["e1g1", "e1g1", "e1c1"]);
    assert_eq!(entry_for(&b, moves[0].mv, 1, 0).raw_move, e1h1);
}

#[test]
fn chess960_castling_is_king_takes_rook_and_keys_hash_rights_by_side() {
    // King b1, rooks a1 and h1 (and on the eighth rank): rights for both wings.
    let b = Board::from_fen("rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1", true).unwrap();
    let standard = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
    let rights = |b: &Board| {
        polyglot_key(b)
            ^ polyglot_key(
                &Board::from_fen(&b.fen().replace("HAha", "-").replace("KQkq", "-"), b.is_chess960()).unwrap(),
            )
    };
    assert_eq!(rights(&b), rights(&standard), "castle part = RandomCastle[0..4] by side, as xboard and python-chess");
    let key = polyglot_key(&b);
    let b1h1 = 1 << 6 | 7;
    let b1a1 = 1 << 6;
    let book = PolyglotBook::from_bytes(encode(&[e(key, b1h1, 2), e(key, b1a1, 1)])).unwrap();
    let moves = book.moves(&b);
    assert_eq!(uci_list(&b, &moves), vec!["b1h1", "b1a1"]);
    assert!(moves.iter().all(|m| m.mv.is_castling()));
}

#[test]
fn illegal_and_drop_moves_are_skipped_not_played() {
    let b = Board::startpos();
    let key = polyglot_key(&b);
    let e2e5 = 1 << 9 | 4 << 6 | 4 << 3 | 4; // not legal
    let drop = 3 << 12 | 28 << 6 | 28; // from = to
    let e2e4 = 1 << 9 | 4 << 6 | 3 << 3 | 4;
    let book = PolyglotBook::from_bytes(encode(&[e(key, e2e5, 9), e(key, drop, 8), e(key, e2e4, 1)])).unwrap();
    assert_eq!(uci_list(&b, &book.moves(&b)), vec!["e2e4"]);
}

/// engine-tests/data/polyglot_vectors.txt.gz, made by gen_polyglot_vectors.py
/// with python-chess: `book;fen;key;uci/weight/learn ...` per position.
#[test]
fn every_vector_position_reads_exactly_as_python_chess_reads_it() {
    let path = format!("{}/engine-tests/data/polyglot_vectors.txt.gz", env!("CARGO_MANIFEST_DIR"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&path).unwrap()).read_to_string(&mut text).unwrap();
    // A book that is not available here (performance.bin without ../shared,
    // gnuchess's without Debian's package) has its lines skipped.
    let mut books: HashMap<String, Option<PolyglotBook>> = HashMap::new();
    let mut per_book: HashMap<String, (usize, usize)> = HashMap::new();
    for line in text.lines() {
        let mut fields = line.split(';');
        let (Some(name), Some(fen), Some(key), Some(moves)) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            panic!("bad vector line {line}")
        };
        let book = books.entry(name.to_string()).or_insert_with(|| {
            let path = if name == "book.bin" {
                crate::testdata::system_file(GNUCHESS_BOOK)
            } else {
                shared(&format!("books/{name}"))
            };
            path.map(|p| PolyglotBook::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        });
        let Some(book) = book.as_ref() else { continue };
        let b = board(fen);
        assert_eq!(format!("{:016x}", polyglot_key(&b)), key, "{fen}");
        let ours: Vec<String> =
            book.moves(&b).iter().map(|m| format!("{}/{}/{}", b.move_to_uci(m.mv), m.weight, m.learn)).collect();
        assert_eq!(ours.join(" "), moves, "{name}: {fen}");
        let count = per_book.entry(name.to_string()).or_default();
        count.0 += 1;
        count.1 += ours.len();
    }
    let positions: usize = per_book.values().map(|c| c.0).sum();
    let all_books = books.values().all(Option::is_some);
    assert!(positions >= 10_000 || !all_books, "{per_book:?}");
    for name in ["lasker-trap.bin", "performance.bin", "book.bin"] {
        let available = books.get(name).is_some_and(Option::is_some);
        assert!(!available || per_book.get(name).is_some_and(|c| c.1 > 0), "{name}: {per_book:?}");
    }
    assert!(books.get("lasker-trap.bin").is_some_and(Option::is_some), "the committed book is always read");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(book) = PolyglotBook::from_bytes(bytes.clone()) {
            prop_assert_eq!(book.len() * ENTRY_LEN, bytes.len());
            let start = Board::startpos();
            let _ = book.moves(&start);
            let _ = crate::book::tools::convert::polyglot_to_sbob(&book, &[start]);
        }
    }

    #[test]
    fn sorted_random_entries_round_trip(raw in proptest::collection::vec((any::<u64>(), 0u16..0x5000, any::<u16>(), any::<u32>()), 0..64)) {
        let entries: Vec<PolyglotEntry> =
            raw.iter().map(|&(key, raw_move, weight, learn)| PolyglotEntry { key, raw_move, weight, learn }).collect();
        let book = PolyglotBook::from_bytes(encode(&entries)).unwrap();
        let mut expected = entries.clone();
        sort_entries(&mut expected);
        prop_assert_eq!(book.iter().collect::<Vec<_>>(), expected);
    }
}
