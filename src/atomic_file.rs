//! Writing a file so that a crash or a full disk never leaves it damaged:
//! the content goes to a temporary file in the target's directory, which is
//! flushed, synced and renamed over the target; the directory is then synced
//! so the rename itself is durable. On any error the temporary file is
//! removed and the old file is untouched.

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
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
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
