//! The threads of `book build`, in two passes.
//!
//! Reading ([`run_pass`]): a reader thread cuts the inputs into batches of
//! whole games ([`GameBatches`] over [`Input`]), `threads` workers parse,
//! filter and replay the batches into counting events
//! ([`super::games::count_batch`]), and the calling thread gets each
//! batch, its events with it, in input order ([`crate::ordered`]), so what
//! it counts, and the order in which moves are first met, do not depend
//! on the number of threads. A batch's event buffers go back to the
//! workers once the counter is done with them (it holds batches until it
//! spills them), so the pass allocates them only until the pipeline and
//! the held batches are full.
//!
//! Counting ([`count_bodies`]): `threads` threads count the buckets, a
//! body (a range of buckets) at a time, while a helper thread gives back
//! the spill files' space behind them.

use super::event::{Grouped, Spilled};
use super::games::{count_batch, BatchOut, PassSpec};
use super::BuildError;
use crate::input::{Input, InputError};
use crate::ordered::{self, Feed};
use crate::pgn::pipeline::{read_inputs, Job, Meter};
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::Arc;

/// What the counter gets, in input order.
pub enum Item {
    Batch(BatchOut),
    /// An input failed while being read (a damaged compressed stream).
    Damaged {
        input: String,
        error: String,
    },
}

/// Runs one pass; `apply` gets every item in input order and may stop
/// the pass by failing. It may keep a batch's events, and gives back the
/// ones it is done with (for their buffers to be used again). Opening an
/// input that does not exist fails the pass.
pub fn run_pass<E: From<InputError>>(
    spec: &PassSpec<'_>,
    meter: &Meter,
    apply: impl FnMut(Item) -> Result<Vec<Grouped>, E>,
) -> Result<(), E> {
    // Open every input first: a missing file fails before any work.
    let mut opened = Vec::with_capacity(spec.inputs.len());
    for p in spec.inputs {
        opened.push(Input::open(p)?);
    }
    let files: Vec<Arc<Path>> = spec.inputs.iter().map(|p| Arc::from(p.as_path())).collect();
    let worker = || {
        let mut scratch = (Vec::new(), Vec::new());
        let files = &files;
        move |job: Job, spares: &ordered::Spares<Grouped>| match job {
            Job::Damaged { input, error } => Item::Damaged { input, error },
            Job::Batch { file, batch } => {
                Item::Batch(count_batch(spec, &files[file], &batch, &mut scratch, spares.take()))
            }
        }
    };
    let produce = |feed: &mut Feed<Job>| read_inputs(opened, spec.batch_bytes, meter, feed);
    ordered::run(spec.threads, spec.tokens, produce, worker, apply)
}

/// What counting buckets gave: entries written and buckets split again.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counted {
    pub entries: u64,
    pub splits: u64,
}

/// Counts the `bodies` bodies of `src` (body `i` is the `i`-th range of
/// buckets) with `count`, on `threads` threads, each body once; adds up
/// what they give, or gives the first error.
///
/// Bodies are taken from the last one down, so the spill files are used
/// up from their ends: a helper thread cuts them short behind the
/// counting ([`Spilled::release_from`], `per_body` buckets a body), and
/// their pages are given back while the counting goes on rather than all
/// at once when they are deleted at the end.
pub fn count_bodies<S>(
    src: &Spilled,
    bodies: usize,
    per_body: usize,
    threads: usize,
    make_state: impl Fn(usize) -> S + Sync,
    count: impl Fn(&mut S, usize) -> Result<Counted, BuildError> + Sync,
) -> Result<Counted, BuildError> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (entries, splits) = (AtomicU64::new(0), AtomicU64::new(0));
    let error = parking_lot::Mutex::new(None);
    // Which bodies are done, and the first of the done bodies at the end.
    let done = parking_lot::Mutex::new((vec![false; bodies], bodies));
    let (cut_tx, cut_rx) = crossbeam_channel::unbounded::<usize>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Ok(first) = cut_rx.recv() {
                // Only the latest cut matters.
                let first = cut_rx.try_iter().fold(first, usize::min);
                src.release_from(first * per_body);
            }
        });
        for t in 0..threads.max(1) {
            let (next, failed, entries, splits, error, done) = (&next, &failed, &entries, &splits, &error, &done);
            let (make_state, count) = (&make_state, &count);
            let cut_tx = cut_tx.clone();
            scope.spawn(move || {
                let mut state = make_state(t);
                loop {
                    let taken = next.fetch_add(1, Relaxed);
                    if taken >= bodies || failed.load(Relaxed) {
                        break;
                    }
                    let body = bodies - 1 - taken;
                    match count(&mut state, body) {
                        Ok(c) => {
                            entries.fetch_add(c.entries, Relaxed);
                            splits.fetch_add(c.splits, Relaxed);
                            let mut done = done.lock();
                            let (flags, first) = &mut *done;
                            flags[body] = true;
                            let was = *first;
                            while *first > 0 && flags[*first - 1] {
                                *first -= 1;
                            }
                            if *first < was {
                                let _ = cut_tx.send(*first);
                            }
                        }
                        Err(e) => {
                            failed.store(true, Relaxed);
                            error.lock().get_or_insert(e);
                        }
                    }
                }
            });
        }
        drop(cut_tx);
    });
    match error.into_inner() {
        Some(e) => Err(e),
        None => Ok(Counted { entries: entries.into_inner(), splits: splits.into_inner() }),
    }
}
