//! Compressed-board game records (decisions in [docs/formats.md#records](../docs/formats.md#records)): the
//! training-data format of `selfplay`, byte for byte the one read by the
//! `montyformat` crate (version 0.10). A file is a plain concatenation of
//! games; there is no file header, so files can be joined with `cat`.
//!
//! One game, all integers little-endian:
//!
//! | offset | size | field            | meaning / validation                                             |
//! |--------|------|------------------|------------------------------------------------------------------|
//! | 0      | 8    | `bitboards[0]`   | black pieces; must be a subset of the occupancy                  |
//! | 8      | 8    | `bitboards[1]`   | rooks ∣ queens ∣ kings                                           |
//! | 16     | 8    | `bitboards[2]`   | knights ∣ bishops ∣ kings                                        |
//! | 24     | 8    | `bitboards[3]`   | pawns ∣ bishops ∣ queens; no square may be in all of 1, 2 and 3  |
//! | 32     | 1    | `side_to_move`   | 0 white, 1 black                                                 |
//! | 33     | 1    | `ep_square`      | 0 = none, else the en-passant target (a1 = 0 … h8 = 63)          |
//! | 34     | 1    | `castling_rights`| white O-O-O 8, white O-O 4, black O-O-O 2, black O-O 1           |
//! | 35     | 1    | `halfmove_clock` | plies since the last capture or pawn move                        |
//! | 36     | 2    | `fullmove`       | from 1                                                           |
//! | 38     | 4    | castling files   | rook files (a = 0): white O-O-O, white O-O, black O-O-O, black O-O; 0/7 when the right is absent |
//! | 42     | 1    | `result`         | 0 black won, 1 draw, 2 white won                                 |
//! | 43     | …    | plies            | zero or more, see below                                          |
//! | end−2  | 2    | terminator       | `00 00` (the null move)                                          |
//!
//! One ply:
//!
//! | size  | field    | meaning / validation                                                   |
//! |-------|----------|------------------------------------------------------------------------|
//! | 2     | move     | `flag | to << 4 | from << 10`; must be a legal move, flag included       |
//! | 2     | score    | `round(65535 · p)`, p = the side to move's expected score in [0, 1]     |
//! | 1     | count    | 0 = no distribution, else exactly the number of legal moves            |
//! | count | visits   | one byte per legal move, ordered by the move's u16 encoding: `round(255 · nodes / max nodes)`; the largest must be 255 |
//!
//! Move flags: 0 quiet, 1 double push, 2 O-O, 3 O-O-O (the king moves to the
//! g- or c-file, also in Chess960), 4 capture, 5 en passant, 8–11 promotion
//! to N B R Q, 12–15 promotion with capture.
//!
//! The start position must be legal (one king each, no pawn on a back rank,
//! the side not to move not in check, castling rights backed by a king on
//! its back rank and a rook on the stated file and side, a possible
//! en-passant square). When the last position is mate or a draw by the rules
//! (stalemate, fifty moves, threefold repetition, insufficient material) the
//! result must say so; other endings (adjudication, length limit) accept any
//! result.
//!
//! Reading never panics and never trusts the input: every problem is a
//! [`RecordError`] naming the game (0-based index) and the absolute byte
//! offset in the file. The format is stable: it is defined by the seed and
//! by the `montyformat` crate.

pub mod export;
pub mod import;
pub mod pipeline;
pub mod score;
pub mod text;

use crate::board::{castle_index, Board, BoardBuilder, BuildError, BLACK_OO, BLACK_OOO, WHITE_OO, WHITE_OOO};
use crate::codec::{self, Put};
use crate::types::{Bitboard, Color, Move, PieceType, Square};
use thiserror::Error;

/// Bytes of the compressed board (bitboards, side, ep, rights, clocks).
pub const BOARD_BYTES: usize = 38;
/// Bytes before the first ply: board, castling files, result.
pub const HEADER_BYTES: usize = 43;

/// Rights bits of the record format.
const REC_WHITE_OOO: u8 = 8;
const REC_WHITE_OO: u8 = 4;
const REC_BLACK_OOO: u8 = 2;
const REC_BLACK_OO: u8 = 1;

