//! The counting table of `book build`: (position key, move) records in one
//! open-addressed array whose size never passes a byte budget. When it is
//! full, [`Table::spill`] sorts it in place and hands the cold records to a
//! writer (a sorted run, [`super::run`]); positions seen often stay (they
//! are "pinned"), so the positions whose Polyglot counts get halved are
//! nearly always counted in one place from their first game.
//!
//! For YACB every position has a head record (move [`HEAD`]): its visits,
//! white's points and the players' ratings. Polyglot positions have only
//! move records: halving (`make-book` halves every move of a position when
//! one reaches [`COUNT_MAX`]) finds them by probing from the position's
//! home slot, as linear probing without deletions keeps every record of a
//! key in the occupied run of slots that starts at its home.

use crate::book::make_book::COUNT_MAX;
use std::cmp::Ordering;

/// The move field of a position's head record (no Polyglot or engine move is 0xFFFF).
pub const HEAD: u16 = 0xFFFF;
/// Record flag: the mover of the move is white.
pub const WHITE: u8 = 1;
/// Record flag: the position's counts were halved here (Polyglot: set on
/// the moves present when it happened; it holds for the whole position).
pub const HALVED: u8 = 2;
/// Record flag: an intermediate merge combined the position from more than
/// one run (it counts as split in the final merge).
pub const SPLIT: u8 = 4;
const USED: u8 = 0x80;

/// One (key, move) record, or a position's head (`mv == HEAD`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rec {
    pub key: u64,
    /// Order of the first ply that met it: `file << 56 | game << 16 | ply`.
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

impl Rec {
    /// Ordering of records in runs: by key, then move (the head last).
    pub fn order(&self, other: &Rec) -> Ordering {
        (self.key, self.mv).cmp(&(other.key, other.mv))
    }

    fn used(&self) -> bool {
        self.flags & USED != 0
    }

    /// A record as written out (the table's own bits cleared).
    pub fn public(mut self) -> Rec {
        self.flags &= !USED;
        self
    }
}

/// Bytes one slot costs at the peak of a growth (old and new arrays).
const SLOT_PEAK_BYTES: usize = std::mem::size_of::<Rec>() * 3 / 2;
const MIN_SLOTS: usize = 1 << 12;

/// The counting table (see the module doc).
pub struct Table {
    slots: Vec<Rec>,
    len: usize,
    max_slots: usize,
    /// Polyglot: halve a position's moves when one reaches COUNT_MAX.
    halving: bool,
}

