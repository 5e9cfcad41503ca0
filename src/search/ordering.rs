//! Move ordering: history tables and the move picker.
//!
//! The main-search picker works in stages (see [`MovePicker`]): the TT
//! move before any generation, good captures by the value taken plus the
//! capture history, killers and the counter move, quiets by butterfly plus
//! continuation histories (1 and 2 plies back), losing captures last.
//! Quiescence scores its captures by MVV-LVA.

use super::see::{see_ge, SEE_VALUES};
use super::state_file::{Named, Table, TableMut};
use crate::board::movegen::{GenKind, MoveSink};
use crate::board::{Board, MoveList};
use crate::types::{Move, MoveKind, PieceType};

const TT_SCORE: i32 = 1 << 30;
const GOOD_CAPTURE: i32 = 1 << 28;
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

/// Butterfly history `[colour][from][to]`, counter-moves `[piece][to]`, and
/// the continuation history `[previous (piece, to)][(piece, to)]`, shared by
/// the moves 1 and 2 plies back (as in Stockfish).
pub struct History {
    butterfly: Box<[[[i32; 64]; 64]; 2]>,
    counter: Box<[[Move; 64]; 12]>,
    cont: Box<[i16]>,
    /// Capture history `[moving piece][to][captured kind]` (kind 5 for none:
    /// a promotion without capture).
    captures: Box<[[[i16; 6]; 64]; 12]>,
}

