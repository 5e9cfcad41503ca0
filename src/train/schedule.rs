//! The learning rate over a run: a cosine from `lr` to `lr_end` over the
//! planned positions, then `lr_end`. A checkpoint stores it
//! ([`super::checkpoint`]) so that a resumed run goes on where it stopped.

/// The learning rate as a function of the positions trained: a cosine from
/// `lr` (none trained) to `lr_end` (`planned` trained), then `lr_end`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    pub lr: f32,
    pub lr_end: f32,
    pub planned: u64,
}

impl Schedule {
    pub fn is_valid(&self) -> bool {
        self.planned > 0 && self.lr.is_finite() && self.lr > 0.0 && self.lr_end.is_finite() && self.lr_end >= 0.0
    }

    /// The learning rate of a batch trained after `trained` positions.
    pub fn rate(&self, trained: u64) -> f32 {
        let t = (trained as f64 / self.planned.max(1) as f64).min(1.0);
        let (lr, end) = (f64::from(self.lr), f64::from(self.lr_end));
        (end + 0.5 * (lr - end) * (1.0 + (std::f64::consts::PI * t).cos())) as f32
    }
}
