//! The spill layer's own rules, with [`Pairs`] items: buckets in key
//! order, the file's validation, read-back order, and buckets split again.
//! `book build`'s events through it are tested in its `held_tests`.

use super::*;
use crate::codec::SplitMix64;
use crate::testdata::TempDir;
use std::path::PathBuf;

/// Pairs in buckets 0, 7 and 4095 of level 0.
fn sample() -> Vec<(usize, Vec<(u64, u64)>)> {
    let at = |b: u64, low: u64| b << 52 | low;
    vec![
        (0, vec![(at(0, 5), 1), (at(0, 3), 2)]),
        (7, vec![(at(7, 9), 3)]),
        (4095, vec![(at(4095, 1), 4), (at(4095, 1), 5), (at(4095, (1 << 52) - 1), u64::MAX)]),
    ]
}

fn write(dir: &TempDir, name: &str) -> PathBuf {
    let path = dir.file(name);
    let mut w = SpillWriter::create(&path, 0, Pairs).unwrap();
    for (b, items) in sample() {
        w.write_bucket(b, &items).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 6);
    path
}

fn read_all(r: &SpillReader<Pairs>, bucket: usize) -> Result<Vec<(u64, u64)>, SpillError> {
    let mut out = Vec::new();
    r.read_bucket(bucket, &mut Vec::new(), &mut Vec::new(), |e: &[(u64, u64)]| {
        out.extend_from_slice(e);
        Ok::<(), SpillError>(())
    })?;
    Ok(out)
}

#[test]
fn keys_in_bucket_order_are_in_key_order_at_every_level() {
    for level in 0..=MAX_LEVEL {
        let shift = 64 - BUCKET_BITS * (level as u32 + 1);
        assert_eq!(bucket_of(0xABC << shift, level), 0xABC);
        assert_eq!(bucket_of(u64::MAX, level), BUCKETS - 1);
    }
    assert!(bucket_of(1 << 60, 0) > bucket_of((1 << 60) - 1, 0));
}

#[test]
fn lists_get_an_even_share_and_a_quarter_up_to_a_cap() {
    assert_eq!(list_room(BUCKETS * 8), 10);
    assert_eq!(list_room(usize::MAX), 1 << 16);
}

#[test]
fn pairs_round_trip_by_bucket_in_order() {
    let dir = TempDir::new("spill-pairs");
    let path = write(&dir, "r");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), HEADER_LEN + 6 * 16 + FOOTER_LEN);
    let r = SpillReader::open(&path, 0, Pairs).unwrap();
    for (b, items) in sample() {
        assert_eq!(r.len(b), items.len() as u64);
        assert_eq!(read_all(&r, b).unwrap(), items);
    }
    assert!(read_all(&r, 1).unwrap().is_empty());
}

#[test]
fn rejects_counts_that_do_not_add_up() {
    let dir = TempDir::new("spill-counts");
    let path = write(&dir, "r");
    let mut bytes = std::fs::read(&path).unwrap();
    let footer = 16 + 6 * 16;
    bytes[footer] = 1; // bucket 0 now says 1, not 2
    std::fs::write(&path, &bytes).unwrap();
    let r = SpillReader::open(&path, 0, Pairs);
    assert!(matches!(r, Err(SpillError::BadLength { offset, .. }) if offset == footer as u64));
}

#[test]
fn rejects_a_key_in_the_wrong_bucket_truncation_and_another_item_length() {
    let dir = TempDir::new("spill-bad");
    let path = write(&dir, "r");
    let clean = std::fs::read(&path).unwrap();
    // Item 1 (bucket 0, at 32): a key of bucket 7 (top bits 0x007…).
    let mut bytes = clean.clone();
    bytes[32 + 6] |= 0x70;
    std::fs::write(&path, &bytes).unwrap();
    let r = SpillReader::open(&path, 0, Pairs).unwrap();
    assert!(matches!(read_all(&r, 0), Err(SpillError::BadItem { offset: 32, .. })));
    let mut bytes = clean.clone();
    bytes[6] = 12;
    std::fs::write(&path, &bytes).unwrap();
    assert!(matches!(SpillReader::open(&path, 0, Pairs), Err(SpillError::BadHeader { offset: 0, .. })));
    for cut in [0, 10, 16, 40, clean.len() - 1] {
        std::fs::write(&path, &clean[..cut]).unwrap();
        assert!(matches!(SpillReader::open(&path, 0, Pairs), Err(SpillError::BadLength { .. })), "cut at {cut}");
    }
}

#[test]
fn a_file_cut_after_opening_is_an_io_error_not_a_panic() {
    let dir = TempDir::new("spill-cut");
    let path = write(&dir, "r");
    let r = SpillReader::open(&path, 0, Pairs).unwrap();
    r.release_from(0).unwrap();
    assert!(matches!(read_all(&r, 4095), Err(SpillError::Io { .. })));
}

#[test]
fn random_bytes_never_panic() {
    let dir = TempDir::new("spill-fuzz");
    let path = dir.file("r");
    let clean = std::fs::read(write(&dir, "good")).unwrap();
    let mut rng = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
    for _ in 0..300 {
        let mut bytes = clean.clone();
        for _ in 0..4 {
            let i = rng.below_usize(bytes.len());
            bytes[i] = rng.next_u64() as u8;
        }
        std::fs::write(&path, &bytes).unwrap();
        if let Ok(r) = SpillReader::open(&path, 0, Pairs) {
            for b in 0..BUCKETS {
                let _ = read_all(&r, b);
            }
        }
    }
}

