//! Progress of a self-play run: a bar on a terminal (`indicatif`), plain
//! periodic lines otherwise, and the final summary line. Everything goes to
//! stderr except the summary, which the caller prints where it likes.

use super::Snapshot;
use std::io::Write;
use std::time::{Duration, Instant};

/// Receives snapshots after every game and about once a second.
pub trait Progress {
    fn update(&mut self, s: &Snapshot);
    fn finish(&mut self, s: &Snapshot);
}

/// No output (tests, library use).
pub struct Silent;

impl Progress for Silent {
    fn update(&mut self, _: &Snapshot) {}
    fn finish(&mut self, _: &Snapshot) {}
}

/// The progress figures of a snapshot: games, positions, rate, W/D/L, ETA.
pub fn figures(s: &Snapshot) -> String {
    let secs = s.elapsed.as_secs_f64().max(1e-9);
    let rate = s.positions as f64 / secs;
    let eta = if s.games_done > 0 && s.games_target > s.games_done {
        let per_game = secs / s.games_done as f64;
        format_duration(Duration::from_secs_f64(per_game * (s.games_target - s.games_done) as f64))
    } else {
        "-".to_string()
    };
    format!(
        "games {}/{}  positions {}  {:.0} pos/s  W/D/L {}/{}/{}  ETA {eta}",
        s.games_done, s.games_target, s.positions, rate, s.results[0], s.results[1], s.results[2]
    )
}

fn format_duration(d: Duration) -> String {
    let t = d.as_secs();
    format!("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
}

/// Plain lines on stderr every `interval`, for logs and pipes.
pub struct Lines {
    interval: Duration,
    last: Instant,
}

impl Lines {
    pub fn new(interval: Duration) -> Lines {
        Lines { interval, last: Instant::now() }
    }
}

impl Progress for Lines {
    fn update(&mut self, s: &Snapshot) {
        if self.last.elapsed() >= self.interval {
            self.last = Instant::now();
            let _ = writeln!(std::io::stderr(), "selfplay: {}", figures(s));
        }
    }

    fn finish(&mut self, _: &Snapshot) {}
}

/// A progress bar for terminals.
#[cfg(feature = "native")]
pub struct Bar {
    bar: indicatif::ProgressBar,
}

#[cfg(feature = "native")]
impl Bar {
    pub fn new(games: u64) -> Bar {
        let bar = indicatif::ProgressBar::new(games);
        let style = indicatif::ProgressStyle::with_template("{bar:30.cyan/blue} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        Bar { bar }
    }
}

#[cfg(feature = "native")]
impl Progress for Bar {
    fn update(&mut self, s: &Snapshot) {
        self.bar.set_length(s.games_target);
        self.bar.set_position(s.games_done);
        self.bar.set_message(figures(s));
    }

    fn finish(&mut self, s: &Snapshot) {
        self.update(s);
        // An interrupted run leaves the bar where it stopped.
        self.bar.abandon();
    }
}
