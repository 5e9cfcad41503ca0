//! Move ordering: history tables and the move picker.
//!
//! The picker generates the legal moves once, scores them (TT move, good
//! captures by MVV-LVA, killers, counter-move, quiets by history, losing
//! captures last) and hands them out best first by selection.

use super::see::{see_ge, SEE_VALUES};
use crate::board::movegen::GenKind;
use crate::board::{Board, MoveList};
use crate::types::{Move, MoveKind};

const TT_SCORE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
const KILLER_1: i32 = 1 << 27;
const KILLER_2: i32 = KILLER_1 - 1;
const COUNTER: i32 = KILLER_1 - 2;
const BAD_CAPTURE: i32 = -(1 << 28);
pub const HISTORY_MAX: i32 = 16_384;

/// Butterfly history [colour][from][to] and counter-moves [piece][to].
pub struct History {
    butterfly: Box<[[[i32; 64]; 64]; 2]>,
    counter: Box<[[Move; 64]; 12]>,
}

impl Default for History {
    fn default() -> Self {
        History { butterfly: Box::new([[[0; 64]; 64]; 2]), counter: Box::new([[Move::NONE; 64]; 12]) }
    }
}

impl History {
    pub fn clear(&mut self) {
        *self = History::default();
    }

    #[inline]
    pub fn quiet(&self, board: &Board, m: Move) -> i32 {
        self.butterfly[board.side_to_move().index()][m.from().index()][m.to().index()]
    }

    /// Gravity update: moves towards ±HISTORY_MAX, never past it.
    pub fn update(&mut self, board: &Board, m: Move, bonus: i32) {
        let e = &mut self.butterfly[board.side_to_move().index()][m.from().index()][m.to().index()];
        let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
        *e += b - *e * b.abs() / HISTORY_MAX;
    }

    /// The counter-move stored for the opponent's last move.
    pub fn counter_move(&self, board: &Board) -> Move {
        let last = board.last_move();
        if last.is_none() || last == Move::NULL {
            return Move::NONE;
        }
        match board.piece_on(last.to()) {
            Some(pc) if !last.is_castling() => self.counter[pc.index()][last.to().index()],
            _ => Move::NONE,
        }
    }

    pub fn set_counter_move(&mut self, board: &Board, m: Move) {
        let last = board.last_move();
        if last.is_none() || last == Move::NULL || last.is_castling() {
            return;
        }
        if let Some(pc) = board.piece_on(last.to()) {
            self.counter[pc.index()][last.to().index()] = m;
        }
    }
}

#[inline]
pub fn is_capture(board: &Board, m: Move) -> bool {
    (board.piece_on(m.to()).is_some() && !m.is_castling()) || m.kind() == MoveKind::EnPassant
}

/// Captures and promotions ("noisy" moves).
#[inline]
pub fn is_noisy(board: &Board, m: Move) -> bool {
    is_capture(board, m) || m.kind() == MoveKind::Promotion
}

fn mvv_lva(board: &Board, m: Move) -> i32 {
    let victim = if m.kind() == MoveKind::EnPassant {
        SEE_VALUES[0]
    } else {
        board.piece_on(m.to()).map_or(0, |p| SEE_VALUES[p.kind().index()])
    };
    let attacker = board.piece_on(m.from()).map_or(0, |p| p.kind().index() as i32);
    let promo = m.promotion_piece().map_or(0, |p| SEE_VALUES[p.index()]);
    (victim + promo) * 8 - attacker
}

pub struct MovePicker {
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
}

impl MovePicker {
    /// All legal moves, ordered for the main search.
    pub fn main(board: &Board, tt_move: Move, killers: [Move; 2], history: &History) -> MovePicker {
        let mut moves = MoveList::new();
        board.generate(GenKind::All, &mut moves);
        let counter = history.counter_move(board);
        let mut scores = [0i32; 256];
        for (i, m) in moves.iter().enumerate() {
            scores[i] = if m == tt_move {
                TT_SCORE
            } else if is_noisy(board, m) {
                let base = if m.promotion_piece().is_some_and(|p| p != crate::types::PieceType::Queen) {
                    BAD_CAPTURE
                } else if see_ge(board, m, 0) {
                    GOOD_CAPTURE
                } else {
                    BAD_CAPTURE
                };
                base + mvv_lva(board, m)
            } else if m == killers[0] {
                KILLER_1
            } else if m == killers[1] {
                KILLER_2
            } else if m == counter {
                COUNTER
            } else {
                history.quiet(board, m)
            };
        }
        MovePicker { moves, scores, next: 0 }
    }

    /// Quiescence: captures and queen promotions (all evasions in check).
    pub fn quiescence(board: &Board, tt_move: Move) -> MovePicker {
        let mut moves = MoveList::new();
        let in_check = board.in_check();
        board.generate(if in_check { GenKind::All } else { GenKind::Noisy }, &mut moves);
        let mut scores = [0i32; 256];
        for (i, m) in moves.iter().enumerate() {
            scores[i] = if m == tt_move {
                TT_SCORE
            } else if is_noisy(board, m) {
                GOOD_CAPTURE + mvv_lva(board, m)
            } else {
                0
            };
        }
        MovePicker { moves, scores, next: 0 }
    }

    /// The next best move and its ordering score.
    #[inline]
    pub fn pick(&mut self) -> Option<(Move, i32)> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let scores = &mut self.scores[..n];
        let mut best = self.next;
        for i in self.next + 1..n {
            if scores[i] > scores[best] {
                best = i;
            }
        }
        scores.swap(self.next, best);
        self.moves.as_mut_slice().swap(self.next, best);
        let i = self.next;
        self.next += 1;
        Some((self.moves.as_slice()[i], self.scores[i]))
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// True for ordering scores of captures that lose material.
pub fn is_bad_capture_score(score: i32) -> bool {
    score < BAD_CAPTURE / 2
}
