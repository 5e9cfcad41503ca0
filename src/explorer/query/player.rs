//! `/player`'s answer: the games of one player with one colour through a
//! position, counted move by move, from the Lichess indexes.
//!
//! * the games: every game of every shard where the player (case ignored)
//!   had the colour ([`Shards::games_of`]), that the [`Filter`] and the
//!   modes admit, replayed (to the index's last stored ply) until they
//!   reach the position ([`Board::key_legal_ep`]);
//! * per move: white, draws, black; the mean of the opponents' known
//!   ratings (`averageOpponentRating`, rounded) and the player's
//!   [`performance`] against it, both left out when no opponent's rating
//!   is known; a move played in exactly one game names it (`game`); moves
//!   by games, then UCI (castling king takes rook), the first `moves`;
//! * recent games: the newest, by month, then place in the indexes, the
//!   first `recent_games`;
//! * the answer is an [`ExplorerAnswer`] with `recentGames` and
//!   `queuePosition` (always 0: nothing is queued here); its `opening` is
//!   the caller's.

use super::{game_answer, mean_rating, ExplorerAnswer, Filter, Kind, MoveAnswer, Shards};
use crate::board::notation::uci_string;
use crate::board::Board;
use crate::explorer::index::{ExplorerError, Stats};
use crate::explorer::model::Mode;
use crate::types::{Color, Move};

/// What `/player` asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerQuery {
    /// The player's name (case ignored).
    pub name: String,
    pub color: Color,
    pub filter: Filter,
    /// `None`: rated and casual games alike.
    pub modes: Option<Vec<Mode>>,
    /// How many moves the answer lists.
    pub moves: usize,
    /// How many recent games the answer lists.
    pub recent_games: usize,
}

/// FIDE's table of rating differences `dp` by percentage score 0..=50
/// (the rest by symmetry).
const DP: [i32; 51] = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296, -284, -273, -262,
    -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141, -133, -125, -117, -110, -102, -95,
    -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7, 0,
];

fn dp(i: usize) -> f64 {
    f64::from(if i <= 50 { DP[i] } else { -DP[(100 - i.min(100)).min(50)] })
}

/// Performance: the mean opponent rating plus FIDE's `dp` of the score
/// (interpolated between whole percentages).
pub fn performance(average_opponent: f64, points: f64, games: u64) -> i64 {
    if games == 0 {
        return 0;
    }
    let p = (100.0 * points / games as f64).clamp(0.0, 100.0);
    let i = p.floor() as usize;
    let f = p - i as f64;
    let next = if i >= 100 { 800.0 } else { dp(i + 1) };
    (average_opponent + dp(i) * (1.0 - f) + next * f).round() as i64
}

/// Per move: its counts (with the opponents' rating sum) and the games
/// (indexes into the player's games) that played it.
type ByMove = Vec<(Move, Stats, Vec<usize>)>;

impl Shards {
    /// The player answer for `board` (see the module doc); its `opening`
    /// is left `None` for the caller.
    pub fn player_answer(&self, board: &Board, q: &PlayerQuery) -> Result<ExplorerAnswer, ExplorerError> {
        let games = self.games_of(&q.name, q.color)?;
        let max_ply = self.shards.first().map_or(50, |sh| sh.index.max_ply());
        let key = board.key_legal_ep();
        // Per move: counts, the opponents' rating sum, and (game, move) for the lists.
        let mut by_move: ByMove = Vec::new();
        let mut listed: Vec<(usize, Move)> = Vec::new();
        for (gi, g) in games.iter().enumerate() {
            if !q.filter.admits(g.cell()) || q.modes.as_ref().is_some_and(|m| !m.contains(&Mode::of_event(&g.event))) {
                continue;
            }
            let mut found = None;
            let _ = g.replay(usize::from(max_ply), |b, m| {
                if b.key_legal_ep() == key {
                    found = Some(m);
                }
            });
            let Some(m) = found else { continue };
            let stats = Stats::of_game(g.outcome, g.rating(!q.color));
            match by_move.iter_mut().find(|e| e.0 == m) {
                Some(e) => {
                    e.1.add(&stats);
                    e.2.push(gi);
                }
                None => by_move.push((m, stats, vec![gi])),
            }
            listed.push((gi, m));
        }
        let mut totals = Stats::default();
        by_move.iter().for_each(|e| totals.add(&e.1));
        let uci = |m: Move| uci_string(m, true);
        by_move.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then_with(|| uci(a.0).cmp(&uci(b.0))));
        by_move.truncate(q.moves);
        let moves = by_move
            .iter()
            .map(|(m, st, list)| {
                let avg = mean_rating(st);
                let wins = if q.color == Color::White { st.white } else { st.black };
                let points = wins as f64 + 0.5 * st.draws as f64;
                let game = (list.len() == 1).then(|| game_answer(&games[list[0]], None, Kind::Lichess));
                MoveAnswer {
                    average_opponent_rating: avg.map(|a| a.round() as u64),
                    performance: avg.map(|a| performance(a, points, st.games())),
                    ..MoveAnswer::new(board, *m, st, game)
                }
            })
            .collect();
        // The newest: later month, then later in the indexes.
        listed.sort_by_key(|&(gi, _)| std::cmp::Reverse((games[gi].cell().month(), gi)));
        let recent_games = listed
            .iter()
            .take(q.recent_games)
            .map(|&(gi, m)| game_answer(&games[gi], Some(uci(m)), Kind::Lichess))
            .collect();
        Ok(ExplorerAnswer {
            white: totals.white,
            draws: totals.draws,
            black: totals.black,
            moves,
            recent_games: Some(recent_games),
            top_games: None,
            opening: None,
            history: None,
            queue_position: Some(0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::performance;

    #[test]
    fn performance_follows_fides_table() {
        assert_eq!(performance(2000.0, 0.0, 0), 0);
        assert_eq!(performance(2000.0, 5.0, 10), 2000);
        assert_eq!(performance(2000.0, 10.0, 10), 2800);
        assert_eq!(performance(2000.0, 0.0, 10), 1200);
        // 75%: +193 (the mirror of 25%'s -193).
        assert_eq!(performance(2000.0, 7.5, 10), 2193);
    }
}
