//! The positions `book analyse` searches, gathered from its input file:
//!
//! * a YACB book: walked from the roots through legal moves into positions
//!   the book has ([`crate::book::format::walk_known`]), at most `max_ply` deep;
//!   the book's entries never reached count as skipped;
//! * a PGN file: every position of every game's main line within its first
//!   `max_ply` moves, the position reached included ([`crate::pgn::Game::replay_first`]);
//!   a game that does not replay is skipped whole;
//! * an EPD/FEN file: one position per line ([`crate::epd`]); a bad line is
//!   skipped.
//!
//! The input's kind is [`crate::book::play::input_kind`]'s (the one rule for
//! books, PGN and EPD); a book of another format than YACB is refused.
//!
//! Each distinct position (by engine key) is kept once, in the order first
//! met. Skipped games and lines are returned as [`Skipped`] for the caller
//! to report.

use crate::board::Board;
use crate::book::format::yacb::{YacbBook, YacbError};
use crate::book::play::{input_kind, BookError, BookFormat, InputKind};
use crate::codec::PathIoError;
use crate::epd::EpdError;
use crate::pgn::{self, ReadOptions, ReplayError};
use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why the input could not be read at all.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PositionsError {
    #[error("reading {0}")]
    Io(#[from] PathIoError),
    #[error("opening {path}: {source}")]
    Book { path: PathBuf, source: YacbError },
    #[error("{path}: {source}")]
    Kind { path: PathBuf, source: BookError },
    #[error("{path}: a {format} book; `book analyse` walks YACB books (convert it first)")]
    NotYacb { path: PathBuf, format: BookFormat },
}

/// A game or line left out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skipped {
    /// A PGN game that does not replay (the error names file, game and ply).
    Game(ReplayError),
    /// A bad EPD/FEN line of `path`.
    Line { path: PathBuf, error: EpdError },
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skipped::Game(e) => write!(f, "{e}; skipped"),
            Skipped::Line { path, error } => write!(f, "{}: {error}; skipped", path.display()),
        }
    }
}

/// How far to gather.
#[derive(Debug, Clone)]
pub struct GatherOptions {
    /// PGN and YACB input: positions up to this many plies from the start.
    pub max_ply: usize,
    /// YACB input: walk from these (the start position when empty).
    pub roots: Vec<Board>,
}

/// The distinct positions of an input, and what was left out.
#[derive(Debug, Clone)]
pub struct Gathered {
    pub kind: InputKind,
    pub boards: Vec<Board>,
    /// Games, lines or (YACB) book entries left out.
    pub skipped: usize,
    /// The games and lines left out, to report.
    pub warnings: Vec<Skipped>,
}

/// Gathers the positions of the file at `path`.
pub fn gather(path: &Path, options: &GatherOptions) -> Result<Gathered, PositionsError> {
    let io = |source| PositionsError::Io(PathIoError::new(path, source));
    let kind = input_kind(path).map_err(|e| match e {
        BookError::Io(e) => PositionsError::Io(e),
        source => PositionsError::Kind { path: path.to_path_buf(), source },
    })?;
    let mut warnings = Vec::new();
    let (boards, skipped) = match kind {
        InputKind::Book(BookFormat::Yacb) => {
            let book =
                YacbBook::open(path).map_err(|source| PositionsError::Book { path: path.to_path_buf(), source })?;
            let boards = walk_book(&book, &options.roots, options.max_ply);
            let reached = boards.iter().filter(|b| book.probe(b).is_some()).count();
            (boards, book.len().saturating_sub(reached))
        }
        InputKind::Pgn => {
            let mut boards = Vec::new();
            for game in pgn::read_file(path, ReadOptions::default()).map_err(io)? {
                let mut line = Vec::new();
                match game.replay_first(options.max_ply, |b, _| line.push(b.clone())) {
                    Ok(last) => {
                        boards.extend(line);
                        boards.push(last);
                    }
                    Err(e) => warnings.push(Skipped::Game(e)),
                }
            }
            (boards, warnings.len())
        }
        InputKind::Epd => {
            let bytes = crate::input::Input::read_all(path).map_err(io)?;
            let mut boards = Vec::new();
            for line in crate::epd::lines(&String::from_utf8_lossy(&bytes), false) {
                match line {
                    Ok(e) => boards.push(e.board),
                    Err(error) => warnings.push(Skipped::Line { path: path.to_path_buf(), error }),
                }
            }
            (boards, warnings.len())
        }
        InputKind::Book(format) => return Err(PositionsError::NotYacb { path: path.to_path_buf(), format }),
    };
    let mut seen = HashSet::new();
    let boards = boards.into_iter().filter(|b| seen.insert(b.key())).collect();
    Ok(Gathered { kind, boards, skipped, warnings })
}

