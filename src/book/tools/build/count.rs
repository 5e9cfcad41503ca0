//! Counting one bucket of `book build`'s events ([`count_bucket`]): all
//! the events of a position are in one bucket, in input order, so each
//! position is counted exactly as one pass over the games would count it,
//! `make-book`'s halving included. A bucket that fits in memory is sorted
//! by key ([`sort_events`], stable) and read off position by position; a
//! larger one (few positions met very often, such as the first moves) is
//! added up in a map ([`MapCount`]); a bucket whose positions do not fit
//! in memory even when added up is split again by the next 12 key bits,
//! into buckets of a deeper level, so any input is counted within the
//! budget ([`super::budget`]).

use super::budget;
use super::event::{Buckets, Spilled};
use super::event::{Counting, Event, BUCKETS, BUCKET_BITS, HEAD, MAX_LEVEL};
use super::BuildError;
use crate::book::tools::make_book::COUNT_MAX;
use crate::spill::SpillError;
use std::collections::hash_map::{Entry, HashMap};
use std::path::Path;
/// Record flag: the mover of the move is white.
pub const WHITE: u8 = 1;

/// One move of a position, or its head (`mv == HEAD`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rec {
    pub key: u64,
    /// When the move was first met: a number that grows with the input.
    pub first: u64,
    /// Head: the sum of the rated games' ratings.
    pub rating_sum: u64,
    /// Times played (head: times visited).
    pub n: u32,
    /// Points: for the mover (moves), for white (head); 2 a win, 1 a draw.
    pub sum: u32,
    /// Head: rated games through the position.
    pub rating_n: u32,
    pub mv: u16,
    pub flags: u8,
}

/// One position's counts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub key: u64,
    /// The head record (YACB: visits, points, ratings).
    pub head: Option<Rec>,
    /// Move records, in the order first met.
    pub moves: Vec<Rec>,
}

impl Group {
    /// An empty group for `key` (its buffers reused).
    pub fn reset(&mut self, key: u64) {
        self.key = key;
        self.head = None;
        self.moves.clear();
    }

    /// Counts one event of the position, met at `first` (which grows with
    /// the input). With `halving` (Polyglot), when a move reaches
    /// [`COUNT_MAX`] plays every move of the position is halved, as
    /// `make-book` does.
    #[inline]
    pub fn add(&mut self, e: &Event, first: u64, halving: bool) {
        if e.mv == HEAD {
            let h = self.head.get_or_insert(Rec { key: self.key, mv: HEAD, first, ..Rec::default() });
            h.n = h.n.saturating_add(1);
            h.sum = h.sum.saturating_add(e.points() as u32);
            if e.rating() > 0 {
                h.rating_sum += e.rating() as u64;
                h.rating_n += 1;
            }
            return;
        }
        let i = match self.moves.iter().position(|r| r.mv == e.mv) {
            Some(i) => i,
            None => {
                let flags = if e.white() { WHITE } else { 0 };
                self.moves.push(Rec { key: self.key, mv: e.mv, first, flags, ..Rec::default() });
                self.moves.len() - 1
            }
        };
        let r = &mut self.moves[i];
        r.n = r.n.saturating_add(1);
        r.sum = r.sum.saturating_add(e.points() as u32);
        if halving && r.n >= COUNT_MAX {
            for r in &mut self.moves {
                r.n = r.n.div_ceil(2);
                r.sum = r.sum.div_ceil(2);
            }
        }
    }
}

/// The scratch space of [`sort_events`], kept from bucket to bucket.
#[derive(Debug, Default)]
pub struct SortScratch {
    aux: Vec<Event>,
    /// Per digit: where its events go, then where they end.
    at: Vec<u32>,
}

/// Events an insertion sort takes.
const SMALL: usize = 24;

