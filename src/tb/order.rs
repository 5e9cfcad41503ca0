//! The order in which shakmaty lists the legal moves of a position:
//! lila-tablebase ranks its moves starting from this order, and
//! shakmaty-syzygy's DTZ probe and `best_move` break ties in it, so the
//! answers here follow it wherever an order shows.
//!
//! shakmaty's `Chess::legal_moves` (0.30) lists en-passant captures first
//! (by origin square), then:
//!
//! * when the side to move is not in check: pawn captures towards the
//!   a-file (to a square short of the last rank, then promoting ones), pawn
//!   captures towards the h-file (likewise), single pushes, promoting
//!   pushes, double pushes, then knight, bishop, rook and queen moves (by
//!   origin square, then target square), king moves, and castling on the
//!   king side before the queen side;
//! * in check: king moves first, then the other pieces' moves in the order
//!   above.
//!
//! Pawn moves of one group go by target square, ascending from a1 to h8;
//! each promotion is listed as queen, rook, bishop, knight. The legal
//! moves are the same set either way; [`rank`] only places them.

use crate::board::Board;
use crate::types::{Move, MoveKind, PieceType};

/// The place of `mv` (a move of `piece`) in shakmaty's list: a smaller
/// rank comes first, and two moves of one position never share a rank.
pub(crate) fn rank(piece: PieceType, mv: Move, in_check: bool) -> u32 {
    let (from, to) = (mv.from(), mv.to());
    let group = match (piece, mv.kind()) {
        (_, MoveKind::EnPassant) => 0,
        (PieceType::King, MoveKind::Castling) => 14 + u32::from(to.file() < from.file()),
        (PieceType::King, _) => {
            if in_check {
                1
            } else {
                13
            }
        }
        (PieceType::Pawn, kind) => {
            let promotes = u32::from(kind == MoveKind::Promotion);
            if from.file() != to.file() {
                2 + 2 * u32::from(to.file() > from.file()) + promotes
            } else if from.rank().abs_diff(to.rank()) == 2 {
                8
            } else {
                6 + promotes
            }
        }
        (PieceType::Knight, _) => 9,
        (PieceType::Bishop, _) => 10,
        (PieceType::Rook, _) => 11,
        (PieceType::Queen, _) => 12,
    };
    let promotion = match mv.promotion_piece() {
        Some(PieceType::Rook) => 1,
        Some(PieceType::Bishop) => 2,
        Some(PieceType::Knight) => 3,
        _ => 0,
    };
    group << 14 | (from.index() as u32) << 8 | (to.index() as u32) << 2 | promotion
}

/// The legal moves of `board` in shakmaty's order.
pub(crate) fn legal_moves(board: &Board) -> Vec<Move> {
    let in_check = board.in_check();
    let mut moves: Vec<(u32, Move)> = board
        .legal_moves()
        .iter()
        .map(|mv| {
            let piece = board.piece_on(mv.from()).map_or(PieceType::King, |p| p.kind());
            (rank(piece, mv, in_check), mv)
        })
        .collect();
    moves.sort_unstable_by_key(|&(r, _)| r);
    moves.into_iter().map(|(_, mv)| mv).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(fen: &str) -> Vec<String> {
        let board = Board::from_fen(fen, false).unwrap();
        legal_moves(&board).into_iter().map(|m| board.move_to_uci(m)).collect()
    }

    #[test]
    fn pawn_moves_come_in_shakmatys_groups_then_pieces_then_the_king() {
        // Each list is what shakmaty 0.30's `legal_moves()` gives.
        assert_eq!(
            order("4k3/8/8/8/8/1p1p4/2P5/R3K1N1 w Q - 0 1").join(" "),
            "c2b3 c2d3 c2c3 c2c4 g1e2 g1f3 g1h3 a1b1 a1c1 a1d1 a1a2 a1a3 a1a4 a1a5 a1a6 a1a7 a1a8 \
             e1d1 e1f1 e1d2 e1f2 e1c1"
        );
        assert_eq!(
            order("1n2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1").join(" "),
            "c7b8q c7b8r c7b8b c7b8n a7b8q a7b8r a7b8b a7b8n a7a8q a7a8r a7a8b a7a8n c7c8q c7c8r c7c8b c7c8n \
             e1d1 e1f1 e1d2 e1e2 e1f2"
        );
        assert_eq!(
            order("r3k2r/8/8/8/8/8/8/4K3 b kq - 0 1")[17..].join(" "),
            "h8f8 h8g8 e8d7 e8e7 e8f7 e8d8 e8f8 e8g8 e8c8"
        );
    }

    #[test]
    fn en_passant_leads_and_king_moves_lead_the_evasions() {
        assert_eq!(order("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2").join(" "), "e5d6 e5e6 e1d1 e1f1 e1d2 e1e2 e1f2");
        assert_eq!(order("4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1").join(" "), "e1d1 e1f1 e1e2");
        assert_eq!(order("4k3/8/8/8/8/8/1r6/R3K3 w - - 0 1")[9..].join(" "), "a1a8 e1d1 e1f1");
    }
}
