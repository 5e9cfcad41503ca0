//! What makes and changes books. Imports [`super::format`] and
//! [`super::play`].
//!
//! * [`build`]: Polyglot books as `polyglot make-book` builds them (its rules
//!   in [`make_book`]) and YACB books of statistics, from databases of any
//!   size, streamed, filtered, on several threads, in bounded memory. The
//!   whole-file reference builder it is tested against (`stats`) is compiled
//!   for tests only.
//! * [`convert`]: conversions among Polyglot, SBOB, JSON, YACB and ABK;
//!   [`merge`]: YACB merges; [`export`]: a book's lines as an EPD suite or a
//!   PGN tree.

pub mod build;
pub mod convert;
pub mod export;
pub mod make_book;
pub mod merge;
#[cfg(test)]
pub mod stats;
