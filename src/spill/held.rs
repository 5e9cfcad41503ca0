//! Items held in memory by bucket of keys ([`bucket_of`]) until they
//! reach their limit and are spilled ([`super::file`]); then, with the
//! spill files, read back one bucket at a time ([`Spilled`]).
//!
//! Invariants:
//! * Each bucket's items are read back in input order: the spill files
//!   in the order written, then the lists, then the held batches in the
//!   order they came. Items pushed one at a time ([`Buckets::push`])
//!   first take in the batches held so far, so whatever is in the lists
//!   came before whatever is in the batches.
//! * A [`Grouped`] batch held by [`Buckets`] holds its items as the
//!   buckets' encoding says ([`Encoding::holds_encoded`]).
//! * Nothing here depends on the number of threads.

use super::file::{SpillError, SpillReader, SpillWriter};
use super::{bucket_of, list_room, Encoding, BUCKETS, MAX_LEVEL};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// A batch's items grouped by level-0 bucket ([`Grouped::fill`]):
/// bucket `b`'s are items `ends[b - 1]..ends[b]`, in input order.
pub struct Grouped<C: Encoding> {
    ends: Box<[u32; BUCKETS]>,
    items: Held<C::Item>,
}

/// How a [`Grouped`] batch stores its items.
enum Held<T> {
    /// As they are.
    Items(Vec<T>),
    /// Encoded at level 0 ([`Encoding::holds_encoded`]).
    Encoded(Vec<u8>),
}

impl<C: Encoding> Default for Grouped<C> {
    /// No items, no room yet.
    fn default() -> Grouped<C> {
        Grouped { ends: Box::new([0; BUCKETS]), items: Held::Items(Vec::new()) }
    }
}

impl<C: Encoding> Grouped<C> {
    /// Holds `items` (in input order) grouped by level-0 bucket, as
    /// `encoding` holds them; `items` and `aux` are the caller's scratch,
    /// and either may come back as the other's buffer. Encoded items are
    /// encoded as they are spread (one pass), others spread by
    /// [`group_by_bucket`] and taken whole.
    pub fn fill(&mut self, items: &mut Vec<C::Item>, aux: &mut Vec<C::Item>, encoding: C) {
        if encoding.holds_encoded() {
            let mut encoded = match &mut self.items {
                Held::Encoded(bytes) => std::mem::take(bytes),
                Held::Items(_) => Vec::new(),
            };
            group_encoded(items, &mut encoded, &mut self.ends, encoding);
            self.items = Held::Encoded(encoded);
            return;
        }
        group_by_bucket::<C>(items, aux, &mut self.ends);
        // The batch takes the items, the caller its old buffer.
        if let Held::Items(mine) = &mut self.items {
            std::mem::swap(items, mine);
        } else {
            self.items = Held::Items(std::mem::take(items));
        }
    }

