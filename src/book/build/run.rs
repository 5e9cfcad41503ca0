//! Sorted runs: the counts `book build` spills to its temporary directory
//! when its table is full, read back once by the final merge. A private,
//! short-lived format (never kept), validated all the same.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ABRN` |
//! | 4 | 1 | version, 1 |
//! | 5 | 3 | reserved, 0 |
//! | 8 | 8 | record count `n`, u64 LE |
//! | 16 | 40·n | records, strictly ascending by (key, move) |
//!
//! A record, all little-endian:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | position key (Polyglot or engine key) |
//! | 8 | 8 | first ply that met it (`file << 56 \| game << 16 \| ply`) |
//! | 16 | 8 | sum of ratings (heads) |
//! | 24 | 4 | n: times played or visited |
//! | 28 | 4 | points |
//! | 32 | 4 | rated games (heads) |
//! | 36 | 2 | move (Polyglot or engine move; 0xFFFF: the position's head) |
//! | 38 | 1 | flags: bit 0 white moved, bit 1 halved, bit 2 split (merged from several runs); others 0 |
//! | 39 | 1 | reserved, 0 |
//!
//! The reader checks the magic, the version, the reserved bits, the order
//! and that the file holds exactly `n` records.

use super::table::{Rec, HALVED, SPLIT, WHITE};
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ABRN";
pub const VERSION: u8 = 1;
pub const HEADER_LEN: u64 = 16;
pub const RECORD_LEN: usize = 40;

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
    #[error("{path}: reserved bits set at offset {offset}")]
    BadRecord { path: PathBuf, offset: u64 },
}

fn encode(r: &Rec) -> [u8; RECORD_LEN] {
    let mut b = [0u8; RECORD_LEN];
    b[0..8].copy_from_slice(&r.key.to_le_bytes());
    b[8..16].copy_from_slice(&r.first.to_le_bytes());
    b[16..24].copy_from_slice(&r.rating_sum.to_le_bytes());
    b[24..28].copy_from_slice(&r.n.to_le_bytes());
    b[28..32].copy_from_slice(&r.sum.to_le_bytes());
    b[32..36].copy_from_slice(&r.rating_n.to_le_bytes());
    b[36..38].copy_from_slice(&r.mv.to_le_bytes());
    b[38] = r.flags & (WHITE | HALVED | SPLIT);
    b
}

fn decode(b: &[u8; RECORD_LEN]) -> Option<Rec> {
    let u64_at =
        |i: usize| u64::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3], b[i + 4], b[i + 5], b[i + 6], b[i + 7]]);
    let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    if b[38] & !(WHITE | HALVED | SPLIT) != 0 || b[39] != 0 {
        return None;
    }
    Some(Rec {
        key: u64_at(0),
        first: u64_at(8),
        rating_sum: u64_at(16),
        n: u32_at(24),
        sum: u32_at(28),
        rating_n: u32_at(32),
        mv: u16::from_le_bytes([b[36], b[37]]),
        flags: b[38],
    })
}

/// Writes one run; records must come in ascending (key, move) order.
pub struct RunWriter {
    path: PathBuf,
    out: BufWriter<File>,
    count: u64,
}

impl RunWriter {
    pub fn create(path: &Path) -> Result<RunWriter, RunError> {
        let io_err = |source| RunError::Io { path: path.to_path_buf(), source };
        let mut out = BufWriter::with_capacity(1 << 16, File::create(path).map_err(io_err)?);
        let mut header = [0u8; HEADER_LEN as usize];
        header[0..4].copy_from_slice(MAGIC);
        header[4] = VERSION;
        out.write_all(&header).map_err(io_err)?;
        Ok(RunWriter { path: path.to_path_buf(), out, count: 0 })
    }

    pub fn push(&mut self, r: &Rec) -> Result<(), RunError> {
        self.count += 1;
        self.out.write_all(&encode(r)).map_err(|source| RunError::Io { path: self.path.clone(), source })
    }

    /// Writes the record count into the header and closes the file.
    pub fn finish(self) -> Result<u64, RunError> {
        let path = self.path;
        let io_err = |source| RunError::Io { path: path.clone(), source };
        let mut file = self.out.into_inner().map_err(|e| io_err(e.into_error()))?;
        file.seek(SeekFrom::Start(8)).map_err(io_err)?;
        file.write_all(&self.count.to_le_bytes()).map_err(io_err)?;
        Ok(self.count)
    }
}

