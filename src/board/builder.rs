//! A position from its parts, validated once ([`BoardBuilder::build`]), as
//! cozy-chess's `BoardBuilder`: what a record decoder has in hand (pieces,
//! side, castling rook files, en passant, clocks) without printing and
//! re-parsing a FEN. The checks are the FEN parser's ([`Board::from_fen`]),
//! shared with it, so a builder and the FEN of the same position give the
//! identical board (keys included).

use super::{castle_index, Board};
use crate::attacks;
use crate::types::{Bitboard, Color, Piece, PieceType, Square};
use thiserror::Error;

/// Why parts are not a position.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    #[error("{color:?} has {count} kings, expected exactly 1")]
    KingCount { color: Color, count: u32 },
    #[error("pawn on its back rank at {square}")]
    PawnOnBackRank { square: Square },
    #[error("{color:?} castling right but the king is not on its back rank")]
    CastlingWithoutKing { color: Color },
    #[error("{color:?} castling right with the rook on file {file}, but no rook of that side stands there")]
    CastlingWithoutRook { color: Color, file: u8 },
    #[error("en-passant square {square} is impossible in this position")]
    ImpossibleEnPassant { square: Square },
    #[error("the side not to move is in check")]
    OpponentInCheck,
    #[error("fullmove number 0 (must be 1 or more)")]
    ZeroFullmoveNumber,
}

/// The parts of a position. Start from [`BoardBuilder::new`] (an empty
/// board, white to move, no rights, clocks `0 1`) and set what you have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardBuilder {
    /// The piece on each square (a1 = 0, b1 = 1, …, h8 = 63).
    pub squares: [Option<Piece>; 64],
    pub side_to_move: Color,
    /// The rook file of each castling right, indexed by [`castle_index`]
    /// (white O-O, white O-O-O, black O-O, black O-O-O).
    pub castling: [Option<u8>; 4],
    /// The square a pawn just skipped; kept (as in a FEN) only when a pawn
    /// of the side to move can capture there.
    pub en_passant: Option<Square>,
    pub halfmove_clock: u16,
    pub fullmove_number: u16,
    /// Chess960 notation; turned on anyway by a non-standard castling setup.
    pub chess960: bool,
}

impl Default for BoardBuilder {
    fn default() -> BoardBuilder {
        BoardBuilder::new()
    }
}

impl BoardBuilder {
    pub fn new() -> BoardBuilder {
        BoardBuilder {
            squares: [None; 64],
            side_to_move: Color::White,
            castling: [None; 4],
            en_passant: None,
            halfmove_clock: 0,
            fullmove_number: 1,
            chess960: false,
        }
    }

    /// Puts `piece` on `square` (replacing what was there).
    pub fn piece(&mut self, square: Square, piece: Option<Piece>) -> &mut BoardBuilder {
        self.squares[square.index()] = piece;
        self
    }

    /// The castling right of `color` on the side of the rook on `file`.
    pub fn castle(&mut self, color: Color, king_side: bool, file: u8) -> &mut BoardBuilder {
        self.castling[castle_index(color, king_side)] = Some(file);
        self
    }

    /// The position, or the first thing wrong with it.
    pub fn build(&self) -> Result<Board, BuildError> {
        let mut b = Board::empty();
        for (sq, pc) in self.squares.iter().enumerate() {
            if let Some(pc) = *pc {
                b.put(pc, Square::new(sq as u8));
            }
        }
        check_pieces(&b)?;
        b.side = self.side_to_move;
        b.chess960 = self.chess960;
        for color in Color::ALL {
            for king_side in [true, false] {
                if let Some(file) = self.castling[castle_index(color, king_side)] {
                    add_right(&mut b, color, king_side, file)?;
                }
            }
        }
        if let Some(square) = self.en_passant {
            b.state.ep = en_passant(&b, square).ok_or(BuildError::ImpossibleEnPassant { square })?;
        }
        if self.fullmove_number == 0 {
            return Err(BuildError::ZeroFullmoveNumber);
        }
        b.state.rule50 = self.halfmove_clock;
        b.start_ply = (self.fullmove_number as u32 - 1) * 2 + u32::from(b.side == Color::Black);
        if opponent_in_check(&b) {
            return Err(BuildError::OpponentInCheck);
        }
        b.finish_setup();
        Ok(b)
    }
}

