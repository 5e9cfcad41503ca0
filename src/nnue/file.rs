//! The network file (`.nnue`), format version 1. All integers little-endian;
//! `N` is the hidden size and `L = 24 + 2·768·N + 2·N + 2·2N + 4 + 8` the
//! file length.
//!
//! | offset | size | field | validated |
//! |--------|------|-------|-----------|
//! | 0 | 4 | magic `"ARNN"` | exact |
//! | 4 | 4 | format version (u32) | must be 1 |
//! | 8 | 4 | input count (u32) | must be 768 |
//! | 12 | 4 | hidden size `N` (u32) | multiple of 16 in `16..=4096` |
//! | 16 | 2 | QA (u16) | `1..=255` |
//! | 18 | 2 | QB (u16) | at least 1 |
//! | 20 | 2 | SCALE (u16) | at least 1 |
//! | 22 | 2 | flags (u16): bit 0 = added to the hand-written evaluation ([`super::Base`]) | no other bit set |
//! | 24 | 2·768·N | feature weights, i16 `[768][N]` (row = input) | — |
//! | 24 + 1536·N | 2·N | feature biases, i16 `[N]` | — |
//! | 24 + 1538·N | 2·2N | output weights, i16 `[2N]`, side to move's half first | `\|w\| ≤ ⌊32767 / QA⌋` |
//! | 24 + 1542·N | 4 | output bias (i32) | — |
//! | 28 + 1542·N | 8 | checksum (u64) | 64-bit FNV-1a of bytes `0 .. 28 + 1542·N` |
//!
//! The file must end exactly after the checksum. The reader checks, in this
//! order: magic, version, input count, hidden size, quantisation, flags,
//! length (truncated or trailing bytes), checksum, output weights; the first
//! failure is the error, with the byte offset where it was found. Reading
//! never panics, whatever the bytes.
//!
//! FNV-1a (64-bit): `h = 0xcbf29ce484222325`, then for each byte
//! `h = (h ^ byte) · 0x100000001b3` (wrapping).
//!
//! Stability: version 1 is frozen; a changed layout gets a new version.
//! The writer replaces files atomically through [`crate::atomic_file`].

use super::header::{self, HeaderError, Layout};
use super::{Network, Quantisation, INPUTS};
use crate::codec::{fnv1a64, IoAt, PathIoError, Put, Reader, Truncated};
use std::path::Path;
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ARNN";
pub const VERSION: u32 = 1;
pub const HEADER_LEN: usize = 24;
const CHECKSUM_LEN: usize = 8;

/// Why a network file was rejected.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum NetError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    /// The header's shared fields ([`header`]).
    #[error(transparent)]
    Header(HeaderError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("{extra} trailing bytes at offset {offset}")]
    TrailingBytes { offset: usize, extra: usize },
    #[error("checksum mismatch at offset {offset}: stored {stored:#018x}, computed {computed:#018x}")]
    ChecksumMismatch { offset: usize, stored: u64, computed: u64 },
    #[error("output weight {index} at offset {offset} is {value}, beyond ±{limit} (⌊32767 / QA⌋)")]
    OutputWeightOutOfRange { offset: usize, index: usize, value: i16, limit: i16 },
}

impl NetError {
    /// The byte offset the error names (`None` for I/O errors).
    pub fn offset(&self) -> Option<usize> {
        Some(match self {
            NetError::Io(_) => return None,
            NetError::Truncated(t) => t.offset as usize,
            NetError::Header(h) => h.offset(),
            NetError::TrailingBytes { offset, .. }
            | NetError::ChecksumMismatch { offset, .. }
            | NetError::OutputWeightOutOfRange { offset, .. } => *offset,
        })
    }
}

/// The file length for hidden size `hidden`.
pub const fn file_len(hidden: usize) -> usize {
    HEADER_LEN + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4 + CHECKSUM_LEN
}

/// The header's layout, shared with the trainer's checkpoint.
const LAYOUT: Layout = Layout { magic: MAGIC, what: "format", version: VERSION, input_count: true, len: HEADER_LEN };

/// A header error is the file's; a truncated header is a truncated file.
impl From<HeaderError> for NetError {
    fn from(e: HeaderError) -> NetError {
        match e {
            HeaderError::Truncated(t) => NetError::Truncated(t),
            other => NetError::Header(other),
        }
    }
}

/// The quantisation invariants, with the offsets of the header fields.
pub(super) fn check_quantisation(q: Quantisation) -> Result<(), NetError> {
    HeaderError::of_quantisation(q, 16).map_or(Ok(()), |e| Err(e.into()))
}

impl Network {
    /// Parses and validates a whole network file (layout in the module doc).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let (header::Header { hidden, quant, base }, _) = header::read(bytes, &LAYOUT)?;
        let expected = file_len(hidden);
        Reader::at(bytes, HEADER_LEN).skip(expected - HEADER_LEN)?;
        if bytes.len() > expected {
            return Err(NetError::TrailingBytes { offset: expected, extra: bytes.len() - expected });
        }
        let body = expected - CHECKSUM_LEN;
        let computed = fnv1a64(bytes.get(..body).unwrap_or_default());
        let stored = Reader::at(bytes, body).u64_le()?;
        if stored != computed {
            return Err(NetError::ChecksumMismatch { offset: body, stored, computed });
        }
        let mut r = Reader::at(bytes, HEADER_LEN);
        let feature_weights = i16s(&mut r, INPUTS * hidden)?;
        let feature_bias = i16s(&mut r, hidden)?;
        let outputs_at = r.offset();
        let output_weights = i16s(&mut r, 2 * hidden)?;
        let output_bias = r.i32_le()?;
        let limit = quant.max_output_weight();
        if let Some((index, &value)) = output_weights.iter().enumerate().find(|(_, w)| w.unsigned_abs() > limit as u16)
        {
            return Err(NetError::OutputWeightOutOfRange { offset: outputs_at + 2 * index, index, value, limit });
        }
        Ok(Network { hidden, quant, base, feature_weights, feature_bias, output_weights, output_bias })
    }

    /// Reads and validates the network file at `path`.
    pub fn load(path: &Path) -> Result<Network, NetError> {
        Network::from_bytes(&crate::codec::read_file(path)?)
    }

    /// The file's bytes (layout in the module doc), checksum included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(file_len(self.hidden));
        out.put(MAGIC);
        out.put_u32_le(VERSION);
        out.put_u32_le(INPUTS as u32);
        out.put_u32_le(self.hidden as u32);
        for v in [self.quant.qa, self.quant.qb, self.quant.scale, self.base.flags()] {
            out.put_u16_le(v);
        }
        for &w in self.feature_weights.iter().chain(&self.feature_bias).chain(&self.output_weights) {
            out.put_i16_le(w);
        }
        out.put_i32_le(self.output_bias);
        let checksum = fnv1a64(&out);
        out.put_u64_le(checksum);
        out
    }

    /// Writes the network to `path`, replacing any file there atomically.
    pub fn write(&self, path: &Path) -> Result<(), NetError> {
        let bytes = self.to_bytes();
        Ok(crate::atomic_file::write_with(path, 1 << 16, |w| std::io::Write::write_all(w, &bytes)).at(path)?)
    }
}

/// `count` i16 values at the cursor.
fn i16s(r: &mut Reader, count: usize) -> Result<Vec<i16>, Truncated> {
    (0..count).map(|_| r.i16_le()).collect()
}

#[cfg(test)]
mod tests;
