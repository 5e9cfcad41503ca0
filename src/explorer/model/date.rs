//! When a game was played, as the explorer files it: its date as the tags
//! give it ([`GameDate`], read by one rule for `explorer build` and `book
//! build`'s date filters), its month ([`Month`], a cell's month, and what
//! `since`/`until` name), and the days `--date-from`/`--date-to` name
//! ([`parse_day`]).

use super::filter::GameTags;
use std::fmt;
use std::str::FromStr;

/// A month: `YYYY-MM`, or unknown (a game without one). Stored as
/// `year × 12 + month` (month 1–12), 0 for unknown, so months order by
/// time and the unknown month comes first. Years after 5460 saturate to
/// the last code (65535).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month(u16);

impl Month {
    /// A game's month when its date has none (`0000-00`).
    pub const UNKNOWN: Month = Month(0);

    /// The month `month` (1–12) of `year`; unknown when the year is 0 or
    /// the month out of range.
    pub fn new(year: u16, month: u8) -> Month {
        if year == 0 || !(1..=12).contains(&month) {
            return Month::UNKNOWN;
        }
        Month(year.saturating_mul(12).saturating_add(u16::from(month)))
    }

    /// The month's code (as a cell stores it).
    pub const fn code(self) -> u16 {
        self.0
    }

    /// The month of a code ([`Month::code`]).
    pub const fn from_code(code: u16) -> Month {
        Month(code)
    }

    pub const fn is_known(self) -> bool {
        self.0 != 0
    }

    /// The year (0 when unknown).
    pub const fn year(self) -> u16 {
        if self.0 == 0 {
            0
        } else {
            (self.0 - 1) / 12
        }
    }

    /// The month of the year, 1–12 (0 when unknown).
    pub const fn month(self) -> u8 {
        if self.0 == 0 {
            0
        } else {
            ((self.0 - 1) % 12) as u8 + 1
        }
    }

    /// The month after this one (the last stays).
    pub const fn next(self) -> Month {
        Month(self.0.saturating_add(1))
    }

    /// A year (`2019`) as its January (`end` false) or its December
    /// (`end` true): the masters' `since` and `until`.
    pub fn of_year(text: &str, end: bool) -> Result<Month, BadMonth> {
        let year = text.parse::<u16>().ok().filter(|y| (1..=9999).contains(y));
        year.map(|y| Month::new(y, if end { 12 } else { 1 })).ok_or_else(|| BadMonth(text.to_string()))
    }
}

impl fmt::Display for Month {
    /// `YYYY-MM` (`0000-00` when unknown).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year(), self.month())
    }
}

/// A month that is not `YYYY-MM` (or `YYYY/MM`) with a year from 1 to 9999.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad month '{0}' (YYYY-MM)")]
pub struct BadMonth(pub String);

impl FromStr for Month {
    type Err = BadMonth;

    /// `YYYY-MM` or `YYYY/MM`: a year from 1 to 9999 and a month from 1 to
    /// 12 (the unknown month is never named).
    fn from_str(s: &str) -> Result<Month, BadMonth> {
        let bad = || BadMonth(s.to_string());
        let (y, m) = s.split_once(['-', '/']).ok_or_else(bad)?;
        let year = y.parse::<u16>().ok().filter(|y| (1..=9999).contains(y)).ok_or_else(bad)?;
        let month = m.parse::<u8>().ok().filter(|m| (1..=12).contains(m)).ok_or_else(bad)?;
        Ok(Month::new(year, month))
    }
}

/// A day as `yyyymmdd`, comparable.
pub type Day = u32;

/// Parses `2023.01.31`, `2023-01-31`, `2023.01` or `2023` (a part may be
/// `??`) as the first (`end = false`) or last (`end = true`) day it can
/// mean; `None` for anything else.
pub fn parse_day(text: &str, end: bool) -> Option<Day> {
    let mut parts = text.trim().split(['.', '-', '/']);
    let year: u32 = parts.next()?.parse().ok()?;
    let field = |p: Option<&str>, lo: u32, hi: u32| -> Option<u32> {
        match p {
            None => Some(if end { hi } else { lo }),
            Some(s) if s.bytes().all(|b| b == b'?') => Some(if end { hi } else { lo }),
            Some(s) => s.parse::<u32>().ok().filter(|v| (lo..=hi).contains(v)),
        }
    };
    let month = field(parts.next(), 1, 12)?;
    let day = field(parts.next(), 1, 31)?;
    if parts.next().is_some() || year > 9999 {
        return None;
    }
    Some(year * 10_000 + month * 100 + day)
}

/// A game's date as its tags give it: year, month and day, each 0 where
/// unknown (a month only with a year, a day only with a month).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GameDate {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

impl GameDate {
    /// The date of a tag's value (`2024.03.09`; `-` and `/` separate as
    /// well): `None` without a year from 1 to 9999; a month outside 1–12
    /// or a day outside 1–31 (`??`, unreadable, missing) is unknown.
    pub fn parse_tag(text: &str) -> Option<GameDate> {
        let mut parts = text.trim().split(['.', '-', '/']);
        let year = parts.next()?.parse::<u16>().ok().filter(|y| (1..=9999).contains(y))?;
        let month = parts.next().and_then(|m| m.parse::<u8>().ok()).filter(|m| (1..=12).contains(m)).unwrap_or(0);
        let day = parts.next().and_then(|d| d.parse::<u8>().ok()).filter(|d| (1..=31).contains(d)).unwrap_or(0);
        Some(GameDate { year, month, day: if month == 0 { 0 } else { day } })
    }