impl From<&Board> for BoardBuilder {
    /// The parts of `board` (its en-passant square as the board keeps it).
    fn from(board: &Board) -> BoardBuilder {
        let cr = board.castling_rights();
        BoardBuilder {
            squares: board.mailbox,
            side_to_move: board.side,
            castling: std::array::from_fn(|i| (cr >> i & 1 != 0).then(|| board.castling_rooks[i].file())),
            en_passant: board.ep_square(),
            halfmove_clock: board.halfmove_clock(),
            fullmove_number: board.fullmove_number(),
            chess960: board.chess960,
        }
    }
}

/// One king each and no pawn on a back rank.
fn check_pieces(b: &Board) -> Result<(), BuildError> {
    if let Some((color, count)) = wrong_king_count(b) {
        return Err(BuildError::KingCount { color, count });
    }
    match pawn_on_back_rank(b) {
        Some(square) => Err(BuildError::PawnOnBackRank { square }),
        None => Ok(()),
    }
}

/// The first side without exactly one king, and its king count.
pub(super) fn wrong_king_count(b: &Board) -> Option<(Color, u32)> {
    Color::ALL.into_iter().map(|c| (c, b.pieces_of(c, PieceType::King).count())).find(|&(_, n)| n != 1)
}

/// A pawn on rank 1 or 8, if any.
pub(super) fn pawn_on_back_rank(b: &Board) -> Option<Square> {
    (b.type_bb(PieceType::Pawn) & (Bitboard::rank(0) | Bitboard::rank(7))).next()
}

/// Adds the right of the rook on `file`; a right off the standard king and
/// corner rook squares makes the board Chess960.
fn add_right(b: &mut Board, color: Color, king_side: bool, file: u8) -> Result<(), BuildError> {
    let back = color.relative_rank(0);
    let ksq = b.king_square(color);
    if ksq.rank() != back {
        return Err(BuildError::CastlingWithoutKing { color });
    }
    let rook_sq = Square::from_coords(file.min(7), back);
    let rook = Piece::new(color, PieceType::Rook);
    if file > 7 || b.piece_on(rook_sq) != Some(rook) || (file > ksq.file()) != king_side || file == ksq.file() {
        return Err(BuildError::CastlingWithoutRook { color, file });
    }
    if ksq.file() != 4 || (file != 0 && file != 7) {
        b.chess960 = true;
    }
    b.add_castling_right(color, rook_sq);
    Ok(())
}

/// The en-passant square as a board keeps it: `None` inside when no pawn of
/// the side to move can capture there; `None` outside when the square is
/// impossible (not just skipped by a pawn of the other side).
pub(super) fn en_passant(b: &Board, sq: Square) -> Option<Option<Square>> {
    let us = b.side;
    let them = !us;
    if sq.rank() != us.relative_rank(5) {
        return None;
    }
    let pawn_sq = Square::from_coords(sq.file(), them.relative_rank(3));
    let origin = Square::from_coords(sq.file(), them.relative_rank(1));
    if b.piece_on(pawn_sq) != Some(Piece::new(them, PieceType::Pawn))
        || b.piece_on(sq).is_some()
        || b.piece_on(origin).is_some()
    {
        return None;
    }
    Some((attacks::pawn(them, sq) & b.pieces_of(us, PieceType::Pawn)).any().then_some(sq))
}

/// Whether the side not to move is in check.
pub(super) fn opponent_in_check(b: &Board) -> bool {
    b.is_attacked(b.king_square(!b.side), b.side, b.occupied())
}

#[cfg(test)]
mod tests;
