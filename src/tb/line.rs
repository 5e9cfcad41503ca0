//! The DTZ-optimal line from a position: the tablebase move (as
//! shakmaty-syzygy's `best_move`, which the Lichess API's mainline
//! follows) played again and again, through zeroing moves, until mate or a
//! draw.
//!
//! The move chosen at each step: among the legal moves whose resulting
//! position has the lowest WDL for the opponent, a checkmate first; then,
//! when winning, a zeroing move (when losing, a move that does not zero);
//! then the largest DTZ after the move (the quickest zeroing for the
//! winner, the slowest for the loser); the first in shakmaty's order
//! ([`super::order`]) among equals.
//!
//! The line ends at checkmate, stalemate, insufficient material, a position
//! the tables call drawn (DTZ 0), the 50-move rule (halfmove clock 100), or
//! at the first zeroing move when asked to stop there. Within one phase
//! the zeroing move (or mate) comes after `|DTZ|` plies (one more when the
//! table rounds to full moves; for cursed wins and blessed losses `|DTZ| −
//! 100` may be the count).

use super::moves::is_zeroing;
use super::{Dtz, Tablebases, TbError, Wdl};
use crate::board::Board;
use crate::types::{Color, Move};
use serde::Serialize;

/// Longest line followed (a guard: optimal lines are far shorter).
pub const MAX_LINE_PLIES: usize = 2048;

/// One move of the line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineStep {
    pub mv: Move,
    pub uci: String,
    pub san: String,
    /// A capture or a pawn move.
    pub zeroing: bool,
    /// DTZ of the position after the move, from the side then to move.
    pub dtz: Dtz,
}

/// Why the line stops.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LineEnd {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    /// The tables call the position drawn (DTZ 0).
    Draw,
    /// The halfmove clock reached 100 plies.
    FiftyMoveRule,
    /// Stopped after the first zeroing move, as asked.
    Zeroing,
    /// [`MAX_LINE_PLIES`] moves were played.
    TooLong,
}

impl LineEnd {
    pub const fn name(self) -> &'static str {
        match self {
            LineEnd::Checkmate => "checkmate",
            LineEnd::Stalemate => "stalemate",
            LineEnd::InsufficientMaterial => "insufficient material",
            LineEnd::Draw => "draw",
            LineEnd::FiftyMoveRule => "50-move rule",
            LineEnd::Zeroing => "zeroing move",
            LineEnd::TooLong => "too long",
        }
    }
}

/// A line and the values of its first position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TbLine {
    pub wdl: Wdl,
    pub dtz: Dtz,
    pub steps: Vec<LineStep>,
    pub end: LineEnd,
    /// The FEN of the last position.
    pub final_fen: String,
}

/// Lichess's mainline answer (`GET /standard/mainline?fen=`): the
/// position's DTZ, the tablebase moves played from it while the halfmove
/// clock is under 100 (none from a drawn position), each with the DTZ after
/// it, and the winner when the line ends in mate (`"w"`, `"b"`, or null),
/// its fields in lila-tablebase's order.
/// `precise_dtz` is null where the table rounds to full moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MainlineAnswer {
    pub mainline: Vec<MainlineStep>,
    pub winner: Option<char>,
    pub dtz: i32,
    pub precise_dtz: Option<i32>,
}

/// One move of [`MainlineAnswer`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MainlineStep {
    pub uci: String,
    pub san: String,
    /// DTZ of the position after the move, from the side then to move.
    pub dtz: i32,
    pub precise_dtz: Option<i32>,
}

impl Tablebases {
    /// Lichess's mainline from `board` ([`MainlineAnswer`]): the moves of
    /// [`Tablebases::best_move`] while the clock is under 100. Any probe
    /// that fails on the way (a position outside the tables) is the error.
    pub fn mainline(&self, board: &Board) -> Result<MainlineAnswer, TbError> {
        let (dtz, rounded) = self.probe_dtz_rounding(board)?;
        let precise = |d: Dtz, rounded: bool| (!rounded).then_some(d.0);
        let mut b = board.clone();
        let mut mainline = Vec::new();
        if dtz != Dtz(0) {
            while b.halfmove_clock() < 100 && mainline.len() < MAX_LINE_PLIES {
                let Some((mv, _)) = self.best_move(&mut b)? else { break };
                let (uci, san) = (b.move_to_uci(mv), b.move_to_san(mv));
                b.make_move(mv);
                let (after, rounded) = self.probe_dtz_rounding(&b)?;
                mainline.push(MainlineStep { uci, san, dtz: after.0, precise_dtz: precise(after, rounded) });
            }
        }
        let winner = b.is_checkmate().then_some(if b.side_to_move() == Color::White { 'b' } else { 'w' });
        Ok(MainlineAnswer { dtz: dtz.0, precise_dtz: precise(dtz, rounded), mainline, winner })
    }

    /// The DTZ-optimal line from `board` (see the module documentation);
    /// `stop_at_zeroing` ends it after the first zeroing move. Any probe
    /// that fails on the way (a position outside the tables) is the error.
    pub fn line(&self, board: &Board, stop_at_zeroing: bool) -> Result<TbLine, TbError> {
        let mut b = board.clone();
        let wdl = self.probe_wdl(&b)?;
        let dtz = self.probe_dtz(&b)?;
        let mut steps = Vec::new();
        let end = loop {
            if let Some(end) = self.line_end(&b)? {
                break end;
            }
            if steps.len() >= MAX_LINE_PLIES {
                break LineEnd::TooLong;
            }
            let Some((mv, child_dtz)) = self.best_move(&mut b)? else { break LineEnd::Stalemate };
            let zeroing = is_zeroing(&b, mv);
            let uci = b.move_to_uci(mv);
            let san = b.move_to_san(mv);
            b.make_move(mv);
            steps.push(LineStep { mv, uci, san, zeroing, dtz: child_dtz });
            if zeroing && stop_at_zeroing {
                break self.line_end(&b)?.unwrap_or(LineEnd::Zeroing);
            }
        };
        Ok(TbLine { wdl, dtz, steps, end, final_fen: b.fen() })
    }

