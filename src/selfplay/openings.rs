//! Where self-play games start: an [`OpeningSource`] (an EPD/PGN openings
//! file, or a playable book walked through its offers by [`BookWalk`]),
//! Chess960 start positions, and random legal plies on top.
//!
//! Every choice comes from an [`Rng`] seeded by the run's seed and the game
//! index, so a game's opening does not depend on which thread plays it.

use crate::board::Board;
use crate::book::play::offer::Offers;
use crate::book::play::InputKind;
use crate::codec::{mix, IoAt, PathIoError, SplitMix64};
use crate::types::Move;
use std::path::Path;
use thiserror::Error;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum OpeningError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error("{path}: {source}")]
    BadLine { path: String, line: usize, source: crate::epd::EpdError },
    #[error("{path}: {source}")]
    BadGame { path: String, game: usize, source: crate::pgn::ReplayError },
    #[error("{path}: no usable opening positions")]
    Empty { path: String },
    #[error("{path}: {source}")]
    Book { path: String, source: crate::book::play::BookError },
    #[error("{path}: {source}")]
    NotPlayable { path: String, source: crate::book::play::offer::NotPlayable },
    #[error("{path}: a {format} book, not an EPD or PGN file; give it as the book")]
    IsBook { path: String, format: crate::book::play::BookFormat },
}

/// The openings' generator: SplitMix64 ([`crate::codec`]).
pub type Rng = SplitMix64;

/// The stream of game `index` of a run seeded with `seed`. The start state
/// is a hash of both: SplitMix64 streams are one sequence with different
/// starting points, so plain `seed + index` starts would make neighbouring
/// games replay each other's choices shifted by one.
pub fn game_rng(seed: u64, index: u64) -> Rng {
    SplitMix64::new(mix(mix(seed ^ 0x5851_F42D_4C95_7F2D) ^ index))
}

/// Gives start positions for games.
pub trait OpeningSource: Send + Sync {
    /// A start position chosen with `rng` (`None`: nothing usable this time).
    fn opening(&self, rng: &mut Rng) -> Option<Board>;
    /// How the source describes itself in summaries.
    fn describe(&self) -> String;
}

/// An opening source that walks a book from the start position (or a
/// Chess960 start position), choosing each move among the book's offers
/// ([`crate::book::play::offer`]) with probability proportional to its weight,
/// until the book runs out or `max_plies`.
pub struct BookWalk<B> {
    pub book: B,
    /// How the walk describes itself ([`OpeningSource::describe`]).
    pub name: String,
    pub max_plies: u32,
    pub chess960: bool,
}

