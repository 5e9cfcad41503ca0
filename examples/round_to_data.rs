//! Rounds a checkpoint's float network to calibration positions and prints
//! how far the quantised network is from the float one on heldout-4243,
//! rounded to nearest and calibrated ([`archivist::nnue::rounding`]):
//!
//! ```text
//! cargo run --release --example round_to_data -- CKPT K FILES… [--out NET]
//! ```
//!
//! `K` positions are spread evenly over the kept positions of the record
//! `FILES` (the trainer's filters); `--out` writes the calibrated network.

use anyhow::{bail, Context};
use archivist::nnue::Network;
use archivist::train::checkpoint::Checkpoint;
use archivist::train::data::{kept_positions, Dataset, Filter};
use archivist::train::yardstick::judge_quantised;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let out = match args.iter().position(|a| a == "--out") {
        Some(i) if i + 1 < args.len() => Some(PathBuf::from(args.drain(i..i + 2).nth(1).unwrap_or_default())),
        Some(_) => bail!("--out needs a file"),
        None => None,
    };
    let [ckpt, count, files @ ..] = args.as_slice() else { bail!("usage: CKPT K FILES… [--out NET]") };
    if files.is_empty() {
        bail!("usage: CKPT K FILES… [--out NET]");
    }
    let ckpt = Checkpoint::load(&PathBuf::from(ckpt)).with_context(|| format!("reading {ckpt}"))?;
    let count: usize = count.parse().context("K must be a number of positions")?;
    let filter = Filter::default();
    let data = Dataset::open(&files.iter().map(PathBuf::from).collect::<Vec<_>>())?;
    let kept = data.for_each_game(|game, counts| kept_positions(game, &filter, counts, |_, _| {}))?.kept;
    let boards = data.spread_positions(&filter, count, kept)?;
    let started = Instant::now();
    let calibrated = ckpt.net.quantise_calibrated(&boards);
    let nearest = ckpt.net.quantise_fitted();
    let moved = nearest.feature_weights().iter().zip(calibrated.feature_weights()).filter(|(a, b)| a != b).count();
    println!(
        "{} calibration positions, {:.1} s, {moved} feature weights rounded the other way",
        boards.len(),
        started.elapsed().as_secs_f64()
    );
    let held = Dataset::open(&[PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("nets/heldout-4243.bin")])?;
    let report = |name: &str, q: &Network| -> anyhow::Result<()> {
        let j = judge_quantised(&held, &filter, Some((&ckpt.net, q)))?.network.context("a network was judged")?;
        println!(
            "{name}: quantised - float on heldout-4243: mean {:+.3} cp, mean absolute {:.3} cp",
            j.mean_difference, j.mean_absolute_difference
        );
        Ok(())
    };
    report("nearest", &nearest)?;
    report("calibrated", &calibrated)?;
    if let Some(out) = out {
        calibrated.write(&out).with_context(|| format!("writing {}", out.display()))?;
    }
    Ok(())
}
