//! Answers of the opening explorer, in Lichess's shape, from one or more
//! explorer indexes served together ([`Shards`]; their counts add up).
//!
//! For a position and a [`Filter`] (speeds, rating groups, months):
//! * totals and each move's white, draws, black and average rating (the
//!   mean of the known ratings of the players who made the move, rounded),
//!   over the cells the filter admits; moves by games, then UCI, the first
//!   `moves`; castling written king takes rook (`e1h1`), as Lichess writes
//!   it; a move played in exactly one admitted game names it (`game`);
//! * top games: the admitted games with the highest mean rating, then the
//!   newest (by shard, then game number: the order a merged index would
//!   number them in); recent games: the newest admitted, by month, then
//!   shard and game number;
//! * opening names ([`super::openings`]): each move's, exact; the answer's
//!   is the caller's (the last exact match along `fen` and `play`).
//!
//! Rating filter: each value names its group ([`RatingGroup::of_rating`]);
//! 2500 takes every group from 2500 up (2800 those from 2800, 3200 its
//! own). Month filters: a game without a month is left out as soon as
//! `since` or `until` is given.
//!
//! A player's games through a position (`/player`): [`player`].

use super::openings::{self, Opening};
use crate::board::notation::uci_string;
use crate::board::Board;
use crate::explorer::build::MASTERS_GAMES;
use crate::explorer::index::{Cell, CellGames, Explorer, ExplorerError, GameRecord, MoveStats, PositionEntry, Stats};
use crate::explorer::model::{GameId, Mode, Month, RatingGroup, Speed};
use crate::types::{Color, Move};
use parking_lot::Mutex;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

pub mod player;
mod rollup;
pub use player::PlayerQuery;
use rollup::Rollup;

/// Which cells a query takes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    pub speeds: Option<Vec<Speed>>,
    /// The rating groups a `ratings=` list names ([`RatingGroup::named`]; a
    /// stored group counts by [`RatingGroup::counts_under`]).
    pub groups: Option<Vec<RatingGroup>>,
    /// Months, inclusive.
    pub since: Option<Month>,
    pub until: Option<Month>,
}

impl Filter {
    /// The groups a `ratings` list names, each value parsed as the group it
    /// falls in (see the module doc).
    pub fn groups_of(ratings: impl IntoIterator<Item = RatingGroup>) -> Vec<RatingGroup> {
        RatingGroup::named(ratings)
    }

    pub fn admits(&self, cell: Cell) -> bool {
        self.admits_class(cell.speed(), cell.group()) && self.in_range(cell.month())
    }

    /// Whether the filter takes a cell of `speed` and `group` whatever
    /// its month.
    pub fn admits_class(&self, speed: Speed, group: RatingGroup) -> bool {
        self.speeds.as_ref().map_or(true, |s| s.contains(&speed))
            && self.groups.as_ref().map_or(true, |g| group.counts_under(g))
    }

    /// Whether it names months (`since`, `until`).
    pub fn names_months(&self) -> bool {
        self.since.is_some() || self.until.is_some()
    }

    /// The same filter in one form, which admits the same cells and has
    /// the same top group ([`RatingGroup::top`]): the speeds in order without
    /// repeats, the groups without those that never count (above 2500:
    /// [`RatingGroup::counts_under`]), and a list that names every speed or every group
    /// none. Two filters that differ only there give the same answers.
    pub fn normalised(&self) -> Filter {
        let speeds = self.speeds.as_ref().map(|s| {
            let mut s = s.clone();
            s.sort_unstable();
            s.dedup();
            s
        });
        let groups = self.groups.as_ref().map(|g| {
            let mut g: Vec<RatingGroup> = g.iter().copied().filter(|&g| g <= RatingGroup::Group2500).collect();
            g.sort_unstable();
            g.dedup();
            g
        });
        Filter {
            speeds: speeds.filter(|s| s.len() < Speed::ALL.len()),
            groups: groups.filter(|g| g.len() <= usize::from(RatingGroup::Group2500.index())),
            ..self.clone()
        }
    }

