//! Root-move ranking, as Stockfish does it before searching a position that
//! is in the tables.
//!
//! With DTZ tables every legal move gets a rank from the DTZ of the position
//! it leads to, counted from the root (zeroing moves: ±1/±101 from WDL; moves
//! into a repetition or a 50-move draw: 0):
//!
//! * wins that are safe from the 50-move rule (`dtz + halfmove clock ≤ 99`
//!   and no repetition since the last zeroing move): `MAX_DTZ − dtz` (or
//!   `MAX_DTZ` when DTZ is not ranked), so shorter wins rank higher;
//! * other wins (cursed, or too slow for the clock): `MAX_DTZ/2 − (dtz +
//!   clock)`;
//! * draws: 0; losses the mirror image of wins.
//!
//! Without DTZ tables the WDL of each child gives `±MAX_DTZ` (win/loss),
//! `±(MAX_DTZ − 101)` (cursed win/blessed loss) or 0.
//!
//! A rank at or above [`rank_bound`] is a win under the chosen 50-move rule.
//! Stockfish then searches only the moves that share the best rank (each
//! further MultiPV line takes the next group of equal ranks). The
//! `rule50` flag (UCI `Syzygy50MoveRule`) only changes how ranks translate
//! into [`TbScore`]: with it off, cursed wins count as wins.

use super::probe::dtz_before_zeroing;
use super::{Tablebases, TbError, Wdl};
use crate::board::Board;
use crate::types::Move;

/// The scale of ranks (Stockfish's `MAX_DTZ`): a safe win ranks `MAX_DTZ − dtz`.
pub const MAX_DTZ: i32 = 1 << 18;

/// The smallest rank that is a win: with the 50-move rule, only wins that
/// the clock cannot spoil; without it, every win.
pub const fn rank_bound(rule50: bool) -> i32 {
    if rule50 {
        MAX_DTZ / 2 - 100
    } else {
        1
    }
}

/// What a ranked move is worth to the search.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TbScore {
    /// A win the search should score like a mate beyond its horizon.
    Win,
    /// A loss, likewise.
    Loss,
    Draw,
    /// A win or loss the 50-move rule may spoil: a small score in
    /// centipawns (3 … 49, or negative), growing as the win gets safer.
    Centipawns(i32),
}

/// One ranked root move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RankedMove {
    pub mv: Move,
    pub rank: i32,
    pub score: TbScore,
}

/// The ranked root moves, best first (a stable sort keeps generation order
/// among equals), and whether DTZ tables were used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootRanking {
    pub moves: Vec<RankedMove>,
    pub used_dtz: bool,
    /// Why the DTZ ranking was not used (a missing DTZ table is usual).
    pub dtz_error: Option<TbError>,
}

/// Stockfish's display score of a rank.
fn score_of(rank: i32, bound: i32) -> TbScore {
    const CP: i32 = 100;
    if rank >= bound {
        TbScore::Win
    } else if rank > 0 {
        TbScore::Centipawns((3.max(rank - (MAX_DTZ / 2 - 200)) * CP) / 200)
    } else if rank == 0 {
        TbScore::Draw
    } else if rank > -bound {
        TbScore::Centipawns(((-3).min(rank + (MAX_DTZ / 2 - 200)) * CP) / 200)
    } else {
        TbScore::Loss
    }
}

/// Has a position repeated since the last zeroing move (Stockfish's
/// `has_repeated`)?
fn has_repeated(board: &Board) -> bool {
    let states: Vec<_> = board.history().iter().chain(std::iter::once(board.state())).collect();
    let Some(mut k) = states.len().checked_sub(1) else { return false };
    let cur = states[k];
    let mut end = cur.rule50.min(cur.plies_from_null) as usize;
    while end >= 4 {
        let s = states[k];
        let window = s.rule50.min(s.plies_from_null) as usize;
        if (4..=window).step_by(2).any(|i| k >= i && states[k - i].key == s.key) {
            return true;
        }
        end -= 1;
        let Some(prev) = k.checked_sub(1) else { break };
        k = prev;
    }
    false
}

impl Tablebases {
    /// Ranks the legal moves of `board` (restored before returning), best
    /// first; `None` when the position is not in the tables (too many
    /// pieces, castling rights, no legal move, or a probe failed).
    pub fn rank_root_moves(&self, board: &mut Board, rule50: bool) -> Option<Vec<(Move, i32)>> {
        let ranking = self.rank_root(board, rule50, true).ok()?;
        (!ranking.moves.is_empty()).then(|| ranking.moves.iter().map(|m| (m.mv, m.rank)).collect())
    }

