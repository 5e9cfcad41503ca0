//! One pass over the inputs: a reader thread cuts them into batches of
//! whole games ([`GameBatches`] over [`Input`]), `threads` workers parse,
//! filter and replay the batches into counting events, and the calling
//! thread gets each batch, its events with it, in input order (so what it
//! counts, and the order in which moves are first met, do not depend on
//! the number of threads). A fixed number of batch tokens bounds the
//! memory in flight; a batch's event buffers go back to the workers once
//! the counter is done with them (it holds batches until it spills them
//! to a run), so the pass allocates them only until the pipeline and the
//! held batches are full.

use super::filter::{result_of, Admitted, Filters, GameTags, Rejection};
use super::partition::Grouped;
use super::run::Layout;
use crate::board::notation::to_polyglot_move;
use crate::board::zobrist::KeyScheme;
use crate::board::Board;
use crate::input::Input;
use crate::pgn::{for_each_game, Batch, GameBatches, GameSource, GameView, ReplayError};
use crate::types::{Color, Move};
use crossbeam_channel::{bounded, Receiver, Sender};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the events count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// (Polyglot key, Polyglot move) pairs.
    Polyglot,
    /// Engine-key positions and their engine moves.
    Yacb,
}

impl Counting {
    /// How its events are held and spilled: Polyglot counting's have no
    /// rating and 15-bit moves, so they pack into 9 bytes.
    pub fn layout(self) -> Layout {
        match self {
            Counting::Polyglot => Layout::Compact,
            Counting::Yacb => Layout::Full,
        }
    }
}

/// One counted fact, 12 bytes: the position's key (in two halves, so that
/// events pack without padding), the move ([`super::count::HEAD`] for a
/// YACB visit) and `info`: the game's mean rating (13 bits, 0: unrated),
/// the points (2 bits: for the mover, for white in a visit) and whether
/// white moved (1 bit). Its place in the input is its place in the event
/// lists and runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Event {
    key_lo: u32,
    key_hi: u32,
    pub mv: u16,
    info: u16,
}

impl Event {
    /// Ratings are capped here (13 bits).
    pub const MAX_RATING: u16 = 0x1FFF;

    /// An event; `points` is 0, 1 or 2.
    #[inline]
    pub fn new(key: u64, mv: u16, rating: u16, points: u8, white: bool) -> Event {
        debug_assert!(points <= 2, "points {points}");
        let info = rating.min(Self::MAX_RATING) | (points as u16 & 3) << 13 | (white as u16) << 15;
        Event { key_lo: key as u32, key_hi: (key >> 32) as u32, mv, info }
    }

    #[inline]
    pub fn key(&self) -> u64 {
        (self.key_hi as u64) << 32 | self.key_lo as u64
    }

    #[inline]
    pub fn rating(&self) -> u16 {
        self.info & Self::MAX_RATING
    }

    #[inline]
    pub fn points(&self) -> u8 {
        (self.info >> 13 & 3) as u8
    }

    #[inline]
    pub fn white(&self) -> bool {
        self.info >> 15 != 0
    }

    /// The packed rating, points and mover (see the type's doc).
    #[inline]
    pub fn info(&self) -> u16 {
        self.info
    }

    /// An event from its key, move and packed `info`; `None` when the
    /// points are out of range.
    #[inline]
    pub fn from_parts(key: u64, mv: u16, info: u16) -> Option<Event> {
        let e = Event::unchecked(key, mv, info);
        (e.points() <= 2).then_some(e)
    }

    /// An event from its key, move and packed `info`, unchecked (for
    /// events this program packed itself).
    #[inline]
    pub fn unchecked(key: u64, mv: u16, info: u16) -> Event {
        Event { key_lo: key as u32, key_hi: (key >> 32) as u32, mv, info }
    }
}

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

/// What the counter gets, in input order.
pub enum Item {
    Batch(BatchOut),
    /// An input failed while being read (a damaged compressed stream).
    Damaged {
        input: String,
        error: String,
    },
}

enum Job {
    Batch { seq: u64, file: usize, batch: Batch },
    Damaged { seq: u64, input: String, error: String },
}

/// Counters the progress display reads.
#[derive(Default)]
pub struct Meter {
    /// Source bytes read (compressed bytes for compressed inputs).
    pub source_bytes: AtomicU64,
}

/// Runs one pass; `apply` gets every item in input order and may stop
/// the pass by failing. It may keep a batch's events, and gives back the
/// ones it is done with (for their buffers to be used again). Opening an
/// input that does not exist fails the pass.
pub fn run_pass<E: From<crate::input::InputError>>(
    spec: &PassSpec<'_>,
    meter: &Meter,
    mut apply: impl FnMut(Item) -> Result<Vec<Grouped>, E>,
) -> Result<(), E> {
    // Open every input first: a missing file fails before any work.
    let mut opened = Vec::with_capacity(spec.inputs.len());
    for p in spec.inputs {
        opened.push(Input::open(p)?);
    }
    let threads = spec.threads.max(1);
    let (job_tx, job_rx) = bounded::<Job>(spec.tokens);
    let (out_tx, out_rx) = bounded::<(u64, Item)>(spec.tokens);
    let (token_tx, token_rx) = bounded::<()>(spec.tokens);
    // Spilled batches' buffers, back to the workers (never more than the
    // batches alive: held, in flight and being counted).
    let (spare_tx, spare_rx) = crossbeam_channel::unbounded::<Grouped>();
    for _ in 0..spec.tokens {
        let _ = token_tx.send(());
    }
    std::thread::scope(|scope| {
        scope.spawn(move || read_inputs(opened, spec.batch_bytes, meter, &job_tx, &token_rx));
        for _ in 0..threads {
            let (rx, tx, spare) = (job_rx.clone(), out_tx.clone(), spare_rx.clone());
            scope.spawn(move || work(spec, &rx, &tx, &spare));
        }
        drop((job_rx, out_tx, spare_rx));
        count_in_order(out_rx, token_tx, &spare_tx, &mut apply)
    })
}

