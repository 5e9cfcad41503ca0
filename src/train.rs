//! `archivist train`: trains the value network of [`crate::nnue`] from
//! compressed-board game records, on the CPU, deterministically for a seed.
//!
//! | part | where |
//! | --- | --- |
//! | samples, filters and the shuffled stream of an epoch | [`data`] |
//! | forward and backward pass, batch gradient on several threads | [`grad`] |
//! | AdamW with clipping | [`optim`] |
//! | the checkpoint file (`<out>.ckpt`) and its byte layout | [`checkpoint`] |
//! | `archivist tune`: the hand-written evaluation's weights (Texel's method) | [`hce`] |
//!
//! One epoch is one pass over every game of the data files. Positions go
//! through the [`data::Filter`], are shuffled through a buffer of
//! `buffer` samples and trained in batches of `batch` with AdamW. The
//! learning rate follows a cosine from `lr` (first epoch) to `lr_end` (last
//! epoch). After each epoch the quantised network is written to `out` and
//! the float network with the optimiser state to `<out>.ckpt`, both
//! atomically; `resume` continues from that checkpoint, and a resumed run
//! gives the same bytes as an uninterrupted one.
//!
//! Determinism: the data order depends only on the seed and the epoch
//! number, and a batch's gradient is summed in a fixed order whatever the
//! thread count ([`grad::CHUNKS`]), so the same data, settings and seed give
//! the same network on any number of threads.

pub mod checkpoint;
pub mod data;
pub mod grad;
pub mod hce;
pub mod optim;

#[cfg(test)]
mod tests;

use crate::nnue::{is_valid_hidden, FloatNetwork, NetError};
use crate::records::RecordError;
use checkpoint::{Checkpoint, CheckpointError};
use data::{Dataset, Filter, FilterCounts, Sample};
use grad::{Gradient, Target, CHUNKS};
use optim::AdamW;
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;

/// Everything that can stop a training run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TrainError {
    #[error("{path}: {source}")]
    Records { path: PathBuf, source: RecordError },
    #[error("the data files hold no positions")]
    NoData,
    #[error("no position passed the filters in epoch {epoch}")]
    NothingKept { epoch: u32 },
    #[error("invalid setting: {0}")]
    Config(String),
    #[error("checkpoint {path}: {source}")]
    Checkpoint { path: PathBuf, source: CheckpointError },
    #[error("cannot resume from {path}: {reason}")]
    ResumeMismatch { path: PathBuf, reason: String },
    #[error("network: {0}")]
    Net(#[from] NetError),
}

/// The settings of a run.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    pub hidden: usize,
    pub epochs: u32,
    pub lr: f32,
    pub lr_end: f32,
    /// λ: weight of the game result in the target (0 = search score only).
    pub wdl: f32,
    pub batch: usize,
    pub buffer: usize,
    pub threads: usize,
    pub seed: u64,
    pub filter: Filter,
    pub resume: bool,
    /// Held-out record files: their loss is measured after every epoch
    /// (same filters, never trained on).
    pub validation: Vec<PathBuf>,
}

impl TrainConfig {
    fn check(&self) -> Result<(), TrainError> {
        let bad = |s: String| Err(TrainError::Config(s));
        if !is_valid_hidden(self.hidden) {
            return bad(format!("--hidden {} must be a multiple of 16 in 16..=4096", self.hidden));
        }
        if self.epochs == 0 {
            return bad("--epochs must be at least 1".into());
        }
        if !(self.lr > 0.0 && self.lr.is_finite() && self.lr_end >= 0.0 && self.lr_end.is_finite()) {
            return bad(format!("--lr {} and --lr-end {} must be positive and finite", self.lr, self.lr_end));
        }
        if !(0.0..=1.0).contains(&self.wdl) {
            return bad(format!("--wdl {} must be in [0, 1]", self.wdl));
        }
        if self.batch == 0 || self.buffer < self.batch {
            return bad(format!("--batch {} must be at least 1 and at most --buffer {}", self.batch, self.buffer));
        }
        if self.data.is_empty() {
            return bad("no --data files".into());
        }
        Ok(())
    }

    /// `<out>.ckpt`.
    pub fn checkpoint_path(&self) -> PathBuf {
        let mut name = self.out.clone().into_os_string();
        name.push(".ckpt");
        PathBuf::from(name)
    }

    /// The learning rate of epoch `e` (0-based): a cosine from `lr` to `lr_end`.
    pub fn learning_rate(&self, e: u32) -> f32 {
        if self.epochs <= 1 {
            return self.lr;
        }
        let t = f64::from(e) / f64::from(self.epochs - 1);
        let (lr, end) = (f64::from(self.lr), f64::from(self.lr_end));
        (end + 0.5 * (lr - end) * (1.0 + (std::f64::consts::PI * t).cos())) as f32
    }
}

