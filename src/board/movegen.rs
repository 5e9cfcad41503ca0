//! Legal move generation.
//!
//! One generator produces exactly the legal moves; it writes into a
//! [`MoveSink`], so the same code fills a [`MoveList`] or just counts
//! (perft's bulk counting adds popcounts of target sets). Pins, checks,
//! en passant (with the horizontal-pin edge case) and Chess960 castling
//! (king-takes-rook) are all resolved here: no move needs a later legality
//! test. Generation kinds split the legal moves into two disjoint halves:
//! [`GenKind::Noisy`] (captures, en passant, all promotions) and
//! [`GenKind::Quiet`] (everything else, including castling).

use super::Board;
use crate::attacks;
use crate::types::{Bitboard, Color, Move, MoveKind, PieceType, Square};

/// Which legal moves to generate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GenKind {
    All,
    Noisy,
    Quiet,
}

/// Receives generated moves.
pub trait MoveSink {
    fn add(&mut self, m: Move);

    #[inline]
    fn add_targets(&mut self, from: Square, targets: Bitboard) {
        for to in targets {
            self.add(Move::normal(from, to));
        }
    }

    /// Pawn moves to every square of `targets`, each coming from `to - delta`.
    #[inline]
    fn add_pawn_set(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            self.add(Move::normal(Square::new((to.index() as i8 - delta) as u8), to));
        }
    }

    /// Promotions (queen, knight, rook, bishop) to every square of `targets`.
    #[inline]
    fn add_promotion_set(&mut self, targets: Bitboard, delta: i8) {
        for to in targets {
            let from = Square::new((to.index() as i8 - delta) as u8);
            for pt in [PieceType::Queen, PieceType::Knight, PieceType::Rook, PieceType::Bishop] {
                self.add(Move::promotion(from, to, pt));
            }
        }
    }
}

/// Counts moves without storing them.
#[derive(Default)]
pub struct MoveCounter(pub u64);

impl MoveSink for MoveCounter {
    #[inline]
    fn add(&mut self, _m: Move) {
        self.0 += 1;
    }
    #[inline]
    fn add_targets(&mut self, _from: Square, targets: Bitboard) {
        self.0 += targets.count() as u64;
    }
    #[inline]
    fn add_pawn_set(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += targets.count() as u64;
    }
    #[inline]
    fn add_promotion_set(&mut self, targets: Bitboard, _delta: i8) {
        self.0 += 4 * targets.count() as u64;
    }
}

/// A fixed-capacity list of moves (no position has more than 218).
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; 256],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        MoveList { moves: [Move::NONE; 256], len: 0 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves[..self.len]
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }

    pub fn iter(&self) -> impl Iterator<Item = Move> + '_ {
        self.as_slice().iter().copied()
    }

    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }

    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl MoveSink for MoveList {
    #[inline]
    fn add(&mut self, m: Move) {
        if self.len < self.moves.len() {
            self.moves[self.len] = m;
            self.len += 1;
        }
    }
}

impl Board {
    /// Appends all legal moves to `list`.
    pub fn generate_legal(&self, list: &mut MoveList) {
        self.generate(GenKind::All, list);
    }

    /// Number of legal moves.
    pub fn count_legal(&self) -> u64 {
        let mut c = MoveCounter(0);
        self.generate(GenKind::All, &mut c);
        c.0
    }