    /// Whether a month is within `since` and `until` (a game without a
    /// month is not, as soon as either is given).
    pub fn in_range(&self, month: Month) -> bool {
        let known = month.is_known();
        self.since.map_or(true, |s| known && month >= s) && self.until.map_or(true, |u| known && month <= u)
    }
}

/// How much an answer lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Limits {
    pub moves: usize,
    pub top_games: usize,
    pub recent_games: usize,
}

impl Limits {
    /// The same limits in one form, none above what the rules list for
    /// `kind` (Lichess: 4 top games, 8 top and recent games; masters: 15
    /// top games and no recent games; no position has
    /// [`MAX_MOVES`] moves): two limits that differ only there give the
    /// same answers.
    pub fn normalised(self, kind: Kind) -> Limits {
        let (top, recent) = match kind {
            Kind::Lichess => (LICHESS_TOP_GAMES, LICHESS_GAMES),
            Kind::Masters => (MASTERS_GAMES, 0),
        };
        Limits {
            moves: self.moves.min(MAX_MOVES),
            top_games: self.top_games.min(top),
            recent_games: self.recent_games.min(recent),
        }
    }
}

/// More moves than any position has (218 at most).
pub const MAX_MOVES: usize = 256;

/// Lichess's explorer or its masters database: which lists and fields an
/// answer has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Lichess,
    Masters,
}

/// A player in a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GamePlayer {
    pub name: String,
    pub rating: Option<u16>,
}

/// A game in an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameAnswer {
    /// The move the game played from the position (in the lists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uci: Option<String>,
    pub id: GameId,
    pub winner: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speed: Option<Speed>,
    /// `rated` or `casual` (Lichess's games; from the `Event` tag).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    pub white: GamePlayer,
    pub black: GamePlayer,
    pub year: Option<u16>,
    /// `YYYY-MM`.
    pub month: Option<Month>,
}

/// One move of an answer: `/lichess` and `/masters` give its
/// `averageRating`, `/player` its `averageOpponentRating` and
/// `performance` (both left out when no opponent's rating is known).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveAnswer {
    pub uci: String,
    pub san: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_rating: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub average_opponent_rating: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<i64>,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub game: Option<GameAnswer>,
    pub opening: Option<Opening>,
}

impl MoveAnswer {
    /// `mv` from `board`, with its counts and its one game; no rating
    /// field.
    pub fn new(board: &Board, mv: Move, s: &Stats, game: Option<GameAnswer>) -> MoveAnswer {
        let mut after = board.clone();
        let san = after.move_to_san(mv);
        after.make_move(mv);
        MoveAnswer {
            uci: uci_string(mv, true),
            san,
            average_rating: None,
            average_opponent_rating: None,
            performance: None,
            white: s.white,
            draws: s.draws,
            black: s.black,
            game,
            opening: openings::named(&after),
        }
    }
}

/// The mean of the known ratings counted in `s` (none known: `None`).
pub fn mean_rating(s: &Stats) -> Option<f64> {
    (s.rated > 0).then(|| s.rating_sum as f64 / s.rated as f64)
}

/// The answer of the three routes (lila-openingexplorer's
/// `ExplorerResponse`): `GET /lichess` has `recentGames`, `topGames` and,
/// asked for, `history`; `/masters` `topGames`; `/player` (one NDJSON
/// line) `recentGames` and `queuePosition`. A field a route does not give
/// is left out; the others in this order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplorerAnswer {
    pub white: u64,
    pub draws: u64,
    pub black: u64,
    pub moves: Vec<MoveAnswer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_games: Option<Vec<GameAnswer>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_games: Option<Vec<GameAnswer>>,
    /// The caller's: the last named along `fen` and `play`.
    pub opening: Option<Opening>,
    /// `history=true`: the admitted games' results month by month.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<HistoryMonth>>,
    /// `/player`'s: always 0 (nothing is queued here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_position: Option<u32>,
}

