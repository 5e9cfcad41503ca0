//! The run log beside a self-play output: `<out>.runs.json` (for
//! `data.bin`, `data.bin.runs.json`) lists every run that wrote to the file,
//! oldest first, so a later run, a trainer or a person can see which seed,
//! game indices, settings, openings and engine version made its games.
//!
//! ```json
//! { "format": "archivist-selfplay-runs", "version": 1, "runs": [ {
//!     "archivist": "0.1.0", "command": "archivist selfplay --out data.bin …",
//!     "started_unix": 1700000000, "ended_unix": 1700003600, "status": "finished",
//!     "seed": 1001, "first_index": 0, "end_index": 2000, "games_requested": 2000,
//!     "games_before": 0, "bytes_before": 0, "games": 2000, "positions": 181234,
//!     "skipped": 0, "bytes_after": 996000,
//!     "settings": { "nodes": 40000, "soft_nodes": 5000, "value_only": true, … } } ] }
//! ```
//!
//! Invariants:
//! * The log is rewritten whole through [`crate::atomic_file`] (temporary
//!   file, sync, rename): a crash leaves the old log or the new one, never a
//!   mix. A run is logged twice: `status = "running"` before its first game,
//!   its figures when it ends (`finished`, `interrupted` or `failed`). A run
//!   still `running` in the log was killed: its counts are unknown.
//! * Game `i` of seed `s` is always the same game for the same settings:
//!   `first_index..end_index` are the indices a run handed out (games in
//!   progress when it stopped are lost, never repeated), so appending with a
//!   seed the log already has continues after its highest index.
//! * The log describes the bytes of its record file: a run that starts a new
//!   (absent or empty) file starts a new log. One run per file at a time.
//! * Unknown keys are ignored, so later versions can add fields.

use crate::codec::{IoAt, PathIoError};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The `format` value of a run log.
pub const FORMAT: &str = "archivist-selfplay-runs";
/// The `version` of the layout written here.
pub const VERSION: u32 = 1;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunLogError {
    #[error(transparent)]
    Io(#[from] PathIoError),
    #[error("{path}: not a self-play run log ({reason}); move it away to start a new one")]
    Parse { path: PathBuf, reason: String },
    #[error("{path}: run log version {found} is newer than this build reads ({VERSION})")]
    UnsupportedVersion { path: PathBuf, found: u32 },
}

/// How a logged run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Started and not (yet) ended: while it runs, or killed.
    Running,
    Finished,
    /// Stopped by Ctrl-C or SIGTERM; its finished games are in the file.
    Interrupted,
    /// Stopped by an error (a write failed); the file holds whole games.
    Failed,
}

/// The settings that decide a run's games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunSettings {
    /// Hard node limit per move (absent with a depth limit).
    pub nodes: Option<u64>,
    pub soft_nodes: Option<u64>,
    pub depth: Option<i32>,
    pub value_only: bool,
    pub threads: usize,
    pub hash_mb: usize,
    pub random_plies: u32,
    pub chess960: bool,
    pub max_plies: u32,
    pub opening_cp_limit: i32,
    pub win_cp: i32,
    pub win_plies: u32,
    pub draw_cp: i32,
    pub draw_plies: u32,
    pub draw_after_ply: u32,
    /// The opening source as the run described it (a path and its size).
    pub openings: String,
    /// The adjudicator (tablebases), if any.
    pub adjudication: Option<String>,
    /// The network the search evaluated with (path, hidden size,
    /// checksum); absent: the hand-written evaluation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evaluation: Option<String>,
}

/// One run that wrote to the record file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The version of the `archivist` that played the games.
    pub archivist: String,
    /// The command line, when the run came from the command line.
    pub command: Option<String>,
    pub started_unix: u64,
    pub ended_unix: Option<u64>,
    pub status: Status,
    pub seed: u64,
    /// The first game index of the run.
    pub first_index: u64,
    /// The first game index the run did not hand out (when it ended).
    pub end_index: Option<u64>,
    /// Games the run set out to play.
    pub games_requested: u64,
    /// Complete games in the file before the run, and their bytes.
    pub games_before: u64,
    pub bytes_before: u64,
    /// Bytes of a game cut short (an earlier crash mid-write) removed from
    /// the end of the file before the run appended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torn_bytes_removed: Option<u64>,
    /// Games and positions the run wrote (when it ended).
    pub games: Option<u64>,
    pub positions: Option<u64>,
    /// Games given up for want of a balanced opening.
    pub skipped: Option<u64>,
    pub bytes_after: Option<u64>,
    pub settings: RunSettings,
}

impl Run {
    /// One past the highest game index this run may have used: its
    /// `end_index`, or the whole requested range when it never ended.
    pub fn index_bound(&self) -> u64 {
        self.end_index.unwrap_or_else(|| self.first_index.saturating_add(self.games_requested))
    }
}

