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
//! | the yardstick loss, the quantisation error and the fitted logistic scale | [`yardstick`] |
//!
//! Training goes in *legs*. A leg reads its data files once, in the order
//! given, through a seeded bounded shuffle buffer drained at the leg's end
//! ([`data::Dataset::leg`]), and trains in batches of `batch` with AdamW.
//! The learning rate is indexed by the positions trained so far, not by
//! legs or epochs: a cosine from `lr` to `lr_end` over a planned number of
//! positions ([`Schedule`]), then `lr_end`. After each leg the quantised
//! network is written to `out` and the float network, the optimiser state,
//! the positions trained and the schedule to `<out>.ckpt`, both atomically.
//!
//! A run starts fresh, from a checkpoint of an earlier run (`init`: a new
//! leg on new data, for training across sessions), or from its own
//! checkpoint (`resume`: the legs still missing of `epochs`). Because the
//! checkpoint holds every piece of state a leg reads, a leg that starts from
//! a checkpoint file gives the same bytes as one that follows the previous
//! leg in the same process.
//!
//! Determinism: a leg's order depends only on the run's seed and the leg's
//! number, and a batch's gradient is summed in a fixed order whatever the
//! thread count ([`grad::CHUNKS`]), so the same data, settings and seed give
//! the same network on any number of threads.

pub mod checkpoint;
pub mod data;
pub mod grad;
pub mod hce;
pub mod optim;
mod parallel;
pub mod schedule;
pub mod yardstick;

#[cfg(test)]
mod tests;

use crate::nnue::{is_valid_hidden, Base, FloatNetwork, NetError, Network};
use crate::records::RecordError;
use checkpoint::{Checkpoint, CheckpointError};
use data::{Dataset, Filter, FilterCounts, Sample};
use grad::{Gradient, Target, CHUNKS};
use optim::AdamW;
pub use schedule::Schedule;
use std::path::{Path, PathBuf};
use std::time::Instant;
use thiserror::Error;
use yardstick::{FittedScale, Judged, NetworkJudged};

/// Everything that can stop a training run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TrainError {
    #[error("{path}: {source}")]
    Records { path: PathBuf, source: RecordError },
    #[error("the data files hold no positions")]
    NoData,
    #[error("no position passed the filters in leg {leg}")]
    NothingKept { leg: u32 },
    #[error("no held-out position passed the filters")]
    NothingHeldOut,
    #[error("invalid setting: {0}")]
    Config(String),
    #[error("checkpoint {path}: {source}")]
    Checkpoint { path: PathBuf, source: CheckpointError },
    #[error("cannot resume from {path}: {reason}")]
    ResumeMismatch { path: PathBuf, reason: String },
    #[error("network: {0}")]
    Net(#[from] NetError),
}

/// How a run starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// A new network (random weights, fresh optimiser).
    Fresh,
    /// From `<out>.ckpt`: the run's own legs still missing of `epochs`.
    Resume,
    /// From another run's checkpoint: `epochs` more legs on `data`.
    Init(PathBuf),
}

/// The settings of a run.
#[derive(Clone, Debug)]
pub struct TrainConfig {
    pub data: Vec<PathBuf>,
    pub out: PathBuf,
    /// Hidden size; `None`: 128 for a fresh run, the checkpoint's otherwise.
    pub hidden: Option<usize>,
    /// Legs over `data` (each reads every file once). With `Resume`, the
    /// total the run should reach, counting the checkpoint's legs.
    pub epochs: u32,
    /// Learning rate at the start of the schedule (fresh runs only).
    pub lr: f32,
    /// Learning rate at its end (fresh runs only).
    pub lr_end: f32,
    /// Positions the cosine spans. `None`: `epochs` × the positions the
    /// filters keep (fresh), the checkpoint's (otherwise); `Some` replaces
    /// the checkpoint's too (a plan extended for more data).
    pub planned: Option<u64>,
    /// λ: weight of the game result in the target (0 = search score only).
    pub wdl: f32,
    /// The logistic's scale in centipawns (`σ(cp / scale)` for the network's
    /// evaluation and the records' scores); `None`: the scale fitted to the
    /// data ([`yardstick::fit_scale`]).
    pub scale: Option<f32>,
    pub batch: usize,
    pub buffer: usize,
    pub threads: usize,
    /// Seed of a fresh run (weights and shuffles); `None`: 1, or the checkpoint's.
    pub seed: Option<u64>,
    /// What the network's output is added to; `None`: nothing for a fresh
    /// run, the checkpoint's otherwise.
    pub base: Option<Base>,
    pub filter: Filter,
    pub start: Start,
    /// Held-out record files: their loss is measured after every leg
    /// (same filters, never trained on).
    pub validation: Vec<PathBuf>,
    /// Yardstick record files ([`yardstick::judge`]), measured after the
    /// run's last leg; never trained on.
    pub yardstick: Vec<PathBuf>,
    /// The network file written after the run's last leg is rounded to this
    /// many positions spread over `data` ([`FloatNetwork::quantise_calibrated`]);
    /// 0, and every earlier leg: rounded to nearest ([`FloatNetwork::quantise_fitted`]).
    pub calibrate: usize,
}

