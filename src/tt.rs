//! The transposition table: shared by all search threads without locks.
//!
//! Each entry is exactly an SFTT entry (see docs/formats.md#sftt), 16 bytes:
//!
//! | bits of `data` | field        | meaning                                             |
//! |----------------|--------------|-----------------------------------------------------|
//! | 0–7            | `depth8`     | search depth − `DEPTH_OFFSET` (−7); 0 = empty slot  |
//! | 8–15           | `gen_bound8` | bits 0–1 bound (1 upper, 2 lower, 3 exact), bit 2 PV, bits 3–7 generation |
//! | 16–31          | `move`       | engine move (Stockfish 16-bit)                      |
//! | 32–47          | `value`      | i16 search value, mate scores relative to the node  |
//! | 48–63          | `eval`       | i16 static evaluation                               |
//!
//! A slot is two `AtomicU64`s: `check = key ^ data` and `data`. Writers store
//! both words without locking; a reader accepts a slot only when
//! `check ^ data` equals the probed key, so an entry torn by a concurrent
//! write is (with overwhelming probability) rejected rather than trusted.
//! Buckets are one 64-byte cache line of four slots; the bucket index is the
//! high half of `key × bucket_count`. Replacement prefers the same key, then
//! an empty slot, then the slot with the lowest `depth − 8 × age`.

pub mod persist;

use crate::types::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

/// Stored depth = depth − DEPTH_OFFSET, so quiescence depths down to −6 fit.
pub const DEPTH_OFFSET: i32 = -7;
const GENERATION_DELTA: u8 = 8;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    None = 0,
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

impl Bound {
    /// The bound's name in JSON (`archivist serve`): none, upper, lower, exact.
    pub fn name(self) -> &'static str {
        match self {
            Bound::None => "none",
            Bound::Upper => "upper",
            Bound::Lower => "lower",
            Bound::Exact => "exact",
        }
    }

    /// Whether a value `v` with this bound decides a node searched with the
    /// window (`alpha`, `beta`): exact always, a lower bound at or above
    /// beta, an upper bound at or below alpha.
    #[inline]
    pub fn cuts(self, v: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => v >= beta,
            Bound::Upper => v <= alpha,
            Bound::None => false,
        }
    }

    pub const fn from_bits(b: u8) -> Bound {
        match b & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

/// One entry with its fields as stored (the SFTT entry).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct TtEntry {
    pub key: u64,
    pub depth8: u8,
    pub gen_bound8: u8,
    pub mv: u16,
    pub value: i16,
    pub eval: i16,
}

impl TtEntry {
    #[inline]
    pub fn data(&self) -> u64 {
        self.depth8 as u64
            | (self.gen_bound8 as u64) << 8
            | (self.mv as u64) << 16
            | (self.value as u16 as u64) << 32
            | (self.eval as u16 as u64) << 48
    }

    #[inline]
    pub fn from_parts(key: u64, data: u64) -> TtEntry {
        TtEntry {
            key,
            depth8: data as u8,
            gen_bound8: (data >> 8) as u8,
            mv: (data >> 16) as u16,
            value: (data >> 32) as u16 as i16,
            eval: (data >> 48) as u16 as i16,
        }
    }

    #[inline]
    pub fn depth(&self) -> i32 {
        self.depth8 as i32 + DEPTH_OFFSET
    }

    #[inline]
    pub fn bound(&self) -> Bound {
        Bound::from_bits(self.gen_bound8)
    }

    #[inline]
    pub fn is_pv(&self) -> bool {
        self.gen_bound8 & 4 != 0
    }

    #[inline]
    pub fn generation(&self) -> u8 {
        self.gen_bound8 & !7
    }

    #[inline]
    pub fn best_move(&self) -> Move {
        Move::from_raw(self.mv)
    }
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

#[repr(C, align(64))]
#[derive(Default)]
struct Bucket {
    slots: [Slot; 4],
}

// A slot is the key check and the packed entry; four fill one cache line.
const _: () = assert!(std::mem::size_of::<Slot>() == 16);
const _: () = assert!(std::mem::size_of::<Bucket>() == 64 && std::mem::align_of::<Bucket>() == 64);

pub struct TranspositionTable {
    buckets: Box<[Bucket]>,
    generation8: AtomicU8,
}

impl TranspositionTable {
    /// A table of `mb` mebibytes (at least one bucket).
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable { buckets: alloc_buckets(mb), generation8: AtomicU8::new(0) }
    }

    /// Reallocates to `mb` mebibytes; all entries are lost.
    pub fn resize(&mut self, mb: usize) {
        self.buckets = Box::new([]);
        self.buckets = alloc_buckets(mb);
    }

    pub fn size_mb(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>() / (1024 * 1024)
    }

