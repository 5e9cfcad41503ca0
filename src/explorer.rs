//! The opening explorer: Lichess's explorer (`/lichess`, `/masters`,
//! `/player`) over a user's own PGN databases, in five rooms, each
//! importing only the ones before it:
//!
//! * [`model`]: a game's facts as the explorer counts them (speed, rating
//!   group, month, result) and the filters over a game's tags that `book
//!   build` shares ([`model::filter`]).
//! * [`openings`]: opening names by position.
//! * [`index`]: the index on disk (`.axi`; its `//!` doc is the byte
//!   layout): reader, writer, validating parser and error enum.
//! * [`build`]: `explorer build` and `explorer merge`, from PGN databases of
//!   any size, streamed, on several threads, in bounded memory.
//! * [`query`]: the answers in Lichess's shape, from one index or several
//!   served together (a player's games through a position:
//!   [`query::player`]).
//!
//! A position is told apart as Lichess tells it
//! ([`crate::board::Board::key_legal_ep`]). `book build --from-explorer`
//! (in [`crate::book`]) reads the games of an index; the explorer knows
//! nothing of books.

pub mod build;
pub mod index;
pub mod model;
pub mod openings;
pub mod query;
