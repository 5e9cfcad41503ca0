//! `archivist train`: the command line of [`crate::train`].

use crate::nnue::Base;
use crate::train::data::Filter;
use crate::train::{self, Event, Start, TrainConfig};
use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;

use super::train_ledger as ledger;

/// Train a value network `(768 → N) × 2 → 1` (SCReLU) from compressed-board
/// game records on the CPU; deterministic for a seed on any thread count.
///
/// Training goes in legs: a leg reads the --data files once, in the order
/// given, through a seeded shuffle buffer of --buffer positions that is
/// drained at the leg's end. --epochs legs are trained over the same files.
/// The learning rate follows a cosine from --lr to --lr-end over --planned
/// positions trained (default: --epochs × the positions the filters keep),
/// then stays at --lr-end.
///
/// Filters (every leg, on every position): positions in check and
/// positions whose recorded move is a capture, en passant or a promotion are
/// left out; so are the first --skip-plies plies of each game and positions
/// scored beyond ±--max-cp (mates and tablebase results included).
///
/// Target: λ·result + (1 − λ)·σ(score / s), both the side to move's
/// expected score (λ = --wdl, s = --scale, score the record's search score
/// in centipawns); loss: mean squared error of σ(eval / s), where eval is
/// the network's output, plus the hand-written evaluation with --base
/// hand-written. The scale that best turns the data's scores into their
/// games' results is printed first (--scale fit trains at it). With
/// --validation the hand-written evaluation's own loss on the held-out
/// positions is printed next: the bar to pass; after the last leg, the
/// quantised network's mean difference from the float one on them. With
/// --yardstick the yardstick loss (σ(eval / 140) against the result) of
/// the hand-written evaluation, the float and the quantised network is
/// printed after the last leg. After every leg
/// the quantised network is written to --out and the float network with the
/// optimiser state, positions trained and schedule to OUT.ckpt, with a
/// ledger of every leg (files read, settings, losses) in OUT.ckpt.json.
///
/// --init CKPT starts from another run's checkpoint (its network, optimiser,
/// schedule and positions trained): the way training continues across
/// sessions on new data. --resume continues this run's own OUT.ckpt until
/// it has --epochs legs.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Record files (`selfplay` output; value-only or with visits), read in this order.
    #[arg(long, required_unless_present = "measure", num_args = 1..)]
    data: Vec<PathBuf>,
    /// The network file to write (ARNN v1, see `src/nnue/file.rs`).
    #[arg(long, required_unless_present = "measure")]
    out: Option<PathBuf>,
    /// Hidden size N (a multiple of 16 in 16..=4096; default 128, or the checkpoint's).
    #[arg(long)]
    hidden: Option<usize>,
    /// Legs over the --data files (with --resume: the legs the checkpoint should reach).
    #[arg(long, default_value_t = 1)]
    epochs: u32,
    /// Learning rate at the start of the schedule (fresh runs; a checkpoint keeps its own).
    #[arg(long)]
    lr: Option<f32>,
    /// Learning rate at the end of the schedule (default --lr / 100).
    #[arg(long)]
    lr_end: Option<f32>,
    /// Positions the learning-rate cosine spans (replaces a checkpoint's plan when given).
    #[arg(long)]
    planned: Option<u64>,
    /// λ: weight of the game result in the target, 0..=1.
    #[arg(long, default_value_t = 0.25)]
    wdl: f32,
    /// The logistic's scale in centipawns (10..=10000), or `fit`: the scale
    /// fitted to the --data's scores and results (printed either way). The
    /// engine's score units do not change.
    #[arg(long, default_value = "400", value_parser = parse_scale)]
    scale: ScaleArg,
    /// Yardstick record files (`nets/yardstick.bin`): after the last leg
    /// (and with --measure) the loss of σ(eval / 140) against the games'
    /// results; never trained on.
    #[arg(long, num_args = 1..)]
    yardstick: Vec<PathBuf>,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// Positions in the shuffle buffer (76 bytes each).
    #[arg(long, default_value_t = 2_000_000)]
    buffer: usize,
    /// Threads computing each batch's gradient (at most 8 are used).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of a fresh run (default 1; a checkpoint keeps its own).
    #[arg(long)]
    seed: Option<u64>,
    /// What the network's output is added to: `none` (the network is the
    /// whole evaluation) or `hand-written` (it learns a correction of the
    /// hand-written evaluation, which the engine adds). Default: none for a
    /// fresh run, the checkpoint's otherwise.
    #[arg(long, value_parser = parse_base)]
    base: Option<Base>,
    /// Leave out the first N recorded plies of every game.
    #[arg(long, default_value_t = 8)]
    skip_plies: u32,
    /// Leave out positions scored beyond ± this many centipawns.
    #[arg(long, default_value_t = 2000)]
    max_cp: i32,
    /// Continue from OUT.ckpt (same --hidden and --seed) until it has --epochs legs.
    #[arg(long, conflicts_with = "init")]
    resume: bool,
    /// Start from this checkpoint (another run's `.ckpt`) and train --epochs legs on --data.
    #[arg(long)]
    init: Option<PathBuf>,
    /// Held-out record files: their loss is printed after every leg (never trained on).
    #[arg(long, num_args = 1..)]
    validation: Vec<PathBuf>,
    /// Train nothing: print the loss of the --init checkpoint's network and
    /// of the hand-written evaluation on the --validation files (at --wdl,
    /// with the filters), to compare networks on a held-out file made after
    /// them.
    #[arg(long, requires_all = ["init", "validation"], conflicts_with_all = ["data", "out", "resume"])]
    measure: bool,
    /// With --measure: judge this network file (say, the one a run wrote)
    /// against the checkpoint's float network, instead of the checkpoint
    /// rounded to nearest.
    #[arg(long, requires = "measure")]
    net: Option<PathBuf>,
    /// Round the network written after the last leg to this many positions
    /// spread over --data: each weight up or down, whichever brings the
    /// quantised output nearer the float one (`src/nnue/rounding.rs`; about
    /// 50 s for 200000 positions at N = 64). 0: round to nearest.
    #[arg(long, default_value_t = 0)]
    calibrate: usize,
}

