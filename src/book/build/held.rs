//! The events of `book build` held in memory by bucket of keys
//! ([`bucket_of`]) until they reach the budget and are spilled
//! ([`super::spill`]); then, with the spill files, read back one bucket
//! at a time ([`Spilled`]) to be counted ([`super::count`]).
//!
//! Invariants:
//! * Each bucket's events are read back in input order: the spill files
//!   in the order written, then the lists, then the held batches in the
//!   order they came. Events pushed one at a time ([`Buckets::push`])
//!   first take in the batches held so far, so whatever is in the lists
//!   came before whatever is in the batches.
//! * A [`Grouped`] batch holds its events in one layout only, the one its
//!   [`Buckets`] spill ([`Layout`]).
//! * Nothing here depends on the number of threads.

use super::event::{bucket_of, pack_compact, unpack_compact, Event, Layout, BUCKETS};
use super::spill::{SpillError, SpillReader, SpillWriter};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A batch's events grouped by level-0 bucket ([`Grouped::fill`]):
/// bucket `b`'s are events `ends[b - 1]..ends[b]`, in input order.
pub struct Grouped {
    ends: Box<[u32; BUCKETS]>,
    events: HeldEvents,
}

/// How a [`Grouped`] batch stores its events.
enum HeldEvents {
    /// As they are (YACB counting's).
    Full(Vec<Event>),
    /// Packed, 9 bytes an event ([`pack_compact`]; Polyglot counting's).
    Compact(Vec<u8>),
}

impl Default for Grouped {
    /// No events, no room yet.
    fn default() -> Grouped {
        Grouped { ends: Box::new([0; BUCKETS]), events: HeldEvents::Full(Vec::new()) }
    }
}

impl Grouped {
    /// Holds `events` (in input order) grouped by level-0 bucket, in
    /// `layout`; `events` and `aux` are the caller's scratch, and either
    /// may come back as the other's buffer. Compact events are packed as
    /// they are spread (one pass), full ones spread by
    /// [`group_by_bucket`] and taken whole.
    pub fn fill(&mut self, events: &mut Vec<Event>, aux: &mut Vec<Event>, layout: Layout) {
        match (layout, &mut self.events) {
            (Layout::Compact, HeldEvents::Compact(packed)) => group_packed(events, packed, &mut self.ends),
            (Layout::Compact, held) => {
                let mut packed = Vec::new();
                group_packed(events, &mut packed, &mut self.ends);
                *held = HeldEvents::Compact(packed);
            }
            (Layout::Full, held) => {
                group_by_bucket(events, aux, &mut self.ends);
                // The batch takes the events, the caller its old buffer.
                match held {
                    HeldEvents::Full(mine) => std::mem::swap(events, mine),
                    HeldEvents::Compact(_) => *held = HeldEvents::Full(std::mem::take(events)),
                }
            }
        }
    }

    /// Events held.
    pub fn event_count(&self) -> usize {
        self.ends[BUCKETS - 1] as usize
    }

    fn layout(&self) -> Layout {
        match self.events {
            HeldEvents::Full(_) => Layout::Full,
            HeldEvents::Compact(_) => Layout::Compact,
        }
    }

    /// Where bucket `b`'s events are (in events).
    #[inline]
    fn range(&self, b: usize) -> Range<usize> {
        let start = if b == 0 { 0 } else { self.ends[b - 1] as usize };
        start..self.ends[b] as usize
    }

    /// Bucket `b`'s events, onto `out`.
    fn append_bucket(&self, b: usize, out: &mut Vec<Event>) {
        let r = self.range(b);
        match &self.events {
            HeldEvents::Full(events) => out.extend_from_slice(&events[r]),
            HeldEvents::Compact(packed) => {
                let len = Layout::Compact.event_len();
                unpack_compact(&packed[r.start * len..r.end * len], b, out);
            }
        }
    }