    /// [`Tablebases::rank_root_moves`] with scores; `rank_dtz` false ranks
    /// all safe wins equally (Stockfish does this when it wants the search,
    /// not DTZ, to choose among winning moves). DTZ ranks when every DTZ
    /// probe succeeds, WDL otherwise (`dtz_error` then says why); the error
    /// is that of the position being outside the tables or of a failed WDL
    /// probe. No legal move gives an empty ranking.
    pub fn rank_root(&self, board: &mut Board, rule50: bool, rank_dtz: bool) -> Result<RootRanking, TbError> {
        if board.castling_rights() != 0 {
            return Err(TbError::Castling);
        }
        let count = board.occupied().count();
        if count > self.max_pieces() {
            return Err(TbError::TooManyPieces { count, max: self.max_pieces() });
        }
        let legal: Vec<Move> = board.legal_moves().iter().collect();
        let (mut moves, dtz_error) = match self.dtz_ranks(board, &legal, rank_dtz, rule50) {
            Ok(ranks) => (ranks, None),
            Err(e) => (self.wdl_ranks(board, &legal, rule50)?, Some(e)),
        };
        moves.sort_by_key(|m| std::cmp::Reverse(m.rank));
        Ok(RootRanking { moves, used_dtz: dtz_error.is_none(), dtz_error })
    }

    fn dtz_ranks(
        &self,
        board: &mut Board,
        legal: &[Move],
        rank_dtz: bool,
        rule50: bool,
    ) -> Result<Vec<RankedMove>, TbError> {
        let bound = rank_bound(rule50);
        let cnt50 = board.halfmove_clock() as i32;
        let rep = has_repeated(board);
        let mut out = Vec::with_capacity(legal.len());
        for &mv in legal {
            board.make_move(mv);
            let dtz = if board.halfmove_clock() == 0 {
                self.probe_wdl(board).map(|w| dtz_before_zeroing(-w.value()))
            } else if board.is_draw(1) {
                Ok(0)
            } else {
                self.probe_dtz(board).map(|d| {
                    let d = -d.0;
                    d + d.signum()
                })
            };
            let dtz = match dtz {
                Ok(2) if board.is_checkmate() => Ok(1),
                other => other,
            };
            board.unmake_move();
            let dtz = dtz?;
            let keep = |d: i32| if rank_dtz { d } else { 0 };
            let rank = if dtz > 0 {
                if dtz + cnt50 <= 99 && !rep {
                    MAX_DTZ - keep(dtz)
                } else {
                    MAX_DTZ / 2 - (dtz + cnt50)
                }
            } else if dtz < 0 {
                if -dtz * 2 + cnt50 < 100 {
                    -MAX_DTZ - keep(dtz)
                } else {
                    -MAX_DTZ / 2 + (-dtz + cnt50)
                }
            } else {
                0
            };
            out.push(RankedMove { mv, rank, score: score_of(rank, bound) });
        }
        Ok(out)
    }

    fn wdl_ranks(&self, board: &mut Board, legal: &[Move], rule50: bool) -> Result<Vec<RankedMove>, TbError> {
        let mut out = Vec::with_capacity(legal.len());
        for &mv in legal {
            board.make_move(mv);
            let wdl = if board.is_draw(1) { Ok(Wdl::Draw) } else { self.probe_wdl(board) };
            board.unmake_move();
            // The child's value is the opponent's: negate it.
            let (rank, score) = match wdl? {
                Wdl::Loss => (MAX_DTZ, TbScore::Win),
                Wdl::BlessedLoss if rule50 => (MAX_DTZ - 101, TbScore::Centipawns(2)),
                Wdl::BlessedLoss => (MAX_DTZ - 101, TbScore::Win),
                Wdl::Draw => (0, TbScore::Draw),
                Wdl::CursedWin if rule50 => (-MAX_DTZ + 101, TbScore::Centipawns(-2)),
                Wdl::CursedWin => (-MAX_DTZ + 101, TbScore::Loss),
                Wdl::Win => (-MAX_DTZ, TbScore::Loss),
            };
            out.push(RankedMove { mv, rank, score });
        }
        Ok(out)
    }
}