/// An index opened for answers, with its strings.
pub struct Shard {
    pub path: PathBuf,
    pub index: Explorer,
    pub strings: Vec<String>,
    /// Each player's games by colour (name lower-cased), made at the first
    /// `/player` question: the game headers read once.
    players: OnceLock<HashMap<(String, Color), Vec<u32>>>,
    /// Entries of many cells (the first plies' positions), decoded once
    /// with their sums ([`Rollup`]); and their cells.
    hot: Mutex<Hot>,
}

/// An entry decoded, with its moves' sums over the months when it is
/// kept (hot).
struct Decoded {
    entry: PositionEntry,
    rollup: Option<Rollup>,
}

/// An entry of at least this many cells is kept decoded ...
const HOT_CELLS: usize = 128;
/// ... while the kept entries have at most this many (about 60 bytes a
/// cell); past it the least asked for are let go.
const HOT_BUDGET: usize = 1 << 21;

/// Decoded entries kept: each with its cells and how often it was asked
/// for since the last eviction.
#[derive(Default)]
struct Hot {
    entries: HashMap<u64, (Arc<Decoded>, usize, u32)>,
    cells: usize,
}

impl Hot {
    fn get(&mut self, key: u64) -> Option<Arc<Decoded>> {
        let e = self.entries.get_mut(&key)?;
        e.2 = e.2.saturating_add(1);
        Some(e.0.clone())
    }

    /// Keeps `entry`, letting the least asked for go (down to half the
    /// budget) when it would not fit.
    fn keep(&mut self, key: u64, entry: Arc<Decoded>, cells: usize) {
        // Another request may have decoded and kept it meanwhile.
        if self.entries.contains_key(&key) {
            return;
        }
        if self.cells + cells > HOT_BUDGET {
            let mut by_use: Vec<(u32, u64, usize)> = self.entries.iter().map(|(k, e)| (e.2, *k, e.1)).collect();
            by_use.sort_unstable();
            for (_, k, n) in by_use {
                if self.cells + cells <= HOT_BUDGET / 2 {
                    break;
                }
                self.entries.remove(&k);
                self.cells -= n;
            }
            self.entries.values_mut().for_each(|e| e.2 /= 2);
        }
        self.entries.insert(key, (entry, cells, 1));
        self.cells += cells;
    }
}

impl Shard {
    fn open(path: &Path) -> Result<Shard, ExplorerError> {
        let index = Explorer::open(path)?;
        let strings = index.strings()?;
        let (players, hot) = (OnceLock::new(), Mutex::new(Hot::default()));
        Ok(Shard { path: path.to_path_buf(), index, strings, players, hot })
    }

    /// The entry of the position `key`, if it has one (with its sums
    /// when it has many cells).
    fn entry(&self, key: u64) -> Result<Option<Arc<Decoded>>, ExplorerError> {
        if let Some(e) = self.hot.lock().get(key) {
            return Ok(Some(e));
        }
        let Some(entry) = self.index.position(key)? else { return Ok(None) };
        let cells = match &entry {
            PositionEntry::Counted { moves, games } => moves.iter().map(|m| m.cells.len()).sum::<usize>() + games.len(),
            PositionEntry::Listed { .. } => 0,
        };
        if cells < HOT_CELLS {
            return Ok(Some(Arc::new(Decoded { entry, rollup: None })));
        }
        let rollup = match &entry {
            PositionEntry::Counted { moves, .. } => Some(Rollup::of(moves)),
            PositionEntry::Listed { .. } => None,
        };
        let decoded = Arc::new(Decoded { entry, rollup });
        self.hot.lock().keep(key, decoded.clone(), cells);
        Ok(Some(decoded))
    }

