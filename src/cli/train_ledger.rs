//! The checkpoint's ledger, `<out>.ckpt.json`: one entry per leg the
//! checkpoint has trained, carried over from the checkpoint a run continues
//! (`--init`, `--resume`), so that the newest checkpoint names every file
//! that ever trained it. `make data-status` reads it to tell which records
//! a committed checkpoint has read.
//!
//! A file's `engine` says which builds played it: `make datagen` names its
//! binaries `archivist-<commit, 12 hex digits>` and each run's command in
//! the file's run log (`<file>.runs.json`) starts with that binary; the
//! bench is its folder's (`build.json`). Ledgers written before this field
//! held `{ "commit", "bench" }` of the folder's newest build instead.
//!
//! ```json
//! { "format": "archivist-train-ledger", "version": 1, "legs": [ {
//!     "leg": 1, "unix_time": 1795800000, "archivist": "0.1.0",
//!     "command": "archivist train --data ... --out ...",
//!     "files": [ { "path": "...", "name": "random-1901.bin", "games": 9957,
//!                  "positions": 1403086, "bytes": 7463495, "fnv1a64": "0x...",
//!                  "seeds": [1901],
//!                  "engine": { "bench": 2656161, "builds": ["9c7caca4b876", "..."] } } ],
//!     "validation": [ ... the same for the held-out files ... ],
//!     "settings": { "hidden": 128, "seed": 1, "base": "none", "wdl": 0.25, "scale": 400.0,
//!                   "batch": 16384, "buffer": 2000000, "skip_plies": 8, "max_cp": 2000 },
//!     "fitted_scale": 141.2,
//!     "kept": 1000000, "trained_before": 0, "trained_after": 1000000,
//!     "planned": 30000000, "lr_first": 0.001, "lr_last": 0.00099,
//!     "loss": 0.0301, "validation_loss": 0.0299,
//!     "hand_written_validation_loss": 0.0089, "seconds": 600.0,
//!     "yardstick": { "positions": 200000, "hand_written": 0.101, "float": 0.099, "quantised": 0.099 },
//!     "quantisation": { "mean_difference": 0.1, "mean_absolute_difference": 0.6 } } ] }
//! ```
//!
//! `scale` and `fitted_scale` are absent from legs trained before the
//! trainer had a `--scale` (they trained at 400); `yardstick` and
//! `quantisation` appear on a run's last leg when it measured them, and
//! `"calibrate": K` when its network file was rounded to K positions
//! (`--calibrate`).

use crate::train::data::Dataset;
use crate::train::{LegReport, Start, TrainConfig};
use anyhow::Context;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The ledger beside a checkpoint.
pub fn path_of(checkpoint: &Path) -> PathBuf {
    let mut name = checkpoint.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// The legs recorded for the checkpoint this run continues (none for a
/// fresh run, or when the checkpoint has no ledger beside it).
pub fn earlier(config: &TrainConfig) -> anyhow::Result<Vec<Value>> {
    let from = match &config.start {
        Start::Fresh => return Ok(Vec::new()),
        Start::Resume => config.checkpoint_path(),
        Start::Init(path) => path.clone(),
    };
    let path = path_of(&from);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| path.display().to_string()),
    };
    let doc: Value = serde_json::from_str(&text).with_context(|| path.display().to_string())?;
    match doc.get("legs").and_then(Value::as_array) {
        Some(legs) => Ok(legs.clone()),
        None => anyhow::bail!("{}: no \"legs\" array", path.display()),
    }
}