/// `--scale`: centipawns or `fit`.
#[derive(Clone, Copy, Debug)]
enum ScaleArg {
    Fixed(f32),
    Fit,
}

fn parse_scale(s: &str) -> Result<ScaleArg, String> {
    if s == "fit" {
        return Ok(ScaleArg::Fit);
    }
    match s.parse::<f32>() {
        Ok(v) if v.is_finite() && (10.0..=10_000.0).contains(&v) => Ok(ScaleArg::Fixed(v)),
        _ => Err(format!("`{s}`: expected centipawns in 10..=10000, or fit")),
    }
}

/// `--measure`: the held-out losses of a checkpoint, training nothing.
fn measure(args: &TrainArgs, ckpt: &std::path::Path, filter: &Filter) -> anyhow::Result<ExitCode> {
    let (wdl, scale) = match args.scale {
        ScaleArg::Fixed(s) => (args.wdl, s),
        ScaleArg::Fit => {
            anyhow::bail!("--measure needs a --scale in centipawns (the data it would be fitted to is not read)")
        }
    };
    let m = train::measure(ckpt, &args.validation, &args.yardstick, filter, wdl, scale, args.net.as_deref())
        .with_context(|| format!("measuring {}", ckpt.display()))?;
    println!(
        "{}: {} leg(s), {} positions trained; held-out loss (λ = {wdl}, scale {scale}, {} positions): network {:.6}, hand-written {:.6}",
        ckpt.display(),
        m.legs,
        m.trained,
        m.positions,
        m.network,
        m.hand_written
    );
    println!("{}", quantisation_line(&m.quantisation));
    if let Some(y) = &m.yardstick {
        println!("{}", yardstick_line(y));
    }
    Ok(ExitCode::SUCCESS)
}

fn quantisation_line(q: &train::yardstick::NetworkJudged) -> String {
    format!(
        "quantised - float on the held-out positions: mean {:+.3} cp, mean absolute {:.3} cp",
        q.mean_difference, q.mean_absolute_difference
    )
}

fn yardstick_line(y: &train::yardstick::Judged) -> String {
    let net = y
        .network
        .map_or(String::new(), |n| format!(", float network {:.6}, quantised network {:.6}", n.float, n.quantised));
    format!("yardstick loss (sigmoid(eval / 140), {} positions): hand-written {:.6}{net}", y.positions, y.hand_written)
}

fn parse_base(s: &str) -> Result<Base, String> {
    [Base::Zero, Base::HandWritten]
        .into_iter()
        .find(|b| b.name() == s)
        .ok_or_else(|| format!("`{s}`: expected none or hand-written"))
}

