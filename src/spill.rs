//! Key-bucketed spill-and-sort: the one way this program handles more
//! keyed items than fit in memory. `book build` counts its events with it
//! (items: a position key and a move, [`crate::book`]'s build) and
//! `records dedup` finds repeated positions with it (items: a key and the
//! position's index, [`Pairs`]).
//!
//! Items arrive in input order and are held by bucket of key
//! ([`Buckets`]): one at a time into a list per bucket, or as whole
//! batches already grouped by bucket ([`Grouped`]). When the held items
//! reach a limit they are written to a spill file ([`file`](mod@file)), bucket
//! after bucket; at the end the files (combined a fan-in at a time while
//! there are too many) and what is still held are read back one bucket at
//! a time ([`Spilled`]). A bucket too large for its reader's memory is
//! split again by the next key bits ([`Spilled::for_each_bucket`], or the
//! caller's own rule, as `book build` counts large buckets in a map first);
//! one still too large at the last level (a key of too many items) is read
//! a chunk at a time ([`Spilled::walk_buckets`]).
//!
//! Buckets: at level `L` (0 to [`MAX_LEVEL`]) a key's bucket is its 12
//! bits below the top `12·L` ([`bucket_of`]), so buckets in order hold
//! keys in order, and a bucket of level `L` splits into the 4096 buckets
//! of level `L + 1`.
//!
//! Invariants (tested):
//! * Each bucket's items are read back in input order: the spill files in
//!   the order written, then the lists, then the held batches in the order
//!   they came.
//! * Nothing depends on the number of threads or on the limits: only on
//!   the items and their order.
//! * A spill file is validated as it is read (header, counts, length, and
//!   every item through its [`Encoding::decode`]): a damaged temporary
//!   file is a [`SpillError`], never a panic or a wrong answer.

mod file;
mod held;

pub use file::{read_exact_at, SpillError, SpillReader, SpillWriter, FOOTER_LEN, HEADER_LEN, INDEX_BYTES};
pub use held::{Bucket, Buckets, Grouped, Spilled};

/// Key bits a level's buckets take.
pub const BUCKET_BITS: u32 = 12;
pub const BUCKETS: usize = 1 << BUCKET_BITS;
/// The deepest level (its buckets are key bits 4 to 15).
pub const MAX_LEVEL: u8 = 4;

/// The bucket of `key` at `level`: its 12 bits below the top `12·level`,
/// so buckets in order hold keys in order.
#[inline]
pub fn bucket_of(key: u64, level: u8) -> usize {
    ((key << (BUCKET_BITS * level as u32)) >> (64 - BUCKET_BITS)) as usize
}

/// Room a bucket's list of held items gets when first used, of a limit of
/// `limit` items: an even share and a quarter, so the lists seldom grow.
pub fn list_room(limit: usize) -> usize {
    (limit / BUCKETS + limit / BUCKETS / 4).min(1 << 16)
}

/// How items are stored in spill files (and, when
/// [`Encoding::holds_encoded`], in held batches): a fixed number of bytes
/// an item, which may leave out the key bits its bucket gives.
pub trait Encoding: Copy + PartialEq + std::fmt::Debug + Send + Sync {
    type Item: Copy + Default + Send + Sync;

    /// Bytes an item takes (written in each spill file's header).
    fn item_len(self) -> usize;

    /// The key that places an item in its bucket.
    fn key(item: &Self::Item) -> u64;

    /// Encodes `item`, of a bucket of `level`, into `out`'s first
    /// [`Encoding::item_len`] bytes.
    fn encode(self, item: &Self::Item, level: u8, out: &mut [u8]);

    /// Decodes the whole items of `bytes`, stored under `bucket` of
    /// `level`, onto `out`; `Err(i)` for the first item `i` that is out of
    /// range or not of `bucket` (the items before it are on `out`).
    fn decode(self, bytes: &[u8], bucket: usize, level: u8, out: &mut Vec<Self::Item>) -> Result<(), usize>;

    /// Encodes `items`, all of one bucket of `level`, onto `out`.
    fn append(self, items: &[Self::Item], level: u8, out: &mut Vec<u8>) {
        let len = self.item_len();
        let at = out.len();
        out.resize(at + items.len() * len, 0);
        for (item, slot) in items.iter().zip(out[at..].chunks_exact_mut(len)) {
            self.encode(item, level, slot);
        }
    }

    /// Encodes `items` at level 0 into `out`, each where its bucket puts
    /// it: item of bucket `b` at slot `at[b]`, which then moves on (the
    /// spread of [`Grouped::fill`]). An encoding overrides it to choose
    /// its layout once rather than per item.
    fn spread(self, items: &[Self::Item], at: &mut [u32; BUCKETS], out: &mut [u8]) {
        let len = self.item_len();
        for e in items {
            let b = bucket_of(Self::key(e), 0);
            let i = at[b] as usize * len;
            self.encode(e, 0, &mut out[i..i + len]);
            at[b] += 1;
        }
    }

    /// Whether a held batch keeps its items encoded (at level 0): worth it
    /// when they are smaller so.
    fn holds_encoded(self) -> bool {
        false
    }

    /// Decodes the items of bucket `bucket` of level 0 that this program
    /// encoded itself into a held batch, onto `out` (no check needed; by
    /// default the checked [`Encoding::decode`], whose items never fail).
    fn decode_held(self, bytes: &[u8], bucket: usize, out: &mut Vec<Self::Item>) {
        let _ = self.decode(bytes, bucket, 0, out);
    }
}

/// Items of a key and a value, 16 bytes (both u64 LE): `records dedup`'s
/// (position key, position index) pairs and its drop list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairs;

impl Encoding for Pairs {
    type Item = (u64, u64);

    fn item_len(self) -> usize {
        16
    }

    #[inline]
    fn key(item: &(u64, u64)) -> u64 {
        item.0
    }

    #[inline]
    fn encode(self, item: &(u64, u64), _level: u8, out: &mut [u8]) {
        out[..8].copy_from_slice(&item.0.to_le_bytes());
        out[8..16].copy_from_slice(&item.1.to_le_bytes());
    }

    fn decode(self, bytes: &[u8], bucket: usize, level: u8, out: &mut Vec<(u64, u64)>) -> Result<(), usize> {
        out.reserve(bytes.len() / 16);
        for (i, b) in bytes.chunks_exact(16).enumerate() {
            let (mut key, mut value) = ([0u8; 8], [0u8; 8]);
            key.copy_from_slice(&b[..8]);
            value.copy_from_slice(&b[8..]);
            let item = (u64::from_le_bytes(key), u64::from_le_bytes(value));
            if bucket_of(item.0, level) != bucket {
                return Err(i);
            }
            out.push(item);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
