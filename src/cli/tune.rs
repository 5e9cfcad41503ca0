//! `archivist tune`: the command line of [`crate::train::hce`].

use crate::eval::tune::{current_weights, weights_source};
use crate::train::data::{Dataset, Filter};
use crate::train::hce::{self, Event, HceConfig, Positions};
use anyhow::Context;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// Fit the hand-written evaluation's weights to self-play records (Texel's
/// method) and write them as the Rust source of `src/eval/weights.rs`.
///
/// Positions: the trainer's filters (no check, no tactical recorded move,
/// not the first --skip-plies plies, |score| ≤ --max-cp); one in 20 is held
/// out and its error printed. Prediction σ(K·eval), σ(x) = 1/(1+10^(−x/400)),
/// K fitted to the results first unless --k is given; target
/// λ·result + (1 − λ)·σ(K·score). Full-batch Adam from the weights in use.
/// Rebuild the engine after writing the file into the source tree.
#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// Record files (`selfplay` output).
    #[arg(long, required = true, num_args = 1..)]
    data: Vec<PathBuf>,
    /// Where to write the weight table (Rust source), e.g. src/eval/weights.rs.
    #[arg(long)]
    out: PathBuf,
    #[arg(long, default_value_t = 1000)]
    iterations: u32,
    /// Adam's step size in centipawns.
    #[arg(long, default_value_t = 1.0)]
    lr: f64,
    /// λ: weight of the game result in the target, 0..=1.
    #[arg(long, default_value_t = 0.5)]
    lambda: f64,
    /// K of the sigmoid (fitted to the results when not given).
    #[arg(long)]
    k: Option<f64>,
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// L2 pull towards the weights in use: l2·Σ(w − w₀)² (centipawns²) is added to the error.
    #[arg(long, default_value_t = 0.0)]
    l2: f64,
    /// Weight groups left as they are (e.g. MATERIAL PSQT; names as in src/eval/weights.rs).
    #[arg(long, num_args = 1..)]
    freeze: Vec<String>,
    /// Leave out the first N recorded plies of every game.
    #[arg(long, default_value_t = 8)]
    skip_plies: u32,
    /// Leave out positions scored beyond ± this many centipawns.
    #[arg(long, default_value_t = 2000)]
    max_cp: i32,
}

pub fn run(args: TuneArgs) -> anyhow::Result<ExitCode> {
    let filter = Filter { skip_plies: args.skip_plies, max_cp: args.max_cp };
    let config = HceConfig {
        iterations: args.iterations,
        lr: args.lr,
        lambda: args.lambda,
        k: args.k,
        threads: args.threads.max(1),
        l2: args.l2,
        freeze: args.freeze,
    };
    let start = std::time::Instant::now();
    let data = Dataset::open(&args.data).context("opening the record files")?;
    let positions = Positions::load(&data, &filter).context("reading the positions")?;
    let f = positions.filtered;
    eprintln!(
        "data: {} games; {} of {} positions kept (opening {}, in check {}, tactical {}, extreme {}): {} to train, {} held out; {:.1} s",
        data.games(),
        f.kept,
        f.seen,
        f.opening,
        f.in_check,
        f.tactical,
        f.extreme,
        positions.train_len(),
        positions.validation_len(),
        start.elapsed().as_secs_f64()
    );
    let weights = hce::tune(&positions, &current_weights(), &config, |event| match event {
        Event::FittedK { k, error } => eprintln!("K = {k:.4} (error of the results {error:.6})"),
        Event::Progress { iteration, train, validation } => {
            eprintln!("iteration {iteration}/{}: error {train:.6}, held out {validation:.6}", config.iterations)
        }
    })?;
    let text = weights_source(&weights);
    crate::atomic_file::write_with(&args.out, 1 << 16, |w| w.write_all(text.as_bytes()))
        .with_context(|| format!("writing {}", args.out.display()))?;
    println!("weights written to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
