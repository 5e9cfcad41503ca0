//! How a self-play game ends: the rules (mate, stalemate, fifty moves,
//! threefold repetition, insufficient material), an optional [`Adjudicator`]
//! (Syzygy tablebases plug in here), the score rules of [`ScoreRules`], and
//! a length limit.

use crate::board::Board;
use crate::records::GameResult;
use crate::types::Color;

/// Decides games from outside knowledge. Syzygy tablebases plug in by
/// implementing this: return the result under perfect play when the tables
/// cover `board` (a cursed win or blessed loss is a draw under the
/// fifty-move rule), `None` otherwise. Called before every search.
pub trait Adjudicator: Send + Sync {
    fn adjudicate(&self, board: &Board) -> Option<GameResult>;
    fn describe(&self) -> String;
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ending {
    Checkmate,
    Stalemate,
    FiftyMoves,
    Repetition,
    Material,
    Tablebase,
    ScoreWin,
    ScoreDraw,
    MaxLength,
}

impl Ending {
    pub const ALL: [Ending; 9] = [
        Ending::Checkmate,
        Ending::Stalemate,
        Ending::FiftyMoves,
        Ending::Repetition,
        Ending::Material,
        Ending::Tablebase,
        Ending::ScoreWin,
        Ending::ScoreDraw,
        Ending::MaxLength,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Ending::Checkmate => "mate",
            Ending::Stalemate => "stalemate",
            Ending::FiftyMoves => "fifty-move",
            Ending::Repetition => "repetition",
            Ending::Material => "material",
            Ending::Tablebase => "tablebase",
            Ending::ScoreWin => "win-adjudicated",
            Ending::ScoreDraw => "draw-adjudicated",
            Ending::MaxLength => "max-length",
        }
    }
}

/// The result when the rules end the game in `board`, if they do.
pub fn rules_ending(board: &Board) -> Option<(GameResult, Ending)> {
    if !board.has_legal_moves() {
        return Some(if board.in_check() {
            (GameResult::win_for(!board.side_to_move()), Ending::Checkmate)
        } else {
            (GameResult::Draw, Ending::Stalemate)
        });
    }
    if board.halfmove_clock() >= 100 {
        Some((GameResult::Draw, Ending::FiftyMoves))
    } else if board.is_repetition(0) {
        Some((GameResult::Draw, Ending::Repetition))
    } else if board.is_insufficient_material() {
        Some((GameResult::Draw, Ending::Material))
    } else {
        None
    }
}

/// Score adjudication thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScoreRules {
    /// A side wins when every score (white's view) passes ±`win_cp` ...
    pub win_cp: i32,
    /// ... for this many plies in a row (both sides agree when ≥ 2).
    pub win_plies: u32,
    /// A draw when |score| ≤ `draw_cp` ...
    pub draw_cp: i32,
    /// ... for this many plies in a row ...
    pub draw_plies: u32,
    /// ... all of them at or after this game ply (from the initial position).
    pub draw_after_ply: u32,
}

impl Default for ScoreRules {
    fn default() -> Self {
        ScoreRules { win_cp: 2000, win_plies: 4, draw_cp: 10, draw_plies: 8, draw_after_ply: 80 }
    }
}

/// Streaks of scores that lead to adjudication.
#[derive(Clone, Debug, Default)]
pub struct ScoreTracker {
    white_streak: u32,
    black_streak: u32,
    draw_streak: u32,
}

impl ScoreTracker {
    /// Adds the score of a search at game ply `ply` (white's view, in the
    /// search's units: mates are beyond every threshold).
    pub fn update(&mut self, rules: &ScoreRules, white_score: i32, ply: u32) -> Option<(GameResult, Ending)> {
        if white_score >= rules.win_cp {
            self.white_streak += 1;
            self.black_streak = 0;
        } else if white_score <= -rules.win_cp {
            self.black_streak += 1;
            self.white_streak = 0;
        } else {
            self.white_streak = 0;
            self.black_streak = 0;
        }
        if ply >= rules.draw_after_ply && white_score.abs() <= rules.draw_cp {
            self.draw_streak += 1;
        } else {
            self.draw_streak = 0;
        }
        if rules.win_plies > 0 && self.white_streak >= rules.win_plies {
            Some((GameResult::win_for(Color::White), Ending::ScoreWin))
        } else if rules.win_plies > 0 && self.black_streak >= rules.win_plies {
            Some((GameResult::win_for(Color::Black), Ending::ScoreWin))
        } else if rules.draw_plies > 0 && self.draw_streak >= rules.draw_plies {
            Some((GameResult::Draw, Ending::ScoreDraw))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn win_needs_four_plies_beyond_2000() {
        let rules = ScoreRules::default();
        let mut t = ScoreTracker::default();
        assert_eq!(t.update(&rules, 2500, 10), None);
        assert_eq!(t.update(&rules, 2100, 11), None);
        assert_eq!(t.update(&rules, 1999, 12), None);
        for ply in 13..16 {
            assert_eq!(t.update(&rules, 3000, ply), None);
        }
        assert_eq!(t.update(&rules, 2000, 16), Some((GameResult::WhiteWin, Ending::ScoreWin)));
        let mut t = ScoreTracker::default();
        for ply in 0..3 {
            assert_eq!(t.update(&rules, -31_000, ply), None);
        }
        assert_eq!(t.update(&rules, -2001, 3), Some((GameResult::BlackWin, Ending::ScoreWin)));
    }

    #[test]
    fn draw_needs_eight_quiet_plies_from_ply_80() {
        let rules = ScoreRules::default();
        let mut t = ScoreTracker::default();
        for ply in 74..87 {
            assert_eq!(t.update(&rules, 5, ply), None, "ply {ply}");
        }
        assert_eq!(t.update(&rules, -10, 87), Some((GameResult::Draw, Ending::ScoreDraw)));
        let mut t = ScoreTracker::default();
        for ply in 100..107 {
            assert_eq!(t.update(&rules, 0, ply), None);
        }
        assert_eq!(t.update(&rules, 11, 107), None);
    }

    #[test]
    fn rules_endings() {
        let mate = Board::from_fen("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", false).unwrap();
        assert_eq!(rules_ending(&mate), Some((GameResult::BlackWin, Ending::Checkmate)));
        let stale = Board::from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false).unwrap();
        assert_eq!(rules_ending(&stale), Some((GameResult::Draw, Ending::Stalemate)));
        let kk = Board::from_fen("7k/8/6K1/8/8/8/8/8 b - - 0 1", false).unwrap();
        assert_eq!(rules_ending(&kk), Some((GameResult::Draw, Ending::Material)));
        let fifty = Board::from_fen("7k/8/6K1/8/8/8/8/R7 b - - 100 80", false).unwrap();
        assert_eq!(rules_ending(&fifty), Some((GameResult::Draw, Ending::FiftyMoves)));
        assert_eq!(rules_ending(&Board::startpos()), None);
    }
}
