//! The one parallel reduction of the trainers: work split into fixed
//! slots, each computed whole by one thread, then folded in slot order, so
//! the result (float sums included) is the same for any thread count. The
//! network trainer's batch gradient ([`super::grad::batch_gradient`]) and
//! the evaluation tuner's error ([`super::hce`]) both go through it.

/// Runs `work(i, &mut slots[i])` for every slot on up to `threads` scoped
/// threads (slot `i` on thread `i % threads`; on this thread when there is
/// one), then folds the slots into `slots[0]` in order with `add`.
pub fn reduce_slots<T: Send>(
    slots: &mut [T],
    threads: usize,
    work: impl Fn(usize, &mut T) + Sync,
    add: impl Fn(&mut T, &T),
) {
    let threads = threads.clamp(1, slots.len().max(1));
    let mut shares: Vec<Vec<(usize, &mut T)>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, slot) in slots.iter_mut().enumerate() {
        shares[i % threads].push((i, slot));
    }
    let run = |share: Vec<(usize, &mut T)>| share.into_iter().for_each(|(i, slot)| work(i, slot));
    if threads == 1 {
        shares.into_iter().for_each(run);
    } else {
        std::thread::scope(|scope| {
            for share in shares {
                scope.spawn(|| run(share));
            }
        });
    }
    if let Some((first, rest)) = slots.split_first_mut() {
        rest.iter().for_each(|other| add(first, other));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fold_is_in_slot_order_whatever_the_thread_count() {
        // Float sums whose value depends on the order: the same bits for
        // every thread count.
        let values: Vec<f32> = (0..37).map(|i| 1.0 / (i as f32 + 0.3) * if i % 3 == 0 { 1e7 } else { 1.0 }).collect();
        let sum = |threads| {
            let mut slots = vec![0.0f32; 8];
            let chunk = |i: usize| &values[i * values.len() / 8..(i + 1) * values.len() / 8];
            reduce_slots(&mut slots, threads, |i, s| *s = chunk(i).iter().sum(), |a, b| *a += b);
            slots[0].to_bits()
        };
        let one = sum(1);
        assert!((2..=9).all(|t| sum(t) == one));
    }
}