/// Sorts events by key, keeping the input order of equal keys; the keys'
/// top `skip` bits are known to be equal. A most significant digit radix
/// sort with about one event a digit (up to 16 bits), so that what is
/// left for each digit is a few events for an insertion sort; a digit
/// with many events (a position met often) is sorted by the next digit,
/// unless its keys are all equal. The first pass leaves the events in the
/// scratch buffer, which then swaps places with `v` (no copy back).
pub fn sort_events(v: &mut Vec<Event>, scratch: &mut SortScratch, skip: u32) {
    if let Some(bits) = distribute(v, scratch, skip) {
        let n = v.len();
        std::mem::swap(v, &mut scratch.aux);
        v.truncate(n);
        sort_digits(v, scratch, skip, bits);
    }
}

/// [`sort_events`] for a part of the events (a digit's).
fn sort_slice(v: &mut [Event], scratch: &mut SortScratch, skip: u32) {
    if let Some(bits) = distribute(v, scratch, skip) {
        v.copy_from_slice(&scratch.aux[..v.len()]);
        sort_digits(v, scratch, skip, bits);
    }
}

/// Sorts a few events or equal keys in place (`None`), or else spreads
/// `v` by the `bits`-bit digit below the top `skip` bits into
/// `scratch.aux` (stable) and gives `bits`; `scratch.at[d]` is then where
/// digit `d` ends.
fn distribute(v: &mut [Event], scratch: &mut SortScratch, skip: u32) -> Option<u32> {
    if v.len() <= SMALL || skip >= 64 {
        insertion_sort(v);
        return None;
    }
    let first = v[0].key();
    if v.iter().all(|e| e.key() == first) {
        return None;
    }
    let bits = (usize::BITS - 1 - v.len().leading_zeros()).clamp(1, 16).min(64 - skip);
    let shift = 64 - skip - bits;
    let mask = (1u64 << bits) - 1;
    let digit = |e: &Event| ((e.key() >> shift) & mask) as usize;
    let SortScratch { aux, at } = scratch;
    at.clear();
    at.resize(1 << bits, 0);
    for e in v.iter() {
        at[digit(e)] += 1;
    }
    let mut sum = 0;
    for a in at.iter_mut() {
        (*a, sum) = (sum, sum + *a);
    }
    // At least as long as `v`: every slot read below is written first.
    if aux.len() < v.len() {
        aux.resize(v.len(), Event::default());
    }
    for e in v.iter() {
        let d = digit(e);
        aux[at[d] as usize] = *e;
        at[d] += 1;
    }
    Some(bits)
}

/// Sorts each digit of `v` (spread by [`distribute`]).
fn sort_digits(v: &mut [Event], scratch: &mut SortScratch, skip: u32, bits: u32) {
    let mut deeper = Vec::new();
    let mut a = 0;
    for &end in scratch.at.iter() {
        let b = end as usize;
        match b - a {
            0 | 1 => {}
            n if n <= SMALL => insertion_sort(&mut v[a..b]),
            _ => deeper.push((a, b)),
        }
        a = b;
    }
    for (a, b) in deeper {
        sort_slice(&mut v[a..b], scratch, skip + bits);
    }
}

