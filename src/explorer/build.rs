//! `explorer build` and `explorer merge`: an explorer index
//! ([`crate::explorer::index`]) from PGN databases, on the
//! streaming pipeline of `book build` ([`crate::pgn::pipeline`]), or from the games of other indexes.
//!
//! The pass over the games: a reader thread cuts the inputs into batches of
//! whole games, `threads` workers parse, filter and replay them
//! ([`game_of`]), and this thread takes the games in input order: a game
//! whose id is already indexed is skipped (so the first of two copies
//! counts), the others are numbered, written to the index's game store and
//! their positions held by bucket of key through [`crate::spill`] (spilled
//! to disk at the `--memory` budget). Then each bucket is read back and
//! each position counted ([`entry_of`]): reached in one game, it is a
//! single (its game and ply); in more, its moves' counts by cell and its
//! cells' top and recent games.
//!
//! Rules (Lichess's explorer, and the for data as it comes):
//! * Games whose result is not 1-0, 0-1 or ½-½, variant games and games
//!   from a set-up position (a `FEN` tag) are skipped and counted; so are
//!   games with an illegal move; the book build's filters apply as well.
//! * Lichess's importer's refusals ([`Refusal`], unless `all_games`): a
//!   `BOT` title, a missing or unreadable `WhiteElo` or `BlackElo`, no
//!   month (`UTCDate`, else `Date`; a year is enough for masters); for a
//!   masters index, a floored mean rating under 2200 and a date after
//!   tomorrow (UTC). Each skipped game counts under the first reason in
//!   the order result, variant or set-up, these, the filters, an illegal
//!   move, an id already indexed.
//! * A position (Lichess's identity: [`crate::board::Board::key_legal_ep`]) counts once per
//!   game, with the last move played from it when the game repeats it, for
//!   the first `max_ply` plies (50).
//! * With `all_games`, a missing rating takes the other player's; both
//!   missing: rating group 0, and nothing added to the rating sums; a
//!   missing or unreadable date is month 0 (`0000-00`).
//! * A game's id is the 8 letters and digits ending `Site` when they are
//!   there (Lichess's game id), else 8 base-62 digits of a 64-bit FNV-1a
//!   hash of its tags and moves.
//! * The games a cell keeps (a Lichess index): its [`RECENT_GAMES`] newest
//!   (later game numbers): every top and recent game a query lists comes
//!   from them ([`crate::explorer::query`] says why). A masters index keeps,
//!   for each year, the [`MASTERS_GAMES`] games of the position with the
//!   highest `WhiteElo + BlackElo`, then the highest id
//!   ([`GameId::value`]), each in its cell's list with
//!   that rank: Lichess's masters database keeps just those.
//!
//! Memory (`--memory`, [`Budget`]) does not grow with the games: a visit
//! carries what the counting needs of its game ([`Visit`]), the game ids
//! are held up to their share, then spilled
//! ([`ExplorerWriter::has_game`]), and a position of more visits than a
//! bucket may hold (the start position) is counted as they are read
//! ([`count`]). While the games stream, the held visits take a quarter of
//! the budget, the batches in flight an eighth and the ids a quarter (the
//! more their Bloom filter holds, the fewer new ids are looked up on
//! disk); while the positions are counted (the ids' memory given back,
//! and the held visits written out once some were), the buckets in
//! flight take a quarter and the buckets being split about as much. What
//! grows is on disk, and the writer's strings (each distinct name once:
//! with the players, not the games).
//!
//! The index is a function of the sequence of games alone (not of the
//! threads or the memory budget), so [`merge`], which replays the stored
//! games of its inputs in order through the same counting, writes the
//! index built from their concatenated inputs, byte for byte.

use crate::board::Board;
use crate::codec::{fnv1a64, PathIoError};
use crate::explorer::index::{Cell, Explorer, ExplorerError, ExplorerWriter, GameRecord, PackedMoves};
use crate::explorer::model::filter::{is_standard, rating, Filters, Rejection};
use crate::explorer::model::{mean_rating, GameDate, GameId, Outcome, Speed};
use crate::input::Input;
use crate::input::InputError;
use crate::pgn::pipeline::{read_inputs, Job, Meter, Observer, Progress};
use crate::pgn::{for_each_game, GameSource, GameView, ReplayError};
use crate::spill::SpillError;
use crate::spill::{bucket_of, Bucket, Buckets, Encoding, Grouped};
use crate::types::Color;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::Instant;
use thiserror::Error;