    /// Hands bucket `b`'s events to `f` (unpacked into `chunk` when packed).
    fn read_bucket<E>(
        &self,
        b: usize,
        chunk: &mut Vec<Event>,
        f: &mut impl FnMut(&[Event]) -> Result<(), E>,
    ) -> Result<(), E> {
        match &self.events {
            HeldEvents::Full(events) => f(&events[self.range(b)]),
            HeldEvents::Compact(_) => {
                chunk.clear();
                self.append_bucket(b, chunk);
                f(chunk)
            }
        }
    }

    /// Writes bucket `b`'s events to `w`.
    fn write_bucket(&self, b: usize, w: &mut SpillWriter) -> Result<(), SpillError> {
        let r = self.range(b);
        match &self.events {
            HeldEvents::Full(events) => w.write_bucket(b, &events[r]),
            HeldEvents::Compact(packed) => {
                let len = Layout::Compact.event_len();
                w.write_packed(b, &packed[r.start * len..r.end * len])
            }
        }
    }
}

/// Events held in memory by bucket, and the files spilled so far.
///
/// Events come one at a time ([`Buckets::push`], into a list per bucket)
/// or as whole batches grouped by bucket ([`Buckets::push_grouped`],
/// level 0 only), which are held as they came: a spill writes each
/// bucket's events from the lists, then from every batch in order, so
/// the events of a batch are copied once, into the file.
pub struct Buckets {
    level: u8,
    layout: Layout,
    lists: Vec<Vec<Event>>,
    /// Room each list gets when first used.
    each: usize,
    batches: Vec<Grouped>,
    held: usize,
    /// Events held at most (then they are spilled).
    limit: usize,
    dir: PathBuf,
    /// Spill files are `{name}-{n}`.
    name: String,
    files: Vec<PathBuf>,
    spilled: u64,
}

impl Buckets {
    /// Buckets of `level` holding at most `limit` events, spilling files
    /// of `layout` named `{name}-{n}` to `dir`.
    pub fn new(level: u8, layout: Layout, limit: usize, dir: &Path, name: String) -> Buckets {
        Buckets {
            level,
            layout,
            lists: (0..BUCKETS).map(|_| Vec::new()).collect(),
            each: super::budget::list_room(limit),
            batches: Vec::new(),
            held: 0,
            limit: limit.max(1),
            dir: dir.to_path_buf(),
            name,
            files: Vec::new(),
            spilled: 0,
        }
    }

    /// Takes the next events (in input order).
    pub fn push(&mut self, events: &[Event]) -> Result<(), SpillError> {
        self.absorb_batches();
        for e in events {
            let list = &mut self.lists[bucket_of(e.key(), self.level)];
            if list.capacity() == 0 {
                list.reserve(self.each);
            }
            list.push(*e);
        }
        self.took(events.len()).map(drop)
    }

    /// Takes the next events, already grouped by level-0 bucket, and
    /// holds them as they are; gives back the batches a spill has written
    /// (for their buffers to be used again).
    pub fn push_grouped(&mut self, batch: Grouped) -> Result<Vec<Grouped>, SpillError> {
        debug_assert_eq!(self.level, 0, "batches are grouped by level-0 bucket");
        let n = batch.event_count();
        debug_assert!(n == 0 || batch.layout() == self.layout, "batches are held in the layout of the files");
        self.batches.push(batch);
        self.took(n)
    }

    /// Moves the held batches' events into the lists.
    fn absorb_batches(&mut self) {
        for batch in std::mem::take(&mut self.batches) {
            for (b, list) in self.lists.iter_mut().enumerate() {
                batch.append_bucket(b, list);
            }
        }
    }

    /// Counts `n` more events held, spilling them all at the limit; gives
    /// the batches written.
    fn took(&mut self, n: usize) -> Result<Vec<Grouped>, SpillError> {
        self.held += n;
        if self.held >= self.limit {
            return self.spill();
        }
        Ok(Vec::new())
    }

