//! The parameters of the explorer routes, read by serde ([`ExplorerQuery`]):
//! each value read into its type by a small `deserialize_with` helper
//! ([`param`], comma-separated lists by [`list`]), so that no route reads
//! query text.
//!
//! One struct for the three routes, each taking its own parameters (README's
//! table); what a route does not take is never refused. A bad value does not
//! fail the reading of the query: it is kept as its 400 ([`Param`]) and
//! given when the route takes the parameter, in the route's order (the
//! position's, then the filter's, then the limits'), so a query with two bad
//! values gets the same 400 in whatever order they are written. What does
//! fail the reading is the query's shape (a parameter given twice): axum's
//! 400 ([`ApiError::Query`]).

use crate::explorer::model::{Mode, Month, RatingGroup, Speed};
use crate::serve::ApiError;
use crate::types::Color;
use serde::{Deserialize, Deserializer};

/// The parameters Lichess's explorer reads (all optional here; each route
/// says which it takes).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplorerQuery {
    pub fen: Option<String>,
    /// UCI moves from `fen`, comma-separated.
    #[serde(default, deserialize_with = "play")]
    pub play: Param<Vec<String>>,
    pub variant: Option<String>,
    #[serde(default, deserialize_with = "speeds")]
    pub speeds: Param<Option<Vec<Speed>>>,
    /// Ratings, each naming its group ([`crate::explorer::query::Filter::groups_of`]).
    #[serde(default, deserialize_with = "ratings")]
    pub ratings: Param<Option<Vec<RatingGroup>>>,
    #[serde(default, deserialize_with = "since")]
    pub since: Param<Option<Period>>,
    #[serde(default, deserialize_with = "until")]
    pub until: Param<Option<Period>>,
    #[serde(default, deserialize_with = "moves")]
    pub moves: Param<Option<usize>>,
    #[serde(default, deserialize_with = "top_games")]
    pub top_games: Param<Option<usize>>,
    #[serde(default, deserialize_with = "recent_games")]
    pub recent_games: Param<Option<usize>>,
    pub player: Option<String>,
    #[serde(default, deserialize_with = "color")]
    pub color: Param<Option<Color>>,
    #[serde(default, deserialize_with = "modes")]
    pub modes: Param<Option<Vec<Mode>>>,
    /// `history=`, as Lichess reads it: `true`, `True`, `on`, `1`, `yes`
    /// or `false`, `False`, `off`, `0`, `no`.
    #[serde(default, deserialize_with = "history")]
    pub history: Param<bool>,
}

/// A parameter's value, or the 400 it gets ([`ApiError::BadParam`]: the
/// parameter and the message), given when a route reads it ([`Param::get`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Param<T>(Result<T, (&'static str, String)>);

impl<T: Default> Default for Param<T> {
    /// An absent parameter.
    fn default() -> Param<T> {
        Param(Ok(T::default()))
    }
}

impl<T> Param<T> {
    /// The value, or the parameter's 400.
    pub fn get(&self) -> Result<&T, ApiError> {
        self.0.as_ref().map_err(|(name, reason)| ApiError::bad_param(name, reason.clone()))
    }
}

/// `since`/`until` as written: a year, or a year and a month (`YYYY-MM`,
/// `YYYY/MM`); [`Period::month`] takes what the route takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Period {
    text: String,
    year: u16,
    month: Option<u8>,
}

impl Period {
    fn parse(text: &str) -> Result<Period, String> {
        let bad = || format!("bad month or year '{text}'");
        let mut parts = text.split(['-', '/']);
        let year: u16 = parts.next().and_then(|y| y.parse().ok()).filter(|y| (1..=9999).contains(y)).ok_or_else(bad)?;
        let month = match parts.next() {
            Some(m) => Some(m.parse::<u8>().ok().filter(|m| (1..=12).contains(m)).ok_or_else(bad)?),
            None => None,
        };
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(Period { text: text.to_string(), year, month })
    }

