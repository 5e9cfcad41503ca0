use super::*;
use crate::board::Board;

fn e(key: u64, elo: i32, value: i32) -> YacbEntry {
    YacbEntry {
        key,
        elo: Elo::rated(elo),
        value_type: ValueType::Centipawns,
        bound: BoundType::Exact,
        source: Source::Engine,
        value,
        best_move: Move::from_raw(0x0ccc),
    }
}

fn scratch(name: &str) -> crate::testdata::TempDir {
    crate::testdata::TempDir::new(&format!("yacb-{name}"))
}

fn image(entries: &[YacbEntry]) -> Vec<u8> {
    let mut v = vec![0u8; HEADER_LEN];
    v[0..4].copy_from_slice(MAGIC);
    for x in entries {
        v.extend_from_slice(&x.encode());
    }
    v
}

#[test]
fn golden_file_reads_and_rewrites_byte_for_byte() {
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/golden.yacb");
    let bytes = std::fs::read(golden).unwrap();
    let book = YacbBook::from_vec(bytes.clone()).unwrap();
    book.verify().unwrap();
    let entries: Vec<YacbEntry> = book.iter().map(Result::unwrap).collect();
    // The start position and 1.e4, as documented in engine-tests/data/README.md.
    assert_eq!(entries.len(), 3);
    let start = Board::startpos();
    let first = book.probe(&start).unwrap();
    assert_eq!(first.key, 0x8F8F01D4562F59FB);
    assert_eq!(first.value, 25);
    assert_eq!(first.elo, Elo::Rated(-350));
    assert_eq!(first.best_move, start.parse_uci("e2e4").unwrap());
    assert!(entries.iter().any(|x| x.elo == Elo::Irreplaceable && x.value_type == ValueType::Perf));
    let dir = scratch("golden");
    write(&dir.join("again.yacb"), &KeyType::Engine, entries).unwrap();
    assert_eq!(std::fs::read(dir.join("again.yacb")).unwrap(), bytes);
}

#[test]
fn round_trip_sorts_and_deduplicates_keeping_higher_elo() {
    let dir = scratch("roundtrip");
    let path = dir.join("b.yacb");
    let entries = vec![e(30, 5, 1), e(10, -100, 2), e(20, 0, 3), e(10, 50, 4), e(20, 0, 5)];
    assert_eq!(write(&path, &KeyType::Engine, entries).unwrap(), 3);
    let book = YacbBook::open(&path).unwrap();
    book.verify().unwrap();
    let got: Vec<(u64, i32)> = book.iter().map(|x| x.map(|x| (x.key, x.value)).unwrap()).collect();
    assert_eq!(got, vec![(10, 4), (20, 3), (30, 1)]);
}

#[test]
fn elo_minus_one_is_stored_as_minus_two() {
    assert_eq!(Elo::rated(-1), Elo::Rated(-2));
    assert_eq!(Elo::rated(-1).raw(), 0xFFFE);
    assert_eq!(Elo::from_raw(0xFFFF), Elo::Irreplaceable);
    assert!(Elo::Irreplaceable.rank() > Elo::Rated(i16::MAX).rank());
}

/// An independent Polyglot-order hash straight from the FEN text.
fn fen_hash(fen: &str, t: &[u64; 781]) -> u64 {
    let f: Vec<&str> = fen.split_whitespace().collect();
    let mut k = 0u64;
    for (i, row) in f[0].split('/').enumerate() {
        let rank = 7 - i;
        let mut file = 0;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                file += d as usize;
                continue;
            }
            let kind = "pnbrqk".find(c.to_ascii_lowercase()).unwrap() * 2 + usize::from(c.is_ascii_uppercase());
            k ^= t[64 * kind + 8 * rank + file];
            file += 1;
        }
    }
    for (i, c) in ['K', 'Q', 'k', 'q'].iter().enumerate() {
        if f[2].contains(*c) {
            k ^= t[768 + i];
        }
    }
    // The FENs used below carry no en-passant square.
    assert_eq!(f[3], "-");
    if f[1] == "w" {
        k ^= t[780];
    }
    k
}