/// The final result, from white's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    BlackWin = 0,
    Draw = 1,
    WhiteWin = 2,
}

impl GameResult {
    pub fn from_byte(b: u8) -> Option<GameResult> {
        match b {
            0 => Some(GameResult::BlackWin),
            1 => Some(GameResult::Draw),
            2 => Some(GameResult::WhiteWin),
            _ => None,
        }
    }

    /// `1-0`, `1/2-1/2` or `0-1`.
    pub fn pgn(self) -> &'static str {
        match self {
            GameResult::WhiteWin => "1-0",
            GameResult::Draw => "1/2-1/2",
            GameResult::BlackWin => "0-1",
        }
    }

    /// The win for `color`.
    pub fn win_for(color: Color) -> GameResult {
        match color {
            Color::White => GameResult::WhiteWin,
            Color::Black => GameResult::BlackWin,
        }
    }

    /// White's score: 1, 0.5 or 0.
    pub fn white_score(self) -> f64 {
        self as u8 as f64 / 2.0
    }

    /// `color`'s score: 1, 0.5 or 0.
    pub fn score_for(self, color: Color) -> f64 {
        match color {
            Color::White => self.white_score(),
            Color::Black => 1.0 - self.white_score(),
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.pgn())
    }
}

/// One recorded ply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ply {
    pub mv: Move,
    /// `round(65535 · p)`, p = the side to move's expected score.
    pub score: u16,
    /// One byte per legal move in record-encoding order; empty = none.
    pub visits: Vec<u8>,
}

/// A decoded game.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    pub start: Board,
    pub result: GameResult,
    pub plies: Vec<Ply>,
}

impl Game {
    /// Replays the game, calling `visit(board_before, ply)` for each ply;
    /// returns the final position. The moves were validated when decoding.
    pub fn replay(&self, mut visit: impl FnMut(&mut Board, &Ply)) -> Board {
        let mut board = self.start.clone();
        for ply in &self.plies {
            visit(&mut board, ply);
            board.make_move(ply.mv);
        }
        board
    }
}

