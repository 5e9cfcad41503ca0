//! Runs: the counting events `book build` spills to its temporary
//! directory whenever the events it holds reach its memory budget,
//! grouped by bucket of keys ([`super::partition`]) and read back one
//! bucket at a time. A private, short-lived format (never kept),
//! validated all the same.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ABEV` |
//! | 4 | 1 | version, 4 |
//! | 5 | 1 | level `L` (0 to [`MAX_LEVEL`]): a key's bucket is its 12 bits below the top `12·L` ([`bucket_of`]) |
//! | 6 | 1 | event length `E`: 12 (full events) or 9 (compact, Polyglot counting) ([`Layout`]) |
//! | 7 | 1 | reserved, 0 |
//! | 8 | 8 | event count `n`, u64 LE |
//! | 16 | `E`·`n` | the events, bucket after bucket, each bucket's in input order |
//! | 16 + `E`·`n` | 8·4096 | each bucket's event count, u64 LE (they add up to `n`) |
//!
//! A full event (little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | position key (Polyglot or engine) |
//! | 8 | 2 | move (Polyglot or engine move; 0xFFFF: a YACB visit) |
//! | 10 | 2 | bits 0–12 the game's mean rating (0: unrated), bits 13–14 points 0, 1 or 2 (for the mover; for white in a visit), bit 15 white moved |
//!
//! A compact event is one little-endian 72-bit number, for events with
//! no rating and a move below 0x8000 (Polyglot counting's):
//!
//! | bits | field |
//! |---|---|
//! | 0–51 | the key's 52 bits outside its bucket (the bucket's 12 come from the index): the bits above it, then the bits below it |
//! | 52–66 | Polyglot move |
//! | 67–68 | points 0, 1 or 2 (for the mover) |
//! | 69 | white moved |
//! | 70–71 | 0 |
//!
//! The reader checks the magic, the version, the level, the event length
//! and the reserved byte, that the counts add up to `n` and the file's
//! length to what they say, and that each event's points and spare bits
//! are in range and (full events) its key belongs to its bucket.

use super::pipeline::Event;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ABEV";
pub const VERSION: u8 = 4;
pub const HEADER_LEN: u64 = 16;
/// Key bits a level's buckets take.
pub const BUCKET_BITS: u32 = 12;
pub const BUCKETS: usize = 1 << BUCKET_BITS;
/// The deepest level (its buckets are key bits 4 to 15).
pub const MAX_LEVEL: u8 = 4;
const FOOTER_LEN: u64 = 8 * BUCKETS as u64;
/// Bytes an open run's index takes in memory.
pub const INDEX_BYTES: usize = 8 * (BUCKETS + 1);
/// Events read at once.
const CHUNK_EVENTS: usize = 1 << 14;

/// How a run stores its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 12 bytes: any event.
    Full,
    /// 9 bytes: events with no rating and a move below 0x8000 (Polyglot
    /// counting's), a quarter less to write and read back.
    Compact,
}

impl Layout {
    /// Bytes an event takes.
    #[inline]
    pub const fn event_len(self) -> usize {
        match self {
            Layout::Full => 12,
            Layout::Compact => 9,
        }
    }

    fn from_len(len: u8) -> Option<Layout> {
        match len {
            12 => Some(Layout::Full),
            9 => Some(Layout::Compact),
            _ => None,
        }
    }
}

/// The bucket of `key` at `level`: its 12 bits below the top `12·level`,
/// so buckets in order hold keys in order.
#[inline]
pub fn bucket_of(key: u64, level: u8) -> usize {
    ((key << (BUCKET_BITS * level as u32)) >> (64 - BUCKET_BITS)) as usize
}

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "{path}: not a run file of level {level} (bad magic, version, level or reserved bytes) at offset {offset}"
    )]
    BadHeader { path: PathBuf, level: u8, offset: u64 },
    #[error("{path}: the file's length or bucket counts disagree with its header at offset {offset}")]
    BadLength { path: PathBuf, offset: u64 },
    #[error("{path}: event out of range or in the wrong bucket at offset {offset}")]
    BadEvent { path: PathBuf, offset: u64 },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> RunError + '_ {
    move |source| RunError::Io { path: path.to_path_buf(), source }
}

#[inline]
fn encode(e: &Event, out: &mut [u8]) {
    out[0..8].copy_from_slice(&e.key().to_le_bytes());
    out[8..10].copy_from_slice(&e.mv.to_le_bytes());
    out[10..12].copy_from_slice(&e.info().to_le_bytes());
}

