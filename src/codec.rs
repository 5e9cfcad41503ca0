//! What the on-disk formats and the seeded tools share, written once: one
//! way to read and write bytes, file errors that name their file, a
//! scratch directory, the 64-bit FNV-1a checksum (one-shot and streaming),
//! a seeded word-at-a-time checksum for blocks, and the SplitMix64
//! generator with its `below` and `shuffle`.
//!
//! | item | definition |
//! | --- | --- |
//! | [`Reader`] | cursor over `&[u8]`: `u8`, `i8`, `{u,i}{16,32,64}_le`, `f32_le`, `u{16,32,64}_be`, `bytes(n)`, `array::<N>()`, `skip(n)`; each read moves past its bytes or fails and stays put |
//! | [`Items`], [`Decode`] | the validated items of a file of self-delimiting records, one after another; stops after the first error |
//! | [`Truncated`] | the one "ran past the end" error: `offset` (where the read started), `needed` (bytes), `len` (of the data) |
//! | [`Put`], [`WriteBytes`] | the same values appended to a `Vec<u8>` or a [`Fixed`] record (`put_*`), or written to an `io::Write` (`write_*`) |
//! | [`PathIoError`], [`IoAt::at`], [`read_file`] | an `io::Error` with the path it happened on; prints `PATH: ERROR` |
//! | [`TempDir`] | a directory removed (with its files) when dropped |
//! | [`FileBytes`] | a file's bytes, memory-mapped or owned |
//! | [`fnv1a64`], [`Fnv1a64`] | `h = 0xcbf29ce484222325`; per byte `h = (h ^ b) · 0x100000001b3` (mod 2⁶⁴) |
//! | [`hash64`] | of `seed` and `bytes`: `h = mix(seed)`; per 8 bytes, little-endian (the last word zero-padded), `h = ((h ^ w) · 0x9E3779B97F4A7C15) rotl 29`; then `mix(h ^ len)`. Each step is a bijection of `h` and of `w`, so one changed word always changes the result |
//! | [`SplitMix64`] | state `s`; per output `s += 0x9E3779B97F4A7C15`, then [`mix`]`(s)` |
//! | [`mix`] | `z ^= z >> 30; z ·= 0xBF58476D1CE4E5B9; z ^= z >> 27; z ·= 0x94D049BB133111EB; z ^ (z >> 31)` |
//! | [`SplitMix64::below`] | `⌊next · n / 2⁶⁴⌋` (0 when `n` is 0) |
//! | [`SplitMix64::shuffle`] | Fisher–Yates from the end: `i = len−1 … 1` swaps `i` with `below(i + 1)` |
//!
//! Every stream is the same on every platform: checkpoints, networks,
//! shuffled training data and self-play openings depend on it.

mod bytes;
mod fs;

pub use bytes::{Decode, Fixed, Items, Put, Reader, Truncated, WriteBytes};
pub use fs::{read_file, unnamed, FileBytes, IoAt, PathIoError, TempDir};

/// FNV-1a's offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a's 64-bit prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// 64-bit FNV-1a of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    Fnv1a64::new().update(bytes).finish()
}

/// Streaming 64-bit FNV-1a: the same value as [`fnv1a64`] of the bytes fed
/// in, however they are cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fnv1a64(u64);

impl Default for Fnv1a64 {
    fn default() -> Fnv1a64 {
        Fnv1a64::new()
    }
}

impl Fnv1a64 {
    pub const fn new() -> Fnv1a64 {
        Fnv1a64(FNV_OFFSET)
    }

    /// Feeds `bytes`; returns the hasher for chaining.
    #[inline]
    pub fn update(&mut self, bytes: &[u8]) -> &mut Fnv1a64 {
        self.0 = bytes.iter().fold(self.0, |h, &b| (h ^ u64::from(b)).wrapping_mul(FNV_PRIME));
        self
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

/// A seeded 64-bit checksum of `bytes`, eight bytes at a time: a block's
/// checksum seeded with its offset fails for the same bytes elsewhere.
pub fn hash64(seed: u64, bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let step = |h: u64, w: u64| ((h ^ w).wrapping_mul(K)).rotate_left(29);
    let mut words = bytes.chunks_exact(8);
    let mut h = mix(seed);
    for w in &mut words {
        h = step(h, u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]));
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = step(h, u64::from_le_bytes(last));
    }
    mix(h ^ bytes.len() as u64)
}

/// SplitMix64's output function: a bijective 64-bit hash.
#[inline]
pub const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The hasher of maps and sets of integer keys (the key [`mix`]ed) and of
/// names ([`hash64`]): far cheaper than the standard library's SipHash,
/// for keys no adversary chooses (games' own names and numbers, not
/// requests).
#[derive(Clone, Copy, Default)]
pub struct MixHasher(u64);

impl std::hash::Hasher for MixHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = mix(self.0 ^ n);
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    /// Strings and other bytes: eight at a time ([`hash64`]).
    fn write(&mut self, bytes: &[u8]) {
        self.0 = hash64(self.0, bytes);
    }
}

/// A hash map of integer or string keys ([`MixHasher`]).
pub type MixMap<K, V> = std::collections::HashMap<K, V, std::hash::BuildHasherDefault<MixHasher>>;

/// SplitMix64: a tiny seeded generator, the same stream on every platform.
/// The seed is the raw state; callers that derive streams from a seed and
/// an index hash them first (see [`mix`]), since streams with nearby start
/// states are the same sequence shifted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub const fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in `0..n` by multiply-shift (0 when `n` is 0); the bias is
    /// below `n / 2⁶⁴`.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// [`below`](Self::below) for indices.
    #[inline]
    pub fn below_usize(&mut self, n: usize) -> usize {
        self.below(n as u64) as usize
    }

    /// Fisher–Yates, from the end.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below_usize(i + 1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_matches_the_published_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn streaming_fnv1a64_equals_one_shot_however_cut() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        for cut in [0, 1, 7, 500, 999, 1000] {
            let mut h = Fnv1a64::new();
            h.update(&data[..cut]).update(&data[cut..]);
            assert_eq!(h.finish(), fnv1a64(&data), "cut at {cut}");
        }
    }

    #[test]
    fn hash64_binds_its_seed_and_every_byte() {
        let data: Vec<u8> = (0..=255u8).cycle().take(1001).collect();
        let h = hash64(7, &data);
        assert_ne!(hash64(8, &data), h);
        assert_ne!(hash64(7, &data[..1000]), h);
        for at in [0, 7, 8, 500, 999, 1000] {
            for bit in 0..8 {
                let mut d = data.clone();
                d[at] ^= 1 << bit;
                assert_ne!(hash64(7, &d), h, "byte {at}, bit {bit}");
            }
        }
        // A trailing zero is not the shorter input's padding.
        assert_ne!(hash64(0, &[1, 0]), hash64(0, &[1]));
        assert_eq!(hash64(0, b""), mix(mix(0)));
    }

    #[test]
    fn splitmix64_matches_the_reference_stream() {
        // The reference implementation (Vigna) seeded with 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn below_stays_in_range_and_shuffle_permutes() {
        let mut r = SplitMix64::new(5);
        assert_eq!(r.below(0), 0);
        assert!((0..1000).all(|_| r.below(7) < 7));
        let mut v: Vec<u32> = (0..100).collect();
        r.shuffle(&mut v);
        assert_ne!(v, (0..100).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }
}
