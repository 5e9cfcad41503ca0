//! `archivist train`: the command line of [`crate::train`].

use crate::train::data::Filter;
use crate::train::{self, Event, TrainConfig};
use anyhow::Context;
use std::path::PathBuf;
use std::process::ExitCode;

/// Train a value network `(768 → N) × 2 → 1` (SCReLU) from compressed-board
/// game records on the CPU; deterministic for a seed on any thread count.
///
/// Filters (every epoch, on every position): positions in check and
/// positions whose recorded move is a capture, en passant or a promotion are
/// left out; so are the first --skip-plies plies of each game and positions
/// scored beyond ±--max-cp (mates and tablebase results included).
///
/// Target: λ·result + (1 − λ)·score, both the side to move's expected score
/// (λ = --wdl); loss: mean squared error of σ(eval / 400). AdamW, learning
/// rate by a cosine from --lr to --lr-end over the epochs. After every epoch
/// the quantised network is written to --out and the float network with
/// the optimiser state to <out>.ckpt; --resume continues from it.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// Record files (`selfplay` output; value-only or with visits).
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// The network file to write (ARNN v1, see `src/nnue/file.rs`).
    #[arg(long)]
    out: PathBuf,
    /// Hidden size N (a multiple of 16 in 16..=4096).
    #[arg(long, default_value_t = 128)]
    hidden: usize,
    #[arg(long, default_value_t = 10)]
    epochs: u32,
    /// Learning rate of the first epoch.
    #[arg(long, default_value_t = 0.001)]
    lr: f32,
    /// Learning rate of the last epoch (default --lr / 100).
    #[arg(long)]
    lr_end: Option<f32>,
    /// λ: weight of the game result in the target, 0..=1.
    #[arg(long, default_value_t = 0.25)]
    wdl: f32,
    /// Positions per optimiser step.
    #[arg(long, default_value_t = 16384)]
    batch: usize,
    /// Positions in the shuffle buffer (72 bytes each).
    #[arg(long, default_value_t = 2_000_000)]
    buffer: usize,
    /// Threads computing each batch's gradient (at most 8 are used).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Leave out the first N recorded plies of every game.
    #[arg(long, default_value_t = 8)]
    skip_plies: u32,
    /// Leave out positions scored beyond ± this many centipawns.
    #[arg(long, default_value_t = 2000)]
    max_cp: i32,
    /// Continue from <out>.ckpt (same --hidden and --seed) after its last epoch.
    #[arg(long)]
    resume: bool,
    /// Held-out record files: their loss is printed after every epoch (never trained on).
    #[arg(long, num_args = 1..)]
    validation: Vec<PathBuf>,
}

pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    let config = TrainConfig {
        data: args.data,
        out: args.out,
        hidden: args.hidden,
        epochs: args.epochs,
        lr: args.lr,
        lr_end: args.lr_end.unwrap_or(args.lr / 100.0),
        wdl: args.wdl,
        batch: args.batch,
        buffer: args.buffer,
        threads: args.threads.max(1),
        seed: args.seed,
        filter: Filter { skip_plies: args.skip_plies, max_cp: args.max_cp },
        resume: args.resume,
        validation: args.validation,
    };
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    bar.enable_steady_tick(std::time::Duration::from_millis(250));
    let mut epoch_start = (0, std::time::Instant::now());
    let reports = train::train(&config, |event| match event {
        Event::Opened { games, positions } => {
            bar.suspend(|| eprintln!("data: {games} games, {positions} positions in {} file(s)", config.data.len()));
        }
        Event::Resumed { epochs } => {
            bar.suspend(|| eprintln!("resuming after epoch {epochs} of {}", config.checkpoint_path().display()));
        }
        Event::Progress { epoch, samples, loss } => {
            if epoch_start.0 != epoch {
                epoch_start = (epoch, std::time::Instant::now());
            }
            let rate = samples as f64 / epoch_start.1.elapsed().as_secs_f64().max(1e-9);
            bar.set_message(format!(
                "epoch {epoch}/{}: {samples} positions trained, loss {loss:.6}, {rate:.0}/s",
                config.epochs
            ));
        }
        Event::Epoch(r) => {
            bar.suspend(|| {
                eprintln!(
                    "epoch {}/{}: loss {:.6}{}, lr {:.2e}, {} positions kept of {} (opening {}, in check {}, tactical {}, extreme {}), {:.1} s, {:.0} positions/s ({:.0} per thread)",
                    r.epoch,
                    r.epochs,
                    r.loss,
                    r.validation_loss.map_or(String::new(), |v| format!(", validation loss {v:.6}")),
                    r.lr,
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
    println!(
        "{} epoch(s) trained; network written to {}, checkpoint {}",
        reports.len(),
        config.out.display(),
        config.checkpoint_path().display()
    );
    Ok(ExitCode::SUCCESS)
}
