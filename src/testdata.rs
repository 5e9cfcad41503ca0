//! Where unit tests find outside data (test builds only).
//!
//! Small files (vectors, PGNs, a tiny book, the specification's test keys)
//! are committed under `engine-tests/data/shared/`, in the layout of the
//! project's shared data; large ones (the Syzygy tables,
//! `books/performance.bin`) are read from `../shared/` beside the repository.
//! A test whose file is in neither place skips: it returns early, and the
//! first such skip in a run says so once on stderr (past the harness's
//! output capture), so `cargo test` passes in a lone clone and says why
//! some checks did not run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Once;

/// The path of a shared data file (`vectors/keys.csv`, `syzygy`), or `None`
/// (after the one skip message) when it is in neither place.
pub fn path(rel: &str) -> Option<PathBuf> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = [repo.join("engine-tests/data/shared").join(rel), repo.join("../shared").join(rel)]
        .into_iter()
        .find(|p| p.exists());
    if found.is_none() {
        skip(&format!("{rel} is in neither engine-tests/data/shared nor ../shared"));
    }
    found
}

/// A file that must exist somewhere outside the repository (Debian's
/// gnuchess book), or `None` after the one skip message.
pub fn system_file(p: &str) -> Option<PathBuf> {
    let p = PathBuf::from(p);
    if p.exists() {
        Some(p)
    } else {
        skip(&format!("{} is missing (make deps installs it)", p.display()));
        None
    }
}

/// The text of a shared data file, or `None` when it is absent.
pub fn read(rel: &str) -> Option<String> {
    let p = path(rel)?;
    Some(std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display())))
}

fn skip(why: &str) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Written to the stream itself: the test harness captures only the
        // print macros, and this is meant to be seen.
        let _ = writeln!(
            std::io::stderr(),
            "note: tests that need large shared data skip in this run ({why}); \
             put the project's shared/ beside the repository to run them"
        );
    });
}

pub use crate::codec::TempDir;

impl TempDir {
    /// A scratch directory for one test, removed (with its files) when
    /// dropped. The name, the process id and a counter keep tests running
    /// in parallel apart.
    pub fn new(name: &str) -> TempDir {
        TempDir::in_dir(&std::env::temp_dir(), &format!("archivist-test-{name}")).expect("create a test directory")
    }
}