    /// The games where `player` (case ignored) had `color`, in order.
    fn games_of(&self, player: &str, color: Color) -> Result<&[u32], ExplorerError> {
        if self.players.get().is_none() {
            let mut map: HashMap<(String, Color), Vec<u32>> = HashMap::new();
            for i in 0..self.index.games() as u32 {
                let g = self.index.game_header(i, &self.strings)?;
                map.entry((g.white.to_lowercase(), Color::White)).or_default().push(i);
                map.entry((g.black.to_lowercase(), Color::Black)).or_default().push(i);
            }
            // Another thread may have made it meanwhile: the same map.
            let _ = self.players.set(map);
        }
        let games = self.players.get().and_then(|map| map.get(&(player.to_lowercase(), color)));
        Ok(games.map_or(&[], |v| v.as_slice()))
    }
}

/// Indexes served together.
#[derive(Default)]
pub struct Shards {
    pub shards: Vec<Shard>,
}

impl Shards {
    /// Opens every index (in full, as the service needs them).
    pub fn open(paths: &[PathBuf]) -> Result<Shards, (PathBuf, ExplorerError)> {
        let mut shards = Vec::new();
        for p in paths {
            shards.push(Shard::open(p).map_err(|e| (p.clone(), e))?);
        }
        Ok(Shards { shards })
    }

    pub fn games(&self) -> u64 {
        self.shards.iter().map(|s| s.index.games()).sum()
    }

    /// The answer for `board` (whose position is looked up) under `filter`
    /// (see the module doc for the rules).
    pub fn answer(
        &self,
        board: &Board,
        filter: &Filter,
        limits: Limits,
        kind: Kind,
        history: bool,
    ) -> Result<ExplorerAnswer, ExplorerError> {
        let key = board.key_legal_ep();
        let masters = kind == Kind::Masters;
        let wants_games = masters || limits.top_games > 0 || limits.recent_games > 0;
        let mut by_move: ByMove = Vec::new();
        let mut games = Candidates::new(kind, filter);
        // Each month's counts, and the months the position has games in.
        let mut months: Option<BTreeMap<Month, Stats>> = history.then(BTreeMap::new);
        let mover = board.side_to_move();
        for (si, shard) in self.shards.iter().enumerate() {
            let mut one_game = |game: u32, record: &GameRecord, played: Move| {
                let cell = record.cell_of(masters);
                let stats = Stats::of_game(record.outcome, effective(record, mover));
                let admitted = filter.admits(cell);
                if let Some(months) = months.as_mut().filter(|_| filter.in_range(cell.month())) {
                    let m = months.entry(cell.month()).or_default();
                    if admitted {
                        m.add(&stats);
                    }
                }
                if admitted {
                    add(&mut by_move, played.raw(), &stats, Some((si, game)));
                    if wants_games {
                        games.offer(Candidate::new(si, game, played, cell, record.masters_rank()));
                    }
                }
            };
            let decoded = shard.entry(key)?;
            match decoded.as_deref().map(|d| (&d.entry, d.rollup.as_ref())) {
                Some((PositionEntry::Counted { moves, games: cells }, rollup)) => {
                    // The sums serve a filter without months.
                    let rollup = rollup.filter(|_| !filter.names_months());
                    let games = wants_games.then_some(&mut games);
                    collect_counted(si, moves, rollup, cells, filter, &mut by_move, games);
                    if let Some(months) = months.as_mut() {
                        for c in moves.iter().flat_map(|m| m.cells.iter()).filter(|c| filter.in_range(c.cell.month())) {
                            let m = months.entry(c.cell.month()).or_default();
                            if filter.admits(c.cell) {
                                m.add(&c.stats);
                            }
                        }
                    }
                }
                Some((PositionEntry::Listed { moves, games: listed }, _)) => {
                    for r in listed {
                        let record = shard.index.game_header(r.game, &shard.strings)?;
                        one_game(r.game, &record, moves.get(r.mv as usize).copied().unwrap_or(Move::NONE));
                    }
                }
                None => {
                    if let Some((game, ply, record)) = shard.index.single(key, &shard.strings)? {
                        let played = record.moves.get(usize::from(ply)).copied().unwrap_or(Move::NONE);
                        one_game(game, &record, played);
                    }
                }
            }
        }
        // A move the position does not have (a key shared by another
        // position) is left out.
        let mut moves: Vec<MoveCount> = by_move
            .into_iter()
            .map(|(raw, s, only)| (Move::from_raw(raw), s, only))
            .filter(|(m, _, _)| board.is_legal(*m))
            .collect();
        let mut totals = Stats::default();
        moves.iter().for_each(|m| totals.add(&m.1));
        let uci = |m: Move| uci_string(m, true);
        moves.sort_by(|a, b| b.1.games().cmp(&a.1.games()).then_with(|| uci(a.0).cmp(&uci(b.0))));
        moves.truncate(limits.moves);
        let mut answer_moves = Vec::with_capacity(moves.len());
        for (mv, s, only) in moves {
            let game = match only {
                Some((si, g)) if s.games() == 1 && wants_games => Some(self.game_answer(si, g, None, kind)?),
                _ => None,
            };
            let average_rating = Some(mean_rating(&s).map_or(0, |r| r.round() as u64));
            answer_moves.push(MoveAnswer { average_rating, ..MoveAnswer::new(board, mv, &s, game) });
        }
        let (top, recent) = games.choose(limits);
        let listed = |list: Vec<Candidate>| -> Result<Vec<GameAnswer>, ExplorerError> {
            list.into_iter().map(|c| self.game_answer(c.shard, c.game, Some(uci(c.mv)), kind)).collect()
        };
        Ok(ExplorerAnswer {
            white: totals.white,
            draws: totals.draws,
            black: totals.black,
            moves: answer_moves,
            recent_games: if masters { None } else { Some(listed(recent)?) },
            top_games: Some(listed(top)?),
            opening: None,
            history: months.map(|m| history_of(m, filter)),
            queue_position: None,
        })
    }

