//! Archivist: a UCI chess engine whose specialty is everything an engine
//! keeps on disk.
//!
//! Dependencies point one way: {`types`, `codec`} → `attacks` → `board` → {`eval`, `nnue`, `tt`, `tb`}
//! → `search` → {`analysis`, `engine`} → `uci`/`cli`.

#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod analysis;
pub mod atomic_file;
pub mod attacks;
pub mod bench;
pub mod board;
pub mod book;
pub mod cli;
pub mod codec;
pub mod engine;
pub mod epd;
pub mod eval;
pub mod input;
pub mod logging;
pub mod mapped;
pub mod nnue;
pub mod ordered;
pub mod perft;
pub mod pgn;
pub mod records;
pub mod search;
pub mod selfplay;
pub mod tb;
#[cfg(test)]
pub mod testdata;
pub mod train;
pub mod tt;
pub mod types;
pub mod uci;
