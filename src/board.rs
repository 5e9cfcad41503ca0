//! The position: bitboards plus a mailbox, make/unmake with a state stack,
//! check/draw detection, and keys.
//!
//! Invariants:
//! * `by_type`, `by_color` and `mailbox` always describe the same pieces;
//!   each side has exactly one king.
//! * `state()` is the state of the current position; `history` holds the
//!   states of all earlier positions of the game (for unmake and repetition).
//! * The key in the state equals [`zobrist::key_with`] the board's
//!   numbers recomputed from scratch (tested over random games): the
//!   engine key. Only the board inside a [`PolyglotBoard`], which never
//!   hands it out, carries the Polyglot key, so the search never sees one.
//! * The en-passant square is stored only when a pawn of the side to move
//!   attacks it (Stockfish's rule; legality of the capture is not required).
//! * Castling is king-takes-rook internally; `castling_rooks` tells which
//!   rook each right belongs to, so Chess960 needs no special cases.

pub mod builder;
mod consistency;
mod display;
pub mod fen;
pub mod movegen;
pub mod notation;
mod polyglot_board;
mod polyglot_random;
pub mod zobrist;

use crate::attacks;
use crate::types::{Bitboard, Color, Move, MoveKind, Piece, PieceType, Square};
use zobrist::{KeyScheme, Zobrist};

pub use builder::{BoardBuilder, BuildError};
pub use fen::FenError;
pub use movegen::MoveList;
pub use polyglot_board::PolyglotBoard;

/// Castling-right bits as in Stockfish (docs/formats.md#engine-key).
pub const WHITE_OO: u8 = 1;
pub const WHITE_OOO: u8 = 2;
pub const BLACK_OO: u8 = 4;
pub const BLACK_OOO: u8 = 8;

/// Index (0..4) of a castling right for `color`, king side or queen side.
#[inline]
pub const fn castle_index(color: Color, king_side: bool) -> usize {
    color as usize * 2 + if king_side { 0 } else { 1 }
}

/// Everything that make_move changes irreversibly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    pub key: u64,
    pub castling: u8,
    pub ep: Option<Square>,
    pub rule50: u16,
    pub plies_from_null: u16,
    pub captured: Option<Piece>,
    pub checkers: Bitboard,
    /// The move that led to this position (NONE at the root of the game).
    pub last_move: Move,
}

#[derive(Debug)]
pub struct Board {
    by_type: [Bitboard; 6],
    by_color: [Bitboard; 2],
    mailbox: [Option<Piece>; 64],
    side: Color,
    chess960: bool,
    /// Rook square for each castling right (index from [`castle_index`]).
    castling_rooks: [Square; 4],
    /// Squares that must be empty to castle (excluding king and rook).
    castling_path: [Bitboard; 4],
    /// Rights lost when a piece leaves or lands on a square.
    castling_mask: [u8; 64],
    /// Plies from the game's start to the position set up from the FEN
    /// (`2 * (fullmove - 1)`, plus one when black was to move).
    start_ply: u32,
    /// Plies played since the FEN was set up.
    plies_since_setup: u16,
    /// The numbers `state.key` is made of.
    keys: KeyScheme,
    state: State,
    history: Vec<State>,
}

impl Clone for Board {
    fn clone(&self) -> Board {
        let mut b = Board { history: Vec::new(), ..*self };
        b.history.clone_from(&self.history);
        b
    }

    /// Keeps `self`'s history allocation (replaying many games on one board).
    fn clone_from(&mut self, source: &Board) {
        let mut history = std::mem::take(&mut self.history);
        history.clone_from(&source.history);
        *self = Board { history, ..*source };
    }
}

impl PartialEq for Board {
    /// Two boards are equal when the position (pieces, side, rights, ep,
    /// clocks, Chess960 setup) is the same; game history is not compared.
    fn eq(&self, other: &Board) -> bool {
        self.by_type == other.by_type
            && self.by_color == other.by_color
            && self.mailbox == other.mailbox
            && self.side == other.side
            && self.chess960 == other.chess960
            && self.castling_rooks == other.castling_rooks
            && self.state == other.state
            && self.fullmove_number() == other.fullmove_number()
    }
}

impl Default for Board {
    fn default() -> Board {
        Board::startpos()
    }
}