/// What the data directory says of a record file: the seeds and the
/// builds of its run log (`<file>.runs.json`, in the order they first
/// played) and the bench of its folder (`build.json`, written by `make
/// datagen`). Missing or unreadable: null.
fn provenance(path: &Path) -> (Value, Value) {
    let read = |p: PathBuf| std::fs::read_to_string(p).ok().and_then(|t| serde_json::from_str::<Value>(&t).ok());
    let mut log = path.as_os_str().to_owned();
    log.push(".runs.json");
    let runs = read(PathBuf::from(log)).and_then(|doc| doc.get("runs")?.as_array().cloned());
    let firsts = |field: &dyn Fn(&Value) -> Option<Value>| {
        runs.as_ref().map(|runs| {
            let mut seen: Vec<Value> = Vec::new();
            for v in runs.iter().filter_map(field) {
                if !seen.contains(&v) {
                    seen.push(v);
                }
            }
            Value::from(seen)
        })
    };
    let seeds = firsts(&|r| r.get("seed").cloned());
    let builds = firsts(&|r| build_in_command(r.get("command")?.as_str()?).map(Value::from));
    let bench = path.parent().and_then(|d| read(d.join("build.json"))).and_then(|b| b.get("bench").cloned());
    let engine = match (bench, builds) {
        (None, None) => Value::Null,
        (bench, builds) => json!({ "bench": bench, "builds": builds }),
    };
    (seeds.unwrap_or(Value::Null), engine)
}

/// The build a datagen command ran: the 12 hex digits of the binary's
/// name `archivist-<commit>` (`tools/data.py` names them so), if any.
fn build_in_command(command: &str) -> Option<&str> {
    let program = command.split_whitespace().next()?;
    let name = program.rsplit('/').next()?;
    let hex = name.strip_prefix("archivist-")?;
    (hex.len() == 12 && hex.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))).then_some(hex)
}

fn files(paths: &[PathBuf]) -> anyhow::Result<Vec<Value>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    Ok(summaries(&Dataset::open(paths)?))
}

/// Each file of `set` as its ledger entry: path, name, games, positions,
/// bytes and FNV-1a of the bytes mapped when the set was opened (a record
/// file still being written counts only the games it had then), with its
/// provenance.
pub fn summaries(set: &Dataset) -> Vec<Value> {
    set.files()
        .map(|f| {
            let (seeds, engine) = provenance(f.path);
            json!({
                "path": f.path.display().to_string(),
                "name": f.path.file_name().map(|n| n.to_string_lossy().into_owned()),
                "games": f.games,
                "positions": f.positions,
                "bytes": f.bytes,
                "fnv1a64": format!("{:#018x}", f.fnv1a64),
                "seeds": seeds,
                "engine": engine,
            })
        })
        .collect()
}