/// Reads a run's records in order, validating as it goes. Records are
/// read [`CHUNK`] at a time and decoded from memory.
pub struct RunReader<R> {
    path: PathBuf,
    input: R,
    count: u64,
    /// Records handed out.
    read: u64,
    last: Option<(u64, u16)>,
    failed: bool,
    /// Whole records read and not yet handed out: `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    /// The input ended inside the records (after those in `buf`).
    short: bool,
}

/// Records read at once: 32 kB, the buffer one run's reader holds.
pub const CHUNK: usize = (1 << 15) / RECORD_LEN;

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
            buf: Vec::new(),
            pos: 0,
            short: false,
        })
    }

    fn offset(&self) -> u64 {
        HEADER_LEN + self.read * RECORD_LEN as u64
    }

    /// Reads the next records (up to [`CHUNK`], never past the count) into
    /// `buf`, keeping only whole ones; notes a short input.
    fn fill(&mut self) -> Result<(), RunError> {
        let want = (self.count - self.read).min(CHUNK as u64) as usize * RECORD_LEN;
        self.buf.resize(want, 0);
        let mut got = 0;
        while got < want {
            match self.input.read(&mut self.buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => return Err(RunError::Io { path: self.path.clone(), source }),
            }
        }
        self.short = got < want;
        self.buf.truncate(got - got % RECORD_LEN);
        self.pos = 0;
        Ok(())
    }

    fn next_record(&mut self) -> Result<Option<Rec>, RunError> {
        if self.read == self.count {
            let mut extra = [0u8; 1];
            return match self.input.read(&mut extra) {
                Ok(0) => Ok(None),
                Ok(_) => Err(RunError::BadHeader { path: self.path.clone(), offset: self.offset() }),
                Err(source) => Err(RunError::Io { path: self.path.clone(), source }),
            };
        }
        if self.pos == self.buf.len() {
            if self.short {
                return Err(RunError::Truncated { path: self.path.clone(), offset: self.offset() });
            }
            self.fill()?;
        }
        let offset = self.offset();
        let Some(b) = self.buf.get(self.pos..self.pos + RECORD_LEN).and_then(|b| <&[u8; RECORD_LEN]>::try_from(b).ok())
        else {
            return Err(RunError::Truncated { path: self.path.clone(), offset });
        };
        let r = decode(b).ok_or_else(|| RunError::BadRecord { path: self.path.clone(), offset })?;
        if self.last.is_some_and(|l| l >= (r.key, r.mv)) {
            return Err(RunError::Unsorted { path: self.path.clone(), offset });
        }
        self.pos += RECORD_LEN;
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
    fn round_trips_records() {
        let recs = vec![rec(1, 2), rec(1, 3), rec(5, 0xFFFF), Rec { flags: WHITE | SPLIT, ..rec(9, 1) }];
        let bytes = image(&recs);
        assert_eq!(bytes.len(), 16 + 4 * RECORD_LEN);
        assert_eq!(read(&bytes).unwrap(), recs);
    }

    #[test]
    fn rejects_truncated_runs_with_the_offset() {
        let bytes = image(&[rec(1, 2), rec(2, 2)]);
        let cut = &bytes[..bytes.len() - 3];
        assert!(matches!(read(cut), Err(RunError::Truncated { offset: 56, .. })));
        assert!(matches!(read(&bytes[..10]), Err(RunError::Truncated { offset: 0, .. })));
    }

    #[test]
    fn rejects_bad_magic_unsorted_and_reserved_bits() {
        let mut bytes = image(&[rec(1, 2), rec(2, 2)]);
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(matches!(read(&bad), Err(RunError::BadHeader { offset: 0, .. })));
        let mut flags = bytes.clone();
        flags[16 + 38] = 0x40;
        assert!(matches!(read(&flags), Err(RunError::BadRecord { offset: 16, .. })));
        // Swap the two records' keys: the second is then below the first.
        bytes[16] = 2;
        bytes[56] = 1;
        assert!(matches!(read(&bytes), Err(RunError::Unsorted { offset: 56, .. })));
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
                b[..8].copy_from_slice(b"ABRN\x01\0\0\0");
            }
            let _ = read(&b);
        }
    }
}
