//! The spill file: items held by bucket of keys ([`super::held`]),
//! written to a temporary directory whenever they reach their limit and
//! read back one bucket at a time (by several threads at once). A
//! private, short-lived format (never kept), validated all the same: a
//! damaged or truncated file is a [`SpillError`], never a panic or a
//! wrong answer.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ABEV` |
//! | 4 | 1 | version, 4 |
//! | 5 | 1 | level `L` (0 to [`MAX_LEVEL`]): the file's buckets are those of level `L` ([`bucket_of`]) |
//! | 6 | 1 | item length `E` ([`Encoding::item_len`]: `book build`'s events take 12 or 9, [`super::Pairs`] 16) |
//! | 7 | 1 | reserved, 0 |
//! | 8 | 8 | item count `n`, u64 LE |
//! | 16 | `E`·`n` | the items, bucket after bucket, each bucket's in input order |
//! | 16 + `E`·`n` | 8·4096 | each bucket's item count, u64 LE (they add up to `n`) |
//!
//! The reader checks the magic, the version, the level, the item length
//! and the reserved byte, that the counts add up to `n` and the file's
//! length to what they say, and each item as it decodes it
//! ([`Encoding::decode`]).

use super::{bucket_of, Encoding, BUCKETS, MAX_LEVEL};
use crate::codec::{Fixed, PathIoError, Put, Reader, Truncated};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ABEV";
pub const VERSION: u8 = 4;
/// Bytes before the first item.
pub const HEADER_LEN: u64 = 16;
/// Bytes of the bucket counts after the items.
pub const FOOTER_LEN: u64 = 8 * BUCKETS as u64;
/// Bytes an open file's index takes in memory.
pub const INDEX_BYTES: usize = 8 * (BUCKETS + 1);
/// Items read at once.
const CHUNK_ITEMS: usize = 1 << 14;
/// Bytes [`SpillWriter`] gathers before writing them.
const WRITE_BYTES: usize = 1 << 20;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SpillError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error(
        "{path}: not a run file of level {level} (bad magic, version, level or reserved bytes) at offset {offset}"
    )]
    BadHeader { path: PathBuf, level: u8, offset: u64 },
    #[error("{path}: the file's length or bucket counts disagree with its header at offset {offset}")]
    BadLength { path: PathBuf, offset: u64 },
    #[error("{path}: item out of range or in the wrong bucket at offset {offset}")]
    BadItem { path: PathBuf, offset: u64 },
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> SpillError + '_ {
    move |source| SpillError::Io(PathIoError::new(path, source))
}

/// Reads `buf.len()` bytes of `file` at `offset` without moving a shared
/// cursor, so several threads read one file at once.
#[cfg(unix)]
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
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
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _held = LOCK.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// Writes a spill file, bucket after bucket.
pub struct SpillWriter<C: Encoding> {
    path: PathBuf,
    file: File,
    level: u8,
    encoding: C,
    counts: Vec<u64>,
    /// The bucket written last (buckets come in ascending order).
    bucket: usize,
    /// Encoded items not yet written: items are encoded straight into it
    /// (a file is written a few items at a time, one bucket of one batch
    /// after another).
    buf: Vec<u8>,
}

impl<C: Encoding> SpillWriter<C> {
    pub fn create(path: &Path, level: u8, encoding: C) -> Result<SpillWriter<C>, SpillError> {
        let file = File::create(path).map_err(io_err(path))?;
        let mut buf = Vec::with_capacity(WRITE_BYTES + CHUNK_ITEMS * encoding.item_len());
        buf.extend_from_slice(&header(level, encoding.item_len(), 0));
        Ok(SpillWriter { path: path.to_path_buf(), file, level, encoding, counts: vec![0; BUCKETS], bucket: 0, buf })
    }

    /// Appends items of `bucket` (all of whose keys are in it): buckets
    /// come in ascending order, one bucket possibly in several calls.
    pub fn write_bucket(&mut self, bucket: usize, items: &[C::Item]) -> Result<(), SpillError> {
        debug_assert!(items.iter().all(|e| bucket_of(C::key(e), self.level) == bucket));
        self.enter(bucket, items.len());
        for chunk in items.chunks(CHUNK_ITEMS) {
            self.encoding.append(chunk, self.level, &mut self.buf);
            self.write_when_full()?;
        }
        Ok(())
    }

    /// Appends items of `bucket` already encoded at level 0 (a held
    /// batch's, [`Encoding::holds_encoded`]) to a file of level 0;
    /// buckets come in ascending order.
    pub fn write_encoded(&mut self, bucket: usize, encoded: &[u8]) -> Result<(), SpillError> {
        assert!(self.level == 0, "held batches are encoded at level 0");
        self.enter(bucket, encoded.len() / self.encoding.item_len());
        self.buf.extend_from_slice(encoded);
        self.write_when_full()
    }

    /// Counts `n` more items of `bucket`, which comes in ascending order.
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

    /// Writes the bucket counts and the header's item count; gives the
    /// number of items.
    pub fn finish(mut self) -> Result<u64, SpillError> {
        let n: u64 = self.counts.iter().sum();
        let path = self.path;
        for c in &self.counts {
            self.buf.extend_from_slice(&c.to_le_bytes());
        }
        self.file.write_all(&self.buf).map_err(io_err(&path))?;
        self.file.seek(SeekFrom::Start(0)).map_err(io_err(&path))?;
        self.file.write_all(&header(self.level, self.encoding.item_len(), n)).map_err(io_err(&path))?;
        Ok(n)
    }
}

