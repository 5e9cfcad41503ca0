//! FEN parsing and writing, with X-FEN and Shredder-FEN castling fields.
//!
//! Accepted: 4 to 6 space-separated fields; missing move counters default to
//! `0 1`. Castling letters: `KQkq` (outermost rook on that side, X-FEN) or
//! rook files `A`–`H` / `a`–`h` (Shredder-FEN). A position whose castling
//! rooks or king are not on the standard squares is Chess960 automatically.
//! Written: standard `KQkq` in standard chess, Shredder letters in Chess960.
//! Every rejection is a [`FenError`] naming the offending field.

use super::builder;
use super::{castle_index, Board};
use crate::types::{Color, Piece, PieceType, Square};
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FenError {
    #[error("expected 4 to 6 fields, found {found}")]
    FieldCount { found: usize },
    #[error("board has {found} ranks, expected 8")]
    RankCount { found: usize },
    #[error("invalid piece letter '{letter}' on rank {rank}")]
    BadPiece { letter: char, rank: u8 },
    #[error("rank {rank} describes {squares} squares, expected 8")]
    RankLength { rank: u8, squares: usize },
    #[error("{color:?} has {count} kings, expected exactly 1")]
    KingCount { color: Color, count: u32 },
    #[error("pawn on its back rank at {square}")]
    PawnOnBackRank { square: Square },
    #[error("side to move must be 'w' or 'b', found '{found}'")]
    BadSideToMove { found: String },
    #[error("invalid castling field '{found}'")]
    BadCastling { found: String },
    #[error("castling right '{right}' but the king is not on its back rank")]
    CastlingWithoutKing { right: char },
    #[error("castling right '{right}' but no rook stands where it needs one")]
    CastlingWithoutRook { right: char },
    #[error("invalid en-passant field '{found}'")]
    BadEnPassant { found: String },
    #[error("en-passant square {square} is impossible in this position")]
    ImpossibleEnPassant { square: Square },
    #[error("the side not to move is in check")]
    OpponentInCheck,
    #[error("halfmove clock '{found}' is not a number in 0..=65535")]
    BadHalfmoveClock { found: String },
    #[error("fullmove number '{found}' is not a number in 1..=65535")]
    BadFullmoveNumber { found: String },
}

impl Board {
    /// Parses a FEN. `chess960` forces Chess960 notation; a position whose
    /// castling setup is not the standard one turns it on by itself.
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Board, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if !(4..=6).contains(&fields.len()) {
            return Err(FenError::FieldCount { found: fields.len() });
        }
        let mut b = Board::empty();
        parse_placement(&mut b, fields[0])?;
        b.side = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => return Err(FenError::BadSideToMove { found: other.to_string() }),
        };
        b.chess960 = chess960;
        parse_castling(&mut b, fields[2])?;
        parse_ep(&mut b, fields[3])?;
        let rule50 = match fields.get(4) {
            None => 0,
            Some(s) => s.parse::<u16>().map_err(|_| FenError::BadHalfmoveClock { found: s.to_string() })?,
        };
        let fullmove = match fields.get(5) {
            None => 1,
            Some(s) => match s.parse::<u16>() {
                Ok(n) if n >= 1 => n,
                _ => return Err(FenError::BadFullmoveNumber { found: s.to_string() }),
            },
        };
        b.state.rule50 = rule50;
        b.start_ply = (fullmove as u32 - 1) * 2 + u32::from(b.side == Color::Black);
        if builder::opponent_in_check(&b) {
            return Err(FenError::OpponentInCheck);
        }
        b.finish_setup();
        Ok(b)
    }

    /// The FEN of the current position.
    pub fn fen(&self) -> String {
        let mut s = placement_field(&self.mailbox);
        s.push_str(if self.side == Color::White { " w " } else { " b " });
        let cr = self.castling_rights();
        if cr == 0 {
            s.push('-');
        }
        for (idx, std_letter) in [(0, 'K'), (1, 'Q'), (2, 'k'), (3, 'q')] {
            if cr >> idx & 1 != 0 {
                let c = if self.chess960 {
                    let f = (b'a' + self.castling_rooks[idx].file()) as char;
                    if idx < 2 {
                        f.to_ascii_uppercase()
                    } else {
                        f
                    }
                } else {
                    std_letter
                };
                s.push(c);
            }
        }
        match self.ep_square() {
            Some(ep) => s.push_str(&format!(" {ep}")),
            None => s.push_str(" -"),
        }
        s.push_str(&format!(" {} {}", self.halfmove_clock(), self.fullmove_number()));
        s
    }
}

