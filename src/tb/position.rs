//! The position the prober searches: bitboards, side to move and en-passant
//! square, copied on every move (no history, no keys), with legal move
//! generation by kind of move.
//!
//! Invariants: a `Pos` made from a legal [`Board`] stays legal under
//! [`Pos::make`] of a move from [`Pos::generate`]; `ep` is set only when a
//! pawn of the side to move attacks the square (the capture may still be
//! illegal; generation checks it). Generated moves are exactly the legal
//! moves of the requested kinds (cross-checked against `Board` in tests).

use super::material::Material;
use crate::attacks;
use crate::board::movegen::MoveSink;
use crate::board::{Board, MoveList};
use crate::types::{Bitboard, Color, Move, MoveKind, PieceType, Square};

/// Captures other than en passant (capturing promotions included).
pub(crate) const CAPTURES: u8 = 1;
/// En-passant captures.
pub(crate) const EN_PASSANT: u8 = 2;
/// Pawn moves that capture nothing (pushes and promotions by pushing).
pub(crate) const PAWN_QUIET: u8 = 4;
/// Moves of the other pieces that capture nothing.
pub(crate) const PIECE_QUIET: u8 = 8;
/// Every legal move.
pub(crate) const ALL: u8 = CAPTURES | EN_PASSANT | PAWN_QUIET | PIECE_QUIET;

const PROMOTIONS: [PieceType; 4] = [PieceType::Queen, PieceType::Rook, PieceType::Bishop, PieceType::Knight];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pos {
    pub by_type: [Bitboard; 6],
    pub by_color: [Bitboard; 2],
    pub side: Color,
    pub ep: Option<Square>,
}

impl Pos {
    pub fn from_board(b: &Board) -> Pos {
        let mut by_type = [Bitboard::EMPTY; 6];
        for pt in PieceType::ALL {
            by_type[pt.index()] = b.type_bb(pt);
        }
        Pos {
            by_type,
            by_color: [b.color_bb(Color::White), b.color_bb(Color::Black)],
            side: b.side_to_move(),
            ep: b.ep_square(),
        }
    }

    #[inline]
    pub fn pieces_of(&self, c: Color, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()] & self.by_color[c.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn material(&self) -> Material {
        Material::from_bitboards(&self.by_type, &self.by_color)
    }

    /// Only the two kings are left.
    #[inline]
    pub fn only_kings(&self) -> bool {
        self.occupied() == self.by_type[PieceType::King.index()]
    }

    #[inline]
    fn king(&self, c: Color) -> Square {
        self.pieces_of(c, PieceType::King).lsb()
    }

    /// Is `sq` attacked by `by` with occupancy `occ`?
    #[inline]
    fn attacked(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        let them = self.by_color[by.index()];
        let t = &self.by_type;
        let diag = (t[PieceType::Bishop.index()] | t[PieceType::Queen.index()]) & them;
        let line = (t[PieceType::Rook.index()] | t[PieceType::Queen.index()]) & them;
        (attacks::knight(sq) & t[PieceType::Knight.index()] & them).any()
            || (attacks::king(sq) & t[PieceType::King.index()] & them).any()
            || (attacks::pawn(!by, sq) & t[PieceType::Pawn.index()] & them).any()
            || (diag.any() && (attacks::bishop(sq, occ) & diag).any())
            || (line.any() && (attacks::rook(sq, occ) & line).any())
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        self.attacked(self.king(self.side), !self.side, self.occupied())
    }

    #[inline]
    pub fn kind_on(&self, sq: Square) -> Option<PieceType> {
        PieceType::ALL.into_iter().find(|pt| self.by_type[pt.index()].contains(sq))
    }

    /// Does `m` capture (en passant included)?
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        m.kind() == MoveKind::EnPassant || self.by_color[(!self.side).index()].contains(m.to())
    }

    /// Does `m` reset the 50-move counter (capture or pawn move)?
    #[inline]
    pub fn is_zeroing(&self, m: Move) -> bool {
        self.is_capture(m) || self.pieces_of(self.side, PieceType::Pawn).contains(m.from())
    }

    /// The position after `m`, a legal move of this position.
    pub fn make(&self, m: Move) -> Pos {
        let us = self.side;
        let them = !us;
        let (from, to) = (m.from(), m.to());
        let mut p = *self;
        p.ep = None;
        p.side = them;
        if m.kind() == MoveKind::EnPassant {
            let cap = Square::from_coords(to.file(), from.rank()).bb();
            p.by_type[PieceType::Pawn.index()] ^= cap;
            p.by_color[them.index()] ^= cap;
        } else if self.by_color[them.index()].contains(to) {
            if let Some(pt) = self.kind_on(to) {
                p.by_type[pt.index()] ^= to.bb();
                p.by_color[them.index()] ^= to.bb();
            }
        }
        let Some(pt) = self.kind_on(from) else { return p };
        let step = from.bb() | to.bb();
        p.by_type[pt.index()] ^= step;
        p.by_color[us.index()] ^= step;
        if let Some(promo) = m.promotion_piece() {
            p.by_type[PieceType::Pawn.index()] ^= to.bb();
            p.by_type[promo.index()] |= to.bb();
        } else if pt == PieceType::Pawn && from.index().abs_diff(to.index()) == 16 {
            let ep = Square::new(((from.index() + to.index()) / 2) as u8);
            if (attacks::pawn(us, ep) & p.pieces_of(them, PieceType::Pawn)).any() {
                p.ep = Some(ep);
            }
        }
        p
    }

