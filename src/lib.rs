//! Archivist: a UCI chess engine whose specialty is everything an engine
//! keeps on disk.
//!
//! Dependencies point one way: `types` → `attacks` → `board` → `perft`, `tb`
//! (and later eval, tt, book → search → engine → uci/cli).

#![forbid(unsafe_op_in_unsafe_fn)]
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod attacks;
pub mod board;
pub mod cli;
pub mod perft;
pub mod pgn;
pub mod tb;
pub mod types;