impl Board {
    pub const START_FEN: &'static str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    pub fn startpos() -> Board {
        static START: std::sync::OnceLock<Board> = std::sync::OnceLock::new();
        // The start FEN is a constant known to be valid.
        START
            .get_or_init(|| {
                Board::from_fen(Board::START_FEN, false).unwrap_or_else(|_| unreachable!("start FEN is valid"))
            })
            .clone()
    }

    fn empty() -> Board {
        Board {
            by_type: [Bitboard::EMPTY; 6],
            by_color: [Bitboard::EMPTY; 2],
            mailbox: [None; 64],
            side: Color::White,
            chess960: false,
            castling_rooks: [Square::new(0); 4],
            castling_path: [Bitboard::EMPTY; 4],
            castling_mask: [0; 64],
            start_ply: 0,
            plies_since_setup: 0,
            keys: KeyScheme::Engine,
            state: State {
                key: 0,
                castling: 0,
                ep: None,
                rule50: 0,
                plies_from_null: 0,
                captured: None,
                checkers: Bitboard::EMPTY,
                last_move: Move::NONE,
            },
            history: Vec::with_capacity(256),
        }
    }

    // ----- queries -------------------------------------------------------

    #[inline]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    #[inline]
    pub fn is_chess960(&self) -> bool {
        self.chess960
    }

    /// Switches how castling is written in UCI and FEN; the position is unchanged.
    pub fn set_chess960(&mut self, on: bool) {
        self.chess960 = on;
    }

    #[inline]
    pub fn piece_on(&self, sq: Square) -> Option<Piece> {
        self.mailbox[sq.index()]
    }

    #[inline]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline]
    pub fn color_bb(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline]
    pub fn type_bb(&self, pt: PieceType) -> Bitboard {
        self.by_type[pt.index()]
    }

    #[inline]
    pub fn pieces_of(&self, c: Color, pt: PieceType) -> Bitboard {
        self.by_color[c.index()] & self.by_type[pt.index()]
    }

    #[inline]
    pub fn king_square(&self, c: Color) -> Square {
        self.pieces_of(c, PieceType::King).lsb()
    }

    #[inline]
    pub fn state(&self) -> &State {
        &self.state
    }

    #[inline]
    pub fn key(&self) -> u64 {
        self.state.key
    }

    /// The key of the position as Lichess tells positions apart (its
    /// opening explorer, `EnPassantMode::Legal`): pieces, side to move,
    /// castling rights and an en-passant square only when an en-passant
    /// capture is legal. [`Board::key`] has the square whenever a pawn
    /// attacks it; this is that key less the term when no capture is legal.
    pub fn key_legal_ep(&self) -> u64 {
        match self.ep_square() {
            Some(ep) if !self.legal_moves().iter().any(|m| m.to() == ep && m.kind() == MoveKind::EnPassant) => {
                self.key() ^ zobrist::ZOBRIST.enpassant[ep.file() as usize]
            }
            _ => self.key(),
        }
    }

    #[inline]
    pub fn castling_rights(&self) -> u8 {
        self.state.castling
    }

    /// Rook square of a castling right (meaningful only while the right exists).
    #[inline]
    pub fn castling_rook(&self, index: usize) -> Square {
        self.castling_rooks[index & 3]
    }

    #[inline]
    pub fn ep_square(&self) -> Option<Square> {
        self.state.ep
    }

    #[inline]
    pub fn halfmove_clock(&self) -> u16 {
        self.state.rule50
    }

    pub fn fullmove_number(&self) -> u16 {
        (self.game_ply() / 2 + 1).min(u16::MAX as u32) as u16
    }

    /// The ply of the game: plies from the game's first position, taken from
    /// the FEN's move number and side to move (`2 * (fullmove - 1)`, plus one
    /// when black is to move) plus the plies played since. 0 at the start
    /// position; 58 after `position fen <… w … 30>`. Book depths (OwnBook,
    /// BookInSearch, self-play book walks) compare against this.
    #[inline]
    pub fn game_ply(&self) -> u32 {
        self.start_ply + self.plies_since_setup as u32
    }

    /// Plies played since the position was set up (from a FEN or the start
    /// position); the moves a record or a replay holds.
    #[inline]
    pub fn plies_since_setup(&self) -> u16 {
        self.plies_since_setup
    }

    #[inline]
    pub fn checkers(&self) -> Bitboard {
        self.state.checkers
    }

    #[inline]
    pub fn in_check(&self) -> bool {
        self.state.checkers.any()
    }

    /// Does `m` capture (en passant included; castling, "king takes own
    /// rook", does not)?
    #[inline]
    pub fn is_capture(&self, m: Move) -> bool {
        (self.piece_on(m.to()).is_some() && !m.is_castling()) || m.kind() == MoveKind::EnPassant
    }

    /// Captures and promotions: the "noisy" or tactical moves.
    #[inline]
    pub fn is_noisy(&self, m: Move) -> bool {
        self.is_capture(m) || m.kind() == MoveKind::Promotion
    }

    #[inline]
    pub fn last_move(&self) -> Move {
        self.state.last_move
    }

    /// Pieces of either colour attacking `sq` given occupancy `occ`.
    #[inline]
    pub fn attackers_to(&self, sq: Square, occ: Bitboard) -> Bitboard {
        (attacks::pawn(Color::White, sq) & self.pieces_of(Color::Black, PieceType::Pawn))
            | (attacks::pawn(Color::Black, sq) & self.pieces_of(Color::White, PieceType::Pawn))
            | (attacks::knight(sq) & self.type_bb(PieceType::Knight))
            | (attacks::bishop(sq, occ) & (self.type_bb(PieceType::Bishop) | self.type_bb(PieceType::Queen)))
            | (attacks::rook(sq, occ) & (self.type_bb(PieceType::Rook) | self.type_bb(PieceType::Queen)))
            | (attacks::king(sq) & self.type_bb(PieceType::King))
    }

    /// The pieces of `by` that attack `sq` over `occ`: as
    /// [`Board::attackers_to`] of `by`, with the sliders found through the
    /// small line tables (the sliders on a line with `sq`, few, each
    /// attacking unless something stands between) rather than the large
    /// slider table, which a replay of games mostly misses.
    #[inline]
    pub fn attackers_by_lines(&self, sq: Square, by: Color, occ: Bitboard) -> Bitboard {
        let ours = self.by_color[by.index()] & occ;
        let steppers = attacks::pawn(!by, sq) & self.type_bb(PieceType::Pawn)
            | attacks::knight(sq) & self.type_bb(PieceType::Knight)
            | attacks::king(sq) & self.type_bb(PieceType::King);
        steppers & ours | attacks::unblocked(sq, self.sliders_in_line(sq) & ours, occ)
    }

    /// The sliders of either colour on a line with `sq` that they move
    /// along (rooks and queens on its rank and file, bishops and queens on
    /// its diagonals), whatever stands between.
    #[inline]
    fn sliders_in_line(&self, sq: Square) -> Bitboard {
        let queens = self.type_bb(PieceType::Queen);
        (attacks::rook_lines(sq) & (self.type_bb(PieceType::Rook) | queens))
            | (attacks::bishop_lines(sq) & (self.type_bb(PieceType::Bishop) | queens))
    }

    /// Is `sq` attacked by `by` with occupancy `occ`?
    #[inline]
    pub fn is_attacked(&self, sq: Square, by: Color, occ: Bitboard) -> bool {
        let them = self.by_color[by.index()];
        (attacks::knight(sq) & them & self.type_bb(PieceType::Knight)).any()
            || (attacks::pawn(!by, sq) & them & self.type_bb(PieceType::Pawn)).any()
            || (attacks::king(sq) & them & self.type_bb(PieceType::King)).any()
            || (attacks::bishop(sq, occ) & them & (self.type_bb(PieceType::Bishop) | self.type_bb(PieceType::Queen)))
                .any()
            || (attacks::rook(sq, occ) & them & (self.type_bb(PieceType::Rook) | self.type_bb(PieceType::Queen))).any()
    }

    /// Our pieces that are pinned to our king by an enemy slider.
    pub fn pinned(&self, us: Color) -> Bitboard {
        let ksq = self.king_square(us);
        let them = self.by_color[(!us).index()];
        let occ = self.occupied();
        let snipers = self.sliders_in_line(ksq) & them;
        let mut pinned = Bitboard::EMPTY;
        for s in snipers {
            let b = attacks::between(ksq, s).without(s) & occ;
            if b.any() && !b.more_than_one() {
                pinned |= b & self.by_color[us.index()];
            }
        }
        pinned
    }

    /// Material signature helpers.
    pub fn piece_count(&self) -> u32 {
        self.occupied().count()
    }

    /// Neither side can possibly mate: K v K, K+minor v K, or only bishops
    /// all on squares of one colour.
    pub fn is_insufficient_material(&self) -> bool {
        let heavy = self.type_bb(PieceType::Pawn) | self.type_bb(PieceType::Rook) | self.type_bb(PieceType::Queen);
        if heavy.any() {
            return false;
        }
        let knights = self.type_bb(PieceType::Knight);
        let bishops = self.type_bb(PieceType::Bishop);
        let minors = knights | bishops;
        if minors.count() <= 1 {
            return true;
        }
        knights.is_empty()
            && ((bishops & Bitboard::DARK_SQUARES).is_empty() || (bishops & !Bitboard::DARK_SQUARES).is_empty())
    }

    /// The current position occurred before, within the reversible part of the
    /// game. With `search_ply` > 0 a single earlier occurrence inside the last
    /// `search_ply` plies counts (the search's draw rule); otherwise the
    /// position must have occurred twice before (threefold repetition).
    pub fn is_repetition(&self, search_ply: usize) -> bool {
        let end = self.state.rule50.min(self.state.plies_from_null) as usize;
        if end < 4 {
            return false;
        }
        let n = self.history.len();
        let mut seen = 0;
        let mut i = 4;
        while i <= end && i <= n {
            if self.history[n - i].key == self.state.key {
                if i < search_ply {
                    return true;
                }
                seen += 1;
                if seen >= 2 {
                    return true;
                }
            }
            i += 2;
        }
        false
    }

    /// Draw by the rules: 50-move rule (unless this move mates), threefold
    /// repetition, insufficient material. Stalemate is found by move generation.
    pub fn is_draw(&self, search_ply: usize) -> bool {
        if self.state.rule50 >= 100 && (!self.in_check() || self.has_legal_moves()) {
            return true;
        }
        self.is_repetition(search_ply) || self.is_insufficient_material()
    }

    pub fn has_legal_moves(&self) -> bool {
        let mut list = MoveList::new();
        self.generate_legal(&mut list);
        !list.is_empty()
    }

    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_moves()
    }

    pub fn is_stalemate(&self) -> bool {
        !self.in_check() && !self.has_legal_moves()
    }

    // ----- piece placement -------------------------------------------------

    #[inline]
    fn put(&mut self, pc: Piece, sq: Square) {
        let b = sq.bb();
        self.by_type[pc.kind().index()] |= b;
        self.by_color[pc.color().index()] |= b;
        self.mailbox[sq.index()] = Some(pc);
    }

    #[inline]
    fn remove(&mut self, pc: Piece, sq: Square) {
        let b = sq.bb();
        self.by_type[pc.kind().index()] ^= b;
        self.by_color[pc.color().index()] ^= b;
        self.mailbox[sq.index()] = None;
    }

    #[inline]
    fn shift(&mut self, pc: Piece, from: Square, to: Square) {
        let b = from.bb() | to.bb();
        self.by_type[pc.kind().index()] ^= b;
        self.by_color[pc.color().index()] ^= b;
        self.mailbox[from.index()] = None;
        self.mailbox[to.index()] = Some(pc);
    }

    /// Destination squares (king, rook) of a castling right.
    #[inline]
    pub fn castling_destinations(color: Color, king_side: bool) -> (Square, Square) {
        let rank = color.relative_rank(0);
        if king_side {
            (Square::from_coords(6, rank), Square::from_coords(5, rank))
        } else {
            (Square::from_coords(2, rank), Square::from_coords(3, rank))
        }
    }

    /// Registers a castling right for the rook on `rook_sq` (king must be placed).
    fn add_castling_right(&mut self, color: Color, rook_sq: Square) {
        let ksq = self.king_square(color);
        let king_side = rook_sq.file() > ksq.file();
        let idx = castle_index(color, king_side);
        let bit = 1u8 << idx;
        self.state.castling |= bit;
        self.castling_rooks[idx] = rook_sq;
        self.castling_mask[ksq.index()] |= bit;
        self.castling_mask[rook_sq.index()] |= bit;
        let (kto, rto) = Board::castling_destinations(color, king_side);
        self.castling_path[idx] =
            (attacks::between(ksq, kto) | attacks::between(rook_sq, rto)) & !(ksq.bb() | rook_sq.bb());
    }

    // ----- make / unmake ---------------------------------------------------

    /// Plays a legal move. Playing an illegal move corrupts the position; use
    /// [`Board::try_make_move`] for moves from outside the engine.
    #[inline]
    pub fn make_move(&mut self, m: Move) {
        self.play::<false>(m);
    }

    /// [`Board::make_move`] for replaying games, where the large slider
    /// table is mostly out of the cache: the checkers are found through
    /// the line tables ([`Board::attackers_by_lines`]). The search, whose tables
    /// stay warm, is faster with [`Board::make_move`].
    #[inline]
    pub fn replay_move(&mut self, m: Move) {
        self.play::<true>(m);
    }

    fn play<const BY_LINES: bool>(&mut self, m: Move) {
        let z = self.keys.table();
        let us = self.side;
        let them = !us;
        let from = m.from();
        let to = m.to();
        let key = self.push_history(z);
        let prev = &self.state;
        let mut st = State {
            key,
            castling: prev.castling,
            ep: None,
            rule50: prev.rule50.saturating_add(1),
            plies_from_null: prev.plies_from_null.saturating_add(1),
            captured: None,
            checkers: Bitboard::EMPTY,
            last_move: m,
        };
        let Some(pc) = self.mailbox[from.index()] else {
            debug_assert!(false, "make_move from an empty square: {m:?}");
            self.state = st;
            return;
        };

        match m.kind() {
            MoveKind::Castling => {
                let king_side = to.file() > from.file();
                let (kto, rto) = Board::castling_destinations(us, king_side);
                let rook = Piece::new(us, PieceType::Rook);
                self.remove(pc, from);
                self.remove(rook, to);
                self.put(pc, kto);
                self.put(rook, rto);
                let psq = &z.psq;
                st.key ^= psq[pc.index()][from.index()] ^ psq[pc.index()][kto.index()];
                st.key ^= psq[rook.index()][to.index()] ^ psq[rook.index()][rto.index()];
            }
            kind => {
                let cap_sq = if kind == MoveKind::EnPassant { Square::from_coords(to.file(), from.rank()) } else { to };
                if let Some(cap) = self.mailbox[cap_sq.index()] {
                    self.remove(cap, cap_sq);
                    st.key ^= z.psq[cap.index()][cap_sq.index()];
                    st.captured = Some(cap);
                    st.rule50 = 0;
                }
                self.shift(pc, from, to);
                st.key ^= z.psq[pc.index()][from.index()] ^ z.psq[pc.index()][to.index()];
                if pc.kind() == PieceType::Pawn {
                    st.rule50 = 0;
                    if let Some(promo) = m.promotion_piece() {
                        let np = Piece::new(us, promo);
                        self.remove(pc, to);
                        self.put(np, to);
                        st.key ^= z.psq[pc.index()][to.index()] ^ z.psq[np.index()][to.index()];
                    } else if from.index() ^ to.index() == 16 {
                        let ep = Square::new(((from.index() + to.index()) / 2) as u8);
                        if (attacks::pawn(us, ep) & self.pieces_of(them, PieceType::Pawn)).any() {
                            st.ep = Some(ep);
                            st.key ^= z.enpassant[ep.file() as usize];
                        }
                    }
                }
            }
        }

        let lost = self.castling_mask[from.index()] | self.castling_mask[to.index()];
        if st.castling & lost != 0 {
            st.key ^= z.castling[st.castling as usize];
            st.castling &= !lost;
            st.key ^= z.castling[st.castling as usize];
        }
        self.side = them;
        self.plies_since_setup = self.plies_since_setup.wrapping_add(1);
        let ksq = self.king_square(them);
        st.checkers = if BY_LINES {
            self.attackers_by_lines(ksq, us, self.occupied())
        } else {
            self.attackers_to(ksq, self.occupied()) & self.by_color[us.index()]
        };
        self.state = st;
        self.debug_check();
    }

    /// Takes back the last move made with [`Board::make_move`]. Does nothing
    /// when no move was made.
    pub fn unmake_move(&mut self) {
        let Some(prev) = self.history.pop() else { return };
        let m = self.state.last_move;
        let captured = self.state.captured;
        self.state = prev;
        self.side = !self.side;
        self.plies_since_setup = self.plies_since_setup.wrapping_sub(1);
        if m == Move::NULL {
            self.debug_check();
            return;
        }
        let us = self.side;
        let from = m.from();
        let to = m.to();
        match m.kind() {
            MoveKind::Castling => {
                let king_side = to.file() > from.file();
                let (kto, rto) = Board::castling_destinations(us, king_side);
                let king = Piece::new(us, PieceType::King);
                let rook = Piece::new(us, PieceType::Rook);
                self.remove(king, kto);
                self.remove(rook, rto);
                self.put(king, from);
                self.put(rook, to);
            }
            kind => {
                let Some(mut pc) = self.mailbox[to.index()] else { return };
                if kind == MoveKind::Promotion {
                    self.remove(pc, to);
                    pc = Piece::new(us, PieceType::Pawn);
                    self.put(pc, to);
                }
                self.shift(pc, to, from);
                if let Some(cap) = captured {
                    let cap_sq =
                        if kind == MoveKind::EnPassant { Square::from_coords(to.file(), from.rank()) } else { to };
                    self.put(cap, cap_sq);
                }
            }
        }
        self.debug_check();
    }

    /// Pushes the current state onto the history and gives the key with
    /// the side to move passed and the en-passant square gone: where
    /// every move's key starts. The state goes straight from the board
    /// into the history: a copy through a local was read back before its
    /// narrow stores had landed (a stalled store-to-load forward on every
    /// move).
    #[inline]
    fn push_history(&mut self, z: &Zobrist) -> u64 {
        self.history.push(self.state);
        let mut key = self.state.key ^ z.side;
        if let Some(ep) = self.state.ep {
            key ^= z.enpassant[ep.file() as usize];
        }
        key
    }

    /// Passes the move (for null-move pruning). Must not be called in check.
    pub fn make_null_move(&mut self) {
        let key = self.push_history(self.keys.table());
        let prev = &self.state;
        self.state = State {
            key,
            castling: prev.castling,
            ep: None,
            rule50: prev.rule50.saturating_add(1),
            plies_from_null: 0,
            captured: None,
            checkers: Bitboard::EMPTY,
            last_move: Move::NULL,
        };
        self.side = !self.side;
        self.plies_since_setup = self.plies_since_setup.wrapping_add(1);
        self.debug_check();
    }

    /// Plays `m` if it is legal here; returns whether it was played.
    pub fn try_make_move(&mut self, m: Move) -> bool {
        if self.is_legal(m) {
            self.make_move(m);
            true
        } else {
            false
        }
    }

    /// Makes the key of this position and of every move played from here
    /// on out of `keys` (the Polyglot key: only for [`PolyglotBoard`]).
    /// The history is forgotten, as by [`Board::clear_history`]: its keys
    /// were made of the old numbers.
    fn set_key_scheme(&mut self, keys: KeyScheme) {
        self.keys = keys;
        self.state.key = zobrist::key_with(self, keys.table());
        self.history.clear();
    }

    /// Forgets the game history (the current position becomes the root).
    /// Repetitions before this point are no longer detected.
    pub fn clear_history(&mut self) {
        self.history.clear();
    }

    /// Previous states, oldest first (for repetition checks by callers).
    pub fn history(&self) -> &[State] {
        &self.history
    }

    /// The position with colours swapped and the board mirrored vertically
    /// (for symmetry tests). Castling rights and en passant are mirrored too.
    pub fn color_flipped(&self) -> Board {
        let mut b = Board::empty();
        b.chess960 = self.chess960;
        for sq in self.occupied() {
            if let Some(pc) = self.piece_on(sq) {
                b.put(Piece::new(!pc.color(), pc.kind()), sq.flip_rank());
            }
        }
        b.side = !self.side;
        for idx in 0..4 {
            if self.state.castling >> idx & 1 != 0 {
                let color = if idx < 2 { Color::Black } else { Color::White };
                b.add_castling_right(color, self.castling_rooks[idx].flip_rank());
            }
        }
        b.state.ep = self.state.ep.map(Square::flip_rank);
        b.state.rule50 = self.state.rule50;
        b.start_ply = (self.fullmove_number() as u32 - 1) * 2 + u32::from(b.side == Color::Black);
        b.finish_setup();
        b
    }

    /// Computes key and checkers after pieces and rights were placed.
    fn finish_setup(&mut self) {
        self.state.key = zobrist::key_with(self, self.keys.table());
        let us = self.side;
        self.state.checkers = self.attackers_to(self.king_square(us), self.occupied()) & self.by_color[(!us).index()];
    }
}

#[cfg(test)]
mod tests;