    /// Does `m` leave our king safe?
    #[inline]
    fn is_legal(&self, m: Move) -> bool {
        let child = self.make(m);
        !child.attacked(child.king(self.side), child.side, child.occupied())
    }

    /// Appends the legal moves of the given kinds (`CAPTURES | …`).
    pub fn generate(&self, kinds: u8, list: &mut MoveList) {
        let us = self.side;
        let theirs = self.by_color[(!us).index()];
        let occ = self.occupied();
        let empty = !occ;
        let mut targets = Bitboard::EMPTY;
        if kinds & CAPTURES != 0 {
            targets |= theirs;
        }
        if kinds & PIECE_QUIET != 0 {
            targets |= empty;
        }
        let mut push = |m: Move| {
            if self.is_legal(m) {
                list.add(m);
            }
        };
        if targets.any() {
            for pt in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen, PieceType::King] {
                for from in self.pieces_of(us, pt) {
                    for to in attacks::piece(pt, from, occ) & targets {
                        push(Move::normal(from, to));
                    }
                }
            }
        }
        let last = Bitboard::rank(us.relative_rank(7));
        let double = Bitboard::rank(us.relative_rank(1));
        let mut pawn_to = |from: Square, to: Square| {
            if last.contains(to) {
                PROMOTIONS.into_iter().for_each(|pt| push(Move::promotion(from, to, pt)));
            } else {
                push(Move::normal(from, to));
            }
        };
        for from in self.pieces_of(us, PieceType::Pawn) {
            if kinds & CAPTURES != 0 {
                for to in attacks::pawn(us, from) & theirs {
                    pawn_to(from, to);
                }
            }
            if kinds & PAWN_QUIET != 0 {
                let one = from.bb().forward(us);
                if (one & empty).any() {
                    pawn_to(from, one.lsb());
                    let two = one.forward(us);
                    if double.contains(from) && (two & empty).any() {
                        pawn_to(from, two.lsb());
                    }
                }
            }
        }
        if kinds & EN_PASSANT != 0 {
            if let Some(ep) = self.ep {
                for from in attacks::pawn(!us, ep) & self.pieces_of(us, PieceType::Pawn) {
                    let m = Move::with_kind(from, ep, MoveKind::EnPassant);
                    if self.is_legal(m) {
                        list.add(m);
                    }
                }
            }
        }
    }

    /// Is there a legal move of the given kinds?
    pub fn has_move(&self, kinds: u8) -> bool {
        let mut list = MoveList::new();
        self.generate(kinds, &mut list);
        !list.is_empty()
    }

    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_move(ALL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_by_kind_partitions_the_legal_moves_of_board() {
        let fens = [
            "8/8/8/3pP3/8/8/8/k3K2r w - d6 0 1",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
            "8/1P4k1/8/8/8/8/6p1/K4R2 b - - 0 1",
            "r3k3/1P6/8/8/8/8/8/4K2R w - - 0 1",
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
            "8/8/3k4/8/2pP4/8/8/3K1B2 b - d3 0 1",
        ];
        for fen in fens {
            let mut b = Board::from_fen(fen, false).unwrap();
            check_against_board(&mut b, 3);
        }
    }

    fn check_against_board(b: &mut Board, depth: u32) {
        let pos = Pos::from_board(b);
        let mut all = MoveList::new();
        pos.generate(ALL, &mut all);
        let mut expected: Vec<u16> = b.legal_moves().iter().map(|m| m.raw()).collect();
        let mut got: Vec<u16> = all.iter().map(|m| m.raw()).collect();
        expected.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, expected, "{}", b.fen());
        let mut parts = 0;
        for k in [CAPTURES, EN_PASSANT, PAWN_QUIET, PIECE_QUIET] {
            let mut l = MoveList::new();
            pos.generate(k, &mut l);
            for m in l.iter() {
                let cap = pos.is_capture(m);
                let pawn = pos.pieces_of(pos.side, PieceType::Pawn).contains(m.from());
                let ok = match k {
                    CAPTURES => cap && m.kind() != MoveKind::EnPassant,
                    EN_PASSANT => m.kind() == MoveKind::EnPassant,
                    PAWN_QUIET => pawn && !cap,
                    _ => !pawn && !cap,
                };
                assert!(ok, "{} {m:?} in kind {k}", b.fen());
            }
            parts += l.len();
        }
        assert_eq!(parts, all.len());
        assert_eq!(pos.is_checkmate(), b.is_checkmate());
        if depth == 0 {
            return;
        }
        for m in b.legal_moves().iter() {
            let child = pos.make(m);
            b.make_move(m);
            assert_eq!(child, Pos::from_board(b), "after {m:?} in {}", b.fen());
            check_against_board(b, depth - 1);
            b.unmake_move();
        }
    }
}
