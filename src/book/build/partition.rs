//! The events of `book build`, held by bucket of keys ([`run::bucket_of`])
//! in input order and spilled as runs ([`run`]) whenever they reach the
//! memory budget; then read back one bucket at a time and counted
//! ([`count`]). A bucket whose positions do not fit in memory even when
//! added up is split again by the next 12 key bits, into buckets of its
//! own (a deeper level), so any input is counted within the budget.
//!
//! Nothing here depends on the number of threads: the events come in
//! input order, and each bucket is counted alone.

use super::count::{count_sorted, sort_events, Group, MapCount, SortScratch};
use super::pipeline::{Counting, Event};
use super::run::{
    bucket_of, pack_compact, unpack_compact, Layout, RunError, RunReader, RunWriter, BUCKETS, BUCKET_BITS, MAX_LEVEL,
};
use super::BuildError;
use std::path::{Path, PathBuf};

/// Events grouped by level-0 bucket ([`Grouped::fill`]): bucket `b`'s
/// are events `ends[b - 1]..ends[b]`, in input order, held in `events`
/// (the full layout) or packed in `packed` (the compact one, 9 bytes an
/// event: [`run::pack_compact`]), the other one empty.
pub struct Grouped {
    pub events: Vec<Event>,
    pub packed: Vec<u8>,
    pub ends: Box<[u32; BUCKETS]>,
}

impl Grouped {
    /// No events, no room yet.
    pub fn new() -> Grouped {
        Grouped { events: Vec::new(), packed: Vec::new(), ends: Box::new([0; BUCKETS]) }
    }

    /// Holds `events` (in input order) grouped by level-0 bucket, in
    /// `layout`; `events` and `aux` are the caller's scratch, and either
    /// may come back as the other's buffer. Compact events are packed as
    /// they are spread (one pass), full ones spread by
    /// [`group_by_bucket`] and taken whole.
    pub fn fill(&mut self, events: &mut Vec<Event>, aux: &mut Vec<Event>, layout: Layout) {
        self.events.clear();
        self.packed.clear();
        match layout {
            Layout::Compact => group_packed(events, &mut self.packed, &mut self.ends),
            Layout::Full => {
                group_by_bucket(events, aux, &mut self.ends);
                // The batch takes the events, the caller its old buffer.
                std::mem::swap(events, &mut self.events);
            }
        }
    }

    /// Events held.
    pub fn event_count(&self) -> usize {
        self.ends[BUCKETS - 1] as usize
    }

    /// Where bucket `b`'s events are (in events).
    #[inline]
    fn range(&self, b: usize) -> std::ops::Range<usize> {
        let start = if b == 0 { 0 } else { self.ends[b - 1] as usize };
        start..self.ends[b] as usize
    }

    /// Bucket `b`'s packed events (compact layout).
    fn packed_bucket(&self, b: usize) -> &[u8] {
        let (r, len) = (self.range(b), Layout::Compact.event_len());
        &self.packed[r.start * len..r.end * len]
    }

    /// Bucket `b`'s events, onto `out`.
    fn append_bucket(&self, b: usize, out: &mut Vec<Event>) {
        if self.packed.is_empty() {
            out.extend_from_slice(&self.events[self.range(b)]);
        } else {
            unpack_compact(self.packed_bucket(b), b, out);
        }
    }

    /// Writes bucket `b`'s events to `w`.
    fn write_bucket(&self, b: usize, w: &mut RunWriter) -> Result<(), RunError> {
        if self.packed.is_empty() {
            w.write_bucket(b, &self.events[self.range(b)])
        } else {
            w.write_packed(b, self.packed_bucket(b))
        }
    }
}

impl Default for Grouped {
    fn default() -> Grouped {
        Grouped::new()
    }
}