/// Everything that can be wrong with a record file, or with a game to write.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RecordError {
    #[error("game {game}: the file ends inside the game ({source})")]
    Truncated { game: u64, source: codec::Truncated },
    #[error("game {game}: overlapping piece bitboards at offset {offset}")]
    BadBitboards { game: u64, offset: u64 },
    #[error("game {game}: side-to-move byte {value} at offset {offset} (must be 0 or 1)")]
    BadSideToMove { game: u64, offset: u64, value: u8 },
    #[error("game {game}: impossible en-passant square {value} at offset {offset}")]
    BadEnPassant { game: u64, offset: u64, value: u8 },
    #[error("game {game}: bad castling data at offset {offset}: {reason}")]
    BadCastling { game: u64, offset: u64, reason: String },
    #[error("game {game}: illegal start position at offset {offset}: {source}")]
    BadPosition { game: u64, offset: u64, source: BuildError },
    #[error("game {game}: result byte {value} at offset {offset} (must be 0, 1 or 2)")]
    BadResult { game: u64, offset: u64, value: u8 },
    #[error("game {game}, ply {ply}: move {raw:#06x} at offset {offset} is not legal")]
    IllegalMove { game: u64, ply: usize, offset: u64, raw: u16 },
    #[error("game {game}, ply {ply}: move count {found} at offset {offset}, but {legal} legal moves")]
    MoveCountMismatch { game: u64, ply: usize, offset: u64, found: u8, legal: usize },
    #[error("game {game}, ply {ply}: visit distribution at offset {offset} peaks at {max}, not 255")]
    UnnormalisedVisits { game: u64, ply: usize, offset: u64, max: u8 },
    #[error("game {game}: result {result} at offset {offset} contradicts the final position ({reason})")]
    ResultMismatch { game: u64, offset: u64, result: GameResult, reason: &'static str },
    #[error("cannot encode: {reason}")]
    Unencodable { reason: String },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// A temporary file of a pipeline tool (`records dedup`) did not read
    /// back as written.
    #[error("temporary file damaged: {0}")]
    Spill(#[from] crate::spill::SpillError),
}

// ----- writing ---------------------------------------------------------------

/// The side to move's expected score `p` as stored: `round(65535 · p)`.
pub fn score_to_u16(p: f64) -> u16 {
    if p.is_nan() {
        return 32768;
    }
    (p.clamp(0.0, 1.0) * 65535.0).round() as u16
}

/// The side to move's expected score of a stored value.
pub fn score_from_u16(s: u16) -> f64 {
    s as f64 / 65535.0
}

/// Builds the bytes of one game ply by ply; [`GameRecorder::finish`] adds
/// the result and the terminator. Every move is checked for legality.
#[derive(Clone, Debug)]
pub struct GameRecorder {
    board: Board,
    buf: Vec<u8>,
    plies: usize,
}

impl GameRecorder {
    /// Starts a game at `start` (the halfmove clock must fit a byte).
    pub fn new(start: &Board) -> Result<GameRecorder, RecordError> {
        let mut buf = Vec::with_capacity(HEADER_BYTES + 16 * 128);
        write_header(start, &mut buf)?;
        Ok(GameRecorder { board: start.clone(), buf, plies: 0 })
    }

    /// The position before the next ply.
    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn plies(&self) -> usize {
        self.plies
    }

    /// Records `mv` with its score and the nodes spent under each root move
    /// (moves not listed count 0). When every count is 0 no distribution is
    /// written (count byte 0).
    pub fn push(&mut self, mv: Move, score: u16, nodes: &[(Move, u64)]) -> Result<(), RecordError> {
        let legal = sorted_legal(&self.board);
        let counts: Vec<u64> =
            legal.iter().map(|&(_, m)| nodes.iter().filter(|(n, _)| *n == m).map(|&(_, c)| c).sum()).collect();
        let max = counts.iter().copied().max().unwrap_or(0);
        let visits: Vec<u8> = if max == 0 {
            Vec::new()
        } else {
            counts.iter().map(|&c| ((c as f64) * 255.0 / max as f64).round() as u8).collect()
        };
        self.push_visits(mv, score, &visits)
    }

    /// Records `mv` with ready-made visit bytes (empty = none).
    pub fn push_visits(&mut self, mv: Move, score: u16, visits: &[u8]) -> Result<(), RecordError> {
        if !self.board.is_legal(mv) {
            return Err(RecordError::Unencodable { reason: format!("ply {}: illegal move {mv:?}", self.plies + 1) });
        }
        if !visits.is_empty() {
            let legal = self.board.count_legal() as usize;
            if visits.len() != legal || legal > 255 {
                return Err(RecordError::Unencodable {
                    reason: format!("ply {}: {} visit bytes for {legal} legal moves", self.plies + 1, visits.len()),
                });
            }
        }
        self.buf.put_u16_le(self.board.to_record_move(mv));
        self.buf.put_u16_le(score);
        self.buf.push(visits.len() as u8);
        self.buf.extend_from_slice(visits);
        self.board.make_move(mv);
        self.plies += 1;
        Ok(())
    }

    /// The game's bytes with `result` and the terminator.
    pub fn finish(mut self, result: GameResult) -> Vec<u8> {
        self.buf[HEADER_BYTES - 1] = result as u8;
        self.buf.extend_from_slice(&[0, 0]);
        self.buf
    }
}

/// Encodes a whole game.
pub fn encode(game: &Game) -> Result<Vec<u8>, RecordError> {
    let mut rec = GameRecorder::new(&game.start)?;
    for ply in &game.plies {
        rec.push_visits(ply.mv, ply.score, &ply.visits)?;
    }
    Ok(rec.finish(game.result))
}

fn write_header(b: &Board, out: &mut Vec<u8>) -> Result<(), RecordError> {
    let halfmove = u8::try_from(b.halfmove_clock()).map_err(|_| RecordError::Unencodable {
        reason: format!("halfmove clock {} does not fit a byte", b.halfmove_clock()),
    })?;
    let t = |pt| b.type_bb(pt).0;
    let (pawns, knights, bishops) = (t(PieceType::Pawn), t(PieceType::Knight), t(PieceType::Bishop));
    let (rooks, queens, kings) = (t(PieceType::Rook), t(PieceType::Queen), t(PieceType::King));
    for bb in [b.color_bb(Color::Black).0, rooks | queens | kings, knights | bishops | kings, pawns | bishops | queens]
    {
        out.put_u64_le(bb);
    }
    out.push(b.side_to_move() as u8);
    out.push(b.ep_square().map_or(0, |s| s.index() as u8));
    let cr = b.castling_rights();
    let mut rights = 0;
    for (ours, theirs) in
        [(WHITE_OOO, REC_WHITE_OOO), (WHITE_OO, REC_WHITE_OO), (BLACK_OOO, REC_BLACK_OOO), (BLACK_OO, REC_BLACK_OO)]
    {
        if cr & ours != 0 {
            rights |= theirs;
        }
    }
    out.push(rights);
    out.push(halfmove);
    out.put_u16_le(b.fullmove_number());
    for (color, king_side) in [(Color::White, false), (Color::White, true), (Color::Black, false), (Color::Black, true)]
    {
        let idx = castle_index(color, king_side);
        let file = if cr >> idx & 1 != 0 {
            b.castling_rook(idx).file()
        } else if king_side {
            7
        } else {
            0
        };
        out.push(file);
    }
    out.push(GameResult::Draw as u8);
    Ok(())
}

/// The legal moves with their record encodings, sorted by encoding.
fn sorted_legal(b: &Board) -> Vec<(u16, Move)> {
    let mut v: Vec<(u16, Move)> = b.legal_moves().iter().map(|m| (b.to_record_move(m), m)).collect();
    v.sort_unstable_by_key(|&(raw, _)| raw);
    v
}

// ----- reading ---------------------------------------------------------------

/// The error of a read past the end inside game `game`.
fn cut(game: u64) -> impl Fn(codec::Truncated) -> RecordError + Copy {
    move |source| RecordError::Truncated { game, source }
}

/// Iterates over the games of a file, validating each; stops after the
/// first error (which it yields).
pub type Reader<'a> = codec::Items<'a, Games>;

/// The games of a records file, for [`codec::Items`].
#[derive(Clone, Copy, Debug)]
pub struct Games;

impl codec::Decode for Games {
    type Item = Game;
    type Error = RecordError;
    fn decode(cur: &mut codec::Reader<'_>, game: u64) -> Result<Game, RecordError> {
        decode_game(cur, game)
    }
}

/// Decodes and validates every game.
pub fn parse(data: &[u8]) -> Result<Vec<Game>, RecordError> {
    Reader::new(data).collect()
}

/// Totals of a valid file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub games: u64,
    pub positions: u64,
}

