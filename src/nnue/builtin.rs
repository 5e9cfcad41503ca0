//! The network built into the binary, the default evaluation: the newest
//! network that passed its test against the one shipped before it (the
//! first, `gen0-hw64`, against the hand-written evaluation; `gen4-hw64`,
//! its SPRT against `gen0-hw64`; now the pure `gen6-h256`, its screen at
//! equal nodes against `gen4-hw64` and the binding match; see
//! `nets/README.md`). `UseNetwork false` selects the hand-written
//! evaluation again, and `EvalFile` loads another network.
//!
//! Shipping a network is one change here: the file name in the
//! `built_in!` line below (`built_in!()` builds a binary without one). A
//! test reads the bytes with the file reader, so a damaged or out-of-format
//! file fails the build's tests, not a user's game.

use super::Network;
use std::sync::{Arc, OnceLock};

/// Names the built-in network once, for both its bytes and its name.
macro_rules! built_in {
    ($file:literal) => {
        /// The built-in network's file, in ARNN format.
        const BYTES: Option<&[u8]> = Some(include_bytes!(concat!("../../nets/", $file)));
        /// The file name of the built-in network.
        pub const NAME: &str = $file;
    };
    () => {
        /// No network is built in.
        const BYTES: Option<&[u8]> = None;
        /// Empty: no network is built in.
        pub const NAME: &str = "";
    };
}

built_in!("gen6-h256.nnue");

/// The built-in network's file bytes (for checksums in run logs).
pub fn bytes() -> Option<&'static [u8]> {
    BYTES
}

/// The built-in network, read once; `None` when the binary has none.
pub fn network() -> Option<Arc<Network>> {
    static NET: OnceLock<Option<Arc<Network>>> = OnceLock::new();
    NET.get_or_init(|| BYTES.and_then(|b| Network::from_bytes(b).ok()).map(Arc::new)).clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_network_is_a_valid_file_or_absent() {
        match super::BYTES {
            Some(bytes) => {
                let net = super::Network::from_bytes(bytes).expect("the built-in network must read");
                assert_eq!(super::network().as_deref(), Some(&net));
                assert!(!super::NAME.is_empty());
            }
            None => {
                assert!(super::network().is_none());
                assert!(super::NAME.is_empty());
            }
        }
    }
}