    /// Game `game` of shard `shard` as an answer lists it.
    fn game_answer(
        &self,
        shard: usize,
        game: u32,
        uci: Option<String>,
        kind: Kind,
    ) -> Result<GameAnswer, ExplorerError> {
        let s = &self.shards[shard];
        let g = s.index.game_header(game, &s.strings)?;
        Ok(game_answer(&g, uci, kind))
    }

    /// The game with `id` in the first shard that has it.
    pub fn game_by_id(&self, id: &str) -> Result<Option<GameRecord>, ExplorerError> {
        let Ok(id) = id.parse::<GameId>() else { return Ok(None) };
        for s in &self.shards {
            if let Some(i) = s.index.game_by_id(&id)? {
                return s.index.game(i, &s.strings).map(Some);
            }
        }
        Ok(None)
    }

    /// Every game of every shard where `player` (case ignored) had `color`,
    /// shard after shard, in order.
    pub fn games_of(&self, player: &str, color: Color) -> Result<Vec<GameRecord>, ExplorerError> {
        let mut out = Vec::new();
        for s in &self.shards {
            for &i in s.games_of(player, color)? {
                out.push(s.index.game(i, &s.strings)?);
            }
        }
        Ok(out)
    }

    pub fn paths(&self) -> impl Iterator<Item = &Path> {
        self.shards.iter().map(|s| s.path.as_path())
    }
}

/// Each move's counts and, while it has one game, that game (shard, number).
type ByMove = Vec<(u16, Stats, Option<(usize, u32)>)>;
/// The same with the move.
type MoveCount = (Move, Stats, Option<(usize, u32)>);

fn add(by_move: &mut ByMove, mv: u16, s: &Stats, game: Option<(usize, u32)>) {
    let at = match by_move.iter().position(|e| e.0 == mv) {
        Some(at) => at,
        None => {
            by_move.push((mv, Stats::default(), None));
            by_move.len() - 1
        }
    };
    let e = &mut by_move[at];
    e.1.add(s);
    if game.is_some() {
        e.2 = game;
    }
}

