//! A game's facts as the opening explorer counts them, by Lichess's rules
//! (lila-openingexplorer's `model`), and the filters over them that `book
//! build` and `explorer build` share ([`filter`]): the speed of a time
//! control ([`Speed`]), the rating group of a mean rating
//! ([`RatingGroup`], [`mean_rating`]), the month ([`Month`], of the
//! date its tags give, [`GameDate`]), the result
//! ([`Outcome`], [`PgnResult`]), the mode ([`Mode`]) and the game's id
//! ([`GameId`]).
//!
//! Each is one type with [`std::str::FromStr`], [`std::fmt::Display`] and
//! serde, for `explorer build`, the index, the queries, `serve` and `book
//! build` (its filters and `--from-explorer`) alike: a speed, a mode, a
//! month, an id and a result as their text (`blitz`, `rated`, `2024-03`,
//! `abcdEFGH`, `1-0`), a rating group as its lower bound (a number).

mod date;
pub mod filter;
mod game_id;
mod rating;

use crate::types::Color;
use filter::GameTags;

pub use date::{parse_day, BadMonth, Day, GameDate, Month};
pub use game_id::{BadGameId, GameId};
pub use rating::{mean_rating, BadRating, RatingGroup};

/// Serialises a type as its text ([`std::fmt::Display`]) and reads it back
/// through [`std::str::FromStr`].
macro_rules! serde_as_text {
    ($($t:ty),* $(,)?) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
            }
        }
    )*};
}

serde_as_text!(Speed, Mode, Month, GameId, Outcome);

/// Lichess's speeds, from a `TimeControl` tag ([`Speed::of_time_control`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Speed {
    UltraBullet = 0,
    Bullet = 1,
    Blitz = 2,
    Rapid = 3,
    Classical = 4,
    #[default]
    Correspondence = 5,
}

impl Speed {
    pub const ALL: [Speed; 6] =
        [Speed::UltraBullet, Speed::Bullet, Speed::Blitz, Speed::Rapid, Speed::Classical, Speed::Correspondence];

    /// Lichess's rule: `base + 40 × increment` seconds under 30 is
    /// ultraBullet, under 180 bullet, under 480 blitz, under 1500 rapid,
    /// under 21600 classical; longer, `-` or no readable `TimeControl` is
    /// correspondence.
    pub fn of_time_control(tag: Option<&str>) -> Speed {
        let Some((base, inc)) = tag.and_then(|t| {
            let t = t.trim();
            match t.split_once('+') {
                Some((b, i)) => Some((b.parse::<u64>().ok()?, i.parse::<u64>().ok()?)),
                None => Some((t.parse::<u64>().ok()?, 0)),
            }
        }) else {
            return Speed::Correspondence;
        };
        match base.saturating_add(inc.saturating_mul(40)) {
            0..=29 => Speed::UltraBullet,
            30..=179 => Speed::Bullet,
            180..=479 => Speed::Blitz,
            480..=1499 => Speed::Rapid,
            1500..=21_599 => Speed::Classical,
            _ => Speed::Correspondence,
        }
    }

    /// Lichess's name (`ultraBullet`, `bullet`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Speed::UltraBullet => "ultraBullet",
            Speed::Bullet => "bullet",
            Speed::Blitz => "blitz",
            Speed::Rapid => "rapid",
            Speed::Classical => "classical",
            Speed::Correspondence => "correspondence",
        }
    }

    pub(crate) fn from_u8(v: u8) -> Option<Speed> {
        Speed::ALL.get(usize::from(v)).copied()
    }

    /// The best rating of Lichess's leaderboard at this speed (as of
    /// 2024-07-27; correspondence has none: 4000): top games are those
    /// nearest it ([`crate::explorer::query`]).
    pub const fn highscore(self) -> i32 {
        match self {
            Speed::UltraBullet => 2644,
            Speed::Bullet => 3352,
            Speed::Blitz => 2974,
            Speed::Rapid => 2949,
            Speed::Classical => 2533,
            Speed::Correspondence => 4000,
        }
    }
}

impl std::fmt::Display for Speed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A speed's name is not one of Lichess's six.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown speed '{0}' (ultraBullet, bullet, blitz, rapid, classical, correspondence)")]
pub struct UnknownSpeed(pub String);

impl std::str::FromStr for Speed {
    type Err = UnknownSpeed;

    /// Lichess's names, ASCII case ignored.
    fn from_str(s: &str) -> Result<Speed, UnknownSpeed> {
        Speed::ALL
            .into_iter()
            .find(|v| v.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownSpeed(s.to_string()))
    }
}

/// Rated or casual, as Lichess tells its games apart: a PGN game is casual
/// when its `Event` says so (Lichess writes "Casual Blitz game"), else rated.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    Rated,
    Casual,
}

impl Mode {
    pub fn of_event(event: &str) -> Mode {
        if event.to_ascii_lowercase().contains("casual") {
            Mode::Casual
        } else {
            Mode::Rated
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Mode::Rated => "rated",
            Mode::Casual => "casual",
        }
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A mode's name is neither `rated` nor `casual`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode '{0}' (rated, casual)")]
pub struct UnknownMode(pub String);

impl std::str::FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Mode, UnknownMode> {
        match s {
            "rated" => Ok(Mode::Rated),
            "casual" => Ok(Mode::Casual),
            _ => Err(UnknownMode(s.to_string())),
        }
    }
}

/// A game's result: a win for either side or a draw (a game without one
/// is not counted).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Outcome {
    #[default]
    White = 0,
    Black = 1,
    Draw = 2,
}