fn header(level: u8, item_len: usize, n: u64) -> [u8; HEADER_LEN as usize] {
    let mut h = Fixed::<{ HEADER_LEN as usize }>::new();
    h.put(MAGIC);
    h.put_u8(VERSION);
    h.put_u8(level);
    h.put_u8(item_len as u8);
    h.put_u8(0);
    h.put_u64_le(n);
    h.into_array()
}

/// A spill file opened for reading, one bucket at a time (by several
/// threads at once).
pub struct SpillReader<C: Encoding> {
    path: PathBuf,
    file: File,
    level: u8,
    encoding: C,
    /// Where each bucket's items start (in items); `BUCKETS + 1` entries.
    starts: Vec<u64>,
}

impl<C: Encoding> SpillReader<C> {
    /// Opens a spill file of `level` and `encoding` and checks its header
    /// and counts.
    pub fn open(path: &Path, level: u8, encoding: C) -> Result<SpillReader<C>, SpillError> {
        // Writable too, to be cut short as it is used up ([`SpillReader::release_from`]).
        let mut file = std::fs::OpenOptions::new().read(true).write(true).open(path).map_err(io_err(path))?;
        let len = file.metadata().map_err(io_err(path))?.len();
        let mut h = [0u8; HEADER_LEN as usize];
        let bad_length = |offset| SpillError::BadLength { path: path.to_path_buf(), offset };
        if len < HEADER_LEN + FOOTER_LEN {
            return Err(bad_length(len));
        }
        file.read_exact(&mut h).map_err(io_err(path))?;
        let bad_header = || SpillError::BadHeader { path: path.to_path_buf(), level, offset: 0 };
        let mut r = Reader::new(&h);
        let fields = (|| Ok::<_, Truncated>((r.array::<4>()?, r.u8()?, r.u8()?, r.u8()?, r.u8()?, r.u64_le()?)))();
        let (magic, version, file_level, item_len, reserved, n) = fields.map_err(|_| bad_header())?;
        if &magic != MAGIC
            || version != VERSION
            || file_level != level
            || level > MAX_LEVEL
            || usize::from(item_len) != encoding.item_len()
            || reserved != 0
        {
            return Err(bad_header());
        }
        let body = n.checked_mul(encoding.item_len() as u64).ok_or_else(|| bad_length(8))?;
        if HEADER_LEN.checked_add(body).and_then(|b| b.checked_add(FOOTER_LEN)) != Some(len) {
            return Err(bad_length(8));
        }
        let footer_at = HEADER_LEN + body;
        let mut footer = vec![0u8; FOOTER_LEN as usize];
        read_exact_at(&file, &mut footer, footer_at).map_err(io_err(path))?;
        let mut starts = Vec::with_capacity(BUCKETS + 1);
        let mut at = 0u64;
        starts.push(0);
        let mut counts = Reader::new(&footer);
        for i in 0..BUCKETS {
            let count = counts.u64_le().map_err(|_| bad_length(footer_at + 8 * i as u64))?;
            at = at.checked_add(count).filter(|&a| a <= n).ok_or_else(|| bad_length(footer_at + 8 * i as u64))?;
            starts.push(at);
        }
        if at != n {
            return Err(bad_length(footer_at));
        }
        Ok(SpillReader { path: path.to_path_buf(), file, level, encoding, starts })
    }

    /// Items in `bucket`.
    pub fn len(&self, bucket: usize) -> u64 {
        self.starts[bucket + 1] - self.starts[bucket]
    }

    /// Hands `bucket`'s items to `f`, in order, a chunk at a time.
    pub fn read_bucket<E: From<SpillError>>(
        &self,
        bucket: usize,
        buf: &mut Vec<u8>,
        items: &mut Vec<C::Item>,
        mut f: impl FnMut(&[C::Item]) -> Result<(), E>,
    ) -> Result<(), E> {
        let (mut at, end) = (self.starts[bucket], self.starts[bucket + 1]);
        while at < end {
            let take = (end - at).min(CHUNK_ITEMS as u64);
            items.clear();
            self.read_chunk(bucket, at, take, buf, items)?;
            f(items)?;
            at += take;
        }
        Ok(())
    }

    /// Appends `bucket`'s items to `out`, in order.
    pub fn append_bucket(&self, bucket: usize, buf: &mut Vec<u8>, out: &mut Vec<C::Item>) -> Result<(), SpillError> {
        let (mut at, end) = (self.starts[bucket], self.starts[bucket + 1]);
        out.reserve((end - at) as usize);
        while at < end {
            let take = (end - at).min(CHUNK_ITEMS as u64);
            self.read_chunk(bucket, at, take, buf, out)?;
            at += take;
        }
        Ok(())
    }

    /// Reads `take` items of `bucket` from item `at` on, checked, onto `out`.
    fn read_chunk(
        &self,
        bucket: usize,
        at: u64,
        take: u64,
        buf: &mut Vec<u8>,
        out: &mut Vec<C::Item>,
    ) -> Result<(), SpillError> {
        let len = self.encoding.item_len();
        let offset = HEADER_LEN + at * len as u64;
        buf.resize(take as usize * len, 0);
        read_exact_at(&self.file, buf, offset).map_err(io_err(&self.path))?;
        self.encoding
            .decode(buf, bucket, self.level, out)
            .map_err(|i| SpillError::BadItem { path: self.path.clone(), offset: offset + (i * len) as u64 })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Cuts the file before bucket `bucket`'s items: they and every later
    /// bucket's are no longer needed, and their pages are given back now
    /// rather than all at once when the file is deleted. Earlier buckets
    /// read as before (the index is in memory).
    pub fn release_from(&self, bucket: usize) -> io::Result<()> {
        let at = HEADER_LEN + self.starts[bucket.min(BUCKETS)] * self.encoding.item_len() as u64;
        self.file.set_len(at)
    }
}
