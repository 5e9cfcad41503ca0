//! The trainer's checkpoint (`<out>.ckpt`), format version 2: the float
//! network, the optimiser state, the positions trained so far and the
//! learning-rate schedule they index, written after every training leg, so
//! a later leg (`train --init`, `train --resume`) continues exactly where
//! the last one stopped. All integers little-endian; `N` is the hidden size
//! and `P = 768·N + N + 2·N + 1` the parameter count.
//!
//! | offset | size | field | validated |
//! |--------|------|-------|-----------|
//! | 0 | 4 | magic `"ARCK"` | exact |
//! | 4 | 4 | format version (u32) | must be 1 |
//! | 8 | 4 | hidden size `N` (u32) | multiple of 16 in `16..=4096` |
//! | 12 | 2 | QA (u16) | `1..=255` |
//! | 14 | 2 | QB (u16) | at least 1 |
//! | 16 | 2 | SCALE (u16) | at least 1 |
//! | 18 | 2 | flags (u16): bit 0 = trained on the hand-written evaluation ([`crate::nnue::Base`]) | no other bit set |
//! | 20 | 4 | legs completed (u32) | — |
//! | 24 | 8 | seed of the run (u64) | — |
//! | 32 | 8 | optimiser steps taken (u64) | — |
//! | 40 | 8 | positions trained (u64) | — |
//! | 48 | 8 | schedule: planned positions (u64) | at least 1 |
//! | 56 | 4 | schedule: first learning rate (f32) | finite, > 0 |
//! | 60 | 4 | schedule: last learning rate (f32) | finite, ≥ 0 |
//! | 64 | 4·P | parameters, f32: feature weights `[768][N]`, feature biases `[N]`, output weights `[2N]`, output bias | finite |
//! | 64 + 4P | 4·P | AdamW first moments, same order (f32) | finite |
//! | 64 + 8P | 4·P | AdamW second moments, same order (f32) | finite, ≥ 0 |
//! | 64 + 12P | 8 | checksum (u64): 64-bit FNV-1a of bytes `0 .. 64 + 12P` | — |
//!
//! Version 1 (no positions or schedule, 40-byte header) is refused: the
//! positions-indexed schedule cannot be recovered from it.
//!
//! The file ends exactly after the checksum. The reader checks magic,
//! version, hidden size, quantisation, flags, length, checksum, then the
//! values; the first failure is the error, with its byte offset. It is
//! written atomically (temporary file, sync, rename).

use super::optim::{parameter_count, AdamW};
use super::schedule::Schedule;
use crate::codec::{fnv1a64, IoAt, PathIoError, Put, Reader, Truncated};
use crate::nnue::header::{self, HeaderError, Layout};
use crate::nnue::{FloatNetwork, INPUTS};
use std::path::Path;
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ARCK";
pub const VERSION: u32 = 2;
pub const HEADER_LEN: usize = 64;

/// Why a checkpoint was rejected.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CheckpointError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    /// The header's shared fields (`nnue::header`).
    #[error(transparent)]
    Header(HeaderError),
    #[error(transparent)]
    Truncated(#[from] Truncated),
    #[error("{extra} trailing bytes at offset {offset}")]
    TrailingBytes { offset: usize, extra: usize },
    #[error("checksum mismatch at offset {offset}: stored {stored:#018x}, computed {computed:#018x}")]
    ChecksumMismatch { offset: usize, stored: u64, computed: u64 },
    #[error("learning-rate schedule at offset 48 is invalid: {planned} planned positions, rates {lr} to {lr_end}")]
    BadSchedule { planned: u64, lr: f32, lr_end: f32 },
    #[error("value {value} at offset {offset} is not a finite number (or a negative second moment)")]
    BadValue { offset: usize, value: f32 },
}

impl CheckpointError {
    /// The byte offset the error names (`None` for I/O errors).
    pub fn offset(&self) -> Option<usize> {
        Some(match self {
            CheckpointError::Io(_) => return None,
            CheckpointError::Truncated(t) => t.offset as usize,
            CheckpointError::Header(h) => h.offset(),
            CheckpointError::BadSchedule { .. } => 48,
            CheckpointError::TrailingBytes { offset, .. }
            | CheckpointError::ChecksumMismatch { offset, .. }
            | CheckpointError::BadValue { offset, .. } => *offset,
        })
    }
}

/// A training run's state after `legs` whole legs.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub net: FloatNetwork,
    pub optimiser: AdamW,
    pub legs: u32,
    pub seed: u64,
    /// Positions trained so far (every leg), the schedule's index.
    pub trained: u64,
    pub schedule: Schedule,
}

/// The file length for hidden size `hidden`.
pub const fn file_len(hidden: usize) -> usize {
    HEADER_LEN + 12 * parameter_count(hidden) + 8
}

