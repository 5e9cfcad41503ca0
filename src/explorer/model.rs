//! A game's facts as the opening explorer counts them, by Lichess's rules
//! (lila-openingexplorer's `model`), and the filters over them that `book
//! build` and `explorer build` share ([`filter`]): the speed of a time
//! control ([`Speed`]), the rating group of a mean rating
//! ([`RatingGroup`], [`mean_rating`]), the month ([`Month`], of the
//! date its tags give, [`GameDate`]), the result
//! ([`Outcome`]), the mode ([`Mode`]) and the order of game ids
//! ([`id_value`]).

mod date;
pub mod filter;
mod rating;

pub use date::{parse_day, BadMonth, Day, GameDate, Month};
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

serde_as_text!(Month);

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

    pub fn parse(name: &str) -> Option<Speed> {
        Speed::ALL.into_iter().find(|s| s.name().eq_ignore_ascii_case(name.trim()))
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
        Speed::parse(s).ok_or_else(|| UnknownSpeed(s.to_string()))
    }
}

impl serde::Serialize for Speed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
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

impl serde::Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A game id's place in Lichess's order of ids: its 8 characters as a
/// base-62 number (`0`–`9`, `A`–`Z`, `a`–`z`), the first character the
/// least significant digit.
pub fn id_value(id: &[u8; 8]) -> u64 {
    id.iter().rev().fold(0u64, |n, &c| {
        let digit = match c {
            b'0'..=b'9' => c - b'0',
            b'A'..=b'Z' => c - b'A' + 10,
            b'a'..=b'z' => c - b'a' + 36,
            _ => 0,
        };
        n * 62 + u64::from(digit)
    })
}

/// A game's result.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Outcome {
    #[default]
    White = 0,
    Black = 1,
    Draw = 2,
}

impl Outcome {
    pub fn from_token(token: &str) -> Option<Outcome> {
        match token {
            "1-0" => Some(Outcome::White),
            "0-1" => Some(Outcome::Black),
            "1/2-1/2" => Some(Outcome::Draw),
            _ => None,
        }
    }
    pub const fn token(self) -> &'static str {
        match self {
            Outcome::White => "1-0",
            Outcome::Black => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
    pub(crate) fn from_u8(v: u8) -> Option<Outcome> {
        [Outcome::White, Outcome::Black, Outcome::Draw].get(usize::from(v)).copied()
    }
}
