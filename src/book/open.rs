//! Opening any book file: one content sniff and one error type for every
//! format the project reads.
//!
//! | first bytes (after any whitespace for JSON) | format |
//! |---------------------------------------------|--------|
//! | `YACB`                                      | [YACB](../../docs/formats.md#yacb) |
//! | `SBOB`                                      | [SBOB](../../docs/formats.md#sbob) |
//! | `{` and the whole file is UTF-8             | [SBOB's JSON form](../../docs/formats.md#sbob-json) |
//! | anything else                               | [Polyglot](../../docs/formats.md#polyglot) (it has no header) |
//!
//! Every consumer (`BookFile`, self-play and `genfens` openings, `book probe`,
//! `book convert`, `book analyse`) opens books through [`open`], so a
//! truncated or corrupt book gives the same message, byte offset included,
//! wherever it is read. Error messages do not repeat the file name: the
//! caller prefixes it.

use super::json::{self, JsonBook, JsonError};
use super::polyglot::{PolyglotBook, PolyglotError};
use super::sbob::{self, SbobBook, SbobError};
use super::yacb::{self, YacbBook, YacbError};
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// A book format the project reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BookFormat {
    Polyglot,
    Sbob,
    Json,
    Yacb,
}

impl fmt::Display for BookFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BookFormat::Polyglot => "polyglot",
            BookFormat::Sbob => "sbob",
            BookFormat::Json => "json",
            BookFormat::Yacb => "yacb",
        })
    }
}

