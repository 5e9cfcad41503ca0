use super::*;
use crate::tt::{Bound, TranspositionTable};
use crate::types::Move;

fn scratch(name: &str) -> crate::testdata::TempDir {
    crate::testdata::TempDir::new(&format!("sftt-{name}"))
}

fn filled_table() -> TranspositionTable {
    let tt = TranspositionTable::new(1);
    for i in 1..3000u64 {
        let key = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let bound = [Bound::Upper, Bound::Lower, Bound::Exact][(i % 3) as usize];
        tt.store(
            key,
            (i % 20) as i32,
            bound,
            i % 7 == 0,
            Move::from_raw(i as u16),
            (i as i32) - 1500,
            -(i as i32 % 300),
        );
    }
    tt
}

fn header() -> SfttHeader {
    SfttHeader {
        root_pos: Some("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".into()),
        nodes: 123_456_789,
        root_depth: 17,
        min_entry_depth: 3,
    }
}

fn sorted(mut v: Vec<TtEntry>) -> Vec<TtEntry> {
    for e in &mut v {
        e.gen_bound8 &= 7;
    }
    v.sort_by_key(|e| e.key);
    v
}

#[test]
fn round_trip_keeps_every_entry_at_or_above_min_depth() {
    let dir = scratch("roundtrip");
    let path = dir.join("hash.sftt");
    let tt = filled_table();
    let stats = save(&tt, &header(), &path).unwrap();
    let expected: Vec<TtEntry> = tt.entries().filter(|e| e.depth() >= 3).collect();
    assert_eq!(stats.entries as usize, expected.len());
    assert_eq!(std::fs::metadata(&path).unwrap().len(), stats.bytes);

    let fresh = TranspositionTable::new(1);
    let (h, loaded) = load(&fresh, &path).unwrap();
    assert_eq!(h, header());
    assert_eq!(loaded.entries, stats.entries);
    assert_eq!(sorted(fresh.entries().collect()), sorted(expected));
}

#[test]
fn header_fields_are_at_their_offsets() {
    let b = encode_header(&header());
    assert_eq!(&b[0..4], b"SFTT");
    assert_eq!(b[4], 1);
    assert!(b[5..96].starts_with(b"r1bqkbnr/"));
    assert_eq!(b[95], 0);
    assert_eq!(u64::from_le_bytes(b[96..104].try_into().unwrap()), 123_456_789);
    assert_eq!((b[104], b[105]), (17, 3));
    assert!(b[106..128].iter().all(|&x| x == 0));
    let empty = encode_header(&SfttHeader::default());
    assert!(empty[5..96].iter().all(|&x| x == 0));
    assert_eq!(parse_header(&empty).unwrap(), SfttHeader::default());
}

#[test]
fn smaller_table_keeps_the_deepest_entries() {
    let dir = scratch("smaller");
    let path = dir.join("big.sftt");
    let big = TranspositionTable::new(4);
    for i in 1..200_000u64 {
        big.store(i.wrapping_mul(0x9E37_79B9_7F4A_7C15), (i % 40) as i32, Bound::Exact, false, Move::NONE, 0, 0);
    }
    save(&big, &SfttHeader::default(), &path).unwrap();
    let small = TranspositionTable::new(1);
    load(&small, &path).unwrap();
    let kept: Vec<i32> = small.entries().map(|e| e.depth()).collect();
    let avg = kept.iter().sum::<i32>() as f64 / kept.len() as f64;
    assert!(kept.len() > small.capacity() * 9 / 10);
    assert!(avg > 30.0, "average kept depth {avg}");
}

fn valid_image() -> Vec<u8> {
    let mut v = encode_header(&header()).to_vec();
    let e = TtEntry { key: 7, depth8: 20, gen_bound8: 3, mv: 0x0ccc, value: 5, eval: -5 };
    v.extend_from_slice(&encode_entry(&e));
    v.extend_from_slice(&encode_entry(&TtEntry { key: 8, ..e }));
    v
}

#[test]
fn valid_image_passes() {
    let (h, n) = validate(&valid_image()).unwrap();
    assert_eq!((h, n), (header(), 2));
}

