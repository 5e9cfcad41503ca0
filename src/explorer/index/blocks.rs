//! The block checksums (see [`super`]'s layout): where each block lies,
//! its checksum as the writer makes it, and, for the reader, each block's
//! state (unchecked, good, damaged), checked once, on first use.

use super::HEADER_LEN;
use crate::codec::hash64;
use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

const UNCHECKED: u8 = 0;
const GOOD: u8 = 1;
const DAMAGED: u8 = 2;

/// Blocks of `2^shift` bytes covering `HEADER_LEN..end`.
pub(super) fn count(end: u64, shift: u8) -> u64 {
    end.saturating_sub(HEADER_LEN as u64).div_ceil(1u64 << shift)
}

/// The checksum of the block at `offset` with `bytes`.
pub(super) fn checksum(offset: u64, bytes: &[u8]) -> u64 {
    hash64(offset, bytes)
}

/// The blocks of an opened index and their states.
pub(super) struct Blocks {
    shift: u8,
    /// Where the blocks end and their checksums start (`D`).
    end: usize,
    state: Box<[AtomicU8]>,
}

impl Blocks {
    /// The blocks of `HEADER_LEN..end` (their checksums at `end`).
    pub fn new(end: u64, shift: u8) -> Blocks {
        let n = count(end, shift) as usize;
        Blocks { shift, end: end as usize, state: (0..n).map(|_| AtomicU8::new(UNCHECKED)).collect() }
    }

    pub fn len(&self) -> usize {
        self.state.len()
    }

    /// Block `b`'s bytes: `start..end`.
    pub fn range(&self, b: usize) -> (usize, usize) {
        let start = HEADER_LEN + (b << self.shift);
        (start, (start + (1 << self.shift)).min(self.end))
    }

    /// The blocks that bytes `at..at + len` (inside the blocks) touch.
    pub fn touched(&self, at: usize, len: usize) -> std::ops::Range<usize> {
        if len == 0 {
            return 0..0;
        }
        let first = (at - HEADER_LEN) >> self.shift;
        first..((at + len - 1 - HEADER_LEN) >> self.shift) + 1
    }

    /// Checks block `b` of the file `bytes` against its stored checksum
    /// (the first time; then its state): whether it is good.
    pub fn check(&self, bytes: &[u8], b: usize) -> bool {
        let Some(state) = self.state.get(b) else { return false };
        match state.load(Relaxed) {
            GOOD => return true,
            DAMAGED => return false,
            _ => {}
        }
        let (start, end) = self.range(b);
        let at = self.end + 8 * b;
        let stored = bytes.get(at..at + 8).and_then(|s| s.try_into().ok()).map(u64::from_le_bytes);
        let good = match (bytes.get(start..end), stored) {
            (Some(block), Some(stored)) => checksum(start as u64, block) == stored,
            _ => false,
        };
        // Another thread may check it meanwhile: the same answer.
        state.store(if good { GOOD } else { DAMAGED }, Relaxed);
        good
    }
}

/// The writer's side: the checksums of the bytes fed in from `HEADER_LEN`
/// on, block after block.
pub(super) struct Summer {
    shift: u8,
    /// The offset of the block being filled.
    offset: u64,
    block: Vec<u8>,
    /// The checksums so far, little-endian.
    pub sums: Vec<u8>,
}

impl Summer {
    pub fn new(shift: u8) -> Summer {
        Summer { shift, offset: HEADER_LEN as u64, block: Vec::with_capacity(1 << shift), sums: Vec::new() }
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        let size = 1usize << self.shift;
        while !bytes.is_empty() {
            if self.block.is_empty() && bytes.len() >= size {
                // A whole block in hand: summed where it lies.
                self.sum(&bytes[..size]);
                bytes = &bytes[size..];
                continue;
            }
            let take = (size - self.block.len()).min(bytes.len());
            self.block.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.block.len() == size {
                self.flush();
            }
        }
    }

    fn flush(&mut self) {
        let block = std::mem::take(&mut self.block);
        self.sum(&block);
        self.block = block;
        self.block.clear();
    }

    /// The checksum of the next block, `block`.
    fn sum(&mut self, block: &[u8]) {
        self.sums.extend_from_slice(&checksum(self.offset, block).to_le_bytes());
        self.offset += block.len() as u64;
    }

    /// The checksums of every block, the last (shorter) one included.
    pub fn finish(mut self) -> Vec<u8> {
        if !self.block.is_empty() {
            self.flush();
        }
        self.sums
    }
}