/// The hidden size of a fresh run when none is given.
pub const DEFAULT_HIDDEN: usize = 128;

impl TrainConfig {
    fn check(&self) -> Result<(), TrainError> {
        let bad = |s: String| Err(TrainError::Config(s));
        if let Some(hidden) = self.hidden.filter(|&h| !is_valid_hidden(h)) {
            return bad(format!("--hidden {hidden} must be a multiple of 16 in 16..=4096"));
        }
        if self.epochs == 0 {
            return bad("--epochs must be at least 1".into());
        }
        if !(self.lr > 0.0 && self.lr.is_finite() && self.lr_end >= 0.0 && self.lr_end.is_finite()) {
            return bad(format!("--lr {} and --lr-end {} must be positive and finite", self.lr, self.lr_end));
        }
        if self.planned == Some(0) {
            return bad("--planned must be at least 1".into());
        }
        if !(0.0..=1.0).contains(&self.wdl) {
            return bad(format!("--wdl {} must be in [0, 1]", self.wdl));
        }
        if let Some(scale) = self.scale.filter(|s| !(s.is_finite() && (10.0..=10_000.0).contains(s))) {
            return bad(format!("--scale {scale} must be in 10..=10000 centipawns"));
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

    fn leg_settings(&self, scale: f32) -> LegSettings {
        LegSettings {
            wdl: self.wdl,
            scale,
            batch: self.batch,
            buffer: self.buffer,
            threads: self.threads,
            filter: self.filter,
        }
    }
}

/// What one leg needs besides the state and the data.
#[derive(Clone, Copy, Debug)]
pub struct LegSettings {
    pub wdl: f32,
    /// The logistic's scale, centipawns.
    pub scale: f32,
    pub batch: usize,
    pub buffer: usize,
    pub threads: usize,
    pub filter: Filter,
}

/// What a leg did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LegReport {
    /// 1-based, counting every leg the checkpoint has trained.
    pub leg: u32,
    /// Learning rates of the leg's first and last batch.
    pub lr: (f32, f32),
    /// Positions trained before and after the leg.
    pub trained: (u64, u64),
    pub planned: u64,
    /// Mean of `(p − t)²` over the leg's samples, as trained (each batch
    /// measured before its step).
    pub loss: f64,
    pub counts: FilterCounts,
    pub seconds: f64,
    /// Mean `(p − t)²` of the validation positions after the leg.
    pub validation_loss: Option<f64>,
    /// The same for the hand-written evaluation ([`hand_written_loss`]).
    pub hand_written_validation_loss: Option<f64>,
    /// The logistic scale the leg trained at, centipawns.
    pub scale: f32,
    /// After the run's last leg: the yardstick ([`yardstick::judge`]).
    pub yardstick: Option<Judged>,
    /// After the run's last leg: the quantised network against the float
    /// one on the validation positions.
    pub quantisation: Option<NetworkJudged>,
}

impl LegReport {
    pub fn samples_per_second(&self) -> f64 {
        self.counts.kept as f64 / self.seconds.max(1e-9)
    }
}

/// Progress of a run, for the command line.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// The data files were validated: what the run reads of them (a file
    /// still being written is read as it was here).
    Opened {
        games: u64,
        positions: u64,
        data: &'a Dataset,
    },
    /// The logistic scale fitted to the data, and the scale trained at.
    Scale {
        fitted: FittedScale,
        used: f32,
    },
    /// The loss of the hand-written evaluation's static score on the
    /// validation positions: the bar a network's validation loss must pass
    /// ([`hand_written_loss`]).
    HandWritten {
        validation_loss: f64,
    },
    /// The run continues a checkpoint that has trained `legs` legs and `trained` positions.
    Continued {
        legs: u32,
        trained: u64,
    },
    /// Samples trained so far in the current leg (1-based number) and their mean loss.
    Progress {
        leg: u32,
        samples: u64,
        loss: f64,
    },
    Leg(&'a LegReport),
}

/// Runs the training; returns one report per leg trained by this call.
pub fn train(config: &TrainConfig, mut on: impl FnMut(Event)) -> Result<Vec<LegReport>, TrainError> {
    config.check()?;
    let data = Dataset::open(&config.data)?;
    on(Event::Opened { games: data.games(), positions: data.positions(), data: &data });
    let fitted = yardstick::fit_scale(&data, &config.filter)?;
    let scale = config.scale.unwrap_or(fitted.scale as f32);
    on(Event::Scale { fitted, used: scale });
    let yardstick = match config.yardstick.is_empty() {
        true => None,
        false => Some(Dataset::open(&config.yardstick)?),
    };
    let mut state = start(config, fitted.positions)?;
    let held = held_out(&config.validation, &config.filter, state.net.base(), config.wdl, scale)?;
    let (validation, hand_written) = (&held.samples, held.hand_written);
    if let Some(loss) = hand_written {
        on(Event::HandWritten { validation_loss: loss });
    }
    let legs = match config.start {
        Start::Fresh => config.epochs,
        Start::Resume => config.epochs.saturating_sub(state.legs),
        Start::Init(_) => config.epochs,
    };
    if config.start != Start::Fresh {
        on(Event::Continued { legs: state.legs, trained: state.trained });
    }
    let settings = config.leg_settings(scale);
    let ckpt_path = config.checkpoint_path();
    let mut reports = Vec::new();
    let last_network = |net: &FloatNetwork| -> Result<Network, TrainError> {
        if config.calibrate == 0 {
            return Ok(net.quantise_fitted());
        }
        let boards = data.spread_positions(&config.filter, config.calibrate, fitted.positions)?;
        Ok(net.quantise_calibrated(&boards))
    };
    for leg in 0..legs {
        let mut report = train_leg(&mut state, &data, &settings, &mut on)?;
        report.validation_loss =
            (!validation.is_empty()).then(|| validation_loss(&state, validation, settings.wdl, scale));
        report.hand_written_validation_loss = hand_written;
        let network = if leg + 1 == legs { last_network(&state.net)? } else { state.net.quantise_fitted() };
        if leg + 1 == legs {
            let judge = |set: &Dataset| yardstick::judge_quantised(set, &config.filter, Some((&state.net, &network)));
            report.yardstick = yardstick.as_ref().map(judge).transpose()?;
            report.quantisation = held.set.as_ref().map(judge).transpose()?.and_then(|j| j.network);
        }
        save(&state, &network, config, &ckpt_path)?;
        on(Event::Leg(&report));
        reports.push(report);
    }
    if reports.is_empty() {
        // Resumed after the last leg: make sure the network file exists.
        last_network(&state.net)?.write(&config.out)?;
    }
    Ok(reports)
}

/// A fresh state: random weights for `seed`, no position trained. On a
/// base, the output weights and bias start at zero, so the untrained
/// network scores exactly its base.
pub fn fresh_state(hidden: usize, seed: u64, base: Base, schedule: Schedule) -> Checkpoint {
    let mut net = FloatNetwork::random(hidden, seed);
    if base != Base::Zero {
        net.set_base(base);
        net.output_weights_mut().fill(0.0);
        net.set_output_bias(0.0);
    }
    Checkpoint { net, optimiser: AdamW::new(hidden), legs: 0, seed, trained: 0, schedule }
}

/// One leg: every file of `data` once, in order, through the shuffle
/// buffer; the state's network, optimiser, positions and leg count move on.
/// Nothing is written.
pub fn train_leg(
    state: &mut Checkpoint,
    data: &Dataset,
    settings: &LegSettings,
    on: &mut impl FnMut(Event),
) -> Result<LegReport, TrainError> {
    let target = target(state, settings.wdl, settings.scale);
    let hidden = state.net.hidden();
    let mut grads: Vec<Gradient> = (0..CHUNKS).map(|_| Gradient::zeros(hidden)).collect();
    let leg = state.legs + 1;
    let seed = state.seed ^ u64::from(leg).wrapping_mul(0xA24B_AED4_963E_E407);
    let started = Instant::now();
    let before = state.trained;
    let (mut samples, mut squared, mut first_lr, mut last_lr) = (0u64, 0f64, None, 0f32);
    let counts =
        data.leg(seed, settings.buffer, settings.batch, &settings.filter, state.net.base(), |batch: &[Sample]| {
            let lr = state.schedule.rate(state.trained);
            first_lr.get_or_insert(lr);
            last_lr = lr;
            grad::batch_gradient(&state.net, batch, &target, settings.threads, &mut grads);
            state.optimiser.step(&mut state.net, &grads[0], lr);
            state.trained += batch.len() as u64;
            samples += batch.len() as u64;
            squared += grads[0].squared_error;
            on(Event::Progress { leg, samples, loss: squared / samples as f64 });
            Ok(())
        })?;
    if counts.kept == 0 {
        return Err(TrainError::NothingKept { leg });
    }
    state.legs = leg;
    Ok(LegReport {
        leg,
        lr: (first_lr.unwrap_or(last_lr), last_lr),
        trained: (before, state.trained),
        planned: state.schedule.planned,
        loss: squared / samples.max(1) as f64,
        counts,
        seconds: started.elapsed().as_secs_f64(),
        validation_loss: None,
        hand_written_validation_loss: None,
        scale: settings.scale,
        yardstick: None,
        quantisation: None,
    })
}

/// The loss of the state's network on held-out samples, at the logistic
/// scale `scale`.
pub fn validation_loss(state: &Checkpoint, samples: &[Sample], wdl: f32, scale: f32) -> f64 {
    grad::mean_loss(&state.net, samples, &target(state, wdl, scale))
}

/// The mean `(p − t)²` of the hand-written evaluation over `samples`
/// (samples on [`Base::HandWritten`], which hold it), with `p = σ(evaluate /
/// scale)`: the same targets and logistic as a network's loss, so the two
/// numbers compare directly.
pub fn hand_written_loss(samples: &[Sample], wdl: f32, scale: f32) -> f64 {
    let target = Target::new(wdl, scale, 0.0);
    let total: f64 =
        samples.iter().map(|s| f64::from((data::sigmoid(target.logit(0.0, s)) - target.of(s)).powi(2))).sum();
    total / samples.len().max(1) as f64
}

fn target(state: &Checkpoint, wdl: f32, scale: f32) -> Target {
    Target::new(wdl, scale, f32::from(state.net.quantisation().scale))
}

/// The validation files, opened once: every kept position (in file order)
/// and the hand-written evaluation's loss on them.
struct HeldOut {
    /// `None` without files.
    set: Option<Dataset>,
    samples: Vec<Sample>,
    /// `None` without files or kept positions.
    hand_written: Option<f64>,
}

/// The [`HeldOut`] of `files`. The samples hold the hand-written evaluation
/// as their base for its loss; for a network on no base it is then cleared.
fn held_out(files: &[PathBuf], filter: &Filter, base: Base, wdl: f32, scale: f32) -> Result<HeldOut, TrainError> {
    if files.is_empty() {
        return Ok(HeldOut { set: None, samples: Vec::new(), hand_written: None });
    }
    let set = Dataset::open(files)?;
    let mut all = Vec::new();
    set.in_order(filter, Base::HandWritten, &mut all)?;
    let hand_written = (!all.is_empty()).then(|| hand_written_loss(&all, wdl, scale));
    if base == Base::Zero {
        all.iter_mut().for_each(|s| s.base = 0);
    }
    Ok(HeldOut { set: Some(set), samples: all, hand_written })
}

/// What [`measure`] found on the held-out files.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Positions the filters kept.
    pub positions: usize,
    /// The checkpoint's network ([`validation_loss`]).
    pub network: f64,
    /// The hand-written evaluation ([`hand_written_loss`]).
    pub hand_written: f64,
    /// Legs and positions the checkpoint has trained.
    pub legs: u32,
    pub trained: u64,
    /// The quantised network against the float one on the held-out positions.
    pub quantisation: NetworkJudged,
    /// The yardstick, when files were given.
    pub yardstick: Option<Judged>,
}