    fn spill(&mut self) -> Result<Vec<Grouped>, SpillError> {
        let path = self.dir.join(format!("{}-{:05}", self.name, self.files.len()));
        let mut w = SpillWriter::create(&path, self.level, self.layout)?;
        for (b, list) in self.lists.iter_mut().enumerate() {
            w.write_bucket(b, list)?;
            list.clear();
            for batch in &self.batches {
                batch.write_bucket(b, &mut w)?;
            }
        }
        self.spilled += w.finish()?;
        self.files.push(path);
        self.held = 0;
        Ok(std::mem::take(&mut self.batches))
    }

    /// Ends the input: the files are opened for reading, combined first
    /// (`fan_in` at a time, in stages) while there are more than `fan_in`.
    pub fn finish(self, fan_in: usize) -> Result<Spilled, SpillError> {
        let fan_in = fan_in.max(2);
        let mut spilled = Spilled {
            level: self.level,
            layout: self.layout,
            files: Vec::new(),
            lists: self.lists,
            batches: self.batches,
            file_count: self.files.len(),
            spilled: self.spilled,
        };
        let mut paths = self.files;
        let mut stage = 0;
        while paths.len() > fan_in {
            let mut next = Vec::with_capacity(paths.len().div_ceil(fan_in));
            for (i, chunk) in paths.chunks(fan_in).enumerate() {
                if let [one] = chunk {
                    next.push(one.clone());
                    continue;
                }
                let path = self.dir.join(format!("{}-s{stage}-{i:05}", self.name));
                combine(chunk, &path, self.level, self.layout)?;
                next.push(path);
            }
            paths = next;
            stage += 1;
        }
        for p in &paths {
            spilled.files.push(SpillReader::open(p, self.level, self.layout)?);
        }
        Ok(spilled)
    }
}

/// Groups `events` by level-0 bucket, each bucket's in input order, and
/// sets `ends[b]` to the end of bucket `b`'s events. One stable pass of
/// 4096 ways into `aux`, which then takes the place of `events` (the
/// old `events` become the scratch).
fn group_by_bucket(events: &mut Vec<Event>, aux: &mut Vec<Event>, ends: &mut [u32; BUCKETS]) {
    let mut at = bucket_starts(events, ends);
    // Scratch only grows: every slot read below is written first.
    let n = events.len();
    if aux.len() < n {
        aux.resize(n, Event::default());
    }
    for e in events.iter() {
        let b = bucket_of(e.key(), 0);
        aux[at[b] as usize] = *e;
        at[b] += 1;
    }
    std::mem::swap(events, aux);
    events.truncate(n);
}

/// Where each event of `events` goes when they are grouped by level-0
/// bucket, each bucket's in input order: sets `ends[b]` to the end of
/// bucket `b`'s events and gives `at[b]`, where bucket `b` starts.
fn bucket_starts(events: &[Event], ends: &mut [u32; BUCKETS]) -> [u32; BUCKETS] {
    let mut at = [0u32; BUCKETS];
    for e in events.iter() {
        at[bucket_of(e.key(), 0)] += 1;
    }
    let mut total = 0;
    for (a, end) in at.iter_mut().zip(ends.iter_mut()) {
        (*a, total) = (total, total + *a);
        *end = total;
    }
    at
}

/// [`group_by_bucket`] into compact events ([`pack_compact`]): each
/// event is packed where its bucket puts it, so the 4096-way spread
/// writes 9 bytes an event instead of 12 and no second pass packs them.
fn group_packed(events: &[Event], packed: &mut Vec<u8>, ends: &mut [u32; BUCKETS]) {
    const LEN: usize = Layout::Compact.event_len();
    let mut at = bucket_starts(events, ends);
    packed.clear();
    packed.resize(events.len() * LEN, 0);
    for e in events {
        let b = bucket_of(e.key(), 0);
        let i = at[b] as usize * LEN;
        pack_compact(e, &mut packed[i..i + LEN]);
        at[b] += 1;
    }
}