/// Validates every game without keeping them.
pub fn validate(data: &[u8]) -> Result<Totals, RecordError> {
    let mut t = Totals::default();
    for g in Reader::new(data) {
        let g = g?;
        t.games += 1;
        t.positions += g.plies.len() as u64;
    }
    Ok(t)
}

/// Checks only the framing (header sizes, count bytes, terminators), fast
/// enough for any file: the number of complete games, or where the framing
/// breaks. Used before appending to an existing file.
pub fn scan(data: &[u8]) -> Result<u64, RecordError> {
    let f = framing(data);
    if f.complete_bytes < data.len() as u64 {
        return Err(torn(data, &f));
    }
    Ok(f.games)
}

/// The error of the game after the whole games of `f`, which the file cuts
/// short: where its framing needs more bytes than there are.
pub fn torn(data: &[u8], f: &Framing) -> RecordError {
    let mut cur = codec::Reader::at(data, f.complete_bytes as usize);
    // The framing stopped there, so stepping over the game fails.
    let source = frame_one(&mut cur).err().unwrap_or(cur.truncated(1));
    RecordError::Truncated { game: f.games, source }
}

/// Where the framing of a file's games ends: see [`framing`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Framing {
    /// Games whose framing is complete, from the start of the file.
    pub games: u64,
    /// Bytes those games take (the offset just after the last of them).
    pub complete_bytes: u64,
    /// Offset of the last of them (0 when there is none).
    pub last_game_start: u64,
}