/// What `explorer build` is told.
#[derive(Clone, Debug)]
pub struct ExplorerOptions {
    pub max_ply: u8,
    /// A masters index (Lichess's masters database): its refusals, and the
    /// best games of each year kept instead of each cell's newest.
    pub masters: bool,
    /// Keep the games Lichess's importer refuses ([`Refusal`]).
    pub all_games: bool,
    pub filters: Filters,
    pub threads: usize,
    pub memory_mb: usize,
    pub temp_dir: Option<PathBuf>,
    /// Write the index even when an input was damaged.
    pub allow_damaged: bool,
}

impl Default for ExplorerOptions {
    fn default() -> ExplorerOptions {
        ExplorerOptions {
            max_ply: crate::explorer::index::DEFAULT_MAX_PLY,
            masters: false,
            all_games: false,
            filters: Filters::default(),
            threads: 1,
            memory_mb: 1024,
            temp_dir: None,
            allow_damaged: false,
        }
    }
}

/// The newest games kept per cell of a Lichess index (lila's
/// `MAX_LICHESS_GAMES`).
pub const RECENT_GAMES: usize = 8;
/// The best games kept per position and year of a masters index (lila's
/// `MAX_MASTERS_GAMES`).
pub const MASTERS_GAMES: usize = 15;

/// Why Lichess's importer refuses a game (none with `all_games`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `WhiteTitle` or `BlackTitle` is `BOT`.
    Bot,
    /// `WhiteElo` or `BlackElo` is missing or unreadable.
    Ratings,
    /// No month (masters: no year) in `UTCDate` or `Date`.
    Month,
    /// Masters: the floored mean rating is under 2200.
    Under2200,
    /// Masters: dated after tomorrow (UTC).
    Future,
}

impl Refusal {
    pub const ALL: [Refusal; 5] = [Refusal::Bot, Refusal::Ratings, Refusal::Month, Refusal::Under2200, Refusal::Future];

    /// How the summary names it.
    pub const fn name(self) -> &'static str {
        match self {
            Refusal::Bot => "BOT",
            Refusal::Ratings => "without both ratings",
            Refusal::Month => "without a month",
            Refusal::Under2200 => "under 2200",
            Refusal::Future => "dated after tomorrow",
        }
    }
}

/// What a build refuses: Lichess's importer's rules, or nothing.
#[derive(Clone, Copy, Debug)]
struct Rules {
    masters: bool,
    all_games: bool,
    /// Masters: tomorrow (UTC).
    tomorrow: GameDate,
}

/// Figures of a build or a merge.
#[derive(Clone, Debug, Default)]
pub struct ExplorerSummary {
    /// Games read, and games indexed.
    pub games: u64,
    pub indexed: u64,
    /// Skipped: already indexed (same id), not 1-0/0-1/½-½, variant or
    /// set-up position, illegal move, and by the build's filters.
    pub duplicates: u64,
    pub bad_result: u64,
    pub variants: u64,
    pub illegal: u64,
    pub rejected: [u64; Rejection::ALL.len()],
    /// Refused by Lichess's importer's rules, by [`Refusal`].
    pub refused: [u64; Refusal::ALL.len()],
    pub damaged: Vec<(String, String)>,
    pub text_bytes: u64,
    pub source_bytes: u64,
    /// Position visits held, spill files written, positions of two games
    /// or more, singles.
    pub events: u64,
    pub runs: usize,
    pub positions: u64,
    pub singles: u64,
    pub index_bytes: u64,
    /// Of `seconds`: the pass over the games (reading, replaying,
    /// holding the visits), then counting the positions; the rest is
    /// writing the index out.
    pub read_seconds: f64,
    pub count_seconds: f64,
    pub seconds: f64,
}

/// Why a build or a merge failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ExplorerBuildError {
    #[error(transparent)]
    Input(#[from] InputError),
    #[error(transparent)]
    Spill(#[from] SpillError),
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error("{}", crate::pgn::pipeline::damaged_message(.damaged, "index"))]
    Damaged { damaged: Vec<(String, String)> },
    #[error("{path}: {source}")]
    Index { path: PathBuf, source: ExplorerError },
    #[error("{}: max ply {found}, the others' {expected}: shards merge only when built alike", .path.display())]
    Mismatch { path: PathBuf, found: u8, expected: u8 },
}

