//! Time management: how long to think for one move.
//!
//! From the UCI limits we derive an *optimum* time (checked between
//! iterations, scaled by how stable the best move is) and a *maximum* time
//! (checked inside the search). Both leave `Move Overhead` for the GUI and
//! the pipe. With `movestogo` the remaining time is spread over the moves to
//! the control; in sudden death over an assumed horizon of moves, shrinking
//! as the clock runs down.

use std::time::Duration;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub time: Duration,
    pub inc: Duration,
    pub movestogo: Option<u32>,
}

/// Optimum and maximum thinking time in milliseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub optimum_ms: u64,
    pub maximum_ms: u64,
}

pub fn budget(clock: &Clock, overhead_ms: u64) -> Budget {
    let time = clock.time.as_millis() as u64;
    let inc = clock.inc.as_millis() as u64;
    // Never plan to use the last `overhead` milliseconds, nor more than what
    // is left after a small safety margin for very short clocks.
    let avail = time.saturating_sub(overhead_ms).max(1);
    let horizon = match clock.movestogo {
        Some(m) => m.clamp(1, 60) as u64,
        None => super::params::MOVES_HORIZON,
    };
    let mut optimum = avail / horizon + inc * 3 / 4;
    let mut maximum = if horizon == 1 { avail * 4 / 5 } else { (optimum * 5).min(avail * 2 / 5) };
    if clock.movestogo.is_some() && horizon > 1 {
        maximum = maximum.min(avail / 2);
    }
    // Don't let the increment push us to the edge of the clock.
    optimum = optimum.min(avail * 3 / 10).max(1);
    maximum = maximum.min(avail * 4 / 5).max(optimum);
    Budget { optimum_ms: optimum, maximum_ms: maximum }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn budget_stays_inside_the_clock() {
        for time in [1u64, 5, 20, 50, 100, 500, 1000, 10_000, 600_000] {
            for inc in [0u64, 10, 100, 1000] {
                for mtg in [None, Some(1), Some(5), Some(40)] {
                    let b = budget(&Clock { time: ms(time), inc: ms(inc), movestogo: mtg }, 10);
                    assert!(b.optimum_ms <= b.maximum_ms);
                    assert!(b.maximum_ms <= time.saturating_sub(10).max(1), "{time} {inc} {mtg:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn one_second_plus_ten_ms_uses_a_few_dozen_ms() {
        let b = budget(&Clock { time: ms(1000), inc: ms(10), movestogo: None }, 10);
        assert!((20..=80).contains(&b.optimum_ms), "{b:?}");
        assert!(b.maximum_ms <= 400);
    }
}