/// The header's layout, shared with the network file.
const LAYOUT: Layout =
    Layout { magic: MAGIC, what: "checkpoint", version: VERSION, input_count: false, len: HEADER_LEN };

/// A header error is the file's; a truncated header is a truncated file.
impl From<HeaderError> for CheckpointError {
    fn from(e: HeaderError) -> CheckpointError {
        match e {
            HeaderError::Truncated(t) => CheckpointError::Truncated(t),
            other => CheckpointError::Header(other),
        }
    }
}

impl Checkpoint {
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.net.hidden();
        let q = self.net.quantisation();
        let mut out = Vec::with_capacity(file_len(n));
        out.put(MAGIC);
        out.put_u32_le(VERSION);
        out.put_u32_le(n as u32);
        for v in [q.qa, q.qb, q.scale, self.net.base().flags()] {
            out.put_u16_le(v);
        }
        out.put_u32_le(self.legs);
        out.put_u64_le(self.seed);
        out.put_u64_le(self.optimiser.steps);
        out.put_u64_le(self.trained);
        out.put_u64_le(self.schedule.planned);
        out.put_f32_le(self.schedule.lr);
        out.put_f32_le(self.schedule.lr_end);
        let params =
            [self.net.feature_weights(), self.net.feature_bias(), self.net.output_weights(), &[self.net.output_bias()]];
        for slice in params.into_iter().chain([self.optimiser.m.as_slice(), self.optimiser.v.as_slice()]) {
            for &x in slice {
                out.put_f32_le(x);
            }
        }
        let sum = fnv1a64(&out);
        out.put_u64_le(sum);
        out
    }

    /// Parses and validates a checkpoint; never panics.
    pub fn from_bytes(b: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let (header::Header { hidden, quant, base }, mut r) = header::read(b, &LAYOUT)?;
        let (legs, seed, steps, trained) = (r.u32_le()?, r.u64_le()?, r.u64_le()?, r.u64_le()?);
        let schedule = Schedule { planned: r.u64_le()?, lr: r.f32_le()?, lr_end: r.f32_le()? };
        if !schedule.is_valid() {
            return Err(CheckpointError::BadSchedule {
                planned: schedule.planned,
                lr: schedule.lr,
                lr_end: schedule.lr_end,
            });
        }
        let len = file_len(hidden);
        Reader::at(b, HEADER_LEN).skip(len - HEADER_LEN)?;
        if b.len() > len {
            return Err(CheckpointError::TrailingBytes { offset: len, extra: b.len() - len });
        }
        let (stored, computed) = (Reader::at(b, len - 8).u64_le()?, fnv1a64(b.get(..len - 8).unwrap_or_default()));
        if stored != computed {
            return Err(CheckpointError::ChecksumMismatch { offset: len - 8, stored, computed });
        }
        let p = parameter_count(hidden);
        let mut r = Reader::at(b, HEADER_LEN);
        let mut floats = |nonneg: bool| -> Result<Vec<f32>, CheckpointError> {
            (0..p)
                .map(|_| {
                    let (offset, value) = (r.offset(), r.f32_le()?);
                    if !value.is_finite() || (nonneg && value < 0.0) {
                        Err(CheckpointError::BadValue { offset, value })
                    } else {
                        Ok(value)
                    }
                })
                .collect()
        };
        let params = floats(false)?;
        let m = floats(false)?;
        let v = floats(true)?;
        let Ok(mut net) = FloatNetwork::zeros(hidden, quant) else {
            return Err(CheckpointError::Header(HeaderError::BadHiddenSize { offset: 8, hidden: hidden as u32 }));
        };
        let (w_end, b_end) = (INPUTS * hidden, INPUTS * hidden + hidden);
        net.feature_weights_mut().copy_from_slice(&params[..w_end]);
        net.feature_bias_mut().copy_from_slice(&params[w_end..b_end]);
        net.output_weights_mut().copy_from_slice(&params[b_end..p - 1]);
        net.set_output_bias(params[p - 1]);
        net.set_base(base);
        Ok(Checkpoint { net, optimiser: AdamW { m, v, steps }, legs, seed, trained, schedule })
    }

    pub fn load(path: &Path) -> Result<Checkpoint, CheckpointError> {
        Checkpoint::from_bytes(&crate::codec::read_file(path)?)
    }

    /// Writes atomically (temporary file, sync, rename).
    pub fn write(&self, path: &Path) -> Result<(), CheckpointError> {
        let bytes = self.to_bytes();
        crate::atomic_file::write_with(path, 1 << 20, |w| std::io::Write::write_all(w, &bytes)).at(path)?;
        Ok(())
    }
}
