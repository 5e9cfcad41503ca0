//! Accumulators: the first layer's output for both perspectives, built from
//! scratch ([`Accumulator::refresh`]) or from the parent position's
//! accumulator and the move ([`Accumulator::update_from`]).
//!
//! Storage: one boxed slice of `2·N` `i16` (white's half, then black's),
//! allocated once for a network's hidden size and then only overwritten.
//! `N` is known only when a file is read, so a fixed-capacity array would
//! have to be sized for N = 4096 (16 KiB per ply, mostly untouched, and a
//! stack of them would not fit a thread's stack); a caller-provided slice
//! would push lifetimes into the search. A search keeps one accumulator per
//! ply, allocated when it starts ([`AccumulatorStack`]), and writes each
//! child into the next slot: no allocation per node.
//!
//! Arithmetic wraps (`i16`): modular sums do not depend on the order, so an
//! incremental update equals a refresh even for a network whose sums would
//! overflow (the score of such a network is meaningless, but nothing panics).
//!
//! Invariant: after `refresh(board, net)` or `update_from(parent, before, m,
//! net)` the values are `b + Σ W[f]` over the features of the position (after
//! `m`), for each perspective; the update is exact for every legal move,
//! including en passant, promotions and castling in its king-takes-rook
//! encoding (standard and Chess960).

use super::{feature_index, Network};
use crate::board::Board;
use crate::types::{Color, Move, MoveKind, Piece, PieceType, Square};

/// Both perspectives' first-layer values for one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// `[white N | black N]`.
    values: Box<[i16]>,
}

/// The pieces a move takes off and puts on the board (from the mover's
/// side): always 1 on and 1 off (quiet move, promotion), 1 on and 2 off
/// (capture, en passant) or 2 on and 2 off (castling).
struct Delta {
    on: [(Piece, Square); 2],
    off: [(Piece, Square); 2],
    n_on: usize,
    n_off: usize,
}

impl Delta {
    /// The change made by the legal move `m` played in `board`; `None` for
    /// the null move (and for a move from an empty square, which is not legal).
    fn of(board: &Board, m: Move) -> Option<Delta> {
        if m == Move::NULL {
            return None;
        }
        let (from, to) = (m.from(), m.to());
        let piece = board.piece_on(from)?;
        let us = piece.color();
        if m.kind() == MoveKind::Castling {
            let (kto, rto) = Board::castling_destinations(us, to.file() > from.file());
            let rook = Piece::new(us, PieceType::Rook);
            return Some(Delta {
                on: [(piece, kto), (rook, rto)],
                off: [(piece, from), (rook, to)],
                n_on: 2,
                n_off: 2,
            });
        }
        let landed = m.promotion_piece().map_or(piece, |pt| Piece::new(us, pt));
        let cap_sq = if m.kind() == MoveKind::EnPassant { Square::from_coords(to.file(), from.rank()) } else { to };
        let mut delta = Delta { on: [(landed, to); 2], off: [(piece, from); 2], n_on: 1, n_off: 1 };
        if let Some(captured) = board.piece_on(cap_sq) {
            delta.off[1] = (captured, cap_sq);
            delta.n_off = 2;
        }
        Some(delta)
    }
}

impl Accumulator {
    /// A zeroed accumulator sized for `net` (refresh or update before use).
    pub fn new(net: &Network) -> Accumulator {
        Accumulator { values: vec![0; 2 * net.hidden()].into_boxed_slice() }
    }

    /// The accumulator of `board`, from scratch.
    pub fn from_board(board: &Board, net: &Network) -> Accumulator {
        let mut acc = Accumulator::new(net);
        acc.refresh(board, net);
        acc
    }

    /// Hidden size `N` this accumulator holds.
    #[inline]
    pub fn hidden(&self) -> usize {
        self.values.len() / 2
    }

    /// Perspective `c`'s `N` values.
    #[inline]
    pub fn perspective(&self, c: Color) -> &[i16] {
        let (white, black) = self.values.split_at(self.hidden());
        match c {
            Color::White => white,
            Color::Black => black,
        }
    }

    fn resize_for(&mut self, hidden: usize) {
        if self.values.len() != 2 * hidden {
            self.values = vec![0; 2 * hidden].into_boxed_slice();
        }
    }

    /// Recomputes both halves from the pieces of `board` (reallocates only
    /// when `net`'s hidden size differs from this accumulator's).
    pub fn refresh(&mut self, board: &Board, net: &Network) {
        self.resize_for(net.hidden());
        let (white, black) = self.values.split_at_mut(net.hidden());
        white.copy_from_slice(net.feature_bias());
        black.copy_from_slice(net.feature_bias());
        for sq in board.occupied() {
            let Some(piece) = board.piece_on(sq) else { continue };
            add_row(white, net.feature_row(feature_index(Color::White, piece, sq)));
            add_row(black, net.feature_row(feature_index(Color::Black, piece, sq)));
        }
    }