/// A position visit: the position's key, the game (its number in the
/// index), the ply at which the game reached it and the move played from
/// it, with what the counting needs of the game ([`Facts`]): so nothing of
/// a game stays in memory once its visits are held, and they are spilled
/// with them. 24 bytes in a spill file (32 in a masters index's): key,
/// game (u32), ply (u8), move (u16), cell (24 bits), outcome (u8), the
/// mover's rating (u16), 3 zero bytes; masters: the game's rank (u64).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Visit {
    pub key: u64,
    pub game: u32,
    pub ply: u8,
    pub mv: u16,
    pub cell: Cell,
    pub outcome: Outcome,
    /// The mover's rating, a missing one taken from the other player (0:
    /// neither known).
    pub rating: u16,
    /// Masters: the game's rank ([`GameRecord::masters_rank`]); else 0.
    pub rank: u64,
}

impl Default for Visit {
    fn default() -> Visit {
        Visit { key: 0, game: 0, ply: 0, mv: 0, cell: Cell(0), outcome: Outcome::White, rating: 0, rank: 0 }
    }
}

/// How visits are held and spilled: a masters index's keep their game's
/// rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Visits {
    masters: bool,
}

impl Encoding for Visits {
    type Item = Visit;

    fn item_len(self) -> usize {
        if self.masters {
            32
        } else {
            24
        }
    }

    #[inline]
    fn key(item: &Visit) -> u64 {
        item.key
    }

    #[inline]
    fn encode(self, v: &Visit, _level: u8, out: &mut [u8]) {
        out[..8].copy_from_slice(&v.key.to_le_bytes());
        out[8..12].copy_from_slice(&v.game.to_le_bytes());
        out[12] = v.ply;
        out[13..15].copy_from_slice(&v.mv.to_le_bytes());
        out[15..18].copy_from_slice(&v.cell.0.to_le_bytes()[..3]);
        out[18] = v.outcome as u8;
        out[19..21].copy_from_slice(&v.rating.to_le_bytes());
        out[21..24].fill(0);
        if self.masters {
            out[24..32].copy_from_slice(&v.rank.to_le_bytes());
        }
    }

    fn decode(self, bytes: &[u8], bucket: usize, level: u8, out: &mut Vec<Visit>) -> Result<(), usize> {
        let len = self.item_len();
        out.reserve(bytes.len() / len);
        for (i, b) in bytes.chunks_exact(len).enumerate() {
            let (low, high) = (le_u64_at(b, 8), le_u64_at(b, 16));
            let outcome = Outcome::from_u8(b[18]);
            let v = Visit {
                key: le_u64_at(b, 0),
                game: low as u32,
                ply: b[12],
                mv: (low >> 40) as u16,
                cell: Cell((low >> 56 | high << 8) as u32 & 0xff_ffff),
                outcome: outcome.unwrap_or_default(),
                rating: (high >> 24) as u16,
                rank: if self.masters { le_u64_at(b, 24) } else { 0 },
            };
            if bucket_of(v.key, level) != bucket || outcome.is_none() || b[21..24] != [0; 3] {
                return Err(i);
            }
            out.push(v);
        }
        Ok(())
    }

    /// Held encoded: 24 bytes a Lichess visit rather than 32.
    fn holds_encoded(self) -> bool {
        true
    }
}

/// The little-endian word at `at` of `b` (one load).
#[inline(always)]
fn le_u64_at(b: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(word)
}

/// What the counting needs of a game, given to each of its visits.
#[derive(Clone, Copy, Debug)]
struct Facts {
    cell: Cell,
    outcome: Outcome,
    /// Ratings with a missing one taken from the other player (0: neither known).
    white: u16,
    black: u16,
    /// Masters: the game's rank ([`GameRecord::masters_rank`]); else 0.
    rank: u64,
}

impl Facts {
    fn of(g: &GameRecord, masters: bool) -> Facts {
        let (w, b) = (g.white_rating, g.black_rating);
        let (white, black) = (if w == 0 { b } else { w }, if b == 0 { w } else { b });
        let rank = if masters { g.masters_rank() } else { 0 };
        Facts { cell: g.cell_of(masters), outcome: g.outcome, white, black, rank }
    }

    /// The visit of the game's position `key` at `ply`, left by `mv`.
    fn visit(&self, game: u32, (key, ply, mv): (u64, u8, u16)) -> Visit {
        let rating = if mover_of(ply) == Color::White { self.white } else { self.black };
        Visit { key, game, ply, mv, cell: self.cell, outcome: self.outcome, rating, rank: self.rank }
    }
}

/// A game of a batch, replayed: its record, its moves packed and its
/// position visits (game numbers not yet given). The batches' games go
/// back to the workers to be filled again: no game's strings or lists are
/// made or freed in the pass once they have room.
#[derive(Default)]
struct Replayed {
    record: GameRecord,
    packed: PackedMoves,
    visits: Vec<(u64, u8, u16)>,
}