/// What an epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based.
    pub epoch: u32,
    pub epochs: u32,
    pub lr: f32,
    /// Mean of `(p − t)²` over the epoch's samples, as trained (each batch
    /// measured before its step).
    pub loss: f64,
    pub counts: FilterCounts,
    pub seconds: f64,
    /// Mean `(p − t)²` of the validation positions after the epoch.
    pub validation_loss: Option<f64>,
}

impl EpochReport {
    pub fn samples_per_second(&self) -> f64 {
        self.counts.kept as f64 / self.seconds.max(1e-9)
    }
}

/// Progress of a run, for the command line.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// The data files were validated.
    Opened {
        games: u64,
        positions: u64,
    },
    /// Training continues after `epochs` epochs of a checkpoint.
    Resumed {
        epochs: u32,
    },
    /// Samples trained so far in the current (1-based) epoch, and the mean loss so far.
    Progress {
        epoch: u32,
        samples: u64,
        loss: f64,
    },
    Epoch(&'a EpochReport),
}

/// Runs the training; returns one report per epoch trained by this call.
pub fn train(config: &TrainConfig, mut on: impl FnMut(Event)) -> Result<Vec<EpochReport>, TrainError> {
    config.check()?;
    let data = Dataset::open(&config.data)?;
    on(Event::Opened { games: data.games(), positions: data.positions() });
    let validation = validation_samples(config)?;
    let ckpt_path = config.checkpoint_path();
    let mut state = start(config, &ckpt_path)?;
    if state.epochs > 0 {
        on(Event::Resumed { epochs: state.epochs });
    }
    let target = Target { wdl: config.wdl, logit_scale: f32::from(state.net.quantisation().scale) / 400.0 };
    let mut grads: Vec<Gradient> = (0..CHUNKS).map(|_| Gradient::zeros(config.hidden)).collect();
    let mut reports = Vec::new();
    while state.epochs < config.epochs {
        let epoch = state.epochs;
        let lr = config.learning_rate(epoch);
        let started = Instant::now();
        let (mut samples, mut squared) = (0u64, 0f64);
        let counts = data.epoch(config.seed, epoch, config.buffer, &config.filter, |buf: &[Sample]| {
            for batch in buf.chunks(config.batch) {
                grad::batch_gradient(&state.net, batch, &target, config.threads, &mut grads);
                state.optimiser.step(&mut state.net, &grads[0], lr);
                samples += batch.len() as u64;
                squared += grads[0].squared_error;
                on(Event::Progress { epoch: epoch + 1, samples, loss: squared / samples as f64 });
            }
            Ok(())
        })?;
        if counts.kept == 0 {
            return Err(TrainError::NothingKept { epoch: epoch + 1 });
        }
        state.epochs += 1;
        let report = EpochReport {
            epoch: state.epochs,
            epochs: config.epochs,
            lr,
            loss: squared / samples.max(1) as f64,
            counts,
            seconds: started.elapsed().as_secs_f64(),
            validation_loss: (!validation.is_empty()).then(|| grad::mean_loss(&state.net, &validation, &target)),
        };
        save(&state, config, &ckpt_path)?;
        on(Event::Epoch(&report));
        reports.push(report);
    }
    if reports.is_empty() {
        // Resumed after the last epoch: make sure the network file exists.
        state.net.quantise().write(&config.out)?;
    }
    Ok(reports)
}

/// Every kept position of the validation files (in file order).
fn validation_samples(config: &TrainConfig) -> Result<Vec<Sample>, TrainError> {
    if config.validation.is_empty() {
        return Ok(Vec::new());
    }
    let set = Dataset::open(&config.validation)?;
    let mut all = Vec::new();
    set.in_order(&config.filter, &mut all)?;
    Ok(all)
}

/// A fresh run's state, or the checkpoint's when resuming.
fn start(config: &TrainConfig, ckpt_path: &Path) -> Result<Checkpoint, TrainError> {
    if config.resume && ckpt_path.exists() {
        let ckpt = Checkpoint::load(ckpt_path)
            .map_err(|source| TrainError::Checkpoint { path: ckpt_path.to_path_buf(), source })?;
        let mismatch = |reason: String| TrainError::ResumeMismatch { path: ckpt_path.to_path_buf(), reason };
        if ckpt.net.hidden() != config.hidden {
            return Err(mismatch(format!("its hidden size is {}, not --hidden {}", ckpt.net.hidden(), config.hidden)));
        }
        if ckpt.seed != config.seed {
            return Err(mismatch(format!("its seed is {}, not --seed {}", ckpt.seed, config.seed)));
        }
        return Ok(ckpt);
    }
    Ok(Checkpoint {
        net: FloatNetwork::random(config.hidden, config.seed),
        optimiser: AdamW::new(config.hidden),
        epochs: 0,
        seed: config.seed,
    })
}

/// Writes the quantised network, then the checkpoint.
fn save(state: &Checkpoint, config: &TrainConfig, ckpt_path: &Path) -> Result<(), TrainError> {
    state.net.quantise().write(&config.out)?;
    state.write(ckpt_path).map_err(|source| TrainError::Checkpoint { path: ckpt_path.to_path_buf(), source })
}