/// `n` pairs whose keys repeat (`distinct` of them, spread over the key
/// space) and whose values count up: the input order.
fn repeating(n: u64, distinct: u64) -> Vec<(u64, u64)> {
    (0..n).map(|i| (((i * 7919) % distinct).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1, i)).collect()
}

#[test]
fn every_bucket_comes_back_in_input_order_whatever_the_limits() {
    let dir = TempDir::new("spill-order");
    let input = repeating(20_000, 3_000);
    let mut want: Vec<(u64, u64)> = input.clone();
    want.sort_by_key(|&(key, _)| bucket_of(key, 0));
    for (limit, fan_in) in [(usize::MAX, 64), (1_000, 64), (1_000, 3), (2_500, 2)] {
        let mut b = Buckets::new(0, Pairs, limit, dir.path(), format!("o{limit}-{fan_in}"));
        for chunk in input.chunks(333) {
            b.push(chunk).unwrap();
        }
        let src = b.finish(fan_in).unwrap();
        assert_eq!(src.file_count > 0, limit < input.len());
        let mut got = Vec::new();
        for bucket in 0..BUCKETS {
            src.append(bucket, &mut Vec::new(), &mut got).unwrap();
        }
        assert!(got == want, "limit {limit}, fan-in {fan_in}");
    }
}

#[test]
fn buckets_over_the_limit_are_split_and_handed_in_key_order() {
    let dir = TempDir::new("spill-split");
    // Many keys of one level-0 bucket (their top 12 bits equal), a few
    // elsewhere: that bucket splits into level-1 buckets.
    let mut input: Vec<(u64, u64)> =
        (0..5_000u64).map(|i| (0xABC << 52 | i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & ((1 << 52) - 1), i)).collect();
    input.extend((0..50u64).map(|i| (i << 58 | 1, 5_000 + i)));
    let mut b = Buckets::new(0, Pairs, 600, dir.path(), "s".into());
    b.push(&input).unwrap();
    let src = b.finish(8).unwrap();
    let (mut got, mut levels, mut largest) = (Vec::new(), Vec::new(), 0);
    src.for_each_bucket(500, 8, dir.path(), "split", &mut |items: &mut Vec<(u64, u64)>, level: u8| {
        largest = largest.max(items.len());
        levels.push(level);
        got.extend_from_slice(items);
        Ok::<(), SpillError>(())
    })
    .unwrap();
    assert!(largest <= 500 && levels.contains(&1) && levels.contains(&0), "largest {largest}");
    // Buckets in key order, each bucket's items in input order.
    let mut want = input.clone();
    want.sort_by_key(
        |&(key, _)| if bucket_of(key, 0) == 0xABC { (0xABC, bucket_of(key, 1)) } else { (bucket_of(key, 0), 0) },
    );
    assert_eq!(got, want);
}

#[test]
fn a_key_of_too_many_items_is_handed_to_be_read_a_chunk_at_a_time() {
    let dir = TempDir::new("spill-large");
    // One key 3,000 times among others: past the limit down to the last
    // level, where it is not gathered.
    let hot = 0x1234_5678_9abc_def0u64;
    let input: Vec<(u64, u64)> =
        (0..4_000u64).map(|i| (if i % 4 == 0 { i.wrapping_mul(0x9E37_79B9_7F4A_7C15) } else { hot }, i)).collect();
    let mut b = Buckets::new(0, Pairs, 700, dir.path(), "s".into());
    b.push(&input).unwrap();
    let src = b.finish(8).unwrap();
    let (mut got, mut large) = (Vec::new(), 0);
    src.walk_buckets(500, 8, dir.path(), "split", &mut |bucket: Bucket<'_, Pairs>| {
        match bucket {
            Bucket::Whole(items, _) => got.extend_from_slice(items),
            Bucket::Large(spilled, b) => {
                assert_eq!((spilled.level(), spilled.len(b)), (MAX_LEVEL, 3_000));
                large += 1;
                let (mut bytes, mut chunk) = (Vec::new(), Vec::new());
                spilled.read(b, &mut bytes, &mut chunk, |items| {
                    got.extend_from_slice(items);
                    Ok::<(), SpillError>(())
                })?;
            }
        }
        Ok::<(), SpillError>(())
    })
    .unwrap();
    assert_eq!(large, 1);
    // Every item once, the key's in input order.
    let hot_items: Vec<u64> = got.iter().filter(|p| p.0 == hot).map(|p| p.1).collect();
    assert!(hot_items.len() == 3_000 && hot_items.is_sorted());
    let (mut got, mut want) = (got, input);
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want);
}

#[test]
fn what_is_held_can_be_spilled_before_the_end() {
    let dir = TempDir::new("spill-held");
    let mut b = Buckets::new(0, Pairs, 1_000, dir.path(), "s".into());
    b.spill_held().unwrap();
    assert_eq!(b.file_count(), 0, "nothing held, nothing written");
    let items: Vec<(u64, u64)> = (0..10u64).map(|i| (i << 60, i)).collect();
    b.push(&items).unwrap();
    b.spill_held().unwrap();
    assert_eq!(b.file_count(), 1);
    let src = b.finish(8).unwrap();
    assert_eq!(src.shape(0), (1, 0, 0));
    let mut got = Vec::new();
    src.for_each_bucket(100, 8, dir.path(), "split", &mut |items: &mut Vec<(u64, u64)>, _| {
        got.extend_from_slice(items);
        Ok::<(), SpillError>(())
    })
    .unwrap();
    assert_eq!(got, items);
}