impl Table {
    /// A table that never holds more than `max_bytes` (at least a few
    /// thousand records).
    pub fn new(max_bytes: usize, halving: bool) -> Table {
        let max_slots = (max_bytes / SLOT_PEAK_BYTES).max(MIN_SLOTS);
        let mut start = max_slots;
        while start / 2 >= MIN_SLOTS && start > 1 << 16 {
            start /= 2;
        }
        Table { slots: zeroed_slots(start), len: 0, max_slots, halving }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The byte budget the table was made with.
    pub fn max_bytes(&self) -> usize {
        self.max_slots * SLOT_PEAK_BYTES
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn limit(&self) -> usize {
        self.slots.len() / 4 * 3
    }

    /// The first slot a position's records may take: grows with the key
    /// below the shard bits (keys are Zobrist hashes, uniform, and a
    /// shard's share one value of the top bits, [`super::counter::shard_of`]),
    /// so the table is nearly in key order already and a position's
    /// records sit side by side.
    fn home(&self, key: u64) -> usize {
        let below_shard = key.rotate_left(super::counter::SHARDS.trailing_zeros());
        ((below_shard as u128 * self.slots.len() as u128) >> 64) as usize
    }

    /// Makes room for `extra` more records, growing within the budget;
    /// `false` when the table is full and must be spilled.
    #[inline]
    pub fn reserve(&mut self, extra: usize) -> bool {
        self.len + extra <= self.limit() || self.grow(extra)
    }

    /// Grows the table fourfold (within the budget): every growth moves
    /// every record, so few large steps cost less than many small ones.
    #[cold]
    fn grow(&mut self, extra: usize) -> bool {
        if self.slots.len() >= self.max_slots {
            return false;
        }
        let grown = (self.slots.len() * 4).min(self.max_slots);
        let old = std::mem::replace(&mut self.slots, zeroed_slots(grown));
        self.len = 0;
        self.reinsert(old.into_iter().filter(Rec::used));
        self.len + extra <= self.limit()
    }

    /// Inserts records (with no duplicates).
    fn reinsert(&mut self, records: impl Iterator<Item = Rec>) {
        for r in records {
            let (i, _) = self.slot(r.key, r.mv);
            self.slots[i] = Rec { flags: r.flags | USED, ..r };
        }
    }

    /// Asks the CPU to fetch the home slot of a position (where its
    /// moves and head are), ahead of its use (a hint; no-op off x86-64).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.slots.as_ptr().wrapping_add(self.home(key)) as *const i8;
            // SAFETY: `home` is below `slots.len()`, so `p` points into our
            // live allocation; a prefetch has no effect besides caching and
            // cannot fault.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The slot of (key, move), created when missing (the caller reserved
    /// room); and whether it is new.
    fn slot(&mut self, key: u64, mv: u16) -> (usize, bool) {
        let n = self.slots.len();
        let mut i = self.home(key);
        loop {
            let r = &mut self.slots[i];
            if !r.used() {
                *r = Rec { key, mv, flags: USED, ..Rec::default() };
                self.len += 1;
                return (i, true);
            }
            if r.key == key && r.mv == mv {
                return (i, false);
            }
            i += 1;
            if i == n {
                i = 0;
            }
        }
    }

    /// Polyglot: one play of `mv` in the position `key` worth `points` to
    /// its mover, halving the position's counts as `make-book` does.
    /// Needs [`Table::reserve`]`(1)` first.
    pub fn add_pair(&mut self, key: u64, mv: u16, white: bool, points: u32, seq: u64) {
        let (i, new) = self.slot(key, mv);
        if new {
            let r = &mut self.slots[i];
            r.first = seq;
            r.flags |= if white { WHITE } else { 0 };
        }
        let r = &mut self.slots[i];
        r.n += 1;
        r.sum += points;
        if r.n >= COUNT_MAX {
            self.halve(key);
        }
    }

    /// Halves every move of the position `key`: its records all lie in
    /// the occupied run of slots from its home (see the module doc).
    fn halve(&mut self, key: u64) {
        let n = self.slots.len();
        let mut i = self.home(key);
        for _ in 0..n {
            let r = &mut self.slots[i];
            if !r.used() {
                break;
            }
            if r.key == key {
                r.n = r.n.div_ceil(2);
                r.sum = r.sum.div_ceil(2);
                r.flags |= HALVED;
            }
            i = if i + 1 == n { 0 } else { i + 1 };
        }
    }

    /// YACB: one visit of the position `key` by a game worth `points` to
    /// white, of mean rating `rating`. Needs [`Table::reserve`]`(1)` first.
    pub fn add_visit(&mut self, key: u64, points: u32, rating: Option<u32>, seq: u64) {
        let r = self.add_move(key, HEAD, points, seq);
        if let Some(rt) = rating {
            r.rating_sum += rt as u64;
            r.rating_n += 1;
        }
    }

    /// YACB: one play of `mv` from `key`, worth `points` to its mover.
    /// Needs [`Table::reserve`]`(1)` first.
    pub fn add_move(&mut self, key: u64, mv: u16, points: u32, seq: u64) -> &mut Rec {
        let (i, new) = self.slot(key, mv);
        let r = &mut self.slots[i];
        if new {
            r.first = seq;
        }
        r.n = r.n.saturating_add(1);
        r.sum = r.sum.saturating_add(points);
        r
    }

    /// Sorts the records in place (key, then move) at the front of the
    /// array. Slot order nearly is key order (see [`Table::home`]): the
    /// records are gathered in slot order, those that wrapped around the
    /// end moved back to the end, and an insertion sort finishes the job
    /// (a general sort takes over should it have too much to do).
    fn sort_in_place(&mut self) -> usize {
        let n = self.slots.len();
        // The cluster at slot 0 may hold records whose home is near the end.
        let first_free = self.slots.iter().position(|r| !r.used()).unwrap_or(n);
        let mut wrapped = Vec::new();
        for i in 0..first_free {
            if self.home(self.slots[i].key) >= n / 2 {
                wrapped.push(std::mem::take(&mut self.slots[i]));
            }
        }
        let mut w = 0;
        for i in 0..n {
            if self.slots[i].used() {
                self.slots.swap(w, i);
                w += 1;
            }
        }
        for r in wrapped {
            self.slots[w] = r;
            w += 1;
        }
        let live = &mut self.slots[..w];
        if !insertion_sort(live, 16 * w + 1024) {
            live.sort_unstable_by(Rec::order);
        }
        w
    }

    /// Writes out every position visited fewer than `pin` times (and never
    /// halved) through `write`, in (key, move) order, and keeps the others.
    /// Returns the records written. Keeps at most a quarter of the table:
    /// `pin` is raised until the pinned positions fit.
    pub fn spill<E>(&mut self, mut pin: u32, mut write: impl FnMut(Rec) -> Result<(), E>) -> Result<usize, E> {
        let live = self.sort_in_place();
        let groups = group_bounds(&self.slots[..live]);
        let visits = |g: &[Rec]| -> (u32, bool) {
            let head = g.last().filter(|r| r.mv == HEAD);
            let halved = is_halved(g);
            let n = if self.halving {
                g.iter().filter(|r| r.mv != HEAD).fold(0u32, |a, r| a.saturating_add(r.n))
            } else {
                head.map_or(0, |h| h.n)
            };
            (n, halved)
        };
        let room = self.slots.len() / 4;
        loop {
            let kept: usize = groups
                .iter()
                .map(|&(a, b)| &self.slots[a..b])
                .filter(|g| {
                    let (n, halved) = visits(g);
                    halved || n >= pin
                })
                .map(<[Rec]>::len)
                .sum();
            if kept <= room || pin == u32::MAX {
                break;
            }
            pin = pin.saturating_mul(2);
        }
        let mut keep = Vec::new();
        let mut written = 0;
        for &(a, b) in &groups {
            let g = &self.slots[a..b];
            let (n, halved) = visits(g);
            if (halved || n >= pin) && keep.len() + g.len() <= room {
                keep.extend_from_slice(g);
                continue;
            }
            for r in exported(g, self.halving) {
                write(r)?;
                written += 1;
            }
        }
        self.slots.iter_mut().for_each(|r| *r = Rec::default());
        self.len = 0;
        self.reinsert(keep.into_iter());
        Ok(written)
    }

    /// Every record, sorted (key, then move), as [`exported`] gives them.
    pub fn into_sorted(mut self) -> Vec<Rec> {
        let live = self.sort_in_place();
        // Written in place: the output never runs ahead of the input.
        let mut w = 0;
        let mut a = 0;
        while a < live {
            let key = self.slots[a].key;
            let b = a + self.slots[a..live].iter().take_while(|r| r.key == key).count();
            let halved = is_halved(&self.slots[a..b]);
            for i in a..b {
                if let Some(r) = export(&self.slots[i], self.halving, halved) {
                    self.slots[w] = r;
                    w += 1;
                }
            }
            a = b;
        }
        self.slots.truncate(w);
        self.slots
    }
}

/// `n` empty slots. Large arrays are probed at random, one cache line
/// an event: they ask the kernel for huge pages (transparent huge pages
/// in `madvise` mode, Debian's default), so the probes miss the TLB far
/// less. A hint: without it the table works the same.
fn zeroed_slots(n: usize) -> Vec<Rec> {
    // Advised before the first write, so the pages are huge from the start.
    let mut v = Vec::with_capacity(n);
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let bytes = n * std::mem::size_of::<Rec>();
        let start = v.as_mut_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes) / HUGE * HUGE;
        if end > first {
            // SAFETY: [first, end) lies inside the allocation of `v` and is
            // page-aligned; MADV_HUGEPAGE changes only how the kernel backs
            // those pages, not what they hold or who may touch them.
            unsafe { libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE) };
        }
    }
    v.resize(n, Rec::default());
    v
}