/// A game that may be listed: where it is, the move it played, and what
/// ranks it.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    shard: usize,
    game: u32,
    mv: Move,
    speed: Speed,
    group: RatingGroup,
    month: Month,
    /// Masters: [`GameRecord::masters_rank`].
    rank: u64,
}

impl Candidate {
    fn new(shard: usize, game: u32, mv: Move, cell: Cell, rank: u64) -> Candidate {
        Candidate { shard, game, mv, speed: cell.speed(), group: cell.group(), month: cell.month(), rank }
    }

    /// Later month, then later shard and game: newer (the order Lichess
    /// numbers the games it imports in).
    fn age(&self) -> Age {
        (self.month, self.shard, self.game)
    }

    /// Lichess's order of top games: nearest the speed's high score first,
    /// then the newest.
    fn top_order(&self) -> TopOrder {
        (self.speed.highscore() - i32::from(self.group.lower_bound()), Reverse(self.age()))
    }
}

/// A game's age: (month, shard, game number), larger is newer.
type Age = (Month, usize, u32);
/// Lichess's order of top games: the distance to the speed's high score,
/// then the newest.
type TopOrder = (i32, Reverse<Age>);

/// The `k` least items by a key, kept as they are offered.
struct Least<K: Ord> {
    k: usize,
    list: Vec<(K, Candidate)>,
}

impl<K: Ord> Least<K> {
    fn new(k: usize) -> Least<K> {
        Least { k, list: Vec::with_capacity(k + 1) }
    }

    /// Whether an item of key `key` would be kept.
    fn takes(&self, key: &K) -> bool {
        self.list.len() < self.k || self.list.last().is_some_and(|last| *key < last.0)
    }

    fn offer(&mut self, key: K, c: Candidate) {
        if !self.takes(&key) {
            return;
        }
        let at = self.list.partition_point(|x| x.0 < key);
        self.list.insert(at, (key, c));
        self.list.truncate(self.k);
    }

    fn into_games(self) -> Vec<Candidate> {
        self.list.into_iter().map(|(_, c)| c).collect()
    }
}

/// The games an answer may list, gathered as the position's games are read.
enum Candidates {
    /// Lichess: the best top-game candidates (games of the top group or
    /// above) and the newest games.
    Lichess { top_group: Option<RatingGroup>, top: Least<TopOrder>, newest: Least<Reverse<Age>> },
    /// Masters: every game offered (each year's best are kept in the index).
    Masters(Vec<Candidate>),
}

impl Candidates {
    fn new(kind: Kind, filter: &Filter) -> Candidates {
        match kind {
            Kind::Lichess => Candidates::Lichess {
                top_group: RatingGroup::top(filter.groups.as_deref()),
                top: Least::new(LICHESS_TOP_GAMES),
                // Room for the top games the recent games leave out.
                newest: Least::new(LICHESS_GAMES + LICHESS_TOP_GAMES),
            },
            Kind::Masters => Candidates::Masters(Vec::new()),
        }
    }

    fn offer(&mut self, c: Candidate) {
        match self {
            Candidates::Lichess { top_group, top, newest } => {
                if top_group.is_some_and(|g| c.group >= g) {
                    top.offer(c.top_order(), c);
                }
                newest.offer(Reverse(c.age()), c);
            }
            Candidates::Masters(all) => all.push(c),
        }
    }

    /// Whether a game of `cell` in shard `shard` may still be listed: not
    /// once every list it could enter is full of games that it would
    /// follow whatever its number (the cell's games need not be offered).
    fn may_take(&self, shard: usize, cell: Cell) -> bool {
        match self {
            Candidates::Lichess { top_group, top, newest } => {
                // The newest a game of the cell can be, and so the first it
                // can rank.
                let c = Candidate::new(shard, u32::MAX, Move::NONE, cell, 0);
                newest.takes(&Reverse(c.age())) || top_group.is_some_and(|g| c.group >= g) && top.takes(&c.top_order())
            }
            Candidates::Masters(_) => true,
        }
    }

