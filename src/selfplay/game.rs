//! One self-play game: opening, a search per move, recording, adjudication.
//!
//! A [`Player`] owns a [`Searcher`]: a transposition table and one search worker; both
//! are cleared before every game, so a game depends only on the settings,
//! the seed and the game index (the search with a node or depth limit is
//! deterministic), never on the thread that plays it.

use super::adjudication::{rules_ending, Ending, ScoreTracker};
use super::openings::{game_rng, random_plies, Rng};
use super::{Hooks, Settings};
use crate::board::Board;
use crate::records::{score_to_u16, GameRecorder, GameResult, RecordError};
use crate::search::Outcome;
use crate::search::{Limits, SearchConfig, Searcher, Shared, TB_WIN_IN_MAX_PLY};
use crate::types::{Color, Move};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How many openings are tried for one game before giving up on it.
const OPENING_ATTEMPTS: u32 = 1000;

/// The side to move's expected score of a search value: 1 / (1 + e^(−cp/400)),
/// mates and tablebase wins exactly 1 or 0.
pub fn expected_score(value: i32) -> f64 {
    if value >= TB_WIN_IN_MAX_PLY {
        1.0
    } else if value <= -TB_WIN_IN_MAX_PLY {
        0.0
    } else {
        crate::types::expected_score(value as f64)
    }
}

/// The search of the current move, reachable from the writer thread so an
/// interrupt also stops a long search. Once stopped, every later search
/// of the slot stops at once too.
#[derive(Default)]
pub struct StopSlot {
    current: Mutex<Option<Arc<Shared>>>,
    stopped: AtomicBool,
}

impl StopSlot {
    pub fn stop(&self) {
        let current = self.current.lock();
        self.stopped.store(true, Relaxed);
        if let Some(s) = current.as_ref() {
            s.stop.store(true, Relaxed);
        }
    }

    fn register(&self, shared: &Arc<Shared>) {
        let mut current = self.current.lock();
        if self.stopped.load(Relaxed) {
            shared.stop.store(true, Relaxed);
        }
        *current = Some(Arc::clone(shared));
    }
}

/// A finished game ready for the writer.
#[derive(Clone, Debug)]
pub struct FinishedGame {
    pub index: u64,
    pub bytes: Vec<u8>,
    pub result: GameResult,
    pub ending: Ending,
    pub plies: u32,
}

/// Searches for one game thread, with its time accounting.
pub struct Player {
    searcher: Searcher,
    config: SearchConfig,
    limits: Limits,
    slot: Arc<StopSlot>,
    /// Wall time spent inside the search.
    pub search_time: Duration,
}

impl Player {
    pub fn new(hash_mb: usize, limits: Limits, slot: Arc<StopSlot>) -> Player {
        Player {
            searcher: Searcher::new(hash_mb, 1),
            config: SearchConfig::default(),
            limits,
            slot,
            search_time: Duration::ZERO,
        }
    }

    /// Evaluate with `net` (`None`: the hand-written evaluation).
    pub fn set_network(&mut self, net: Option<Arc<crate::nnue::Network>>) {
        self.config.net = net;
    }

    /// Forgets everything learned (TT, history): the next game starts fresh.
    pub fn new_game(&mut self) {
        self.searcher.clear();
    }

    /// Searches `board` with the player's limits.
    pub fn search(&mut self, board: &Board) -> Outcome {
        let shared = Arc::new(self.searcher.control(false));
        self.slot.register(&shared);
        let start = Instant::now();
        let out = self.searcher.search(board, &self.limits, &self.config, &shared, None);
        self.search_time += start.elapsed();
        *self.slot.current.lock() = None;
        out
    }
}

/// The nodes under each root move: the last completed iteration's when
/// one completed, else the interrupted iteration's.
pub fn root_nodes(out: &Outcome) -> Vec<(Move, u64)> {
    let completed = out.root_moves.iter().any(|r| r.completed_nodes > 0);
    out.root_moves.iter().map(|r| (r.mv, if completed { r.completed_nodes } else { r.nodes })).collect()
}