    /// A game's date: the first of `UTCDate` and `Date` that gives a year
    /// (Lichess's dumps write both; its importer takes the UTC date), else
    /// unknown.
    pub fn of_game(game: &impl GameTags) -> GameDate {
        ["UTCDate", "Date"].into_iter().filter_map(|t| game.tag(t)).find_map(GameDate::parse_tag).unwrap_or_default()
    }

    /// The date's month (unknown without one).
    pub fn month(self) -> Month {
        Month::new(self.year, self.month)
    }

    /// The first and last days the date can mean (a year alone: the whole
    /// year); `None` when unknown.
    pub fn days(self) -> Option<(Day, Day)> {
        if self.year == 0 {
            return None;
        }
        let range = |part: u8, hi: u32| if part == 0 { (1, hi) } else { (u32::from(part), u32::from(part)) };
        let ((m0, m1), (d0, d1)) = (range(self.month, 12), range(self.day, 31));
        let year = u32::from(self.year) * 10_000;
        Some((year + m0 * 100 + d0, year + m1 * 100 + d1))
    }

    /// Whether the date is after `day`, comparing the parts it knows (a
    /// year alone is after when the year is; unknown is never after).
    pub fn is_after(self, day: GameDate) -> bool {
        match (self.year, self.month, self.day) {
            (0, _, _) => false,
            (y, 0, _) => y > day.year,
            (y, m, 0) => (y, m) > (day.year, day.month),
            (y, m, d) => (y, m, d) > (day.year, day.month, day.day),
        }
    }
}

impl fmt::Display for GameDate {
    /// As a PGN `Date` tag: `2024.03.09`, unknown parts `??` (`????.??.??`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.year {
            0 => f.write_str("????")?,
            y => write!(f, "{y:04}")?,
        }
        for part in [self.month, self.day] {
            match part {
                0 => f.write_str(".??")?,
                p => write!(f, ".{p:02}")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_round_trip_through_text_and_serde_and_order_by_time() {
        for (year, month) in [(1, 1), (2013, 12), (2024, 3), (5460, 12)] {
            let m = Month::new(year, month);
            assert_eq!((m.year(), m.month()), (year, month));
            let text = m.to_string();
            assert_eq!(text.parse::<Month>(), Ok(m), "{text}");
            assert_eq!(Month::from_code(m.code()), m);
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<Month>(&json).unwrap(), m);
        }
        assert_eq!("2019/07".parse::<Month>(), Ok(Month::new(2019, 7)));
        assert!(Month::UNKNOWN < Month::new(1, 1) && Month::new(2019, 12) < Month::new(2020, 1));
        assert_eq!(Month::new(2019, 12).next(), Month::new(2020, 1));
        assert_eq!(
            (Month::UNKNOWN.to_string(), Month::new(0, 5), Month::new(2020, 13)),
            ("0000-00".into(), Month::UNKNOWN, Month::UNKNOWN)
        );
        assert_eq!(
            (Month::of_year("2019", false), Month::of_year("2019", true)),
            (Ok(Month::new(2019, 1)), Ok(Month::new(2019, 12)))
        );
    }

    #[test]
    fn bad_months_are_refused_with_their_text() {
        for bad in ["2019", "2019-13", "2019-00", "0000-01", "10000-01", "2019-01-05", "2019-", " 2019-01", "0000-00"] {
            assert_eq!(bad.parse::<Month>(), Err(BadMonth(bad.to_string())), "{bad}");
        }
        assert_eq!(Month::of_year("2019-01", false), Err(BadMonth("2019-01".into())));
        assert!(serde_json::from_str::<Month>("\"2019-13\"").is_err());
    }

    #[test]
    fn a_tag_date_keeps_what_it_knows() {
        let d = |y, m, day| Some(GameDate { year: y, month: m, day });
        assert_eq!(GameDate::parse_tag("2024.03.09"), d(2024, 3, 9));
        assert_eq!(GameDate::parse_tag("2024.??.09"), d(2024, 0, 0));
        assert_eq!(GameDate::parse_tag("2020.13.01"), d(2020, 0, 0));
        assert_eq!(GameDate::parse_tag("2024-03"), d(2024, 3, 0));
        assert_eq!(GameDate::parse_tag("????.03.09"), None);
        assert_eq!(GameDate { year: 2024, month: 3, day: 0 }.to_string(), "2024.03.??");
        assert_eq!(GameDate::default().to_string(), "????.??.??");
        let tomorrow = GameDate { year: 2024, month: 3, day: 9 };
        assert!(d(2024, 3, 10).unwrap().is_after(tomorrow) && !d(2024, 3, 0).unwrap().is_after(tomorrow));
        assert!(d(2025, 0, 0).unwrap().is_after(tomorrow) && !GameDate::default().is_after(tomorrow));
        assert_eq!(d(2023, 0, 0).unwrap().days(), Some((20230101, 20231231)));
        assert_eq!(d(2023, 6, 0).unwrap().days(), Some((20230601, 20230631)));
        assert_eq!(d(2023, 6, 5).unwrap().days(), Some((20230605, 20230605)));
        assert_eq!(GameDate::default().days(), None);
    }
}