    /// Items held.
    pub fn len(&self) -> usize {
        self.ends[BUCKETS - 1] as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the items are held encoded.
    pub fn is_encoded(&self) -> bool {
        matches!(self.items, Held::Encoded(_))
    }

    /// Where bucket `b`'s items are (in items).
    #[inline]
    fn range(&self, b: usize) -> Range<usize> {
        let start = if b == 0 { 0 } else { self.ends[b - 1] as usize };
        start..self.ends[b] as usize
    }

    /// Bucket `b`'s items, onto `out`.
    pub fn append_bucket(&self, b: usize, encoding: C, out: &mut Vec<C::Item>) {
        let r = self.range(b);
        match &self.items {
            Held::Items(items) => out.extend_from_slice(&items[r]),
            Held::Encoded(bytes) => {
                let len = encoding.item_len();
                encoding.decode_held(&bytes[r.start * len..r.end * len], b, out);
            }
        }
    }

    /// Hands bucket `b`'s items to `f` (decoded into `chunk` when encoded).
    fn read_bucket<E>(
        &self,
        b: usize,
        encoding: C,
        chunk: &mut Vec<C::Item>,
        f: &mut impl FnMut(&[C::Item]) -> Result<(), E>,
    ) -> Result<(), E> {
        match &self.items {
            Held::Items(items) => f(&items[self.range(b)]),
            Held::Encoded(_) => {
                chunk.clear();
                self.append_bucket(b, encoding, chunk);
                f(chunk)
            }
        }
    }

    /// Writes bucket `b`'s items to `w`.
    fn write_bucket(&self, b: usize, encoding: C, w: &mut SpillWriter<C>) -> Result<(), SpillError> {
        let r = self.range(b);
        match &self.items {
            Held::Items(items) => w.write_bucket(b, &items[r]),
            Held::Encoded(bytes) => {
                let len = encoding.item_len();
                w.write_encoded(b, &bytes[r.start * len..r.end * len])
            }
        }
    }
}

/// Items held in memory by bucket, and the files spilled so far.
///
/// Items come one at a time ([`Buckets::push`], into a list per bucket)
/// or as whole batches grouped by bucket ([`Buckets::push_grouped`],
/// level 0 only), which are held as they came: a spill writes each
/// bucket's items from the lists, then from every batch in order, so the
/// items of a batch are copied once, into the file.
pub struct Buckets<C: Encoding> {
    level: u8,
    encoding: C,
    lists: Vec<Vec<C::Item>>,
    /// Room each list gets when first used.
    each: usize,
    batches: Vec<Grouped<C>>,
    held: usize,
    /// Items held at most (then they are spilled).
    limit: usize,
    dir: PathBuf,
    /// Spill files are `{name}-{n}`.
    name: String,
    files: Vec<PathBuf>,
    spilled: u64,
}

impl<C: Encoding> Buckets<C> {
    /// Buckets of `level` holding at most `limit` items, spilling files
    /// of `encoding` named `{name}-{n}` to `dir`.
    pub fn new(level: u8, encoding: C, limit: usize, dir: &Path, name: String) -> Buckets<C> {
        Buckets {
            level,
            encoding,
            lists: (0..BUCKETS).map(|_| Vec::new()).collect(),
            each: list_room(limit),
            batches: Vec::new(),
            held: 0,
            limit: limit.max(1),
            dir: dir.to_path_buf(),
            name,
            files: Vec::new(),
            spilled: 0,
        }
    }

    /// Takes the next items (in input order).
    pub fn push(&mut self, items: &[C::Item]) -> Result<(), SpillError> {
        self.absorb_batches();
        for e in items {
            let list = &mut self.lists[bucket_of(C::key(e), self.level)];
            if list.capacity() == 0 {
                list.reserve(self.each);
            }
            list.push(*e);
        }
        self.took(items.len()).map(drop)
    }

    /// Takes the next items, already grouped by level-0 bucket, and holds
    /// them as they are; gives back the batches a spill has written (for
    /// their buffers to be used again).
    pub fn push_grouped(&mut self, batch: Grouped<C>) -> Result<Vec<Grouped<C>>, SpillError> {
        debug_assert_eq!(self.level, 0, "batches are grouped by level-0 bucket");
        let n = batch.len();
        debug_assert!(
            n == 0 || batch.is_encoded() == self.encoding.holds_encoded(),
            "held as the files' encoding says"
        );
        self.batches.push(batch);
        self.took(n)
    }

    /// Moves the held batches' items into the lists.
    fn absorb_batches(&mut self) {
        for batch in std::mem::take(&mut self.batches) {
            for (b, list) in self.lists.iter_mut().enumerate() {
                batch.append_bucket(b, self.encoding, list);
            }
        }
    }

    /// Counts `n` more items held, spilling them all at the limit; gives
    /// the batches written.
    fn took(&mut self, n: usize) -> Result<Vec<Grouped<C>>, SpillError> {
        self.held += n;
        if self.held >= self.limit {
            return self.spill();
        }
        Ok(Vec::new())
    }

    fn spill(&mut self) -> Result<Vec<Grouped<C>>, SpillError> {
        let path = self.dir.join(format!("{}-{:05}", self.name, self.files.len()));
        let encoding = self.encoding;
        let mut w = SpillWriter::create(&path, self.level, encoding)?;
        for (b, list) in self.lists.iter_mut().enumerate() {
            w.write_bucket(b, list)?;
            list.clear();
            for batch in &self.batches {
                batch.write_bucket(b, encoding, &mut w)?;
            }
        }
        self.spilled += w.finish()?;
        self.files.push(path);
        self.held = 0;
        Ok(std::mem::take(&mut self.batches))
    }

    /// Spill files written so far.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    /// Writes what is held to a spill file now (nothing when nothing is
    /// held): its memory is then free for the reading.
    pub fn spill_held(&mut self) -> Result<(), SpillError> {
        if self.held > 0 {
            self.spill()?;
        }
        Ok(())
    }