    /// The top games and the recent games, by Lichess's rules.
    fn choose(self, limits: Limits) -> (Vec<Candidate>, Vec<Candidate>) {
        match self {
            Candidates::Lichess { top, newest, .. } => {
                let mut top = top.into_games();
                let room = LICHESS_GAMES - top.len();
                let is_top = |c: &Candidate| top.iter().any(|t| (t.shard, t.game) == (c.shard, c.game));
                let recent: Vec<Candidate> = newest
                    .into_games()
                    .into_iter()
                    .filter(|c| !is_top(c))
                    .take(room.min(limits.recent_games))
                    .collect();
                top.truncate(limits.top_games);
                (top, recent)
            }
            Candidates::Masters(mut all) => {
                // Each year's best, then the best of those.
                let year = |c: &Candidate| c.month.year();
                all.sort_by_key(|c| (year(c), Reverse(c.rank)));
                let mut best: Vec<Candidate> = Vec::new();
                for y in all.chunk_by(|a, b| year(a) == year(b)) {
                    best.extend_from_slice(&y[..y.len().min(MASTERS_GAMES)]);
                }
                best.sort_by_key(|c| Reverse(c.rank));
                best.truncate(limits.top_games.min(MASTERS_GAMES));
                (best, Vec::new())
            }
        }
    }
}

/// Lichess's top games at most.
const LICHESS_TOP_GAMES: usize = 4;
/// Lichess's top and recent games together at most.
const LICHESS_GAMES: usize = 8;

/// Adds a counted entry's moves (from `rollup`, its sums, when given) and
/// its games that may be listed.
fn collect_counted(
    shard: usize,
    moves: &[MoveStats],
    rollup: Option<&Rollup>,
    cells: &[CellGames],
    filter: &Filter,
    by_move: &mut ByMove,
    games: Option<&mut Candidates>,
) {
    for (i, MoveStats { mv, cells }) in moves.iter().enumerate() {
        let (stats, game) = match rollup {
            Some(r) => r.counts(i, filter),
            None => {
                let (mut stats, mut game) = (Stats::default(), None);
                for c in cells.iter().filter(|c| filter.admits(c.cell)) {
                    stats.add(&c.stats);
                    game = c.game.or(game);
                }
                (stats, game)
            }
        };
        if stats.games() > 0 {
            add(by_move, mv.raw(), &stats, game.map(|g| (shard, g)));
        }
    }
    let Some(games) = games else { return };
    let mv_of = |i: u32| moves.get(i as usize).map_or(Move::NONE, |m| m.mv);
    // Lichess's lists keep the newest games: the cells (in month order)
    // are offered newest first, so that once the lists are full an older
    // cell is passed over whole; masters' in their order.
    let newest_first = matches!(games, Candidates::Lichess { .. });
    for i in 0..cells.len() {
        let g = &cells[if newest_first { cells.len() - 1 - i } else { i }];
        if !filter.admits(g.cell) || !games.may_take(shard, g.cell) {
            continue;
        }
        for r in g.top.iter().chain(&g.recent) {
            games.offer(Candidate::new(shard, r.game, mv_of(r.mv), g.cell, r.rank));
        }
    }
}

/// One month of `history=true`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HistoryMonth {
    /// `YYYY-MM`.
    pub month: Month,
    pub white: u64,
    pub draws: u64,
    pub black: u64,
}

/// Lichess's history: the months the position has games in (`months`,
/// within the filter's range), each with its admitted counts, a month
/// between them (or between `since` and the first) with none given as
/// zeros; without `until`, the last month left out (it may be incomplete).
fn history_of(months: BTreeMap<Month, Stats>, filter: &Filter) -> Vec<HistoryMonth> {
    let segment = |month: Month, s: &Stats| HistoryMonth { month, white: s.white, draws: s.draws, black: s.black };
    let mut out = Vec::new();
    let mut next = filter.since;
    for (&m, s) in months.iter().filter(|(m, _)| m.is_known()) {
        if let Some(mut gap) = next {
            while gap < m {
                out.push(segment(gap, &Stats::default()));
                gap = gap.next();
            }
        }
        out.push(segment(m, s));
        next = Some(m.next());
    }
    if filter.until.is_none() {
        out.pop();
    }
    out
}