    /// Sets `self` to the accumulator of the position after `m`, from
    /// `parent`, the accumulator of `board_before` (the position `m` is
    /// played in). `m` must be legal there (or [`Move::NULL`], which copies);
    /// otherwise the values are meaningless, but nothing panics. `parent`
    /// must have been computed with `net`.
    pub fn update_from(&mut self, parent: &Accumulator, board_before: &Board, m: Move, net: &Network) {
        debug_assert_eq!(parent.hidden(), net.hidden(), "accumulator built for another network");
        self.resize_for(parent.hidden());
        let Some(delta) = Delta::of(board_before, m) else {
            self.values.copy_from_slice(&parent.values);
            return;
        };
        match parent.hidden() {
            32 => self.apply::<32>(parent, &delta, net),
            64 => self.apply::<64>(parent, &delta, net),
            128 => self.apply::<128>(parent, &delta, net),
            256 => self.apply::<256>(parent, &delta, net),
            _ => self.apply::<0>(parent, &delta, net),
        }
    }

    /// `parent` with `delta` applied, into `self` (sized like `parent`).
    /// `N` is the hidden size as a constant for the sizes networks use, so
    /// that the compiler unrolls the kernels for it (`make nnue-bench`);
    /// 0 runs the same kernels over the run-time size.
    #[inline(always)]
    fn apply<const N: usize>(&mut self, parent: &Accumulator, delta: &Delta, net: &Network) {
        let hidden = parent.hidden();
        debug_assert!(N == 0 || N == hidden);
        fn fixed<const N: usize>(v: &[i16]) -> &[i16] {
            if N == 0 {
                v
            } else {
                &v[..N]
            }
        }
        let (out_white, out_black) = self.values.split_at_mut(hidden);
        for (c, out) in [(Color::White, out_white), (Color::Black, out_black)] {
            let row = |&(piece, sq): &(Piece, Square)| fixed::<N>(net.feature_row(feature_index(c, piece, sq)));
            let out = if N == 0 { out } else { &mut out[..N] };
            let parent = fixed::<N>(parent.perspective(c));
            let (on, off) = (&delta.on, &delta.off);
            match (delta.n_on, delta.n_off) {
                (1, 1) => add1_sub1(out, parent, row(&on[0]), row(&off[0])),
                (1, _) => add1_sub2(out, parent, row(&on[0]), row(&off[0]), row(&off[1])),
                _ => add2_sub2(out, parent, [row(&on[0]), row(&on[1])], [row(&off[0]), row(&off[1])]),
            }
        }
    }
}

fn add_row(out: &mut [i16], row: &[i16]) {
    for (o, &w) in out.iter_mut().zip(row) {
        *o = o.wrapping_add(w);
    }
}

#[inline(always)]
fn add1_sub1(out: &mut [i16], parent: &[i16], on: &[i16], off: &[i16]) {
    for (((o, &p), &a), &s) in out.iter_mut().zip(parent).zip(on).zip(off) {
        *o = p.wrapping_add(a).wrapping_sub(s);
    }
}

#[inline(always)]
fn add1_sub2(out: &mut [i16], parent: &[i16], on: &[i16], off0: &[i16], off1: &[i16]) {
    for ((((o, &p), &a), &s0), &s1) in out.iter_mut().zip(parent).zip(on).zip(off0).zip(off1) {
        *o = p.wrapping_add(a).wrapping_sub(s0).wrapping_sub(s1);
    }
}

#[inline(always)]
fn add2_sub2(out: &mut [i16], parent: &[i16], on: [&[i16]; 2], off: [&[i16]; 2]) {
    let adds = on[0].iter().zip(on[1]);
    let subs = off[0].iter().zip(off[1]);
    for (((o, &p), (&a0, &a1)), (&s0, &s1)) in out.iter_mut().zip(parent).zip(adds).zip(subs) {
        *o = p.wrapping_add(a0).wrapping_add(a1).wrapping_sub(s0).wrapping_sub(s1);
    }
}

/// One accumulator per ply, allocated up front: [`push`](Self::push) writes
/// the child into the next slot (allocating only when the stack grows past
/// every depth reached before), [`pop`](Self::pop) goes back. Never empty:
/// the bottom entry is the root position's.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    slots: Vec<Accumulator>,
    len: usize,
}

impl AccumulatorStack {
    /// A stack for `net` with `capacity` plies allocated, holding `root`.
    pub fn new(root: &Board, net: &Network, capacity: usize) -> AccumulatorStack {
        let slots = (0..capacity.max(1)).map(|_| Accumulator::new(net)).collect();
        let mut stack = AccumulatorStack { slots, len: 1 };
        stack.reset(root, net);
        stack
    }

    /// Drops every entry and refreshes the bottom one from `root`.
    pub fn reset(&mut self, root: &Board, net: &Network) {
        self.len = 1;
        self.slots[0].refresh(root, net);
    }

    /// Pushes the accumulator of the position after `m`; `board_before` is
    /// the position of [`current`](Self::current), `m` legal in it.
    pub fn push(&mut self, board_before: &Board, m: Move, net: &Network) {
        if self.len == self.slots.len() {
            self.slots.push(Accumulator::new(net));
        }
        let (done, rest) = self.slots.split_at_mut(self.len);
        rest[0].update_from(&done[self.len - 1], board_before, m, net);
        self.len += 1;
    }

    /// Goes back one ply (the root entry stays).
    pub fn pop(&mut self) {
        self.len = (self.len - 1).max(1);
    }

    /// The accumulator of the current position.
    pub fn current(&self) -> &Accumulator {
        &self.slots[self.len - 1]
    }

    /// Entries on the stack (1 at the root).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: the root entry is never popped.
    pub fn is_empty(&self) -> bool {
        false
    }
}
