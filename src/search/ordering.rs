//! Move ordering: history tables and the move picker.
//!
//! The picker generates the legal moves once, scores them (TT move, good
//! captures by MVV-LVA, killers, counter-move, quiets by butterfly and
//! continuation histories (1 and 2 plies back), losing
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

/// A (piece, destination) pair as an index `piece * 64 + to` (0..768), the
/// key of continuation histories; [`NO_CONT`] for no move (null move, root).
pub const NO_CONT: u16 = u16::MAX;
const CONT_SIZE: usize = 12 * 64;

/// The continuation keys of the moves 1 and 2 plies before a node.
pub type Conts = [u16; 2];

/// The continuation key of `m` in `board` (before it is made).
#[inline]
pub fn cont_index(board: &Board, m: Move) -> u16 {
    board.piece_on(m.from()).map_or(NO_CONT, |p| (p.index() * 64 + m.to().index()) as u16)
}

/// Butterfly history [colour][from][to], counter-moves [piece][to], and
/// the continuation history [previous (piece, to)][(piece, to)], shared by
/// the moves 1 and 2 plies back (as in Stockfish).
pub struct History {
    butterfly: Box<[[[i32; 64]; 64]; 2]>,
    counter: Box<[[Move; 64]; 12]>,
    cont: Box<[i16]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            counter: Box::new([[Move::NONE; 64]; 12]),
            cont: vec![0; CONT_SIZE * CONT_SIZE].into_boxed_slice(),
        }
    }
}

/// Gravity update: moves towards ±HISTORY_MAX, never past it.
#[inline]
fn gravity(e: i32, bonus: i32) -> i32 {
    let b = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    e + b - e * b.abs() / HISTORY_MAX
}

impl History {
    pub fn clear(&mut self) {
        *self = History::default();
    }

    #[inline]
    pub fn quiet(&self, board: &Board, m: Move) -> i32 {
        self.butterfly[board.side_to_move().index()][m.from().index()][m.to().index()]
    }

    /// The butterfly history plus the continuation histories of `conts`.
    #[inline]
    pub fn quiet_with(&self, board: &Board, m: Move, conts: Conts) -> i32 {
        let mut score = self.quiet(board, m);
        let idx = cont_index(board, m);
        if idx != NO_CONT {
            for c in conts.into_iter().filter(|&c| c != NO_CONT) {
                score += i32::from(self.cont[c as usize * CONT_SIZE + idx as usize]);
            }
        }
        score
    }

    /// Rewards (or, with a negative bonus, punishes) a quiet move in the
    /// butterfly and the continuation histories, by gravity.
    pub fn update(&mut self, board: &Board, m: Move, conts: Conts, bonus: i32) {
        let e = &mut self.butterfly[board.side_to_move().index()][m.from().index()][m.to().index()];
        *e = gravity(*e, bonus);
        let idx = cont_index(board, m);
        if idx != NO_CONT {
            for c in conts.into_iter().filter(|&c| c != NO_CONT) {
                let e = &mut self.cont[c as usize * CONT_SIZE + idx as usize];
                *e = gravity(i32::from(*e), bonus) as i16;
            }
        }
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
    pub fn main(board: &Board, tt_move: Move, killers: [Move; 2], history: &History, conts: Conts) -> MovePicker {
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
                history.quiet_with(board, m, conts)
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
