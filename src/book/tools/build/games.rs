//! From games to counting events: one batch of PGN text parsed, filtered
//! and replayed ([`count_batch`]) into the events of its games, grouped
//! by bucket ([`Grouped`]), on a worker thread of the pass
//! ([`super::pipeline`]).
//!
//! Polyglot counting replays with the Polyglot key and counts only moves
//! and points (no rating, so its events are compact); YACB counting
//! replays with the engine key and counts a visit of each position
//! (rating and white's points) and its move.

use super::event::Grouped;
use super::event::{Counting, Event, HEAD};
use crate::board::notation::to_polyglot_move;
use crate::board::{Board, PolyglotBoard};
use crate::explorer::model::filter::Filters;
use crate::explorer::model::filter::{Admitted, GameTags, Rejection};
use crate::explorer::model::Outcome;
use crate::pgn::{for_each_game, Batch, GameSource, GameView, ReplayBoard, ReplayError};
use crate::types::{Color, Move};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The settings of a pass.
pub struct PassSpec<'a> {
    pub inputs: &'a [PathBuf],
    pub counting: Counting,
    pub max_ply: usize,
    pub filters: &'a Filters,
    pub threads: usize,
    pub batch_bytes: usize,
    pub tokens: usize,
}

/// What a batch gave.
pub struct BatchOut {
    /// The events of the batch's games, grouped by level-0 bucket
    /// ([`Grouped::fill`]), each bucket's in input order.
    pub grouped: Grouped,
    pub games: u64,
    pub kept: u64,
    pub rejected: [u64; Rejection::ALL.len()],
    pub skipped: Vec<ReplayError>,
    pub text_bytes: u64,
}

/// Parses, filters and replays one batch (each game seen in place, see
/// [`crate::pgn::view`]) into `buffers` (or new ones), the events packed
/// in the compact layout; `scratch` holds the events while they are
/// replayed and grouped.
pub fn count_batch(
    spec: &PassSpec<'_>,
    file: &Arc<Path>,
    batch: &Batch,
    scratch: &mut (Vec<Event>, Vec<Event>),
    buffers: Option<Grouped>,
) -> BatchOut {
    let (events, aux) = scratch;
    events.clear();
    // About one event a move: one per 6 bytes of movetext.
    events.reserve(batch.text.len() / 6);
    let mut out = BatchOut {
        grouped: buffers.unwrap_or_default(),
        games: 0,
        kept: 0,
        rejected: [0; Rejection::ALL.len()],
        skipped: Vec::new(),
        text_bytes: batch.text.len() as u64,
    };
    // One board replays every game of the batch, carrying the key the
    // events are counted by.
    match spec.counting {
        Counting::Polyglot => count_games(spec, file, batch, events, &mut out, PolyglotBoard::startpos()),
        Counting::Yacb => count_games(spec, file, batch, events, &mut out, Board::startpos()),
    }
    out.grouped.fill(events, aux, spec.counting.layout());
    out
}

/// The events of the games of `batch` onto `events`, the figures into
/// `out`, each game replayed on a board like `start`.
fn count_games<B: ReplayBoard>(
    spec: &PassSpec<'_>,
    file: &Arc<Path>,
    batch: &Batch,
    events: &mut Vec<Event>,
    out: &mut BatchOut,
    start: B,
) {
    let mut board = start.clone();
    for_each_game(&batch.text, |game| {
        out.games += 1;
        match spec.filters.admit(game) {
            Err(r) => out.rejected[r.index()] += 1,
            Ok(admitted) => {
                let before = events.len();
                let index = batch.first_index + game.number() - 1;
                let replay = Replay {
                    board: &mut board,
                    start: &start,
                    source: || GameSource { file: Some(file.clone()), index },
                };
                match game_events(spec, game, &admitted, replay, events) {
                    Ok(()) => out.kept += 1,
                    Err(e) => {
                        events.truncate(before);
                        out.skipped.push(e);
                    }
                }
            }
        }
    });
}

/// White's points (half points); a game without a result counts as a draw.
fn white_points(game: &impl GameTags) -> u8 {
    Outcome::of_game(game).map_or(1, Outcome::white_points)
}

/// Where a game is replayed: the worker's board, the start position, and
/// the game's name for errors.
struct Replay<'b, B, S> {
    board: &'b mut B,
    start: &'b B,
    source: S,
}

/// What every event of one game shares: the white player's points, whose
/// moves count, and the game's mean rating.
#[derive(Clone, Copy)]
pub struct GameFacts {
    pub white_points: u8,
    pub white_counts: bool,
    pub black_counts: bool,
    pub rating: u16,
}

impl GameFacts {
    pub fn of(white_points: u8, admitted: &Admitted) -> GameFacts {
        GameFacts {
            white_points,
            white_counts: admitted.white_counts,
            black_counts: admitted.black_counts,
            rating: admitted.rating.map_or(0, |r| r.min(Event::MAX_RATING as u32) as u16),
        }
    }
}

/// The events of the position on `board` and the move `m` played from it
/// (none: the end of the game, a YACB visit only), appended to `events`.
/// The board carries the key of its counting: Polyglot's or the engine's.
pub fn push_events<B: ReplayBoard>(
    counting: Counting,
    facts: GameFacts,
    board: &B,
    m: Option<Move>,
    events: &mut Vec<Event>,
) {
    let stm = board.side_to_move();
    if !(if stm == Color::White { facts.white_counts } else { facts.black_counts }) {
        return;
    }
    let mover_pts = if stm == Color::White { facts.white_points } else { 2 - facts.white_points };
    match counting {
        Counting::Polyglot => {
            // No rating: Polyglot counts only moves and points (and its
            // events are compact, see `Layout`).
            if let Some(m) = m {
                let mv = to_polyglot_move(m);
                events.push(Event::new(board.key(), mv, 0, mover_pts, stm == Color::White));
            }
        }
        Counting::Yacb => {
            let key = board.key();
            events.push(Event::new(key, HEAD, facts.rating, facts.white_points, true));
            if let Some(m) = m {
                events.push(Event::new(key, m.raw(), facts.rating, mover_pts, stm == Color::White));
            }
        }
    }
}

/// The events of one admitted game (appended to `events`).
fn game_events<B: ReplayBoard>(
    spec: &PassSpec<'_>,
    game: &GameView<'_>,
    admitted: &Admitted,
    replay: Replay<'_, B, impl FnOnce() -> GameSource>,
    events: &mut Vec<Event>,
) -> Result<(), ReplayError> {
    let facts = GameFacts::of(white_points(game), admitted);
    let Replay { board, start, source } = replay;
    game.replay_first(board, start, spec.max_ply, source, |board, m| {
        push_events(spec.counting, facts, board, Some(m), events)
    })?;
    if spec.counting == Counting::Yacb {
        push_events(spec.counting, facts, board, None, events);
    }
    Ok(())
}
