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
//! | 22 | 2 | reserved | zero |
//! | 24 | 2·768·N | feature weights, i16 `[768][N]` (row = input) | — |
//! | 24 + 1536·N | 2·N | feature biases, i16 `[N]` | — |
//! | 24 + 1538·N | 2·2N | output weights, i16 `[2N]`, side to move's half first | `\|w\| ≤ ⌊32767 / QA⌋` |
//! | 24 + 1542·N | 4 | output bias (i32) | — |
//! | 28 + 1542·N | 8 | checksum (u64) | 64-bit FNV-1a of bytes `0 .. 28 + 1542·N` |
//!
//! The file must end exactly after the checksum. The reader checks, in this
//! order: magic, version, input count, hidden size, quantisation, reserved,
//! length (truncated or trailing bytes), checksum, output weights; the first
//! failure is the error, with the byte offset where it was found. Reading
//! never panics, whatever the bytes.
//!
//! FNV-1a (64-bit): `h = 0xcbf29ce484222325`, then for each byte
//! `h = (h ^ byte) · 0x100000001b3` (wrapping).
//!
//! Stability: version 1 is frozen; a changed layout gets a new version.
//! The writer replaces files atomically through [`crate::atomic_file`].

use super::{is_valid_hidden, Network, Quantisation, INPUTS};
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ARNN";
pub const VERSION: u32 = 1;
pub const HEADER_LEN: usize = 24;
const CHECKSUM_LEN: usize = 8;

/// Why a network file was rejected.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum NetError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("bad magic at offset 0: expected \"ARNN\"")]
    BadMagic,
    #[error("unsupported format version {version} at offset 4 (expected {VERSION})")]
    UnsupportedVersion { version: u32 },
    #[error("input count {count} at offset 8 (expected {INPUTS})")]
    BadInputCount { count: u32 },
    #[error("hidden size {hidden} at offset 12: must be a multiple of 16 in 16..=4096")]
    BadHiddenSize { hidden: u32 },
    #[error("{field} = {value} at offset {offset}: {rule}")]
    BadQuantisation { offset: usize, field: &'static str, value: u16, rule: &'static str },
    #[error("reserved field at offset {offset} is {value:#06x}, must be 0")]
    NonZeroReserved { offset: usize, value: u16 },
    #[error("truncated at offset {offset} (expected {expected} bytes)")]
    Truncated { offset: usize, expected: usize },
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
            NetError::Io { .. } => return None,
            NetError::BadMagic => 0,
            NetError::UnsupportedVersion { .. } => 4,
            NetError::BadInputCount { .. } => 8,
            NetError::BadHiddenSize { .. } => 12,
            NetError::BadQuantisation { offset, .. }
            | NetError::NonZeroReserved { offset, .. }
            | NetError::Truncated { offset, .. }
            | NetError::TrailingBytes { offset, .. }
            | NetError::ChecksumMismatch { offset, .. }
            | NetError::OutputWeightOutOfRange { offset, .. } => *offset,
        })
    }
}

/// The file length for hidden size `hidden`.
pub const fn file_len(hidden: usize) -> usize {
    HEADER_LEN + 2 * (INPUTS * hidden + hidden + 2 * hidden) + 4 + CHECKSUM_LEN
}

use crate::codec::fnv1a64;

/// Reads little-endian fields from a slice whose length was checked first.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take<const K: usize>(&mut self) -> [u8; K] {
        let mut out = [0u8; K];
        if let Some(src) = self.bytes.get(self.pos..self.pos + K) {
            out.copy_from_slice(src);
        }
        self.pos += K;
        out
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn i16s(&mut self, count: usize) -> Vec<i16> {
        let end = (self.pos + 2 * count).min(self.bytes.len());
        let src = self.bytes.get(self.pos..end).unwrap_or(&[]);
        self.pos += 2 * count;
        src.chunks_exact(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect()
    }
}

/// The quantisation invariants, with the offsets of the header fields.
pub(super) fn check_quantisation(q: Quantisation) -> Result<(), NetError> {
    let bad = |offset, field, value, rule| Err(NetError::BadQuantisation { offset, field, value, rule });
    if !(1..=255).contains(&q.qa) {
        return bad(16, "QA", q.qa, "must be in 1..=255");
    }
    if q.qb == 0 {
        return bad(18, "QB", q.qb, "must be at least 1");
    }
    if q.scale == 0 {
        return bad(20, "SCALE", q.scale, "must be at least 1");
    }
    Ok(())
}

