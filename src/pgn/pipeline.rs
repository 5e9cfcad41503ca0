//! The reading side of a pass over PGN databases, shared by `book build`
//! and `explorer build`: one thread cuts the inputs into batches of whole
//! games ([`read_inputs`]) for the workers, and what the caller hears
//! while the pass runs ([`Observer`]).

use super::{Batch, GameBatches, ReplayError};
use crate::input::Input;
use crate::ordered::Feed;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

/// What the reader hands the workers: a batch of whole games of input
/// `file`, or the error that ended an input.
pub enum Job {
    Batch { file: usize, batch: Batch },
    Damaged { input: String, error: String },
}

/// Counters the progress display reads.
#[derive(Default)]
pub struct Meter {
    /// Source bytes read (compressed bytes for compressed inputs).
    pub source_bytes: AtomicU64,
}

/// The reader thread: batches of every input in order.
pub fn read_inputs(inputs: Vec<Input>, batch_bytes: usize, meter: &Meter, feed: &mut Feed<Job>) {
    let mut done_bytes = 0u64;
    for (file, input) in inputs.into_iter().enumerate() {
        let name = input.name().to_string();
        let counter = input.source_counter();
        for item in GameBatches::new(input, batch_bytes) {
            meter.source_bytes.store(done_bytes + counter.load(Relaxed), Relaxed);
            let job = match item {
                Ok(batch) => Job::Batch { file, batch },
                Err(e) => Job::Damaged { input: name.clone(), error: e.to_string() },
            };
            if !feed.send(job) {
                return;
            }
        }
        done_bytes += counter.load(Relaxed);
        meter.source_bytes.store(done_bytes, Relaxed);
    }
}

/// Why a build that read damaged inputs wrote nothing: the inputs and
/// their errors, and that no `output` ("book", "index") was written.
pub fn damaged_message(damaged: &[(String, String)], output: &str) -> String {
    let inputs: Vec<String> = damaged.iter().map(|(input, error)| format!("{input}: {error}")).collect();
    format!("{} input(s) damaged ({}); no {output} written", damaged.len(), inputs.join("; "))
}

/// Live figures for a progress display.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub games: u64,
    pub text_bytes: u64,
    pub source_bytes: u64,
    pub seconds: f64,
}

/// What the caller hears about while the build runs.
pub trait Observer {
    fn skipped(&mut self, error: &ReplayError);
    fn damaged(&mut self, input: &str, error: &str);
    fn progress(&mut self, progress: &Progress);
}