/// What a finished leg prints: its line, then (after the run's last leg)
/// the quantisation error and the yardstick.
fn leg_lines(r: &train::LegReport, threads: usize) -> String {
    let mut text = format!(
        "leg {}: loss {:.6}{}, lr {:.2e} -> {:.2e}, positions trained {} -> {} of {} planned, {} kept of {} (opening {}, in check {}, tactical {}, extreme {}), {:.1} s, {:.0} positions/s ({:.0} per thread)",
        r.leg,
        r.loss,
        r.validation_loss.map_or(String::new(), |v| format!(", validation loss {v:.6}")),
        r.lr.0,
        r.lr.1,
        r.trained.0,
        r.trained.1,
        r.planned,
        r.counts.kept,
        r.counts.seen,
        r.counts.opening,
        r.counts.in_check,
        r.counts.tactical,
        r.counts.extreme,
        r.seconds,
        r.samples_per_second(),
        r.samples_per_second() / threads.min(train::grad::CHUNKS) as f64
    );
    if let Some(q) = &r.quantisation {
        text += &format!("\n{}", quantisation_line(q));
    }
    if let Some(y) = &r.yardstick {
        text += &format!("\n{}", yardstick_line(y));
    }
    text
}

pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let filter = Filter { skip_plies: args.skip_plies, max_cp: args.max_cp };
    if let (true, Some(ckpt)) = (args.measure, &args.init) {
        return measure(&args, ckpt, &filter);
    }
    let Some(out) = args.out else { anyhow::bail!("--out is required") };
    let continues = args.resume || args.init.is_some();
    if continues && (args.lr.is_some() || args.lr_end.is_some()) {
        anyhow::bail!(
            "--lr and --lr-end set a fresh run's schedule; a checkpoint keeps its own (--planned may extend it)"
        );
    }
    let lr = args.lr.unwrap_or(0.001);
    let config = TrainConfig {
        data: args.data,
        out,
        hidden: args.hidden,
        epochs: args.epochs,
        lr,
        lr_end: args.lr_end.unwrap_or(lr / 100.0),
        planned: args.planned,
        wdl: args.wdl,
        scale: match args.scale {
            ScaleArg::Fixed(s) => Some(s),
            ScaleArg::Fit => None,
        },
        batch: args.batch,
        buffer: args.buffer,
        threads: args.threads.max(1),
        seed: args.seed,
        base: args.base,
        filter,
        start: match (args.init, args.resume) {
            (Some(path), _) => Start::Init(path),
            (None, true) => Start::Resume,
            (None, false) => Start::Fresh,
        },
        validation: args.validation,
        yardstick: args.yardstick,
        calibrate: args.calibrate,
    };
    let earlier = ledger::earlier(&config).context("reading the ledger of the checkpoint continued")?;
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    let mut leg_start = (0, std::time::Instant::now());
    let mut fitted_scale = 0.0;
    let mut read = Vec::new();
    let reports = train::train(&config, |event| match event {
        Event::Opened { games, positions, data } => {
            read = ledger::summaries(data);
            bar.suspend(|| eprintln!("data: {games} games, {positions} positions in {} file(s)", config.data.len()));
        }
        Event::Scale { fitted, used } => {
            fitted_scale = fitted.scale;
            bar.suspend(|| {
                eprintln!(
                    "logistic scale fitted to the data's scores and results: {:.1} cp (mean squared error {:.6}; {:.6} at 400, over {} positions); training at {used:.1} cp",
                    fitted.scale, fitted.loss, fitted.loss_at_400, fitted.positions
                )
            });
        }
        Event::HandWritten { validation_loss } => {
            bar.suspend(|| eprintln!("validation loss of the hand-written evaluation: {validation_loss:.6}"));
        }
        Event::Continued { legs, trained } => {
            bar.suspend(|| eprintln!("continuing a checkpoint after {legs} leg(s), {trained} positions trained"));
        }
        Event::Progress { leg, samples, loss } => {
            if leg_start.0 != leg {
                leg_start = (leg, std::time::Instant::now());
            }
            let rate = samples as f64 / leg_start.1.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!("leg {leg}: {samples} positions trained, loss {loss:.6}, {rate:.0}/s"));
        }
        Event::Leg(r) => bar.suspend(|| eprintln!("{}", leg_lines(r, config.threads))),
    });
    bar.finish_and_clear();
    let reports = reports.with_context(|| format!("training {}", config.out.display()))?;
    ledger::write(&config, fitted_scale, read, earlier, &reports).context("writing the checkpoint's ledger")?;
    println!(
        "{} leg(s) trained; network written to {}, checkpoint {} (ledger {}.json)",
        reports.len(),
        config.out.display(),
        config.checkpoint_path().display(),
        config.checkpoint_path().display()
    );
    Ok(ExitCode::SUCCESS)
}
