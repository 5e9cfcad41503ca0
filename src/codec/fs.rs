//! Files for the formats: an I/O error that names its file
//! ([`PathIoError`], made by [`read_file`] or `.at(path)`), and a scratch
//! directory removed when dropped ([`TempDir`]).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use thiserror::Error;

/// An I/O error on `path`.
#[derive(Debug, Error)]
#[error("{path}: {source}", path = path.display())]
pub struct PathIoError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl PathIoError {
    pub fn new(path: &Path, source: std::io::Error) -> PathIoError {
        PathIoError { path: path.to_path_buf(), source }
    }
}

/// `message` (an error's) without the `"{path}: "` it begins with, if it
/// does: for a caller that names the file itself, in front, when the error
/// may wrap a [`PathIoError`] (which names its file) transparently.
pub fn unnamed(path: &Path, message: &dyn std::fmt::Display) -> String {
    let message = message.to_string();
    match message.strip_prefix(&format!("{}: ", path.display())) {
        Some(rest) => rest.to_string(),
        None => message,
    }
}

/// Attaches a path to an I/O result: `std::fs::read(p).at(p)?`.
pub trait IoAt<T> {
    fn at(self, path: &Path) -> Result<T, PathIoError>;
}

impl<T> IoAt<T> for std::io::Result<T> {
    fn at(self, path: &Path) -> Result<T, PathIoError> {
        self.map_err(|source| PathIoError::new(path, source))
    }
}

/// The whole file, or an error that names it.
pub fn read_file(path: &Path) -> Result<Vec<u8>, PathIoError> {
    std::fs::read(path).at(path)
}

/// A directory (with its files) removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    /// Creates `PARENT/PREFIX-PID-N`, a name no other live directory of
    /// this process has; an old directory of that name is emptied first.
    pub fn in_dir(parent: &Path, prefix: &str) -> std::io::Result<TempDir> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = parent.join(format!("{prefix}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        Ok(TempDir(dir))
    }

    /// Creates `.NAME.work-PID-N` beside `output`.
    pub fn beside(output: &Path) -> std::io::Result<TempDir> {
        let (dir, name) = crate::atomic_file::dir_and_name(output);
        TempDir::in_dir(&dir, &format!(".{name}.work"))
    }

    /// The path of `name` inside the directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A file's bytes: mapped read-only, or owned (books and tables made in
/// memory, tests). The formats that are memory-mapped read through it.
pub enum FileBytes {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl FileBytes {
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        match self {
            FileBytes::Mapped(m) => m,
            FileBytes::Owned(v) => v,
        }
    }
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_name_their_file() {
        let path = Path::new("/nonexistent/archivist-codec/x.bin");
        let e = read_file(path).unwrap_err();
        assert_eq!(e.path, path);
        assert_eq!(e.source.kind(), std::io::ErrorKind::NotFound);
        assert!(e.to_string().starts_with("/nonexistent/archivist-codec/x.bin: "), "{e}");
    }

    #[test]
    fn temp_dirs_are_distinct_and_removed_on_drop() {
        let (a, b) = (TempDir::new("codec-a"), TempDir::new("codec-a"));
        assert_ne!(a.path(), b.path());
        std::fs::write(a.file("f"), b"x").unwrap();
        let kept = a.path().to_path_buf();
        drop(a);
        assert!(!kept.exists() && b.path().is_dir());
        let beside = TempDir::beside(&b.file("out.bin")).unwrap();
        assert_eq!(beside.path().parent(), Some(b.path()));
        assert!(beside.path().file_name().unwrap().to_string_lossy().starts_with(".out.bin.work-"));
    }
}
