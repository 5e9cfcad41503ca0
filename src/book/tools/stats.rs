//! Statistical YACB entries from PGN games: the whole-file reference (tests
//! only) that `book build --format yacb` ([`super::build`]) is checked against.
//!
//! Every position a game passes through within its first `max_ply` moves
//! (the start position, and the position after each counted move) counts
//! once per visit, with the game's result for white: 2 points for 1-0, 1 for
//! a draw or an unknown result, 0 for 0-1 (as [`super::make_book`] counts).
//! A position seen at least `min_game` times becomes one entry:
//!
//! * value: perf% for white, `round(points / (2·n) · 40000)`, bound exact,
//!   source statistical, keyed by the engine key (key_type 0);
//! * best move: the move played most often from it (ties: the move that
//!   scored best for its mover, then the one met first); none when no
//!   counted move left the position;
//! * elo: one value for the whole book, given by the caller (the strength of
//!   the players is not in the games; `book build` defaults to
//!   [`crate::book::format::UNKNOWN_ELO`]).
//!
//! Games with an illegal move or a bad FEN are skipped whole and reported.

use super::make_book::white_result;
use crate::book::format::yacb::{BoundType, Elo, Source, ValueType, YacbEntry};
use crate::pgn::{Game, ReplayError};
use crate::types::{Color, Move};
use std::collections::HashMap;

/// Options of the statistical builder.
#[derive(Clone, Debug, PartialEq)]
pub struct StatsOptions {
    pub max_ply: usize,
    pub min_game: u32,
    pub elo: Elo,
}

#[derive(Default)]
struct PositionStats {
    n: u32,
    points: u32,
    first_seen: usize,
    /// (move, times played, points for the mover), in the order first met.
    moves: Vec<(Move, u32, u32)>,
}

/// A visited position's key and the move played from it (with its mover).
type Visit = (u64, Option<(Move, Color)>);

/// Each position of `game` within `max_ply` moves, the last one without a
/// move.
fn visits(game: &Game, max_ply: usize) -> Result<Vec<Visit>, ReplayError> {
    let mut out = Vec::with_capacity(game.moves.len().min(max_ply) + 1);
    let last = game.replay_first(max_ply, |board, m| out.push((board.key(), Some((m, board.side_to_move())))))?;
    out.push((last.key(), None));
    Ok(out)
}

/// The entries (sorted by key) built from `games`, and the games skipped.
pub fn statistical_entries(games: &[Game], options: &StatsOptions) -> (Vec<YacbEntry>, Vec<ReplayError>) {
    let mut table: HashMap<u64, PositionStats> = HashMap::new();
    let mut warnings = Vec::new();
    let mut order = 0usize;
    for game in games {
        let seen = match visits(game, options.max_ply) {
            Ok(v) => v,
            Err(w) => {
                warnings.push(w);
                continue;
            }
        };
        let points = (white_result(game) + 1) as u32;
        for (key, played) in seen {
            let s = table.entry(key).or_insert_with(|| {
                order += 1;
                PositionStats { first_seen: order, ..PositionStats::default() }
            });
            s.n += 1;
            s.points += points;
            if let Some((m, mover)) = played {
                let mover_points = if mover == Color::White { points } else { 2 - points };
                match s.moves.iter_mut().find(|(mv, _, _)| *mv == m) {
                    Some(slot) => {
                        slot.1 += 1;
                        slot.2 += mover_points;
                    }
                    None => s.moves.push((m, 1, mover_points)),
                }
            }
        }
    }
    let mut entries: Vec<(usize, YacbEntry)> = table
        .into_iter()
        .filter(|(_, s)| s.n >= options.min_game.max(1))
        .map(|(key, s)| {
            // Most played; then best scoring (points per game, compared
            // exactly by cross-multiplying); then first met (max_by keeps the last maximum,
            // so iterate in reverse).
            let best = s
                .moves
                .iter()
                .rev()
                .max_by(|a, b| a.1.cmp(&b.1).then((a.2 as u64 * b.1 as u64).cmp(&(b.2 as u64 * a.1 as u64))))
                .map_or(Move::NONE, |&(m, _, _)| m);
            let perf = (s.points as f64 / (2.0 * s.n as f64) * 40_000.0).round() as i32;
            let entry = YacbEntry {
                key,
                elo: options.elo,
                value_type: ValueType::Perf,
                bound: BoundType::Exact,
                source: Source::Statistical,
                value: perf,
                best_move: best,
            };
            (s.first_seen, entry)
        })
        .collect();
    entries.sort_by_key(|(_, e)| e.key);
    (entries.into_iter().map(|(_, e)| e).collect(), warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::pgn;

    fn build(text: &str, min_game: u32) -> (Vec<YacbEntry>, Vec<ReplayError>) {
        let options = StatsOptions { max_ply: 1024, min_game, elo: Elo::rated(-500) };
        statistical_entries(&pgn::parse(text), &options)
    }

    fn entry_of(entries: &[YacbEntry], board: &Board) -> YacbEntry {
        *entries.iter().find(|e| e.key == board.key()).expect("position in the book")
    }

    #[test]
    fn perf_is_whites_score_over_the_games_through_the_position() {
        let text = "[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"1/2-1/2\"]\n1. e4 c5 1/2-1/2\n\n[Result \"0-1\"]\n1. d4 d5 0-1\n\n[Result \"*\"]\n1. e4 e5 *\n";
        let (entries, warnings) = build(text, 1);
        assert!(warnings.is_empty());
        let mut board = Board::startpos();
        let start = entry_of(&entries, &board);
        // 2 + 1 + 0 + 1 points over 4 games = 50%.
        assert_eq!(start.value, 20_000);
        assert_eq!(
            (start.value_type, start.bound, start.source),
            (ValueType::Perf, BoundType::Exact, Source::Statistical)
        );
        assert_eq!(start.elo, Elo::rated(-500));
        assert_eq!(board.move_to_uci(start.best_move), "e2e4", "played three times");
        board.make_move(board.parse_san("e4").unwrap());
        let after_e4 = entry_of(&entries, &board);
        assert_eq!(after_e4.value, 26_667, "1-0, ½ and *: 4 of 6 points");
        assert_eq!(board.move_to_uci(after_e4.best_move), "e7e5");
        board.make_move(board.parse_san("e5").unwrap());
        assert_eq!(entry_of(&entries, &board).best_move, Move::NONE, "no counted move left it");
        assert!(entries.windows(2).all(|w| w[0].key < w[1].key));
    }

    #[test]
    fn ties_in_count_go_to_the_better_scoring_move() {
        let text = "[Result \"0-1\"]\n1. e4 0-1\n\n[Result \"1-0\"]\n1. d4 1-0\n";
        let (entries, _) = build(text, 1);
        let board = Board::startpos();
        assert_eq!(board.move_to_uci(entry_of(&entries, &board).best_move), "d2d4");
    }

    #[test]
    fn min_game_drops_rare_positions_and_bad_games_are_reported() {
        let text = "[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"1-0\"]\n1. e4 c5 1-0\n\n[Result \"1-0\"]\n1. e4 e5 2. Ke3 1-0\n";
        let (entries, warnings) = build(text, 2);
        assert_eq!(entries.len(), 2, "start and 1.e4 were seen twice");
        assert!(matches!(&warnings[0], ReplayError::IllegalMove { game, ply: 3, .. } if game.index == 3));
    }
}
