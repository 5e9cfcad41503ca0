//! Opening books: the engine's own (YACB) and every other program's, in
//! three rooms, each importing only the ones before it:
//!
//! * [`format`](mod@format): one module per format on disk, each with its reader,
//!   writer, validating parser and error enum (Polyglot, YACB, ABK, SBOB and
//!   its JSON form, SBOB's predecessor `openingBook.json` (read only),
//!   SugaR's `.exp`, YACB's learn file), and the Elo scale of
//!   analysis that YACB entries carry. Imports the board and the codec, no
//!   other room.
//! * [`play`]: a book as the engine and the service see it: opening any
//!   format told by content ([`play::open()`], one [`play::Book`]), the moves
//!   a book offers in a position ([`play::offer`]), the report of a
//!   position ([`play::report`]), the shelf of books `BookFile` names
//!   ([`play::shelf`], which the search's `BookInSearch` probes) and the
//!   choice among book moves in play ([`play::select`]). Imports `format`.
//! * [`tools`]: what makes and changes books: building from PGN databases
//!   ([`tools::build`], with `polyglot make-book`'s rules in
//!   [`tools::make_book`]), conversions, merges, exports, and the walk over a
//!   book's positions. Imports `format` and `play`.
//!
//! Every writer goes through [`format::write_atomic`] (or
//! [`crate::atomic_file`]): a temporary file in the target's directory,
//! synced, then renamed over the target, so a crash or a full disk never
//! leaves a half-written book in its place.

pub mod format;
pub mod play;
pub mod tools;
