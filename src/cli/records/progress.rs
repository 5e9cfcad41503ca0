//! A byte-count progress bar on stderr (drawn only when stderr is a
//! terminal) and the timing figures of the summary lines.

use std::time::Instant;

pub struct Bar {
    bar: indicatif::ProgressBar,
    pub started: Instant,
}

impl Bar {
    /// A bar over `total` bytes (a spinner when the total is unknown).
    pub fn new(total: Option<u64>, label: &str) -> Bar {
        let bar = match total {
            Some(t) => indicatif::ProgressBar::new(t),
            None => indicatif::ProgressBar::new_spinner(),
        };
        let template = format!("{label} {{bar:30.cyan/blue}} {{bytes}}/{{total_bytes}} {{bytes_per_sec}} {{msg}}");
        let style = indicatif::ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        bar.set_style(style);
        Bar { bar, started: Instant::now() }
    }

    pub fn set(&self, bytes: u64) {
        self.bar.set_position(bytes);
    }

    pub fn message(&self, msg: String) {
        self.bar.set_message(msg);
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    pub fn seconds(&self) -> f64 {
        self.started.elapsed().as_secs_f64().max(1e-9)
    }
}

/// `N MB in S s (R MB/s, P positions/s)`.
pub fn rates(bytes: u64, positions: u64, seconds: f64) -> String {
    let mb = bytes as f64 / 1e6;
    format!("{mb:.1} MB in {seconds:.2} s ({:.1} MB/s, {:.0} positions/s)", mb / seconds, positions as f64 / seconds)
}