/// Checks the header; returns the hidden size and the quantisation.
fn parse_header(bytes: &[u8]) -> Result<(usize, Quantisation), NetError> {
    if !MAGIC.starts_with(bytes.get(..4).unwrap_or(bytes)) {
        return Err(NetError::BadMagic);
    }
    if bytes.len() < HEADER_LEN {
        return Err(NetError::Truncated { offset: bytes.len(), expected: HEADER_LEN });
    }
    let mut r = Reader { bytes, pos: 4 };
    let version = r.u32();
    if version != VERSION {
        return Err(NetError::UnsupportedVersion { version });
    }
    let count = r.u32();
    if count as usize != INPUTS {
        return Err(NetError::BadInputCount { count });
    }
    let hidden = r.u32();
    if !is_valid_hidden(hidden as usize) {
        return Err(NetError::BadHiddenSize { hidden });
    }
    let quant = Quantisation { qa: r.u16(), qb: r.u16(), scale: r.u16() };
    check_quantisation(quant)?;
    let reserved = r.u16();
    if reserved != 0 {
        return Err(NetError::NonZeroReserved { offset: 22, value: reserved });
    }
    Ok((hidden as usize, quant))
}

impl Network {
    /// Parses and validates a whole network file (layout in the module doc).
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, NetError> {
        let (hidden, quant) = parse_header(bytes)?;
        let expected = file_len(hidden);
        if bytes.len() < expected {
            return Err(NetError::Truncated { offset: bytes.len(), expected });
        }
        if bytes.len() > expected {
            return Err(NetError::TrailingBytes { offset: expected, extra: bytes.len() - expected });
        }
        let body = expected - CHECKSUM_LEN;
        let computed = fnv1a64(&bytes[..body]);
        let mut r = Reader { bytes, pos: body };
        let stored = u64::from_le_bytes(r.take());
        if stored != computed {
            return Err(NetError::ChecksumMismatch { offset: body, stored, computed });
        }
        let mut r = Reader { bytes, pos: HEADER_LEN };
        let feature_weights = r.i16s(INPUTS * hidden);
        let feature_bias = r.i16s(hidden);
        let outputs_at = r.pos;
        let output_weights = r.i16s(2 * hidden);
        let output_bias = i32::from_le_bytes(r.take());
        let limit = quant.max_output_weight();
        if let Some((index, &value)) = output_weights.iter().enumerate().find(|(_, w)| w.unsigned_abs() > limit as u16)
        {
            return Err(NetError::OutputWeightOutOfRange { offset: outputs_at + 2 * index, index, value, limit });
        }
        Ok(Network { hidden, quant, feature_weights, feature_bias, output_weights, output_bias })
    }

    /// Reads and validates the network file at `path`.
    pub fn load(path: &Path) -> Result<Network, NetError> {
        let bytes = std::fs::read(path).map_err(|source| NetError::Io { path: path.to_path_buf(), source })?;
        Network::from_bytes(&bytes)
    }

    /// The file's bytes (layout in the module doc), checksum included.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(file_len(self.hidden));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(INPUTS as u32).to_le_bytes());
        out.extend_from_slice(&(self.hidden as u32).to_le_bytes());
        for v in [self.quant.qa, self.quant.qb, self.quant.scale, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for w in self.feature_weights.iter().chain(&self.feature_bias).chain(&self.output_weights) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.output_bias.to_le_bytes());
        let checksum = fnv1a64(&out);
        out.extend_from_slice(&checksum.to_le_bytes());
        out
    }

    /// Writes the network to `path`, replacing any file there atomically.
    pub fn write(&self, path: &Path) -> Result<(), NetError> {
        let bytes = self.to_bytes();
        crate::atomic_file::write_with(path, 1 << 16, |w| std::io::Write::write_all(w, &bytes))
            .map_err(|source| NetError::Io { path: path.to_path_buf(), source })
    }
}

#[cfg(test)]
mod tests;