/// What a worker makes of a batch.
enum Item {
    Games { games: Vec<Replayed>, batch: Batch, text_bytes: u64 },
    Damaged { input: String, error: String },
}

#[derive(Default, Clone, Copy)]
struct Counts {
    games: u64,
    bad_result: u64,
    variants: u64,
    rejected: [u64; Rejection::ALL.len()],
    refused: [u64; Refusal::ALL.len()],
}

/// The id of a game: Lichess's (the 8 letters and digits ending `Site`),
/// else 8 base-62 digits of a hash of its tags and moves.
pub fn game_id(view: &GameView) -> GameId {
    if let Some(id) = view.tag("Site").and_then(GameId::of_site) {
        return id;
    }
    let mut text = String::new();
    for (k, v) in view.tags() {
        text.push_str(k);
        text.push('\u{1}');
        text.push_str(v);
        text.push('\u{2}');
    }
    for m in view.moves() {
        text.push_str(m);
        text.push(' ');
    }
    GameId::from_hash(fnv1a64(text.as_bytes()))
}

/// Why a game is left out before it is replayed.
enum Skip {
    Result,
    Variant,
    Refused(Refusal),
    Filter(Rejection),
}

impl Rules {
    fn of(options: &ExplorerOptions) -> Rules {
        Rules { masters: options.masters, all_games: options.all_games, tomorrow: tomorrow_utc() }
    }

    /// Lichess's importer's refusal of a game, if any.
    fn refusal(&self, view: &GameView, date: GameDate) -> Option<Refusal> {
        if self.all_games {
            return None;
        }
        if ["WhiteTitle", "BlackTitle"].iter().any(|t| view.tag(t).is_some_and(|v| v.trim() == "BOT")) {
            return Some(Refusal::Bot);
        }
        let (Some(white), Some(black)) = (rating(view, Color::White), rating(view, Color::Black)) else {
            return Some(Refusal::Ratings);
        };
        if date.year == 0 || (date.month == 0 && !self.masters) {
            return Some(Refusal::Month);
        }
        if self.masters {
            if mean_rating(Some(white), Some(black)).is_some_and(|m| m < 2200) {
                return Some(Refusal::Under2200);
            }
            if date.is_after(self.tomorrow) {
                return Some(Refusal::Future);
            }
        }
        None
    }
}

/// Tomorrow's date (UTC).
fn tomorrow_utc() -> GameDate {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_from_days(secs / 86_400 + 1);
    GameDate { year, month, day }
}

/// The proleptic Gregorian date of a day counted from 1970-01-01.
fn civil_from_days(days: u64) -> (u16, u8, u8) {
    // Howard Hinnant's days-to-civil, for days on or after the epoch.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = (yoe + era * 400 + u64::from(month <= 2)) as u16;
    (year, month, day)
}

/// The record of a game that passes the rules and the filters, into `g`
/// (its strings' room kept); why it is left out, for one that does not.
fn record_of(view: &GameView, rules: &Rules, filters: &Filters, g: &mut GameRecord) -> Result<(), Skip> {
    let outcome = Outcome::of_game(view).ok_or(Skip::Result)?;
    if view.tag("FEN").is_some() || view.is_chess960() || !is_standard(view) {
        return Err(Skip::Variant);
    }
    let date = GameDate::of_game(view);
    if let Some(why) = rules.refusal(view, date) {
        return Err(Skip::Refused(why));
    }
    if let Err(r) = filters.admit(view) {
        return Err(if r == Rejection::Variant { Skip::Variant } else { Skip::Filter(r) });
    }
    let rating = |c| rating(view, c).map_or(0, |r| r.min(u32::from(u16::MAX)) as u16);
    g.date = date;
    let tag = |t: &str, into: &mut String| {
        into.clear();
        into.push_str(view.tag(t).unwrap_or("").trim());
    };
    g.id = game_id(view);
    tag("White", &mut g.white);
    tag("Black", &mut g.black);
    g.white_rating = rating(Color::White);
    g.black_rating = rating(Color::Black);
    g.outcome = outcome;
    g.speed = Speed::of_time_control(view.tag("TimeControl"));
    tag("Event", &mut g.event);
    tag("Site", &mut g.site);
    tag("Round", &mut g.round);
    tag("TimeControl", &mut g.time_control);
    Ok(())
}

