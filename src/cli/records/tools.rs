//! `records filter|dedup|shuffle|interleave|split`: thin wrappers that map
//! the inputs, write the outputs atomically and print a summary.

use super::progress::{rates, Bar};
use crate::atomic_file::Pending;
use crate::records::pipeline::{self, dedup, filter, mix, shuffle, Summary};
use crate::records::{self, RecordError};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};

const BUFFER: usize = 1 << 20;

/// What a tool does, given its mapped input(s), the output writer and a
/// progress callback (bytes of input done).
pub enum Tool {
    Filter(filter::FilterOptions),
    Dedup { memory: u64 },
    Shuffle { seed: u64, memory: u64, positions: bool },
}

fn map(path: &Path) -> anyhow::Result<memmap2::Mmap> {
    records::map(path).with_context(|| format!("opening {}", path.display()))
}

fn summary_line(name: &str, s: &Summary, bytes: u64, secs: f64) {
    println!(
        "records {name}: {} games ({} positions) in, {} games ({} positions) out{}; {}",
        s.games_in,
        s.positions_in,
        s.games_out,
        s.positions_out,
        if s.positions_unstorable > 0 {
            format!(", {} kept positions could not be stored", s.positions_unstorable)
        } else {
            String::new()
        },
        rates(bytes, s.positions_in, secs)
    );
}

/// Reports an invalid input: a failure exit status, no output.
fn invalid(path: &Path, e: RecordError) -> anyhow::Result<std::process::ExitCode> {
    match e {
        RecordError::Io(e) => Err(e).context("writing the output"),
        RecordError::Spill(e) => Err(e).context("reading back the temporary files"),
        e => {
            eprintln!("{}: invalid: {e}", path.display());
            Ok(std::process::ExitCode::FAILURE)
        }
    }
}

/// Runs a one-input, one-output tool.
pub fn run_one(name: &str, tool: Tool, input: &Path, out: &Path) -> anyhow::Result<std::process::ExitCode> {
    let data = map(input)?;
    let mut pending = Pending::create(out, BUFFER).with_context(|| format!("creating {}", out.display()))?;
    let bar = Bar::new(Some(data.len() as u64), name);
    let mut progress = |b: u64| bar.set(b);
    let r = match &tool {
        Tool::Filter(o) => filter::filter(&data, o, &mut pending, &mut progress),
        Tool::Dedup { memory } => dedup::dedup(&data, *memory, out, &mut pending, &mut progress),
        Tool::Shuffle { seed, memory, positions } => {
            shuffle::shuffle(&data, *seed, *memory, *positions, out, &mut pending, &mut progress)
        }
    };
    bar.finish();
    let s = match r {
        Ok(s) => s,
        Err(e) => return invalid(input, e),
    };
    pending.flush()?;
    pending.commit().with_context(|| format!("writing {}", out.display()))?;
    summary_line(name, &s, data.len() as u64, bar.seconds());
    Ok(std::process::ExitCode::SUCCESS)
}

pub fn interleave(inputs: &[PathBuf], seed: u64, out: &Path) -> anyhow::Result<std::process::ExitCode> {
    let maps = inputs.iter().map(|p| map(p)).collect::<anyhow::Result<Vec<_>>>()?;
    let slices: Vec<&[u8]> = maps.iter().map(|m| &m[..]).collect();
    let total: u64 = slices.iter().map(|s| s.len() as u64).sum();
    let mut pending = Pending::create(out, BUFFER).with_context(|| format!("creating {}", out.display()))?;
    let bar = Bar::new(Some(total), "interleave");
    let r = mix::interleave(&slices, seed, &mut pending, &mut |b| bar.set(b));
    bar.finish();
    let s = match r {
        Ok(s) => s,
        Err(e) => {
            let names: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
            return invalid(Path::new(&names.join(", ")), e);
        }
    };
    pending.flush()?;
    pending.commit().with_context(|| format!("writing {}", out.display()))?;
    summary_line("interleave", &s, total, bar.seconds());
    Ok(std::process::ExitCode::SUCCESS)
}

/// The path of part `i` of a split: `PREFIX-i.bin`.
pub fn part_path(prefix: &Path, i: usize) -> PathBuf {
    let mut name = prefix.as_os_str().to_owned();
    name.push(format!("-{i}.bin"));
    PathBuf::from(name)
}

pub fn split(input: &Path, by: mix::SplitBy, prefix: &Path) -> anyhow::Result<std::process::ExitCode> {
    let data = map(input)?;
    let k = mix::parts_needed(&data, by);
    let mut pendings = Vec::with_capacity(k);
    for i in 0..k {
        let p = part_path(prefix, i);
        pendings.push(Pending::create(&p, BUFFER).with_context(|| format!("creating {}", p.display()))?);
    }
    let bar = Bar::new(Some(data.len() as u64), "split");
    let mut outs: Vec<&mut dyn Write> = pendings.iter_mut().map(|p| p as &mut dyn Write).collect();
    let r = mix::split(&data, by, &mut outs, &mut |b| bar.set(b));
    bar.finish();
    let s = match r {
        Ok(s) => s,
        Err(e) => return invalid(input, e),
    };
    // Every part is complete before the first is renamed into place.
    for p in &mut pendings {
        p.flush()?;
    }
    for (i, p) in pendings.into_iter().enumerate() {
        p.commit().with_context(|| format!("writing {}", part_path(prefix, i).display()))?;
    }
    summary_line("split", &s, data.len() as u64, bar.seconds());
    println!("records split: {k} parts {} … {}", part_path(prefix, 0).display(), part_path(prefix, k - 1).display());
    Ok(std::process::ExitCode::SUCCESS)
}

pub use pipeline::mix::SplitBy;