#[test]
fn rejects_truncated_file() {
    let img = valid_image();
    assert!(matches!(validate(&img[..100]), Err(SfttError::Truncated(Truncated { offset: 0, needed: 128, len: 100 }))));
    assert!(matches!(validate(&img[..img.len() - 5]), Err(SfttError::BadSize { extra: 11, offset: 144, .. })));
}

#[test]
fn rejects_wrong_magic() {
    let mut img = valid_image();
    img[0] = b'X';
    assert!(matches!(validate(&img), Err(SfttError::BadMagic)));
}

#[test]
fn rejects_wrong_version() {
    let mut img = valid_image();
    img[4] = 2;
    assert!(matches!(validate(&img), Err(SfttError::UnsupportedVersion { version: 2 })));
}

#[test]
fn rejects_non_zero_reserved_bytes() {
    let mut img = valid_image();
    img[120] = 1;
    assert!(matches!(validate(&img), Err(SfttError::NonZeroReserved { offset: 120, value: 1 })));
}

#[test]
fn rejects_bad_bound_bits() {
    let mut img = valid_image();
    img[128 + 16 + 9] = 0x08; // generation set, bound 0
    assert!(matches!(validate(&img), Err(SfttError::BadBound { index: 1, offset: 144 })));
}

#[test]
fn rejects_empty_and_too_shallow_entries() {
    let mut img = valid_image();
    img[128 + 8] = 0;
    assert!(matches!(validate(&img), Err(SfttError::EmptyEntry { index: 0, offset: 128 })));
    let mut img = valid_image();
    img[128 + 8] = 8; // depth 1 < min_entry_depth 3
    assert!(matches!(validate(&img), Err(SfttError::BelowMinDepth { index: 0, depth: 1, min: 3, .. })));
}

#[test]
fn rejects_bad_root_position() {
    let mut img = valid_image();
    img[5..10].copy_from_slice(b"xxxxx");
    assert!(matches!(validate(&img), Err(SfttError::BadRootPos { offset: 5, .. })));
    let mut img = valid_image();
    img[95] = b'x'; // garbage after the padding
    assert!(matches!(validate(&img), Err(SfttError::BadRootPos { offset: 95, .. })));
}

#[test]
fn failed_load_leaves_table_untouched() {
    let dir = scratch("untouched");
    let path = dir.join("bad.sftt");
    let mut img = valid_image();
    img.extend_from_slice(&[0u8; 16]); // a trailing empty entry
    std::fs::write(&path, &img).unwrap();
    let tt = filled_table();
    let before = sorted(tt.entries().collect());
    assert!(matches!(load(&tt, &path), Err(SfttError::EmptyEntry { index: 2, .. })));
    assert_eq!(sorted(tt.entries().collect()), before);
}

/// Makes `dir` unwritable even for root (`chattr +i`), or with permissions
/// for other users. Returns the command that undoes it.
fn make_unwritable(dir: &Path) -> Box<dyn Fn()> {
    let is_root = std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0"));
    if is_root {
        let st = std::process::Command::new("chattr").arg("+i").arg(dir).status().expect("chattr available");
        assert!(st.success(), "chattr +i failed");
        let d = dir.to_path_buf();
        Box::new(move || {
            let _ = std::process::Command::new("chattr").arg("-i").arg(&d).status();
        })
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        let d = dir.to_path_buf();
        Box::new(move || {
            let _ = std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755));
        })
    }
}

#[test]
fn save_into_unwritable_directory_keeps_the_old_file() {
    let dir = scratch("readonly");
    let path = dir.join("hash.sftt");
    let old = filled_table();
    save(&old, &header(), &path).unwrap();
    let old_bytes = std::fs::read(&path).unwrap();

    let undo = make_unwritable(&dir);
    let newer = TranspositionTable::new(1);
    newer.store(1, 30, Bound::Exact, true, Move::NONE, 0, 0);
    let result = save(&newer, &SfttHeader::default(), &path);
    undo();
    assert!(matches!(result, Err(SfttError::Io(_))), "{result:?}");
    assert_eq!(std::fs::read(&path).unwrap(), old_bytes);
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 1, "no temporary file left behind");
}
