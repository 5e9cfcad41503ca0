//! A FEN read as Lichess's tablebase server reads one (shakmaty's
//! `Fen::from_ascii`, then `Chess::from_setup` in standard castling mode
//! with invalid castling rights, invalid en-passant squares and impossible
//! checks ignored), so that every FEN a Lichess client sends gets the
//! answer Lichess gives.
//!
//! * Fields are separated by spaces or underscores (`8/8/..._w_-_-`);
//!   every field after the placement may be left out (white to move, no
//!   castling, no en-passant square, clocks 0 and 1).
//! * Castling rights (`KQkq`, or Shredder files `A`–`H`) that the position
//!   does not allow in standard chess (the king off the e-file, no rook in
//!   the corner) are dropped; a letter that is no right at all, or more
//!   than two rights for one side, is an error.
//! * An en-passant square that is not a square is an error; one that no
//!   pawn can capture on is dropped.
//! * The clocks saturate (a halfmove clock above 65535 reads as 65535); a
//!   fullmove number of 0 reads as 1.
//! * Errors, as Lichess: not exactly one king per side, pawns on a back
//!   rank, the side not to move in check, more material than promotions
//!   could give (shakmaty's `TOO_MUCH_MATERIAL`), crazyhouse pockets.

use crate::board::{Board, FenError};
use crate::types::{Bitboard, Color, PieceType, Square};
use thiserror::Error;

/// Why a FEN is refused.
#[derive(Debug, Error)]
pub enum LenientFenError {
    #[error("empty FEN")]
    Empty,
    #[error("unexpected field '{0}'")]
    ExtraField(String),
    #[error("pockets are a variant's (crazyhouse)")]
    Pockets,
    #[error("invalid castling field '{0}'")]
    Castling(String),
    #[error("'{0}' is not a number")]
    Number(String),
    #[error("{color:?} has more material than promotions can give")]
    TooMuchMaterial { color: Color },
    #[error(transparent)]
    Fen(#[from] FenError),
}

/// The board of `fen`, read as Lichess reads it (see the module docs).
pub fn board(fen: &str) -> Result<Board, LenientFenError> {
    let mut parts = fen.split([' ', '_']).filter(|p| !p.is_empty());
    let placement = parts.next().ok_or(LenientFenError::Empty)?;
    if placement.contains('[') || placement.matches('/').count() > 7 {
        return Err(LenientFenError::Pockets);
    }
    let turn = parts.next().unwrap_or("w");
    let castling = parts.next().unwrap_or("-");
    let ep = parts.next().unwrap_or("-");
    let halfmoves = parts.next().map_or(Ok(0), saturating).map(|n| n.min(u32::from(u16::MAX)))?;
    let fullmoves = parts.next().map_or(Ok(1), saturating).map(|n| n.clamp(1, u32::from(u16::MAX)))?;
    if let Some(extra) = parts.next() {
        return Err(LenientFenError::ExtraField(extra.to_string()));
    }
    if ep != "-" && Square::parse(ep).is_none() {
        return Err(FenError::BadEnPassant { found: ep.to_string() }.into());
    }
    // The placement and the side first (their errors are the FEN's), then
    // the rights that position allows.
    let bare = Board::from_fen(&format!("{placement} {turn} - - 0 1"), false)?;
    for color in [Color::White, Color::Black] {
        if !standard_material(&bare, color) {
            return Err(LenientFenError::TooMuchMaterial { color });
        }
    }
    let rights = standard_rights(&bare, castling)?;
    let strict =
        |ep: &str| Board::from_fen(&format!("{placement} {turn} {rights} {ep} {halfmoves} {fullmoves}"), false);
    match strict(ep) {
        Err(FenError::ImpossibleEnPassant { .. }) => Ok(strict("-")?),
        other => Ok(other?),
    }
}

/// A clock field as shakmaty reads it: digits only, saturating.
fn saturating(field: &str) -> Result<u32, LenientFenError> {
    if field.is_empty() || !field.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LenientFenError::Number(field.to_string()));
    }
    Ok(field.bytes().fold(0u32, |n, b| n.saturating_mul(10).saturating_add(u32::from(b - b'0'))))
}

