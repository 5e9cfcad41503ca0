//! The spill file: the counting events `book build` writes to its
//! temporary directory whenever the events it holds reach the memory
//! budget ([`super::held`]), grouped by bucket of keys, and reads back
//! one bucket at a time. A private, short-lived format (never kept),
//! validated all the same: a damaged or truncated file is a
//! [`SpillError`], never a panic or a wrong count.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ABEV` |
//! | 4 | 1 | version, 4 |
//! | 5 | 1 | level `L` (0 to [`MAX_LEVEL`]): the file's buckets are those of level `L` ([`bucket_of`]) |
//! | 6 | 1 | event length `E`: 12 (full events) or 9 (compact) ([`Layout`], byte layouts in [`super::event`]) |
//! | 7 | 1 | reserved, 0 |
//! | 8 | 8 | event count `n`, u64 LE |
//! | 16 | `E`·`n` | the events, bucket after bucket, each bucket's in input order |
//! | 16 + `E`·`n` | 8·4096 | each bucket's event count, u64 LE (they add up to `n`) |
//!
//! The reader checks the magic, the version, the level, the event length
//! and the reserved byte, that the counts add up to `n` and the file's
//! length to what they say, and each event as it decodes it
//! ([`Layout::decode`]).

use super::event::{bucket_of, Event, Layout, BUCKETS, MAX_LEVEL};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ABEV";
pub const VERSION: u8 = 4;
const HEADER_LEN: u64 = 16;
const FOOTER_LEN: u64 = 8 * BUCKETS as u64;
/// Bytes an open file's index takes in memory.
pub const INDEX_BYTES: usize = 8 * (BUCKETS + 1);
/// Events read at once.
const CHUNK_EVENTS: usize = 1 << 14;
/// Bytes [`SpillWriter`] gathers before writing them.
const WRITE_BYTES: usize = 1 << 20;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SpillError {
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

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SpillError + '_ {
    move |source| SpillError::Io { path: path.to_path_buf(), source }
}