/// The FEN piece-placement field of a board given square by square.
pub fn placement_field(squares: &[Option<Piece>; 64]) -> String {
    let mut s = String::with_capacity(90);
    for rank in (0..8u8).rev() {
        let mut empty = 0;
        for file in 0..8u8 {
            match squares[Square::from_coords(file, rank).index()] {
                Some(pc) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(pc.char());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s
}

fn parse_placement(b: &mut Board, field: &str) -> Result<(), FenError> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    for (i, text) in ranks.iter().enumerate() {
        let rank = 7 - i as u8;
        let mut file = 0usize;
        for c in text.chars() {
            if let Some(d) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                file += d as usize;
            } else if let Some(pc) = Piece::from_char(c) {
                if file < 8 {
                    b.put(pc, Square::from_coords(file as u8, rank));
                }
                file += 1;
            } else {
                return Err(FenError::BadPiece { letter: c, rank: rank + 1 });
            }
            if file > 8 {
                return Err(FenError::RankLength { rank: rank + 1, squares: file });
            }
        }
        if file != 8 {
            return Err(FenError::RankLength { rank: rank + 1, squares: file });
        }
    }
    if let Some((color, count)) = builder::wrong_king_count(b) {
        return Err(FenError::KingCount { color, count });
    }
    match builder::pawn_on_back_rank(b) {
        Some(square) => Err(FenError::PawnOnBackRank { square }),
        None => Ok(()),
    }
}

fn parse_castling(b: &mut Board, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let bad = || FenError::BadCastling { found: field.to_string() };
    if field.is_empty() || field.len() > 4 {
        return Err(bad());
    }
    let mut standard = true;
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let back = color.relative_rank(0);
        let ksq = b.king_square(color);
        if ksq.rank() != back {
            return Err(FenError::CastlingWithoutKing { right: c });
        }
        let rooks = b.pieces_of(color, PieceType::Rook) & crate::types::Bitboard::rank(back);
        let rook_sq = match c.to_ascii_lowercase() {
            'k' => rooks.filter(|s| s.file() > ksq.file()).last(),
            'q' => rooks.clone().find(|s| s.file() < ksq.file()),
            f @ 'a'..='h' => {
                let sq = Square::from_coords(f as u8 - b'a', back);
                (rooks.contains(sq) && sq.file() != ksq.file()).then_some(sq)
            }
            _ => return Err(bad()),
        };
        let Some(rook_sq) = rook_sq else {
            return Err(FenError::CastlingWithoutRook { right: c });
        };
        let idx = castle_index(color, rook_sq.file() > ksq.file());
        if b.state.castling >> idx & 1 != 0 {
            return Err(bad());
        }
        if ksq.file() != 4 || (rook_sq.file() != 0 && rook_sq.file() != 7) {
            standard = false;
        }
        b.add_castling_right(color, rook_sq);
    }
    if !standard {
        b.chess960 = true;
    }
    Ok(())
}

fn parse_ep(b: &mut Board, field: &str) -> Result<(), FenError> {
    if field == "-" {
        return Ok(());
    }
    let sq = Square::parse(field).ok_or_else(|| FenError::BadEnPassant { found: field.to_string() })?;
    b.state.ep = builder::en_passant(b, sq).ok_or(FenError::ImpossibleEnPassant { square: sq })?;
    Ok(())
}
