//! Position keys.
//!
//! * The **engine key** is Stockfish's Zobrist scheme (versions 12–16): values
//!   drawn from a xorshift64* generator seeded with 1070372, in the order
//!   `psq[12 pieces][64 squares]`, `enpassant[8 files]`, `castling[16 masks]`,
//!   `side`. It is updated incrementally by make/unmake; [`engine_key`]
//!   recomputes it from scratch for verification.
//! * The **Polyglot key** is computed from scratch from the published table
//!   ([`polyglot_key`]), or from any 781-entry table in Polyglot order
//!   ([`polyglot_key_with`], used by YACB books with `key_type` 1). Along a
//!   game its piece part can follow the moves ([`polyglot_pieces_delta`]);
//!   the castling, en-passant and side terms are cheap to take from each
//!   position ([`polyglot_state_terms`]).

/// The published Polyglot table (768 piece, 4 castle, 8 en passant, 1 turn).
pub use super::polyglot_random::RANDOM64;
use super::Board;
use crate::attacks;
use crate::types::{Color, Move, MoveKind, Piece, PieceType, Square};

pub struct Zobrist {
    pub psq: [[u64; 64]; 12],
    pub enpassant: [u64; 8],
    pub castling: [u64; 16],
    pub side: u64,
}

const fn next(state: u64) -> (u64, u64) {
    let mut s = state;
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    (s, s.wrapping_mul(2685821657736338717))
}

const fn build() -> Zobrist {
    let mut z = Zobrist { psq: [[0; 64]; 12], enpassant: [0; 8], castling: [0; 16], side: 0 };
    let mut s = 1070372u64;
    let mut p = 0;
    while p < 12 {
        let mut sq = 0;
        while sq < 64 {
            let (ns, v) = next(s);
            s = ns;
            z.psq[p][sq] = v;
            sq += 1;
        }
        p += 1;
    }
    let mut f = 0;
    while f < 8 {
        let (ns, v) = next(s);
        s = ns;
        z.enpassant[f] = v;
        f += 1;
    }
    let mut c = 0;
    while c < 16 {
        let (ns, v) = next(s);
        s = ns;
        z.castling[c] = v;
        c += 1;
    }
    let (_, v) = next(s);
    z.side = v;
    z
}

/// The engine's Zobrist numbers, computed at compile time.
pub static ZOBRIST: Zobrist = build();

/// The engine key recomputed from scratch (pure: independent of the clocks).
pub fn engine_key(board: &Board) -> u64 {
    let mut k = 0u64;
    for sq in board.occupied() {
        if let Some(pc) = board.piece_on(sq) {
            k ^= ZOBRIST.psq[pc.index()][sq.index()];
        }
    }
    k ^= ZOBRIST.castling[board.castling_rights() as usize & 15];
    if let Some(ep) = board.ep_square() {
        k ^= ZOBRIST.enpassant[ep.file() as usize];
    }
    if board.side_to_move() == Color::Black {
        k ^= ZOBRIST.side;
    }
    k
}

/// The key Stockfish's `d` command prints: the pure key mixed with the
/// 50-move counter once it reaches 14.
pub fn stockfish_d_key(board: &Board) -> u64 {
    let k = board.key();
    let r50 = board.halfmove_clock() as u64;
    if r50 < 14 {
        k
    } else {
        let n = (r50 - 14) / 8;
        k ^ n.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407)
    }
}

/// Polyglot key with the published table.
pub fn polyglot_key(board: &Board) -> u64 {
    polyglot_key_with(board, &RANDOM64)
}

/// Polyglot key with a caller-supplied table in Polyglot order
/// (768 piece, 4 castle, 8 en passant, 1 turn).
pub fn polyglot_key_with(board: &Board, table: &[u64; 781]) -> u64 {
    polyglot_pieces(board, table) ^ polyglot_state_terms(board, table)
}

/// The Polyglot table's value of `pc` on `sq`.
#[inline]
fn polyglot_piece(table: &[u64; 781], pc: Piece, sq: Square) -> u64 {
    // Polyglot kind: black pawn 0, white pawn 1, black knight 2, ...
    let kind = pc.kind().index() * 2 + usize::from(pc.color() == Color::White);
    table[64 * kind + sq.index()]
}

/// The piece part of the Polyglot key: the xor of every piece's value.
pub fn polyglot_pieces(board: &Board, table: &[u64; 781]) -> u64 {
    let mut k = 0u64;
    for sq in board.occupied() {
        if let Some(pc) = board.piece_on(sq) {
            k ^= polyglot_piece(table, pc, sq);
        }
    }
    k
}

/// How [`polyglot_pieces`] changes when the legal move `m` is made on
/// `board`: the moved piece (promoted where it lands), a captured piece
/// (behind the target square en passant), king and rook when castling.
#[inline]
pub fn polyglot_pieces_delta(board: &Board, m: Move, table: &[u64; 781]) -> u64 {
    let (from, to) = (m.from(), m.to());
    let Some(pc) = board.piece_on(from) else { return 0 };
    let us = pc.color();
    if m.kind() == MoveKind::Castling {
        // Castling is "king takes own rook": `to` is the rook's square.
        let (king_to, rook_to) = Board::castling_destinations(us, to.file() > from.file());
        let rook = Piece::new(us, PieceType::Rook);
        return polyglot_piece(table, pc, from)
            ^ polyglot_piece(table, pc, king_to)
            ^ polyglot_piece(table, rook, to)
            ^ polyglot_piece(table, rook, rook_to);
    }
    let cap_sq = if m.kind() == MoveKind::EnPassant { Square::from_coords(to.file(), from.rank()) } else { to };
    let landed = m.promotion_piece().map_or(pc, |pt| Piece::new(us, pt));
    let captured = board.piece_on(cap_sq).map_or(0, |cap| polyglot_piece(table, cap, cap_sq));
    captured ^ polyglot_piece(table, pc, from) ^ polyglot_piece(table, landed, to)
}

/// The castling, en-passant and side-to-move terms of the Polyglot key.
pub fn polyglot_state_terms(board: &Board, table: &[u64; 781]) -> u64 {
    let mut k = 0u64;
    let cr = board.castling_rights();
    for bit in 0..4 {
        if cr >> bit & 1 != 0 {
            k ^= table[768 + bit];
        }
    }
    if let Some(ep) = board.ep_square() {
        // Only when a pawn of the side to move stands ready to capture
        // (legality of the capture is irrelevant).
        let us = board.side_to_move();
        if (attacks::pawn(!us, ep) & board.pieces_of(us, PieceType::Pawn)).any() {
            k ^= table[772 + ep.file() as usize];
        }
    }
    if board.side_to_move() == Color::White {
        k ^= table[780];
    }
    k
}
