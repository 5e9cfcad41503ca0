//! From counted position groups to book entries: Polyglot as `polyglot
//! make-book` (see [`crate::book::tools::make_book`]) and YACB as
//! `book::tools::stats` (the test oracle), with the `elo` field taken from the games'
//! ratings ([`rating_to_elo`]); and the body files that hold them, a range
//! of buckets each ([`count_body`]), put one after another into the book.

use super::count::{count_bucket, CountSpec, Group, Scratch, WHITE};
use super::event::Spilled;
use super::pipeline::Counted;
use super::{io_err, BuildError, Target};
use crate::book::format::polyglot::PolyglotEntry;
use crate::book::format::yacb::{BoundType, Elo, Source, ValueType, YacbEntry};
use crate::book::format::UNKNOWN_ELO;
use crate::book::tools::make_book::{book_entry, keeps, MakeBookOptions};
use crate::types::Move;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The rating the YACB baseline (Stockfish, 1 thread, 1M nodes per move =
/// elo 0) is taken to play at on the players' scale. CCRL 40/15 lists
/// Stockfish 14 on one CPU near 3530 and 1M nodes is about its time per
/// move there; 3500 is that, rounded down.
pub const BASELINE_RATING: i32 = 3500;

/// YACB elo of a position from the games through it: the mean of the
/// rated games' strengths (each the mean of its players' known ratings)
/// minus [`BASELINE_RATING`]; [`UNKNOWN_ELO`] when no game was rated.
/// A 2800 field gives −700, a 1500 one −2000, as weak as the engine's
/// "unknown" mark.
pub fn rating_to_elo(rating_sum: u64, rated_games: u32) -> i32 {
    if rated_games == 0 {
        return UNKNOWN_ELO;
    }
    let mean = (rating_sum as f64 / rated_games as f64).round() as i32;
    mean - BASELINE_RATING
}

/// The Polyglot entries of one position, in book order (heaviest first,
/// equal weights in the order first met), into `out` (cleared first; its
/// items pair each entry with when its move was first met, so a whole
/// book's positions are written with no allocation).
pub fn polyglot_entries(group: &Group, options: &MakeBookOptions, out: &mut Vec<(PolyglotEntry, u64)>) {
    out.clear();
    // Most positions of a database are met once: nothing to keep (halving
    // only lowers counts).
    if group.moves.iter().all(|r| r.n < options.min_game) {
        return;
    }
    out.extend(
        group
            .moves
            .iter()
            .filter(|r| keeps(group.key, r.n, r.sum, r.flags & WHITE != 0, options))
            .map(|r| (book_entry(group.key, r.mv, r.sum, options), r.first)),
    );
    // A move is first met once: no two items tie.
    out.sort_unstable_by_key(|(e, first)| (std::cmp::Reverse(e.weight), *first));
}

/// The YACB entry of one position (none below `min_game` visits): perf%
/// for white, the most played move (ties: better score for its mover,
/// then first met), elo from `elo` or the games' ratings.
pub fn yacb_entry(group: &Group, min_game: u32, elo: Option<i32>) -> Option<YacbEntry> {
    let head = group.head?;
    if head.n < min_game.max(1) {
        return None;
    }
    // The most played move, then the best scoring, then the first met.
    let best = group
        .moves
        .iter()
        .max_by(|a, b| {
            a.n.cmp(&b.n)
                .then((a.sum as u64 * b.n as u64).cmp(&(b.sum as u64 * a.n as u64)))
                .then(b.first.cmp(&a.first))
        })
        .map_or(Move::NONE, |r| Move::from_raw(r.mv));
    let perf = (head.sum as f64 / (2.0 * head.n as f64) * 40_000.0).round() as i32;
    Some(YacbEntry {
        key: group.key,
        elo: Elo::rated(elo.unwrap_or_else(|| rating_to_elo(head.rating_sum, head.rating_n))),
        value_type: ValueType::Perf,
        bound: BoundType::Exact,
        source: Source::Statistical,
        value: perf.clamp(0, 40_000),
        best_move: best,
    })
}

/// Counts the buckets `buckets` of `src` and writes their entries for
/// `target` to `path`.
pub fn count_body(
    spec: &CountSpec<'_>,
    src: &Spilled,
    target: &Target,
    buckets: std::ops::Range<usize>,
    path: &Path,
    scratch: &mut Scratch,
) -> Result<Counted, BuildError> {
    let file = std::fs::File::create(path).map_err(io_err(path))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
    let mut counted = Counted::default();
    let mut entries = Vec::new();
    let mut emit = |g: &Group| -> Result<(), BuildError> {
        match target {
            Target::Polyglot(book) => {
                polyglot_entries(g, book, &mut entries);
                for (e, _) in &entries {
                    w.write_all(&e.to_bytes()).map_err(io_err(path))?;
                    counted.entries += 1;
                }
            }
            Target::Yacb { min_game, elo, .. } => {
                if let Some(e) = yacb_entry(g, *min_game, *elo) {
                    w.write_all(&e.encode()).map_err(io_err(path))?;
                    counted.entries += 1;
                }
            }
        }
        Ok(())
    };
    let mut splits = 0;
    for b in buckets {
        splits += count_bucket(spec, src, b, scratch, &mut emit)?;
    }
    w.flush().map_err(io_err(path))?;
    counted.splits = splits;
    Ok(counted)
}

/// Writes the book at `out`: `header`, then the bodies one after another.
pub fn concatenate(out: &Path, header: &[u8], bodies: &[PathBuf]) -> Result<(), BuildError> {
    let mut failed = None;
    let written = crate::atomic_file::write_with(out, 1 << 16, |w| {
        w.write_all(header)?;
        for body in bodies {
            match std::fs::File::open(body) {
                Ok(mut f) => {
                    std::io::copy(&mut f, w)?;
                }
                Err(e) => {
                    failed = Some(io_err(body)(e));
                    return Err(std::io::Error::other("body missing"));
                }
            }
        }
        Ok(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    written.map_err(io_err(out))
}

#[cfg(test)]
mod tests {
    use super::super::count::{Rec, WHITE};
    use super::super::event::HEAD;
    use super::*;

    #[test]
    fn ratings_map_onto_the_baseline() {
        assert_eq!(rating_to_elo(0, 0), UNKNOWN_ELO);
        assert_eq!(rating_to_elo(2 * 2800, 2), -700);
        assert_eq!(rating_to_elo(2000 + 2001, 2), -1499);
    }

    #[test]
    fn polyglot_entries_sort_heaviest_first_then_first_met() {
        let m = |mv, sum, first| Rec { key: 9, mv, n: 3, sum, first, flags: WHITE, ..Rec::default() };
        let g = Group { key: 9, head: None, moves: vec![m(1, 2, 30), m(2, 4, 20), m(3, 2, 10)] };
        let mut e = vec![(PolyglotEntry::default(), 0)];
        polyglot_entries(&g, &MakeBookOptions::default(), &mut e);
        assert_eq!(e.iter().map(|(e, _)| e.raw_move).collect::<Vec<_>>(), [2, 3, 1]);
    }

    #[test]
    fn yacb_best_move_is_the_most_played_then_best_scoring_then_first_met() {
        let head = Rec { key: 4, mv: HEAD, n: 9, sum: 9, ..Rec::default() };
        let m = |mv, n, sum, first| Rec { key: 4, mv, n, sum, first, ..Rec::default() };
        let best = |moves: Vec<Rec>| {
            let g = Group { key: 4, head: Some(head), moves };
            yacb_entry(&g, 1, None).unwrap().best_move.raw()
        };
        assert_eq!(best(vec![m(1, 2, 4, 5), m(2, 3, 0, 9)]), 2, "most played");
        assert_eq!(best(vec![m(1, 2, 2, 5), m(2, 2, 4, 9)]), 2, "then best scoring");
        assert_eq!(best(vec![m(1, 2, 2, 9), m(2, 2, 2, 5), m(3, 2, 2, 7)]), 2, "then first met");
    }

    #[test]
    fn yacb_entry_takes_the_games_ratings_unless_overridden() {
        let head = Rec { key: 4, mv: HEAD, n: 4, sum: 6, rating_sum: 4 * 2500, rating_n: 4, ..Rec::default() };
        let g = Group { key: 4, head: Some(head), moves: vec![] };
        let e = yacb_entry(&g, 1, None).unwrap();
        assert_eq!((e.value, e.elo, e.best_move), (30_000, Elo::rated(-1000), Move::NONE));
        assert_eq!(yacb_entry(&g, 1, Some(-5)).unwrap().elo, Elo::rated(-5));
        assert_eq!(yacb_entry(&g, 5, None), None);
    }
}