/// A game replayed: its moves packed, its position visits (the first
/// `max_ply` plies; a repeated position keeps its last move), into `r`.
fn game_of(
    view: &GameView,
    max_ply: u8,
    source: impl FnOnce() -> GameSource,
    r: &mut Replayed,
) -> Result<(), ReplayError> {
    let mut board = Board::startpos();
    let start = Board::startpos();
    let (visits, packed) = (&mut r.visits, &mut r.packed);
    visits.clear();
    packed.clear();
    let mut ply = 0usize;
    view.replay_first(&mut board, &start, usize::MAX, source, |b, m| {
        packed.push(b, m);
        ply += 1;
        let ply = ply - 1;
        if ply < usize::from(max_ply) {
            let key = b.key_legal_ep();
            // A position recurs only after reversible moves: it was first
            // reached at most `halfmove_clock` plies ago, so its visit is
            // among as many last ones.
            let since = visits.len().saturating_sub(usize::from(b.halfmove_clock()));
            match visits[since..].iter_mut().find(|v| v.0 == key) {
                Some(v) => *v = (key, ply as u8, m.raw()),
                None => visits.push((key, ply as u8, m.raw())),
            }
        }
    })
}

/// The worker's work on one batch: its games replayed into `games` (the
/// room of a batch done with, when there is one; the first `used` are
/// this batch's).
fn replay_batch(
    file: &Arc<Path>,
    text: &str,
    max_ply: u8,
    rules: &Rules,
    filters: &Filters,
    games: &mut Vec<Replayed>,
) -> Batch {
    let mut out = Batch::default();
    for_each_game(text, |view| {
        out.counts.games += 1;
        if games.len() == out.used {
            games.push(Replayed::default());
        }
        let r = &mut games[out.used];
        match record_of(view, rules, filters, &mut r.record) {
            Ok(()) => {}
            Err(Skip::Result) => return out.counts.bad_result += 1,
            Err(Skip::Variant) => return out.counts.variants += 1,
            Err(Skip::Refused(why)) => return out.counts.refused[why as usize] += 1,
            Err(Skip::Filter(why)) => return out.counts.rejected[why.index()] += 1,
        }
        let source = || GameSource { file: Some(file.clone()), index: view.number() };
        match game_of(view, max_ply, source, r) {
            Ok(()) => out.used += 1,
            Err(e) => out.skipped.push(e),
        }
    });
    out
}

/// What a batch gave besides its games.
#[derive(Default)]
struct Batch {
    used: usize,
    counts: Counts,
    skipped: Vec<ReplayError>,
}

/// The `--memory` budget in bytes, and its shares (the module doc).
#[derive(Clone, Copy, Debug)]
struct Budget {
    bytes: usize,
    /// Jobs in flight, of the reading and of the counting.
    tokens: usize,
}

impl Budget {
    fn of(options: &ExplorerOptions) -> Budget {
        Budget { bytes: options.memory_mb.max(1) << 20, tokens: 2 * options.threads.max(1) + 2 }
    }

    /// Bytes of PGN a batch: the batches in flight (their text, and their
    /// games replayed: about 3x the text) take an eighth.
    fn batch_bytes(self) -> usize {
        (self.bytes / 8 / 3 / self.tokens).clamp(64 << 10, 4 << 20)
    }

    /// Visits held (encoded, `item_len` bytes each): a quarter.
    fn held_visits(self, item_len: usize) -> usize {
        self.bytes / 4 / item_len
    }

    /// The game ids' bytes, while the games stream: a quarter.
    fn id_bytes(self) -> usize {
        self.bytes / 4
    }

    /// Visits of a bucket counted whole: the buckets in flight, and each
    /// counting thread's sort of one (32 bytes a visit: [`count_bucket`]),
    /// take a quarter, and so at most do those being split (one a level).
    fn bucket_visits(self, threads: usize) -> usize {
        let per_visit = std::mem::size_of::<Visit>() * self.tokens + 32 * threads.max(1);
        (self.bytes / 4 / per_visit).max(1 << 8)
    }
}

/// Numbers and stores the games in order, holds their visits, and at the
/// end counts every position into the index.
struct Indexer {
    writer: ExplorerWriter,
    visits: Buckets<Visits>,
    /// The visits of the games since the last batch was held, and scratch
    /// for grouping them; a batch written to a spill file, for its room.
    pending: Vec<Visit>,
    aux: Vec<Visit>,
    spare: Option<Grouped<Visits>>,
    /// Visits a batch (see [`BATCH_VISITS`]).
    batch: usize,
    masters: bool,
    budget: Budget,
    summary: ExplorerSummary,
}

/// Visits gathered before they are held as one batch (at most a quarter
/// of those held).
const BATCH_VISITS: usize = 1 << 16;