/// A start position (opening source or start position, Chess960 when
/// asked, then random plies) whose first search stays within the opening
/// limit, with that search; `None` when the stop flag was raised or no
/// opening qualified.
pub fn balanced_opening(
    player: &mut Player,
    settings: &Settings,
    hooks: &Hooks,
    rng: &mut Rng,
    stop: &AtomicBool,
) -> Option<(Board, Outcome)> {
    for _ in 0..OPENING_ATTEMPTS {
        if stop.load(Relaxed) {
            return None;
        }
        let base = match &hooks.openings {
            Some(src) => src.opening(rng),
            None if settings.chess960 => Some(super::openings::chess960_position(rng.below(960) as u32)),
            None => Some(Board::startpos()),
        };
        let Some(board) = base.and_then(|b| random_plies(b, settings.random_plies, rng)) else { continue };
        if board.halfmove_clock() > 255 || rules_ending(&board).is_some() {
            continue;
        }
        let out = player.search(&board);
        if stop.load(Relaxed) {
            return None;
        }
        if out.best.is_none() || out.score.abs() > settings.opening_cp_limit {
            continue;
        }
        return Some((board, out));
    }
    None
}

/// Plays game `index` to the end. `Ok(None)` when stopped or when no
/// balanced opening was found; the game is then dropped.
pub fn play(
    player: &mut Player,
    settings: &Settings,
    hooks: &Hooks,
    index: u64,
    stop: &AtomicBool,
) -> Result<Option<FinishedGame>, RecordError> {
    player.new_game();
    let mut rng = game_rng(settings.seed, index);
    let Some((start, first)) = balanced_opening(player, settings, hooks, &mut rng, stop) else {
        return Ok(None);
    };
    let mut rec = GameRecorder::new(&start)?;
    let mut tracker = ScoreTracker::default();
    let mut pending = Some(first);
    let (result, ending) = loop {
        let board = rec.board();
        if let Some(end) = rules_ending(board) {
            break end;
        }
        if let Some(r) = hooks.adjudicator.as_ref().and_then(|a| a.adjudicate(board)) {
            break (r, Ending::Tablebase);
        }
        if rec.plies() as u32 >= settings.max_plies {
            break (GameResult::Draw, Ending::MaxLength);
        }
        let out = match pending.take() {
            Some(out) => out,
            None => player.search(board),
        };
        if stop.load(Relaxed) {
            return Ok(None);
        }
        if out.best.is_none() {
            return Err(RecordError::Unencodable { reason: format!("no move from the search in {}", board.fen()) });
        }
        let side = board.side_to_move();
        let ply = board.game_ply();
        let score = score_to_u16(expected_score(out.score));
        if settings.value_only {
            rec.push_visits(out.best, score, &[])?;
        } else {
            rec.push(out.best, score, &root_nodes(&out))?;
        }
        let white = if side == Color::White { out.score } else { -out.score };
        if let Some(end) = tracker.update(&settings.score_rules, white, ply) {
            break end;
        }
    };
    let plies = rec.plies() as u32;
    if plies == 0 {
        // Decided before the first move (a tablebase position): no data.
        return Ok(None);
    }
    Ok(Some(FinishedGame { index, bytes: rec.finish(result), result, ending, plies }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_score_is_logistic_and_certain_for_mates() {
        assert_eq!(expected_score(0), 0.5);
        assert!((expected_score(400) - 1.0 / (1.0 + (-1.0f64).exp())).abs() < 1e-12);
        assert!((expected_score(-400) + expected_score(400) - 1.0).abs() < 1e-12);
        assert_eq!(expected_score(crate::search::MATE - 5), 1.0);
        assert_eq!(expected_score(-crate::search::MATE + 8), 0.0);
        assert_eq!(score_to_u16(expected_score(0)), 32768);
    }
}
