//! Counting the visits of positions into their entries, in memory that
//! grows with a position's moves and cells, not with its games: a
//! position reached in every game (the start position) is counted as
//! its visits come ([`Tally`]), a chunk at a time when they are too many
//! to hold ([`count_large`]).
//!
//! A position reached in one game is a single (its game and ply); in at
//! most [`LISTED`], its games listed in game order; in more, its moves'
//! counts by cell and its cells' kept games: a Lichess index's
//! [`RECENT_GAMES`] newest of each cell, a masters index's
//! [`MASTERS_GAMES`] best (`rank`, then the earlier game) of each year,
//! each in its cell's list.

use super::{Visit, Visits, MASTERS_GAMES, RECENT_GAMES};
use crate::codec::MixMap;
use crate::explorer::index::record::encode_position;
use crate::explorer::index::{Cell, CellGames, GameRef, MoveCell, MoveStats, PositionEntry, Stats, LISTED};
use crate::spill::{SpillError, Spilled};
use crate::types::Move;
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

/// Buckets counted: their positions of two games or more (key and length
/// of the encoded entry, the entries one after another in `bytes`) and
/// their singles (key, game, ply), each in key order.
#[derive(Default)]
pub(super) struct Counted {
    pub positions: Vec<(u64, usize)>,
    pub bytes: Vec<u8>,
    pub singles: Vec<(u64, u32, u8)>,
    /// Scratch of [`count_bucket`]: the visits' order, a position's visits.
    order: Vec<u128>,
    spread: Vec<u128>,
    group: Vec<Visit>,
}

/// Sorts a bucket's visits as numbers (`key << 64 | game << 32 |
/// place`): one pass spreads them by the 8 bits of their keys below the
/// bits all share, then each of the 256 parts (a few dozen visits) is
/// sorted on its own. `spread` is scratch.
fn sort_visits(order: &mut Vec<u128>, spread: &mut Vec<u128>) {
    let key = |o: u128| (o >> 64) as u64;
    let first = order.first().map_or(0, |&o| key(o));
    let differ = order.iter().fold(0u64, |d, &o| d | (key(o) ^ first));
    if order.len() < 512 || differ == 0 {
        order.sort_unstable();
        return;
    }
    // The highest bit where keys differ and the 7 below it: above them
    // all keys agree, so these bits order the parts.
    let shift = (64 - differ.leading_zeros()).saturating_sub(8);
    let digit = |o: u128| (key(o) >> shift) as u8 as usize;
    let mut starts = [0usize; 257];
    for &o in order.iter() {
        starts[digit(o) + 1] += 1;
    }
    for d in 0..256 {
        starts[d + 1] += starts[d];
    }
    spread.clear();
    spread.resize(order.len(), 0);
    let mut at = starts;
    for &o in order.iter() {
        let d = digit(o);
        spread[at[d]] = o;
        at[d] += 1;
    }
    for d in 0..256 {
        spread[starts[d]..starts[d + 1]].sort_unstable();
    }
    std::mem::swap(order, spread);
}

/// Counts the visits of one bucket into `out`.
pub(super) fn count_bucket(items: &[Visit], masters: bool, out: &mut Counted) {
    // By key, then game, then place: sorted as plain numbers (16 bytes
    // each, not the 40 of a visit), the visits read back by place.
    let mut order = std::mem::take(&mut out.order);
    order.clear();
    order.extend(items.iter().enumerate().map(|(i, v)| u128::from(v.key) << 64 | u128::from(v.game) << 32 | i as u128));
    sort_visits(&mut order, &mut out.spread);
    let visit = |o: u128| &items[o as u32 as usize];
    for group in order.chunk_by(|a, b| a >> 64 == b >> 64) {
        let key = (group[0] >> 64) as u64;
        match group {
            [only] => {
                let v = visit(*only);
                out.singles.push((key, v.game, v.ply));
            }
            _ if group.len() <= LISTED => {
                let mut visits = std::mem::take(&mut out.group);
                visits.clear();
                visits.extend(group.iter().map(|&o| *visit(o)));
                out.position(key, &listed(&visits));
                out.group = visits;
            }
            _ => {
                let mut tally = Tally::new(masters);
                group.iter().for_each(|&o| tally.add(visit(o)));
                tally.finish(key, out);
            }
        }
    }
    out.order = order;
}