impl Indexer {
    fn new(out: &Path, options: &ExplorerOptions, budget: Budget, temp: &Path) -> Result<Indexer, ExplorerBuildError> {
        let encoding = Visits { masters: options.masters };
        let limit = budget.held_visits(encoding.item_len());
        let top_games = kept_per_cell(options.masters);
        Ok(Indexer {
            writer: ExplorerWriter::create_with(out, options.max_ply, top_games, Some(temp), budget.id_bytes())?,
            visits: Buckets::new(0, encoding, limit, temp, "visits".to_string()),
            pending: Vec::new(),
            aux: Vec::new(),
            spare: None,
            batch: BATCH_VISITS.min(limit / 4).max(1),
            masters: options.masters,
            budget,
            summary: ExplorerSummary::default(),
        })
    }

    /// The next game in input order, with its visits.
    fn add(
        &mut self,
        record: &GameRecord,
        packed: &PackedMoves,
        visits: impl Iterator<Item = (u64, u8, u16)>,
    ) -> Result<(), ExplorerBuildError> {
        if self.writer.has_game(&record.id)? {
            self.summary.duplicates += 1;
            return Ok(());
        }
        let game = self.writer.game(record, packed)?;
        let facts = Facts::of(record, self.masters);
        let before = self.pending.len();
        self.pending.extend(visits.map(|v| facts.visit(game, v)));
        self.summary.events += (self.pending.len() - before) as u64;
        self.summary.indexed += 1;
        if self.pending.len() >= self.batch {
            self.hold_pending()?;
        }
        Ok(())
    }

    /// Holds the pending visits as one batch grouped by bucket.
    fn hold_pending(&mut self) -> Result<(), ExplorerBuildError> {
        let mut batch = self.spare.take().unwrap_or_default();
        batch.fill(&mut self.pending, &mut self.aux, Visits { masters: self.masters });
        self.pending.clear();
        // One written batch kept for its room; the others' freed.
        self.spare = self.visits.push_grouped(batch)?.pop();
        Ok(())
    }

    /// Counts every position and writes the index: the buckets of visits
    /// are read back in key order and counted by `threads` workers
    /// ([`count_bucket`]), their entries written in that order.
    fn finish(mut self, temp: &Path, threads: usize) -> Result<ExplorerSummary, ExplorerBuildError> {
        let start = Instant::now();
        self.hold_pending()?;
        // Visits that went to disk take the rest along: the counting's
        // memory is then the buckets', not what the games left held.
        if self.visits.file_count() > 0 {
            self.visits.spill_held()?;
        }
        self.spare = None;
        let Indexer { mut writer, visits, masters, budget, mut summary, .. } = self;
        writer.end_games()?;
        let spilled = visits.finish(64)?;
        summary.runs = spilled.file_count;
        let limit = budget.bucket_visits(threads);
        let produce = |feed: &mut crate::ordered::Feed<BucketJob>| {
            // Buckets go out in runs of about RUN_VISITS visits (a job
            // each would cost more in hand-overs than in counting).
            let mut run: Vec<Vec<Visit>> = Vec::new();
            let mut held = 0;
            let mut send = |bucket: Bucket<'_, Visits>| -> Result<(), Feeding> {
                let job = match bucket {
                    Bucket::Whole(items, _) => {
                        held += items.len();
                        run.push(std::mem::take(items));
                        if held < RUN_VISITS {
                            return Ok(());
                        }
                        BucketJob::Visits(std::mem::take(&mut run))
                    }
                    Bucket::Large(spilled, b) => {
                        // The buckets before it go first; it is counted
                        // here, as it is read.
                        if !run.is_empty() && !feed.send(BucketJob::Visits(std::mem::take(&mut run))) {
                            return Err(Feeding::Stopped);
                        }
                        BucketJob::Counted(count_large(spilled, b, masters)?)
                    }
                };
                held = 0;
                match feed.send(job) {
                    true => Ok(()),
                    false => Err(Feeding::Stopped),
                }
            };
            match spilled.walk_buckets(limit, 64, temp, "split", &mut send) {
                Ok(()) => {
                    if !run.is_empty() {
                        feed.send(BucketJob::Visits(run));
                    }
                }
                Err(Feeding::Failed(e)) => {
                    feed.send(BucketJob::Failed(e));
                }
                Err(Feeding::Stopped) => {}
            }
        };
        let worker = || {
            move |job: BucketJob, _: &crate::ordered::Spares<()>| match job {
                BucketJob::Visits(run) => {
                    let mut counted = Counted::default();
                    for items in &run {
                        count_bucket(items, masters, &mut counted);
                    }
                    Ok(counted)
                }
                BucketJob::Counted(counted) => Ok(counted),
                BucketJob::Failed(e) => Err(e),
            }
        };
        crate::ordered::run(
            threads.max(1),
            budget.tokens,
            produce,
            worker,
            |counted: Result<Counted, ExplorerBuildError>| {
                let counted = counted?;
                let mut at = 0;
                for &(key, len) in &counted.positions {
                    writer.position_encoded(key, &counted.bytes[at..at + len])?;
                    at += len;
                }
                writer.singles(&counted.singles)?;
                summary.positions += counted.positions.len() as u64;
                summary.singles += counted.singles.len() as u64;
                Ok::<_, ExplorerBuildError>(Vec::new())
            },
        )?;
        drop(spilled);
        summary.count_seconds = start.elapsed().as_secs_f64();
        summary.index_bytes = writer.finish()?;
        Ok(summary)
    }
}