impl<B: Offers + Send + Sync> OpeningSource for BookWalk<B> {
    fn opening(&self, rng: &mut Rng) -> Option<Board> {
        let mut board = if self.chess960 { chess960_position(rng.below(960) as u32) } else { Board::startpos() };
        while crate::book::play::within_book_depth(&board, self.max_plies) {
            let offers = self.book.offers(&mut board);
            let total: u64 = offers.iter().map(|o| u64::from(o.weight)).sum();
            if total == 0 {
                break;
            }
            let mut pick = rng.below(total);
            let mut chosen = Move::NONE;
            for o in offers {
                if pick < u64::from(o.weight) {
                    chosen = o.mv;
                    break;
                }
                pick -= u64::from(o.weight);
            }
            board.make_move(chosen);
        }
        Some(board)
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

/// Opening positions read from an EPD/FEN file (one per line; `#` comments)
/// or a PGN file (the position after each game's main line).
pub struct FileOpenings {
    path: String,
    positions: Vec<Board>,
}

impl FileOpenings {
    /// Reads `path` as PGN or EPD/FEN lines, as [`crate::book::play::input_kind`]
    /// tells them; a book is refused (it is walked through [`BookWalk`]).
    pub fn load(path: &Path, chess960: bool) -> Result<FileOpenings, OpeningError> {
        let name = path.display().to_string();
        let kind =
            crate::book::play::input_kind(path).map_err(|source| OpeningError::Book { path: name.clone(), source })?;
        if let InputKind::Book(format) = kind {
            return Err(OpeningError::IsBook { path: name, format });
        }
        let bytes = std::fs::read(path).at(path)?;
        let text = String::from_utf8_lossy(&bytes);
        let positions = if kind == InputKind::Pgn {
            pgn_positions(&name, &text, chess960)?
        } else {
            epd_positions(&name, &text, chess960)?
        };
        if positions.is_empty() {
            return Err(OpeningError::Empty { path: name });
        }
        Ok(FileOpenings { path: name, positions })
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

impl OpeningSource for FileOpenings {
    fn opening(&self, rng: &mut Rng) -> Option<Board> {
        self.positions.get(rng.below(self.positions.len() as u64) as usize).cloned()
    }

    fn describe(&self) -> String {
        format!("{} ({} positions)", self.path, self.positions.len())
    }
}

/// One position per EPD or FEN line ([`crate::epd`]); the first bad line
/// is an error.
fn epd_positions(path: &str, text: &str, chess960: bool) -> Result<Vec<Board>, OpeningError> {
    crate::epd::lines(text, chess960)
        .map(|r| {
            r.map(|e| e.board).map_err(|source| OpeningError::BadLine {
                path: path.to_string(),
                line: source.line(),
                source,
            })
        })
        .collect()
}

/// The position after each game's main line ([`crate::pgn::Game::replay_with`]);
/// the first game that does not replay is an error.
fn pgn_positions(path: &str, text: &str, chess960: bool) -> Result<Vec<Board>, OpeningError> {
    let mut out = Vec::new();
    for mut game in crate::pgn::parse(text) {
        if chess960 {
            game.set_chess960();
        }
        let end = game.replay_with(|_, _| {}).map_err(|source| OpeningError::BadGame {
            path: path.to_string(),
            game: source.game().index,
            source,
        })?;
        out.push(end);
    }
    Ok(out)
}

/// Chess960 start position number `n` (0..960, Scharnagl's numbering;
/// 518 is the standard start position), with Chess960 notation on.
pub fn chess960_position(n: u32) -> Board {
    let mut n = n % 960;
    let mut rank: [Option<char>; 8] = [None; 8];
    rank[(2 * (n % 4) + 1) as usize] = Some('b');
    n /= 4;
    rank[(2 * (n % 4)) as usize] = Some('b');
    n /= 4;
    let put_nth_empty = |rank: &mut [Option<char>; 8], k: u32, pc: char| {
        if let Some(slot) = rank.iter_mut().filter(|s| s.is_none()).nth(k as usize) {
            *slot = Some(pc);
        }
    };
    put_nth_empty(&mut rank, n % 6, 'q');
    n /= 6;
    const KNIGHTS: [(u32, u32); 10] = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let (a, b) = KNIGHTS[n as usize % 10];
    put_nth_empty(&mut rank, b, 'n');
    put_nth_empty(&mut rank, a, 'n');
    for pc in ['r', 'k', 'r'] {
        put_nth_empty(&mut rank, 0, pc);
    }
    let black: String = rank.iter().map(|c| c.unwrap_or('r')).collect();
    let rook_files: Vec<char> =
        rank.iter().enumerate().filter(|(_, c)| **c == Some('r')).map(|(i, _)| (b'a' + i as u8) as char).collect();
    let castling: String =
        rook_files.iter().rev().map(|c| c.to_ascii_uppercase()).chain(rook_files.iter().rev().copied()).collect();
    let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{} w {castling} - 0 1", black.to_ascii_uppercase());
    // Every numbered arrangement is a valid position.
    Board::from_fen(&fen, true).unwrap_or_else(|_| Board::startpos())
}

/// Plays `plies` uniformly random legal moves; `None` when the game ends
/// (no legal move, or a draw by the rules) on the way or at the end.
pub fn random_plies(mut board: Board, plies: u32, rng: &mut Rng) -> Option<Board> {
    for _ in 0..plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            return None;
        }
        let m = moves.as_slice().get(rng.below(moves.len() as u64) as usize).copied()?;
        board.make_move(m);
    }
    (board.has_legal_moves() && !board.is_draw(0)).then_some(board)
}