/// One event, or `None` when a field is out of range.
#[inline]
fn decode(b: &[u8]) -> Option<Event> {
    let key = u64::from_le_bytes(b[0..8].try_into().ok()?);
    Event::from_parts(key, u16::from_le_bytes([b[8], b[9]]), u16::from_le_bytes([b[10], b[11]]))
}

/// Key bits outside a bucket.
const REST_BITS: u32 = 64 - BUCKET_BITS;

/// The key bits below the bucket of `level` (the bits above it are its top `12·level`).
#[inline]
fn below_bits(level: u8) -> u32 {
    REST_BITS - BUCKET_BITS * level as u32
}

/// The 52 bits of `key` outside its bucket of `level`, the bits above
/// the bucket over the bits below it.
#[inline]
fn squeeze(key: u64, level: u8) -> u64 {
    let below = below_bits(level);
    let above = ((key as u128) >> (below + BUCKET_BITS)) as u64;
    above << below | key & ((1u64 << below) - 1)
}

/// The key whose bits outside `bucket` of `level` are `rest` ([`squeeze`]'s inverse).
#[inline]
fn unsqueeze(rest: u64, bucket: usize, level: u8) -> u64 {
    let below = below_bits(level);
    let above = (((rest >> below) as u128) << (below + BUCKET_BITS)) as u64;
    above | (bucket as u64) << below | rest & ((1u64 << below) - 1)
}

/// A compact event (see the module's doc) of `level`.
#[inline]
fn encode_compact(e: &Event, level: u8, out: &mut [u8]) {
    debug_assert!(e.rating() == 0 && e.mv < 0x8000, "not a compact event: {e:?}");
    let v = squeeze(e.key(), level) as u128 | (e.mv as u128 & 0x7FFF) << 52 | ((e.info() >> 13) as u128) << 67;
    out[..9].copy_from_slice(&v.to_le_bytes()[..9]);
}

/// The 72-bit number of a compact event.
#[inline]
fn compact_value(b: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..9].copy_from_slice(&b[..9]);
    u128::from_le_bytes(bytes)
}

/// The key, move and `info` of a compact event's number (its spare bits
/// and points unchecked).
#[inline]
fn compact_parts(v: u128, bucket: usize, level: u8) -> (u64, u16, u16) {
    let key = unsqueeze(v as u64 & ((1u64 << REST_BITS) - 1), bucket, level);
    (key, (v >> 52) as u16 & 0x7FFF, ((v >> 67) as u16 & 7) << 13)
}

/// A compact event of `bucket` of `level`, or `None` when a field is out of range.
#[inline]
fn decode_compact(b: &[u8], bucket: usize, level: u8) -> Option<Event> {
    let v = compact_value(b.get(..9)?);
    if v >> 70 != 0 {
        return None;
    }
    let (key, mv, info) = compact_parts(v, bucket, level);
    Event::from_parts(key, mv, info)
}

/// Packs an event of level 0 as a compact event (no rating, a move
/// below 0x8000: see [`Layout::Compact`]) into `out`'s first 9 bytes:
/// how a batch's events are held until they are spilled.
#[inline]
pub fn pack_compact(e: &Event, out: &mut [u8]) {
    encode_compact(e, 0, out);
}

/// Encodes `events` of `level` in `layout` onto `out`.
fn append_encoded(events: &[Event], layout: Layout, level: u8, out: &mut Vec<u8>) {
    let len = layout.event_len();
    let at = out.len();
    out.resize(at + events.len() * len, 0);
    let slots = out[at..].chunks_exact_mut(len);
    match layout {
        Layout::Full => events.iter().zip(slots).for_each(|(e, b)| encode(e, b)),
        Layout::Compact => events.iter().zip(slots).for_each(|(e, b)| encode_compact(e, level, b)),
    }
}

/// Unpacks the events of `bucket` of level 0 that [`pack_compact`]
/// packed, onto `out`.
pub fn unpack_compact(packed: &[u8], bucket: usize, out: &mut Vec<Event>) {
    out.reserve(packed.len() / Layout::Compact.event_len());
    for b in packed.chunks_exact(Layout::Compact.event_len()) {
        let (key, mv, info) = compact_parts(compact_value(b), bucket, 0);
        out.push(Event::unchecked(key, mv, info));
    }
}

/// Writes a run, bucket after bucket.
pub struct RunWriter {
    path: PathBuf,
    file: File,
    level: u8,
    layout: Layout,
    counts: Vec<u64>,
    /// The bucket written last (buckets come in ascending order).
    bucket: usize,
    /// Encoded events not yet written: events are encoded straight into
    /// it (a run is written a few events at a time, one bucket of one
    /// batch after another).
    buf: Vec<u8>,
}