/// The rating counted for the player of `color`: theirs, else the other's (0: neither).
fn effective(g: &GameRecord, color: Color) -> u16 {
    match g.rating(color) {
        0 => g.rating(!color),
        r => r,
    }
}

/// A stored game as an answer lists it.
pub fn game_answer(g: &GameRecord, uci: Option<String>, kind: Kind) -> GameAnswer {
    let player =
        |name: &str, rating: u16| GamePlayer { name: name.to_string(), rating: (rating > 0).then_some(rating) };
    GameAnswer {
        uci,
        id: g.id,
        winner: g.outcome.winner().map(|c| if c == Color::White { "white" } else { "black" }),
        speed: (kind == Kind::Lichess).then_some(g.speed),
        mode: (kind == Kind::Lichess).then(|| Mode::of_event(&g.event)),
        white: player(&g.white, g.white_rating),
        black: player(&g.black, g.black_rating),
        year: (g.date.year > 0).then_some(g.date.year),
        month: Some(g.date.month()).filter(|m| m.is_known()),
    }
}

/// A game as PGN, as Lichess exports a masters game: Event, Site, Date,
/// Round, White, Black, Result, WhiteElo, BlackElo (and TimeControl when
/// known), then the moves on one line and the result.
pub fn pgn(g: &GameRecord) -> String {
    let mut out = String::new();
    let elo = |r: u16| if r > 0 { r.to_string() } else { "?".into() };
    let mut tags = vec![
        ("Event", if g.event.is_empty() { "?".into() } else { g.event.clone() }),
        ("Site", if g.site.is_empty() { "?".into() } else { g.site.clone() }),
        ("Date", g.date.to_string()),
        ("Round", if g.round.is_empty() { "?".into() } else { g.round.clone() }),
        ("White", g.white.clone()),
        ("Black", g.black.clone()),
        ("Result", g.outcome.token().into()),
        ("WhiteElo", elo(g.white_rating)),
        ("BlackElo", elo(g.black_rating)),
    ];
    if !g.time_control.is_empty() {
        tags.push(("TimeControl", g.time_control.clone()));
    }
    for (k, v) in tags {
        out.push_str(&format!("[{k} \"{}\"]\n", v.replace('\\', "\\\\").replace('"', "\\\"")));
    }
    out.push('\n');
    let mut text = Vec::new();
    let _ = g.replay(usize::MAX, |b, m| {
        let ply = text.len();
        let mut b = b.clone();
        let san = b.move_to_san(m);
        text.push(if ply % 2 == 0 { format!("{}. {san}", ply / 2 + 1) } else { san });
    });
    text.push(g.outcome.token().to_string());
    out.push_str(&text.join(" "));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Arc<Decoded> {
        Arc::new(Decoded { entry: PositionEntry::Listed { moves: Vec::new(), games: Vec::new() }, rollup: None })
    }

    #[test]
    fn an_entry_kept_twice_counts_its_cells_once() {
        let mut hot = Hot::default();
        hot.keep(1, entry(), 1000);
        hot.keep(1, entry(), 1000);
        assert_eq!((hot.entries.len(), hot.cells), (1, 1000));
    }

    #[test]
    fn past_the_budget_the_least_asked_for_entries_go() {
        let mut hot = Hot::default();
        let each = HOT_BUDGET / 4;
        for key in 0..4 {
            hot.keep(key, entry(), each);
        }
        for _ in 0..3 {
            assert!(hot.get(2).is_some());
        }
        hot.keep(9, entry(), each);
        assert!(hot.cells <= HOT_BUDGET);
        assert!(hot.get(2).is_some() && hot.get(9).is_some(), "the most asked for and the new one stay");
        assert_eq!(hot.cells, hot.entries.values().map(|e| e.1).sum::<usize>());
    }
}
