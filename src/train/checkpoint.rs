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
//! | 18 | 2 | reserved | zero |
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
//! version, hidden size, quantisation, reserved, length, checksum, then the
//! values; the first failure is the error, with its byte offset. It is
//! written atomically (temporary file, sync, rename).

use super::optim::{parameter_count, AdamW};
use crate::codec::fnv1a64;
use crate::nnue::{is_valid_hidden, FloatNetwork, Quantisation, INPUTS};
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MAGIC: &[u8; 4] = b"ARCK";
pub const VERSION: u32 = 2;
pub const HEADER_LEN: usize = 64;

/// Why a checkpoint was rejected.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CheckpointError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("bad magic at offset 0: expected \"ARCK\"")]
    BadMagic,
    #[error("unsupported checkpoint version {version} at offset 4 (expected {VERSION})")]
    UnsupportedVersion { version: u32 },
    #[error("hidden size {hidden} at offset 8: must be a multiple of 16 in 16..=4096")]
    BadHiddenSize { hidden: u32 },
    #[error("quantisation QA {qa}, QB {qb}, SCALE {scale} at offset 12: QA must be 1..=255, QB and SCALE at least 1")]
    BadQuantisation { qa: u16, qb: u16, scale: u16 },
    #[error("reserved field at offset 18 is {value:#06x}, must be 0")]
    NonZeroReserved { value: u16 },
    #[error("truncated at offset {offset} (expected {expected} bytes)")]
    Truncated { offset: usize, expected: usize },
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
            CheckpointError::Io { .. } => return None,
            CheckpointError::BadMagic => 0,
            CheckpointError::UnsupportedVersion { .. } => 4,
            CheckpointError::BadHiddenSize { .. } => 8,
            CheckpointError::BadQuantisation { .. } => 12,
            CheckpointError::NonZeroReserved { .. } => 18,
            CheckpointError::BadSchedule { .. } => 48,
            CheckpointError::Truncated { offset, .. }
            | CheckpointError::TrailingBytes { offset, .. }
            | CheckpointError::ChecksumMismatch { offset, .. }
            | CheckpointError::BadValue { offset, .. } => *offset,
        })
    }
}

/// The learning rate as a function of the positions trained: a cosine from
/// `lr` (none trained) to `lr_end` (`planned` trained), then `lr_end`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    pub lr: f32,
    pub lr_end: f32,
    pub planned: u64,
}

impl Schedule {
    pub fn is_valid(&self) -> bool {
        self.planned > 0 && self.lr.is_finite() && self.lr > 0.0 && self.lr_end.is_finite() && self.lr_end >= 0.0
    }

    /// The learning rate of a batch trained after `trained` positions.
    pub fn rate(&self, trained: u64) -> f32 {
        let t = (trained as f64 / self.planned.max(1) as f64).min(1.0);
        let (lr, end) = (f64::from(self.lr), f64::from(self.lr_end));
        (end + 0.5 * (lr - end) * (1.0 + (std::f64::consts::PI * t).cos())) as f32
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

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0; 8];
    v.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(v)
}