/// Bytes [`RunWriter`] gathers before writing them.
const WRITE_BYTES: usize = 1 << 20;

impl RunWriter {
    pub fn create(path: &Path, level: u8, layout: Layout) -> Result<RunWriter, RunError> {
        let file = File::create(path).map_err(io_err(path))?;
        let mut buf = Vec::with_capacity(WRITE_BYTES + CHUNK_EVENTS * layout.event_len());
        buf.extend_from_slice(&header(level, layout, 0));
        Ok(RunWriter { path: path.to_path_buf(), file, level, layout, counts: vec![0; BUCKETS], bucket: 0, buf })
    }

    /// Appends events of `bucket` (all of whose keys are in it): buckets
    /// come in ascending order, one bucket possibly in several calls.
    pub fn write_bucket(&mut self, bucket: usize, events: &[Event]) -> Result<(), RunError> {
        debug_assert!(events.iter().all(|e| bucket_of(e.key(), self.level) == bucket));
        self.enter(bucket, events.len());
        for chunk in events.chunks(CHUNK_EVENTS) {
            append_encoded(chunk, self.layout, self.level, &mut self.buf);
            self.write_when_full()?;
        }
        Ok(())
    }

    /// Appends events of `bucket` packed by [`pack_compact`] (a run of
    /// level 0 and the compact layout); buckets come in ascending order.
    pub fn write_packed(&mut self, bucket: usize, packed: &[u8]) -> Result<(), RunError> {
        let len = Layout::Compact.event_len();
        assert!(self.layout == Layout::Compact && self.level == 0, "packed events are compact, of level 0");
        assert!(packed.len() % len == 0, "whole events");
        self.enter(bucket, packed.len() / len);
        self.buf.extend_from_slice(packed);
        self.write_when_full()
    }

    /// Counts `n` more events of `bucket`, which comes in ascending order.
    fn enter(&mut self, bucket: usize, n: usize) {
        assert!(bucket >= self.bucket && bucket < BUCKETS, "buckets are written in order");
        self.bucket = bucket;
        self.counts[bucket] += n as u64;
    }