/// Counts bucket `b` of `spilled`, too large to hold, as its visits come
/// (in input order, so in game order for each key).
pub(super) fn count_large(spilled: &Spilled<Visits>, b: usize, masters: bool) -> Result<Counted, SpillError> {
    // A bucket of the last level holds a few keys.
    let mut tallies: BTreeMap<u64, Tally> = BTreeMap::new();
    let (mut bytes, mut chunk) = (Vec::new(), Vec::new());
    spilled.read(b, &mut bytes, &mut chunk, |visits| {
        for v in visits {
            tallies.entry(v.key).or_insert_with(|| Tally::new(masters)).add(v);
        }
        Ok::<_, SpillError>(())
    })?;
    let mut out = Counted::default();
    for (key, tally) in tallies {
        tally.finish(key, &mut out);
    }
    Ok(out)
}

impl Counted {
    fn position(&mut self, key: u64, entry: &PositionEntry) {
        let before = self.bytes.len();
        encode_position(entry, &mut self.bytes);
        self.positions.push((key, self.bytes.len() - before));
    }
}

/// The entry of a position reached in `visits` (one per game, in game
/// order; at most [`LISTED`]): its games listed.
fn listed(visits: &[Visit]) -> PositionEntry {
    let mut moves: Vec<u16> = visits.iter().map(|v| v.mv).collect();
    moves.sort_unstable();
    moves.dedup();
    let move_index = |mv: u16| moves.binary_search(&mv).unwrap_or(0) as u32;
    let games = visits.iter().map(|v| GameRef { game: v.game, mv: move_index(v.mv), rank: 0 }).collect();
    PositionEntry::Listed { moves: moves.iter().map(|&m| Move::from_raw(m)).collect(), games }
}

/// A game a cell may keep.
#[derive(Clone, Copy, Default)]
struct Kept {
    cell: Cell,
    game: u32,
    mv: u16,
    rank: u64,
}

/// The games a cell (Lichess: its newest, oldest first) or a year
/// (masters: its best, best first) keeps, in place.
#[derive(Clone, Copy, Default)]
struct KeptList {
    len: usize,
    items: [Kept; MASTERS_GAMES],
}

impl KeptList {
    fn as_slice(&self) -> &[Kept] {
        &self.items[..self.len]
    }
}

/// A position's visits counted as they come, in game order.
struct Tally {
    masters: bool,
    games: usize,
    /// The first visits, while there are at most [`LISTED`].
    first: Vec<Visit>,
    /// Per (move, cell), as `move << 32 | cell`, in the order first seen:
    /// the stats, and the game while it is the only one; and where each
    /// is in `cells`.
    cells: Vec<(u64, Stats, Option<u32>)>,
    cell_at: MixMap<u64, usize>,
    /// Per cell (Lichess) or year (masters), in the order first seen: the
    /// games kept; and where each is in `kept`.
    kept: Vec<(u32, KeptList)>,
    kept_at: MixMap<u32, usize>,
}

impl Tally {
    fn new(masters: bool) -> Tally {
        Tally {
            masters,
            games: 0,
            first: Vec::new(),
            cells: Vec::new(),
            cell_at: MixMap::default(),
            kept: Vec::new(),
            kept_at: MixMap::default(),
        }
    }

    /// The next visit (games rising).
    fn add(&mut self, v: &Visit) {
        self.games += 1;
        if self.games <= LISTED {
            self.first.push(*v);
            return;
        }
        for f in std::mem::take(&mut self.first) {
            self.count(&f);
        }
        self.count(v);
    }