/// Events held in memory by bucket, and the runs spilled so far.
///
/// Events come one at a time ([`Buckets::push`], into a list per bucket)
/// or as whole batches grouped by bucket ([`Buckets::push_grouped`],
/// level 0 only), which are held as they came: a spill writes each
/// bucket's events from the lists, then from every batch in order, so
/// the events of a batch are copied once, into the run. Whatever is in
/// the lists came before whatever is in the batches.
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
    /// Run files are `{name}-{n}`.
    name: String,
    runs: Vec<PathBuf>,
    spilled: u64,
}

impl Buckets {
    /// Buckets of `level` holding at most `limit` events, spilling runs
    /// of `layout` named `{name}-{n}` to `dir`.
    pub fn new(level: u8, layout: Layout, limit: usize, dir: &Path, name: String) -> Buckets {
        // Room for an even share each, so the lists seldom grow.
        let each = (limit / BUCKETS + limit / BUCKETS / 4).min(1 << 16);
        Buckets {
            level,
            layout,
            lists: (0..BUCKETS).map(|_| Vec::new()).collect(),
            each,
            batches: Vec::new(),
            held: 0,
            limit: limit.max(1),
            dir: dir.to_path_buf(),
            name,
            runs: Vec::new(),
            spilled: 0,
        }
    }