    /// The [`Month`] of a month (`years`: of a year's
    /// first month, or with `end` its last); a year where a month is taken,
    /// or the other way round, is a 400.
    pub fn month(&self, years: bool, end: bool) -> Result<Month, ApiError> {
        let month = match (years, self.month) {
            (true, None) => {
                if end {
                    12
                } else {
                    1
                }
            }
            (false, Some(m)) => m,
            _ => {
                let name = if end { "until" } else { "since" };
                return Err(ApiError::bad_param(name, format!("bad month or year '{}'", self.text)));
            }
        };
        Ok(Month::new(self.year, month))
    }
}

/// A `deserialize_with` helper: parameter `name`'s text read by `read`
/// (to its value, or its message).
fn param<'de, D, T>(
    d: D,
    name: &'static str,
    read: impl FnOnce(&str) -> Result<T, String>,
) -> Result<Param<T>, D::Error>
where
    D: Deserializer<'de>,
{
    let text = String::deserialize(d)?;
    Ok(Param(read(&text).map_err(|reason| (name, reason))))
}

/// The items of parameter `name`'s comma-separated list `value`, as
/// Lichess reads them: an empty value is an empty list; an empty item is
/// refused; each item read by `item`.
fn list<T>(value: &str, name: &str, item: impl Fn(&str) -> Result<T, String>) -> Result<Vec<T>, String> {
    if value.is_empty() {
        return Ok(Vec::new());
    }
    let items: Vec<&str> = value.split(',').collect();
    if items.iter().any(|i| i.is_empty()) {
        return Err(format!("{name}: an empty item in '{value}'"));
    }
    items.into_iter().map(item).collect()
}

/// A count (`moves`, `topGames`, `recentGames`).
fn count(value: &str, name: &str) -> Result<Option<usize>, String> {
    value.parse::<usize>().map(Some).map_err(|_| format!("{name} must be a count"))
}

fn play<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Vec<String>>, D::Error> {
    param(d, "play", |v| list(v, "play", |m| Ok(m.to_string())))
}

fn speeds<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<Vec<Speed>>>, D::Error> {
    let speed = |s: &str| s.parse::<Speed>().map_err(|_| format!("unknown speed '{s}'"));
    param(d, "speeds", |v| list(v, "speeds", speed).map(Some))
}

fn ratings<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<Vec<RatingGroup>>>, D::Error> {
    let rating = |s: &str| s.parse::<RatingGroup>().map_err(|_| format!("bad rating '{s}'"));
    param(d, "ratings", |v| list(v, "ratings", rating).map(Some))
}

fn modes<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<Vec<Mode>>>, D::Error> {
    param(d, "modes", |v| list(v, "modes", |m| m.parse::<Mode>().map_err(|e| e.to_string())).map(Some))
}

fn since<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<Period>>, D::Error> {
    param(d, "since", |v| Period::parse(v).map(Some))
}

fn until<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<Period>>, D::Error> {
    param(d, "until", |v| Period::parse(v).map(Some))
}

fn moves<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<usize>>, D::Error> {
    param(d, "moves", |v| count(v, "moves"))
}

fn top_games<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<usize>>, D::Error> {
    param(d, "topGames", |v| count(v, "topGames"))
}

fn recent_games<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<usize>>, D::Error> {
    param(d, "recentGames", |v| count(v, "recentGames"))
}

fn color<'de, D: Deserializer<'de>>(d: D) -> Result<Param<Option<Color>>, D::Error> {
    param(d, "color", |v| match v {
        "white" => Ok(Some(Color::White)),
        "black" => Ok(Some(Color::Black)),
        _ => Err(COLOR.to_string()),
    })
}

/// What a missing or bad `color` gets.
pub const COLOR: &str = "color must be white or black";

