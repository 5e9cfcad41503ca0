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
//!   game a [`super::PolyglotBoard`] carries it instead of the engine key
//!   (the published numbers laid out as [`POLYGLOT`]), updated by
//!   make/unmake like the engine key.

/// The published Polyglot table (768 piece, 4 castle, 8 en passant, 1 turn).
pub use super::polyglot_random::RANDOM64;
use super::Board;
use crate::attacks;
use crate::types::{Color, Piece, PieceType, Square};

/// Zobrist numbers in the engine's layout: a key is the xor of
/// `psq[piece][square]` for every piece, `castling[rights]`, `enpassant[file]`
/// when the position has an en-passant square, and `side` when black is to
/// move ([`key_with`]).
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

/// The published Polyglot numbers in the engine's layout, so that a
/// board keyed with them carries the Polyglot key. Piece `p` on `sq` is
/// Polyglot's `64 * kind + sq` (black pawn 0, white pawn 1, black knight
/// 2, ...); `castling[rights]` is the xor of the rights' numbers (the
/// engine's right bits are in Polyglot's order). Polyglot adds its turn
/// number when white is to move, the layout adds `side` when black is:
/// with the turn number as `side` and also in every `castling` entry
/// (exactly one of which is in every key), the two agree.
pub static POLYGLOT: Zobrist = polyglot_layout();

const fn polyglot_layout() -> Zobrist {
    use super::polyglot_random::VALUES;
    let turn = VALUES[780];
    let mut z = Zobrist { psq: [[0; 64]; 12], enpassant: [0; 8], castling: [0; 16], side: turn };
    let mut p = 0;
    while p < 12 {
        let color = if p < 6 { Color::White } else { Color::Black };
        let piece = Piece::new(color, PieceType::from_index(p % 6));
        let base = polyglot_piece_base(piece);
        let mut sq = 0;
        while sq < 64 {
            z.psq[piece.index()][sq] = VALUES[base + sq];
            sq += 1;
        }
        p += 1;
    }
    let mut f = 0;
    while f < 8 {
        z.enpassant[f] = VALUES[772 + f];
        f += 1;
    }
    let mut rights = 0;
    while rights < 16 {
        let mut k = turn;
        let mut bit = 0;
        while bit < 4 {
            if rights >> bit & 1 != 0 {
                k ^= VALUES[768 + bit];
            }
            bit += 1;
        }
        z.castling[rights] = k;
        rights += 1;
    }
    z
}

/// Which numbers a board's key is made of: the engine's, except inside a
/// [`super::PolyglotBoard`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum KeyScheme {
    /// The engine key ([`ZOBRIST`]): what the search, the TT and YACB use.
    #[default]
    Engine,
    /// The Polyglot key ([`POLYGLOT`]), for replaying games into a Polyglot book.
    Polyglot,
}

impl KeyScheme {
    #[inline]
    pub(super) fn table(self) -> &'static Zobrist {
        match self {
            KeyScheme::Engine => &ZOBRIST,
            KeyScheme::Polyglot => &POLYGLOT,
        }
    }
}

/// A key recomputed from scratch with the numbers `z` (pure: independent
/// of the clocks).
pub fn key_with(board: &Board, z: &Zobrist) -> u64 {
    let mut k = 0u64;
    for sq in board.occupied() {
        if let Some(pc) = board.piece_on(sq) {
            k ^= z.psq[pc.index()][sq.index()];
        }
    }
    k ^= z.castling[board.castling_rights() as usize & 15];
    if let Some(ep) = board.ep_square() {
        k ^= z.enpassant[ep.file() as usize];
    }
    if board.side_to_move() == Color::Black {
        k ^= z.side;
    }
    k
}

/// The engine key recomputed from scratch (pure: independent of the clocks).
pub fn engine_key(board: &Board) -> u64 {
    key_with(board, &ZOBRIST)
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

/// Where the Polyglot table holds `pc` on square 0 (its 64 squares follow).
#[inline]
const fn polyglot_piece_base(pc: Piece) -> usize {
    // Polyglot kind: black pawn 0, white pawn 1, black knight 2, ...
    64 * (pc.kind().index() * 2 + matches!(pc.color(), Color::White) as usize)
}

/// The Polyglot table's value of `pc` on `sq`.
#[inline]
fn polyglot_piece(table: &[u64; 781], pc: Piece, sq: Square) -> u64 {
    table[polyglot_piece_base(pc) + sq.index()]
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
