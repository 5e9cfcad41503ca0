//! A hot entry's moves' counts summed over the months, by speed and
//! rating group ([`Rollup`]). A filter that names no months (no `since`,
//! no `until`) takes a cell by its speed and group alone, so it takes the
//! same counts from these sums as from the cells: at most 60 sums a move
//! rather than one cell a month, speed and group (a position reached over
//! twelve years of games has thousands).

use super::Filter;
use crate::explorer::index::{MoveStats, Stats};
use crate::explorer::model::{RatingGroup, Speed};

/// The sums of one move: speed, group, their counts, and the game when
/// there is only one.
type Sum = (Speed, RatingGroup, Stats, Option<u32>);

/// The sums of each move of an entry, in the entry's order of moves.
pub(super) struct Rollup {
    moves: Vec<Vec<Sum>>,
}

impl Rollup {
    pub fn of(moves: &[MoveStats]) -> Rollup {
        let moves = moves
            .iter()
            .map(|m| {
                let mut cells: Vec<Sum> =
                    m.cells.iter().map(|c| (c.cell.speed(), c.cell.group(), c.stats, c.game)).collect();
                cells.sort_by_key(|c| (c.0, c.1));
                cells
                    .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
                    .map(|same| {
                        let mut stats = Stats::default();
                        same.iter().for_each(|c| stats.add(&c.2));
                        // A cell of one game names it.
                        let game = if stats.games() == 1 { same.iter().find_map(|c| c.3) } else { None };
                        (same[0].0, same[0].1, stats, game)
                    })
                    .collect()
            })
            .collect();
        Rollup { moves }
    }

    /// Move `i`'s counts under `filter` (which names no months), and a
    /// game of it, which is its game when the counts are of one game.
    pub fn counts(&self, i: usize, filter: &Filter) -> (Stats, Option<u32>) {
        let (mut stats, mut game) = (Stats::default(), None);
        for &(speed, group, s, g) in self.moves.get(i).map_or(&[][..], Vec::as_slice) {
            if filter.admits_class(speed, group) {
                stats.add(&s);
                game = g.or(game);
            }
        }
        (stats, game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::SplitMix64;
    use crate::explorer::index::{Cell, MoveCell};
    use crate::explorer::model::{Month, Outcome};
    use crate::types::Move;

    #[test]
    fn sums_give_every_monthless_filter_the_counts_of_the_cells() {
        let mut rng = SplitMix64::new(76);
        for case in 0..300 {
            let moves: Vec<MoveStats> = (0..1 + rng.below(4))
                .map(|m| {
                    let mut cells = Vec::new();
                    for _ in 0..rng.below(200) {
                        let month = if rng.below(10) == 0 {
                            Month::UNKNOWN
                        } else {
                            Month::new(2013 + rng.below(12) as u16, 1 + rng.below(12) as u8)
                        };
                        let speed = Speed::ALL[rng.below(6) as usize];
                        let group = RatingGroup::ALL[rng.below(RatingGroup::ALL.len() as u64) as usize];
                        let cell = Cell::new(month, speed, group);
                        if cells.iter().any(|c: &MoveCell| c.cell == cell) {
                            continue;
                        }
                        // Many cells of one game, so that a filter's counts are often one game.
                        let n = if rng.below(3) == 0 { 1 + rng.below(5) } else { 1 };
                        let mut stats = Stats::default();
                        for _ in 0..n {
                            let outcome = [Outcome::White, Outcome::Draw, Outcome::Black][rng.below(3) as usize];
                            stats.add(&Stats::of_game(outcome, rng.below(3000) as u16));
                        }
                        let game = (n == 1).then(|| rng.below(1 << 20) as u32);
                        cells.push(MoveCell { cell, stats, game });
                    }
                    cells.sort_by_key(|c| c.cell);
                    MoveStats { mv: Move::from_raw(m as u16 + 1), cells }
                })
                .collect();
            let rollup = Rollup::of(&moves);
            for _ in 0..20 {
                let pick = |rng: &mut SplitMix64, n: usize| (0..n).filter(|_| rng.below(2) == 0).collect::<Vec<_>>();
                let filter = Filter {
                    speeds: (rng.below(3) > 0).then(|| pick(&mut rng, 6).into_iter().map(|i| Speed::ALL[i]).collect()),
                    groups: (rng.below(3) > 0).then(|| {
                        RatingGroup::named(
                            pick(&mut rng, RatingGroup::ALL.len()).into_iter().map(|i| RatingGroup::ALL[i]),
                        )
                    }),
                    since: None,
                    until: None,
                };
                for (i, m) in moves.iter().enumerate() {
                    let mut want = Stats::default();
                    let admitted: Vec<&MoveCell> = m.cells.iter().filter(|c| filter.admits(c.cell)).collect();
                    admitted.iter().for_each(|c| want.add(&c.stats));
                    let (got, game) = rollup.counts(i, &filter);
                    assert_eq!(got, want, "case {case}, move {i}, {filter:?}");
                    if want.games() == 1 {
                        assert_eq!(game, admitted.iter().find_map(|c| c.game), "case {case}, move {i}");
                        assert!(game.is_some());
                    }
                }
            }
        }
    }
}