/// The games at the start of `data` whose framing (header size, count
/// bytes, terminator) is complete; what follows `complete_bytes`, if
/// anything, is a game cut short or damage. Framing only: moves and boards
/// are not checked.
pub fn framing(data: &[u8]) -> Framing {
    spans(data).fold(Framing::default(), |f, r| Framing {
        games: f.games + 1,
        complete_bytes: r.end as u64,
        last_game_start: r.start as u64,
    })
}

/// The byte ranges of the games at the start of `data` whose framing is
/// complete (see [`framing`]); for files this program wrote itself.
pub fn framing_spans(data: &[u8]) -> Vec<std::ops::Range<usize>> {
    spans(data).collect()
}

/// The byte ranges of the whole games at the start of `data`, by framing.
fn spans(data: &[u8]) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut cur = codec::Reader::new(data);
    std::iter::from_fn(move || {
        let start = cur.offset();
        (!cur.is_empty() && frame_one(&mut cur).is_ok()).then_some(start..cur.offset())
    })
}

/// Steps over one game's framing.
fn frame_one(cur: &mut codec::Reader) -> Result<(), codec::Truncated> {
    cur.skip(HEADER_BYTES)?;
    while cur.u16_le()? != 0 {
        cur.skip(2)?;
        let n = cur.u8()?;
        cur.skip(n as usize)?;
    }
    Ok(())
}

/// Maps a record file read-only.
pub fn map(path: &std::path::Path) -> Result<memmap2::Mmap, RecordError> {
    let file = std::fs::File::open(path)?;
    Ok(crate::mapped::map_file(&file)?)
}

fn decode_game(cur: &mut codec::Reader, game: u64) -> Result<Game, RecordError> {
    let cut = cut(game);
    let start_offset = cur.offset() as u64;
    let start = decode_header(cur, game)?;
    let result_offset = cur.offset() as u64;
    let value = cur.u8().map_err(cut)?;
    let result = GameResult::from_byte(value).ok_or(RecordError::BadResult { game, offset: result_offset, value })?;
    let mut board = start.clone();
    let mut plies = Vec::new();
    loop {
        let offset = cur.offset() as u64;
        let raw = cur.u16_le().map_err(cut)?;
        if raw == 0 {
            break;
        }
        let ply = plies.len() + 1;
        let score = cur.u16_le().map_err(cut)?;
        let count_offset = cur.offset() as u64;
        let count = cur.u8().map_err(cut)?;
        let visits = cur.bytes(count as usize).map_err(cut)?.to_vec();
        let legal = sorted_legal(&board);
        let mv = match legal.binary_search_by_key(&raw, |&(r, _)| r) {
            Ok(i) => legal.get(i).map(|&(_, m)| m),
            Err(_) => None,
        };
        let Some(mv) = mv else {
            return Err(RecordError::IllegalMove { game, ply, offset, raw });
        };
        if count != 0 && count as usize != legal.len() {
            return Err(RecordError::MoveCountMismatch {
                game,
                ply,
                offset: count_offset,
                found: count,
                legal: legal.len(),
            });
        }
        let max = visits.iter().copied().max().unwrap_or(255);
        if max != 255 {
            return Err(RecordError::UnnormalisedVisits { game, ply, offset: count_offset + 1, max });
        }
        board.make_move(mv);
        plies.push(Ply { mv, score, visits });
    }
    if let Some(reason) = contradiction(&board, result) {
        return Err(RecordError::ResultMismatch {
            game,
            offset: start_offset + HEADER_BYTES as u64 - 1,
            result,
            reason,
        });
    }
    Ok(Game { start, result, plies })
}

/// Why `result` cannot be the result of a game ending in `board`, if so.
pub(crate) fn contradiction(board: &Board, result: GameResult) -> Option<&'static str> {
    if !board.has_legal_moves() {
        if board.in_check() {
            let winner = GameResult::win_for(!board.side_to_move());
            return (result != winner).then_some("checkmate");
        }
        return (result != GameResult::Draw).then_some("stalemate");
    }
    if result == GameResult::Draw {
        return None;
    }
    if board.is_insufficient_material() {
        Some("insufficient material")
    } else if board.halfmove_clock() >= 100 {
        Some("fifty-move rule")
    } else if board.is_repetition(0) {
        Some("threefold repetition")
    } else {
        None
    }
}

