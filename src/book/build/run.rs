//! Sorted runs: the counts `book build` spills to its temporary directory
//! when its table is full, read back once by the final merge. A private,
//! short-lived format (never kept), validated all the same. Records are
//! variable-length: nearly every spilled record is a move met once, and
//! a run's keys climb in small steps, so a record takes about 19 bytes
//! where a fixed layout would take 40 (less to write and to read back).
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ABRN` |
//! | 4 | 1 | version, 2 |
//! | 5 | 3 | reserved, 0 |
//! | 8 | 8 | record count `n`, u64 LE |
//! | 16 | … | `n` records, strictly ascending by (key, move) |
//!
//! A record (varints are LEB128: 7 bits a byte, low bits first, at most
//! 10 bytes, no bits past 64; little-endian otherwise):
//!
//! | size | field |
//! |---|---|
//! | 1–10 | varint: key minus the previous record's key (the first record: the key) |
//! | 2 | move (Polyglot or engine move; 0xFFFF: the position's head) |
//! | 1 | flags: bit 0 white moved, bit 1 halved, bit 2 split (merged from several runs), bit 3 short form, bits 4–5 points of the short form, bits 6–7 0 |
//! | 1–10 | varint: first ply that met it (`file << 56 \| game << 16 \| ply`) |
//! | 4–40 | long form only: varints n (times played or visited), points, rated games (heads), sum of ratings (heads) |
//!
//! The short form is a record met once: n 1, its points in the flags, no
//! ratings. The reader checks the magic, the version, the reserved bits,
//! the order, that n, points and rated games fit 32 bits, and that the
//! file holds exactly `n` records.

use super::table::{Rec, HALVED, SPLIT, WHITE};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ABRN";
pub const VERSION: u8 = 2;
pub const HEADER_LEN: u64 = 16;
/// The longest record: 3 fixed bytes and 6 varints of at most 10 bytes.
pub const MAX_RECORD_LEN: usize = 3 + 6 * 10;
/// Bytes a reader buffers: a merge holds one such buffer per run.
pub const READ_BUFFER: usize = 1 << 15;

/// Flag: the record is in the short form.
const SHORT: u8 = 8;
const POINTS_SHIFT: u8 = 4;
/// The record's own flags, stored as they are.
const RECORD_FLAGS: u8 = WHITE | HALVED | SPLIT;
const KNOWN_FLAGS: u8 = RECORD_FLAGS | SHORT | 3 << POINTS_SHIFT;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: not a run file (bad magic or version) at offset {offset}")]
    BadHeader { path: PathBuf, offset: u64 },
    #[error("{path}: truncated at offset {offset}")]
    Truncated { path: PathBuf, offset: u64 },
    #[error("{path}: record out of order at offset {offset}")]
    Unsorted { path: PathBuf, offset: u64 },
    #[error("{path}: reserved bits or an out-of-range field at offset {offset}")]
    BadRecord { path: PathBuf, offset: u64 },
}

#[inline]
fn put_varint(out: &mut [u8], len: &mut usize, mut v: u64) {
    while v >= 0x80 {
        out[*len] = v as u8 | 0x80;
        *len += 1;
        v >>= 7;
    }
    out[*len] = v as u8;
    *len += 1;
}

/// Encodes `r` after a record of key `prev` (0 for the first) into `out`
/// (at least [`MAX_RECORD_LEN`] bytes); gives the length.
#[inline]
fn encode(r: &Rec, prev: u64, out: &mut [u8]) -> usize {
    let mut len = 0;
    put_varint(out, &mut len, r.key.wrapping_sub(prev));
    out[len..len + 2].copy_from_slice(&r.mv.to_le_bytes());
    let flags = r.flags & RECORD_FLAGS;
    let short = r.n == 1 && r.sum <= 3 && r.rating_n == 0 && r.rating_sum == 0;
    out[len + 2] = if short { flags | SHORT | (r.sum as u8) << POINTS_SHIFT } else { flags };
    len += 3;
    put_varint(out, &mut len, r.first);
    if !short {
        for v in [r.n as u64, r.sum as u64, r.rating_n as u64, r.rating_sum] {
            put_varint(out, &mut len, v);
        }
    }
    len
}

/// Why a record could not be decoded.
enum Bad {
    /// The bytes ended inside it.
    Short,
    /// Reserved bits, an overlong varint or a field out of range.
    Invalid,
}

#[inline]
fn get_varint(b: &[u8], pos: &mut usize) -> Result<u64, Bad> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*pos).ok_or(Bad::Short)?;
        *pos += 1;
        // The tenth byte holds bit 63 alone.
        if shift == 63 && byte > 1 {
            return Err(Bad::Invalid);
        }
        v |= ((byte & 0x7F) as u64) << shift;
        if byte < 0x80 {
            return Ok(v);
        }
    }
    Err(Bad::Invalid)
}

/// Decodes the record at the start of `b`, after a record of key `prev`:
/// the record and its length.
fn decode(b: &[u8], prev: u64) -> Result<(Rec, usize), Bad> {
    let mut pos = 0;
    let delta = get_varint(b, &mut pos)?;
    let fixed = b.get(pos..pos + 3).ok_or(Bad::Short)?;
    let mv = u16::from_le_bytes([fixed[0], fixed[1]]);
    let flags = fixed[2];
    pos += 3;
    if flags & !KNOWN_FLAGS != 0 || (flags & SHORT == 0 && flags >> POINTS_SHIFT != 0) {
        return Err(Bad::Invalid);
    }
    let first = get_varint(b, &mut pos)?;
    let key = prev.checked_add(delta).ok_or(Bad::Invalid)?;
    let mut r = Rec { key, first, mv, flags: flags & RECORD_FLAGS, ..Rec::default() };
    if flags & SHORT != 0 {
        r.n = 1;
        r.sum = (flags >> POINTS_SHIFT) as u32;
    } else {
        let small = |v: u64| u32::try_from(v).map_err(|_| Bad::Invalid);
        r.n = small(get_varint(b, &mut pos)?)?;
        r.sum = small(get_varint(b, &mut pos)?)?;
        r.rating_n = small(get_varint(b, &mut pos)?)?;
        r.rating_sum = get_varint(b, &mut pos)?;
    }
    Ok((r, pos))
}

/// Bytes a writer gathers before writing them out.
const WRITE_BUFFER: usize = 1 << 16;

/// Writes one run; records must come in ascending (key, move) order.
/// Records are encoded straight into its buffer.
pub struct RunWriter {
    path: PathBuf,
    file: File,
    buf: Box<[u8]>,
    len: usize,
    count: u64,
    prev: u64,
}

impl RunWriter {
    pub fn create(path: &Path) -> Result<RunWriter, RunError> {
        let file = File::create(path).map_err(|source| RunError::Io { path: path.to_path_buf(), source })?;
        let mut buf = vec![0u8; WRITE_BUFFER + MAX_RECORD_LEN].into_boxed_slice();
        buf[0..4].copy_from_slice(MAGIC);
        buf[4] = VERSION;
        let len = HEADER_LEN as usize;
        Ok(RunWriter { path: path.to_path_buf(), file, buf, len, count: 0, prev: 0 })
    }

    #[inline]
    pub fn push(&mut self, r: &Rec) -> Result<(), RunError> {
        if self.len >= WRITE_BUFFER {
            self.flush()?;
        }
        self.len += encode(r, self.prev, &mut self.buf[self.len..]);
        self.prev = r.key;
        self.count += 1;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), RunError> {
        self.file
            .write_all(&self.buf[..self.len])
            .map_err(|source| RunError::Io { path: self.path.clone(), source })?;
        self.len = 0;
        Ok(())
    }

    /// Writes the record count into the header and closes the file.
    pub fn finish(mut self) -> Result<u64, RunError> {
        self.flush()?;
        let io_err = |source| RunError::Io { path: self.path.clone(), source };
        self.file.seek(SeekFrom::Start(8)).map_err(io_err)?;
        self.file.write_all(&self.count.to_le_bytes()).map_err(io_err)?;
        Ok(self.count)
    }
}

/// Reads a run's records in order, validating as it goes, through a
/// [`READ_BUFFER`] of bytes.
pub struct RunReader<R> {
    path: PathBuf,
    input: R,
    count: u64,
    /// Records handed out.
    read: u64,
    last: Option<(u64, u16)>,
    failed: bool,
    /// Bytes read and not yet decoded: `buf[pos..end]`; `base` is the file
    /// offset of `buf[0]`.
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    base: u64,
    /// The input has ended (after `buf[..end]`).
    eof: bool,
}

impl RunReader<File> {
    pub fn open(path: &Path) -> Result<Self, RunError> {
        let file = File::open(path).map_err(|source| RunError::Io { path: path.to_path_buf(), source })?;
        RunReader::new(file, path)
    }
}

impl<R: Read> RunReader<R> {
    pub fn new(mut input: R, path: &Path) -> Result<Self, RunError> {
        let mut header = [0u8; HEADER_LEN as usize];
        read_full(&mut input, &mut header, path, 0)?;
        if &header[0..4] != MAGIC || header[4] != VERSION || header[5..8] != [0, 0, 0] {
            return Err(RunError::BadHeader { path: path.to_path_buf(), offset: 0 });
        }
        let mut count = [0u8; 8];
        count.copy_from_slice(&header[8..16]);
        let count = u64::from_le_bytes(count);
        Ok(RunReader {
            path: path.to_path_buf(),
            input,
            count,
            read: 0,
            last: None,
            failed: false,
            buf: vec![0u8; READ_BUFFER].into_boxed_slice(),
            pos: 0,
            end: 0,
            base: HEADER_LEN,
            eof: false,
        })
    }

    fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Moves the undecoded bytes to the front and reads until the buffer
    /// is full or the input ends.
    fn fill(&mut self) -> Result<(), RunError> {
        self.buf.copy_within(self.pos..self.end, 0);
        self.base += self.pos as u64;
        self.end -= self.pos;
        self.pos = 0;
        while self.end < self.buf.len() {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => return Err(RunError::Io { path: self.path.clone(), source }),
            }
        }
        Ok(())
    }

    fn next_record(&mut self) -> Result<Option<Rec>, RunError> {
        if self.end - self.pos < MAX_RECORD_LEN && !self.eof {
            self.fill()?;
        }
        let offset = self.offset();
        if self.read == self.count {
            return if self.pos == self.end {
                Ok(None)
            } else {
                Err(RunError::BadHeader { path: self.path.clone(), offset })
            };
        }
        let prev = self.last.map_or(0, |(k, _)| k);
        let (r, len) = decode(&self.buf[self.pos..self.end], prev).map_err(|bad| match bad {
            Bad::Short => RunError::Truncated { path: self.path.clone(), offset },
            Bad::Invalid => RunError::BadRecord { path: self.path.clone(), offset },
        })?;
        // Keys never decrease (they are sums of deltas): only the move can
        // be out of order.
        if self.last.is_some_and(|l| l >= (r.key, r.mv)) {
            return Err(RunError::Unsorted { path: self.path.clone(), offset });
        }
        self.pos += len;
        self.last = Some((r.key, r.mv));
        self.read += 1;
        Ok(Some(r))
    }
}

fn read_full(input: &mut impl Read, buf: &mut [u8], path: &Path, offset: u64) -> Result<(), RunError> {
    input.read_exact(buf).map_err(|source| match source.kind() {
        io::ErrorKind::UnexpectedEof => RunError::Truncated { path: path.to_path_buf(), offset },
        _ => RunError::Io { path: path.to_path_buf(), source },
    })
}

impl<R: Read> Iterator for RunReader<R> {
    type Item = Result<Rec, RunError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let r = self.next_record().transpose();
        self.failed = matches!(r, Some(Err(_)));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(key: u64, mv: u16) -> Rec {
        Rec { key, mv, n: 3, sum: 4, first: key << 16, flags: WHITE, ..Rec::default() }
    }

    fn image(recs: &[Rec]) -> Vec<u8> {
        // Its own directory: tests writing images run in parallel.
        let dir = crate::testdata::TempDir::new("run-image");
        let path = dir.file("r");
        let mut w = RunWriter::create(&path).unwrap();
        for r in recs {
            w.push(r).unwrap();
        }
        assert_eq!(w.finish().unwrap(), recs.len() as u64);
        std::fs::read(&path).unwrap()
    }

    fn read(bytes: &[u8]) -> Result<Vec<Rec>, RunError> {
        RunReader::new(bytes, Path::new("t"))?.collect()
    }

    #[test]
    fn round_trips_records_in_both_forms() {
        let head = Rec { key: 5, mv: 0xFFFF, n: 70_000, sum: 9, rating_n: 4, rating_sum: 9_000, first: 3, flags: 0 };
        let once = Rec { key: u64::MAX, mv: 7, n: 1, sum: 2, first: u64::MAX, flags: WHITE | HALVED, ..Rec::default() };
        let recs = vec![rec(1, 2), rec(1, 3), head, Rec { flags: WHITE | SPLIT, ..rec(9, 1) }, once];
        assert_eq!(read(&image(&recs)).unwrap(), recs);
    }

    #[test]
    fn a_move_met_once_takes_the_short_form() {
        let once = Rec { key: 1 << 40, mv: 0x1234, n: 1, sum: 1, first: 1 << 20, flags: WHITE, ..Rec::default() };
        let bytes = image(&[once]);
        // Key: 6 varint bytes; move 2; flags 1; first: 3 varint bytes.
        assert_eq!(bytes.len(), 16 + 6 + 3 + 3);
        assert_eq!(bytes[16 + 8], WHITE | SHORT | 1 << POINTS_SHIFT);
    }

    #[test]
    fn rejects_truncated_runs_with_the_offset() {
        let bytes = image(&[rec(1, 2), rec(2, 2)]);
        let second = 16 + (bytes.len() - 16) / 2;
        let cut = &bytes[..bytes.len() - 1];
        assert!(matches!(read(cut), Err(RunError::Truncated { offset, .. }) if offset == second as u64));
        assert!(matches!(read(&bytes[..10]), Err(RunError::Truncated { offset: 0, .. })));
        // A count above the records present.
        let mut more = bytes.clone();
        more[8] = 3;
        assert!(matches!(read(&more), Err(RunError::Truncated { offset, .. }) if offset == bytes.len() as u64));
        // Bytes past the count.
        let mut fewer = bytes.clone();
        fewer[8] = 1;
        assert!(matches!(read(&fewer), Err(RunError::BadHeader { offset, .. }) if offset == second as u64));
    }

    #[test]
    fn rejects_bad_magic_unsorted_and_reserved_bits() {
        let bytes = image(&[rec(1, 2), rec(1, 3)]);
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(matches!(read(&bad), Err(RunError::BadHeader { offset: 0, .. })));
        // Record 1: key varint at 16, move at 17, flags at 19.
        let mut flags = bytes.clone();
        flags[19] = 0x40;
        assert!(matches!(read(&flags), Err(RunError::BadRecord { offset: 16, .. })));
        let mut points = bytes.clone();
        points[19] = WHITE | 1 << POINTS_SHIFT;
        assert!(matches!(read(&points), Err(RunError::BadRecord { offset: 16, .. })));
        // The second record's move below the first's under the same key.
        let second = 16 + (bytes.len() - 16) / 2;
        let mut unsorted = bytes.clone();
        unsorted[second + 1] = 1;
        assert!(matches!(read(&unsorted), Err(RunError::Unsorted { offset, .. }) if offset == second as u64));
        // An overlong varint (11 bytes) as the first key.
        let mut overlong = bytes[..16].to_vec();
        overlong.extend([0x80; 10]);
        overlong.extend([1, 0, 0, 0, 0]);
        assert!(matches!(read(&overlong), Err(RunError::BadRecord { offset: 16, .. })));
    }

    #[test]
    fn rejects_a_key_that_passes_the_top() {
        let bytes = image(&[rec(u64::MAX - 1, 2), rec(u64::MAX, 3)]);
        let second = 16 + 10 + 3 + 10 + 4;
        let mut wrap = bytes.clone();
        // The second delta (1) becomes 2: past u64::MAX.
        wrap[second] = 2;
        assert!(matches!(read(&wrap), Err(RunError::BadRecord { offset, .. }) if offset == second as u64));
    }

    #[test]
    fn reads_runs_longer_than_the_buffer() {
        let recs: Vec<Rec> = (0..5_000u64).map(|i| rec(i * 0x1_0000_0001, (i % 7) as u16)).collect();
        assert_eq!(read(&image(&recs)).unwrap(), recs);
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for len in 0..300 {
            let mut b: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            if len >= 16 {
                b[..8].copy_from_slice(b"ABRN\x02\0\0\0");
            }
            let _ = read(&b);
        }
    }
}
