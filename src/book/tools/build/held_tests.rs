//! The spill layer ([`crate::spill`]) with `book build`'s events: both
//! layouts through spill files at every level, what decoding a damaged
//! event file rejects, and held batches (packed compact events) read back
//! as the same events pushed one by one. The layer's own rules (counts,
//! truncation, random bytes, splitting) are tested in `crate::spill`.

use super::event::{bucket_of, scrambled as events, Buckets, Event, Grouped, Layout, Spilled, BUCKETS, MAX_LEVEL};
use crate::spill::{SpillError, SpillReader, SpillWriter, FOOTER_LEN, HEADER_LEN};
use crate::testdata::TempDir;
use std::path::PathBuf;

/// An event either layout holds (no rating, a 15-bit move), or, with
/// `full`, one with a rating and a visit's move.
fn ev(key: u64, mv: u16, full: bool) -> Event {
    let (rating, mv) = if full { (2000, mv | 0x8000) } else { (0, mv) };
    Event::new(key, mv, rating, (mv % 3) as u8, mv % 2 == 0)
}

/// Events spread over buckets 0, 7 and 4095 of level 0.
fn sample(layout: Layout) -> Vec<(usize, Vec<Event>)> {
    let full = layout == Layout::Full;
    let at = |b: u64, low: u64| b << 52 | low;
    vec![
        (0, vec![ev(at(0, 5), 1, full), ev(at(0, 3), 2, full)]),
        (7, vec![ev(at(7, 9), 3, full)]),
        (4095, vec![ev(at(4095, 1), 4, full), ev(at(4095, 1), 4, full), ev(at(4095, (1 << 52) - 1), 0x7FFF, full)]),
    ]
}

fn write(dir: &TempDir, name: &str, layout: Layout) -> PathBuf {
    let path = dir.file(name);
    let mut w = SpillWriter::create(&path, 0, layout).unwrap();
    for (b, events) in sample(layout) {
        w.write_bucket(b, &events).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 6);
    path
}

fn read_all(r: &SpillReader<Layout>, bucket: usize) -> Result<Vec<Event>, SpillError> {
    let mut out = Vec::new();
    r.read_bucket(bucket, &mut Vec::new(), &mut Vec::new(), |e: &[Event]| {
        out.extend_from_slice(e);
        Ok::<(), SpillError>(())
    })?;
    Ok(out)
}

#[test]
fn round_trips_each_buckets_events_in_order() {
    for layout in [Layout::Full, Layout::Compact] {
        let dir = TempDir::new("run-rt");
        let path = write(&dir, "r", layout);
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(len, HEADER_LEN + 6 * layout.event_len() as u64 + FOOTER_LEN);
        let r = SpillReader::open(&path, 0, layout).unwrap();
        for (b, events) in sample(layout) {
            assert_eq!(r.len(b), events.len() as u64);
            assert_eq!(read_all(&r, b).unwrap(), events, "{layout:?}");
            let mut appended = Vec::new();
            r.append_bucket(b, &mut Vec::new(), &mut appended).unwrap();
            assert_eq!(appended, events);
        }
        assert!(read_all(&r, 1).unwrap().is_empty());
    }
}

#[test]
fn every_level_round_trips() {
    let dir = TempDir::new("run-levels");
    for level in 0..=MAX_LEVEL {
        let mut by_bucket = vec![Vec::new(); BUCKETS];
        for i in 0..2000u64 {
            let key = i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            by_bucket[bucket_of(key, level)].push(Event::new(key, i as u16 & 0x7FFF, 0, (i % 3) as u8, i % 2 == 0));
        }
        let path = dir.file(&format!("l{level}"));
        let mut w = SpillWriter::create(&path, level, Layout::Compact).unwrap();
        for (b, events) in by_bucket.iter().enumerate() {
            w.write_bucket(b, events).unwrap();
        }
        w.finish().unwrap();
        let r = SpillReader::open(&path, level, Layout::Compact).unwrap();
        for (b, events) in by_bucket.iter().enumerate() {
            assert_eq!(&read_all(&r, b).unwrap(), events, "level {level}, bucket {b}");
        }
    }
}

#[test]
fn rejects_truncated_files_the_wrong_level_and_the_wrong_layout() {
    for layout in [Layout::Full, Layout::Compact] {
        let dir = TempDir::new("run-trunc");
        let path = write(&dir, "r", layout);
        let bytes = std::fs::read(&path).unwrap();
        let other = if layout == Layout::Full { Layout::Compact } else { Layout::Full };
        assert!(matches!(SpillReader::open(&path, 1, layout), Err(SpillError::BadHeader { offset: 0, .. })));
        assert!(matches!(SpillReader::open(&path, 0, other), Err(SpillError::BadHeader { offset: 0, .. })));
        for cut in [0, 10, 16, 40, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let r = SpillReader::open(&path, 0, layout);
            assert!(matches!(r, Err(SpillError::BadLength { .. })), "{layout:?}, cut at {cut}");
        }
    }
}

#[test]
fn rejects_bad_points_and_a_key_in_the_wrong_bucket() {
    let dir = TempDir::new("run-bad");
    let path = write(&dir, "r", Layout::Full);
    let clean = std::fs::read(&path).unwrap();
    // Event 1 (bucket 0, at 28): points 3 (info bits 13–14), then a key
    // of bucket 7 (top bits 0x007…).
    for (at, value) in [(28 + 11, 0x60u8), (28 + 6, 0x70)] {
        let mut bytes = clean.clone();
        bytes[at] |= value;
        std::fs::write(&path, &bytes).unwrap();
        let r = SpillReader::open(&path, 0, Layout::Full).unwrap();
        assert!(matches!(read_all(&r, 0), Err(SpillError::BadItem { offset: 28, .. })), "byte {at}");
    }
}