/// Visits (about) a worker counts at a time.
const RUN_VISITS: usize = 1 << 16;

/// Buckets of visits for a worker (in key order), a bucket too large to
/// hold counted as it was read, or why the reading stopped.
enum BucketJob {
    Visits(Vec<Vec<Visit>>),
    Counted(Counted),
    Failed(ExplorerBuildError),
}

/// Why the reader of the buckets stopped.
enum Feeding {
    Stopped,
    Failed(ExplorerBuildError),
}

impl From<crate::spill::SpillError> for Feeding {
    fn from(e: crate::spill::SpillError) -> Feeding {
        Feeding::Failed(e.into())
    }
}

/// The games a cell keeps, the header's byte: the newest 8 of a Lichess
/// index, the best 15 of a masters index's year.
pub fn kept_per_cell(masters: bool) -> u8 {
    if masters {
        MASTERS_GAMES as u8
    } else {
        RECENT_GAMES as u8
    }
}

/// The side that moves at `ply` of a game from the start position.
fn mover_of(ply: u8) -> Color {
    if ply % 2 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// Builds the index `out` from the PGN `inputs`.
pub fn build(
    inputs: &[PathBuf],
    out: &Path,
    options: &ExplorerOptions,
    observer: &mut dyn Observer,
) -> Result<ExplorerSummary, ExplorerBuildError> {
    build_within(inputs, out, options, Budget::of(options), observer)
}

/// [`build`] within `budget`.
fn build_within(
    inputs: &[PathBuf],
    out: &Path,
    options: &ExplorerOptions,
    budget: Budget,
    observer: &mut dyn Observer,
) -> Result<ExplorerSummary, ExplorerBuildError> {
    let start = Instant::now();
    let mut opened = Vec::with_capacity(inputs.len());
    for p in inputs {
        opened.push(Input::open(p)?);
    }
    let files: Vec<Arc<Path>> = inputs.iter().map(|p| Arc::from(p.as_path())).collect();
    let parent = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let temp =
        crate::codec::TempDir::in_dir(&parent, "archivist-explorer").map_err(|e| PathIoError::new(&parent, e))?;
    let mut indexer = Indexer::new(out, options, budget, temp.path())?;
    let filters = Filters { exclude_variants: true, chess960: false, ..options.filters.clone() };
    let rules = Rules::of(options);
    let meter = Meter::default();
    let batch_bytes = budget.batch_bytes();
    let worker = || {
        let (files, filters, rules) = (&files, &filters, &rules);
        move |job: Job, spares: &crate::ordered::Spares<Vec<Replayed>>| match job {
            Job::Damaged { input, error } => Item::Damaged { input, error },
            Job::Batch { file, batch: text } => {
                let mut games = spares.take().unwrap_or_default();
                let batch = replay_batch(&files[file], &text.text, options.max_ply, rules, filters, &mut games);
                Item::Games { games, batch, text_bytes: text.text.len() as u64 }
            }
        }
    };
    let produce = |feed: &mut crate::ordered::Feed<Job>| read_inputs(opened, batch_bytes, &meter, feed);
    let mut last_report = Instant::now();
    crate::ordered::run(options.threads.max(1), budget.tokens, produce, worker, |item: Item| {
        let mut spare = None;
        match item {
            Item::Damaged { input, error } => {
                observer.damaged(&input, &error);
                indexer.summary.damaged.push((input, error));
            }
            Item::Games { games, batch, text_bytes } => {
                let (s, counts) = (&mut indexer.summary, batch.counts);
                s.games += counts.games;
                s.bad_result += counts.bad_result;
                s.variants += counts.variants;
                s.illegal += batch.skipped.len() as u64;
                s.text_bytes += text_bytes;
                for (r, n) in s.rejected.iter_mut().zip(counts.rejected) {
                    *r += n;
                }
                for (r, n) in s.refused.iter_mut().zip(counts.refused) {
                    *r += n;
                }
                batch.skipped.iter().for_each(|e| observer.skipped(e));
                for g in &games[..batch.used] {
                    indexer.add(&g.record, &g.packed, g.visits.iter().copied())?;
                }
                spare = Some(games);
            }
        }
        if last_report.elapsed().as_millis() >= 200 {
            last_report = Instant::now();
            let s = &indexer.summary;
            observer.progress(&Progress {
                games: s.games,
                text_bytes: s.text_bytes,
                source_bytes: meter.source_bytes.load(Relaxed),
                seconds: start.elapsed().as_secs_f64(),
            });
        }
        Ok::<_, ExplorerBuildError>(spare.into_iter().collect())
    })?;
    indexer.summary.source_bytes = meter.source_bytes.load(Relaxed);
    if !indexer.summary.damaged.is_empty() && !options.allow_damaged {
        return Err(ExplorerBuildError::Damaged { damaged: indexer.summary.damaged.clone() });
    }
    let read_seconds = start.elapsed().as_secs_f64();
    let mut summary = indexer.finish(temp.path(), options.threads)?;
    summary.read_seconds = read_seconds;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// Joins the indexes `shards` (built with the same max ply) into `out`: the
/// index built from their inputs one after another (their stored games
/// replayed in order; a game already indexed from an earlier shard is
/// skipped), with the first shard's top games per cell.
pub fn merge(shards: &[PathBuf], out: &Path, options: &ExplorerOptions) -> Result<ExplorerSummary, ExplorerBuildError> {
    let start = Instant::now();
    let mut opened = Vec::new();
    for path in shards {
        let e = Explorer::open(path).map_err(|source| ExplorerBuildError::Index { path: path.clone(), source })?;
        opened.push((path, e));
    }
    let max_ply = opened.first().map_or(options.max_ply, |(_, e)| e.max_ply());
    if let Some((path, e)) = opened.iter().find(|(_, e)| e.max_ply() != max_ply) {
        return Err(ExplorerBuildError::Mismatch { path: path.to_path_buf(), found: e.max_ply(), expected: max_ply });
    }
    // A masters index if the first shard is one.
    let masters = opened.first().map_or(options.masters, |(_, e)| e.top_games() == MASTERS_GAMES as u8);
    let options = ExplorerOptions { max_ply, masters, ..options.clone() };
    let parent = options.temp_dir.clone().unwrap_or_else(std::env::temp_dir);
    let temp =
        crate::codec::TempDir::in_dir(&parent, "archivist-explorer").map_err(|e| PathIoError::new(&parent, e))?;
    let mut indexer = Indexer::new(out, &options, Budget::of(&options), temp.path())?;
    for (path, e) in &opened {
        let index_error = |source| ExplorerBuildError::Index { path: path.to_path_buf(), source };
        let strings = e.strings().map_err(index_error)?;
        for i in 0..e.games() as u32 {
            let g = e.game(i, &strings).map_err(index_error)?;
            indexer.summary.games += 1;
            // A stored game that does not replay: the error names its record.
            let corrupt = |e: &Explorer| match e.game_offset(i) {
                Ok(offset) => ExplorerError::Corrupt { offset, what: "a game's move index past its legal moves" },
                Err(other) => other,
            };
            let visits = replay_visits(&g, max_ply).ok_or_else(|| index_error(corrupt(e)))?;
            let packed = PackedMoves::of(&g).ok_or_else(|| index_error(corrupt(e)))?;
            indexer.add(&g, &packed, visits.into_iter())?;
        }
    }
    let read_seconds = start.elapsed().as_secs_f64();
    let mut summary = indexer.finish(temp.path(), options.threads)?;
    summary.read_seconds = read_seconds;
    summary.seconds = start.elapsed().as_secs_f64();
    Ok(summary)
}

/// The visits of a stored game, as [`game_of`] makes them from its PGN
/// (`None`: a move of it is not legal).
fn replay_visits(g: &GameRecord, max_ply: u8) -> Option<Vec<(u64, u8, u16)>> {
    let mut visits: Vec<(u64, u8, u16)> = Vec::new();
    let mut ply = 0u8;
    g.replay(usize::from(max_ply), |b, m| {
        let key = b.key_legal_ep();
        match visits.iter_mut().find(|v| v.0 == key) {
            Some(v) => *v = (key, ply, m.raw()),
            None => visits.push((key, ply, m.raw())),
        }
        ply = ply.saturating_add(1);
    })
    .ok()?;
    Some(visits)
}

mod count;

use count::{count_bucket, count_large, Counted};

#[cfg(test)]
mod tests;
