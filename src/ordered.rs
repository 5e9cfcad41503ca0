//! Ordered parallel batches, the one home of the pattern `book build` and
//! `records import` share: a producer thread hands out jobs, worker
//! threads turn them into results, and the calling thread applies the
//! results in the order the jobs were handed out, so what it writes or
//! counts does not depend on the number of threads.
//!
//! Invariants:
//! * `apply` sees the result of every job handed out before the pass
//!   stopped, in the order handed out, each once.
//! * At most `tokens` jobs are handed out and not yet applied: the
//!   producer waits for a token before each job and gets it back after
//!   its result is applied, which bounds the memory in flight.
//! * `apply` may give back spare values (buffers it is done with); a
//!   worker takes one when it has one to use ([`Spares::take`]).
//! * When `apply` fails, the pass stops: the producer and the workers
//!   end at their next hand-over, and the error is returned.

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use std::collections::BTreeMap;

/// The producer's side: hands out jobs, each after a token.
pub struct Feed<J> {
    jobs: Sender<(u64, J)>,
    tokens: Receiver<()>,
    next: u64,
}

impl<J> Feed<J> {
    /// Waits for a token, then hands out `job`; `false` once the pass
    /// has stopped (the producer should return).
    pub fn send(&mut self, job: J) -> bool {
        if self.tokens.recv().is_err() {
            return false;
        }
        let seq = self.next;
        self.next += 1;
        self.jobs.send((seq, job)).is_ok()
    }
}

/// Spare values given back by `apply`, for the workers.
pub struct Spares<S>(Receiver<S>);

impl<S> Spares<S> {
    /// A spare value, when one is waiting.
    pub fn take(&self) -> Option<S> {
        self.0.try_recv().ok()
    }
}

/// Runs `produce` on a thread of its own, `threads` workers (each made by
/// `worker`, called once on its thread) over the jobs, and `apply` on the
/// calling thread over the results in job order. See the module's doc.
pub fn run<J, O, S, E, W>(
    threads: usize,
    tokens: usize,
    produce: impl FnOnce(&mut Feed<J>) + Send,
    worker: impl Fn() -> W + Sync,
    apply: impl FnMut(O) -> Result<Vec<S>, E>,
) -> Result<(), E>
where
    J: Send,
    O: Send,
    S: Send,
    W: FnMut(J, &Spares<S>) -> O,
{
    let tokens = tokens.max(1);
    let (job_tx, job_rx) = bounded::<(u64, J)>(tokens);
    let (out_tx, out_rx) = bounded::<(u64, O)>(tokens);
    let (token_tx, token_rx) = bounded::<()>(tokens);
    // Never more spares than values alive: no bound needed.
    let (spare_tx, spare_rx) = unbounded::<S>();
    for _ in 0..tokens {
        let _ = token_tx.send(());
    }
    std::thread::scope(|scope| {
        let mut feed = Feed { jobs: job_tx, tokens: token_rx, next: 0 };
        scope.spawn(move || produce(&mut feed));
        for _ in 0..threads.max(1) {
            let (jobs, out, spares) = (job_rx.clone(), out_tx.clone(), Spares(spare_rx.clone()));
            let worker = &worker;
            scope.spawn(move || {
                let mut work = worker();
                for (seq, job) in jobs.iter() {
                    if out.send((seq, work(job, &spares))).is_err() {
                        return;
                    }
                }
            });
        }
        drop((job_rx, out_tx, spare_rx));
        apply_in_order(out_rx, token_tx, &spare_tx, apply)
    })
}

/// Applies results in job order, returning a token for each (and the
/// spares `apply` gives back).
fn apply_in_order<O, S, E>(
    results: Receiver<(u64, O)>,
    tokens: Sender<()>,
    spares: &Sender<S>,
    mut apply: impl FnMut(O) -> Result<Vec<S>, E>,
) -> Result<(), E> {
    let mut waiting = BTreeMap::new();
    let mut next = 0u64;
    for (seq, result) in results.iter() {
        waiting.insert(seq, result);
        while let Some(result) = waiting.remove(&next) {
            for spare in apply(result)? {
                let _ = spares.send(spare);
            }
            next += 1;
            let _ = tokens.send(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_come_in_job_order_whatever_the_threads() {
        for threads in [1, 2, 5] {
            let mut seen = Vec::new();
            let r: Result<(), ()> = run(
                threads,
                3,
                |feed| {
                    for i in 0..200u64 {
                        if !feed.send(i) {
                            return;
                        }
                    }
                },
                || {
                    |i: u64, _: &Spares<()>| {
                        // Later jobs finish sooner.
                        std::thread::sleep(std::time::Duration::from_micros(200 - i));
                        i * 2
                    }
                },
                |o| {
                    seen.push(o);
                    Ok(Vec::new())
                },
            );
            r.unwrap();
            assert_eq!(seen, (0..200).map(|i| i * 2).collect::<Vec<_>>(), "{threads} threads");
        }
    }

    #[test]
    fn no_more_jobs_are_out_than_tokens() {
        let out = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let r: Result<(), ()> = run(
            4,
            3,
            |feed| {
                for i in 0..100 {
                    let now = out.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    if !feed.send(i) {
                        return;
                    }
                }
            },
            || |i: i32, _: &Spares<()>| i,
            |_| {
                out.fetch_sub(1, Ordering::SeqCst);
                Ok(Vec::new())
            },
        );
        r.unwrap();
        // One more is counted while the producer waits for its token.
        assert!(most.load(Ordering::SeqCst) <= 4, "{}", most.load(Ordering::SeqCst));
    }

    #[test]
    fn a_failing_apply_stops_the_pass_and_spares_reach_the_workers() {
        let taken = AtomicUsize::new(0);
        let mut applied = 0;
        let r = run(
            2,
            2,
            |feed| {
                let mut i = 0u64;
                while feed.send(i) {
                    i += 1;
                }
            },
            || {
                |i: u64, spares: &Spares<Vec<u8>>| {
                    if spares.take().is_some() {
                        taken.fetch_add(1, Ordering::SeqCst);
                    }
                    i
                }
            },
            |i| {
                applied += 1;
                if i == 50 {
                    Err("stop")
                } else {
                    Ok(vec![Vec::new()])
                }
            },
        );
        assert_eq!((r, applied), (Err("stop"), 51));
        assert!(taken.load(Ordering::SeqCst) > 0);
    }
}