    /// Ends the input: the files are opened for reading, combined first
    /// (`fan_in` at a time, in stages) while there are more than `fan_in`.
    pub fn finish(self, fan_in: usize) -> Result<Spilled<C>, SpillError> {
        let fan_in = fan_in.max(2);
        let mut spilled = Spilled {
            level: self.level,
            encoding: self.encoding,
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
                combine(chunk, &path, self.level, self.encoding)?;
                next.push(path);
            }
            paths = next;
            stage += 1;
        }
        for p in &paths {
            spilled.files.push(SpillReader::open(p, self.level, self.encoding)?);
        }
        Ok(spilled)
    }
}

/// Groups `items` by level-0 bucket, each bucket's in input order, and
/// sets `ends[b]` to the end of bucket `b`'s items. One stable pass of
/// 4096 ways into `aux`, which then takes the place of `items` (the old
/// `items` become the scratch).
fn group_by_bucket<C: Encoding>(items: &mut Vec<C::Item>, aux: &mut Vec<C::Item>, ends: &mut [u32; BUCKETS]) {
    let mut at = bucket_starts::<C>(items, ends);
    // Scratch only grows: every slot read below is written first.
    let n = items.len();
    if aux.len() < n {
        aux.resize(n, C::Item::default());
    }
    for e in items.iter() {
        let b = bucket_of(C::key(e), 0);
        aux[at[b] as usize] = *e;
        at[b] += 1;
    }
    std::mem::swap(items, aux);
    items.truncate(n);
}

/// Where each item of `items` goes when they are grouped by level-0
/// bucket, each bucket's in input order: sets `ends[b]` to the end of
/// bucket `b`'s items and gives `at[b]`, where bucket `b` starts.
fn bucket_starts<C: Encoding>(items: &[C::Item], ends: &mut [u32; BUCKETS]) -> [u32; BUCKETS] {
    let mut at = [0u32; BUCKETS];
    for e in items.iter() {
        at[bucket_of(C::key(e), 0)] += 1;
    }
    let mut total = 0;
    for (a, end) in at.iter_mut().zip(ends.iter_mut()) {
        (*a, total) = (total, total + *a);
        *end = total;
    }
    at
}

/// [`group_by_bucket`] into encoded items: each item is encoded where
/// its bucket puts it, so the 4096-way spread writes the encoded bytes
/// (fewer than the items' when worth holding encoded) and no second pass
/// encodes them.
fn group_encoded<C: Encoding>(items: &[C::Item], encoded: &mut Vec<u8>, ends: &mut [u32; BUCKETS], encoding: C) {
    let len = encoding.item_len();
    let mut at = bucket_starts::<C>(items, ends);
    encoded.clear();
    encoded.resize(items.len() * len, 0);
    encoding.spread(items, &mut at, encoded);
}

/// Writes the spill files `inputs` as one (bucket by bucket, each
/// bucket's items in the inputs' order) and deletes them.
fn combine<C: Encoding>(inputs: &[PathBuf], out: &Path, level: u8, encoding: C) -> Result<(), SpillError> {
    let readers = inputs.iter().map(|p| SpillReader::open(p, level, encoding)).collect::<Result<Vec<_>, _>>()?;
    let mut w = SpillWriter::create(out, level, encoding)?;
    let (mut buf, mut items) = (Vec::new(), Vec::new());
    for b in 0..BUCKETS {
        for r in &readers {
            r.read_bucket(b, &mut buf, &mut items, |ev| w.write_bucket(b, ev))?;
        }
    }
    w.finish()?;
    for p in inputs {
        let _ = std::fs::remove_file(p);
    }
    Ok(())
}

