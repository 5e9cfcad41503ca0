//! The output of a run: the record file (opened new or for appending, a
//! game cut short by a crash removed, whole games written one at a time)
//! and the run's entry in the run log beside it ([`super::runlog`]).
//!
//! Invariants: the file only ever holds whole games. A game is written with
//! one `write_all` and flushed; if that fails, the file is cut back to the
//! end of the last whole game. Appending checks the framing of the whole
//! file; when it ends inside a game whose bytes so far are a valid start of
//! a game (and the last whole game before it decodes), those bytes are
//! removed. Any other damage refuses the file.

use super::runlog::{self, Run, RunLog, RunSettings, Status};
use super::{Hooks, SearchLimit, SelfplayError, Settings, Summary};
use crate::codec::{IoAt, PathIoError};
use crate::records::{self, RecordError};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The record file being written.
pub struct Output {
    file: File,
    path: PathBuf,
    /// Whole games in the file when it was opened.
    pub games_before: u64,
    /// Bytes of the whole games written so far (the file's length).
    pub bytes: u64,
    /// Bytes of the file when it was opened (after removing a torn game).
    pub bytes_before: u64,
    /// Bytes of a game cut short at the end of the file, removed by
    /// [`Output::remove_torn_game`].
    pub torn_bytes_removed: u64,
}

impl Output {
    /// Opens `path`: a new file, or (appending) an existing one whose games
    /// are whole apart from a torn last game. Nothing is changed yet.
    pub fn open(path: &Path, append: bool) -> Result<Output, SelfplayError> {
        let io_err = |source| SelfplayError::Io(PathIoError::new(path, source));
        let exists = path.exists();
        if exists && !append {
            return Err(SelfplayError::OutputExists(path.to_path_buf()));
        }
        let (games, complete, len) = if exists { whole_games(path)? } else { (0, 0, 0) };
        let mut options = std::fs::OpenOptions::new();
        if exists {
            options.append(true);
        } else {
            options.write(true).create_new(true);
        }
        let file = options.open(path).map_err(io_err)?;
        Ok(Output {
            file,
            path: path.to_path_buf(),
            games_before: games,
            bytes: complete,
            bytes_before: complete,
            torn_bytes_removed: len - complete,
        })
    }

    /// Removes the torn game found when opening, if any.
    pub fn remove_torn_game(&self) -> Result<(), SelfplayError> {
        if self.torn_bytes_removed == 0 {
            return Ok(());
        }
        let io_err = |source| SelfplayError::Io(PathIoError::new(&self.path, source));
        self.file.set_len(self.bytes).and_then(|()| self.file.sync_all()).map_err(io_err)
    }

    /// Appends one whole game and flushes it; on failure the file is cut
    /// back to its last whole game (best effort) and the error returned.
    pub fn write_game(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self.file.write_all(bytes).and_then(|()| self.file.flush()) {
            Ok(()) => {
                self.bytes += bytes.len() as u64;
                Ok(())
            }
            Err(e) => {
                let _ = self.file.set_len(self.bytes);
                Err(e)
            }
        }
    }

    /// Syncs the file to disk.
    pub fn sync(&self) -> Result<(), SelfplayError> {
        Ok(self.file.sync_all().at(&self.path)?)
    }
}

/// Whole games of an existing file, where they end, and the file's length.
fn whole_games(path: &Path) -> Result<(u64, u64, u64), SelfplayError> {
    let bad = |source| SelfplayError::BadExistingFile { path: path.to_path_buf(), source };
    let len = std::fs::metadata(path).at(path)?.len();
    if len == 0 {
        return Ok((0, 0, 0));
    }
    let map = records::map(path).map_err(bad)?;
    let f = records::framing(&map);
    if f.complete_bytes == len {
        return Ok((f.games, len, len));
    }
    let slice = |from: u64, to: u64| map.get(from as usize..to as usize).unwrap_or_default();
    // A torn game is a valid beginning of a game: decoding it fails only
    // for want of bytes. The last whole game must decode too, or the
    // framing may have drifted through damage.
    let tail_is_torn =
        matches!(records::Reader::new(slice(f.complete_bytes, len)).next(), Some(Err(RecordError::Truncated { .. })));
    let last_is_whole =
        f.games == 0 || matches!(records::Reader::new(slice(f.last_game_start, f.complete_bytes)).next(), Some(Ok(_)));
    if tail_is_torn && last_is_whole {
        Ok((f.games, f.complete_bytes, len))
    } else {
        Err(bad(records::torn(&map, &f)))
    }
}

