//! Logging through `tracing`: warnings to stderr by default, everything to
//! the `Debug Log File` when one is set. Never to stdout, which belongs to UCI.

use parking_lot::Mutex;
use std::fs::File;
use std::io::Write;
use tracing::{Level, Metadata};
use tracing_subscriber::fmt::MakeWriter;

static LOG_FILE: Mutex<Option<File>> = Mutex::new(None);

/// Opens (appending) or closes (empty path) the debug log file.
pub fn set_log_file(path: &str) -> std::io::Result<()> {
    let file = if path.is_empty() { None } else { Some(File::options().create(true).append(true).open(path)?) };
    *LOG_FILE.lock() = file;
    Ok(())
}

pub fn log_file_active() -> bool {
    LOG_FILE.lock().is_some()
}

/// Writes to the log file if set, else to stderr for warnings and errors only.
pub struct Sink {
    to_stderr: bool,
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Some(f) = LOG_FILE.lock().as_mut() {
            return f.write(buf);
        }
        if self.to_stderr {
            std::io::stderr().write(buf)
        } else {
            Ok(buf.len())
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if let Some(f) = LOG_FILE.lock().as_mut() {
            return f.flush();
        }
        Ok(())
    }
}

pub struct MakeSink;

impl<'a> MakeWriter<'a> for MakeSink {
    type Writer = Sink;
    fn make_writer(&'a self) -> Sink {
        Sink { to_stderr: false }
    }
    fn make_writer_for(&'a self, meta: &Metadata<'_>) -> Sink {
        Sink { to_stderr: *meta.level() <= Level::WARN }
    }
}

/// Installs the subscriber once (later calls are harmless).
pub fn init() {
    let _ = tracing_subscriber::fmt()
        .with_writer(MakeSink)
        .with_max_level(Level::DEBUG)
        .with_ansi(false)
        .with_target(false)
        .try_init();
}