/// Writes the spill files `inputs` as one (bucket by bucket, each
/// bucket's events in the inputs' order) and deletes them.
fn combine(inputs: &[PathBuf], out: &Path, level: u8, layout: Layout) -> Result<(), SpillError> {
    let readers = inputs.iter().map(|p| SpillReader::open(p, level, layout)).collect::<Result<Vec<_>, _>>()?;
    let mut w = SpillWriter::create(out, level, layout)?;
    let (mut buf, mut events) = (Vec::new(), Vec::new());
    for b in 0..BUCKETS {
        for r in &readers {
            r.read_bucket(b, &mut buf, &mut events, |ev| w.write_bucket(b, ev))?;
        }
    }
    w.finish()?;
    for p in inputs {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}

/// The events of a pass, to be read back bucket by bucket: the spill
/// files, in order, then what was still held.
pub struct Spilled {
    level: u8,
    layout: Layout,
    files: Vec<SpillReader>,
    lists: Vec<Vec<Event>>,
    /// Held batches, after the lists (see [`Buckets`]).
    batches: Vec<Grouped>,
    /// Files spilled (before any combining) and the events in them.
    pub file_count: usize,
    pub spilled: u64,
}

impl Spilled {
    pub fn level(&self) -> u8 {
        self.level
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Events in bucket `b`.
    pub fn len(&self, b: usize) -> usize {
        self.files.iter().map(|r| r.len(b) as usize).sum::<usize>()
            + self.lists[b].len()
            + self.batches.iter().map(|g| g.range(b).len()).sum::<usize>()
    }

    /// Gives back the files' space from bucket `b` on (see
    /// [`SpillReader::release_from`]): those buckets must not be read
    /// again. A file that cannot be cut stays whole until it is deleted.
    pub fn release_from(&self, b: usize) {
        for r in &self.files {
            if let Err(e) = r.release_from(b) {
                tracing::debug!("{}: not cut short: {e}", r.path().display());
            }
        }
    }

    /// Appends bucket `b`'s events to `out`, in input order.
    pub fn append(&self, b: usize, scratch: &mut Vec<u8>, out: &mut Vec<Event>) -> Result<(), SpillError> {
        for r in &self.files {
            r.append_bucket(b, scratch, out)?;
        }
        out.extend_from_slice(&self.lists[b]);
        for g in &self.batches {
            g.append_bucket(b, out);
        }
        Ok(())
    }

    /// Hands bucket `b`'s events to `f` in input order, a chunk at a
    /// time; `bytes` and `chunk` are scratch.
    pub fn read<E: From<SpillError>>(
        &self,
        b: usize,
        bytes: &mut Vec<u8>,
        chunk: &mut Vec<Event>,
        mut f: impl FnMut(&[Event]) -> Result<(), E>,
    ) -> Result<(), E> {
        for r in &self.files {
            r.read_bucket(b, bytes, chunk, &mut f)?;
        }
        f(&self.lists[b])?;
        for g in &self.batches {
            g.read_bucket(b, chunk, &mut f)?;
        }
        Ok(())
    }
}

impl Drop for Spilled {
    fn drop(&mut self) {
        for r in &self.files {
            let _ = std::fs::remove_file(r.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::event::scrambled as events;
    use super::*;
    use crate::testdata::TempDir;

    /// Every bucket's events, read back in order (both ways, alike).
    fn read_back(src: &Spilled) -> Vec<Vec<Event>> {
        let (mut bytes, mut chunk) = (Vec::new(), Vec::new());
        (0..BUCKETS)
            .map(|b| {
                let mut out = Vec::new();
                src.append(b, &mut Vec::new(), &mut out).unwrap();
                let mut chunks = Vec::new();
                src.read(b, &mut bytes, &mut chunk, |ev| {
                    chunks.extend_from_slice(ev);
                    Ok::<(), SpillError>(())
                })
                .unwrap();
                assert_eq!((out.len(), &out), (src.len(b), &chunks));
                out
            })
            .collect()
    }

    fn grouped(events: &[Event], layout: Layout) -> Grouped {
        let mut g = Grouped::default();
        g.fill(&mut events.to_vec(), &mut Vec::new(), layout);
        g
    }

    #[test]
    fn grouped_batches_read_back_as_the_same_events_pushed_one_by_one() {
        for layout in [Layout::Full, Layout::Compact] {
            grouped_batches_read_back_in(layout);
        }
    }

    fn grouped_batches_read_back_in(layout: Layout) {
        let dir = TempDir::new("partition-grouped");
        let input = events(5_000, 3, 4);
        let mut want = Buckets::new(0, layout, usize::MAX, dir.path(), "want".into());
        want.push(&input).unwrap();
        let want = read_back(&want.finish(64).unwrap());
        assert!(want.iter().filter(|b| !b.is_empty()).count() > 3000);
        // Held whole, spilled every few batches, and pushes between batches.
        for (limit, pushed_every) in [(usize::MAX, 0), (2_500, 0), (1_000, 3)] {
            let mut b = Buckets::new(0, layout, limit, dir.path(), format!("g{limit}-{pushed_every}"));
            let mut recycled = 0;
            for (i, chunk) in input.chunks(700).enumerate() {
                if pushed_every > 0 && i % pushed_every == 0 {
                    b.push(chunk).unwrap();
                    continue;
                }
                let g = grouped(chunk, layout);
                assert_eq!(g.event_count(), chunk.len());
                recycled += b.push_grouped(g).unwrap().len();
            }
            let src = b.finish(64).unwrap();
            assert_eq!(src.file_count > 0, recycled > 0, "spilled batches are given back");
            assert!(read_back(&src) == want, "{layout:?}, limit {limit}, a push every {pushed_every} batches");
        }
    }

    #[test]
    fn one_keys_events_read_back_in_input_order_across_files_lists_and_batches() {
        let dir = TempDir::new("held-order");
        let key = 0x0123_4567_89AB_CDEF;
        let ev = |mv: u16| Event::new(key, mv, 0, 1, true);
        for layout in [Layout::Full, Layout::Compact] {
            // Spilled at 5 events: the batches of moves 0–1 and 2–3 go
            // into the lists when 4 is pushed, and all five to a file;
            // then 5 comes as a batch, taken into the lists when 6 is
            // pushed, and 7 as a batch held as it is.
            let mut b = Buckets::new(0, layout, 5, dir.path(), format!("o{layout:?}"));
            b.push_grouped(grouped(&[ev(0), ev(1)], layout)).unwrap();
            b.push_grouped(grouped(&[ev(2), ev(3)], layout)).unwrap();
            b.push(&[ev(4)]).unwrap();
            b.push_grouped(grouped(&[ev(5)], layout)).unwrap();
            b.push(&[ev(6)]).unwrap();
            b.push_grouped(grouped(&[ev(7)], layout)).unwrap();
            let src = b.finish(64).unwrap();
            assert_eq!((src.file_count, src.lists[bucket_of(key, 0)].len(), src.batches.len()), (1, 2, 1));
            let got: Vec<u16> = read_back(&src)[bucket_of(key, 0)].iter().map(|e| e.mv).collect();
            assert_eq!(got, (0..8).collect::<Vec<_>>(), "{layout:?}");
        }
    }

    #[test]
    fn a_batch_refilled_in_the_other_layout_holds_only_that_layout() {
        let input = events(300, 2, 3);
        let mut g = grouped(&input, Layout::Full);
        assert_eq!(g.layout(), Layout::Full);
        g.fill(&mut input.clone(), &mut Vec::new(), Layout::Compact);
        assert_eq!((g.layout(), g.event_count()), (Layout::Compact, input.len()));
        let mut all = Vec::new();
        for b in 0..BUCKETS {
            g.append_bucket(b, &mut all);
        }
        let mut want = input.clone();
        want.sort_by_key(|e| bucket_of(e.key(), 0));
        assert_eq!(all, want, "grouped by bucket, stable");
    }
}
