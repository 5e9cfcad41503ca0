//! WDL and DTZ probing: the tables store positions as if no capture were
//! possible, so the prober resolves captures with a small alpha-beta search
//! over them, handles en passant (never stored: the tables assume no
//! en-passant square), and for DTZ falls back to a one-ply search when a
//! table stores only the other side to move.
//!
//! The algorithm is the one python-chess's `chess.syzygy` (and the original
//! Syzygy prober) uses, so that both give the same answers on every legal
//! position, including the DTZ rounding and the choice between zeroing moves:
//!
//! * `probe_ab(α, β)`: the best of the non-en-passant captures (searched
//!   recursively) and the stored value; reports whether the value came from
//!   a capture (`Capture`) or the table.
//! * WDL: `probe_ab(−2, 2)`, then en-passant captures are tried; one that is
//!   at least as good replaces the value, and a drawn position whose only
//!   legal moves are en-passant captures takes their value.
//! * DTZ: 0 for draws; ±1/±101 when a capture (or, for wins, a pawn move)
//!   wins at once; otherwise the stored DTZ, or the best child value when the
//!   table stores the other side to move, where of equal values the first
//!   in shakmaty's order ([`super::order`]) decides whether the value is
//!   rounded, as shakmaty-syzygy's does; en passant as for WDL.
//!
//! Invariant: the search never plays a move that is not legal, and never
//! probes a position with more pieces than the root; a table lookup with
//! more than [`MAX_PIECES`] pieces is an error, not a file search.

use super::index::MAX_PIECES;
use super::position::{Pos, ALL, CAPTURES, EN_PASSANT, PAWN_QUIET, PIECE_QUIET};
use super::table::Kind;
use super::{Dtz, Tablebases, TbError, Wdl};
use crate::board::{Board, MoveList};
use crate::types::{Move, PieceType};

/// Where a `probe_ab` value came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Source {
    /// The table, or captures that are no better than a draw.
    Table,
    /// A capture with a positive value at least as good as the table's: the
    /// best move zeroes the 50-move counter.
    Capture,
}

/// DTZ of a position whose best move zeroes: ±1 for a win/loss, ±101 for a
/// cursed win / blessed loss.
pub(super) fn dtz_before_zeroing(wdl: i32) -> i32 {
    wdl.signum() * if wdl.abs() == 2 { 1 } else { 101 }
}

impl Tablebases {
    /// WDL of `board` from the side to move's point of view, assuming the
    /// 50-move counter is 0 (a cursed win is still reported as such).
    pub fn probe_wdl(&self, board: &Board) -> Result<Wdl, TbError> {
        let pos = root_pos(board)?;
        self.wdl(&pos).map(Wdl::from_value)
    }

    /// DTZ of `board` (python-chess's `probe_dtz`): needs the WDL tables too.
    pub fn probe_dtz(&self, board: &Board) -> Result<Dtz, TbError> {
        self.probe_dtz_rounding(board).map(|(dtz, _)| dtz)
    }

    /// [`Tablebases::probe_dtz`] and whether the value comes from a table
    /// that stores full moves, so that it may be one ply too large
    /// (shakmaty-syzygy's `MaybeRounded::Rounded`).
    pub fn probe_dtz_rounding(&self, board: &Board) -> Result<(Dtz, bool), TbError> {
        let pos = root_pos(board)?;
        self.dtz_ex(&pos).map(|(v, rounded)| (Dtz(v), rounded))
    }

    /// The stored WDL value, captures not considered.
    fn table_wdl(&self, pos: &Pos) -> Result<i32, TbError> {
        if pos.only_kings() {
            return Ok(0);
        }
        let mat = pos.material();
        too_many(mat.total())?;
        self.table(mat, Kind::Wdl)?.probe_wdl(pos, mat)
    }

    /// The stored DTZ for a position of value `wdl` and whether it is
    /// rounded; `None` when the table holds the other side to move.
    fn table_dtz(&self, pos: &Pos, wdl: i32) -> Result<Option<(i32, bool)>, TbError> {
        let mat = pos.material();
        too_many(mat.total())?;
        self.table(mat, Kind::Dtz)?.probe_dtz(pos, mat, wdl)
    }

    fn probe_ab(&self, pos: &Pos, mut alpha: i32, beta: i32) -> Result<(i32, Source), TbError> {
        let mut moves = MoveList::new();
        pos.generate(CAPTURES, &mut moves);
        for m in moves.iter() {
            let (v, _) = self.probe_ab(&pos.make(m), -beta, -alpha)?;
            let v = -v;
            if v > alpha {
                if v >= beta {
                    return Ok((v, Source::Capture));
                }
                alpha = v;
            }
        }
        let v = self.table_wdl(pos)?;
        if alpha >= v {
            Ok((alpha, if alpha > 0 { Source::Capture } else { Source::Table }))
        } else {
            Ok((v, Source::Table))
        }
    }

