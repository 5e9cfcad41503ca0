//! Opening any book file: one content sniff and one error type for every
//! format the project reads.
//!
//! | name, first bytes (after any whitespace for JSON) | format |
//! |---------------------------------------------|--------|
//! | a `.abk` name, or `03 41 42 4B` and a size of 25200 + 28·n | [ABK](crate::book::format::abk) (Arena; its signature is not required, so a name tells it too) |
//! | `YACB`                                      | [YACB](../../docs/formats.md#yacb) |
//! | `SBOB`                                      | [SBOB](../../docs/formats.md#sbob) |
//! | `{` and the whole file is UTF-8             | [SBOB's JSON form](../../docs/formats.md#sbob-json) |
//! | `[` then `{` or `]`, and the whole file is UTF-8 | [the old `openingBook.json`](../../docs/formats.md#legacy-json), SBOB's predecessor (read as SBOB's JSON model; [`legacy_json::looks_like`]) |
//! | anything else                               | [Polyglot](../../docs/formats.md#polyglot) (it has no header) |
//!
//! [`input_kind`] is the one rule for an input that may be a book, a PGN
//! or an EPD file.
//!
//! Every consumer of a book of any format (`BookFile`, self-play and
//! `genfens` openings, `book probe`, `book info`, `book dump`, `book
//! verify`, `book convert`, `book export`, `serve`) opens it through
//! [`open`], so a truncated or corrupt book gives the same message, byte
//! offset included, wherever it is read; `book analyse` tells its input by
//! [`input_kind`] and reads a YACB book straight through
//! [`crate::book::format::yacb::YacbBook::open`] (it takes no other). Error messages do not repeat the file name: the
//! caller prefixes it.

use crate::book::format::abk::{self, AbkBook, AbkError};
use crate::book::format::json::{self, JsonBook, JsonError};
use crate::book::format::legacy_json::{self, LegacyJsonError, LegacyReport};
use crate::book::format::polyglot::{PolyglotBook, PolyglotError};
use crate::book::format::sbob::{self, SbobBook, SbobError};
use crate::book::format::yacb::{self, YacbBook, YacbError};
use crate::codec::{IoAt, PathIoError};
use std::fmt;
use std::io::Read;
use std::path::Path;
use thiserror::Error;

/// A book format the project reads and writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BookFormat {
    Polyglot,
    Sbob,
    Json,
    Yacb,
    Abk,
    /// The old `openingBook.json` (read only).
    LegacyJson,
}

impl BookFormat {
    /// The format's name as written in prose (`YACB`, `Polyglot`, …).
    pub fn title(self) -> &'static str {
        match self {
            BookFormat::Polyglot => "Polyglot",
            BookFormat::Sbob => "SBOB",
            BookFormat::Json => "JSON",
            BookFormat::Yacb => "YACB",
            BookFormat::Abk => "ABK",
            BookFormat::LegacyJson => "old JSON (openingBook.json)",
        }
    }
}

impl fmt::Display for BookFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BookFormat::Polyglot => "polyglot",
            BookFormat::Sbob => "sbob",
            BookFormat::Json => "json",
            BookFormat::Yacb => "yacb",
            BookFormat::Abk => "abk",
            BookFormat::LegacyJson => "legacy-json",
        })
    }
}

