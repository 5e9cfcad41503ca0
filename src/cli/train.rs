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
/// Target: λ·result + (1 − λ)·score, both the side to move's expected score
/// (λ = --wdl); loss: mean squared error of σ(eval / 400), where eval is the
/// network's output, plus the hand-written evaluation with --base
/// hand-written. With --validation the hand-written evaluation's own loss
/// on the held-out positions is printed first: the bar to pass. After every leg
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
}

/// `--measure`: the held-out losses of a checkpoint, training nothing.
fn measure(ckpt: &std::path::Path, validation: &[PathBuf], filter: &Filter, wdl: f32) -> anyhow::Result<ExitCode> {
    let m = train::measure(ckpt, validation, filter, wdl).with_context(|| format!("measuring {}", ckpt.display()))?;
    println!(
        "{}: {} leg(s), {} positions trained; held-out loss (λ = {wdl}, {} positions): network {:.6}, hand-written {:.6}",
        ckpt.display(),
        m.legs,
        m.trained,
        m.positions,
        m.network,
        m.hand_written
    );
    Ok(ExitCode::SUCCESS)
}

fn parse_base(s: &str) -> Result<Base, String> {
    [Base::Zero, Base::HandWritten]
        .into_iter()
        .find(|b| b.name() == s)
        .ok_or_else(|| format!("`{s}`: expected none or hand-written"))
}

pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let filter = Filter { skip_plies: args.skip_plies, max_cp: args.max_cp };
    if let (true, Some(ckpt)) = (args.measure, &args.init) {
        return measure(ckpt, &args.validation, &filter, args.wdl);
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
    };
    let earlier = ledger::earlier(&config).context("reading the ledger of the checkpoint continued")?;
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    let mut leg_start = (0, std::time::Instant::now());
    let reports = train::train(&config, |event| match event {
        Event::Opened { games, positions } => {
            bar.suspend(|| eprintln!("data: {games} games, {positions} positions in {} file(s)", config.data.len()));
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
        Event::Leg(r) => {
            bar.suspend(|| {
                eprintln!(
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
                    r.samples_per_second() / config.threads.min(train::grad::CHUNKS) as f64
                )
            });
        }
    });
    bar.finish_and_clear();
    let reports = reports.with_context(|| format!("training {}", config.out.display()))?;
    ledger::write(&config, earlier, &reports).context("writing the checkpoint's ledger")?;
    println!(
        "{} leg(s) trained; network written to {}, checkpoint {} (ledger {}.json)",
        reports.len(),
        config.out.display(),
        config.checkpoint_path().display(),
        config.checkpoint_path().display()
    );
    Ok(ExitCode::SUCCESS)
}
