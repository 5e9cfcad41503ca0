//! The search's clock: a monotonic instant that works where `std`'s does
//! not. On wasm32-unknown-unknown `std::time::Instant::now` panics, so
//! there the time comes from the host: the module imports `now` (from the
//! import module `archivist`, milliseconds as `f64`, JavaScript's
//! `performance.now()`; see `web/js/archivist.js`). Everywhere else this is
//! `std::time::Instant`.

use std::time::Duration;

/// A point in time, comparable only with instants of the same process.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Instant(Inner);

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
type Inner = std::time::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
type Inner = f64;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod host {
    #[link(wasm_import_module = "archivist")]
    extern "C" {
        /// Milliseconds since an arbitrary origin, never decreasing.
        pub fn now() -> f64;
    }
}

impl Instant {
    pub fn now() -> Instant {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return Instant(std::time::Instant::now());
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        // SAFETY: `now` is a plain import that takes nothing and returns a
        // number; the host module (web/archivist.js) always provides it.
        return Instant(unsafe { host::now() });
    }

    /// The time since `earlier` (zero if `earlier` is later).
    pub fn duration_since(&self, earlier: Instant) -> Duration {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return self.0.saturating_duration_since(earlier.0);
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        return Duration::from_secs_f64(((self.0 - earlier.0) / 1000.0).max(0.0));
    }

    pub fn elapsed(&self) -> Duration {
        Instant::now().duration_since(*self)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn elapsed_time_never_runs_backwards() {
        let a = super::Instant::now();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = super::Instant::now();
        assert!(b.duration_since(a) >= std::time::Duration::from_millis(2));
        assert_eq!(a.duration_since(b), std::time::Duration::ZERO);
        assert!(a.elapsed() >= b.duration_since(a));
    }
}