#[test]
fn key_type_one_uses_the_embedded_table() {
    let mut x = 0x1234_5678u64;
    let mut table = Box::new([0u64; 781]);
    for v in table.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *v = x;
    }
    let fens = [
        Board::START_FEN,
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b Kq - 0 1",
    ];
    let kt = KeyType::Zobrist(table.clone());
    let entries: Vec<YacbEntry> =
        fens.iter().enumerate().map(|(i, f)| e(kt.key(&Board::from_fen(f, false).unwrap()), 0, i as i32)).collect();
    let dir = scratch("keytype1");
    let path = dir.join("z.yacb");
    write(&path, &kt, entries).unwrap();
    let book = YacbBook::open(&path).unwrap();
    assert_eq!(book.key_type(), &kt);
    for (i, f) in fens.iter().enumerate() {
        let hit = book.lookup(fen_hash(f, &table)).expect("independent key finds the entry");
        assert_eq!(hit.value, i as i32);
        assert_eq!(book.probe(&Board::from_fen(f, false).unwrap()), Some(hit));
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), (HEADER_LEN + TABLE_LEN + 3 * ENTRY_LEN) as u64);
}

#[test]
fn built_book_keys_equal_the_vector_engine_keys() {
    let text = crate::testdata::read("vectors/keys.csv").expect("committed key vectors");
    let rows: Vec<Vec<&str>> = text.lines().skip(1).map(|l| l.split(';').collect()).collect();
    let entries: Vec<YacbEntry> =
        rows.iter().map(|r| e(KeyType::Engine.key(&Board::from_fen(r[0], false).unwrap()), 0, 0)).collect();
    let dir = scratch("vectors");
    write(&dir.join("v.yacb"), &KeyType::Engine, entries).unwrap();
    let book = YacbBook::open(&dir.join("v.yacb")).unwrap();
    for r in &rows {
        let key = u64::from_str_radix(r[1], 16).unwrap();
        assert!(book.lookup(key).is_some(), "{}", r[0]);
    }
}

#[test]
fn lookup_finds_every_key_and_misses_others() {
    let mut x = 99u64;
    let mut keys: Vec<u64> = (0..50_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    let book = YacbBook::from_vec(image(&keys.iter().map(|&k| e(k, 0, 0)).collect::<Vec<_>>())).unwrap();
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(book.find(k), Some(i));
        assert_eq!(book.find(k.wrapping_add(1)).is_some(), keys.binary_search(&k.wrapping_add(1)).is_ok());
    }
    assert_eq!(book.find(0), keys.binary_search(&0).ok());
    assert_eq!(book.find(u64::MAX), keys.binary_search(&u64::MAX).ok());
}

#[test]
fn lookup_is_correct_on_clustered_keys() {
    // Far from uniform: dense runs at both ends and a sparse middle.
    let mut keys: Vec<u64> = (0..3_000u64).map(|i| i * 7 + 5).collect();
    keys.extend((0..3_000u64).map(|i| u64::MAX - 1 - i * 3));
    keys.extend((1..200u64).map(|i| i << 55));
    keys.sort_unstable();
    keys.dedup();
    let book = YacbBook::from_vec(image(&keys.iter().map(|&k| e(k, 0, 0)).collect::<Vec<_>>())).unwrap();
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(book.find(k), Some(i));
        for probe in [k.wrapping_add(1), k.wrapping_sub(1)] {
            assert_eq!(book.find(probe), keys.binary_search(&probe).ok(), "{probe}");
        }
    }
    assert_eq!(book.find(0), None);
    assert_eq!(book.find(u64::MAX), None);
}

fn err(bytes: Vec<u8>) -> YacbError {
    match YacbBook::from_vec(bytes) {
        Err(e) => e,
        Ok(b) => b.verify().expect_err("verify must fail"),
    }
}

#[test]
fn rejects_wrong_magic() {
    let mut v = image(&[e(1, 0, 0)]);
    v[1] = b'X';
    assert!(matches!(err(v), YacbError::BadMagic));
}

#[test]
fn rejects_wrong_version() {
    let mut v = image(&[e(1, 0, 0)]);
    v[4] = 1;
    assert!(matches!(err(v), YacbError::UnsupportedVersion { version: 1 }));
}

#[test]
fn rejects_unknown_key_type() {
    let mut v = image(&[e(1, 0, 0)]);
    v[5] = 2;
    assert!(matches!(err(v), YacbError::BadKeyType { key_type: 2 }));
}