/// The header's fields before the result byte, as stored.
struct Header {
    bitboards: [u64; 4],
    stm: u8,
    ep: u8,
    rights: u8,
    halfmove: u8,
    fullmove: u16,
    files: [u8; 4],
}

impl Header {
    fn read(r: &mut codec::Reader) -> Result<Header, codec::Truncated> {
        Ok(Header {
            bitboards: [r.u64_le()?, r.u64_le()?, r.u64_le()?, r.u64_le()?],
            stm: r.u8()?,
            ep: r.u8()?,
            rights: r.u8()?,
            halfmove: r.u8()?,
            fullmove: r.u16_le()?,
            files: r.array()?,
        })
    }
}

/// Reads the compressed board and castling files; builds a validated board.
fn decode_header(cur: &mut codec::Reader, game: u64) -> Result<Board, RecordError> {
    let offset = cur.offset() as u64;
    let Header { bitboards: [black, rqk, nbk, pbq], stm, ep, rights, halfmove, fullmove, files } =
        Header::read(cur).map_err(cut(game))?;
    let occ = rqk | nbk | pbq;
    if rqk & nbk & pbq != 0 || black & !occ != 0 {
        return Err(RecordError::BadBitboards { game, offset });
    }
    let kings = rqk & nbk;
    let queens = rqk & pbq;
    let bishops = nbk & pbq;
    let pieces = [
        (PieceType::Pawn, pbq ^ bishops ^ queens),
        (PieceType::Knight, nbk ^ bishops ^ kings),
        (PieceType::Bishop, bishops),
        (PieceType::Rook, rqk ^ kings ^ queens),
        (PieceType::Queen, queens),
        (PieceType::King, kings),
    ];
    let mut squares = [None; 64];
    for (pt, bb) in pieces {
        for sq in Bitboard(bb) {
            let color = if black >> sq.index() & 1 != 0 { Color::Black } else { Color::White };
            if let Some(slot) = squares.get_mut(sq.index()) {
                *slot = Some(crate::types::Piece::new(color, pt));
            }
        }
    }
    let side_to_move = match stm {
        0 => Color::White,
        1 => Color::Black,
        value => return Err(RecordError::BadSideToMove { game, offset: offset + 32, value }),
    };
    let bad_castling = |reason| RecordError::BadCastling { game, offset: offset + 34, reason };
    if rights > 15 {
        return Err(bad_castling(format!("rights byte {rights} uses more than 4 bits")));
    }
    if let Some(f) = files.iter().find(|&&f| f > 7) {
        return Err(bad_castling(format!("rook file {f} is not a file")));
    }
    if ep > 63 {
        return Err(RecordError::BadEnPassant { game, offset: offset + 33, value: ep });
    }
    let mut board = BoardBuilder {
        squares,
        side_to_move,
        en_passant: (ep != 0).then(|| Square::new(ep)),
        halfmove_clock: halfmove.into(),
        fullmove_number: fullmove,
        ..BoardBuilder::new()
    };
    // Record order: white O-O-O, white O-O, black O-O-O, black O-O.
    let rights_files = [
        (REC_WHITE_OOO, Color::White, false, files[0]),
        (REC_WHITE_OO, Color::White, true, files[1]),
        (REC_BLACK_OOO, Color::Black, false, files[2]),
        (REC_BLACK_OO, Color::Black, true, files[3]),
    ];
    for (bit, color, king_side, file) in rights_files {
        if rights & bit != 0 {
            board.castle(color, king_side, file);
        }
    }
    board.build().map_err(|e| match e {
        BuildError::ImpossibleEnPassant { .. } => RecordError::BadEnPassant { game, offset: offset + 33, value: ep },
        BuildError::CastlingWithoutKing { .. } | BuildError::CastlingWithoutRook { .. } => bad_castling(e.to_string()),
        source => RecordError::BadPosition { game, offset, source },
    })
}

#[cfg(test)]
pub(crate) mod tests;
