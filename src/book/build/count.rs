//! Counting one bucket of `book build`'s events: all the events of a
//! position are in one bucket, in input order, so each position is
//! counted exactly as one pass over the games would count it, `make-book`'s
//! halving included. A bucket that fits in memory is sorted by key
//! ([`sort_events`], stable) and read off position by position; a larger
//! one (few positions met very often, such as the first moves) is added
//! up in a map ([`MapCount`]).

use super::pipeline::Event;
use crate::book::make_book::COUNT_MAX;
use std::collections::hash_map::{Entry, HashMap};

/// The move field of a position's head record (no Polyglot or engine move is 0xFFFF).
pub const HEAD: u16 = 0xFFFF;
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
/// unless its keys are all equal. One pass of many ways beat two passes
/// of few ways that kept each pass in the cache (72,000 events: 13 ns an
/// event, against 17 ns with 12-bit digits and 16 ns in two passes). The
/// first pass leaves the events in the scratch buffer, which then swaps
/// places with `v` (no copy back).
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
