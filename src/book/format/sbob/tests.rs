//! SBOB tests: FNV-1a, canonical layout, hash-table lookup, one rejection
//! per error, the chess mapping, piece names, random and mutated files.

use super::*;
use proptest::prelude::*;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

fn mv(from: u16, to: u16, piece_type: u8, weight: u32) -> SbobMove {
    SbobMove { from, to, piece_type, is_drop: false, is_promotion: 0, weight, evaluation: -7 }
}

/// Two chess positions: 1.e4 / 1.d4 from the start, 1...e5 after 1.e4.
fn small_book() -> SbobBook {
    SbobBook {
        positions: vec![
            SbobPosition {
                fen: START.into(),
                moves: vec![mv(square_field(1, 4), square_field(3, 4), 1, 850), mv(0x0103, 0x0303, 1, 120)],
            },
            SbobPosition { fen: AFTER_E4.into(), moves: vec![mv(square_field(6, 4), square_field(4, 4), 1, 30)] },
        ],
    }
}

/// Table of the small book: 4 slots (88 bytes with the header), then entries.
const TABLE_END: usize = HEADER_LEN + 4 * SLOT_LEN;

fn small_bytes() -> Vec<u8> {
    encode(&small_book()).unwrap()
}

fn occupied_slots(bytes: &[u8]) -> Vec<usize> {
    (0..4).filter(|&i| slot(bytes, i) != (0, 0)).collect()
}