/// Whether a position's counts were halved (the flag on any of its records).
fn is_halved(group: &[Rec]) -> bool {
    group.iter().any(|r| r.flags & HALVED != 0)
}

/// One record of a position as written out: none for a Polyglot head
/// (Polyglot has no heads in the table), and with Polyglot halving the
/// position's `halved` flag carried by every move.
fn export(r: &Rec, halving: bool, halved: bool) -> Option<Rec> {
    if halving && r.mv == HEAD {
        return None;
    }
    let mut r = r.public();
    if halving && halved {
        r.flags |= HALVED;
    }
    Some(r)
}

/// A position's records as written out (see [`export`]).
fn exported(group: &[Rec], halving: bool) -> impl Iterator<Item = Rec> + '_ {
    let halved = is_halved(group);
    group.iter().filter_map(move |r| export(r, halving, halved))
}

/// Sorts nearly sorted records by [`Rec::order`], giving up (`false`)
/// after `budget` moves.
fn insertion_sort(recs: &mut [Rec], mut budget: usize) -> bool {
    for i in 1..recs.len() {
        let mut j = i;
        while j > 0 && recs[j - 1].order(&recs[j]) == Ordering::Greater {
            if budget == 0 {
                return false;
            }
            budget -= 1;
            recs.swap(j - 1, j);
            j -= 1;
        }
    }
    true
}

