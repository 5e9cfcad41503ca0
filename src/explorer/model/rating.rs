//! A game's strength as Lichess's explorer files it: the floored mean of
//! its players' ratings ([`mean_rating`]) and the rating group that mean
//! falls in ([`RatingGroup`]), the one rule for `explorer build`'s cells,
//! the masters' floor, `book build`'s ratings and the `ratings=` filter.

use std::fmt;
use std::str::FromStr;

/// The mean of the known ratings, floored (Lichess's rule); the one known
/// when the other is not; `None` when neither is.
pub fn mean_rating(white: Option<u32>, black: Option<u32>) -> Option<u32> {
    match (white, black) {
        (Some(w), Some(b)) => Some((w + b) / 2),
        (one, other) => one.or(other),
    }
}

/// Lichess's rating groups, each named by its lower bound (0, 1000, 1200,
/// 1400, 1600, 1800, 2000, 2200, 2500, 2800, 3200). A game's group is that
/// of its [`mean_rating`] ([`RatingGroup::of_mean`]); Lichess never files
/// a game under 2800: a mean of 2800 or more is 3200.
///
/// The index stores a group as its place in [`RatingGroup::ALL`] (a
/// nibble of [`crate::explorer::index::Cell`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RatingGroup {
    #[default]
    Group0 = 0,
    Group1000,
    Group1200,
    Group1400,
    Group1600,
    Group1800,
    Group2000,
    Group2200,
    Group2500,
    Group2800,
    Group3200,
}

impl RatingGroup {
    pub const ALL: [RatingGroup; 11] = [
        RatingGroup::Group0,
        RatingGroup::Group1000,
        RatingGroup::Group1200,
        RatingGroup::Group1400,
        RatingGroup::Group1600,
        RatingGroup::Group1800,
        RatingGroup::Group2000,
        RatingGroup::Group2200,
        RatingGroup::Group2500,
        RatingGroup::Group2800,
        RatingGroup::Group3200,
    ];

    /// The group's lower bound (its name).
    pub const fn lower_bound(self) -> u16 {
        match self {
            RatingGroup::Group0 => 0,
            RatingGroup::Group1000 => 1000,
            RatingGroup::Group1200 => 1200,
            RatingGroup::Group1400 => 1400,
            RatingGroup::Group1600 => 1600,
            RatingGroup::Group1800 => 1800,
            RatingGroup::Group2000 => 2000,
            RatingGroup::Group2200 => 2200,
            RatingGroup::Group2500 => 2500,
            RatingGroup::Group2800 => 2800,
            RatingGroup::Group3200 => 3200,
        }
    }

    /// The group a rating falls in (lila's `RatingGroup::select_avg`): the
    /// largest lower bound not above it, and 3200 from 2800 up.
    pub fn of_rating(rating: u32) -> RatingGroup {
        if rating >= 2800 {
            return RatingGroup::Group3200;
        }
        RatingGroup::ALL.into_iter().rev().find(|g| rating >= u32::from(g.lower_bound())).unwrap_or_default()
    }

    /// The group of a game whose [`mean_rating`] is `mean` (0 when no
    /// rating is known).
    pub fn of_mean(mean: Option<u32>) -> RatingGroup {
        mean.map_or(RatingGroup::Group0, RatingGroup::of_rating)
    }

    /// The group's place in [`RatingGroup::ALL`] (as the index stores it).
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// The group at `index` in [`RatingGroup::ALL`].
    pub fn from_index(index: u8) -> Option<RatingGroup> {
        RatingGroup::ALL.get(usize::from(index)).copied()
    }

    /// The groups a `ratings=` list names, increasing, each once.
    pub fn named(groups: impl IntoIterator<Item = RatingGroup>) -> Vec<RatingGroup> {
        let mut named: Vec<RatingGroup> = groups.into_iter().collect();
        named.sort_unstable();
        named.dedup();
        named
    }

    /// Whether a game of this group counts under the `named` groups: when
    /// `min(self, 2500)` is named (so 2500 takes 2500 and 3200, and a value
    /// of 2800 or more, naming 3200, takes nothing).
    pub fn counts_under(self, named: &[RatingGroup]) -> bool {
        named.contains(&self.min(RatingGroup::Group2500))
    }

    /// The lowest group whose games are top games under a rating filter
    /// (`None`: every group): from 3200 down to 2000, the groups that count
    /// without a gap; `None` when 3200 does not count (no top games).
    pub fn top(named: Option<&[RatingGroup]>) -> Option<RatingGroup> {
        let mut top = None;
        for g in RatingGroup::ALL.into_iter().rev().take_while(|&g| g >= RatingGroup::Group2000) {
            if !named.map_or(true, |n| g.counts_under(n)) {
                break;
            }
            top = Some(g);
        }
        top
    }
}