/// Why a book could not be opened. Format errors carry their byte offset
/// (or line and column for JSON) in their message.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BookError {
    #[error("{source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Yacb(#[from] YacbError),
    #[error(transparent)]
    Polyglot(#[from] PolyglotError),
    #[error(transparent)]
    Sbob(#[from] SbobError),
    #[error(transparent)]
    Json(#[from] JsonError),
}

/// An opened and fully validated book.
#[non_exhaustive]
pub enum Book {
    Yacb(YacbBook),
    Polyglot(PolyglotBook),
    Sbob(SbobBook),
    Json(JsonBook),
}

impl Book {
    pub fn format(&self) -> BookFormat {
        match self {
            Book::Yacb(_) => BookFormat::Yacb,
            Book::Polyglot(_) => BookFormat::Polyglot,
            Book::Sbob(_) => BookFormat::Sbob,
            Book::Json(_) => BookFormat::Json,
        }
    }

    /// Entries (YACB, Polyglot) or positions (SBOB, JSON).
    pub fn len(&self) -> usize {
        match self {
            Book::Yacb(b) => b.len(),
            Book::Polyglot(b) => b.len(),
            Book::Sbob(b) => b.positions.len(),
            Book::Json(b) => b.positions.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for Book {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Book({}, {} entries)", self.format(), self.len())
    }
}

/// How many leading bytes [`sniff`] needs at most to tell a binary format.
pub const SNIFF_LEN: usize = 4096;

/// The format of a book image told by its first bytes (see the module
/// table). `head` may be a prefix of the file: a UTF-8 character cut at its
/// end still counts as text.
pub fn sniff(head: &[u8]) -> BookFormat {
    if head.starts_with(yacb::MAGIC) {
        return BookFormat::Yacb;
    }
    if head.starts_with(sbob::MAGIC) {
        return BookFormat::Sbob;
    }
    let text_start = head.iter().position(|b| !b.is_ascii_whitespace());
    let utf8 = match std::str::from_utf8(head) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none(),
    };
    if text_start.is_some_and(|i| head[i] == b'{') && utf8 {
        return BookFormat::Json;
    }
    BookFormat::Polyglot
}

/// The format a file name suggests (`.bin`/`.polyglot`, `.sbob`, `.json`,
/// `.yacb`).
pub fn format_from_extension(path: &Path) -> Option<BookFormat> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "bin" | "polyglot" => Some(BookFormat::Polyglot),
        "sbob" => Some(BookFormat::Sbob),
        "json" => Some(BookFormat::Json),
        "yacb" => Some(BookFormat::Yacb),
        _ => None,
    }
}

/// Whether an input that may also be text (PGN, EPD) is a book: its content
/// says so (YACB, SBOB, JSON), or its name does (Polyglot has no header, so
/// only a `.bin` name tells it from text).
pub fn book_input(path: &Path, head: &[u8]) -> Option<BookFormat> {
    match sniff(head) {
        BookFormat::Polyglot => format_from_extension(path),
        other => Some(other),
    }
}

/// The first [`SNIFF_LEN`] bytes of `path`.
pub fn read_head(path: &Path) -> Result<Vec<u8>, BookError> {
    let io = |source| BookError::Io { path: path.to_path_buf(), source };
    let mut head = Vec::with_capacity(SNIFF_LEN);
    std::fs::File::open(path).and_then(|f| f.take(SNIFF_LEN as u64).read_to_end(&mut head)).map_err(io)?;
    Ok(head)
}

/// Opens the book at `path`, telling its format by content, and validates it
/// in full (YACB entries included). YACB and Polyglot books are mapped,
/// SBOB and JSON books are decoded into memory.
pub fn open(path: &Path) -> Result<Book, BookError> {
    let io = |source| BookError::Io { path: path.to_path_buf(), source };
    Ok(match sniff(&read_head(path)?) {
        BookFormat::Yacb => {
            let book = YacbBook::open(path)?;
            book.verify()?;
            Book::Yacb(book)
        }
        BookFormat::Polyglot => Book::Polyglot(PolyglotBook::open(path)?),
        BookFormat::Sbob => Book::Sbob(sbob::parse(&std::fs::read(path).map_err(io)?)?),
        BookFormat::Json => {
            let bytes = std::fs::read(path).map_err(io)?;
            match String::from_utf8(bytes) {
                Ok(text) => Book::Json(json::parse(&text)?),
                // `{` then binary further on: a Polyglot book whose first key
                // byte happens to be 0x7B.
                Err(e) => Book::Polyglot(PolyglotBook::from_bytes(e.into_bytes())?),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(name: &str) -> PathBuf {
        PathBuf::from(format!("{}/engine-tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
    }

    fn temp(name: &str, bytes: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("archivist-open-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn sniff_tells_every_format_by_content() {
        assert_eq!(sniff(b"YACB\x01\x00"), BookFormat::Yacb);
        assert_eq!(sniff(b"SBOB\x01\x00"), BookFormat::Sbob);
        assert_eq!(sniff(b" \n{\"version\": 1"), BookFormat::Json);
        // A character cut at the end of the head is still text.
        assert_eq!(sniff("{\"name\": \"é".as_bytes().split_last().unwrap().1), BookFormat::Json);
        assert_eq!(sniff(&[b'{', 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), BookFormat::Polyglot);
        assert_eq!(sniff(b""), BookFormat::Polyglot);
    }

    #[test]
    fn book_input_needs_a_book_name_only_for_polyglot() {
        assert_eq!(book_input(Path::new("a.epd"), b"YACB"), Some(BookFormat::Yacb));
        assert_eq!(book_input(Path::new("a.txt"), b"{}"), Some(BookFormat::Json));
        assert_eq!(book_input(Path::new("a.BIN"), b"\x00\x01"), Some(BookFormat::Polyglot));
        assert_eq!(book_input(Path::new("a.epd"), b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"), None);
    }

    #[test]
    fn open_reads_each_format_it_sniffs() {
        let pg = open(&data("shared/books/lasker-trap.bin")).unwrap();
        assert_eq!((pg.format(), pg.len()), (BookFormat::Polyglot, 7));
        let sb = open(&data("sbob_golden.sbob")).unwrap();
        let js = open(&data("sbob_golden.json")).unwrap();
        assert_eq!(sb.format(), BookFormat::Sbob);
        assert_eq!(js.format(), BookFormat::Json);
        assert_eq!(sb.len(), js.len());
        assert!(!sb.is_empty());
    }

    #[test]
    fn open_reports_a_truncated_polyglot_book_with_its_offset() {
        let mut bytes = std::fs::read(data("shared/books/lasker-trap.bin")).unwrap();
        bytes.truncate(16 * 3 + 5);
        let err = open(&temp("cut.bin", &bytes)).unwrap_err();
        assert!(matches!(err, BookError::Polyglot(PolyglotError::BadSize { offset: 48, .. })), "{err:?}");
        assert!(err.to_string().contains("offset 48"), "{err}");
    }

    #[test]
    fn open_reports_a_truncated_yacb_book_with_its_offset() {
        let err = open(&temp("cut.yacb", b"YACB\x01\x00\x00")).unwrap_err();
        assert!(matches!(err, BookError::Yacb(YacbError::Truncated(t)) if t.len == 7), "{err:?}");
        assert!(err.to_string().contains("offset 7"), "{err}");
    }

    #[test]
    fn open_names_a_missing_file_as_an_io_error() {
        let err = open(Path::new("/nonexistent/book.bin")).unwrap_err();
        assert!(matches!(err, BookError::Io { .. }), "{err:?}");
    }
}
