//! Static exchange evaluation: does a capture sequence on one square win at
//! least `threshold` for the side making the move?

use crate::attacks;
use crate::board::Board;
use crate::types::{Bitboard, Move, MoveKind, PieceType};

/// Values used by SEE (and capture ordering).
pub const SEE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 0];

#[inline]
fn value_on(board: &Board, sq: crate::types::Square) -> i32 {
    board.piece_on(sq).map_or(0, |p| SEE_VALUES[p.kind().index()])
}

/// True when the exchange started by `m` gains at least `threshold`.
pub fn see_ge(board: &Board, m: Move, threshold: i32) -> bool {
    if m.kind() != MoveKind::Normal {
        return 0 >= threshold;
    }
    let (from, to) = (m.from(), m.to());
    let mut swap = value_on(board, to) - threshold;
    if swap < 0 {
        return false;
    }
    swap = value_on(board, from) - swap;
    if swap <= 0 {
        return true;
    }
    let Some(mover) = board.piece_on(from) else { return false };
    let mut stm = mover.color();
    let mut occ = board.occupied() ^ from.bb() ^ to.bb();
    let mut attackers = board.attackers_to(to, occ);
    let bishops = board.type_bb(PieceType::Bishop) | board.type_bb(PieceType::Queen);
    let rooks = board.type_bb(PieceType::Rook) | board.type_bb(PieceType::Queen);
    let mut res = true;
    loop {
        stm = !stm;
        attackers &= occ;
        let ours = attackers & board.color_bb(stm);
        if ours.is_empty() {
            break;
        }
        res = !res;
        let pick = |pt: PieceType| -> Option<Bitboard> {
            let b = ours & board.type_bb(pt);
            b.any().then_some(b)
        };
        if let Some(b) = pick(PieceType::Pawn) {
            swap = SEE_VALUES[0] - swap;
            if swap < res as i32 {
                break;
            }
            occ ^= b.lsb().bb();
            attackers |= attacks::bishop(to, occ) & bishops;
        } else if let Some(b) = pick(PieceType::Knight) {
            swap = SEE_VALUES[1] - swap;
            if swap < res as i32 {
                break;
            }
            occ ^= b.lsb().bb();
        } else if let Some(b) = pick(PieceType::Bishop) {
            swap = SEE_VALUES[2] - swap;
            if swap < res as i32 {
                break;
            }
            occ ^= b.lsb().bb();
            attackers |= attacks::bishop(to, occ) & bishops;
        } else if let Some(b) = pick(PieceType::Rook) {
            swap = SEE_VALUES[3] - swap;
            if swap < res as i32 {
                break;
            }
            occ ^= b.lsb().bb();
            attackers |= attacks::rook(to, occ) & rooks;
        } else if let Some(b) = pick(PieceType::Queen) {
            swap = SEE_VALUES[4] - swap;
            if swap < res as i32 {
                break;
            }
            occ ^= b.lsb().bb();
            attackers |= (attacks::bishop(to, occ) & bishops) | (attacks::rook(to, occ) & rooks);
        } else {
            // King: it may capture only if the opponent has no attacker left.
            return if (attackers & !board.color_bb(stm)).any() { !res } else { res };
        }
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(fen: &str, uci: &str, t: i32) -> bool {
        let b = Board::from_fen(fen, false).expect("fen");
        let m = b.parse_uci(uci).expect("legal");
        see_ge(&b, m, t)
    }

    #[test]
    fn see_values_simple_exchanges() {
        // Pawn takes undefended knight: +320.
        assert!(see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 320));
        assert!(!see("4k3/8/8/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5", 321));
        // Queen takes pawn defended by pawn: loses 850.
        assert!(!see("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5", 0));
        assert!(see("4k3/8/2p5/3p4/8/8/3Q4/4K3 w - - 0 1", "d2d5", -850));
        // Rook takes rook defended by rook, backed by our rook (x-ray): +0.
        assert!(see("3rk3/3r4/8/8/8/8/3R4/3RK3 w - - 0 1", "d2d7", 0));
    }
}