/// A stable insertion sort by key.
fn insertion_sort(v: &mut [Event]) {
    for i in 1..v.len() {
        let e = v[i];
        let key = e.key();
        let mut j = i;
        while j > 0 && v[j - 1].key() > key {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = e;
    }
}

/// Hands each position of `sorted` (events sorted by key, equal keys in
/// input order) to `emit`, in key order.
pub fn count_sorted<E>(
    sorted: &[Event],
    halving: bool,
    group: &mut Group,
    mut emit: impl FnMut(&Group) -> Result<(), E>,
) -> Result<(), E> {
    let mut a = 0;
    while a < sorted.len() {
        let key = sorted[a].key();
        group.reset(key);
        let mut b = a;
        while b < sorted.len() && sorted[b].key() == key {
            group.add(&sorted[b], b as u64, halving);
            b += 1;
        }
        emit(group)?;
        a = b;
    }
    Ok(())
}

/// Bytes a position's slot takes in a [`MapCount`]'s map (88 bytes, at a
/// load of 7/8 down to half after a growth); its move list counts apart.
const GROUP_BYTES: usize = 200;
const REC_BYTES: usize = std::mem::size_of::<Rec>();

/// A bucket too large to sort, added up position by position in input
/// order, within a byte budget.
pub struct MapCount {
    groups: HashMap<u64, Group>,
    bytes: usize,
    limit: usize,
    seen: u64,
    halving: bool,
}

impl MapCount {
    pub fn new(limit: usize, halving: bool) -> MapCount {
        MapCount { groups: HashMap::new(), bytes: 0, limit, seen: 0, halving }
    }

    /// Counts the next events; `false` (and the counts are incomplete)
    /// once the positions pass the budget.
    pub fn add(&mut self, events: &[Event]) -> bool {
        for e in events {
            let g = match self.groups.entry(e.key()) {
                Entry::Occupied(o) => o.into_mut(),
                Entry::Vacant(v) => {
                    self.bytes += GROUP_BYTES;
                    v.insert(Group { key: e.key(), ..Group::default() })
                }
            };
            let capacity = g.moves.capacity();
            g.add(e, self.seen, self.halving);
            self.bytes += (g.moves.capacity() - capacity) * REC_BYTES;
            self.seen += 1;
            if self.bytes > self.limit {
                return false;
            }
        }
        true
    }

    /// The positions, in key order.
    pub fn into_sorted(self) -> Vec<Group> {
        let mut groups: Vec<Group> = self.groups.into_values().collect();
        groups.sort_unstable_by_key(|g| g.key);
        groups
    }
}

/// Buffers for reading and sorting, reused from bucket to bucket.
#[derive(Default)]
pub struct Scratch {
    bytes: Vec<u8>,
    chunk: Vec<Event>,
    events: Vec<Event>,
    sort: SortScratch,
    group: Group,
}

/// How a bucket is counted.
#[derive(Clone, Copy)]
pub struct CountSpec<'a> {
    pub counting: Counting,
    /// Bytes one counting thread may use for a bucket (sorting takes 24
    /// bytes an event, a map about 200 bytes a position and 40 a move).
    pub bytes: usize,
    pub fan_in: usize,
    pub dir: &'a Path,
    /// Names the spill files of buckets split again (unique per thread).
    pub name: &'a str,
}

/// Counts bucket `b` of `src`, handing its positions to `emit` in key
/// order; gives the number of times a bucket had to be split again.
pub fn count_bucket(
    spec: &CountSpec<'_>,
    src: &Spilled,
    b: usize,
    scratch: &mut Scratch,
    emit: &mut dyn FnMut(&Group) -> Result<(), BuildError>,
) -> Result<u64, BuildError> {
    let halving = spec.counting == Counting::Polyglot;
    let n = src.len(b);
    if n == 0 {
        return Ok(0);
    }
    // The usual case: sort the bucket's events by key.
    if budget::sorts(n, spec.bytes) {
        let mut events = std::mem::take(&mut scratch.events);
        events.clear();
        src.append(b, &mut scratch.bytes, &mut events)?;
        let skip = BUCKET_BITS * (src.level() as u32 + 1);
        sort_events(&mut events, &mut scratch.sort, skip);
        let mut group = std::mem::take(&mut scratch.group);
        let counted = count_sorted(&events, halving, &mut group, |g| emit(g));
        (scratch.events, scratch.group) = (events, group);
        return counted.map(|()| 0);
    }
    // Too many events to sort: add them up, if the positions fit.
    let mut map = MapCount::new(spec.bytes, halving);
    let read =
        src.read(b, &mut scratch.bytes, &mut scratch.chunk, |ev| if map.add(ev) { Ok(()) } else { Err(Stop::Full) });
    match read {
        Ok(()) => {
            for g in map.into_sorted() {
                emit(&g)?;
            }
            return Ok(0);
        }
        Err(Stop::Full) => drop(map),
        Err(Stop::Spill(e)) => return Err(e.into()),
    }
    // Too many positions: split the bucket by the next key bits.
    if src.level() >= MAX_LEVEL {
        return Err(BuildError::Budget { bytes: spec.bytes });
    }
    let level = src.level() + 1;
    let name = format!("{}-{level}-{b}", spec.name);
    let mut deeper = Buckets::new(level, src.encoding(), budget::split_limit(spec.bytes), spec.dir, name);
    src.read(b, &mut scratch.bytes, &mut scratch.chunk, |ev| deeper.push(ev))?;
    let deeper = deeper.finish(spec.fan_in)?;
    let mut splits = 1;
    for sub in 0..BUCKETS {
        splits += count_bucket(spec, &deeper, sub, scratch, emit)?;
    }
    Ok(splits)
}