/// The castling rights of `field` that standard chess allows on `board`,
/// as a FEN castling field (`KQkq` order, `-` for none).
fn standard_rights(board: &Board, field: &str) -> Result<String, LenientFenError> {
    if field == "-" {
        return Ok("-".into());
    }
    let bad = || LenientFenError::Castling(field.to_string());
    // Per colour, the corner files named (0 = a, 7 = h, others kept to count).
    let mut named: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    for c in field.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let file = match c.to_ascii_lowercase() {
            'k' => 7,
            'q' => 0,
            f @ 'a'..='h' => f as u8 - b'a',
            _ => return Err(bad()),
        };
        let list = &mut named[color.index()];
        if !list.contains(&file) {
            list.push(file);
        }
    }
    if named.iter().any(|l| l.len() > 2) {
        return Err(bad());
    }
    let mut out = String::new();
    for (color, letters) in [(Color::White, ['K', 'Q']), (Color::Black, ['k', 'q'])] {
        let back = if color == Color::White { 0 } else { 7 };
        let king_home = board.king_square(color) == Square::from_coords(4, back);
        let rooks = board.pieces_of(color, PieceType::Rook);
        for (letter, file) in letters.into_iter().zip([7u8, 0]) {
            if king_home && named[color.index()].contains(&file) && rooks.contains(Square::from_coords(file, back)) {
                out.push(letter);
            }
        }
    }
    Ok(if out.is_empty() { "-".into() } else { out })
}

/// shakmaty's `is_standard_material`: pawns plus the pieces beyond the
/// starting set (one queen, two rooks, two knights, a bishop of each
/// square colour) are at most 8.
fn standard_material(board: &Board, color: Color) -> bool {
    let count = |pt| board.pieces_of(color, pt).count();
    let bishops = board.pieces_of(color, PieceType::Bishop).0;
    let dark = (bishops & Bitboard::DARK_SQUARES.0).count_ones();
    let light = (bishops & !Bitboard::DARK_SQUARES.0).count_ones();
    let promoted = count(PieceType::Queen).saturating_sub(1)
        + count(PieceType::Rook).saturating_sub(2)
        + count(PieceType::Knight).saturating_sub(2)
        + dark.saturating_sub(1)
        + light.saturating_sub(1);
    count(PieceType::Pawn) + promoted <= 8
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fen(text: &str) -> String {
        board(text).map(|b| b.fen()).unwrap_or_else(|e| format!("error: {e}"))
    }

    #[test]
    fn underscores_stand_for_spaces_and_missing_fields_take_defaults() {
        assert_eq!(fen("8/8/8/8/8/2k5/8/K2Q4_w_-_-_0_1"), "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1");
        assert_eq!(fen("8/8/8/8/8/2k5/8/K2Q4"), "8/8/8/8/8/2k5/8/K2Q4 w - - 0 1");
        assert_eq!(fen("8/8/8/8/8/2k5/8/K2Q4 b"), "8/8/8/8/8/2k5/8/K2Q4 b - - 0 1");
        assert_eq!(fen("  8/8/8/8/8/2k5/8/K2Q4  w  -  - 12 40 "), "8/8/8/8/8/2k5/8/K2Q4 w - - 12 40");
    }

    #[test]
    fn castling_rights_standard_chess_does_not_allow_are_dropped() {
        // No rook on h1: K goes, Q stays; Shredder letters for the corners.
        assert_eq!(fen("4k3/8/8/8/8/8/8/R3K3 w KQ - 0 1"), "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
        assert_eq!(fen("r3k2r/8/8/8/8/8/8/R3K2R w HAha - 0 1"), "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        // The king off the e-file: no right at all, and no Chess960.
        assert_eq!(fen("r2k3r/8/8/8/8/8/8/R2K3R w KQkq - 0 1"), "r2k3r/8/8/8/8/8/8/R2K3R w - - 0 1");
        assert!(fen("4k3/8/8/8/8/8/8/R3K2R w KX - 0 1").starts_with("error"));
        assert!(fen("4k3/8/8/8/8/8/8/RR2K2R w KQB - 0 1").starts_with("error"));
    }

    #[test]
    fn an_impossible_en_passant_square_is_dropped_and_a_bad_one_refused() {
        assert_eq!(fen("4k3/8/8/8/8/8/8/4K3 w - e6 0 1"), "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
        assert_eq!(fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1"), "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
        assert!(fen("4k3/8/8/8/8/8/8/4K3 w - x9 0 1").starts_with("error"));
    }

    #[test]
    fn clocks_saturate_and_a_zero_fullmove_number_reads_as_one() {
        assert_eq!(fen("8/8/8/8/8/2k5/8/K2Q4 w - - 99999999999 0"), "8/8/8/8/8/2k5/8/K2Q4 w - - 65535 1");
        assert!(fen("8/8/8/8/8/2k5/8/K2Q4 w - - x 1").starts_with("error"));
    }

    #[test]
    fn what_lichess_refuses_is_refused() {
        for bad in [
            "",
            "8/8/8/8/8/8/8/8 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K2P w - - 0 1",
            "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 x - - 0 1",
            "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra",
            "4k3/8/8/8/8/8/8/4K3[Qq] w - - 0 1",
            "QQQQQQQQ/QQk5/8/8/8/8/8/4K3 b - - 0 1",
        ] {
            assert!(board(bad).is_err(), "{bad}");
        }
        // Nine queens are possible (eight promotions), ten are not.
        assert!(board("QQQQQQQQ/Q1k5/8/8/8/8/8/4K3 b - - 0 1").is_ok());
    }
}
