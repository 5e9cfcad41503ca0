//! The ids of the games written so far, with their numbers, in bounded
//! memory: what the index's id table is made of, and what tells a build
//! that a game is already indexed.
//!
//! The newest ids are held in memory (a list in order, and a set); when
//! they reach their limit they are sorted and written to a run file
//! (`ids-N` in the spill directory), and while there are more than
//! [`FAN_IN`] runs they are merged into one, so a lookup reads at most
//! `FAN_IN + 1` pages of disk. A Bloom filter over every id added spares
//! the disk the lookups of new ids (nearly all of them). At the end the
//! runs are merged into the id table: the numbers in id order.
//!
//! A run file: records of 12 bytes (the id, then the number as u32 LE),
//! strictly increasing by id, then number. Private and short-lived, yet
//! validated as it is read: a record out of order, a number past the
//! games written or a cut record is an error, never a wrong table.
//!
//! Memory: the Bloom filter takes half the bytes given, the held ids the
//! other half (about 20 bytes an id), and each run an index of the first
//! id of each page of [`PAGE`] records (8 bytes a page).

use crate::codec::{IoAt, MixHasher, PathIoError};
use crate::spill::read_exact_at;
use std::collections::HashSet;
use std::fs::File;
use std::hash::BuildHasherDefault;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// Runs kept before they are merged into one.
pub const FAN_IN: usize = 8;
/// Records a page of a run: what a lookup reads.
pub const PAGE: usize = 512;
/// Bytes a record takes.
const RECORD: usize = 12;
/// Bits set for an id in the Bloom filter.
const HASHES: u64 = 3;

type Id = [u8; 8];

/// See the module doc.
pub struct GameIds {
    dir: PathBuf,
    /// Ids held, in the order added, with their numbers; the same ids as a
    /// set (for lookups).
    held: Vec<(Id, u32)>,
    set: HashSet<u64, BuildHasherDefault<MixHasher>>,
    limit: usize,
    /// The Bloom filter's words (a power of two of them); given back once
    /// sealed ([`GameIds::seal`]).
    bloom: Vec<u64>,
    sealed: bool,
    runs: Vec<Run>,
    /// Run files made so far (for their names).
    made: usize,
    page: Vec<u8>,
}

/// A sorted run on disk and the first id of each of its pages.
struct Run {
    path: PathBuf,
    file: File,
    len: u64,
    firsts: Vec<Id>,
}

impl GameIds {
    /// Ids in at most about `bytes` of memory (a few KiB at least),
    /// spilled to `dir`.
    pub fn new(dir: &Path, bytes: usize) -> GameIds {
        let half = bytes / 2;
        // A set's slot (8 bytes and a control byte) and 7/8 of a list entry
        // (12 bytes) a slot: the set full at 7/8 of its slots.
        let slots = prev_power_of_two(half / 20).max(64);
        let limit = slots / 8 * 7;
        let mut set = HashSet::default();
        set.reserve(limit);
        GameIds {
            dir: dir.to_path_buf(),
            held: Vec::with_capacity(limit),
            set,
            limit,
            bloom: vec![0; prev_power_of_two(half / 8)],
            sealed: false,
            runs: Vec::new(),
            made: 0,
            page: Vec::new(),
        }
    }