/// The whole log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunLog {
    pub format: String,
    pub version: u32,
    pub runs: Vec<Run>,
}

impl Default for RunLog {
    fn default() -> RunLog {
        RunLog { format: FORMAT.to_string(), version: VERSION, runs: Vec::new() }
    }
}

/// The log path of a record file: its name with `.runs.json` added.
pub fn path_for(out: &Path) -> PathBuf {
    let mut name = out.file_name().map(|n| n.to_os_string()).unwrap_or_default();
    name.push(".runs.json");
    out.with_file_name(name)
}

impl RunLog {
    /// Reads a log; an absent file is an empty log.
    pub fn load(path: &Path) -> Result<RunLog, RunLogError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(RunLog::default()),
            Err(source) => return Err(PathIoError::new(path, source).into()),
        };
        let parse = |reason: String| RunLogError::Parse { path: path.to_path_buf(), reason };
        let log: RunLog = serde_json::from_str(&text).map_err(|e| parse(e.to_string()))?;
        if log.format != FORMAT {
            return Err(parse(format!("format \"{}\"", log.format)));
        }
        if log.version > VERSION {
            return Err(RunLogError::UnsupportedVersion { path: path.to_path_buf(), found: log.version });
        }
        Ok(log)
    }

    /// Replaces the log at `path` atomically.
    pub fn save(&self, path: &Path) -> Result<(), RunLogError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| RunLogError::Parse { path: path.to_path_buf(), reason: e.to_string() })?;
        Ok(crate::atomic_file::write_with(path, 1 << 16, |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })
        .at(path)?)
    }

    /// The first unused game index of `seed`: past every index an earlier
    /// run with that seed may have used; `None` when no run used it.
    pub fn next_index(&self, seed: u64) -> Option<u64> {
        self.runs.iter().filter(|r| r.seed == seed).map(Run::index_bound).max()
    }
}

/// Seconds since the Unix epoch (0 if the clock is before it).
pub fn now_unix() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(seed: u64, first: u64, end: Option<u64>, requested: u64) -> Run {
        Run {
            archivist: "0".into(),
            command: None,
            started_unix: 1,
            ended_unix: None,
            status: if end.is_some() { Status::Finished } else { Status::Running },
            seed,
            first_index: first,
            end_index: end,
            games_requested: requested,
            games_before: 0,
            bytes_before: 0,
            torn_bytes_removed: None,
            games: None,
            positions: None,
            skipped: None,
            bytes_after: None,
            settings: RunSettings {
                nodes: Some(40),
                soft_nodes: Some(5),
                depth: None,
                value_only: true,
                threads: 1,
                hash_mb: 1,
                random_plies: 8,
                chess960: false,
                max_plies: 400,
                opening_cp_limit: 400,
                win_cp: 2000,
                win_plies: 4,
                draw_cp: 10,
                draw_plies: 8,
                draw_after_ply: 80,
                openings: "start position".into(),
                adjudication: None,
                evaluation: None,
            },
        }
    }

    #[test]
    fn next_index_continues_after_every_run_of_the_seed() {
        let log = RunLog {
            runs: vec![run(7, 0, Some(10), 20), run(8, 0, Some(3), 3), run(7, 10, None, 5)],
            ..RunLog::default()
        };
        // The killed run of seed 7 reserves its whole requested range.
        assert_eq!(log.next_index(7), Some(15));
        assert_eq!(log.next_index(8), Some(3));
        assert_eq!(log.next_index(9), None);
    }

    #[test]
    fn save_then_load_round_trips_and_absent_is_empty() {
        let dir = std::env::temp_dir().join(format!("archivist-runlog-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = path_for(&dir.join("d.bin"));
        assert_eq!(path.file_name().unwrap(), "d.bin.runs.json");
        assert_eq!(RunLog::load(&path).unwrap(), RunLog::default());
        let log = RunLog { runs: vec![run(u64::MAX, 0, Some(2), 2)], ..RunLog::default() };
        log.save(&path).unwrap();
        assert_eq!(RunLog::load(&path).unwrap(), log);
        std::fs::write(&path, "{\"format\": \"other\", \"version\": 1, \"runs\": []}").unwrap();
        assert!(matches!(RunLog::load(&path), Err(RunLogError::Parse { .. })));
        std::fs::write(&path, "{\"format\": \"archivist-selfplay-runs\", \"version\": 9, \"runs\": []}").unwrap();
        assert!(matches!(RunLog::load(&path), Err(RunLogError::UnsupportedVersion { found: 9, .. })));
        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(RunLog::load(&path), Err(RunLogError::Parse { .. })));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