    fn count(&mut self, v: &Visit) {
        let stats = Stats::of_game(v.outcome, v.rating);
        let key = u64::from(v.mv) << 32 | u64::from(v.cell.0);
        match self.cell_at.entry(key) {
            Entry::Vacant(e) => {
                e.insert(self.cells.len());
                self.cells.push((key, stats, Some(v.game)));
            }
            Entry::Occupied(e) => {
                let (_, s, only) = &mut self.cells[*e.get()];
                s.add(&stats);
                *only = None;
            }
        }
        let kept = Kept { cell: v.cell, game: v.game, mv: v.mv, rank: v.rank };
        let group = if self.masters { u32::from(v.cell.month().year()) } else { v.cell.0 };
        let at = match self.kept_at.entry(group) {
            Entry::Vacant(e) => {
                self.kept.push((group, KeptList::default()));
                *e.insert(self.kept.len() - 1)
            }
            Entry::Occupied(e) => *e.get(),
        };
        let list = &mut self.kept[at].1;
        if self.masters {
            let best = list.as_slice();
            let at = best.partition_point(|k| (Reverse(k.rank), k.game) < (Reverse(v.rank), v.game));
            if at < MASTERS_GAMES {
                let end = (list.len + 1).min(MASTERS_GAMES);
                list.items.copy_within(at..end - 1, at + 1);
                list.items[at] = kept;
                list.len = end;
            }
        } else {
            if list.len == RECENT_GAMES {
                list.items.copy_within(1..RECENT_GAMES, 0);
                list.len -= 1;
            }
            list.items[list.len] = kept;
            list.len += 1;
        }
    }

    /// Writes the position `key`'s single or entry into `out`.
    fn finish(self, key: u64, out: &mut Counted) {
        match self.first[..] {
            [only] if self.games == 1 => out.singles.push((key, only.game, only.ply)),
            _ if self.games <= LISTED => out.position(key, &listed(&self.first)),
            _ => out.position(key, &self.entry()),
        }
    }