impl fmt::Display for RatingGroup {
    /// The lower bound (`1400`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.lower_bound())
    }
}

/// A rating that is not a whole number from 0 up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad rating '{0}'")]
pub struct BadRating(pub String);

impl FromStr for RatingGroup {
    type Err = BadRating;

    /// A rating, as lila's `ratings=` reads one: the group it falls in
    /// ([`RatingGroup::of_rating`]: `1500` is 1400, `2800` is 3200).
    fn from_str(s: &str) -> Result<RatingGroup, BadRating> {
        s.parse::<u32>().map(RatingGroup::of_rating).map_err(|_| BadRating(s.to_string()))
    }
}

impl serde::Serialize for RatingGroup {
    /// The lower bound, a number.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u16(self.lower_bound())
    }
}

impl<'de> serde::Deserialize<'de> for RatingGroup {
    /// A group's lower bound, exactly (so that 2800 is read back as 2800).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RatingGroup, D::Error> {
        let bound = u16::deserialize(d)?;
        RatingGroup::ALL
            .into_iter()
            .find(|g| g.lower_bound() == bound)
            .ok_or_else(|| serde::de::Error::custom(format!("{bound} is not a rating group's lower bound")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rating_is_in_the_largest_group_not_above_it_and_2800_up_is_3200() {
        let cases = [(0, 0), (999, 0), (1000, 1000), (1199, 1000), (1500, 1400), (2199, 2000), (2499, 2200)];
        let cases = cases.into_iter().chain([(2500, 2500), (2799, 2500), (2800, 3200), (3300, 3200)]);
        for (rating, group) in cases {
            assert_eq!(RatingGroup::of_rating(rating).lower_bound(), group, "{rating}");
            assert_eq!(rating.to_string().parse::<RatingGroup>().map(|g| g.lower_bound()), Ok(group));
        }
        assert_eq!(RatingGroup::of_mean(None), RatingGroup::Group0);
        assert_eq!(mean_rating(Some(1999), Some(2000)), Some(1999), "floored");
        assert_eq!(mean_rating(None, Some(2000)), Some(2000));
        assert_eq!(mean_rating(None, None), None);
    }

    #[test]
    fn rating_groups_round_trip_through_text_serde_and_the_index() {
        for g in RatingGroup::ALL {
            assert_eq!(RatingGroup::from_index(g.index()), Some(g));
            let json = serde_json::to_string(&g).unwrap();
            assert_eq!(json, g.to_string(), "serialised as the number");
            assert_eq!(serde_json::from_str::<RatingGroup>(&json).unwrap(), g);
            // Text names the group a value falls in: every group's bound but
            // 2800's (which falls in 3200, as Lichess files it).
            let parsed: RatingGroup = g.to_string().parse().unwrap();
            assert_eq!(parsed, if g == RatingGroup::Group2800 { RatingGroup::Group3200 } else { g });
        }
        assert_eq!(RatingGroup::from_index(11), None);
        assert!(serde_json::from_str::<RatingGroup>("1500").is_err());
        assert_eq!("15x".parse::<RatingGroup>(), Err(BadRating("15x".into())));
        assert_eq!("-1".parse::<RatingGroup>(), Err(BadRating("-1".into())));
    }

    #[test]
    fn groups_named_count_up_to_2500_and_top_games_need_3200() {
        let named = |values: &[u32]| RatingGroup::named(values.iter().map(|&v| RatingGroup::of_rating(v)));
        let bounds = |gs: &[RatingGroup]| gs.iter().map(|g| g.lower_bound()).collect::<Vec<_>>();
        assert_eq!(bounds(&named(&[1500, 1400, 0, 999])), [0, 1400]);
        let counted = |values: &[u32]| {
            let n = named(values);
            bounds(&RatingGroup::ALL.into_iter().filter(|g| g.counts_under(&n)).collect::<Vec<_>>())
        };
        assert_eq!(counted(&[2500]), [2500, 2800, 3200]);
        assert_eq!(counted(&[2800, 3000]), [0u16; 0]);
        assert_eq!(RatingGroup::top(None), Some(RatingGroup::Group2000));
        assert_eq!(RatingGroup::top(Some(&named(&[2200, 2500]))), Some(RatingGroup::Group2200));
        assert_eq!(RatingGroup::top(Some(&named(&[2000, 2500]))), Some(RatingGroup::Group2500));
        assert_eq!(RatingGroup::top(Some(&named(&[2200]))), None);
    }
}
