//! The header fields the network file (ARNN, [`super::file`]) and the
//! trainer's checkpoint (ARCK, `train::checkpoint`) share, read once. All
//! little-endian, from offset 0:
//!
//! | size | field | validated |
//! |------|-------|-----------|
//! | 4 | magic | exact |
//! | 4 | format version (u32) | the format's |
//! | 4 | input count (u32), ARNN only | must be 768 |
//! | 4 | hidden size `N` (u32) | multiple of 16 in `16..=4096` |
//! | 2 | QA (u16) | `1..=255` |
//! | 2 | QB (u16) | at least 1 |
//! | 2 | SCALE (u16) | at least 1 |
//! | 2 | flags (u16): bit 0 = the output is added to the hand-written evaluation ([`super::Base`]) | no other bit set |
//!
//! The whole header (`len` bytes, the format's own fields after these
//! included) must be there before any field is checked.

use super::{is_valid_hidden, Base, Quantisation, INPUTS};
use crate::codec::{Reader, Truncated};
use thiserror::Error;

/// What a format's header is.
pub struct Layout {
    pub magic: &'static [u8; 4],
    /// What its version numbers (`format`, `checkpoint`), for messages.
    pub what: &'static str,
    pub version: u32,
    /// Whether the input count follows the version.
    pub input_count: bool,
    /// The header's whole length.
    pub len: usize,
}

/// The shared fields of a valid header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub hidden: usize,
    pub quant: Quantisation,
    pub base: Base,
}

/// The first thing wrong with a header, with its offset: both formats'
/// errors hold it as it is (`NetError::Header`, `CheckpointError::Header`).
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum HeaderError {
    #[error("bad magic at offset 0: expected \"{}\"", String::from_utf8_lossy(&expected[..]))]
    BadMagic { expected: &'static [u8; 4] },
    #[error("unsupported {what} version {version} at offset 4 (expected {expected})")]
    UnsupportedVersion { what: &'static str, version: u32, expected: u32 },
    #[error("input count {count} at offset 8 (expected {INPUTS})")]
    BadInputCount { count: u32 },
    #[error("hidden size {hidden} at offset {offset}: must be a multiple of 16 in 16..=4096")]
    BadHiddenSize { offset: usize, hidden: u32 },
    #[error("{field} = {value} at offset {offset}: {rule}")]
    BadQuantisation { offset: usize, quant: Quantisation, field: &'static str, value: u16, rule: &'static str },
    #[error("flags at offset {offset} are {value:#06x}: only bit 0 (hand-written base) is defined")]
    UnknownFlags { offset: usize, value: u16 },
    #[error(transparent)]
    Truncated(#[from] Truncated),
}

impl HeaderError {
    /// The byte offset the error names.
    pub fn offset(&self) -> usize {
        match self {
            HeaderError::BadMagic { .. } => 0,
            HeaderError::UnsupportedVersion { .. } => 4,
            HeaderError::BadInputCount { .. } => 8,
            HeaderError::BadHiddenSize { offset, .. }
            | HeaderError::BadQuantisation { offset, .. }
            | HeaderError::UnknownFlags { offset, .. } => *offset,
            HeaderError::Truncated(t) => t.offset as usize,
        }
    }

    /// `quant`'s first constant out of range, as the error of the fields
    /// stored from `offset` (QA, QB, SCALE), if any.
    pub fn of_quantisation(quant: Quantisation, offset: usize) -> Option<HeaderError> {
        let (i, field, rule) = quantisation_fault(quant)?;
        let value = [quant.qa, quant.qb, quant.scale][i];
        Some(HeaderError::BadQuantisation { offset: offset + 2 * i, quant, field, value, rule })
    }
}

/// Reads the shared fields at the start of `bytes`; the cursor ends after
/// them (the format's own header fields follow).
pub fn read<'a>(bytes: &'a [u8], layout: &Layout) -> Result<(Header, Reader<'a>), HeaderError> {
    // A file shorter than the magic is a wrong file when it starts wrong.
    if !layout.magic.starts_with(bytes.get(..4).unwrap_or(bytes)) {
        return Err(HeaderError::BadMagic { expected: layout.magic });
    }
    let mut r = Reader::new(Reader::new(bytes).bytes(layout.len)?);
    r.skip(4)?;
    let version = r.u32_le()?;
    if version != layout.version {
        return Err(HeaderError::UnsupportedVersion { what: layout.what, version, expected: layout.version });
    }
    if layout.input_count {
        let count = r.u32_le()?;
        if count as usize != INPUTS {
            return Err(HeaderError::BadInputCount { count });
        }
    }
    let (offset, hidden) = (r.offset(), r.u32_le()?);
    if !is_valid_hidden(hidden as usize) {
        return Err(HeaderError::BadHiddenSize { offset, hidden });
    }
    let at = r.offset();
    let quant = Quantisation { qa: r.u16_le()?, qb: r.u16_le()?, scale: r.u16_le()? };
    if let Some(e) = HeaderError::of_quantisation(quant, at) {
        return Err(e);
    }
    let (offset, value) = (r.offset(), r.u16_le()?);
    let Some(base) = Base::from_flags(value) else {
        return Err(HeaderError::UnknownFlags { offset, value });
    };
    Ok((Header { hidden: hidden as usize, quant, base }, r))
}

/// The first quantisation constant out of range: its index (QA 0, QB 1,
/// SCALE 2, as stored), name and rule.
pub fn quantisation_fault(q: Quantisation) -> Option<(usize, &'static str, &'static str)> {
    if !(1..=255).contains(&q.qa) {
        Some((0, "QA", "must be in 1..=255"))
    } else if q.qb == 0 {
        Some((1, "QB", "must be at least 1"))
    } else if q.scale == 0 {
        Some((2, "SCALE", "must be at least 1"))
    } else {
        None
    }
}