/// A run's entry in the run log, kept up to date on disk.
pub struct LogEntry {
    log: RunLog,
    path: PathBuf,
}

impl LogEntry {
    /// The log of `out` with a `running` entry for this run appended and
    /// saved. A file without games starts a new log.
    pub fn start(settings: &Settings, hooks: &Hooks, out: &Output, games: u64) -> Result<LogEntry, SelfplayError> {
        let path = runlog::path_for(&settings.out);
        let mut log = if out.bytes_before == 0 { RunLog::default() } else { RunLog::load(&path)? };
        let first_index = first_index(&log, settings.seed, out.games_before);
        log.runs.push(Run {
            archivist: env!("CARGO_PKG_VERSION").to_string(),
            command: settings.command.clone(),
            started_unix: runlog::now_unix(),
            ended_unix: None,
            status: Status::Running,
            seed: settings.seed,
            first_index,
            end_index: None,
            games_requested: games,
            games_before: out.games_before,
            bytes_before: out.bytes_before,
            torn_bytes_removed: (out.torn_bytes_removed > 0).then_some(out.torn_bytes_removed),
            games: None,
            positions: None,
            skipped: None,
            bytes_after: None,
            settings: run_settings(settings, hooks),
        });
        log.save(&path)?;
        Ok(LogEntry { log, path })
    }

    /// The run's first game index.
    pub fn first_index(&self) -> u64 {
        self.log.runs.last().map_or(0, |r| r.first_index)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records how the run ended and saves the log.
    pub fn finish(
        &mut self,
        summary: &Summary,
        end_index: u64,
        bytes_after: u64,
        status: Status,
    ) -> Result<(), SelfplayError> {
        if let Some(run) = self.log.runs.last_mut() {
            run.ended_unix = Some(runlog::now_unix());
            run.status = status;
            run.end_index = Some(end_index);
            run.games = Some(summary.snapshot.games_done);
            run.positions = Some(summary.snapshot.positions);
            run.skipped = Some(summary.skipped);
            run.bytes_after = Some(bytes_after);
        }
        Ok(self.log.save(&self.path)?)
    }
}

/// The first game index of a run with `seed`: after every index the log
/// gives that seed; for a new seed 0, or, when the log began on a file that
/// already held games (written before logs), after those.
pub fn first_index(log: &RunLog, seed: u64, games_in_file: u64) -> u64 {
    log.next_index(seed).unwrap_or_else(|| log.runs.first().map_or(games_in_file, |r| r.games_before))
}

fn run_settings(s: &Settings, hooks: &Hooks) -> RunSettings {
    let (nodes, depth) = match s.limit {
        SearchLimit::Nodes(n) => (Some(n), None),
        SearchLimit::Depth(d) => (None, Some(d)),
    };
    let openings = match &hooks.openings {
        Some(source) => source.describe(),
        None if s.chess960 => "Chess960 start positions".to_string(),
        None => "start position".to_string(),
    };
    RunSettings {
        nodes,
        soft_nodes: s.soft_nodes,
        depth,
        value_only: s.value_only,
        threads: s.threads,
        hash_mb: s.hash_mb,
        random_plies: s.random_plies,
        chess960: s.chess960,
        max_plies: s.max_plies,
        opening_cp_limit: s.opening_cp_limit,
        win_cp: s.score_rules.win_cp,
        win_plies: s.score_rules.win_plies,
        draw_cp: s.score_rules.draw_cp,
        draw_plies: s.score_rules.draw_plies,
        draw_after_ply: s.score_rules.draw_after_ply,
        openings,
        adjudication: hooks.adjudicator.as_ref().map(|a| a.describe()),
        evaluation: hooks.net.as_ref().map(|(_, what)| what.clone()),
    }
}
