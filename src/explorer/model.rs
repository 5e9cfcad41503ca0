//! A game's facts as the opening explorer counts them, and the filters
//! over them that `book build` and `explorer build` share
//! ([`filter`]): the speed of a time control, the rating group of a mean
//! rating, the month, the result.

pub mod filter;

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
}

/// The lower bounds of Lichess's rating groups; a game's group is that of
/// the mean of its players' ratings (the one known, when one is), group 0
/// when neither is known.
pub const RATING_GROUPS: [u16; 11] = [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500, 2800, 3200];

/// The group (index into [`RATING_GROUPS`]) of a mean rating.
pub fn rating_group(mean: Option<u32>) -> u8 {
    let Some(mean) = mean else { return 0 };
    RATING_GROUPS.iter().rposition(|&g| mean >= u32::from(g)).unwrap_or(0) as u8
}

/// A month as `year × 12 + month − 1 + 1`, 0 when unknown (`0000-00`).
pub fn month_code(year: u16, month: u8) -> u16 {
    if year == 0 || !(1..=12).contains(&month) {
        return 0;
    }
    year.saturating_mul(12).saturating_add(u16::from(month))
}

/// `(year, month)` of a month code (`(0, 0)` for 0).
pub fn month_of(code: u16) -> (u16, u8) {
    if code == 0 {
        return (0, 0);
    }
    ((code - 1) / 12, ((code - 1) % 12) as u8 + 1)
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