    /// Number of slots (4 per bucket).
    pub fn capacity(&self) -> usize {
        self.buckets.len() * 4
    }

    /// Empties every slot, using `threads` threads for large tables.
    pub fn clear(&self, threads: usize) {
        let threads = threads.clamp(1, 64);
        let clear_part = |part: &[Bucket]| {
            for b in part {
                for slot in &b.slots {
                    slot.check.store(0, Relaxed);
                    slot.data.store(0, Relaxed);
                }
            }
        };
        if threads == 1 {
            // No thread of its own: where threads cannot start (the browser
            // build) one thread clears in place.
            clear_part(&self.buckets);
        } else {
            let chunk = self.buckets.len().div_ceil(threads).max(1);
            std::thread::scope(|s| {
                for part in self.buckets.chunks(chunk) {
                    s.spawn(move || clear_part(part));
                }
            });
        }
        self.generation8.store(0, Relaxed);
    }

    /// Starts a new search: entries from earlier searches age.
    pub fn new_search(&self) {
        self.generation8.fetch_add(GENERATION_DELTA, Relaxed);
    }

    pub fn generation(&self) -> u8 {
        self.generation8.load(Relaxed)
    }

    pub fn set_generation(&self, g: u8) {
        self.generation8.store(g & !7, Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let idx = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[idx]
    }

    /// The entry for `key`, if present and not torn.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for slot in &self.bucket(key).slots {
            let data = slot.data.load(Relaxed);
            let check = slot.check.load(Relaxed);
            if check ^ data == key && data as u8 != 0 {
                return Some(TtEntry::from_parts(key, data));
            }
        }
        None
    }

    /// Stores a search result with the normal replacement rule.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn store(&self, key: u64, depth: i32, bound: Bound, pv: bool, mv: Move, value: i32, eval: i32) {
        let depth8 = (depth - DEPTH_OFFSET).clamp(1, 255) as u8;
        let gen_bound8 = self.generation() | (pv as u8) << 2 | bound as u8;
        let entry = TtEntry {
            key,
            depth8,
            gen_bound8,
            mv: mv.raw(),
            value: value.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
        };
        self.write(entry, false);
    }

    /// Inserts a raw entry (from an SFTT file) with the replacement rule;
    /// the entry keeps its own generation bits.
    pub fn insert_entry(&self, entry: TtEntry) {
        if entry.depth8 != 0 {
            self.write(entry, true);
        }
    }

    fn relative_age(&self, gen_bound8: u8) -> i32 {
        // Generation lives in bits 3–7; the cycle wraps at 256.
        (self.generation().wrapping_sub(gen_bound8 & !7) as i32) & 0xF8
    }

    fn write(&self, mut e: TtEntry, loading: bool) {
        let bucket = self.bucket(e.key);
        let mut target = &bucket.slots[0];
        let mut target_score = i32::MAX;
        let mut existing = None;
        for slot in &bucket.slots {
            let data = slot.data.load(Relaxed);
            let key = slot.check.load(Relaxed) ^ data;
            if data as u8 == 0 || key == e.key {
                target = slot;
                if key == e.key && data as u8 != 0 {
                    existing = Some(TtEntry::from_parts(key, data));
                }
                break;
            }
            let old = TtEntry::from_parts(key, data);
            let score = old.depth8 as i32 - self.relative_age(old.gen_bound8);
            if score < target_score {
                target_score = score;
                target = slot;
            }
        }
        if let Some(old) = existing {
            if e.mv == 0 {
                e.mv = old.mv;
            }
            // Keep a deeper entry for the same key unless the new one is exact
            // or nearly as deep. Age does not matter here: a deep result for
            // this very position stays useful in later searches (and after a
            // hash file is loaded); age only decides which *other* keys to evict.
            let deep_enough = e.depth8 as i32 + 2 * (e.is_pv() as i32) > old.depth8 as i32 - 4;
            if !deep_enough && e.bound() != Bound::Exact {
                if old.mv != e.mv && e.mv != 0 && !loading {
                    let mut kept = old;
                    kept.mv = e.mv;
                    publish(target, kept);
                }
                return;
            }
            if loading && e.depth8 < old.depth8 {
                return;
            }
        } else if loading && target_score != i32::MAX {
            // A full bucket while loading: replace only a shallower entry.
            let victim = TtEntry::from_parts(0, target.data.load(Relaxed));
            if victim.depth8 >= e.depth8 {
                return;
            }
        }
        publish(target, e);
    }

    /// Per mille of sampled slots written in the current search.
    pub fn hashfull(&self) -> u32 {
        let gen = self.generation();
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            for slot in &b.slots {
                let data = slot.data.load(Relaxed);
                if data as u8 != 0 && (data >> 8) as u8 & !7 == gen {
                    used += 1;
                }
            }
        }
        if sample == 0 {
            0
        } else {
            (used * 1000 / (sample * 4)) as u32
        }
    }

    /// Every occupied, untorn slot (for saving to SFTT). The iterator reads
    /// live memory: call it when no search is running.
    pub fn entries(&self) -> impl Iterator<Item = TtEntry> + '_ {
        self.buckets.iter().flat_map(|b| b.slots.iter()).filter_map(|slot| {
            let data = slot.data.load(Relaxed);
            (data as u8 != 0).then(|| TtEntry::from_parts(slot.check.load(Relaxed) ^ data, data))
        })
    }

    /// Prefetch hint for the bucket of `key` (no-op where unsupported).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key) as *const Bucket as *const i8;
            // SAFETY: `p` points into our own live allocation; prefetch has no
            // observable effect besides caching and cannot fault.
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }
}