    /// Whether `id` was added.
    pub fn contains(&mut self, id: &Id) -> Result<bool, PathIoError> {
        if !self.sealed && !bloom_bits(&self.bloom, id).all(|(w, bit)| self.bloom[w] & bit != 0) {
            return Ok(false);
        }
        if self.set.contains(&u64::from_le_bytes(*id)) {
            return Ok(true);
        }
        for run in &self.runs {
            if run.contains(id, &mut self.page)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Adds the game `number` of id `id`.
    pub fn add(&mut self, id: Id, number: u32) -> Result<(), PathIoError> {
        if !self.sealed {
            for (w, bit) in bloom_bits(&self.bloom, &id) {
                self.bloom[w] |= bit;
            }
        }
        self.held.push((id, number));
        self.set.insert(u64::from_le_bytes(id));
        if self.held.len() >= self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// Ends the games: what is held goes to a run, and the held ids' and
    /// the filter's memory is given back (ids added later are held again,
    /// and found, without a filter).
    pub fn seal(&mut self) -> Result<(), PathIoError> {
        if self.sealed && self.held.is_empty() {
            return Ok(());
        }
        if !self.held.is_empty() {
            self.spill()?;
        }
        self.held = Vec::new();
        self.set = HashSet::default();
        self.bloom = Vec::new();
        self.sealed = true;
        Ok(())
    }

    /// Seals the ids and hands the numbers to `put` in id order (then
    /// number), checking each is under `games`.
    pub fn for_each_number(
        &mut self,
        games: u64,
        mut put: impl FnMut(u32) -> Result<(), PathIoError>,
    ) -> Result<(), PathIoError> {
        self.seal()?;
        let runs = std::mem::take(&mut self.runs);
        merge(&runs, |(_, n), path| {
            if u64::from(n) >= games {
                return Err(invalid(path, format!("game number {n} past the {games} games")));
            }
            put(n)
        })?;
        remove(&runs);
        Ok(())
    }

    /// Sorts the held ids into a run file; merges the runs when there are
    /// more than [`FAN_IN`].
    fn spill(&mut self) -> Result<(), PathIoError> {
        self.held.sort_unstable();
        let mut held = std::mem::take(&mut self.held);
        let mut w = RunWriter::create(self.next_path())?;
        for &record in &held {
            w.put(record)?;
        }
        self.runs.push(w.finish()?);
        held.clear();
        self.held = held;
        self.set.clear();
        if self.runs.len() > FAN_IN {
            let runs = std::mem::take(&mut self.runs);
            let mut w = RunWriter::create(self.next_path())?;
            merge(&runs, |record, _| w.put(record))?;
            self.runs.push(w.finish()?);
            remove(&runs);
        }
        Ok(())
    }

    fn next_path(&mut self) -> PathBuf {
        self.made += 1;
        self.dir.join(format!("ids-{:05}", self.made - 1))
    }
}

impl Drop for GameIds {
    fn drop(&mut self) {
        remove(&self.runs);
    }
}

fn remove(runs: &[Run]) {
    for r in runs {
        let _ = std::fs::remove_file(&r.path);
    }
}

fn invalid(path: &Path, what: String) -> PathIoError {
    PathIoError::new(path, std::io::Error::new(std::io::ErrorKind::InvalidData, what))
}

/// The largest power of two at most `n` (1 for 0).
fn prev_power_of_two(n: usize) -> usize {
    if n < 2 {
        1
    } else {
        1 << (usize::BITS - 1 - n.leading_zeros())
    }
}

/// An id's 64 bits, mixed (SplitMix64's finaliser): ids may be hashes or
/// Lichess's random ids, or anything a PGN's `Site` ends with.
fn mix(id: u64) -> u64 {
    let mut z = id.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The (word, bit) of each of an id's bits in a filter of `bloom.len()`
/// words (a power of two): double hashing of the mixed id's halves.
fn bloom_bits(bloom: &[u64], id: &Id) -> impl Iterator<Item = (usize, u64)> {
    let h = mix(u64::from_le_bytes(*id));
    let (h1, h2) = (h, h.rotate_left(32) | 1);
    let mask = (bloom.len() as u64 * 64).wrapping_sub(1);
    (0..HASHES).map(move |i| {
        let b = h1.wrapping_add(i.wrapping_mul(h2)) & mask;
        ((b >> 6) as usize, 1u64 << (b & 63))
    })
}

fn encode((id, n): (Id, u32)) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[..8].copy_from_slice(&id);
    r[8..].copy_from_slice(&n.to_le_bytes());
    r
}

fn decode(r: &[u8]) -> (Id, u32) {
    let mut id = [0u8; 8];
    id.copy_from_slice(&r[..8]);
    (id, u32::from_le_bytes([r[8], r[9], r[10], r[11]]))
}

/// Writes a run: the records (increasing), and the first id of each page.
struct RunWriter {
    out: BufWriter<File>,
    path: PathBuf,
    len: u64,
    firsts: Vec<Id>,
}

impl RunWriter {
    fn create(path: PathBuf) -> Result<RunWriter, PathIoError> {
        // Read as well: lookups read its pages.
        let file = File::options().read(true).write(true).create(true).truncate(true).open(&path).at(&path)?;
        let out = BufWriter::with_capacity(1 << 16, file);
        Ok(RunWriter { out, path, len: 0, firsts: Vec::new() })
    }

    fn put(&mut self, record: (Id, u32)) -> Result<(), PathIoError> {
        if self.len % PAGE as u64 == 0 {
            self.firsts.push(record.0);
        }
        self.len += 1;
        self.out.write_all(&encode(record)).at(&self.path)
    }

    fn finish(self) -> Result<Run, PathIoError> {
        let file = self.out.into_inner().map_err(|e| PathIoError::new(&self.path, e.into_error()))?;
        Ok(Run { path: self.path, file, len: self.len, firsts: self.firsts })
    }
}

impl Run {
    /// Whether the run holds `id`: the one page where it would be, read
    /// into `page`.
    fn contains(&self, id: &Id, page: &mut Vec<u8>) -> Result<bool, PathIoError> {
        // The last page whose first id is at most `id`.
        let p = self.firsts.partition_point(|first| first <= id);
        if p == 0 {
            return Ok(false);
        }
        let start = (p - 1) as u64 * PAGE as u64;
        let n = (self.len - start).min(PAGE as u64) as usize;
        page.resize(n * RECORD, 0);
        read_exact_at(&self.file, page, start * RECORD as u64).at(&self.path)?;
        let mut last: Option<Id> = None;
        let mut found = false;
        for r in page.chunks_exact(RECORD) {
            let (record, _) = decode(r);
            let in_order = match last {
                None => Some(&record) == self.firsts.get(p - 1),
                Some(last) => last <= record,
            };
            if !in_order {
                return Err(invalid(&self.path, format!("a page out of order at record {start}")));
            }
            found |= record == *id;
            last = Some(record);
        }
        Ok(found)
    }
}

/// Reads a run from its start, checking its order.
struct RunReader<'a> {
    run: &'a Run,
    input: BufReader<File>,
    read: u64,
    last: Option<(Id, u32)>,
}

impl<'a> RunReader<'a> {
    fn open(run: &'a Run) -> Result<RunReader<'a>, PathIoError> {
        let file = File::open(&run.path).at(&run.path)?;
        Ok(RunReader { run, input: BufReader::with_capacity(1 << 16, file), read: 0, last: None })
    }

    fn next(&mut self) -> Result<Option<(Id, u32)>, PathIoError> {
        if self.read == self.run.len {
            return Ok(None);
        }
        let mut r = [0u8; RECORD];
        self.input.read_exact(&mut r).at(&self.run.path)?;
        let record = decode(&r);
        if self.last.is_some_and(|last| last >= record) {
            return Err(invalid(&self.run.path, format!("record {} out of order", self.read)));
        }
        self.read += 1;
        self.last = Some(record);
        Ok(Some(record))
    }
}

/// Hands the records of `runs` to `put` in order (with the path of the run
/// each comes from).
fn merge(runs: &[Run], mut put: impl FnMut((Id, u32), &Path) -> Result<(), PathIoError>) -> Result<(), PathIoError> {
    let mut readers = runs.iter().map(RunReader::open).collect::<Result<Vec<_>, _>>()?;
    let mut heads = Vec::with_capacity(readers.len());
    for r in &mut readers {
        heads.push(r.next()?);
    }
    // A linear pick of the least head: at most FAN_IN + 1 runs.
    while let Some((i, &record)) =
        heads.iter().enumerate().filter_map(|(i, h)| h.as_ref().map(|h| (i, h))).min_by_key(|(_, h)| **h)
    {
        put(record, &readers[i].run.path)?;
        heads[i] = readers[i].next()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::SplitMix64;
    use crate::testdata::TempDir;

    fn id(rng: &mut SplitMix64) -> Id {
        rng.next_u64().to_le_bytes()
    }

    #[test]
    fn lookups_and_the_table_are_exact_through_spills_and_merges() {
        let dir = TempDir::new("explorer-ids");
        let mut ids = GameIds::new(dir.path(), 0);
        // Beyond FAN_IN + 1 runs of the smallest budget: merged on the way.
        let n = ids.limit * (FAN_IN + 3) + 17;
        let mut rng = SplitMix64::new(5);
        let mut all: Vec<(Id, u32)> = Vec::new();
        for number in 0..n as u32 {
            let new = id(&mut rng);
            assert!(!ids.contains(&new).unwrap());
            ids.add(new, number).unwrap();
            all.push((new, number));
            if number % 997 == 0 {
                // Every id added so far is found: held or in a run.
                let old = all[rng.below(all.len() as u64) as usize].0;
                assert!(ids.contains(&old).unwrap());
            }
        }
        assert!(ids.runs.len() <= FAN_IN + 1 && ids.made > FAN_IN + 1, "{} runs of {}", ids.runs.len(), ids.made);
        assert!(all.iter().step_by(101).all(|(i, _)| ids.contains(i).unwrap()));
        all.sort_unstable();
        let mut numbers = Vec::new();
        ids.for_each_number(n as u64, |v| {
            numbers.push(v);
            Ok(())
        })
        .unwrap();
        assert_eq!(numbers, all.iter().map(|r| r.1).collect::<Vec<_>>());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the runs are removed");
    }

    #[test]
    fn ids_added_after_the_seal_are_found_and_listed() {
        let dir = TempDir::new("explorer-ids-seal");
        let mut ids = GameIds::new(dir.path(), 0);
        let id = |n: u32| u64::from(n).wrapping_mul(0x9e37_79b9_7f4a_7c15).to_le_bytes();
        for n in 0..100 {
            ids.add(id(n), n).unwrap();
        }
        ids.seal().unwrap();
        for n in 100..200 {
            assert!(!ids.contains(&id(n)).unwrap());
            ids.add(id(n), n).unwrap();
        }
        assert!((0..200).all(|n| ids.contains(&id(n)).unwrap()));
        let mut want: Vec<(Id, u32)> = (0..200).map(|n| (id(n), n)).collect();
        want.sort_unstable();
        let mut numbers = Vec::new();
        ids.for_each_number(200, |v| {
            numbers.push(v);
            Ok(())
        })
        .unwrap();
        assert_eq!(numbers, want.iter().map(|r| r.1).collect::<Vec<_>>());
    }

    #[test]
    fn a_damaged_run_is_an_error() {
        let dir = TempDir::new("explorer-ids-damaged");
        let mut ids = GameIds::new(dir.path(), 0);
        for number in 0..3 * ids.limit as u32 {
            ids.add((u64::from(number) * 0x9e37_79b9).to_be_bytes(), number).unwrap();
        }
        let run = ids.runs[0].path.clone();
        let mut bytes = std::fs::read(&run).unwrap();
        let (first, second) = bytes.split_at_mut(RECORD);
        first.swap_with_slice(&mut second[..RECORD]);
        std::fs::write(&run, &bytes).unwrap();
        let e = ids.for_each_number(u64::MAX, |_| Ok(())).unwrap_err();
        drop(ids);
        assert_eq!(e.path, run);
        assert_eq!(e.source.kind(), std::io::ErrorKind::InvalidData);
    }
}