/// A bucket as [`Spilled::walk_buckets`] hands it on.
pub enum Bucket<'a, C: Encoding> {
    /// Its items, whole and in input order, and its level.
    Whole(&'a mut Vec<C::Item>, u8),
    /// A bucket of [`MAX_LEVEL`] over the limit: where it is (its items
    /// to be read a chunk at a time: [`Spilled::read`]).
    Large(&'a Spilled<C>, usize),
}

/// The items of a pass, to be read back bucket by bucket: the spill
/// files, in order, then what was still held.
pub struct Spilled<C: Encoding> {
    level: u8,
    encoding: C,
    files: Vec<SpillReader<C>>,
    lists: Vec<Vec<C::Item>>,
    /// Held batches, after the lists (see [`Buckets`]).
    batches: Vec<Grouped<C>>,
    /// Files spilled (before any combining) and the items in them.
    pub file_count: usize,
    pub spilled: u64,
}

impl<C: Encoding> Spilled<C> {
    pub fn level(&self) -> u8 {
        self.level
    }

    pub fn encoding(&self) -> C {
        self.encoding
    }

    /// Items in bucket `b`.
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

    /// Appends bucket `b`'s items to `out`, in input order.
    pub fn append(&self, b: usize, scratch: &mut Vec<u8>, out: &mut Vec<C::Item>) -> Result<(), SpillError> {
        for r in &self.files {
            r.append_bucket(b, scratch, out)?;
        }
        out.extend_from_slice(&self.lists[b]);
        for g in &self.batches {
            g.append_bucket(b, self.encoding, out);
        }
        Ok(())
    }

    /// Hands bucket `b`'s items to `f` in input order, a chunk at a time;
    /// `bytes` and `chunk` are scratch.
    pub fn read<E: From<SpillError>>(
        &self,
        b: usize,
        bytes: &mut Vec<u8>,
        chunk: &mut Vec<C::Item>,
        mut f: impl FnMut(&[C::Item]) -> Result<(), E>,
    ) -> Result<(), E> {
        for r in &self.files {
            r.read_bucket(b, bytes, chunk, &mut f)?;
        }
        f(&self.lists[b])?;
        for g in &self.batches {
            g.read_bucket(b, self.encoding, chunk, &mut f)?;
        }
        Ok(())
    }

    /// Hands every bucket's items to `f`, whole and in input order, bucket
    /// after bucket (so in key order of buckets) with the bucket's level;
    /// a bucket of more than `limit` items is first split by the next key
    /// bits into files named `{name}-…` in `dir` (down to [`MAX_LEVEL`],
    /// whose buckets are handed whole whatever their size).
    pub fn for_each_bucket<E: From<SpillError>>(
        &self,
        limit: usize,
        fan_in: usize,
        dir: &Path,
        name: &str,
        f: &mut impl FnMut(&mut Vec<C::Item>, u8) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut items = Vec::new();
        self.walk_buckets(limit, fan_in, dir, name, &mut |bucket| match bucket {
            Bucket::Whole(items, level) => f(items, level),
            Bucket::Large(spilled, b) => {
                items.clear();
                spilled.append(b, &mut Vec::new(), &mut items)?;
                f(&mut items, spilled.level)
            }
        })
    }

    /// [`Spilled::for_each_bucket`], but a bucket of [`MAX_LEVEL`] of more
    /// than `limit` items is not gathered: `f` gets where it is
    /// ([`Bucket::Large`]), to read it a chunk at a time.
    pub fn walk_buckets<E: From<SpillError>>(
        &self,
        limit: usize,
        fan_in: usize,
        dir: &Path,
        name: &str,
        f: &mut impl FnMut(Bucket<'_, C>) -> Result<(), E>,
    ) -> Result<(), E> {
        let (mut bytes, mut items) = (Vec::new(), Vec::new());
        for b in 0..BUCKETS {
            let n = self.len(b);
            if n == 0 {
                continue;
            }
            if n <= limit {
                items.clear();
                self.append(b, &mut bytes, &mut items)?;
                f(Bucket::Whole(&mut items, self.level))?;
                continue;
            }
            if self.level >= MAX_LEVEL {
                f(Bucket::Large(self, b))?;
                continue;
            }
            let name = format!("{name}-{}-{b}", self.level + 1);
            let mut deeper = Buckets::new(self.level + 1, self.encoding, limit, dir, name.clone());
            self.read(b, &mut bytes, &mut items, |chunk| deeper.push(chunk))?;
            deeper.finish(fan_in)?.walk_buckets(limit, fan_in, dir, &name, f)?;
        }
        Ok(())
    }

    /// Files, the items of bucket `b` in the lists, and held batches (for
    /// tests of where items are held).
    #[cfg(test)]
    pub(crate) fn shape(&self, b: usize) -> (usize, usize, usize) {
        (self.file_count, self.lists[b].len(), self.batches.len())
    }
}

impl<C: Encoding> Drop for Spilled<C> {
    fn drop(&mut self) {
        for r in &self.files {
            let _ = std::fs::remove_file(r.path());
        }
    }
}