/// The (start, end) of each run of equal keys in sorted records.
fn group_bounds(sorted: &[Rec]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i].key != sorted[start].key {
            out.push((start, i));
            start = i;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_halves_every_move_of_the_position_only() {
        let mut t = Table::new(1 << 20, true);
        for i in 0..COUNT_MAX - 1 {
            assert!(t.reserve(2));
            t.add_pair(7, 1, true, 2, i as u64);
        }
        t.reserve(2);
        t.add_pair(7, 2, true, 1, 1 << 40);
        t.add_pair(8, 1, false, 1, 1 << 41);
        t.add_pair(7, 1, true, 1, 1 << 42);
        let recs = t.into_sorted();
        let get = |k, m| *recs.iter().find(|r| r.key == k && r.mv == m).unwrap();
        assert_eq!((get(7, 1).n, get(7, 1).sum), (8192, (2 * 16383 + 1u32).div_ceil(2)));
        assert_eq!((get(7, 2).n, get(7, 2).sum), (1, 1));
        assert_eq!((get(8, 1).n, get(8, 1).flags), (1, 0));
        assert_eq!(get(7, 2).first, 1 << 40);
        assert!(recs.iter().all(|r| r.mv != HEAD), "Polyglot positions have no heads");
    }

    #[test]
    fn growth_keeps_every_count_and_stops_at_the_budget() {
        let mut t = Table::new(200_000, false);
        let mut spilled = Vec::new();
        for k in 0..20_000u64 {
            if !t.reserve(1) {
                t.spill(u32::MAX, |r| {
                    spilled.push(r);
                    Ok::<(), ()>(())
                })
                .unwrap();
                assert!(t.reserve(1));
            }
            t.add_visit(k % 5000, 2, Some(2000), k);
        }
        assert!(!spilled.is_empty(), "a 200 kB table cannot hold 5,000 positions");
        assert!(t.slots.len() * std::mem::size_of::<Rec>() <= 200_000);
        let mut total: u64 = spilled.iter().map(|r| r.n as u64).sum();
        total += t.into_sorted().iter().map(|r| r.n as u64).sum::<u64>();
        assert_eq!(total, 20_000);
        assert!(spilled.windows(2).all(|w| w[0].key != w[1].key || w[0].mv != w[1].mv));
    }

    #[test]
    fn spill_keeps_often_seen_positions_and_writes_the_rest_sorted() {
        let mut t = Table::new(1 << 20, false);
        for i in 0..100 {
            t.reserve(2);
            t.add_visit(1, 1, None, i);
            t.add_move(1, 5, 1, i);
        }
        for k in 2..50u64 {
            t.reserve(1);
            t.add_visit(k * 1_000_003, 1, None, k);
        }
        let mut out = Vec::new();
        let n = t
            .spill(10, |r| {
                out.push(r);
                Ok::<(), ()>(())
            })
            .unwrap();
        assert_eq!(n, 48);
        assert!(out.windows(2).all(|w| w[0].order(&w[1]) == Ordering::Less));
        assert_eq!(t.len(), 2, "position 1 (100 visits) is pinned");
        let kept = t.into_sorted();
        assert_eq!(kept.iter().map(|r| r.n).collect::<Vec<_>>(), [100, 100]);
    }
}