/// The held-out loss of a checkpoint's network and of the hand-written
/// evaluation at the logistic scale `scale`, the numbers a leg prints, the
/// quantisation error on the same positions (of the network file
/// `network`, or of the checkpoint rounded to nearest) and the yardstick on
/// `yardstick` files (if any), training nothing: so that networks trained
/// before a held-out file existed can be compared on it.
pub fn measure(
    ckpt: &Path,
    files: &[PathBuf],
    yardstick: &[PathBuf],
    filter: &Filter,
    wdl: f32,
    scale: f32,
    network: Option<&Path>,
) -> Result<Measured, TrainError> {
    let state = load_checkpoint(ckpt)?;
    let HeldOut { set: Some(set), samples, hand_written: Some(hand_written) } =
        held_out(files, filter, state.net.base(), wdl, scale)?
    else {
        return Err(TrainError::NothingHeldOut);
    };
    let quantised = match network {
        None => state.net.quantise_fitted(),
        Some(path) => {
            let net = Network::load(path)?;
            if (net.hidden(), net.base()) != (state.net.hidden(), state.net.base()) {
                return Err(TrainError::Config(format!(
                    "{} is a {} network; the checkpoint's has hidden size {} and base {}",
                    path.display(),
                    net.shape(),
                    state.net.hidden(),
                    state.net.base().name()
                )));
            }
            net
        }
    };
    let judge = |set: &Dataset| yardstick::judge_quantised(set, filter, Some((&state.net, &quantised)));
    let quantisation = judge(&set)?.network.ok_or(TrainError::NothingHeldOut)?;
    Ok(Measured {
        positions: samples.len(),
        network: validation_loss(&state, &samples, wdl, scale),
        hand_written,
        legs: state.legs,
        trained: state.trained,
        quantisation,
        yardstick: (!yardstick.is_empty()).then(|| judge(&Dataset::open(yardstick)?)).transpose()?,
    })
}