    /// The entry of more than [`LISTED`] games: counted by cell, with each
    /// cell's kept games.
    fn entry(mut self) -> PositionEntry {
        // By move, then cell: the moves in order.
        self.cells.sort_unstable_by_key(|c| c.0);
        let mv_of = |key: u64| (key >> 32) as u16;
        let mut moves: Vec<u16> = self.cells.iter().map(|c| mv_of(c.0)).collect();
        moves.dedup();
        let move_index = |mv: u16| moves.binary_search(&mv).unwrap_or(0);
        let mut out: Vec<MoveStats> =
            moves.iter().map(|&mv| MoveStats { mv: Move::from_raw(mv), cells: Vec::new() }).collect();
        for &(key, stats, game) in &self.cells {
            out[move_index(mv_of(key))].cells.push(MoveCell { cell: Cell(key as u32), stats, game });
        }
        self.kept.sort_unstable_by_key(|k| k.0);
        let game_ref = |k: &Kept| GameRef { game: k.game, mv: move_index(k.mv) as u32, rank: k.rank };
        let games = if self.masters {
            // Each year's best in their cells' lists, best first.
            let mut kept: Vec<Kept> = self.kept.iter().flat_map(|(_, list)| list.as_slice().iter().copied()).collect();
            kept.sort_by_key(|k| (k.cell, Reverse(k.game)));
            kept.chunk_by(|a, b| a.cell == b.cell)
                .map(|group| {
                    let mut top: Vec<GameRef> = group.iter().map(game_ref).collect();
                    top.sort_by_key(|r| Reverse(r.rank));
                    CellGames { cell: group[0].cell, top, recent: Vec::new() }
                })
                .collect()
        } else {
            self.kept
                .iter()
                .map(|(cell, newest)| CellGames {
                    cell: Cell(*cell),
                    top: Vec::new(),
                    recent: newest.as_slice().iter().rev().map(game_ref).collect(),
                })
                .collect()
        };
        PositionEntry::Counted { moves: out, games }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::SplitMix64;
    use crate::explorer::model::{Month, Outcome, RatingGroup, Speed};

    /// The entry as the counting made it before [`Tally`]: every visit in
    /// memory, sorted (stable sorts: ties in game order).
    fn reference(visits: &[Visit], masters: bool) -> PositionEntry {
        if visits.len() <= LISTED {
            return listed(visits);
        }
        let mut moves: Vec<u16> = visits.iter().map(|v| v.mv).collect();
        moves.sort_unstable();
        moves.dedup();
        let move_index = |mv: u16| moves.binary_search(&mv).unwrap_or(0);
        let mut cells: Vec<(usize, Cell, Stats, u32)> =
            visits.iter().map(|v| (move_index(v.mv), v.cell, Stats::of_game(v.outcome, v.rating), v.game)).collect();
        let mut by_cell: Vec<(Cell, u32, usize, u64)> =
            visits.iter().map(|v| (v.cell, v.game, move_index(v.mv), v.rank)).collect();
        cells.sort_by_key(|c| (c.0, c.1));
        let mut out: Vec<MoveStats> =
            moves.iter().map(|&mv| MoveStats { mv: Move::from_raw(mv), cells: Vec::new() }).collect();
        for group in cells.chunk_by(|a, b| (a.0, a.1) == (b.0, b.1)) {
            let mut s = Stats::default();
            group.iter().for_each(|c| s.add(&c.2));
            let only = (group.len() == 1).then_some(group[0].3);
            out[group[0].0].cells.push(MoveCell { cell: group[0].1, stats: s, game: only });
        }
        if masters {
            let year = |c: Cell| c.month().year();
            by_cell.sort_by_key(|&(cell, _, _, rank)| (year(cell), Reverse(rank)));
            let mut kept = Vec::new();
            for y in by_cell.chunk_by(|a, b| year(a.0) == year(b.0)) {
                kept.extend_from_slice(&y[..y.len().min(MASTERS_GAMES)]);
            }
            by_cell = kept;
        }
        by_cell.sort_by_key(|&(cell, game, _, _)| (cell, Reverse(game)));
        let games = by_cell
            .chunk_by(|a, b| a.0 == b.0)
            .map(|group| {
                let refs = group.iter().map(|&(_, game, mv, rank)| GameRef { game, mv: mv as u32, rank });
                if masters {
                    let mut top: Vec<GameRef> = refs.collect();
                    top.sort_by_key(|r| Reverse(r.rank));
                    CellGames { cell: group[0].0, top, recent: Vec::new() }
                } else {
                    CellGames { cell: group[0].0, top: Vec::new(), recent: refs.take(RECENT_GAMES).collect() }
                }
            })
            .collect();
        PositionEntry::Counted { moves: out, games }
    }

    #[test]
    fn visits_spread_then_sorted_are_sorted() {
        let mut rng = SplitMix64::new(76);
        let mut spread = Vec::new();
        for case in 0..200 {
            let n = [0, 1, 511, 512, 3000, 20_000][case % 6];
            // Keys sharing 0 to 60 high bits, repeated keys among them.
            let prefix = rng.next_u64();
            let free = rng.below(65) as u32;
            let mask = if free == 64 { u64::MAX } else { (1u64 << free) - 1 };
            let mut order: Vec<u128> = (0..n)
                .map(|i| {
                    let k = if rng.below(4) == 0 { prefix } else { prefix & !mask | rng.next_u64() & mask };
                    u128::from(k) << 64 | u128::from(rng.below(1000) as u32) << 32 | i as u128
                })
                .collect();
            let mut want = order.clone();
            want.sort_unstable();
            sort_visits(&mut order, &mut spread);
            assert_eq!(order, want, "case {case}: {n} visits, {free} free bits");
        }
    }

    #[test]
    fn counting_as_visits_come_gives_the_entry_of_all_the_visits_held() {
        let mut rng = SplitMix64::new(9);
        for case in 0..400 {
            let masters = case % 2 == 1;
            let n = [2, LISTED, LISTED + 1, 60, 300, 2000][case % 6];
            let mut game = 0u32;
            let visits: Vec<Visit> = (0..n)
                .map(|_| {
                    game += 1 + rng.below(3) as u32;
                    let month = Month::new(2015 + rng.below(4) as u16, 1 + rng.below(2) as u8);
                    let speed = [Speed::Blitz, Speed::Rapid][rng.below(2) as usize];
                    Visit {
                        key: 7,
                        game,
                        ply: rng.below(50) as u8,
                        mv: [0x0c1c, 0x0d1d, 0x0b1b, 0x0e2e][rng.below(1 + case as u64 % 4) as usize],
                        cell: Cell::new(month, speed, RatingGroup::from_index(rng.below(3) as u8).unwrap()),
                        outcome: Outcome::from_u8(rng.below(3) as u8).unwrap(),
                        rating: rng.below(3000) as u16,
                        // Ties of ranks too (not in an index: ids are unique).
                        rank: if masters { rng.below(40) } else { 0 },
                    }
                })
                .collect();
            let mut tally = Tally::new(masters);
            visits.iter().for_each(|v| tally.add(v));
            let mut counted = Counted::default();
            tally.finish(7, &mut counted);
            let mut want = Counted::default();
            want.position(7, &reference(&visits, masters));
            assert!(counted.bytes == want.bytes, "case {case}: {n} visits, masters {masters}");
        }
    }
}