#[test]
fn rejects_compact_events_with_bad_points_or_spare_bits() {
    let dir = TempDir::new("run-bad-compact");
    let path = write(&dir, "r", Layout::Compact);
    let clean = std::fs::read(&path).unwrap();
    // Event 1 (bucket 0, at 25), byte 8 holds bits 64–71: points 3
    // (bits 67–68), then each spare bit (70, 71).
    for value in [0x18u8, 0x40, 0x80] {
        let mut bytes = clean.clone();
        bytes[25 + 8] |= value;
        std::fs::write(&path, &bytes).unwrap();
        let r = SpillReader::open(&path, 0, Layout::Compact).unwrap();
        assert!(matches!(read_all(&r, 0), Err(SpillError::BadItem { offset: 25, .. })), "bits {value:#x}");
    }
}

/// Every bucket's events, read back in order (both ways, alike).
fn read_back(src: &Spilled) -> Vec<Vec<Event>> {
    let (mut bytes, mut chunk) = (Vec::new(), Vec::new());
    (0..BUCKETS)
        .map(|b| {
            let mut out = Vec::new();
            src.append(b, &mut Vec::new(), &mut out).unwrap();
            let mut chunks = Vec::new();
            src.read(b, &mut bytes, &mut chunk, |ev| {
                chunks.extend_from_slice(ev);
                Ok::<(), SpillError>(())
            })
            .unwrap();
            assert_eq!((out.len(), &out), (src.len(b), &chunks));
            out
        })
        .collect()
}

fn grouped(events: &[Event], layout: Layout) -> Grouped {
    let mut g = Grouped::default();
    g.fill(&mut events.to_vec(), &mut Vec::new(), layout);
    g
}

#[test]
fn grouped_batches_read_back_as_the_same_events_pushed_one_by_one() {
    for layout in [Layout::Full, Layout::Compact] {
        grouped_batches_read_back_in(layout);
    }
}

fn grouped_batches_read_back_in(layout: Layout) {
    let dir = TempDir::new("partition-grouped");
    let input = events(5_000, 3, 4);
    let mut want = Buckets::new(0, layout, usize::MAX, dir.path(), "want".into());
    want.push(&input).unwrap();
    let want = read_back(&want.finish(64).unwrap());
    assert!(want.iter().filter(|b| !b.is_empty()).count() > 3000);
    // Held whole, spilled every few batches, and pushes between batches.
    for (limit, pushed_every) in [(usize::MAX, 0), (2_500, 0), (1_000, 3)] {
        let mut b = Buckets::new(0, layout, limit, dir.path(), format!("g{limit}-{pushed_every}"));
        let mut recycled = 0;
        for (i, chunk) in input.chunks(700).enumerate() {
            if pushed_every > 0 && i % pushed_every == 0 {
                b.push(chunk).unwrap();
                continue;
            }
            let g = grouped(chunk, layout);
            assert_eq!(g.len(), chunk.len());
            recycled += b.push_grouped(g).unwrap().len();
        }
        let src = b.finish(64).unwrap();
        assert_eq!(src.file_count > 0, recycled > 0, "spilled batches are given back");
        assert!(read_back(&src) == want, "{layout:?}, limit {limit}, a push every {pushed_every} batches");
    }
}

#[test]
fn one_keys_events_read_back_in_input_order_across_files_lists_and_batches() {
    let dir = TempDir::new("held-order");
    let key = 0x0123_4567_89AB_CDEF;
    let ev = |mv: u16| Event::new(key, mv, 0, 1, true);
    for layout in [Layout::Full, Layout::Compact] {
        // Spilled at 5 events: the batches of moves 0–1 and 2–3 go
        // into the lists when 4 is pushed, and all five to a file;
        // then 5 comes as a batch, taken into the lists when 6 is
        // pushed, and 7 as a batch held as it is.
        let mut b = Buckets::new(0, layout, 5, dir.path(), format!("o{layout:?}"));
        b.push_grouped(grouped(&[ev(0), ev(1)], layout)).unwrap();
        b.push_grouped(grouped(&[ev(2), ev(3)], layout)).unwrap();
        b.push(&[ev(4)]).unwrap();
        b.push_grouped(grouped(&[ev(5)], layout)).unwrap();
        b.push(&[ev(6)]).unwrap();
        b.push_grouped(grouped(&[ev(7)], layout)).unwrap();
        let src = b.finish(64).unwrap();
        assert_eq!(src.shape(bucket_of(key, 0)), (1, 2, 1));
        let got: Vec<u16> = read_back(&src)[bucket_of(key, 0)].iter().map(|e| e.mv).collect();
        assert_eq!(got, (0..8).collect::<Vec<_>>(), "{layout:?}");
    }
}

#[test]
fn a_batch_refilled_in_the_other_layout_holds_only_that_layout() {
    let input = events(300, 2, 3);
    let mut g = grouped(&input, Layout::Full);
    assert!(!g.is_encoded());
    g.fill(&mut input.clone(), &mut Vec::new(), Layout::Compact);
    assert_eq!((g.is_encoded(), g.len()), (true, input.len()));
    let mut all = Vec::new();
    for b in 0..BUCKETS {
        g.append_bucket(b, Layout::Compact, &mut all);
    }
    let mut want = input.clone();
    want.sort_by_key(|e| bucket_of(e.key(), 0));
    assert_eq!(all, want, "grouped by bucket, stable");
}