impl Checkpoint {
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.net.hidden();
        let q = self.net.quantisation();
        let mut out = Vec::with_capacity(file_len(n));
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&(n as u32).to_le_bytes());
        for v in [q.qa, q.qb, q.scale, 0] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.legs.to_le_bytes());
        out.extend_from_slice(&self.seed.to_le_bytes());
        out.extend_from_slice(&self.optimiser.steps.to_le_bytes());
        out.extend_from_slice(&self.trained.to_le_bytes());
        out.extend_from_slice(&self.schedule.planned.to_le_bytes());
        out.extend_from_slice(&self.schedule.lr.to_le_bytes());
        out.extend_from_slice(&self.schedule.lr_end.to_le_bytes());
        let params =
            [self.net.feature_weights(), self.net.feature_bias(), self.net.output_weights(), &[self.net.output_bias()]];
        for slice in params.into_iter().chain([self.optimiser.m.as_slice(), self.optimiser.v.as_slice()]) {
            for x in slice {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        let sum = fnv1a64(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Parses and validates a checkpoint; never panics.
    pub fn from_bytes(b: &[u8]) -> Result<Checkpoint, CheckpointError> {
        let need = |offset: usize, expected: usize| {
            if b.len() < expected {
                Err(CheckpointError::Truncated { offset, expected })
            } else {
                Ok(())
            }
        };
        need(b.len().min(4), 4)?;
        if &b[..4] != MAGIC {
            return Err(CheckpointError::BadMagic);
        }
        need(b.len(), HEADER_LEN)?;
        let version = u32_at(b, 4);
        if version != VERSION {
            return Err(CheckpointError::UnsupportedVersion { version });
        }
        let hidden32 = u32_at(b, 8);
        let hidden = hidden32 as usize;
        if !is_valid_hidden(hidden) {
            return Err(CheckpointError::BadHiddenSize { hidden: hidden32 });
        }
        let quant = Quantisation { qa: u16_at(b, 12), qb: u16_at(b, 14), scale: u16_at(b, 16) };
        if !quant.is_valid() {
            return Err(CheckpointError::BadQuantisation { qa: quant.qa, qb: quant.qb, scale: quant.scale });
        }
        let reserved = u16_at(b, 18);
        if reserved != 0 {
            return Err(CheckpointError::NonZeroReserved { value: reserved });
        }
        let schedule = Schedule {
            planned: u64_at(b, 48),
            lr: f32::from_bits(u32_at(b, 56)),
            lr_end: f32::from_bits(u32_at(b, 60)),
        };
        if !schedule.is_valid() {
            return Err(CheckpointError::BadSchedule {
                planned: schedule.planned,
                lr: schedule.lr,
                lr_end: schedule.lr_end,
            });
        }
        let len = file_len(hidden);
        need(b.len(), len)?;
        if b.len() > len {
            return Err(CheckpointError::TrailingBytes { offset: len, extra: b.len() - len });
        }
        let (stored, computed) = (u64_at(b, len - 8), fnv1a64(&b[..len - 8]));
        if stored != computed {
            return Err(CheckpointError::ChecksumMismatch { offset: len - 8, stored, computed });
        }
        let p = parameter_count(hidden);
        let floats = |block: usize, nonneg: bool| -> Result<Vec<f32>, CheckpointError> {
            let start = HEADER_LEN + 4 * p * block;
            (0..p)
                .map(|i| {
                    let offset = start + 4 * i;
                    let value = f32::from_bits(u32_at(b, offset));
                    if !value.is_finite() || (nonneg && value < 0.0) {
                        Err(CheckpointError::BadValue { offset, value })
                    } else {
                        Ok(value)
                    }
                })
                .collect()
        };
        let params = floats(0, false)?;
        let m = floats(1, false)?;
        let v = floats(2, true)?;
        let Ok(mut net) = FloatNetwork::zeros(hidden, quant) else {
            return Err(CheckpointError::BadHiddenSize { hidden: hidden32 });
        };
        let (w_end, b_end) = (INPUTS * hidden, INPUTS * hidden + hidden);
        net.feature_weights_mut().copy_from_slice(&params[..w_end]);
        net.feature_bias_mut().copy_from_slice(&params[w_end..b_end]);
        net.output_weights_mut().copy_from_slice(&params[b_end..p - 1]);
        net.set_output_bias(params[p - 1]);
        Ok(Checkpoint {
            net,
            optimiser: AdamW { m, v, steps: u64_at(b, 32) },
            legs: u32_at(b, 20),
            seed: u64_at(b, 24),
            trained: u64_at(b, 40),
            schedule,
        })
    }

    pub fn load(path: &Path) -> Result<Checkpoint, CheckpointError> {
        let bytes = std::fs::read(path).map_err(|source| CheckpointError::Io { path: path.to_path_buf(), source })?;
        Checkpoint::from_bytes(&bytes)
    }

    /// Writes atomically (temporary file, sync, rename).
    pub fn write(&self, path: &Path) -> Result<(), CheckpointError> {
        let bytes = self.to_bytes();
        crate::atomic_file::write_with(path, 1 << 20, |w| std::io::Write::write_all(w, &bytes))
            .map_err(|source| CheckpointError::Io { path: path.to_path_buf(), source })
    }
}