/// The reader thread: batches of every input in order, each after a token.
fn read_inputs(inputs: Vec<Input>, batch_bytes: usize, meter: &Meter, jobs: &Sender<Job>, tokens: &Receiver<()>) {
    let mut seq = 0u64;
    let mut done_bytes = 0u64;
    for (file, input) in inputs.into_iter().enumerate() {
        let name = input.name().to_string();
        let counter = input.source_counter();
        for item in GameBatches::new(input, batch_bytes) {
            if tokens.recv().is_err() {
                return;
            }
            meter.source_bytes.store(done_bytes + counter.load(Ordering::Relaxed), Ordering::Relaxed);
            let job = match item {
                Ok(batch) => Job::Batch { seq, file, batch },
                Err(e) => Job::Damaged { seq, input: name.clone(), error: e.to_string() },
            };
            seq += 1;
            if jobs.send(job).is_err() {
                return;
            }
        }
        done_bytes += counter.load(Ordering::Relaxed);
        meter.source_bytes.store(done_bytes, Ordering::Relaxed);
    }
}

fn work(spec: &PassSpec<'_>, jobs: &Receiver<Job>, out: &Sender<(u64, Item)>, spare: &Receiver<Grouped>) {
    let files: Vec<Arc<Path>> = spec.inputs.iter().map(|p| Arc::from(p.as_path())).collect();
    let mut scratch = (Vec::new(), Vec::new());
    for job in jobs.iter() {
        let (seq, item) = match job {
            Job::Damaged { seq, input, error } => (seq, Item::Damaged { input, error }),
            Job::Batch { seq, file, batch } => {
                let buffers = spare.try_recv().ok();
                (seq, Item::Batch(count_batch(spec, &files[file], &batch, &mut scratch, buffers)))
            }
        };
        if out.send((seq, item)).is_err() {
            return;
        }
    }
}

/// Applies items in sequence order, returning a token for each (and the
/// buffers `apply` is done with).
fn count_in_order<E>(
    results: Receiver<(u64, Item)>,
    tokens: Sender<()>,
    spare: &Sender<Grouped>,
    apply: &mut impl FnMut(Item) -> Result<Vec<Grouped>, E>,
) -> Result<(), E> {
    let mut waiting = BTreeMap::new();
    let mut next = 0u64;
    for (seq, item) in results.iter() {
        waiting.insert(seq, item);
        while let Some(item) = waiting.remove(&next) {
            for done in apply(item)? {
                let _ = spare.send(done);
            }
            next += 1;
            let _ = tokens.send(());
        }
    }
    Ok(())
}

/// Parses, filters and replays one batch (each game seen in place, see
/// [`crate::pgn::view`]) into `buffers` (or new ones), the events packed
/// in the compact layout; `scratch` holds the events while they are
/// replayed and grouped.
fn count_batch(
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
    let mut start = Board::startpos();
    if spec.counting == Counting::Polyglot {
        start.set_key_scheme(KeyScheme::Polyglot);
    }
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
    out.grouped.fill(events, aux, spec.counting.layout());
    out
}

fn white_points(game: &impl GameTags) -> u8 {
    match result_of(game) {
        Some("1-0") => 2,
        Some("0-1") => 0,
        _ => 1,
    }
}

/// Where a game is replayed: the worker's board, the start position, and
/// the game's name for errors.
struct Replay<'b, S> {
    board: &'b mut Board,
    start: &'b Board,
    source: S,
}

/// The events of one admitted game (appended to `events`).
fn game_events(
    spec: &PassSpec<'_>,
    game: &GameView<'_>,
    admitted: &Admitted,
    replay: Replay<'_, impl FnOnce() -> GameSource>,
    events: &mut Vec<Event>,
) -> Result<(), ReplayError> {
    let white_pts = white_points(game);
    let counts = |c: Color| if c == Color::White { admitted.white_counts } else { admitted.black_counts };
    let rating = admitted.rating.map_or(0, |r| r.min(Event::MAX_RATING as u32) as u16);
    // The board carries the key of its counting: Polyglot's or the engine's.
    let push = |board: &Board, m: Option<Move>, events: &mut Vec<Event>| {
        let stm = board.side_to_move();
        if !counts(stm) {
            return;
        }
        let mover_pts = if stm == Color::White { white_pts } else { 2 - white_pts };
        match spec.counting {
            Counting::Polyglot => {
                debug_assert_eq!(board.key(), crate::board::zobrist::polyglot_key(board), "{}", board.fen());
                // No rating: Polyglot counts only moves and points (and
                // its runs are compact, see `run::Layout`).
                if let Some(m) = m {
                    let mv = to_polyglot_move(m);
                    events.push(Event::new(board.key(), mv, 0, mover_pts, stm == Color::White));
                }
            }
            Counting::Yacb => {
                let key = board.key();
                events.push(Event::new(key, super::count::HEAD, rating, white_pts, true));
                if let Some(m) = m {
                    events.push(Event::new(key, m.raw(), rating, mover_pts, stm == Color::White));
                }
            }
        }
    };
    let Replay { board, start, source } = replay;
    game.replay_first(board, start, spec.max_ply, source, |board, m| push(board, Some(m), events))?;
    if spec.counting == Counting::Yacb {
        push(board, None, events);
    }
    Ok(())
}
