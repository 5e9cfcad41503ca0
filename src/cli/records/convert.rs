//! `records import` and `records export`.

use super::progress::{rates, Bar};
use crate::atomic_file::Pending;
use crate::input::Input;
use crate::records::export::{self, Format};
use crate::records::import::{self, Event, ImportOptions, ImportSummary, Unscored};
use anyhow::Context;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

const BUFFER: usize = 1 << 20;

/// Imports `pgns` (in order) into `out`, atomically.
pub fn import(pgns: &[PathBuf], out: &Path, options: &ImportOptions) -> anyhow::Result<()> {
    let mut pending = Pending::create(out, BUFFER).with_context(|| format!("creating {}", out.display()))?;
    let mut total = ImportSummary::default();
    let mut source_bytes = 0u64;
    let started = std::time::Instant::now();
    for path in pgns {
        let input = Input::open(path)?;
        let counter = input.source_counter();
        let bar = Bar::new(input.source_len(), "import");
        let file: Arc<Path> = Arc::from(path.as_path());
        let before = total;
        let summary = import::import(input, Some(file), &mut pending, options, &mut |e| match e {
            Event::Skipped(s) => eprintln!("records import: skipped {s}"),
            Event::Progress(s) => {
                bar.set(counter.load(Ordering::Relaxed));
                bar.message(format!("{} games, {} positions", before.games + s.games, before.positions + s.positions));
            }
        });
        bar.finish();
        let summary = summary.with_context(|| format!("importing {}", path.display()))?;
        source_bytes += counter.load(Ordering::Relaxed);
        for (t, s) in [
            (&mut total.games, summary.games),
            (&mut total.imported, summary.imported),
            (&mut total.positions, summary.positions),
            (&mut total.unscored, summary.unscored),
            (&mut total.bad, summary.bad),
            (&mut total.result_disagreements, summary.result_disagreements),
            (&mut total.text_bytes, summary.text_bytes),
        ] {
            *t += s;
        }
    }
    pending.commit().with_context(|| format!("writing {}", out.display()))?;
    let secs = started.elapsed().as_secs_f64().max(1e-9);
    println!(
        "records import: {} games read, {} imported ({} positions), {} skipped without scores, {} bad games skipped",
        total.games, total.imported, total.positions, total.unscored, total.bad
    );
    if total.result_disagreements > 0 {
        println!(
            "records import: {} games whose Result tag and termination marker disagree (the tag's result taken)",
            total.result_disagreements
        );
    }
    println!(
        "records import: PGN text {}; input file {:.1} MB",
        rates(total.text_bytes, total.positions, secs),
        source_bytes as f64 / 1e6
    );
    Ok(())
}

/// Exports the records of `file` as `format` into `out`, atomically.
pub fn export(file: &Path, format: Format, out: &Path) -> anyhow::Result<std::process::ExitCode> {
    let map = crate::records::map(file).with_context(|| format!("opening {}", file.display()))?;
    let mut pending = Pending::create(out, BUFFER).with_context(|| format!("creating {}", out.display()))?;
    let bar = Bar::new(Some(map.len() as u64), "export");
    let mut last = 0u64;
    let r = export::export(&map, format, &mut pending, &mut |s| {
        if s.bytes_read - last > 1 << 20 {
            last = s.bytes_read;
            bar.set(s.bytes_read);
        }
    });
    bar.finish();
    let summary = match r {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{}: invalid: {e}", file.display());
            return Ok(std::process::ExitCode::FAILURE);
        }
    };
    pending.flush()?;
    pending.commit().with_context(|| format!("writing {}", out.display()))?;
    let written = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    let secs = bar.seconds();
    println!(
        "records export: {} games, {} positions as {}; read {}; wrote {:.1} MB",
        summary.games,
        summary.positions,
        format.name(),
        rates(map.len() as u64, summary.positions, secs),
        written as f64 / 1e6
    );
    Ok(std::process::ExitCode::SUCCESS)
}

/// The clap value of `--unscored`.
pub fn unscored(skip_or_keep: &str) -> Result<Unscored, String> {
    match skip_or_keep {
        "skip" => Ok(Unscored::Skip),
        "keep" => Ok(Unscored::Keep),
        other => Err(format!("'{other}': expected skip or keep")),
    }
}

/// The clap value of `--format`.
pub fn format(name: &str) -> Result<Format, String> {
    match name {
        "viriformat" => Ok(Format::Viriformat),
        "bullet-text" => Ok(Format::BulletText),
        "sf-plain" => Ok(Format::SfPlain),
        other => Err(format!("'{other}': expected viriformat, bullet-text or sf-plain")),
    }
}