    /// Why the line ends at `b`, if it does.
    fn line_end(&self, b: &Board) -> Result<Option<LineEnd>, TbError> {
        Ok(Some(if b.is_checkmate() {
            LineEnd::Checkmate
        } else if b.is_stalemate() {
            LineEnd::Stalemate
        } else if b.is_insufficient_material() {
            LineEnd::InsufficientMaterial
        } else if b.halfmove_clock() >= 100 {
            LineEnd::FiftyMoveRule
        } else if self.probe_dtz(b)? == Dtz(0) {
            LineEnd::Draw
        } else {
            return Ok(None);
        }))
    }

    /// The tablebase move of `b` (restored before returning) and the DTZ
    /// after it; `None` without legal moves.
    pub fn best_move(&self, b: &mut Board) -> Result<Option<(Move, Dtz)>, TbError> {
        let mut children = Vec::new();
        for mv in super::order::legal_moves(b) {
            let zeroing = is_zeroing(b, mv);
            b.make_move(mv);
            let wdl = self.probe_wdl(b);
            b.unmake_move();
            children.push((mv, zeroing, wdl?));
        }
        let Some(best_wdl) = children.iter().map(|c| c.2).min() else { return Ok(None) };
        let mut best: Option<((bool, bool, i32), Move, Dtz)> = None;
        for (mv, zeroing, wdl) in children {
            if wdl != best_wdl {
                continue;
            }
            b.make_move(mv);
            let dtz = self.probe_dtz(b);
            let mate = b.is_checkmate();
            b.unmake_move();
            let dtz = dtz?;
            // Smaller is better: mate first, zeroing when winning, then larger DTZ.
            let key = (!(mate && dtz == Dtz(-1)), zeroing ^ (dtz.0 < 0), -dtz.0);
            if best.as_ref().map_or(true, |(k, _, _)| key < *k) {
                best = Some((key, mv, dtz));
            }
        }
        Ok(best.map(|(_, mv, dtz)| (mv, dtz)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> Option<Tablebases> {
        let dir = crate::testdata::path("syzygy")?;
        Some(Tablebases::new(&dir.display().to_string()).0)
    }

    #[test]
    fn krk_line_mates_in_dtz_plies_and_every_move_is_best() {
        let Some(tb) = tables() else { return };
        let board = Board::from_fen("8/8/8/8/8/2k5/8/K2R4 w - - 0 1", false).unwrap();
        let line = tb.line(&board, false).unwrap();
        assert_eq!(line.end, LineEnd::Checkmate);
        assert_eq!((line.wdl, line.steps.len() as i32), (Wdl::Win, line.dtz.0));
        // Each DTZ after a move (up to the mate) is one ply nearer zero.
        for (i, s) in line.steps.iter().enumerate().take(line.steps.len() - 1) {
            assert_eq!(s.dtz.0.abs(), line.dtz.0 - 1 - i as i32, "{s:?}");
        }
        assert_eq!(line.steps.last().map(|s| s.san.as_str()), Some("Rc8#"));
    }

    #[test]
    fn mainline_plays_to_mate_names_the_winner_and_stops_at_the_clock() {
        let Some(tb) = tables() else { return };
        let board = Board::from_fen("8/8/8/8/8/2k5/8/K2R4 w - - 0 1", false).unwrap();
        let m = tb.mainline(&board).unwrap();
        assert_eq!((m.winner, m.mainline.len() as i32), (Some('w'), m.dtz));
        assert_eq!(m.mainline.last().map(|s| (s.san.as_str(), s.dtz)), Some(("Rc8#", -1)));
        assert!(m.mainline.iter().all(|s| s.precise_dtz.map_or(true, |p| p == s.dtz)));
        let late = Board::from_fen("8/8/8/8/8/2k5/8/K2R4 w - - 100 90", false).unwrap();
        let m = tb.mainline(&late).unwrap();
        assert!(m.mainline.is_empty() && m.winner.is_none() && m.dtz > 0);
        let draw = Board::from_fen("8/8/8/8/8/2k5/8/K1N5 w - - 0 1", false).unwrap();
        assert_eq!(
            tb.mainline(&draw).unwrap(),
            MainlineAnswer { dtz: 0, precise_dtz: Some(0), mainline: vec![], winner: None }
        );
        let castling = Board::from_fen("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1", false).unwrap();
        assert_eq!(tb.mainline(&castling), Err(TbError::Castling));
    }

    #[test]
    fn a_drawn_position_has_an_empty_line_and_stop_at_zeroing_stops() {
        let Some(tb) = tables() else { return };
        let draw = Board::from_fen("8/8/8/8/8/2k5/8/K1N5 w - - 0 1", false).unwrap();
        let line = tb.line(&draw, false).unwrap();
        assert!(line.steps.is_empty());
        assert_eq!(line.end, LineEnd::InsufficientMaterial);
        let kpk = Board::from_fen("8/8/8/4k3/8/8/3PK3/8 w - - 0 1", false).unwrap();
        let line = tb.line(&kpk, true).unwrap();
        assert_eq!(line.end, LineEnd::Zeroing);
        assert!(line.steps.last().is_some_and(|s| s.zeroing));
        assert!(line.steps.iter().rev().skip(1).all(|s| !s.zeroing));
    }
}