fn put_u64(bytes: &mut [u8], at: usize, v: u64) {
    bytes[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn put_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn fnv1a_hashes_the_first_four_fields_joined_by_single_spaces() {
    assert_eq!(position_hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(position_hash("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(position_hash("foobar"), 0x8594_4171_f739_67e8);
    let key = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
    assert_eq!(position_hash(START), position_hash(key));
    assert_eq!(position_hash("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR  w KQkq  - 7 9"), position_hash(key));
    assert_eq!(position_key(START), key);
}

#[test]
fn table_size_is_the_power_of_two_at_least_twice_the_count() {
    let sizes: Vec<usize> = [0, 1, 2, 3, 4, 5, 1000].iter().map(|&n| table_size(n)).collect();
    assert_eq!(sizes, vec![1, 2, 4, 8, 8, 16, 2048]);
}

#[test]
fn canonical_files_round_trip_byte_for_byte() {
    let bytes = small_bytes();
    assert_eq!(&bytes[0..4], b"SBOB");
    assert_eq!(bytes.len(), TABLE_END + (8 + START.len() + 32) + (8 + AFTER_E4.len() + 16));
    let book = parse(&bytes).unwrap();
    assert_eq!(book, small_book());
    assert_eq!(encode(&book).unwrap(), bytes);
}

#[test]
fn write_then_read_round_trips() {
    let path = std::env::temp_dir().join(format!("archivist-sbob-{}.sbob", std::process::id()));
    write(&path, &small_book()).unwrap();
    assert_eq!(read(&path).unwrap(), small_book());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn lookup_goes_through_the_hash_table_and_ignores_move_counters() {
    let file = SbobFile::from_bytes(small_bytes()).unwrap();
    assert_eq!(file.book().positions.len(), 2);
    let found = file.lookup("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 3 17").unwrap();
    assert_eq!(found.fen, AFTER_E4);
    assert_eq!(found.moves[0].weight, 30);
    assert!(file.lookup("8/8/8/8/8/8/8/K6k w - - 0 1").is_none());
}

#[test]
fn lookup_in_a_full_table_terminates() {
    // One position, table size 1 (= count): every probe sequence wraps.
    let book = SbobBook { positions: vec![SbobPosition { fen: START.into(), moves: vec![] }] };
    let mut bytes = encode(&book).unwrap();
    // Re-lay it with a one-slot table: header 24, slot 16, entry at 40.
    let entry = bytes[HEADER_LEN + 2 * SLOT_LEN..].to_vec();
    bytes.truncate(HEADER_LEN + SLOT_LEN);
    put_u64(&mut bytes, 16, 1);
    put_u64(&mut bytes, HEADER_LEN, position_hash(START));
    put_u64(&mut bytes, HEADER_LEN + 8, (HEADER_LEN + SLOT_LEN) as u64);
    bytes.extend_from_slice(&entry);
    let file = SbobFile::from_bytes(bytes).unwrap();
    assert!(file.lookup(START).is_some());
    assert!(file.lookup(AFTER_E4).is_none());
}

#[test]
fn rejects_truncated_header_bad_magic_and_version() {
    assert!(matches!(parse(b"SBOB"), Err(SbobError::Truncated(Truncated { offset: 0, needed: 24, len: 4 }))));
    let mut bytes = small_bytes();
    bytes[0] = b'X';
    assert!(matches!(parse(&bytes), Err(SbobError::BadMagic)));
    let mut bytes = small_bytes();
    put_u32(&mut bytes, 4, 2);
    assert!(matches!(parse(&bytes), Err(SbobError::UnsupportedVersion { version: 2 })));
}

#[test]
fn rejects_a_table_size_that_is_not_a_power_of_two_or_below_the_count() {
    let mut bytes = small_bytes();
    put_u64(&mut bytes, 16, 3);
    assert!(matches!(parse(&bytes), Err(SbobError::BadTableSize { size: 3, count: 2 })));
    let mut bytes = small_bytes();
    put_u64(&mut bytes, 8, 5);
    assert!(matches!(parse(&bytes), Err(SbobError::BadTableSize { size: 4, count: 5 })));
    let mut bytes = small_bytes();
    put_u64(&mut bytes, 16, 1 << 62);
    assert!(matches!(parse(&bytes), Err(SbobError::Truncated(_))));
}

#[test]
fn rejects_a_count_that_differs_from_the_occupied_slots() {
    let mut bytes = small_bytes();
    put_u64(&mut bytes, 8, 1);
    assert!(matches!(parse(&bytes), Err(SbobError::CountMismatch { count: 1, found: 2 })));
}

#[test]
fn rejects_bad_slots_and_offsets() {
    let slots = occupied_slots(&small_bytes());
    let at = HEADER_LEN + slots[0] * SLOT_LEN;
    let mut bytes = small_bytes();
    put_u64(&mut bytes, at + 8, 0);
    assert!(matches!(parse(&bytes), Err(SbobError::BadSlot { .. })));
    let mut bytes = small_bytes();
    put_u64(&mut bytes, at + 8, 30);
    assert!(matches!(parse(&bytes), Err(SbobError::OffsetOutOfRange { offset: 30, .. })));
    let mut bytes = small_bytes();
    let len = bytes.len() as u64;
    put_u64(&mut bytes, at + 8, len);
    assert!(matches!(parse(&bytes), Err(SbobError::OffsetOutOfRange { .. })));
}

#[test]
fn rejects_truncated_entries_and_fens_beyond_the_file() {
    let bytes = small_bytes();
    let mut cut = bytes.clone();
    cut.truncate(bytes.len() - 1);
    assert!(matches!(parse(&cut), Err(SbobError::Truncated(t)) if t.len == cut.len() as u64 && t.needed > 1));
    let mut long = bytes.clone();
    put_u32(&mut long, TABLE_END, 1 << 30);
    assert!(
        matches!(parse(&long), Err(SbobError::FenBeyondFile { offset, length }) if offset == TABLE_END as u64 && length == 1 << 30)
    );
    let mut bad = bytes.clone();
    bad[TABLE_END + 4] = 0xFF;
    assert!(matches!(parse(&bad), Err(SbobError::BadFen { .. })));
}

#[test]
fn rejects_hash_mismatch_and_slots_not_reachable_by_probing() {
    let bytes = small_bytes();
    let at = HEADER_LEN + occupied_slots(&bytes)[0] * SLOT_LEN;
    let mut bad = bytes.clone();
    bad[at] ^= 1;
    assert!(matches!(parse(&bad), Err(SbobError::HashMismatch { .. })));
    // One position, two slots: swapping them puts the record after its empty home.
    let one = SbobBook { positions: vec![SbobPosition { fen: START.into(), moves: vec![] }] };
    let mut swapped = encode(&one).unwrap();
    let (a, b) = swapped[HEADER_LEN..HEADER_LEN + 2 * SLOT_LEN].split_at_mut(SLOT_LEN);
    a.swap_with_slice(b);
    assert!(matches!(parse(&swapped), Err(SbobError::MisplacedSlot { .. })), "{:?}", parse(&swapped));
}

/// Rebuilds the hash table of a two-position file over its entries, as the writer would.
fn relay_table(bytes: &mut [u8], entries: &[usize]) {
    bytes[HEADER_LEN..TABLE_END].fill(0);
    for &offset in entries {
        let (p, _) = decode_entry(bytes, offset).unwrap();
        let hash = position_hash(&p.fen);
        let mut i = (hash & 3) as usize;
        while slot(bytes, i) != (0, 0) {
            i = (i + 1) % 4;
        }
        put_u64(bytes, HEADER_LEN + i * SLOT_LEN, hash);
        put_u64(bytes, HEADER_LEN + i * SLOT_LEN + 8, offset as u64);
    }
}

#[test]
fn rejects_overlapping_entries() {
    // The second entry's first 16 bytes (FEN length + FEN) read as a valid
    // move when the first entry claims one move more than it has.
    let fen = "x\u{1}xxxxxxxxx\u{0}xxxx w - -";
    let mut book = small_book();
    book.positions[1].fen = fen.into();
    let mut bytes = encode(&book).unwrap();
    let count_at = TABLE_END + 4 + START.len();
    put_u32(&mut bytes, count_at, 3);
    let second = count_at + 4 + 32;
    assert!(matches!(parse(&bytes), Err(SbobError::OverlappingEntries { offset }) if offset == second as u64));
}

#[test]
fn rejects_the_same_position_twice() {
    let mut twice = small_book();
    twice.positions[1].fen = START.replace(" 0 1", " 4 9");
    assert!(matches!(encode(&twice), Err(SbobError::DuplicateFen { index: 1, .. })));
    // Same first four fields, different counters, past the writer's check:
    // write a placeholder of the same length, then patch it and re-lay the table.
    let first = START.replace(" 0 1", " 8 8");
    let dup = START.replace(" 0 1", " 7 7");
    let placeholder = dup.replace('w', "b");
    let book = SbobBook {
        positions: vec![SbobPosition { fen: first, moves: vec![] }, SbobPosition { fen: placeholder, moves: vec![] }],
    };
    let mut bytes = encode(&book).unwrap();
    let second = TABLE_END + 8 + START.len();
    bytes[second + 4..second + 4 + dup.len()].copy_from_slice(dup.as_bytes());
    relay_table(&mut bytes, &[TABLE_END, second]);
    let err = parse(&bytes).unwrap_err();
    assert!(matches!(err, SbobError::DuplicatePosition { offset, .. } if offset == second as u64), "{err}");
}

#[test]
fn rejects_a_non_zero_reserved_byte_and_a_bad_drop_flag() {
    let first_move = TABLE_END + 4 + START.len() + 4;
    let mut bytes = small_bytes();
    bytes[first_move + 15] = 1;
    assert!(
        matches!(parse(&bytes), Err(SbobError::NonZeroReserved { offset, value: 1 }) if offset == (first_move + 15) as u64)
    );
    let mut bytes = small_bytes();
    bytes[first_move + 5] = 2;
    assert!(matches!(parse(&bytes), Err(SbobError::BadFlag { value: 2, .. })));
}

#[test]
fn opening_a_missing_file_is_an_io_error() {
    assert!(matches!(read(Path::new("/nonexistent/x.sbob")), Err(SbobError::Io(_))));
}

#[test]
fn chess_moves_map_rank_to_row_and_file_to_col() {
    let b = Board::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
    let legal = b.legal_moves();
    let castle = b.parse_uci("e1g1").unwrap();
    let rec = from_chess_move(&b, castle, 5, 12);
    assert_eq!((rec.from, rec.to, rec.piece_type), (square_field(0, 4), square_field(0, 7), 6));
    assert_eq!(to_chess_move(&b, &legal, &rec), Some(castle));
    let king_to_g1 = SbobMove { to: square_field(0, 6), ..rec };
    assert_eq!(to_chess_move(&b, &legal, &king_to_g1), Some(castle), "e1g1 is castling in standard chess");
    let promo = b.parse_uci("b7a8n").unwrap();
    let rec = from_chess_move(&b, promo, 1, 0);
    assert_eq!((rec.from, rec.to, rec.piece_type, rec.is_promotion), (0x0601, 0x0700, 1, 2));
    assert_eq!(to_chess_move(&b, &legal, &rec), Some(promo));
    assert_eq!(to_chess_move(&b, &legal, &SbobMove { piece_type: 5, ..rec }), None, "wrong piece");
    assert_eq!(to_chess_move(&b, &legal, &SbobMove { is_promotion: 1, ..rec }), None);
    assert_eq!(to_chess_move(&b, &legal, &SbobMove { from: DROP_FROM, is_drop: true, ..rec }), None);
}

#[test]
fn piece_names_follow_the_game_of_the_fen() {
    assert_eq!(game_kind(START), GameKind::Chess);
    assert_eq!(game_kind("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"), GameKind::Shogi);
    assert_eq!(game_kind("xyz"), GameKind::Other);
    assert_eq!(piece_name(GameKind::Chess, 4), Some("Rook"));
    assert_eq!(piece_name(GameKind::Shogi, 6), Some("Rook"), "the seed's example: shogi piece_type 6 = Rook");
    assert_eq!(piece_name(GameKind::Chess, 7), None);
    assert_eq!(piece_name(GameKind::Chess, 0), None);
    for game in [GameKind::Chess, GameKind::Shogi] {
        for n in 1..=14u8 {
            if let Some(name) = piece_name(game, n) {
                assert_eq!(piece_number(game, name), Some(n));
            }
        }
    }
}

/// Any move record (also used by the JSON tests).
pub(crate) fn arb_move() -> impl Strategy<Value = SbobMove> {
    (any::<u16>(), any::<u16>(), any::<u8>(), any::<bool>(), any::<u8>(), any::<u32>(), any::<i32>()).prop_map(
        |(from, to, piece_type, is_drop, is_promotion, weight, evaluation)| SbobMove {
            from,
            to,
            piece_type,
            is_drop,
            is_promotion,
            weight,
            evaluation,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..300), size in 0u64..8, count in 0u64..8) {
        // A plausible header makes the parser go deeper than the magic check.
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&count.to_le_bytes());
        bytes.extend_from_slice(&size.to_le_bytes());
        bytes.extend_from_slice(&tail);
        let _ = parse(&bytes);
        let _ = parse(&tail);
        if let Ok(file) = SbobFile::from_bytes(bytes) {
            let _ = file.lookup(START);
        }
    }

    #[test]
    fn mutated_files_never_panic(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let mut bytes = small_bytes();
        let n = bytes.len();
        for (at, v) in flips {
            bytes[at % n] = v;
        }
        if let Ok(file) = SbobFile::from_bytes(bytes) {
            let _ = file.lookup(START);
        }
    }

    #[test]
    fn random_books_round_trip(fens in proptest::collection::btree_set("[a-z0-9/]{1,12} [wb] [-a-z]{1,3} [-a-z0-9]{1,2}", 0..6),
                               moves in proptest::collection::vec(arb_move(), 0..5)) {
        let book = SbobBook {
            positions: fens.iter().enumerate().map(|(i, f)| SbobPosition { fen: f.clone(), moves: moves[..i.min(moves.len())].to_vec() }).collect(),
        };
        let bytes = encode(&book).unwrap();
        let back = parse(&bytes).unwrap();
        prop_assert_eq!(&back, &book);
        prop_assert_eq!(encode(&back).unwrap(), bytes);
        let file = SbobFile::from_bytes(encode(&book).unwrap()).unwrap();
        for p in &book.positions {
            prop_assert_eq!(file.lookup(&p.fen), Some(p.clone()));
        }
    }
}