impl Outcome {
    /// The PGN token (`1-0`, `0-1`, `1/2-1/2`).
    pub const fn token(self) -> &'static str {
        match self {
            Outcome::White => "1-0",
            Outcome::Black => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }

    /// A game's result ([`PgnResult::of_game`]), when it has one.
    pub fn of_game(game: &impl GameTags) -> Option<Outcome> {
        match PgnResult::of_game(game)? {
            PgnResult::Decided(o) => Some(o),
            PgnResult::Unfinished => None,
        }
    }

    /// The winner (`None`: a draw).
    pub const fn winner(self) -> Option<Color> {
        match self {
            Outcome::White => Some(Color::White),
            Outcome::Black => Some(Color::Black),
            Outcome::Draw => None,
        }
    }

    /// White's points, in half points: 2, 1 or 0.
    pub const fn white_points(self) -> u8 {
        match self {
            Outcome::White => 2,
            Outcome::Draw => 1,
            Outcome::Black => 0,
        }
    }

    pub(crate) fn from_u8(v: u8) -> Option<Outcome> {
        [Outcome::White, Outcome::Black, Outcome::Draw].get(usize::from(v)).copied()
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.token())
    }
}

/// A result that is not `1-0`, `0-1` or `1/2-1/2`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown result '{0}' (1-0, 0-1, 1/2-1/2)")]
pub struct UnknownOutcome(pub String);

impl std::str::FromStr for Outcome {
    type Err = UnknownOutcome;

    /// The PGN token.
    fn from_str(s: &str) -> Result<Outcome, UnknownOutcome> {
        [Outcome::White, Outcome::Black, Outcome::Draw]
            .into_iter()
            .find(|o| o.token() == s)
            .ok_or_else(|| UnknownOutcome(s.to_string()))
    }
}

/// A PGN result token: a decided game's [`Outcome`], or `*` (unfinished).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PgnResult {
    Decided(Outcome),
    Unfinished,
}

impl PgnResult {
    /// A game's result token by [`crate::pgn::outcome`]'s rule (the
    /// `Result` tag, else the termination marker), when it is one of the
    /// four (`None`: none, or another text).
    pub fn of_game(game: &impl GameTags) -> Option<PgnResult> {
        match crate::pgn::outcome(game.tag("Result"), game.marker()).token? {
            "*" => Some(PgnResult::Unfinished),
            token => token.parse().ok().map(PgnResult::Decided),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;
    use std::fmt::Debug;

    /// `value` is `text` as Display writes it and FromStr and serde read it.
    fn round_trip<T>(value: T, text: &str)
    where
        T: std::str::FromStr + std::fmt::Display + serde::Serialize + DeserializeOwned + PartialEq + Debug,
        T::Err: Debug,
    {
        assert_eq!(value.to_string(), text);
        assert_eq!(text.parse::<T>().unwrap(), value);
        let json = serde_json::to_string(&value).unwrap();
        assert_eq!(json, format!("\"{text}\""));
        assert_eq!(serde_json::from_str::<T>(&json).unwrap(), value);
    }

    #[test]
    fn speeds_modes_and_outcomes_round_trip_through_text_and_serde() {
        let speeds = ["ultraBullet", "bullet", "blitz", "rapid", "classical", "correspondence"];
        for (speed, name) in Speed::ALL.into_iter().zip(speeds) {
            round_trip(speed, name);
            assert_eq!(name.to_ascii_uppercase().parse::<Speed>(), Ok(speed), "ASCII case ignored");
        }
        round_trip(Mode::Rated, "rated");
        round_trip(Mode::Casual, "casual");
        for (outcome, token) in [(Outcome::White, "1-0"), (Outcome::Black, "0-1"), (Outcome::Draw, "1/2-1/2")] {
            round_trip(outcome, token);
            assert_eq!(Outcome::from_u8(outcome as u8), Some(outcome));
        }
        round_trip(GameId::from_hash(7), "00000007");
        round_trip(Month::new(2024, 3), "2024-03");
    }

    #[test]
    fn unknown_speeds_modes_and_results_are_refused_with_their_text() {
        assert_eq!("hyperBullet".parse::<Speed>(), Err(UnknownSpeed("hyperBullet".into())));
        assert_eq!("Rated".parse::<Mode>(), Err(UnknownMode("Rated".into())));
        for bad in ["*", "1-1", "draw", "½-½", ""] {
            assert_eq!(bad.parse::<Outcome>(), Err(UnknownOutcome(bad.into())));
        }
        assert!(serde_json::from_str::<Speed>("\"slow\"").is_err());
        assert!(serde_json::from_str::<Outcome>("\"*\"").is_err());
    }

    #[test]
    fn a_games_result_is_its_tag_else_its_marker() {
        let game = |tag: Option<&str>, marker: &str| {
            let tag = tag.map_or(String::new(), |t| format!("[Result \"{t}\"]\n"));
            crate::pgn::parse(&format!("{tag}\n1. e4 {marker}\n")).remove(0)
        };
        assert_eq!(PgnResult::of_game(&game(Some("0-1"), "1-0")), Some(PgnResult::Decided(Outcome::Black)));
        assert_eq!(PgnResult::of_game(&game(Some("*"), "1/2-1/2")), Some(PgnResult::Decided(Outcome::Draw)));
        assert_eq!(PgnResult::of_game(&game(None, "*")), Some(PgnResult::Unfinished));
        assert_eq!(Outcome::of_game(&game(None, "*")), None);
        assert_eq!(Outcome::of_game(&game(Some("?"), "")), None);
        assert_eq!(Outcome::White.winner(), Some(Color::White));
        assert_eq!(Outcome::Draw.white_points(), 1);
    }
}