#[inline]
fn publish(slot: &Slot, e: TtEntry) {
    let data = e.data();
    slot.data.store(data, Relaxed);
    slot.check.store(e.key ^ data, Relaxed);
}

fn alloc_buckets(mb: usize) -> Box<[Bucket]> {
    let n = (mb.max(1) * 1024 * 1024 / std::mem::size_of::<Bucket>()).max(1);
    let layout = match std::alloc::Layout::array::<Bucket>(n) {
        Ok(l) => l,
        Err(_) => return (0..1).map(|_| Bucket::default()).collect(),
    };
    // SAFETY: `layout` has non-zero size (n >= 1). All-zero bytes are a valid
    // `Bucket` (atomics of 0). On success the pointer owns `n` initialised
    // buckets allocated with the global allocator, so `Box::from_raw` of the
    // slice takes ownership correctly and frees it with the same layout.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout) as *mut Bucket;
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_packs_exactly_the_sftt_fields() {
        let e = TtEntry { key: 0xDEAD_BEEF, depth8: 20, gen_bound8: 0x8B, mv: 0x1234, value: -300, eval: 17 };
        assert_eq!(TtEntry::from_parts(e.key, e.data()), e);
        assert_eq!(e.depth(), 13);
        assert_eq!(e.bound(), Bound::Exact);
    }

    #[test]
    fn stored_entry_is_found_and_other_keys_miss() {
        let tt = TranspositionTable::new(1);
        tt.store(42, 10, Bound::Lower, false, Move::from_raw(77), 123, -5);
        let e = tt.probe(42).expect("stored");
        assert_eq!((e.depth(), e.bound(), e.mv, e.value, e.eval), (10, Bound::Lower, 77, 123, -5));
        assert!(tt.probe(43).is_none());
    }

    #[test]
    fn torn_slot_is_rejected() {
        let tt = TranspositionTable::new(1);
        tt.store(42, 10, Bound::Lower, false, Move::from_raw(77), 123, -5);
        let slot = &tt.bucket(42).slots[0];
        // Simulate a concurrent writer that stored only its data word.
        slot.data.store(TtEntry { key: 99, depth8: 30, ..Default::default() }.data(), Relaxed);
        assert!(tt.probe(42).is_none());
    }

    #[test]
    fn deeper_entry_survives_shallow_overwrite_in_same_search() {
        let tt = TranspositionTable::new(1);
        tt.store(5, 20, Bound::Lower, false, Move::from_raw(1), 50, 0);
        tt.store(5, 2, Bound::Lower, false, Move::from_raw(2), 10, 0);
        let e = tt.probe(5).expect("present");
        assert_eq!(e.depth(), 20);
        assert_eq!(e.mv, 2, "the newer move is still recorded");
        tt.store(5, 2, Bound::Exact, false, Move::from_raw(3), 10, 0);
        assert_eq!(tt.probe(5).expect("present").depth(), 2);
    }

    #[test]
    fn concurrent_writers_never_produce_a_wrong_entry() {
        let tt = TranspositionTable::new(1);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                let tt = &tt;
                s.spawn(move || {
                    for i in 0..200_000u64 {
                        let key = (i % 64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                        let v = (key >> 50) as i32;
                        tt.store(key, (t as i32 + i as i32) % 50, Bound::Exact, false, Move::from_raw(v as u16), v, v);
                        if let Some(e) = tt.probe(key) {
                            assert_eq!(e.value as i32, v);
                        }
                    }
                });
            }
        });
    }

    #[test]
    fn hashfull_and_clear() {
        let tt = TranspositionTable::new(1);
        for k in 1..20_000u64 {
            tt.store(k.wrapping_mul(0x9E37_79B9_7F4A_7C15), 5, Bound::Exact, false, Move::NONE, 0, 0);
        }
        assert!(tt.hashfull() > 300);
        tt.clear(2);
        assert_eq!(tt.hashfull(), 0);
        assert_eq!(tt.entries().count(), 0);
    }
}
