//! Archivist: a UCI chess engine whose specialty is everything an engine
//! keeps on disk.
//!
//! Dependencies point one way: a module uses only modules of its own row
//! (to its left, where an arrow says so) or of the rows above it; a test
//! holds it (`layering.rs`).
//!
//! | layer | modules |
//! | --- | --- |
//! | support | `types`; `clock`; `atomic_file` → `codec` → `spill`; `mapped`, `input`, `ordered`, `logging` |
//! | position | `attacks` → `board` → {`perft`, `pgn`, `epd`} |
//! | knowledge | `eval`, `nnue`, `tt`, `tb`, `explorer` → `book` (the opening explorer, below the books it can build), `records` |
//! | search | `search` → {`analysis`, `selfplay`, `bench`}; `train` (no search) |
//! | front | `engine` → `uci` → `cli`; `serve` (the local service) → `cli` (every subcommand); `engine` → `web` (the browser build's calls) |

#![forbid(unsafe_op_in_unsafe_fn)]
#![deny(clippy::undocumented_unsafe_blocks)]
#![warn(clippy::unwrap_used)]
#![warn(clippy::too_many_lines)]
// Module docs are maps of their private parts (book build's stages, the
// evaluation's weight table): `cargo doc --document-private-items` renders
// those links, a public-only build leaves them as text.
#![allow(rustdoc::private_intra_doc_links)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod analysis;
pub mod atomic_file;
pub mod attacks;
pub mod bench;
pub mod board;
pub mod book;
#[cfg(feature = "native")]
pub mod cli;
pub mod clock;
pub mod codec;
pub mod engine;
pub mod epd;
pub mod eval;
pub mod explorer;
pub mod input;
#[cfg(test)]
mod layering;
pub mod logging;
pub mod mapped;
pub mod nnue;
pub mod ordered;
pub mod perft;
pub mod pgn;
pub mod records;
pub mod search;
pub mod selfplay;
#[cfg(feature = "native")]
pub mod serve;
pub mod spill;
pub mod tb;
#[cfg(test)]
pub mod testdata;
pub mod train;
pub mod tt;
pub mod types;
#[cfg(feature = "native")]
pub mod uci;
pub mod web;