impl Default for History {
    fn default() -> Self {
        History {
            butterfly: Box::new([[[0; 64]; 64]; 2]),
            counter: Box::new([[Move::NONE; 64]; 12]),
            cont: vec![0; CONT_SIZE * CONT_SIZE].into_boxed_slice(),
            captures: Box::new([[[0; 6]; 64]; 12]),
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

    /// The counter moves, `[piece][to]` flattened (for the search-state file).
    pub fn counter_moves(&self) -> impl Iterator<Item = &Move> {
        self.counter.iter().flatten()
    }

    pub fn counter_moves_mut(&mut self) -> impl Iterator<Item = &mut Move> {
        self.counter.iter_mut().flatten()
    }

    /// The tables of numbers a search-state file keeps (the counter moves go
    /// there too, through [`History::counter_moves`]).
    pub fn state_tables(&self) -> [Named<Table<'_>>; 3] {
        [
            Named {
                tag: *b"BFLY",
                bound: HISTORY_MAX,
                table: Table::I32(self.butterfly.as_flattened().as_flattened()),
            },
            Named { tag: *b"CONT", bound: HISTORY_MAX, table: Table::I16(&self.cont) },
            Named { tag: *b"CAPT", bound: HISTORY_MAX, table: Table::I16(self.captures.as_flattened().as_flattened()) },
        ]
    }

    /// The same tables, to restore into.
    pub fn state_tables_mut(&mut self) -> [Named<TableMut<'_>>; 3] {
        [
            Named {
                tag: *b"BFLY",
                bound: HISTORY_MAX,
                table: TableMut::I32(self.butterfly.as_flattened_mut().as_flattened_mut()),
            },
            Named { tag: *b"CONT", bound: HISTORY_MAX, table: TableMut::I16(&mut self.cont) },
            Named {
                tag: *b"CAPT",
                bound: HISTORY_MAX,
                table: TableMut::I16(self.captures.as_flattened_mut().as_flattened_mut()),
            },
        ]
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

    /// The capture history of a capture or promotion.
    #[inline]
    pub fn capture(&self, board: &Board, m: Move) -> i32 {
        board.piece_on(m.from()).map_or(0, |p| {
            let taken = captured_kind(board, m).map_or(5, |k| k.index());
            i32::from(self.captures[p.index()][m.to().index()][taken])
        })
    }

    /// Rewards (or punishes) a capture or promotion, by gravity.
    pub fn update_capture(&mut self, board: &Board, m: Move, bonus: i32) {
        if let Some(p) = board.piece_on(m.from()) {
            let taken = captured_kind(board, m).map_or(5, |k| k.index());
            let e = &mut self.captures[p.index()][m.to().index()][taken];
            *e = gravity(i32::from(*e), bonus) as i16;
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
    board.is_capture(m)
}

/// Captures and promotions ("noisy" moves).
#[inline]
pub fn is_noisy(board: &Board, m: Move) -> bool {
    board.is_noisy(m)
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

/// Where a [`MovePicker`] is in its sequence of stages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Stage {
    TtMove,
    GenerateNoisy,
    GoodNoisy,
    Killer1,
    Killer2,
    Counter,
    GenerateQuiet,
    Quiet,
    BadNoisy,
    /// Quiescence: the generated moves, best first.
    Scored,
    Done,
}

/// Hands out the moves of a position best first, generating them in stages:
/// the TT move before any generation (checked by [`Board::is_legal`]), then
/// the captures and promotions (those that lose material by SEE, and
/// under-promotions, wait until the end), the killers and the counter move
/// (checked the same way), then the quiets by history, then the losing
/// captures. Each legal move comes out exactly once.
pub struct MovePicker {
    stage: Stage,
    tt_move: Move,
    killers: [Move; 2],
    counter: Move,
    conts: Conts,
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
    bad: MoveList,
    bad_next: usize,
}

impl MovePicker {
    /// All legal moves, ordered for the main search.
    pub fn main(board: &Board, tt_move: Move, killers: [Move; 2], history: &History, conts: Conts) -> MovePicker {
        MovePicker {
            stage: Stage::TtMove,
            tt_move,
            killers,
            counter: history.counter_move(board),
            conts,
            moves: MoveList::new(),
            scores: [0; 256],
            next: 0,
            bad: MoveList::new(),
            bad_next: 0,
        }
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
        MovePicker {
            stage: Stage::Scored,
            tt_move,
            killers: [Move::NONE; 2],
            counter: Move::NONE,
            conts: [NO_CONT; 2],
            moves,
            scores,
            next: 0,
            bad: MoveList::new(),
            bad_next: 0,
        }
    }

    /// The next move and its ordering score: for quiet moves their history
    /// score (butterfly plus continuations), for captures a score that
    /// [`is_bad_capture_score`] tells apart.
    pub fn pick(&mut self, board: &Board, history: &History) -> Option<(Move, i32)> {
        loop {
            match self.stage {
                Stage::TtMove => {
                    self.stage = Stage::GenerateNoisy;
                    let m = self.tt_move;
                    if board.is_legal(m) {
                        let score =
                            if is_noisy(board, m) { TT_SCORE } else { history.quiet_with(board, m, self.conts) };
                        return Some((m, score));
                    }
                }
                Stage::GenerateNoisy => {
                    board.generate(GenKind::Noisy, &mut self.moves);
                    for (i, m) in self.moves.iter().enumerate() {
                        self.scores[i] = noisy_score(board, m, history);
                    }
                    self.stage = Stage::GoodNoisy;
                }
                Stage::GoodNoisy => match self.select() {
                    Some((m, _)) if m == self.tt_move => {}
                    Some((m, score)) => {
                        let under = m.promotion_piece().is_some_and(|p| p != PieceType::Queen);
                        if under || !see_ge(board, m, 0) {
                            self.bad.add(m);
                        } else {
                            return Some((m, GOOD_CAPTURE + score));
                        }
                    }
                    None => self.stage = Stage::Killer1,
                },
                Stage::Killer1 | Stage::Killer2 | Stage::Counter => {
                    let m = match self.stage {
                        Stage::Killer1 => self.killers[0],
                        Stage::Killer2 => self.killers[1],
                        _ => self.counter,
                    };
                    let earlier = match self.stage {
                        Stage::Killer1 => [self.tt_move, Move::NONE, Move::NONE],
                        Stage::Killer2 => [self.tt_move, self.killers[0], Move::NONE],
                        _ => [self.tt_move, self.killers[0], self.killers[1]],
                    };
                    self.stage = match self.stage {
                        Stage::Killer1 => Stage::Killer2,
                        Stage::Killer2 => Stage::Counter,
                        _ => Stage::GenerateQuiet,
                    };
                    if !m.is_none() && !earlier.contains(&m) && board.is_legal(m) && !is_noisy(board, m) {
                        return Some((m, history.quiet_with(board, m, self.conts)));
                    }
                }
                Stage::GenerateQuiet => {
                    self.moves.clear();
                    self.next = 0;
                    board.generate(GenKind::Quiet, &mut self.moves);
                    for (i, m) in self.moves.iter().enumerate() {
                        self.scores[i] = history.quiet_with(board, m, self.conts);
                    }
                    self.stage = Stage::Quiet;
                }
                Stage::Quiet => match self.select() {
                    Some((m, _)) if self.is_special(m) => {}
                    Some(found) => return Some(found),
                    None => self.stage = Stage::BadNoisy,
                },
                Stage::BadNoisy => {
                    let Some(&m) = self.bad.as_slice().get(self.bad_next) else {
                        self.stage = Stage::Done;
                        return None;
                    };
                    self.bad_next += 1;
                    return Some((m, BAD_CAPTURE));
                }
                Stage::Scored => {
                    let found = self.select();
                    if found.is_none() {
                        self.stage = Stage::Done;
                    }
                    return found;
                }
                Stage::Done => return None,
            }
        }
    }

    /// No more quiet moves (late-move pruning has begun): the picker goes
    /// on with the losing captures.
    pub fn skip_quiets(&mut self) {
        if matches!(self.stage, Stage::Killer1 | Stage::Killer2 | Stage::Counter | Stage::GenerateQuiet | Stage::Quiet)
        {
            self.stage = Stage::BadNoisy;
        }
    }

    /// Was `m` already handed out by the TT-move, killer or counter stage?
    fn is_special(&self, m: Move) -> bool {
        m == self.tt_move || m == self.killers[0] || m == self.killers[1] || m == self.counter
    }

    /// The best-scored move not yet handed out (selection: later moves are
    /// often never needed).
    #[inline]
    fn select(&mut self) -> Option<(Move, i32)> {
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
}

/// Captures and promotions: most valuable victim, least valuable attacker,
/// then a quarter of the capture history (enough to reorder neighbouring
/// victims, not a queen below a pawn).
#[inline]
fn noisy_score(board: &Board, m: Move, history: &History) -> i32 {
    mvv_lva(board, m) * 2 + history.capture(board, m) / 4
}

/// The kind of piece `m` takes (a pawn for en passant), if any.
#[inline]
fn captured_kind(board: &Board, m: Move) -> Option<PieceType> {
    if m.kind() == MoveKind::EnPassant {
        Some(PieceType::Pawn)
    } else if m.is_castling() {
        None
    } else {
        board.piece_on(m.to()).map(|p| p.kind())
    }
}

/// True for ordering scores of captures that lose material.
pub fn is_bad_capture_score(score: i32) -> bool {
    score < BAD_CAPTURE / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions with every kind of move: castling both ways, en passant,
    /// promotions with and without capture, checks, pins.
    const STARTS: [&str; 5] = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];

    /// The staged picker hands out exactly the legal moves, each once,
    /// whatever it is told about the TT move, killers and counter move
    /// (legal quiets, captures, moves of the other side, garbage).
    #[test]
    fn staged_picker_yields_each_legal_move_exactly_once() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut history = History::default();
        let mut positions = 0;
        for fen in STARTS {
            let mut board = Board::from_fen(fen, false).expect("fen");
            for _ in 0..120 {
                let legal = board.legal_moves();
                if legal.is_empty() {
                    break;
                }
                // Teach the histories something, so scores differ.
                let m = legal.as_slice()[next() as usize % legal.len()];
                if is_noisy(&board, m) {
                    history.update_capture(&board, m, (next() % 4000) as i32 - 2000);
                } else {
                    history.update(&board, m, [NO_CONT; 2], (next() % 4000) as i32 - 2000);
                }
                let mut guess = || match next() % 3 {
                    0 => legal.as_slice()[next() as usize % legal.len()],
                    1 => Move::from_raw(next() as u16),
                    _ => Move::NONE,
                };
                let (tt, k1, k2) = (guess(), guess(), guess());
                let mut picker = MovePicker::main(&board, tt, [k1, k2], &history, [NO_CONT; 2]);
                let mut seen = Vec::new();
                while let Some((m, _)) = picker.pick(&board, &history) {
                    assert!(legal.contains(m), "{m:?} is not legal in {}", board.fen());
                    assert!(!seen.contains(&m), "{m:?} twice in {}", board.fen());
                    seen.push(m);
                }
                assert_eq!(seen.len(), legal.len(), "{}", board.fen());
                if legal.contains(tt) {
                    assert_eq!(seen[0], tt, "the TT move comes first");
                }
                positions += 1;
                board.make_move(m);
            }
        }
        assert!(positions > 300, "{positions}");
    }
}