fn history<'de, D: Deserializer<'de>>(d: D) -> Result<Param<bool>, D::Error> {
    param(d, "history", |v| match v {
        "false" | "False" | "off" | "0" | "no" => Ok(false),
        "true" | "True" | "on" | "1" | "yes" => Ok(true),
        _ => Err(format!("history must be true or false, not '{v}'")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::Query;
    use axum::http::Uri;

    fn read(query: &str) -> ExplorerQuery {
        let uri: Uri = format!("/lichess?{query}").parse().unwrap();
        Query::<ExplorerQuery>::try_from_uri(&uri).unwrap().0
    }

    fn refused<T: std::fmt::Debug>(p: &Param<T>) -> String {
        p.get().unwrap_err().to_string()
    }

    #[test]
    fn values_are_read_into_their_types() {
        let q = read("play=e2e4,e7e5&speeds=blitz,Rapid&ratings=2000,2200&moves=3&topGames=0&history=yes&color=black");
        assert_eq!(q.play.get().unwrap(), &["e2e4", "e7e5"]);
        assert_eq!(q.speeds.get().unwrap(), &Some(vec![Speed::Blitz, Speed::Rapid]));
        assert_eq!(q.ratings.get().unwrap(), &Some(vec![RatingGroup::Group2000, RatingGroup::Group2200]));
        assert_eq!((q.moves.get().unwrap(), q.top_games.get().unwrap()), (&Some(3), &Some(0)));
        assert_eq!(q.recent_games.get().unwrap(), &None);
        assert_eq!((q.history.get().unwrap(), q.color.get().unwrap()), (&true, &Some(Color::Black)));
        // Empty lists are lists, absent ones none.
        let q = read("speeds=&play=");
        assert_eq!((q.speeds.get().unwrap(), q.play.get().unwrap()), (&Some(vec![]), &Vec::<String>::new()));
        assert_eq!((q.modes.get().unwrap(), q.history.get().unwrap()), (&None, &false));
    }

    #[test]
    fn bad_values_are_kept_as_their_messages() {
        let q = read("speeds=blitz,,rapid&ratings=abc&moves=-1&topGames=lots&history=maybe&color=green&modes=ranked");
        assert_eq!(refused(&q.speeds), "speeds: an empty item in 'blitz,,rapid'");
        assert_eq!(refused(&q.ratings), "bad rating 'abc'");
        assert_eq!(refused(&q.moves), "moves must be a count");
        assert_eq!(refused(&q.top_games), "topGames must be a count");
        assert_eq!(refused(&q.history), "history must be true or false, not 'maybe'");
        assert_eq!(refused(&q.color), COLOR);
        assert_eq!(refused(&q.modes), "unknown mode 'ranked' (rated, casual)");
        assert_eq!(refused(&read("speeds=warp").speeds), "unknown speed 'warp'");
        // A parameter given twice fails the query, as axum says.
        let uri: Uri = "/lichess?fen=a&fen=b".parse().unwrap();
        let e = ApiError::from(Query::<ExplorerQuery>::try_from_uri(&uri).unwrap_err());
        assert_eq!(e.to_string(), "Failed to deserialize query string: duplicate field `fen`");
    }

    #[test]
    fn periods_are_months_or_years_as_the_route_takes() {
        let month = |v: &str, years: bool, end: bool| -> Result<Month, String> {
            Period::parse(v)?.month(years, end).map_err(|e| e.to_string())
        };
        assert_eq!(month("2020-05", false, false), Ok(Month::new(2020, 5)));
        assert_eq!(month("2020/5", false, true), Ok(Month::new(2020, 5)));
        assert_eq!(month("2019", true, false), Ok(Month::new(2019, 1)));
        assert_eq!(month("2019", true, true), Ok(Month::new(2019, 12)));
        for (v, years) in [
            ("2020", false),
            ("2020-05", true),
            ("2020-13", false),
            ("2020-1x", false),
            ("20x", true),
            ("0", true),
            ("2020-01-01", false),
        ] {
            assert_eq!(month(v, years, false), Err(format!("bad month or year '{v}'")), "{v}");
        }
    }
}