/// A fresh run's state, or the checkpoint's it continues; `kept`: the
/// positions a pass over the data keeps (the plan of a fresh run without
/// `--planned` is `epochs` passes).
fn start(config: &TrainConfig, kept: u64) -> Result<Checkpoint, TrainError> {
    let from = match &config.start {
        Start::Fresh => None,
        Start::Resume => Some(config.checkpoint_path()).filter(|p| p.exists()),
        Start::Init(path) => Some(path.clone()),
    };
    let Some(path) = from else {
        let planned = match config.planned {
            Some(p) => p,
            None if kept == 0 => return Err(TrainError::NothingKept { leg: 1 }),
            None => kept * u64::from(config.epochs),
        };
        let schedule = Schedule { lr: config.lr, lr_end: config.lr_end, planned };
        let (hidden, seed) = (config.hidden.unwrap_or(DEFAULT_HIDDEN), config.seed.unwrap_or(1));
        return Ok(fresh_state(hidden, seed, config.base.unwrap_or_default(), schedule));
    };
    let mut ckpt = load_checkpoint(&path)?;
    let mismatch = |reason: String| TrainError::ResumeMismatch { path: path.clone(), reason };
    if let Some(hidden) = config.hidden.filter(|&h| h != ckpt.net.hidden()) {
        return Err(mismatch(format!("its hidden size is {}, not --hidden {hidden}", ckpt.net.hidden())));
    }
    if let Some(seed) = config.seed.filter(|&s| s != ckpt.seed) {
        return Err(mismatch(format!("its seed is {}, not --seed {seed}", ckpt.seed)));
    }
    if let Some(base) = config.base.filter(|&b| b != ckpt.net.base()) {
        return Err(mismatch(format!("its base is {}, not --base {}", ckpt.net.base().name(), base.name())));
    }
    if let Some(planned) = config.planned {
        ckpt.schedule.planned = planned;
    }
    Ok(ckpt)
}

fn load_checkpoint(path: &Path) -> Result<Checkpoint, TrainError> {
    Checkpoint::load(path).map_err(|source| TrainError::Checkpoint { path: path.to_path_buf(), source })
}

/// Writes the quantised network, then the checkpoint.
fn save(state: &Checkpoint, network: &Network, config: &TrainConfig, ckpt_path: &Path) -> Result<(), TrainError> {
    network.write(&config.out)?;
    state.write(ckpt_path).map_err(|source| TrainError::Checkpoint { path: ckpt_path.to_path_buf(), source })
}