/// Why reading a bucket into a map stopped.
enum Stop {
    Full,
    Spill(SpillError),
}

impl From<SpillError> for Stop {
    fn from(e: SpillError) -> Stop {
        Stop::Spill(e)
    }
}

#[cfg(test)]
mod tests {
    use super::super::event::{scrambled, Layout};
    use super::*;
    use crate::testdata::TempDir;

    fn ev(key: u64, mv: u16, points: u8) -> Event {
        Event::new(key, mv, 0, points, true)
    }

    #[test]
    fn sorting_keeps_the_input_order_of_equal_keys() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut scratch = SortScratch::default();
        // Few distinct keys spread over the whole range and one hot key;
        // keys differing only in their low bits (digit after digit);
        // distinct keys; and sizes around the insertion sort's.
        type Key = dyn Fn(u64, usize) -> u64;
        let shapes: [(usize, &Key); 5] = [
            (20_000, &|x, i| if i % 3 == 0 { 42 << 40 } else { (x % 500).wrapping_mul(0x9E37_79B9_7F4A_7C15) }),
            (20_000, &|x, _| 0x1234_5678_9A00_0000 | (x % 3000)),
            (5_000, &|x, _| x),
            (25, &|x, _| x % 7),
            (24, &|x, _| x % 5),
        ];
        for (n, key) in shapes {
            let mut v: Vec<Event> = (0..n).map(|i| ev(key(next(), i), i as u16, 0)).collect();
            let mut want = v.clone();
            want.sort_by_key(|e| e.key());
            sort_events(&mut v, &mut scratch, 0);
            assert_eq!(v, want, "a stable sort by key ({n} events)");
        }
    }

    #[test]
    fn halving_halves_every_move_of_the_position() {
        let mut g = Group::default();
        g.reset(7);
        g.add(&ev(7, 2, 1), 0, true);
        for i in 0..COUNT_MAX - 1 {
            g.add(&ev(7, 1, 2), 1 + i as u64, true);
        }
        assert_eq!(g.moves.iter().map(|r| (r.mv, r.n)).collect::<Vec<_>>(), [(2, 1), (1, COUNT_MAX - 1)]);
        g.add(&ev(7, 1, 1), 1 << 20, true);
        assert_eq!((g.moves[1].n, g.moves[1].sum), (8192, (2 * 16383 + 1u32).div_ceil(2)));
        assert_eq!((g.moves[0].n, g.moves[0].sum, g.moves[0].first), (1, 1, 0));
    }

    #[test]
    fn yacb_heads_count_visits_points_and_rated_games() {
        let mut g = Group::default();
        g.reset(3);
        for (rating, points) in [(2000, 2), (0, 1), (2200, 0)] {
            g.add(&Event::new(3, HEAD, rating, points, true), 0, false);
        }
        let h = g.head.unwrap();
        assert_eq!((h.n, h.sum, h.rating_n, h.rating_sum), (3, 3, 2, 4200));
        assert!(g.moves.is_empty());
    }

    #[test]
    fn the_map_and_the_sort_count_alike() {
        let events: Vec<Event> = (0..3000u64).map(|i| ev((i * 7919) % 300, (i % 5) as u16, (i % 3) as u8)).collect();
        let mut sorted = events.clone();
        sort_events(&mut sorted, &mut SortScratch::default(), 0);
        let mut by_sort = Vec::new();
        count_sorted(&sorted, true, &mut Group::default(), |g| {
            by_sort.push(g.clone());
            Ok::<(), ()>(())
        })
        .unwrap();
        let mut map = MapCount::new(1 << 30, true);
        assert!(map.add(&events));
        let by_map = map.into_sorted();
        assert_eq!(by_map.len(), 300);
        let counts = |gs: &[Group]| {
            gs.iter()
                .map(|g| (g.key, g.moves.iter().map(|r| (r.mv, r.n, r.sum)).collect::<Vec<_>>()))
                .collect::<Vec<_>>()
        };
        assert_eq!(counts(&by_map), counts(&by_sort));
        let mut small = MapCount::new(1000, true);
        assert!(!small.add(&events), "300 positions pass a 1000-byte budget");
    }

    fn count_all(spec: &CountSpec<'_>, src: &Spilled) -> (Vec<Group>, u64) {
        let mut groups = Vec::new();
        let mut splits = 0;
        let mut scratch = Scratch::default();
        for b in 0..BUCKETS {
            splits += count_bucket(spec, src, b, &mut scratch, &mut |g| {
                groups.push(g.clone());
                Ok(())
            })
            .unwrap();
        }
        (groups, splits)
    }

    #[test]
    fn counts_are_the_same_held_spilled_combined_or_split_again() {
        for layout in [Layout::Full, Layout::Compact] {
            counts_are_the_same_in(layout);
        }
    }

    fn counts_are_the_same_in(layout: Layout) {
        let dir = TempDir::new("partition");
        let input = scrambled(20_000, 2, 1);
        let spec =
            |bytes, fan_in| CountSpec { counting: Counting::Polyglot, bytes, fan_in, dir: dir.path(), name: "t" };
        let mut held = Buckets::new(0, layout, usize::MAX, dir.path(), "held".into());
        held.push(&input).unwrap();
        let held = held.finish(64).unwrap();
        assert_eq!(held.file_count, 0);
        let (want, splits) = count_all(&spec(1 << 20, 64), &held);
        assert_eq!((want.len(), splits), (20_000, 0));
        assert!(want.windows(2).all(|w| w[0].key < w[1].key), "positions in key order");
        assert!(want.iter().all(|g| g.moves.iter().map(|r| r.n).sum::<u32>() == 2));
        // 200 bytes a bucket: buckets of more than 8 events go to a map,
        // which holds no position: they are split again.
        for (limit, fan_in, bytes) in [(1000, 64, 1 << 20), (1000, 3, 1 << 20), (700, 2, 200)] {
            let mut b = Buckets::new(0, layout, limit, dir.path(), format!("s{limit}-{fan_in}"));
            for chunk in input.chunks(333) {
                b.push(chunk).unwrap();
            }
            let src = b.finish(fan_in).unwrap();
            assert!(src.file_count >= input.len() / (limit + 333), "{}", src.file_count);
            let (got, splits) = count_all(&spec(bytes, fan_in), &src);
            // `first` only orders the moves of a position: leave it out.
            type Counts = Vec<(u64, Vec<(u16, u32, u32, u8)>)>;
            let counts = |gs: &[Group]| -> Counts {
                gs.iter().map(|g| (g.key, g.moves.iter().map(|r| (r.mv, r.n, r.sum, r.flags)).collect())).collect()
            };
            assert!(counts(&got) == counts(&want), "{layout:?}, limit {limit}, fan-in {fan_in}, {bytes} bytes");
            assert_eq!(splits > 0, bytes == 200);
        }
    }

    #[test]
    fn a_bucket_that_cannot_be_split_enough_is_a_budget_error() {
        let dir = TempDir::new("partition-budget");
        let mut b = Buckets::new(MAX_LEVEL, Layout::Full, usize::MAX, dir.path(), "x".into());
        // 50 positions in one bucket of the deepest level (key bits 4 to 15 clear).
        let one_bucket: Vec<Event> = (1..=50u64).map(|i| Event::new(i << 20, 0, 0, 0, false)).collect();
        b.push(&one_bucket).unwrap();
        let src = b.finish(64).unwrap();
        let spec = CountSpec { counting: Counting::Yacb, bytes: 64, fan_in: 64, dir: dir.path(), name: "t" };
        let mut failed = false;
        for bucket in 0..BUCKETS {
            let r = count_bucket(&spec, &src, bucket, &mut Scratch::default(), &mut |_| Ok(()));
            failed |= matches!(r, Err(BuildError::Budget { .. }));
        }
        assert!(failed);
    }
}