/// Writes `<out>.ckpt.json`: the earlier legs, then this run's, which read
/// `data` ([`summaries`] of the files as the run opened them).
pub fn write(
    config: &TrainConfig,
    fitted_scale: f64,
    data: Vec<Value>,
    mut legs: Vec<Value>,
    reports: &[LegReport],
) -> anyhow::Result<()> {
    let validation = files(&config.validation)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let ckpt = crate::train::checkpoint::Checkpoint::load(&config.checkpoint_path())?;
    for r in reports {
        legs.retain(|l| l.get("leg").and_then(Value::as_u64) != Some(u64::from(r.leg)));
        legs.push(json!({
            "leg": r.leg,
            "unix_time": now,
            "archivist": env!("CARGO_PKG_VERSION"),
            "command": command,
            "files": data,
            "validation": validation,
            "settings": {
                "hidden": ckpt.net.hidden(),
                "seed": ckpt.seed,
                "base": ckpt.net.base().name(),
                "wdl": config.wdl,
                "scale": r.scale,
                "batch": config.batch,
                "buffer": config.buffer,
                "skip_plies": config.filter.skip_plies,
                "max_cp": config.filter.max_cp,
            },
            "kept": r.counts.kept,
            "trained_before": r.trained.0,
            "trained_after": r.trained.1,
            "planned": r.planned,
            "lr_first": r.lr.0,
            "lr_last": r.lr.1,
            "loss": r.loss,
            "validation_loss": r.validation_loss,
            "hand_written_validation_loss": r.hand_written_validation_loss,
            "seconds": r.seconds,
        }));
        let leg = legs.last_mut().and_then(Value::as_object_mut).context("the leg just written")?;
        leg.insert("fitted_scale".into(), json!(fitted_scale));
        if let Some(y) = r.yardstick {
            let net = y.network;
            leg.insert(
                "yardstick".into(),
                json!({ "positions": y.positions, "hand_written": y.hand_written,
                        "float": net.map(|n| n.float), "quantised": net.map(|n| n.quantised) }),
            );
        }
        if config.calibrate > 0 && std::ptr::eq(r, reports.last().context("a report")?) {
            leg.insert("calibrate".into(), json!(config.calibrate));
        }
        if let Some(q) = r.quantisation {
            leg.insert(
                "quantisation".into(),
                json!({ "mean_difference": q.mean_difference, "mean_absolute_difference": q.mean_absolute_difference }),
            );
        }
    }
    let doc = json!({ "format": "archivist-train-ledger", "version": 1, "legs": legs });
    let path = path_of(&config.checkpoint_path());
    let text = serde_json::to_string_pretty(&doc)? + "\n";
    crate::atomic_file::write_with(&path, 1 << 16, |w| std::io::Write::write_all(w, text.as_bytes()))
        .with_context(|| path.display().to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::TempDir;

    #[test]
    fn build_is_read_from_the_datagen_binary_name() {
        let cmd = "/root/archivist-data/bin/archivist-9c7caca4b876 selfplay --out x.bin --seed 7";
        assert_eq!(build_in_command(cmd), Some("9c7caca4b876"));
        assert_eq!(build_in_command("archivist-0123456789ab selfplay"), Some("0123456789ab"));
        assert_eq!(build_in_command("./archivist selfplay --out archivist-9c7caca4b876"), None);
        assert_eq!(build_in_command("archivist-9C7CACA4B876 selfplay"), None);
        assert_eq!(build_in_command("archivist-9c7caca selfplay"), None);
        assert_eq!(build_in_command(""), None);
    }

    #[test]
    fn provenance_names_every_build_that_played_the_file_in_order() {
        let dir = TempDir::new("ledger-provenance");
        let file = dir.file("random-7.bin");
        std::fs::write(dir.file("build.json"), r#"{"commit": "ffffffffffff", "bench": 2656161}"#).unwrap();
        let run =
            |bin: &str, seed: u64| json!({ "command": format!("/d/bin/{bin} selfplay --seed {seed}"), "seed": seed });
        let runs = json!({ "runs": [run("archivist-aaaaaaaaaaaa", 7), run("archivist-bbbbbbbbbbbb", 7),
                                    run("archivist-aaaaaaaaaaaa", 7), run("some-other-binary", 8)] });
        std::fs::write(dir.file("random-7.bin.runs.json"), runs.to_string()).unwrap();
        let (seeds, engine) = provenance(&file);
        assert_eq!(seeds, json!([7, 8]));
        assert_eq!(engine, json!({ "bench": 2656161, "builds": ["aaaaaaaaaaaa", "bbbbbbbbbbbb"] }));
    }

    #[test]
    fn ledger_counts_a_file_as_the_run_opened_it() {
        // A record file datagen is still appending to: the ledger names the
        // games the run mapped when it opened the file, not what is there
        // when the ledger is written.
        let dir = TempDir::new("ledger-opened");
        let file = dir.file("random-9.bin");
        let games = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/heldout-4243.bin")).unwrap();
        std::fs::write(&file, &games).unwrap();
        let set = Dataset::open(std::slice::from_ref(&file)).unwrap();
        let mut more = std::fs::OpenOptions::new().append(true).open(&file).unwrap();
        std::io::Write::write_all(&mut more, &games).unwrap();
        let (opened, now) = (&summaries(&set)[0], &files(std::slice::from_ref(&file)).unwrap()[0]);
        assert_eq!(opened["games"], json!(300));
        assert_eq!(opened["bytes"], json!(games.len()));
        assert_eq!(opened["fnv1a64"], json!(format!("{:#018x}", crate::codec::fnv1a64(&games))));
        assert_eq!(now["games"], json!(600));
    }

    #[test]
    fn provenance_is_null_without_run_log_or_build() {
        let dir = TempDir::new("ledger-provenance-none");
        assert_eq!(provenance(&dir.file("random-1901.bin")), (Value::Null, Value::Null));
        std::fs::write(dir.file("build.json"), r#"{"bench": 42}"#).unwrap();
        assert_eq!(provenance(&dir.file("x.bin")).1, json!({ "bench": 42, "builds": null }));
    }
}