    /// All legal moves in a fresh list.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate_legal(&mut list);
        list
    }

    /// Generates the legal moves of `kind` into `sink`.
    pub fn generate<S: MoveSink>(&self, kind: GenKind, sink: &mut S) {
        let us = self.side_to_move();
        let them = !us;
        let ours = self.color_bb(us);
        let theirs = self.color_bb(them);
        let occ = ours | theirs;
        let ksq = self.king_square(us);
        let checkers = self.checkers();
        // Destinations allowed by the generation kind (promotions and en
        // passant are handled separately).
        let kind_mask = match kind {
            GenKind::All => !ours,
            GenKind::Noisy => theirs,
            GenKind::Quiet => !occ,
        };

        let occ_no_king = occ.without(ksq);
        for to in attacks::king(ksq) & kind_mask {
            if !self.is_attacked(to, them, occ_no_king) {
                sink.add(Move::normal(ksq, to));
            }
        }
        if checkers.more_than_one() {
            return;
        }
        let check_mask = if checkers.any() { attacks::between(ksq, checkers.lsb()) } else { Bitboard::FULL };
        let pinned = self.pinned(us);
        let target = check_mask & kind_mask;

        for from in self.pieces_of(us, PieceType::Knight) & !pinned {
            sink.add_targets(from, attacks::knight(from) & target);
        }
        let queens = self.pieces_of(us, PieceType::Queen);
        for from in (self.pieces_of(us, PieceType::Bishop) | queens) & ours {
            let mut t = attacks::bishop(from, occ) & target;
            if pinned.contains(from) {
                t &= attacks::line(ksq, from);
            }
            sink.add_targets(from, t);
        }
        for from in (self.pieces_of(us, PieceType::Rook) | queens) & ours {
            let mut t = attacks::rook(from, occ) & target;
            if pinned.contains(from) {
                t &= attacks::line(ksq, from);
            }
            sink.add_targets(from, t);
        }

        let pawns = self.pieces_of(us, PieceType::Pawn);
        self.pawn_moves(kind, pawns & !pinned, check_mask, sink);
        if checkers.is_empty() {
            for p in pawns & pinned {
                self.pawn_moves(kind, p.bb(), attacks::line(ksq, p), sink);
            }
        }
        if kind != GenKind::Quiet {
            self.en_passant(sink);
        }
        if kind != GenKind::Noisy && checkers.is_empty() {
            self.castling(sink);
        }
    }

    /// Is `m` one of the legal moves? Decided without generating them
    /// (the search asks it of every TT move, killer and counter move, and
    /// books, TT files and the network hand it garbage): the piece must be
    /// able to make the move, then the check and pin rules of the generator
    /// apply. Castling and en passant, rare, are looked up in the generated
    /// moves of their kind.
    pub fn is_legal(&self, m: Move) -> bool {
        if m.is_none() || m == Move::NULL {
            return false;
        }
        let us = self.side_to_move();
        let (from, to) = (m.from(), m.to());
        // Only promotions carry a piece in bits 12-13.
        if m.kind() != MoveKind::Promotion && m != Move::with_kind(from, to, m.kind()) {
            return false;
        }
        let Some(piece) = self.piece_on(from) else { return false };
        if piece.color() != us {
            return false;
        }
        match m.kind() {
            MoveKind::Castling => return self.generated(GenKind::Quiet, m),
            MoveKind::EnPassant => return self.generated(GenKind::Noisy, m),
            MoveKind::Normal | MoveKind::Promotion => {}
        }
        let ours = self.color_bb(us);
        let theirs = self.color_bb(!us);
        let occ = ours | theirs;
        if ours.contains(to) {
            return false;
        }
        // Step 1: can this piece go there at all?
        let kind = piece.kind();
        if kind == PieceType::Pawn {
            let last_rank = Bitboard::rank(us.relative_rank(7));
            if (m.kind() == MoveKind::Promotion) != last_rank.contains(to) {
                return false;
            }
            let single = from.bb().forward(us) & !occ;
            let double = single.forward(us) & !occ & Bitboard::rank(us.relative_rank(3));
            let captures = attacks::pawn(us, from) & theirs;
            if !(single | double | captures).contains(to) {
                return false;
            }
        } else if m.kind() == MoveKind::Promotion || !attacks::piece(kind, from, occ).contains(to) {
            return false;
        }
        // Step 2: does it leave the king safe?
        let ksq = self.king_square(us);
        if kind == PieceType::King {
            return !self.is_attacked(to, !us, occ.without(from));
        }
        let checkers = self.checkers();
        if checkers.more_than_one() {
            return false;
        }
        if checkers.any() && !attacks::between(ksq, checkers.lsb()).contains(to) {
            return false;
        }
        !self.pinned(us).contains(from) || attacks::line(ksq, from).contains(to)
    }

    /// Is `m` among the generated legal moves of `kind`?
    fn generated(&self, kind: GenKind, m: Move) -> bool {
        let mut list = MoveList::new();
        self.generate(kind, &mut list);
        list.contains(m)
    }

    /// Pushes, captures and promotions of `pawns`, landing inside `mask`.
    #[inline]
    fn pawn_moves<S: MoveSink>(&self, kind: GenKind, pawns: Bitboard, mask: Bitboard, sink: &mut S) {
        let us = self.side_to_move();
        let empty = !self.occupied();
        let enemies = self.color_bb(!us) & mask;
        let seventh = Bitboard::rank(us.relative_rank(6));
        let third = Bitboard::rank(us.relative_rank(2));
        let (up, west, east): (i8, i8, i8) = match us {
            Color::White => (8, 7, 9),
            Color::Black => (-8, -9, -7),
        };
        let not_a = !Bitboard::file(0);
        let not_h = !Bitboard::file(7);
        let shift = |b: Bitboard, d: i8| if d > 0 { Bitboard(b.0 << d) } else { Bitboard(b.0 >> -d) };

        let normal = pawns & !seventh;
        let promoting = pawns & seventh;

        if kind != GenKind::Noisy {
            let push1 = shift(normal, up) & empty;
            let push2 = shift(push1 & third, up) & empty & mask;
            sink.add_pawn_set(push1 & mask, up);
            sink.add_pawn_set(push2, 2 * up);
        }
        if kind != GenKind::Quiet {
            sink.add_pawn_set(shift(normal & not_a, west) & enemies, west);
            sink.add_pawn_set(shift(normal & not_h, east) & enemies, east);
            if promoting.any() {
                sink.add_promotion_set(shift(promoting, up) & empty & mask, up);
                sink.add_promotion_set(shift(promoting & not_a, west) & enemies, west);
                sink.add_promotion_set(shift(promoting & not_h, east) & enemies, east);
            }
        }
    }

    /// En-passant captures, each checked by replaying it on the occupancy
    /// (covers pins along the rank of the two pawns and checks by the pawn).
    fn en_passant<S: MoveSink>(&self, sink: &mut S) {
        let Some(ep) = self.ep_square() else { return };
        let us = self.side_to_move();
        let them = !us;
        let ksq = self.king_square(us);
        let captured = Square::from_coords(ep.file(), them.relative_rank(3));
        for from in attacks::pawn(them, ep) & self.pieces_of(us, PieceType::Pawn) {
            let occ = (self.occupied().without(from).without(captured)) | ep.bb();
            let attackers = self.attackers_to(ksq, occ) & self.color_bb(them) & !captured.bb();
            if attackers.is_empty() {
                sink.add(Move::with_kind(from, ep, MoveKind::EnPassant));
            }
        }
    }

    /// The legal castling moves (none in check).
    pub(super) fn castling<S: MoveSink>(&self, sink: &mut S) {
        let us = self.side_to_move();
        let them = !us;
        let ksq = self.king_square(us);
        let occ = self.occupied();
        for king_side in [true, false] {
            let idx = super::castle_index(us, king_side);
            if self.castling_rights() >> idx & 1 == 0 || (self.castling_path[idx] & occ).any() {
                continue;
            }
            let rsq = self.castling_rooks[idx];
            let (kto, _) = Board::castling_destinations(us, king_side);
            // Without king and rook on the board: the squares the king
            // crosses and lands on must not be attacked.
            let occ2 = occ.without(ksq).without(rsq);
            if attacks::between(ksq, kto).all(|s| !self.is_attacked(s, them, occ2)) {
                sink.add(Move::with_kind(ksq, rsq, MoveKind::Castling));
            }
        }
    }
}
