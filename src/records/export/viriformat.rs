//! viriformat, the game format of the Viridithas engine (read by its
//! `viriformat` crate and by bullet's data tools): a plain concatenation of
//! games, all integers little-endian.
//!
//! One game:
//!
//! | offset | size | field | meaning / validation |
//! |--------|------|-------|----------------------|
//! | 0  | 8  | occupancy | the occupied squares (a1 = bit 0); at most 32 |
//! | 8  | 16 | pieces | a nibble per occupied square in square order, low nibble first: type (pawn 0, knight 1, bishop 2, rook 3, queen 4, king 5, 6 = a rook with its castling right) ∣ colour << 3 (black 1); 7 is invalid |
//! | 24 | 1  | stm ∣ ep | side to move << 7 ∣ en-passant square (64 = none) |
//! | 25 | 1  | halfmove clock | |
//! | 26 | 2  | fullmove number | |
//! | 28 | 2  | eval | i16, 0 in a game header |
//! | 30 | 1  | wdl | white's result: 2 win, 1 draw, 0 loss |
//! | 31 | 1  | extra | 0 |
//! | 32 | 4·n | plies | per ply: move u16, then the white-relative score i16 (centipawns) |
//! | end−4 | 4 | terminator | `00 00 00 00` |
//!
//! Move: `from | to << 6 | promo << 12 | flag << 14`; flag 0 normal, 1 en
//! passant, 2 castling (`to` is the rook's square, also in standard
//! chess), 3 promotion (`promo` 0–3 = knight, bishop, rook, queen).
//! A rook of code 6 left of its king gives the queen-side right, right of
//! it the king-side right (Chess960 positions are written the same way).
//!
//! [`Reader`] checks every field, that the start position is legal and
//! that every move is legal; each problem is a [`ViriformatError`] with
//! the game's index and the byte offset.

use crate::board::{castle_index, Board, BoardBuilder};
use crate::codec::{self, Fixed, Put};
use crate::records::{score, Game, GameResult};
use crate::types::{Color, Move, MoveKind, Piece, PieceType, Square};
use thiserror::Error;

/// Bytes of the packed board.
pub const BOARD_BYTES: usize = 32;
const UNMOVED_ROOK: u8 = 6;

/// What is wrong with a viriformat file.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ViriformatError {
    #[error("game {game}: the file ends inside the game ({source})")]
    Truncated { game: u64, source: codec::Truncated },
    #[error("game {game}: bad piece data at offset {offset}: {reason}")]
    BadPieces { game: u64, offset: u64, reason: String },
    #[error("game {game}: bad en-passant square {value} at offset {offset}")]
    BadEnPassant { game: u64, offset: u64, value: u8 },
    #[error("game {game}: illegal start position at offset {offset}: {reason}")]
    BadPosition { game: u64, offset: u64, reason: String },
    #[error("game {game}: wdl byte {value} at offset {offset} (must be 0, 1 or 2)")]
    BadResult { game: u64, offset: u64, value: u8 },
    #[error("game {game}, ply {ply}: move {raw:#06x} at offset {offset} is not legal")]
    IllegalMove { game: u64, ply: usize, offset: u64, raw: u16 },
}

/// The packed board of `b` with `wdl`.
fn pack(b: &Board, wdl: u8) -> [u8; BOARD_BYTES] {
    let rights = b.castling_rights();
    let castling_rooks: Vec<Square> = (0..4).filter(|&i| rights >> i & 1 != 0).map(|i| b.castling_rook(i)).collect();
    let mut pieces = [0u8; 16];
    for (i, sq) in b.occupied().enumerate() {
        let Some(piece) = b.piece_on(sq) else { continue };
        let mut code = piece.kind().index() as u8;
        if piece.kind() == PieceType::Rook && castling_rooks.contains(&sq) {
            code = UNMOVED_ROOK;
        }
        code |= (piece.color() as u8) << 3;
        if let Some(byte) = pieces.get_mut(i / 2) {
            *byte |= code << (i % 2 * 4);
        }
    }
    let mut out = Fixed::<BOARD_BYTES>::new();
    out.put_u64_le(b.occupied().0);
    out.put(&pieces);
    out.put_u8((b.side_to_move() as u8) << 7 | b.ep_square().map_or(64, |s| s.index() as u8));
    out.put_u8(u8::try_from(b.halfmove_clock()).unwrap_or(u8::MAX));
    out.put_u16_le(b.fullmove_number());
    out.put_i16_le(0);
    out.put(&[wdl, 0]);
    out.into_array()
}

/// The viriformat encoding of an engine move.
pub fn encode_move(m: Move) -> u16 {
    let base = m.from().index() as u16 | (m.to().index() as u16) << 6;
    match m.kind() {
        MoveKind::Normal => base,
        MoveKind::EnPassant => base | 1 << 14,
        MoveKind::Castling => base | 2 << 14,
        MoveKind::Promotion => {
            let p = m.promotion_piece().map_or(3, |p| p.index() as u16 - 1);
            base | p << 12 | 3 << 14
        }
    }
}

/// The engine move of a viriformat move (not checked for legality).
fn decode_move(raw: u16) -> Move {
    let (from, to) = (Square::new((raw & 63) as u8), Square::new((raw >> 6 & 63) as u8));
    match raw >> 14 {
        0 => Move::normal(from, to),
        1 => Move::with_kind(from, to, MoveKind::EnPassant),
        2 => Move::with_kind(from, to, MoveKind::Castling),
        _ => Move::promotion(from, to, PieceType::from_index(usize::from(raw >> 12 & 3) + 1)),
    }
}