#[test]
fn rejects_size_that_is_not_header_plus_entries() {
    let mut v = image(&[e(1, 0, 0)]);
    v.pop();
    assert!(matches!(err(v), YacbError::BadSize { extra: 15, offset: 32, .. }));
    assert!(matches!(err(vec![b'Y', b'A']), YacbError::Truncated(t) if t.len == 2 && t.needed == 32));
    let mut t = image(&[]);
    t[5] = 1;
    assert!(matches!(err(t), YacbError::Truncated(t) if t.offset == 32 && t.needed == 6248));
}

#[test]
fn rejects_book_with_unsorted_keys() {
    assert!(matches!(err(image(&[e(5, 0, 0), e(3, 0, 0)])), YacbError::UnsortedKeys { index: 1, offset: 48 }));
}

#[test]
fn rejects_book_with_duplicate_keys() {
    assert!(matches!(err(image(&[e(5, 0, 0), e(5, 0, 0)])), YacbError::UnsortedKeys { index: 1, .. }));
}

#[test]
fn rejects_reserved_value_types() {
    for t in 5..8u8 {
        let mut v = image(&[e(1, 0, 0)]);
        v[HEADER_LEN + 10] = t << 5;
        assert!(matches!(err(v), YacbError::BadValueType { index: 0, offset: 32, value_type } if value_type == t));
    }
}

#[test]
fn rejects_perf_above_40000() {
    let mut v = image(&[e(1, 0, 0)]);
    v[HEADER_LEN + 10] = 4 << 5;
    v[HEADER_LEN + 12..HEADER_LEN + 14].copy_from_slice(&40_001u16.to_le_bytes());
    assert!(matches!(err(v), YacbError::PerfOutOfRange { value: 40_001, .. }));
}

#[test]
fn rejects_non_zero_reserved_bytes() {
    let mut v = image(&[e(1, 0, 0)]);
    v[20] = 1;
    assert!(matches!(err(v), YacbError::NonZeroReserved { offset: 20, value: 1 }));
    let mut v = image(&[e(1, 0, 0)]);
    v[HEADER_LEN + 11] = 7;
    assert!(matches!(err(v), YacbError::NonZeroReserved { offset: 43, value: 7 }));
    let mut v = image(&[e(1, 0, 0)]);
    v[HEADER_LEN + 10] |= 1;
    assert!(matches!(err(v), YacbError::NonZeroReserved { offset: 42, .. }));
}

#[test]
fn writer_refuses_invalid_entries() {
    let dir = scratch("refuse");
    let mut bad = e(1, 0, 50_000);
    bad.value_type = ValueType::Perf;
    assert!(matches!(write(&dir.join("x.yacb"), &KeyType::Engine, vec![bad]), Err(YacbError::InvalidEntry { .. })));
    assert!(!dir.join("x.yacb").exists());
}

#[test]
fn random_bytes_never_panic() {
    let mut x = 7u64;
    for n in 0..2000usize {
        let mut v = image(&[e(1, 0, 0), e(2, 0, 0)]);
        v.truncate(v.len() - (n % 5));
        for _ in 0..(n % 7) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = (x as usize) % v.len();
            v[i] = (x >> 32) as u8;
        }
        if let Ok(b) = YacbBook::from_vec(v) {
            let _ = b.verify();
            let _ = b.lookup(1);
            let _ = b.probe(&Board::startpos());
        }
    }
}

#[test]
fn fence_index_stays_small_for_any_book_size() {
    use super::{fence_stride, FENCES_MAX, FENCE_STRIDE_MIN};
    for count in [0usize, 1, 63, 64, 10_000_000, 64 << 20, (64 << 20) + 1, 1 << 34, 6_250_000_000] {
        let stride = fence_stride(count);
        assert!(stride >= FENCE_STRIDE_MIN && stride.is_power_of_two(), "{count}: {stride}");
        assert!(count.div_ceil(stride) <= FENCES_MAX, "{count}: {stride}");
    }
    assert_eq!(fence_stride(10_000_000), 64);
    let book = YacbBook::from_vec(image(&[e(5, 0, 0), e(9, 0, 0)])).unwrap();
    assert_eq!(book.index_bytes(), 0, "built on the first lookup, not at open");
    assert_eq!(book.find(9), Some(1));
    assert_eq!(book.index_bytes(), 8);
}