    /// Takes the next events (in input order).
    pub fn push(&mut self, events: &[Event]) -> Result<(), RunError> {
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
    pub fn push_grouped(&mut self, batch: Grouped) -> Result<Vec<Grouped>, RunError> {
        assert_eq!(self.level, 0, "batches are grouped by level-0 bucket");
        assert_eq!(
            batch.packed.is_empty(),
            self.layout == Layout::Full || batch.event_count() == 0,
            "batches are held in the layout of the runs"
        );
        let n = batch.event_count();
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
    fn took(&mut self, n: usize) -> Result<Vec<Grouped>, RunError> {
        self.held += n;
        if self.held >= self.limit {
            return self.spill();
        }
        Ok(Vec::new())
    }

    fn spill(&mut self) -> Result<Vec<Grouped>, RunError> {
        let path = self.dir.join(format!("{}-{:05}", self.name, self.runs.len()));
        let mut w = RunWriter::create(&path, self.level, self.layout)?;
        for (b, list) in self.lists.iter_mut().enumerate() {
            w.write_bucket(b, list)?;
            list.clear();
            for batch in &self.batches {
                batch.write_bucket(b, &mut w)?;
            }
        }
        self.spilled += w.finish()?;
        self.runs.push(path);
        self.held = 0;
        Ok(std::mem::take(&mut self.batches))
    }

    /// Ends the input: the runs are opened for reading, combined first
    /// (`fan_in` at a time, in stages) while there are more than `fan_in`.
    pub fn finish(self, fan_in: usize) -> Result<Spilled, RunError> {
        let fan_in = fan_in.max(2);
        let mut spilled = Spilled {
            level: self.level,
            layout: self.layout,
            runs: Vec::new(),
            lists: self.lists,
            batches: self.batches,
            run_count: self.runs.len(),
            spilled: self.spilled,
        };
        let mut paths = self.runs;
        let mut stage = 0;
        while paths.len() > fan_in {
            let mut next = Vec::with_capacity(paths.len().div_ceil(fan_in));
            for (i, chunk) in paths.chunks(fan_in).enumerate() {
                if chunk.len() == 1 {
                    next.push(chunk[0].clone());
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
            spilled.runs.push(RunReader::open(p, self.level, self.layout)?);
        }
        Ok(spilled)
    }
}

/// Groups `events` by level-0 bucket, each bucket's in input order, and
/// sets `ends[b]` to the end of bucket `b`'s events. One stable pass of
/// 4096 ways into `aux`, which then takes the place of `events` (the
/// old `events` become the scratch). A batch's buckets have a few events
/// each, so the 4096 places written to at once are a few hundred pages
/// and about 256 kB of cache lines: 2.8 ns an event for 68,000 events,
/// where two passes of 64 ways took 7 ns.
pub fn group_by_bucket(events: &mut Vec<Event>, aux: &mut Vec<Event>, ends: &mut [u32; BUCKETS]) {
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

/// [`group_by_bucket`] into compact events ([`run::pack_compact`]): each
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

/// Writes the runs `inputs` as one (bucket by bucket, each bucket's events
/// in the inputs' order) and deletes them.
fn combine(inputs: &[PathBuf], out: &Path, level: u8, layout: Layout) -> Result<(), RunError> {
    let readers = inputs.iter().map(|p| RunReader::open(p, level, layout)).collect::<Result<Vec<_>, _>>()?;
    let mut w = RunWriter::create(out, level, layout)?;
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

/// The events of a pass, to be read back bucket by bucket: the runs, in
/// order, then what was still held.
pub struct Spilled {
    level: u8,
    layout: Layout,
    runs: Vec<RunReader>,
    lists: Vec<Vec<Event>>,
    /// Held batches, after the lists (see [`Buckets`]).
    batches: Vec<Grouped>,
    /// Runs spilled (before any combining) and the events in them.
    pub run_count: usize,
    pub spilled: u64,
}

impl Spilled {
    /// Events in bucket `b`.
    pub fn len(&self, b: usize) -> usize {
        self.runs.iter().map(|r| r.len(b) as usize).sum::<usize>()
            + self.lists[b].len()
            + self.batches.iter().map(|g| g.range(b).len()).sum::<usize>()
    }

    /// Gives back the runs' space from bucket `b` on (see
    /// [`RunReader::release_from`]): those buckets must not be read again.
    /// A run that cannot be cut stays whole until it is deleted.
    pub fn release_from(&self, b: usize) {
        for r in &self.runs {
            if let Err(e) = r.release_from(b) {
                tracing::debug!("{}: not cut short: {e}", r.path().display());
            }
        }
    }

    /// Appends bucket `b`'s events to `out`, in input order.
    pub fn append(&self, b: usize, scratch: &mut Vec<u8>, out: &mut Vec<Event>) -> Result<(), RunError> {
        for r in &self.runs {
            r.append_bucket(b, scratch, out)?;
        }
        out.extend_from_slice(&self.lists[b]);
        for g in &self.batches {
            g.append_bucket(b, out);
        }
        Ok(())
    }

    /// Hands bucket `b`'s events to `f` in input order, a chunk at a time.
    pub fn read<E: From<RunError>>(
        &self,
        b: usize,
        scratch: &mut Scratch,
        mut f: impl FnMut(&[Event]) -> Result<(), E>,
    ) -> Result<(), E> {
        for r in &self.runs {
            r.read_bucket(b, &mut scratch.bytes, &mut scratch.chunk, &mut f)?;
        }
        f(&self.lists[b])?;
        for g in &self.batches {
            if g.packed.is_empty() {
                f(&g.events[g.range(b)])?;
            } else {
                scratch.chunk.clear();
                g.append_bucket(b, &mut scratch.chunk);
                f(&scratch.chunk)?;
            }
        }
        Ok(())
    }
}

impl Drop for Spilled {
    fn drop(&mut self) {
        for r in &self.runs {
            let _ = std::fs::remove_file(r.path());
        }
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
pub struct CountSpec<'a> {
    pub counting: Counting,
    /// Bytes one counting thread may use for a bucket (sorting takes 24
    /// bytes an event, a map about 200 bytes a position and 40 a move).
    pub bytes: usize,
    pub fan_in: usize,
    pub dir: &'a Path,
    /// Names the runs of buckets split again (unique per thread).
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
    if n.saturating_mul(2 * std::mem::size_of::<Event>()) <= spec.bytes {
        let mut events = std::mem::take(&mut scratch.events);
        events.clear();
        src.append(b, &mut scratch.bytes, &mut events)?;
        let skip = BUCKET_BITS * (src.level as u32 + 1);
        sort_events(&mut events, &mut scratch.sort, skip);
        let mut group = std::mem::take(&mut scratch.group);
        let counted = count_sorted(&events, halving, &mut group, |g| emit(g));
        (scratch.events, scratch.group) = (events, group);
        return counted.map(|()| 0);
    }
    // Too many events to sort: add them up, if the positions fit.
    let mut map = MapCount::new(spec.bytes, halving);
    let mut fits = true;
    let stop = src.read(b, scratch, |ev| if map.add(ev) { Ok(()) } else { Err(Stop::Full) });
    match stop {
        Ok(()) => {}
        Err(Stop::Full) => fits = false,
        Err(Stop::Run(e)) => return Err(e.into()),
    }
    if fits {
        for g in map.into_sorted() {
            emit(&g)?;
        }
        return Ok(0);
    }
    drop(map);
    // Too many positions: split the bucket by the next key bits.
    if src.level >= MAX_LEVEL {
        return Err(BuildError::Budget { bytes: spec.bytes });
    }
    let level = src.level + 1;
    let limit = spec.bytes / 2 / std::mem::size_of::<Event>();
    let name = format!("{}-{level}-{b}", spec.name);
    let mut deeper = Buckets::new(level, src.layout, limit, spec.dir, name);
    src.read(b, scratch, |ev| deeper.push(ev))?;
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
    Run(RunError),
}

impl From<RunError> for Stop {
    fn from(e: RunError) -> Stop {
        Stop::Run(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::TempDir;

    /// Events of `positions` keys spread over the key space, each key met
    /// `n` times with moves `0..moves`, in a scrambled order.
    fn events(positions: u64, n: u64, moves: u64) -> Vec<Event> {
        let mut out = Vec::new();
        for i in 0..positions * n {
            let k = (i * 7919) % positions;
            let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            out.push(Event::new(key, (i % moves) as u16, 0, (i % 3) as u8, k % 2 == 0));
        }
        out
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
        let input = events(20_000, 2, 1);
        let spec =
            |bytes, fan_in| CountSpec { counting: Counting::Polyglot, bytes, fan_in, dir: dir.path(), name: "t" };
        let mut held = Buckets::new(0, layout, usize::MAX, dir.path(), "held".into());
        held.push(&input).unwrap();
        let held = held.finish(64).unwrap();
        assert_eq!(held.run_count, 0);
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
            assert!(src.run_count >= input.len() / (limit + 333), "{}", src.run_count);
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

    /// Every bucket's events, read back in order (both ways, alike).
    fn read_back(src: &Spilled) -> Vec<Vec<Event>> {
        let mut scratch = Scratch::default();
        (0..BUCKETS)
            .map(|b| {
                let mut out = Vec::new();
                src.append(b, &mut Vec::new(), &mut out).unwrap();
                let mut chunks = Vec::new();
                src.read(b, &mut scratch, |ev| {
                    chunks.extend_from_slice(ev);
                    Ok::<(), RunError>(())
                })
                .unwrap();
                assert_eq!((out.len(), &out), (src.len(b), &chunks));
                out
            })
            .collect()
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
            let mut aux = Vec::new();
            let mut recycled = 0;
            for (i, chunk) in input.chunks(700).enumerate() {
                if pushed_every > 0 && i % pushed_every == 0 {
                    b.push(chunk).unwrap();
                    continue;
                }
                let mut g = Grouped::new();
                let mut events = chunk.to_vec();
                g.fill(&mut events, &mut aux, layout);
                assert_eq!(g.event_count(), chunk.len());
                recycled += b.push_grouped(g).unwrap().len();
            }
            let src = b.finish(64).unwrap();
            assert_eq!(src.run_count > 0, recycled > 0, "spilled batches are given back");
            assert!(read_back(&src) == want, "{layout:?}, limit {limit}, a push every {pushed_every} batches");
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