/// Reads `buf.len()` bytes of `file` at `offset` without moving a shared
/// cursor, so several threads read one file at once.
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                let rest = buf;
                buf = &mut rest[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Elsewhere: a seek and a read under a lock, one reader at a time.
#[cfg(not(any(unix, windows)))]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _held = LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// Writes a spill file, bucket after bucket.
pub struct SpillWriter {
    path: PathBuf,
    file: File,
    level: u8,
    layout: Layout,
    counts: Vec<u64>,
    /// The bucket written last (buckets come in ascending order).
    bucket: usize,
    /// Encoded events not yet written: events are encoded straight into
    /// it (a file is written a few events at a time, one bucket of one
    /// batch after another).
    buf: Vec<u8>,
}

impl SpillWriter {
    pub fn create(path: &Path, level: u8, layout: Layout) -> Result<SpillWriter, SpillError> {
        let file = File::create(path).map_err(io_err(path))?;
        let mut buf = Vec::with_capacity(WRITE_BYTES + CHUNK_EVENTS * layout.event_len());
        buf.extend_from_slice(&header(level, layout, 0));
        Ok(SpillWriter { path: path.to_path_buf(), file, level, layout, counts: vec![0; BUCKETS], bucket: 0, buf })
    }

    /// Appends events of `bucket` (all of whose keys are in it): buckets
    /// come in ascending order, one bucket possibly in several calls.
    pub fn write_bucket(&mut self, bucket: usize, events: &[Event]) -> Result<(), SpillError> {
        debug_assert!(events.iter().all(|e| bucket_of(e.key(), self.level) == bucket));
        self.enter(bucket, events.len());
        for chunk in events.chunks(CHUNK_EVENTS) {
            self.layout.append(chunk, self.level, &mut self.buf);
            self.write_when_full()?;
        }
        Ok(())
    }

    /// Appends events of `bucket` packed by [`super::event::pack_compact`]
    /// (a file of level 0 and the compact layout); buckets come in
    /// ascending order.
    pub fn write_packed(&mut self, bucket: usize, packed: &[u8]) -> Result<(), SpillError> {
        let len = Layout::Compact.event_len();
        assert!(self.layout == Layout::Compact && self.level == 0, "packed events are compact, of level 0");
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
    fn write_when_full(&mut self) -> Result<(), SpillError> {
        if self.buf.len() >= WRITE_BYTES {
            self.file.write_all(&self.buf).map_err(io_err(&self.path))?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Writes the bucket counts and the header's event count; gives the
    /// number of events.
    pub fn finish(mut self) -> Result<u64, SpillError> {
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

/// A spill file opened for reading, one bucket at a time (by several
/// threads at once).
pub struct SpillReader {
    path: PathBuf,
    file: File,
    level: u8,
    layout: Layout,
    /// Where each bucket's events start (in events); `BUCKETS + 1` entries.
    starts: Vec<u64>,
}

impl SpillReader {
    /// Opens a spill file of `level` and `layout` and checks its header
    /// and counts.
    pub fn open(path: &Path, level: u8, layout: Layout) -> Result<SpillReader, SpillError> {
        // Writable too, to be cut short as it is used up ([`SpillReader::release_from`]).
        let mut file = std::fs::OpenOptions::new().read(true).write(true).open(path).map_err(io_err(path))?;
        let len = file.metadata().map_err(io_err(path))?.len();
        let mut h = [0u8; HEADER_LEN as usize];
        let bad_length = |offset| SpillError::BadLength { path: path.to_path_buf(), offset };
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
            return Err(SpillError::BadHeader { path: path.to_path_buf(), level, offset: 0 });
        }
        let mut count = [0u8; 8];
        count.copy_from_slice(&h[8..16]);
        let n = u64::from_le_bytes(count);
        let body = n.checked_mul(layout.event_len() as u64).ok_or_else(|| bad_length(8))?;
        if HEADER_LEN.checked_add(body).and_then(|b| b.checked_add(FOOTER_LEN)) != Some(len) {
            return Err(bad_length(8));
        }
        let footer_at = HEADER_LEN + body;
        let mut footer = vec![0u8; FOOTER_LEN as usize];
        read_exact_at(&file, &mut footer, footer_at).map_err(io_err(path))?;
        let mut starts = Vec::with_capacity(BUCKETS + 1);
        let mut at = 0u64;
        starts.push(0);
        for (i, c) in footer.chunks_exact(8).enumerate() {
            count.copy_from_slice(c);
            at = at
                .checked_add(u64::from_le_bytes(count))
                .filter(|&a| a <= n)
                .ok_or_else(|| bad_length(footer_at + 8 * i as u64))?;
            starts.push(at);
        }
        if at != n {
            return Err(bad_length(footer_at));
        }
        Ok(SpillReader { path: path.to_path_buf(), file, level, layout, starts })
    }

    /// Events in `bucket`.
    pub fn len(&self, bucket: usize) -> u64 {
        self.starts[bucket + 1] - self.starts[bucket]
    }

    /// Hands `bucket`'s events to `f`, in order, a chunk at a time.
    pub fn read_bucket<E: From<SpillError>>(
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
    pub fn append_bucket(&self, bucket: usize, buf: &mut Vec<u8>, out: &mut Vec<Event>) -> Result<(), SpillError> {
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
    ) -> Result<(), SpillError> {
        let len = self.layout.event_len();
        let offset = HEADER_LEN + at * len as u64;
        buf.resize(take as usize * len, 0);
        read_exact_at(&self.file, buf, offset).map_err(io_err(&self.path))?;
        self.layout
            .decode(buf, bucket, self.level, out)
            .map_err(|i| SpillError::BadEvent { path: self.path.clone(), offset: offset + (i * len) as u64 })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Cuts the file before bucket `bucket`'s events: they and every later
    /// bucket's are no longer needed, and their pages are given back now
    /// rather than all at once when the file is deleted. Earlier buckets
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
        let mut w = SpillWriter::create(&path, 0, layout).unwrap();
        for (b, events) in sample(layout) {
            w.write_bucket(b, &events).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 6);
        path
    }

    fn read_all(r: &SpillReader, bucket: usize) -> Result<Vec<Event>, SpillError> {
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
    fn rejects_counts_that_do_not_add_up() {
        let dir = TempDir::new("run-counts");
        let path = write(&dir, "r", Layout::Full);
        let mut bytes = std::fs::read(&path).unwrap();
        let footer = 16 + 6 * 12;
        bytes[footer] = 1; // bucket 0 now says 1, not 2
        std::fs::write(&path, &bytes).unwrap();
        assert!(
            matches!(SpillReader::open(&path, 0, Layout::Full), Err(SpillError::BadLength { offset, .. }) if offset == footer as u64)
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
            let r = SpillReader::open(&path, 0, Layout::Full).unwrap();
            assert!(matches!(read_all(&r, 0), Err(SpillError::BadEvent { offset: 28, .. })), "byte {at}");
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
            assert!(matches!(read_all(&r, 0), Err(SpillError::BadEvent { offset: 25, .. })), "bits {value:#x}");
        }
    }

    #[test]
    fn a_file_cut_after_opening_is_an_io_error_not_a_panic() {
        let dir = TempDir::new("run-cut");
        let path = write(&dir, "r", Layout::Full);
        let r = SpillReader::open(&path, 0, Layout::Full).unwrap();
        r.release_from(0).unwrap();
        assert!(matches!(read_all(&r, 4095), Err(SpillError::Io { .. })));
    }

    #[test]
    fn random_bytes_never_panic() {
        for layout in [Layout::Full, Layout::Compact] {
            let dir = TempDir::new("run-fuzz");
            let path = dir.file("r");
            let clean = std::fs::read(write(&dir, "good", layout)).unwrap();
            let mut rng = crate::codec::SplitMix64::new(0x9E37_79B9_7F4A_7C15);
            for _ in 0..300 {
                let mut bytes = clean.clone();
                for _ in 0..4 {
                    let i = rng.below_usize(bytes.len());
                    bytes[i] = rng.next_u64() as u8;
                }
                std::fs::write(&path, &bytes).unwrap();
                if let Ok(r) = SpillReader::open(&path, 0, layout) {
                    for b in 0..BUCKETS {
                        let _ = read_all(&r, b);
                    }
                }
            }
        }
    }
}