    /// Best value −2..=2 of the legal en-passant captures, or `None`.
    fn best_en_passant(&self, pos: &Pos) -> Result<Option<i32>, TbError> {
        if pos.ep.is_none() {
            return Ok(None);
        }
        let mut moves = MoveList::new();
        pos.generate(EN_PASSANT, &mut moves);
        let mut best = None;
        for m in moves.iter() {
            let v = -self.probe_ab(&pos.make(m), -2, 2)?.0;
            best = Some(best.map_or(v, |b: i32| b.max(v)));
        }
        Ok(best)
    }

    pub(crate) fn wdl(&self, pos: &Pos) -> Result<i32, TbError> {
        let (mut v, _) = self.probe_ab(pos, -2, 2)?;
        if let Some(v1) = self.best_en_passant(pos)? {
            if v1 >= v || (v == 0 && !pos.has_move(ALL & !EN_PASSANT)) {
                v = v1;
            }
        }
        Ok(v)
    }

    /// DTZ and whether it is rounded (see [`Tablebases::probe_dtz_rounding`]).
    pub(crate) fn dtz_ex(&self, pos: &Pos) -> Result<(i32, bool), TbError> {
        let (v, rounded) = self.dtz_no_ep(pos)?;
        let Some(v1) = self.best_en_passant(pos)? else { return Ok((v, rounded)) };
        let v1 = [-1, -101, 0, 101, 1][(v1 + 2).clamp(0, 4) as usize];
        let take = if v < -100 {
            v1 >= 0
        } else if v < 0 {
            !(-100..0).contains(&v1)
        } else if v > 100 {
            v1 > 0
        } else if v > 0 {
            v1 == 1
        } else {
            v1 >= 0 || !pos.has_move(ALL & !EN_PASSANT)
        };
        Ok(if take { (v1, false) } else { (v, rounded) })
    }

    fn dtz_no_ep(&self, pos: &Pos) -> Result<(i32, bool), TbError> {
        let (wdl, source) = self.probe_ab(pos, -2, 2)?;
        if wdl == 0 {
            return Ok((0, false));
        }
        if source == Source::Capture {
            return Ok((dtz_before_zeroing(wdl), false));
        }
        if wdl > 0 {
            // A pawn move that keeps the full value zeroes at once.
            let mut moves = MoveList::new();
            pos.generate(PAWN_QUIET, &mut moves);
            for m in moves.iter() {
                if -self.wdl(&pos.make(m))? == wdl {
                    return Ok((if wdl == 2 { 1 } else { 101 }, false));
                }
            }
        }
        if let Some((dtz, rounded)) = self.table_dtz(pos, wdl)? {
            return Ok((dtz_before_zeroing(wdl) + if wdl > 0 { dtz } else { -dtz }, rounded));
        }
        // The table stores the other side to move: search one ply. Of
        // equal values the first in shakmaty's order decides the rounding,
        // as in shakmaty-syzygy.
        let in_check = pos.in_check();
        let first = |m: Move| super::order::rank(pos.kind_on(m.from()).unwrap_or(PieceType::King), m, in_check);
        if wdl > 0 {
            let mut best = (0xffff, false, u32::MAX);
            let mut moves = MoveList::new();
            pos.generate(PIECE_QUIET, &mut moves);
            for m in moves.iter() {
                let child = pos.make(m);
                let (v, rounded) = self.dtz_ex(&child)?;
                let v = -v;
                if v == 1 && child.is_checkmate() {
                    best = (1, false, 0);
                } else if v > 0 && (v + 1, first(m)) < (best.0, best.2) {
                    best = (v + 1, rounded, first(m));
                }
            }
            Ok((best.0, best.1))
        } else {
            let mut best = (-1, false, u32::MAX);
            let mut moves = MoveList::new();
            pos.generate(ALL, &mut moves);
            for m in moves.iter() {
                let child = pos.make(m);
                let v = if pos.is_zeroing(m) {
                    if wdl == -2 {
                        (-1, false)
                    } else if self.probe_ab(&child, 1, 2)?.0 == 2 {
                        (0, false)
                    } else {
                        (-101, false)
                    }
                } else {
                    let (v, rounded) = self.dtz_ex(&child)?;
                    (-v - 1, rounded)
                };
                if (v.0, first(m)) < (best.0, best.2) {
                    best = (v.0, v.1, first(m));
                }
            }
            Ok((best.0, best.1))
        }
    }
}

fn too_many(count: u32) -> Result<(), TbError> {
    if count as usize > MAX_PIECES {
        return Err(TbError::TooManyPieces { count, max: MAX_PIECES as u32 });
    }
    Ok(())
}

/// The probe position of a root board, or why it cannot be probed. Like
/// python-chess, a root with one piece more than any table is accepted: a
/// capture that wins outright still gives an answer.
fn root_pos(board: &Board) -> Result<Pos, TbError> {
    if board.castling_rights() != 0 {
        return Err(TbError::Castling);
    }
    let count = board.occupied().count();
    if count as usize > MAX_PIECES + 1 {
        return Err(TbError::TooManyPieces { count, max: MAX_PIECES as u32 });
    }
    debug_assert!(board.pieces_of(board.side_to_move(), PieceType::King).any());
    Ok(Pos::from_board(board))
}