/// Positions of a book walk: reached from the roots (the start position
/// when none) through legal moves into positions the book has, at most
/// `max_ply` plies deep.
fn walk_book(book: &YacbBook, roots: &[Board], max_ply: usize) -> Vec<Board> {
    let start = [Board::startpos()];
    let roots = if roots.is_empty() { &start[..] } else { roots };
    let mut out = Vec::new();
    let key = |b: &Board| book.key_type().key(b);
    crate::book::format::walk_known(
        roots,
        max_ply,
        key,
        |b, _| out.push(b.clone()),
        |_, _, k| book.lookup(k).is_some(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::TempDir;

    /// Writes `text` as `name` in `dir`.
    fn write(dir: &TempDir, name: &str, text: &str) -> PathBuf {
        let p = dir.file(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn options(max_ply: usize) -> GatherOptions {
        GatherOptions { max_ply, roots: Vec::new() }
    }

    #[test]
    fn pgn_positions_stop_at_max_ply_and_skip_games_that_do_not_replay() {
        let dir = TempDir::new("pgn");
        let path = write(&dir, "g.pgn", "1. e4 e5 2. Nf3 *\n\n1. e4 e5 2. Ke3 *\n\n1. d4 *\n");
        let got = gather(&path, &options(3)).unwrap();
        assert_eq!(got.kind, InputKind::Pgn);
        // start, 1.e4, 1.e4 e5, 2.Nf3 (game 1); the start again and 1.d4 (game 3).
        assert_eq!(got.boards.len(), 5);
        let two = gather(&path, &options(2)).unwrap();
        assert_eq!((two.boards.len(), two.skipped), (4, 0), "2.Ke3 is past max_ply, never parsed");
        assert_eq!(got.skipped, 1);
        assert!(matches!(&got.warnings[0], Skipped::Game(ReplayError::IllegalMove { ply: 3, .. })));
        let shown = got.warnings[0].to_string();
        assert!(shown.contains("g.pgn: game 2, ply 3") && shown.ends_with("; skipped"), "{shown}");
    }

    #[test]
    fn compressed_pgn_and_epd_give_the_positions_of_the_plain_files() {
        use std::io::Write;
        let dir = TempDir::new("gz");
        let gz = |name: &str, text: &str| {
            let p = dir.file(name);
            let mut e = flate2::write::GzEncoder::new(std::fs::File::create(&p).unwrap(), flate2::Compression::fast());
            e.write_all(text.as_bytes()).unwrap();
            e.finish().unwrap();
            p
        };
        let pgn = "1. e4 e5 2. Nf3 *\n\n1. d4 *\n";
        let epd = "8/8/8/8/8/8/8/K6k w - -\n8/8/8/8/8/8/8/K5k1 b - -\n";
        for (plain, packed) in
            [(write(&dir, "g.pgn", pgn), gz("g.pgn.gz", pgn)), (write(&dir, "p.epd", epd), gz("p.epd.gz", epd))]
        {
            let (a, b) = (gather(&plain, &options(40)).unwrap(), gather(&packed, &options(40)).unwrap());
            assert_eq!(a.kind, b.kind);
            assert!(!a.boards.is_empty());
            let keys = |g: &Gathered| g.boards.iter().map(Board::key).collect::<Vec<_>>();
            assert_eq!(keys(&a), keys(&b), "{}", packed.display());
        }
    }

    #[test]
    fn epd_positions_are_distinct_and_bad_lines_are_reported() {
        let dir = TempDir::new("epd");
        let text =
            "# x\n8/8/8/8/8/8/8/K6k w - - 0 1\n8/8/8/8/8/8/8/K6k w - - hmvc 3;\nnope\n8/8/8/8/8/8/8/K5k1 b - -\n";
        let got = gather(&write(&dir, "p.epd", text), &options(40)).unwrap();
        assert_eq!(got.boards.len(), 2, "the clocks do not make a new position");
        assert_eq!(got.skipped, 1);
        assert!(got.warnings[0].to_string().contains("line 4"));
    }

    #[test]
    fn a_yacb_book_is_walked_from_the_roots_and_unreached_entries_are_skipped() {
        use crate::book::format::yacb::{self, BoundType, Elo, KeyType, Source, ValueType, YacbEntry};
        let dir = TempDir::new("yacb");
        let path = dir.file("b.yacb");
        let mut after_e4 = Board::startpos();
        after_e4.make_move(after_e4.parse_san("e4").unwrap());
        let far = Board::from_fen("8/8/8/8/8/8/8/K6k w - - 0 1", false).unwrap();
        let entry = |b: &Board| YacbEntry {
            key: b.key(),
            elo: Elo::rated(0),
            value_type: ValueType::Centipawns,
            bound: BoundType::Exact,
            source: Source::Engine,
            value: 0,
            best_move: crate::types::Move::NONE,
        };
        let mut entries = vec![entry(&Board::startpos()), entry(&after_e4), entry(&far)];
        entries.sort_by_key(|e| e.key);
        yacb::write(&path, &KeyType::Engine, entries).unwrap();
        let got = gather(&path, &options(4)).unwrap();
        assert_eq!(got.kind, InputKind::Book(BookFormat::Yacb));
        assert_eq!(
            got.boards.iter().map(Board::key).collect::<Vec<_>>(),
            vec![Board::startpos().key(), after_e4.key()]
        );
        assert_eq!((got.skipped, got.warnings.len()), (1, 0), "the far position is never reached");
        let from_far = gather(&path, &GatherOptions { max_ply: 4, roots: vec![far.clone()] }).unwrap();
        assert_eq!(from_far.boards.len(), 1);
    }

    #[test]
    fn a_missing_file_is_an_io_error() {
        let err = gather(Path::new("/nonexistent/archivist.epd"), &options(1)).unwrap_err();
        assert!(matches!(err, PositionsError::Io(_)));
    }
}