    /// Writes the gathered bytes once there are enough of them.
    fn write_when_full(&mut self) -> Result<(), RunError> {
        if self.buf.len() >= WRITE_BYTES {
            self.file.write_all(&self.buf).map_err(io_err(&self.path))?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes the bucket counts and the header's event count; gives the
    /// number of events.
    pub fn finish(mut self) -> Result<u64, RunError> {
        let n: u64 = self.counts.iter().sum();
        let path = self.path;
        for c in &self.counts {
            self.buf.extend_from_slice(&c.to_le_bytes());
        }
        self.file.write_all(&self.buf).map_err(io_err(&path))?;
        self.file.seek(SeekFrom::Start(0)).map_err(io_err(&path))?;
        self.file.write_all(&header(self.level, self.layout, n)).map_err(io_err(&path))?;
        Ok(n)
    }
}

fn header(level: u8, layout: Layout, n: u64) -> [u8; HEADER_LEN as usize] {
    let mut h = [0u8; HEADER_LEN as usize];
    h[0..4].copy_from_slice(MAGIC);
    h[4] = VERSION;
    h[5] = level;
    h[6] = layout.event_len() as u8;
    h[8..16].copy_from_slice(&n.to_le_bytes());
    h
}

/// A run opened for reading, one bucket at a time.
pub struct RunReader {
    path: PathBuf,
    file: File,
    level: u8,
    layout: Layout,
    /// Where each bucket's events start (in events); `BUCKETS + 1` entries.
    starts: Vec<u64>,
}

impl RunReader {
    /// Opens a run of `level` and `layout` and checks its header and counts.
    pub fn open(path: &Path, level: u8, layout: Layout) -> Result<RunReader, RunError> {
        // Writable too, to be cut short as it is used up ([`RunReader::release_from`]).
        let mut file = std::fs::OpenOptions::new().read(true).write(true).open(path).map_err(io_err(path))?;
        let len = file.metadata().map_err(io_err(path))?.len();
        let mut h = [0u8; HEADER_LEN as usize];
        let bad_length = |offset| RunError::BadLength { path: path.to_path_buf(), offset };
        if len < HEADER_LEN + FOOTER_LEN {
            return Err(bad_length(len));
        }
        file.read_exact(&mut h).map_err(io_err(path))?;
        if &h[0..4] != MAGIC
            || h[4] != VERSION
            || h[5] != level
            || level > MAX_LEVEL
            || Layout::from_len(h[6]) != Some(layout)
            || h[7] != 0
        {
            return Err(RunError::BadHeader { path: path.to_path_buf(), level, offset: 0 });
        }
        let n = u64::from_le_bytes(h[8..16].try_into().expect("8 bytes"));
        let body = n.checked_mul(layout.event_len() as u64).ok_or_else(|| bad_length(8))?;
        if HEADER_LEN.checked_add(body).and_then(|b| b.checked_add(FOOTER_LEN)) != Some(len) {
            return Err(bad_length(8));
        }
        let footer_at = HEADER_LEN + body;
        let mut footer = vec![0u8; FOOTER_LEN as usize];
        file.read_exact_at(&mut footer, footer_at).map_err(io_err(path))?;
        let mut starts = Vec::with_capacity(BUCKETS + 1);
        let mut at = 0u64;
        starts.push(0);
        for (i, c) in footer.chunks_exact(8).enumerate() {
            let c = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            at = at.checked_add(c).filter(|&a| a <= n).ok_or_else(|| bad_length(footer_at + 8 * i as u64))?;
            starts.push(at);
        }
        if at != n {
            return Err(bad_length(footer_at));
        }
        Ok(RunReader { path: path.to_path_buf(), file, level, layout, starts })
    }

    /// Events in `bucket`.
    pub fn len(&self, bucket: usize) -> u64 {
        self.starts[bucket + 1] - self.starts[bucket]
    }

    /// Events in the run.
    pub fn total(&self) -> u64 {
        self.starts[BUCKETS]
    }

    /// Hands `bucket`'s events to `f`, in order, a chunk at a time.
    pub fn read_bucket<E: From<RunError>>(
        &self,
        bucket: usize,
        buf: &mut Vec<u8>,
        events: &mut Vec<Event>,
        mut f: impl FnMut(&[Event]) -> Result<(), E>,
    ) -> Result<(), E> {
        let (mut at, end) = (self.starts[bucket], self.starts[bucket + 1]);
        while at < end {
            let take = (end - at).min(CHUNK_EVENTS as u64);
            events.clear();
            self.read_chunk(bucket, at, take, buf, events)?;
            f(events)?;
            at += take;
        }
        Ok(())
    }

    /// Appends `bucket`'s events to `out`, in order.
    pub fn append_bucket(&self, bucket: usize, buf: &mut Vec<u8>, out: &mut Vec<Event>) -> Result<(), RunError> {
        let (mut at, end) = (self.starts[bucket], self.starts[bucket + 1]);
        out.reserve((end - at) as usize);
        while at < end {
            let take = (end - at).min(CHUNK_EVENTS as u64);
            self.read_chunk(bucket, at, take, buf, out)?;
            at += take;
        }
        Ok(())
    }

    /// Reads `take` events of `bucket` from event `at` on, checked, onto `out`.
    fn read_chunk(
        &self,
        bucket: usize,
        at: u64,
        take: u64,
        buf: &mut Vec<u8>,
        out: &mut Vec<Event>,
    ) -> Result<(), RunError> {
        let len = self.layout.event_len();
        let offset = HEADER_LEN + at * len as u64;
        buf.resize(take as usize * len, 0);
        self.file.read_exact_at(buf, offset).map_err(io_err(&self.path))?;
        let level = self.level;
        let bad = |i: usize| RunError::BadEvent { path: self.path.clone(), offset: offset + (i * len) as u64 };
        out.reserve(take as usize);
        match self.layout {
            Layout::Full => {
                for (i, b) in buf.chunks_exact(len).enumerate() {
                    let e = decode(b).filter(|e| bucket_of(e.key(), level) == bucket).ok_or_else(|| bad(i))?;
                    out.push(e);
                }
            }
            Layout::Compact => {
                for (i, b) in buf.chunks_exact(len).enumerate() {
                    out.push(decode_compact(b, bucket, level).ok_or_else(|| bad(i))?);
                }
            }
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Cuts the file before bucket `bucket`'s events: they and every later
    /// bucket's are no longer needed, and their pages are given back now
    /// rather than all at once when the run is deleted. Earlier buckets
    /// read as before (the index is in memory).
    pub fn release_from(&self, bucket: usize) -> io::Result<()> {
        let at = HEADER_LEN + self.starts[bucket.min(BUCKETS)] * self.layout.event_len() as u64;
        self.file.set_len(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::TempDir;

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
        let mut w = RunWriter::create(&path, 0, layout).unwrap();
        for (b, events) in sample(layout) {
            w.write_bucket(b, &events).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 6);
        path
    }

    fn read_all(r: &RunReader, bucket: usize) -> Result<Vec<Event>, RunError> {
        let mut out = Vec::new();
        r.read_bucket(bucket, &mut Vec::new(), &mut Vec::new(), |e: &[Event]| {
            out.extend_from_slice(e);
            Ok::<(), RunError>(())
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
            let r = RunReader::open(&path, 0, layout).unwrap();
            assert_eq!(r.total(), 6);
            for (b, events) in sample(layout) {
                assert_eq!(r.len(b), events.len() as u64);
                assert_eq!(read_all(&r, b).unwrap(), events, "{layout:?}");
            }
            assert!(read_all(&r, 1).unwrap().is_empty());
        }
    }

    #[test]
    fn compact_events_keep_every_key_bit_at_every_level() {
        let dir = TempDir::new("run-compact");
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for level in 0..=MAX_LEVEL {
            let mut by_bucket = vec![Vec::new(); BUCKETS];
            for i in 0..3000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let key = [x, !x & 0xFFF0_0000_0000_000F, x | 0xFFFF_0000_0000_FFFF][(i % 3) as usize];
                by_bucket[bucket_of(key, level)].push(Event::new(
                    key,
                    (x >> 40) as u16 & 0x7FFF,
                    0,
                    (i % 3) as u8,
                    i % 2 == 0,
                ));
            }
            let path = dir.file(&format!("l{level}"));
            let mut w = RunWriter::create(&path, level, Layout::Compact).unwrap();
            for (b, events) in by_bucket.iter().enumerate() {
                w.write_bucket(b, events).unwrap();
            }
            w.finish().unwrap();
            let r = RunReader::open(&path, level, Layout::Compact).unwrap();
            for (b, events) in by_bucket.iter().enumerate() {
                assert_eq!(&read_all(&r, b).unwrap(), events, "level {level}, bucket {b}");
            }
        }
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
    fn rejects_truncated_runs_the_wrong_level_and_the_wrong_layout() {
        for layout in [Layout::Full, Layout::Compact] {
            let dir = TempDir::new("run-trunc");
            let path = write(&dir, "r", layout);
            let bytes = std::fs::read(&path).unwrap();
            let other = if layout == Layout::Full { Layout::Compact } else { Layout::Full };
            assert!(matches!(RunReader::open(&path, 1, layout), Err(RunError::BadHeader { offset: 0, .. })));
            assert!(matches!(RunReader::open(&path, 0, other), Err(RunError::BadHeader { offset: 0, .. })));
            for cut in [0, 10, 16, 40, bytes.len() - 1] {
                std::fs::write(&path, &bytes[..cut]).unwrap();
                let r = RunReader::open(&path, 0, layout);
                assert!(matches!(r, Err(RunError::BadLength { .. })), "{layout:?}, cut at {cut}");
            }
        }
    }

    #[test]
    fn rejects_counts_that_do_not_add_up() {
        let dir = TempDir::new("run-counts");
        let path = write(&dir, "r", Layout::Full);
        let mut bytes = std::fs::read(&path).unwrap();
        let footer = 16 + 6 * 12;
        bytes[footer] = 1; // bucket 0 now says 1, not 2
        std::fs::write(&path, &bytes).unwrap();
        assert!(
            matches!(RunReader::open(&path, 0, Layout::Full), Err(RunError::BadLength { offset, .. }) if offset == footer as u64)
        );
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
            let r = RunReader::open(&path, 0, Layout::Full).unwrap();
            assert!(matches!(read_all(&r, 0), Err(RunError::BadEvent { offset: 28, .. })), "byte {at}");
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
            let r = RunReader::open(&path, 0, Layout::Compact).unwrap();
            assert!(matches!(read_all(&r, 0), Err(RunError::BadEvent { offset: 25, .. })), "bits {value:#x}");
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        for layout in [Layout::Full, Layout::Compact] {
            let dir = TempDir::new("run-fuzz");
            let path = dir.file("r");
            let clean = std::fs::read(write(&dir, "good", layout)).unwrap();
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            for _ in 0..300 {
                let mut bytes = clean.clone();
                for _ in 0..4 {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let i = (x % bytes.len() as u64) as usize;
                    bytes[i] = (x >> 32) as u8;
                }
                std::fs::write(&path, &bytes).unwrap();
                if let Ok(r) = RunReader::open(&path, 0, layout) {
                    for b in 0..BUCKETS {
                        let _ = read_all(&r, b);
                    }
                }
            }
        }
    }
}
