//! Writing a file so that a crash or a full disk never leaves it damaged:
//! the content goes to a temporary file in the target's directory, which is
//! flushed, synced and renamed over the target; the directory is then synced
//! so the rename itself is durable. On any error the temporary file is
//! removed and the old file is untouched.
//!
//! A process killed mid-write (SIGKILL, power loss) cannot remove its
//! temporary file, which may be as large as a whole hash table. So every
//! write first sweeps its directory for temporary files of this module's
//! pattern, `.NAME.tmp-PID`, whose process no longer exists, and removes
//! them ([`remove_stale_temporaries`]). A file whose PID is alive is never
//! touched (it may be another engine's save in progress). Liveness is read
//! from `/proc`; where there is no `/proc` nothing is swept.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

/// Writes `path` through `fill`, which writes into a buffered temporary file
/// (`buffer` bytes of buffer); returns what `fill` returns.
pub fn write_with<T>(
    path: &Path,
    buffer: usize,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<T>,
) -> io::Result<T> {
    let (dir, tmp) = temporary_for(path);
    let written = (|| {
        let file = File::options().write(true).create(true).truncate(true).open(&tmp)?;
        let mut w = BufWriter::with_capacity(buffer, file);
        let value = fill(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(value)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
        return written;
    }
    // Best effort: not every platform can sync a directory.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    written
}

/// The directory of `path` (`.` for a bare name) and its file name.
pub fn dir_and_name(path: &Path) -> (PathBuf, String) {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into());
    (dir, name)
}

/// The directory of `path` and the temporary file to write it through,
/// after sweeping the directory for dead writers' temporaries.
fn temporary_for(path: &Path) -> (PathBuf, PathBuf) {
    let (dir, name) = dir_and_name(path);
    remove_stale_temporaries(&dir);
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    (dir, tmp)
}

/// The PID in a temporary file name of this module (`.NAME.tmp-PID`).
fn temporary_pid(file_name: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?;
    let (name, pid) = rest.rsplit_once(".tmp-")?;
    if name.is_empty() || pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Removes the temporary files of killed writers from `dir`: names of the
/// form `.NAME.tmp-PID` whose PID is no running process. Returns how many
/// were removed. Best effort: unreadable entries are skipped.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return 0; // no way to tell a live writer from a dead one
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(temporary_pid) else { continue };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        let dead = pid != std::process::id() && !proc.join(pid.to_string()).exists();
        if is_file && dead && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// An output file being written: the content goes to the temporary file
/// `.NAME.tmp-PID` beside `path`; [`Pending::commit`] flushes, syncs and
/// renames it over `path`. Dropped without a commit (an error, a panic),
/// the temporary is removed and `path` is untouched. For commands that
/// write several files and must leave all or none of them.
pub struct Pending {
    writer: Option<BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
}

impl Pending {
    /// Creates the temporary file for `path` (after sweeping the directory
    /// for dead writers' temporaries).
    pub fn create(path: &Path, buffer: usize) -> io::Result<Pending> {
        let (_, tmp) = temporary_for(path);
        let file = File::options().write(true).create(true).truncate(true).open(&tmp)?;
        Ok(Pending { writer: Some(BufWriter::with_capacity(buffer, file)), tmp, path: path.to_path_buf() })
    }

    /// Flushes, syncs and renames the temporary over the target.
    pub fn commit(mut self) -> io::Result<()> {
        let Some(w) = self.writer.take() else { return Err(io::Error::other("output already closed")) };
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        std::fs::rename(&self.tmp, &self.path)?;
        if let Some(Ok(d)) =
            self.path.parent().map(|d| File::open(if d.as_os_str().is_empty() { Path::new(".") } else { d }))
        {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

/// Writes go to the temporary file (buffered).
impl io::Write for Pending {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self.writer.as_mut() {
            Some(w) => w.write(buf),
            None => Err(io::Error::other("output already closed")),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self.writer.as_mut() {
            Some(w) => w.write_all(buf),
            None => Err(io::Error::other("output already closed")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.as_mut().map_or(Ok(()), |w| w.flush())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("archivist-atomic-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// The PID of a process that has exited (and been reaped).
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn temporary_names_are_recognised_by_their_pattern_only() {
        assert_eq!(temporary_pid(".hash.sftt.tmp-1234"), Some(1234));
        assert_eq!(temporary_pid(".a.tmp-7"), Some(7));
        assert_eq!(temporary_pid("hash.sftt.tmp-1234"), None);
        assert_eq!(temporary_pid(".hash.sftt.tmp-"), None);
        assert_eq!(temporary_pid(".hash.sftt.tmp-12x"), None);
        assert_eq!(temporary_pid("..tmp-12"), None);
        assert_eq!(temporary_pid(".hash.sftt"), None);
    }

    #[test]
    fn pending_output_appears_only_on_commit() {
        use std::io::Write;
        let dir = scratch("pending");
        let (a, b) = (dir.join("a.bin"), dir.join("b.bin"));
        let mut pa = Pending::create(&a, 64).unwrap();
        let mut pb = Pending::create(&b, 64).unwrap();
        pa.write_all(b"first").unwrap();
        pb.write_all(b"second").unwrap();
        drop(pb);
        assert!(!b.exists(), "dropped without commit: no file");
        assert!(!a.exists(), "not yet committed");
        pa.commit().unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"first");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary left");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_write_removes_temporaries_of_dead_writers_and_keeps_live_ones() {
        let dir = scratch("stale");
        let dead = dead_pid();
        let stale_same = dir.join(format!(".hash.sftt.tmp-{dead}"));
        let stale_other = dir.join(format!(".book.yacb.tmp-{dead}"));
        let mut sleeper = std::process::Command::new("sleep").arg("30").spawn().unwrap();
        let live = dir.join(format!(".hash.sftt.tmp-{}", sleeper.id()));
        let unrelated = dir.join(format!("notes.tmp-{dead}"));
        for p in [&stale_same, &stale_other, &live, &unrelated] {
            std::fs::write(p, b"partial").unwrap();
        }
        write_with(&dir.join("hash.sftt"), 64, |w| std::io::Write::write_all(w, b"table")).unwrap();
        sleeper.kill().unwrap();
        sleeper.wait().unwrap();
        assert!(!stale_same.exists(), "a dead writer's temporary of the same target is removed");
        assert!(!stale_other.exists(), "a dead writer's temporary of another target is removed");
        assert!(live.exists(), "a live writer's temporary is kept");
        assert!(unrelated.exists(), "a file outside the pattern is kept");
        assert_eq!(std::fs::read(dir.join("hash.sftt")).unwrap(), b"table");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