/// Why a book could not be opened. Format errors carry their byte offset
/// (or line and column for JSON) in their message.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BookError {
    /// The message leaves the path to the caller, which names the book.
    #[error("{}", .0.source)]
    Io(#[from] PathIoError),
    #[error(transparent)]
    Yacb(#[from] YacbError),
    #[error(transparent)]
    Polyglot(#[from] PolyglotError),
    #[error(transparent)]
    Sbob(#[from] SbobError),
    #[error(transparent)]
    Json(#[from] JsonError),
    #[error(transparent)]
    Abk(#[from] AbkError),
    /// Boxed: its messages carry the opening, the FEN and the square.
    #[error(transparent)]
    LegacyJson(Box<LegacyJsonError>),
}

impl From<LegacyJsonError> for BookError {
    fn from(e: LegacyJsonError) -> BookError {
        BookError::LegacyJson(Box::new(e))
    }
}

/// An opened and fully validated book.
#[non_exhaustive]
pub enum Book {
    Yacb(YacbBook),
    Polyglot(PolyglotBook),
    Sbob(SbobBook),
    Json(JsonBook),
    Abk(AbkBook),
    /// The old `openingBook.json`, as SBOB's JSON model (opening names in
    /// each move's `opening_name`), with what its reading merged.
    LegacyJson(JsonBook, LegacyReport),
}

impl Book {
    pub fn format(&self) -> BookFormat {
        match self {
            Book::Yacb(_) => BookFormat::Yacb,
            Book::Polyglot(_) => BookFormat::Polyglot,
            Book::Sbob(_) => BookFormat::Sbob,
            Book::Json(_) => BookFormat::Json,
            Book::Abk(_) => BookFormat::Abk,
            Book::LegacyJson(..) => BookFormat::LegacyJson,
        }
    }

    /// Entries (YACB, Polyglot, ABK) or positions (SBOB, JSON, old JSON).
    pub fn len(&self) -> usize {
        match self {
            Book::Yacb(b) => b.len(),
            Book::Polyglot(b) => b.len(),
            Book::Sbob(b) => b.positions.len(),
            Book::Json(b) => b.positions.len(),
            Book::Abk(b) => b.len(),
            Book::LegacyJson(b, _) => b.positions.len(),
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
    if legacy_json::looks_like(head) {
        return BookFormat::LegacyJson;
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
/// `.yacb`, `.abk`).
pub fn format_from_extension(path: &Path) -> Option<BookFormat> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "bin" | "polyglot" => Some(BookFormat::Polyglot),
        "sbob" => Some(BookFormat::Sbob),
        "json" => Some(BookFormat::Json),
        "yacb" => Some(BookFormat::Yacb),
        "abk" => Some(BookFormat::Abk),
        _ => None,
    }
}

/// What an input file holds: a book, PGN games or EPD/FEN lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Book(BookFormat),
    Pgn,
    Epd,
}

/// What the input at `path` holds: the one rule for every command that
/// takes a book, a PGN or an EPD file (`book analyse`, `book export`,
/// self-play and `genfens` openings):
///
/// 1. `-` (standard input) is PGN: it cannot be looked at before it is read.
/// 2. A book, by [`format_of`]'s content rules (YACB, SBOB, JSON, ABK's
///    signature and size) or by a book name ([`format_from_extension`]:
///    Polyglot has no header, so only a `.bin` name tells it from text).
/// 3. Otherwise text, decompressed when compressed ([`crate::input`]): a
///    `.pgn` name (after any `.gz`, `.zst` or `.bz2`) is PGN, `.epd` and
///    `.fen` are EPD; any other name is PGN when its first line that is
///    neither blank nor a `#` comment starts with a tag (`[`) or a move
///    number (`1.`, `12...`), EPD otherwise.
pub fn input_kind(path: &Path) -> Result<InputKind, BookError> {
    if path == Path::new("-") {
        return Ok(InputKind::Pgn);
    }
    // Read as `open` reads it: a book name whose content says nothing
    // opens as Polyglot.
    let format = format_of(path)?;
    if format != BookFormat::Polyglot || format_from_extension(path).is_some() {
        return Ok(InputKind::Book(format));
    }
    let mut text = Vec::with_capacity(SNIFF_LEN);
    if let Ok(input) = crate::input::Input::open(path) {
        // A compressed head that ends early still tells: keep what came out.
        let _ = input.take(SNIFF_LEN as u64).read_to_end(&mut text);
    }
    Ok(text_kind(path, &text))
}

/// Rule 3 of [`input_kind`]: PGN or EPD, by name, else by the first line
/// of `text` (the input's first bytes, decompressed).
pub fn text_kind(path: &Path, text: &[u8]) -> InputKind {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    let name = [".gz", ".zst", ".bz2"].iter().find_map(|z| name.strip_suffix(z)).unwrap_or(&name);
    match name.rsplit_once('.').map(|(_, ext)| ext) {
        Some("pgn") => return InputKind::Pgn,
        Some("epd" | "fen") => return InputKind::Epd,
        _ => {}
    }
    let text = String::from_utf8_lossy(text);
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    let digits = first.bytes().take_while(u8::is_ascii_digit).count();
    if first.starts_with('[') || digits > 0 && first.as_bytes().get(digits) == Some(&b'.') {
        InputKind::Pgn
    } else {
        InputKind::Epd
    }
}

/// The first [`SNIFF_LEN`] bytes of `path`.
pub fn read_head(path: &Path) -> Result<Vec<u8>, BookError> {
    let io = |source| BookError::Io(PathIoError::new(path, source));
    let mut head = Vec::with_capacity(SNIFF_LEN);
    std::fs::File::open(path).and_then(|f| f.take(SNIFF_LEN as u64).read_to_end(&mut head)).map_err(io)?;
    Ok(head)
}

/// Whether a file of `len` bytes whose first bytes are `head` holds an ABK
/// book: Arena's signature and an ABK size (see the module table).
fn abk_content(head: &[u8], len: u64) -> bool {
    let (header, entry) = (abk::HEADER_LEN as u64, abk::ENTRY_LEN as u64);
    head.starts_with(abk::SIGNATURE) && len >= header && (len - header) % entry == 0
}

/// The format of the book at `path` (see the module table): an ABK book by
/// its name or its signature and size, the others by content ([`sniff`]).
pub fn format_of(path: &Path) -> Result<BookFormat, BookError> {
    if format_from_extension(path) == Some(BookFormat::Abk) {
        return Ok(BookFormat::Abk);
    }
    let head = read_head(path)?;
    let len = std::fs::metadata(path).at(path)?.len();
    Ok(if abk_content(&head, len) { BookFormat::Abk } else { sniff(&head) })
}

/// Opens the book at `path`, telling its format by [`format_of`], and
/// validates it in full (YACB entries included). YACB and Polyglot books are
/// mapped, SBOB, JSON and ABK books are decoded into memory.
pub fn open(path: &Path) -> Result<Book, BookError> {
    let io = |source| BookError::Io(PathIoError::new(path, source));
    Ok(match format_of(path)? {
        BookFormat::Yacb => {
            let book = YacbBook::open(path)?;
            book.verify()?;
            Book::Yacb(book)
        }
        BookFormat::Polyglot => Book::Polyglot(PolyglotBook::open(path)?),
        format => decode(format, std::fs::read(path).map_err(io)?)?,
    })
}

/// The format of a whole book image `bytes`, as [`format_of`] tells a
/// file's: `name` is the file's name when it has one (an `.abk` name tells
/// ABK).
pub fn format_of_bytes(bytes: &[u8], name: Option<&Path>) -> BookFormat {
    if name.and_then(format_from_extension) == Some(BookFormat::Abk) || abk_content(bytes, bytes.len() as u64) {
        return BookFormat::Abk;
    }
    sniff(&bytes[..bytes.len().min(SNIFF_LEN)])
}

/// [`open`] for a book image in memory (a file a browser read, a test's
/// bytes): the same format rules ([`format_of_bytes`]), the same validation
/// and the same errors.
pub fn open_bytes(bytes: Vec<u8>, name: Option<&Path>) -> Result<Book, BookError> {
    decode(format_of_bytes(&bytes, name), bytes)
}

/// Validates and decodes a whole book image of a known format.
fn decode(format: BookFormat, bytes: Vec<u8>) -> Result<Book, BookError> {
    Ok(match format {
        BookFormat::Abk => Book::Abk(AbkBook::parse(&bytes)?),
        BookFormat::Yacb => {
            let book = YacbBook::from_vec(bytes)?;
            book.verify()?;
            Book::Yacb(book)
        }
        BookFormat::Polyglot => Book::Polyglot(PolyglotBook::from_bytes(bytes)?),
        BookFormat::Sbob => Book::Sbob(sbob::parse(&bytes)?),
        BookFormat::Json => match String::from_utf8(bytes) {
            Ok(text) => Book::Json(json::parse(&text)?),
            // `{` then binary further on: a Polyglot book whose first key
            // byte happens to be 0x7B.
            Err(e) => Book::Polyglot(PolyglotBook::from_bytes(e.into_bytes())?),
        },
        BookFormat::LegacyJson => match String::from_utf8(bytes) {
            Ok(text) => {
                let (book, report) = legacy_json::parse(&text)?;
                Book::LegacyJson(book, report)
            }
            // `[{` then binary further on: a Polyglot book (first key byte 0x5B).
            Err(e) => Book::Polyglot(PolyglotBook::from_bytes(e.into_bytes())?),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

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
    fn input_kind_tells_books_by_content_or_book_name_and_text_by_name_or_first_line() {
        let kind = |name: &str, bytes: &[u8]| input_kind(&temp(name, bytes)).unwrap();
        assert_eq!(kind("a.epd", b"YACB\x01"), InputKind::Book(BookFormat::Yacb));
        assert_eq!(kind("a.txt", b"{}"), InputKind::Book(BookFormat::Json));
        assert_eq!(kind("a.BIN", b"\x00\x01"), InputKind::Book(BookFormat::Polyglot));
        assert_eq!(kind("a.epd", b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w"), InputKind::Epd);
        assert_eq!(kind("a.PGN", b"8/8"), InputKind::Pgn);
        assert_eq!(kind("a.fen", b"[Event"), InputKind::Epd);
        assert_eq!(kind("a.txt", b"# c\n\n[Event \"x\"]"), InputKind::Pgn);
        assert_eq!(kind("a", b"8/8/8/8/8/8/8/K6k w - -"), InputKind::Epd);
        assert_eq!(input_kind(Path::new("-")).unwrap(), InputKind::Pgn);
    }

    #[test]
    fn a_pgn_without_tags_is_pgn_under_any_name() {
        for text in ["1. e4 e5 2. Nf3 *\n", "  \n12. Nf3 Nc6 *\n", "1... e5 *\n"] {
            for name in ["games.txt", "games", "openings.dat"] {
                assert_eq!(input_kind(&temp(name, text.as_bytes())).unwrap(), InputKind::Pgn, "{name}: {text:?}");
            }
        }
        // Compressed: the name's .pgn under .gz, else the decompressed text.
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut z, b"1. d4 d5 *\n").unwrap();
        let gz = z.finish().unwrap();
        assert_eq!(input_kind(&temp("g.pgn.gz", &gz)).unwrap(), InputKind::Pgn);
        assert_eq!(input_kind(&temp("g.gz", &gz)).unwrap(), InputKind::Pgn);
        assert_eq!(text_kind(Path::new("g.epd.zst"), b"1. e4"), InputKind::Epd);
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

    /// A two-move ABK book (1. e4 with 10 games, 5 won and 3 lost; 1. d4
    /// entered by hand, priority 7) as Arena writes it.
    fn abk_bytes() -> Vec<u8> {
        use crate::book::format::abk::{AbkEntry, AbkNode};
        let node = |from, to, priority, games, won, lost| AbkNode {
            entry: AbkEntry {
                from,
                to,
                promotion: 0,
                priority,
                games,
                won,
                lost,
                ply_count: 0,
                next_move: -1,
                next_sibling: -1,
            },
            replies: Vec::new(),
        };
        AbkBook::from_tree(&[node(12, 28, 5, 10, 5, 3), node(11, 27, 7, 0, 0, 0)]).to_bytes()
    }

    #[test]
    fn open_tells_an_abk_book_by_its_name_or_its_signature_and_size() {
        let bytes = abk_bytes();
        assert_eq!(open(&temp("arena.abk", &bytes)).unwrap().format(), BookFormat::Abk);
        let by_content = open(&temp("arena.dat", &bytes)).unwrap();
        assert_eq!((by_content.format(), by_content.len()), (BookFormat::Abk, 2));
        // Arena's signature is optional: without it only the name tells.
        let mut unsigned = bytes.clone();
        unsigned[..4].fill(0);
        assert_eq!(open(&temp("unsigned.abk", &unsigned)).unwrap().format(), BookFormat::Abk);
        assert_ne!(format_of(&temp("unsigned.dat", &unsigned)).unwrap(), BookFormat::Abk);
        // The signature with a size that is not 25200 + 28·n is not ABK.
        assert_ne!(format_of(&temp("odd.dat", &bytes[..bytes.len() - 1])).unwrap(), BookFormat::Abk);
        let err = open(&temp("cut.abk", &bytes[..bytes.len() - 3])).unwrap_err();
        assert!(matches!(err, BookError::Abk(_)) && err.to_string().contains("trailing bytes"), "{err}");
    }

    #[test]
    fn an_abk_book_is_played_with_its_polyglot_weights() {
        let book = open(&temp("play.abk", &abk_bytes())).unwrap();
        let mut start = crate::board::Board::startpos();
        let offers = book.playable().unwrap().offers(&mut start);
        let moves: Vec<(String, u32)> = offers.iter().map(|o| (start.move_to_uci(o.mv), o.weight)).collect();
        assert_eq!(moves, [("e2e4".to_string(), 12), ("d2d4".to_string(), 7)]);
    }

    #[test]
    fn sbob_and_json_books_are_refused_for_play_with_one_message() {
        for name in ["sbob_golden.sbob", "sbob_golden.json"] {
            let book = open(&data(name)).unwrap();
            let err = book.playable().err().unwrap();
            assert_eq!(err.format, book.format());
            assert!(err.to_string().contains("convert it to Polyglot or YACB"), "{err}");
        }
    }

    #[test]
    fn open_names_a_missing_file_as_an_io_error() {
        let err = open(Path::new("/nonexistent/book.bin")).unwrap_err();
        assert!(matches!(err, BookError::Io(_)), "{err:?}");
    }
}