/// The viriformat bytes of a record game: the start with white's result,
/// then each move with its white-relative centipawns.
pub fn encode(game: &Game) -> Vec<u8> {
    let mut out = Vec::with_capacity(BOARD_BYTES + 4 * game.plies.len() + 4);
    out.extend_from_slice(&pack(&game.start, game.result as u8));
    super::positions(game, |p| {
        out.put_u16_le(encode_move(p.mv));
        out.put_i16_le(p.white_cp().clamp(-score::DECISIVE_CP, score::DECISIVE_CP) as i16);
    });
    out.put(&[0; 4]);
    out
}

/// A decoded game.
#[derive(Debug, Clone)]
pub struct ViriGame {
    pub start: Board,
    pub result: GameResult,
    /// Each move with its white-relative centipawns.
    pub plies: Vec<(Move, i16)>,
}

/// Iterates over the games of a file, validating each; stops after the
/// first error (which it yields).
pub type Reader<'a> = codec::Items<'a, Games>;

/// The games of a viriformat file, for [`codec::Items`].
#[derive(Clone, Copy, Debug)]
pub struct Games;

impl codec::Decode for Games {
    type Item = ViriGame;
    type Error = ViriformatError;
    fn decode(cur: &mut codec::Reader<'_>, game: u64) -> Result<ViriGame, ViriformatError> {
        let offset = cur.offset() as u64;
        let cut = |source| ViriformatError::Truncated { game, source };
        let packed: [u8; BOARD_BYTES] = cur.array().map_err(cut)?;
        let start = unpack(&packed, game, offset)?;
        let result = GameResult::from_byte(packed[30]).ok_or(ViriformatError::BadResult {
            game,
            offset: offset + 30,
            value: packed[30],
        })?;
        let mut board = start.clone();
        let mut plies = Vec::new();
        loop {
            let offset = cur.offset() as u64;
            let ply = cur.array::<4>().map_err(cut)?;
            if ply == [0; 4] {
                break;
            }
            let mut ply = codec::Reader::new(&ply);
            let (raw, cp) = (ply.u16_le().map_err(cut)?, ply.i16_le().map_err(cut)?);
            let candidate = decode_move(raw);
            let Some(mv) = board.legal_moves().iter().find(|&m| m == candidate) else {
                return Err(ViriformatError::IllegalMove { game, ply: plies.len() + 1, offset, raw });
            };
            board.make_move(mv);
            plies.push((mv, cp));
        }
        Ok(ViriGame { start, result, plies })
    }
}

/// The board of a packed header.
fn unpack(p: &[u8; BOARD_BYTES], game: u64, offset: u64) -> Result<Board, ViriformatError> {
    let mut r = codec::Reader::new(p);
    let cut = |source| ViriformatError::Truncated { game, source };
    let occupancy = crate::types::Bitboard(r.u64_le().map_err(cut)?);
    let pieces: [u8; 16] = r.array().map_err(cut)?;
    let [stm_ep, halfmove] = r.array().map_err(cut)?;
    let fullmove = r.u16_le().map_err(cut)?;
    let bad = |reason: String| ViriformatError::BadPieces { game, offset, reason };
    if occupancy.count() > 32 {
        return Err(bad(format!("{} occupied squares", occupancy.count())));
    }
    let mut board = BoardBuilder::new();
    let mut castling_rooks = Vec::new();
    for (i, sq) in occupancy.enumerate() {
        let code = pieces.get(i / 2).map_or(0, |b| b >> (i % 2 * 4) & 15);
        let color = if code >> 3 != 0 { Color::Black } else { Color::White };
        let kind = match code & 7 {
            UNMOVED_ROOK => {
                castling_rooks.push((color, sq.file()));
                PieceType::Rook
            }
            7 => return Err(bad(format!("piece code 7 on {sq}"))),
            k => PieceType::from_index(usize::from(k)),
        };
        board.piece(sq, Some(Piece::new(color, kind)));
    }
    let bad_position = |reason: String| ViriformatError::BadPosition { game, offset, reason };
    for (color, file) in castling_rooks {
        let king = Some(Piece::new(color, PieceType::King));
        let back = color.relative_rank(0);
        let king_file = (0..8).find(|&f| board.squares[Square::from_coords(f, back).index()] == king).unwrap_or(8);
        let king_side = file > king_file;
        if board.castling[castle_index(color, king_side)].is_some() {
            return Err(bad_position(format!("two {color:?} castling rooks on one side of the king")));
        }
        board.castle(color, king_side, file);
    }
    board.side_to_move = if stm_ep >> 7 != 0 { Color::Black } else { Color::White };
    board.en_passant = match stm_ep & 127 {
        64 => None,
        ep @ 0..=63 => Some(Square::new(ep)),
        value => return Err(ViriformatError::BadEnPassant { game, offset: offset + 24, value }),
    };
    board.halfmove_clock = halfmove.into();
    board.fullmove_number = fullmove;
    board.build().map_err(|e| bad_position(e.to_string()))
}

/// Decodes and validates every game.
pub fn parse(data: &[u8]) -> Result<Vec<ViriGame>, ViriformatError> {
    Reader::new(data).collect()
}

#[cfg(test)]
mod tests;
