//! Reading inputs as streams, compressed or not: the one place that opens a
//! PGN database, a datagen PGN or any other large text input.
//!
//! The compression is told by the first bytes of the content, never by the
//! file name:
//!
//! | magic bytes        | format | decoder                                  |
//! |--------------------|--------|------------------------------------------|
//! | `1f 8b`            | gzip   | multi-member (concatenated `.gz` files)  |
//! | `28 b5 2f fd`      | zstd   | multi-frame                              |
//! | `42 5a 68` (`BZh`) | bzip2  | multi-stream (as `pbzip2` writes)        |
//! | anything else      | plain  | read as is                               |
//!
//! The path `-` is standard input. A compressed stream that ends early is an
//! [`std::io::Error`] from the reader (kind `UnexpectedEof` or `InvalidData`),
//! never a silent end of input: [`Input`] checks the decoders' own ends.
//! [`Input::source_counter`] counts the bytes read from the source, for
//! MB/s figures and progress bars.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use thiserror::Error;

/// The compression of an input, as its first bytes tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Plain,
    Gzip,
    Zstd,
    Bzip2,
}

impl Compression {
    /// The format whose magic bytes start `head`.
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else if head.starts_with(b"BZh") {
            Compression::Bzip2
        } else {
            Compression::Plain
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::Plain => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// Why an input could not be opened.
#[derive(Debug, Error)]
pub enum InputError {
    #[error("{path}: {source}")]
    Open { path: PathBuf, source: io::Error },
    #[error("{path}: cannot start the {format} decoder: {source}")]
    Decoder { path: PathBuf, format: &'static str, source: io::Error },
}

/// Counts the bytes read through it into a shared counter.
struct Counted<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// An open input: decompressed bytes through [`BufRead`].
pub struct Input {
    reader: Box<dyn BufRead + Send>,
    compression: Compression,
    source_bytes: Arc<AtomicU64>,
    source_len: Option<u64>,
    name: String,
}

const BUFFER: usize = 1 << 20;

impl Input {
    /// Opens `path` (`-` for standard input) and picks the decoder from
    /// its first bytes.
    pub fn open(path: &Path) -> Result<Input, InputError> {
        let open_err = |source| InputError::Open { path: path.to_path_buf(), source };
        let (raw, source_len): (Box<dyn Read + Send>, Option<u64>) = if path == Path::new("-") {
            (Box::new(io::stdin()), None)
        } else {
            let file = File::open(path).map_err(open_err)?;
            let len = file.metadata().ok().map(|m| m.len());
            (Box::new(file), len)
        };
        Input::from_reader(raw, source_len, &path.display().to_string()).map_err(|e| reattach(e, path))
    }

    /// The whole of `path` (`-` for standard input), decompressed. The
    /// error is the I/O error without the path (callers name it).
    pub fn read_all(path: &Path) -> io::Result<Vec<u8>> {
        let mut input = Input::open(path).map_err(|e| match e {
            InputError::Open { source, .. } => source,
            InputError::Decoder { format, source, .. } => {
                io::Error::new(source.kind(), format!("cannot start the {format} decoder: {source}"))
            }
        })?;
        let mut bytes = Vec::new();
        input.read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    /// Wraps any reader (tests, pipes) the same way as [`Input::open`].
    pub fn from_reader(raw: Box<dyn Read + Send>, source_len: Option<u64>, name: &str) -> Result<Input, InputError> {
        let path = PathBuf::from(name);
        let count = Arc::new(AtomicU64::new(0));
        let mut buffered = BufReader::with_capacity(BUFFER, Counted { inner: raw, count: count.clone() });
        let head = peek(&mut buffered, 4).map_err(|source| InputError::Open { path: path.clone(), source })?;
        let compression = Compression::sniff(&head);
        let decoder_err = |source| InputError::Decoder { path: path.clone(), format: compression.name(), source };
        let reader: Box<dyn BufRead + Send> = match compression {
            Compression::Plain => Box::new(buffered),
            Compression::Gzip => {
                Box::new(BufReader::with_capacity(BUFFER, flate2::bufread::MultiGzDecoder::new(buffered)))
            }
            #[cfg(feature = "native")]
            Compression::Zstd => {
                let d = zstd::stream::read::Decoder::with_buffer(buffered).map_err(decoder_err)?;
                Box::new(BufReader::with_capacity(BUFFER, d))
            }
            #[cfg(feature = "native")]
            Compression::Bzip2 => {
                Box::new(BufReader::with_capacity(BUFFER, bzip2::bufread::MultiBzDecoder::new(buffered)))
            }
            // The portable core has no C decoders (zstd and bzip2 are C).
            #[cfg(not(feature = "native"))]
            Compression::Zstd | Compression::Bzip2 => {
                return Err(decoder_err(io::Error::new(io::ErrorKind::Unsupported, "not in this build")));
            }
        };
        Ok(Input { reader, compression, source_bytes: count, source_len, name: name.to_string() })
    }

    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The size of the source file (compressed), when known.
    pub fn source_len(&self) -> Option<u64> {
        self.source_len
    }

    /// A counter of the source bytes consumed so far (compressed bytes for
    /// a compressed input), shared so a progress thread can read it.
    pub fn source_counter(&self) -> Arc<AtomicU64> {
        self.source_bytes.clone()
    }

    /// The name given at opening (the path, or `-`).
    pub fn name(&self) -> &str {
        &self.name
    }
}

fn reattach(e: InputError, path: &Path) -> InputError {
    match e {
        InputError::Open { source, .. } => InputError::Open { path: path.to_path_buf(), source },
        InputError::Decoder { format, source, .. } => InputError::Decoder { path: path.to_path_buf(), format, source },
    }
}

/// The first bytes of `r` (at most `n`), left unread. One fill of the
/// buffer: sniffing needs 4 bytes and a source's first read gives more.
fn peek<R: Read>(r: &mut BufReader<R>, n: usize) -> io::Result<Vec<u8>> {
    let buf = r.fill_buf()?;
    Ok(buf[..buf.len().min(n)].to_vec())
}

impl Read for Input {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

impl BufRead for Input {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.reader.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.reader.consume(amt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &str = "[Event \"a\"]\n\n1. e4 e5 1-0\n";

    fn read_all(bytes: Vec<u8>) -> io::Result<(Compression, String)> {
        let mut input = Input::from_reader(Box::new(io::Cursor::new(bytes)), None, "test").expect("opens");
        let mut s = String::new();
        input.read_to_string(&mut s)?;
        Ok((input.compression(), s))
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn zstd(data: &[u8]) -> Vec<u8> {
        zstd::stream::encode_all(data, 3).unwrap()
    }

    fn bzip2(data: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn reads_each_compression_by_content() {
        for (bytes, want) in [
            (TEXT.as_bytes().to_vec(), Compression::Plain),
            (gzip(TEXT.as_bytes()), Compression::Gzip),
            (zstd(TEXT.as_bytes()), Compression::Zstd),
            (bzip2(TEXT.as_bytes()), Compression::Bzip2),
        ] {
            let (c, s) = read_all(bytes).expect("reads");
            assert_eq!(c, want);
            assert_eq!(s, TEXT);
        }
    }

    #[test]
    fn reads_concatenated_members_and_frames() {
        for f in [gzip, zstd, bzip2] {
            let mut bytes = f(TEXT.as_bytes());
            bytes.extend(f(TEXT.as_bytes()));
            let (_, s) = read_all(bytes).expect("reads");
            assert_eq!(s, TEXT.repeat(2));
        }
    }

    #[test]
    fn truncated_compressed_stream_is_an_error() {
        let big: String = TEXT.repeat(5000);
        for f in [gzip, zstd, bzip2] {
            let bytes = f(big.as_bytes());
            let cut = bytes[..bytes.len() * 2 / 3].to_vec();
            assert!(read_all(cut).is_err(), "a truncated stream must not read as a clean end");
        }
    }

    #[test]
    fn empty_input_is_plain_and_empty() {
        let (c, s) = read_all(Vec::new()).expect("reads");
        assert_eq!((c, s.as_str()), (Compression::Plain, ""));
    }

    #[test]
    fn counts_source_bytes() {
        let bytes = zstd(TEXT.repeat(100).as_bytes());
        let len = bytes.len() as u64;
        let mut input = Input::from_reader(Box::new(io::Cursor::new(bytes)), Some(len), "t").unwrap();
        let counter = input.source_counter();
        io::copy(&mut input, &mut io::sink()).unwrap();
        assert_eq!(counter.load(Ordering::Relaxed), len);
    }
}
