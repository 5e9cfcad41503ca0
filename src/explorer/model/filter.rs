//! Which games a book is built from, told by their tags: the same filters
//! for Polyglot and YACB output.
//!
//! | filter | tag(s) | a game passes when |
//! |---|---|---|
//! | `min_elo` | `WhiteElo`, `BlackElo` | both ratings are known and ≥ N (with `min_elo_mover`: every game passes, and only the moves of a player rated ≥ N count) |
//! | `time_controls` | `TimeControl` | its speed is listed ([`Speed::of_time_control`], the explorer's one rule: `?` or none is correspondence) |
//! | `min_plies` | movetext | it has at least N plies |
//! | `date_from`, `date_to` | `UTCDate`, else `Date` ([`GameDate::of_game`]: the date the explorer files the game under) | every day its date can mean lies in the range (`2023.??.??`, or an unreadable month such as `2023.13.01`, is the whole year) |
//! | `exclude_variants` | `Variant` | it is standard chess (no tag, `Standard`, `chess`, `Normal`, `From Position`), or Chess960 with `chess960` |
//! | `results` | `Result`, else the termination marker ([`PgnResult::of_game`]) | its result is listed |
//! | `player` (+ `color`) | `White`, `Black` | the name (ASCII case ignored) played it (with that colour) |
//!
//! A missing or unreadable tag fails the filter that needs it.

use super::{mean_rating, Day, GameDate, Month, Outcome, PgnResult, RatingGroup, Speed};
use crate::pgn::{Game, GameView};
use crate::types::Color;

/// What the filters read of a game: a whole [`Game`] or a [`GameView`].
pub trait GameTags {
    /// The value of a tag.
    fn tag(&self, name: &str) -> Option<&str>;
    /// The main line's plies.
    fn plies(&self) -> usize;
    /// The movetext's termination marker.
    fn marker(&self) -> Option<&str>;
    fn is_chess960(&self) -> bool;
}

impl GameTags for Game {
    fn tag(&self, name: &str) -> Option<&str> {
        Game::tag(self, name)
    }
    fn plies(&self) -> usize {
        self.moves.len()
    }
    fn marker(&self) -> Option<&str> {
        self.result.as_deref()
    }
    fn is_chess960(&self) -> bool {
        Game::is_chess960(self)
    }
}

impl GameTags for GameView<'_> {
    fn tag(&self, name: &str) -> Option<&str> {
        GameView::tag(self, name)
    }
    fn plies(&self) -> usize {
        self.moves().len()
    }
    fn marker(&self) -> Option<&str> {
        self.result()
    }
    fn is_chess960(&self) -> bool {
        GameView::is_chess960(self)
    }
}

/// A player's rating from `WhiteElo`/`BlackElo` (unknown: missing, `?`, `-`, 0).
pub fn rating(game: &impl GameTags, color: Color) -> Option<u32> {
    let tag = if color == Color::White { "WhiteElo" } else { "BlackElo" };
    game.tag(tag).and_then(|v| v.trim().parse::<u32>().ok()).filter(|&r| r > 0 && r < 10_000)
}

/// Whether the game is standard chess by its `Variant` tag.
pub fn is_standard(game: &impl GameTags) -> bool {
    match game.tag("Variant") {
        None => true,
        Some(v) => matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "" | "standard" | "chess" | "normal" | "from position" | "fromposition"
        ),
    }
}

/// The filters of `book build` (all off by default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filters {
    pub min_elo: Option<u32>,
    /// `min_elo` applies to each move's mover instead of both players.
    pub min_elo_mover: bool,
    pub time_controls: Vec<Speed>,
    pub min_plies: usize,
    pub date_from: Option<Day>,
    pub date_to: Option<Day>,
    pub exclude_variants: bool,
    /// With `exclude_variants`: keep Chess960 games.
    pub chess960: bool,
    /// Results kept; empty: all.
    pub results: Vec<PgnResult>,
    pub player: Option<String>,
    /// With `player`: only games where they had this colour.
    pub color: Option<Color>,
}

/// Why a game was left out (one counter each in the summary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rejection {
    Elo,
    TimeControl,
    Plies,
    Date,
    Variant,
    Result,
    Player,
}

impl Rejection {
    pub const ALL: [Rejection; 7] = [
        Rejection::Elo,
        Rejection::TimeControl,
        Rejection::Plies,
        Rejection::Date,
        Rejection::Variant,
        Rejection::Result,
        Rejection::Player,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Rejection::Elo => "elo",
            Rejection::TimeControl => "time control",
            Rejection::Plies => "plies",
            Rejection::Date => "date",
            Rejection::Variant => "variant",
            Rejection::Result => "result",
            Rejection::Player => "player",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// An admitted game: whose moves count (the mover filter), its strength
/// and its date, as the explorer reads them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Admitted {
    pub white_counts: bool,
    pub black_counts: bool,
    /// The floored mean of the known ratings of its players
    /// ([`mean_rating`], the explorer's; `None`: neither known).
    pub rating: Option<u32>,
    /// Its date ([`GameDate::of_game`], the explorer's).
    pub date: GameDate,
}

impl Admitted {
    /// The game's rating group (that of [`Admitted::rating`]).
    pub fn group(&self) -> RatingGroup {
        RatingGroup::of_mean(self.rating)
    }

    /// The game's month (that of [`Admitted::date`]).
    pub fn month(&self) -> Month {
        self.date.month()
    }
}

impl Filters {
    /// Whether `game` is kept, and how.
    pub fn admit(&self, game: &impl GameTags) -> Result<Admitted, Rejection> {
        let (white, black) = (rating(game, Color::White), rating(game, Color::Black));
        let rating = mean_rating(white, black);
        let mut admitted = Admitted { white_counts: true, black_counts: true, rating, date: GameDate::of_game(game) };
        if let Some(min) = self.min_elo {
            let ok = |r: Option<u32>| r.is_some_and(|r| r >= min);
            if self.min_elo_mover {
                admitted.white_counts = ok(white);
                admitted.black_counts = ok(black);
                if !admitted.white_counts && !admitted.black_counts {
                    return Err(Rejection::Elo);
                }
            } else if !(ok(white) && ok(black)) {
                return Err(Rejection::Elo);
            }
        }
        if !self.time_controls.is_empty()
            && !self.time_controls.contains(&Speed::of_time_control(game.tag("TimeControl")))
        {
            return Err(Rejection::TimeControl);
        }
        if game.plies() < self.min_plies {
            return Err(Rejection::Plies);
        }
        if self.date_from.is_some() || self.date_to.is_some() {
            let Some((lo, hi)) = admitted.date.days() else { return Err(Rejection::Date) };
            if self.date_from.is_some_and(|f| lo < f) || self.date_to.is_some_and(|t| hi > t) {
                return Err(Rejection::Date);
            }
        }
        if self.exclude_variants && !(is_standard(game) || self.chess960 && game.is_chess960()) {
            return Err(Rejection::Variant);
        }
        if !self.results.is_empty() && !PgnResult::of_game(game).is_some_and(|r| self.results.contains(&r)) {
            return Err(Rejection::Result);
        }
        if let Some(name) = &self.player {
            let is = |tag: &str| game.tag(tag).is_some_and(|v| v.trim().eq_ignore_ascii_case(name.trim()));
            let ok = match self.color {
                Some(Color::White) => is("White"),
                Some(Color::Black) => is("Black"),
                None => is("White") || is("Black"),
            };
            if !ok {
                return Err(Rejection::Player);
            }
        }
        Ok(admitted)
    }
}

/// Parses a `--result` value: `1-0` (or `white`), `0-1` (`black`),
/// `1/2-1/2` (`draw`, `½-½`), `*` (`unknown`).
pub fn parse_result(text: &str) -> Option<PgnResult> {
    Some(match text.trim().to_ascii_lowercase().as_str() {
        "white" => PgnResult::Decided(Outcome::White),
        "black" => PgnResult::Decided(Outcome::Black),
        "draw" | "½-½" => PgnResult::Decided(Outcome::Draw),
        "*" | "unknown" => PgnResult::Unfinished,
        token => PgnResult::Decided(token.parse().ok()?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explorer::model::parse_day;
    use crate::pgn;

    fn game(tags: &[(&str, &str)], moves: &str) -> Game {
        let mut text: String = tags.iter().map(|(k, v)| format!("[{k} \"{v}\"]\n")).collect();
        text.push('\n');
        text.push_str(moves);
        text.push('\n');
        pgn::parse(&text).remove(0)
    }

    #[test]
    fn time_control_filter_and_index_speed_are_one_class_for_every_time_control() {
        // (TimeControl, the class both the filter and the index give it)
        let cases = [
            ("15+0", Speed::UltraBullet),
            ("60+0", Speed::Bullet),
            ("120+1", Speed::Bullet),
            ("180+0", Speed::Blitz),
            ("300+3", Speed::Blitz),
            ("600", Speed::Rapid),
            ("900+10", Speed::Rapid),
            ("1800+0", Speed::Classical),
            ("21599+0", Speed::Classical),
            ("21600+0", Speed::Correspondence),
            ("25200+0", Speed::Correspondence), // 7 hours
            ("25200", Speed::Correspondence),
            ("-", Speed::Correspondence),
            ("?", Speed::Correspondence),
            ("abc", Speed::Correspondence),
        ];
        for (tc, speed) in cases {
            assert_eq!(Speed::of_time_control(Some(tc)), speed, "{tc}");
            let g = game(&[("TimeControl", tc), ("Result", "1-0")], "1. e4 1-0");
            for other in Speed::ALL {
                let f = Filters { time_controls: vec![other], ..Filters::default() };
                assert_eq!(f.admit(&g).is_ok(), other == speed, "{tc} under --time-control {other}");
            }
        }
        let g = game(&[("Result", "1-0")], "1. e4 1-0");
        let f = Filters { time_controls: vec![Speed::Correspondence], ..Filters::default() };
        assert!(f.admit(&g).is_ok(), "no TimeControl tag: correspondence");
        // `--time-control X` (lower case) and `speeds=X` name the same class.
        for speed in Speed::ALL {
            assert_eq!(speed.name().parse::<Speed>(), Ok(speed));
            assert_eq!(speed.name().to_ascii_lowercase().parse::<Speed>(), Ok(speed));
        }
    }

    #[test]
    fn dates_with_unknown_parts_cover_their_whole_range() {
        assert_eq!(parse_day("2023.02.15", false), Some(20230215));
        assert_eq!(parse_day("2023.??.??", false), Some(20230101));
        assert_eq!(parse_day("2023.??.??", true), Some(20231231));
        assert_eq!(parse_day("2023-06", true), Some(20230631));
        assert_eq!(parse_day("2023.13.01", false), None);
        assert_eq!(parse_day("????.??.??", false), None);
        let f = Filters { date_from: parse_day("2023.01.01", false), ..Filters::default() };
        assert!(f.admit(&game(&[("Date", "2023.05.01")], "1. e4 *")).is_ok());
        assert_eq!(f.admit(&game(&[("Date", "2022.12.31")], "1. e4 *")), Err(Rejection::Date));
        assert_eq!(f.admit(&game(&[("Date", "????.??.??")], "1. e4 *")), Err(Rejection::Date));
        assert!(f.admit(&game(&[("Date", "????.??.??"), ("UTCDate", "2024.01.01")], "1. e4 *")).is_ok());
        let to = Filters { date_to: parse_day("2023.06", true), ..Filters::default() };
        assert_eq!(to.admit(&game(&[("Date", "2023.??.??")], "1. e4 *")), Err(Rejection::Date));
    }

    #[test]
    fn the_date_filter_reads_the_date_the_explorer_files_the_game_under() {
        let in_may = Filters {
            date_from: parse_day("2023.05", false),
            date_to: parse_day("2023.05", true),
            ..Filters::default()
        };
        // Date is local, UTCDate the day Lichess (and the explorer) files.
        let g = game(&[("Date", "2023.04.30"), ("UTCDate", "2023.05.01")], "1. e4 *");
        let admitted = in_may.admit(&g).expect("played on 1 May, UTC");
        assert_eq!((admitted.month(), admitted.date.day), (Month::new(2023, 5), 1));
        // An unreadable month is unknown: the game may be of any day of 2023.
        let g = game(&[("Date", "2023.13.01")], "1. e4 *");
        assert_eq!(in_may.admit(&g), Err(Rejection::Date));
        let in_2023 =
            Filters { date_from: parse_day("2023", false), date_to: parse_day("2023", true), ..Filters::default() };
        assert_eq!(in_2023.admit(&g).map(|a| a.month()), Ok(Month::UNKNOWN));
    }

    #[test]
    fn min_elo_needs_both_ratings_or_picks_the_movers() {
        let g = game(&[("WhiteElo", "2400"), ("BlackElo", "1800")], "1. e4 e5 *");
        let both = Filters { min_elo: Some(2000), ..Filters::default() };
        assert_eq!(both.admit(&g), Err(Rejection::Elo));
        let mover = Filters { min_elo_mover: true, ..both.clone() };
        let a = mover.admit(&g).expect("white qualifies");
        assert!(a.white_counts && !a.black_counts);
        assert_eq!(a.rating, Some(2100));
        let unrated = game(&[("WhiteElo", "?")], "1. e4 *");
        assert_eq!(both.admit(&unrated), Err(Rejection::Elo));
    }

    #[test]
    fn book_build_takes_the_explorers_floored_mean_rating() {
        let g = game(&[("WhiteElo", "1999"), ("BlackElo", "2000")], "1. e4 *");
        let admitted = Filters::default().admit(&g).expect("no filter");
        assert_eq!(admitted.rating, Some(1999), "floored, not rounded up");
        let stored =
            crate::explorer::index::GameRecord { white_rating: 1999, black_rating: 2000, ..Default::default() };
        assert_eq!(admitted.rating, stored.mean_rating());
        let one = game(&[("WhiteElo", "?"), ("BlackElo", "2001")], "1. e4 *");
        assert_eq!(Filters::default().admit(&one).map(|a| a.rating), Ok(Some(2001)));
    }

    #[test]
    fn variants_results_players_and_plies() {
        let ex = Filters { exclude_variants: true, ..Filters::default() };
        assert!(ex.admit(&game(&[("Variant", "Standard")], "1. e4 *")).is_ok());
        assert_eq!(ex.admit(&game(&[("Variant", "Crazyhouse")], "1. e4 *")), Err(Rejection::Variant));
        assert_eq!(ex.admit(&game(&[("Variant", "Chess960")], "1. e4 *")), Err(Rejection::Variant));
        let c960 = Filters { chess960: true, ..ex };
        assert!(c960.admit(&game(&[("Variant", "Chess960")], "1. e4 *")).is_ok());
        let res = Filters { results: vec![PgnResult::Decided(Outcome::White)], ..Filters::default() };
        assert!(res.admit(&game(&[("Result", "1-0")], "1. e4 1-0")).is_ok());
        assert_eq!(res.admit(&game(&[], "1. e4 0-1")), Err(Rejection::Result));
        let p = Filters { player: Some("carlsen, magnus".into()), color: Some(Color::Black), ..Filters::default() };
        assert!(p.admit(&game(&[("White", "X"), ("Black", "Carlsen, Magnus")], "1. e4 *")).is_ok());
        assert_eq!(p.admit(&game(&[("White", "Carlsen, Magnus"), ("Black", "X")], "1. e4 *")), Err(Rejection::Player));
        let plies = Filters { min_plies: 3, ..Filters::default() };
        assert_eq!(plies.admit(&game(&[], "1. e4 e5 *")), Err(Rejection::Plies));
        assert_eq!(parse_result("draw"), Some(PgnResult::Decided(Outcome::Draw)));
        assert_eq!(parse_result("*"), Some(PgnResult::Unfinished));
        let unfinished = Filters { results: vec![PgnResult::Unfinished], ..Filters::default() };
        assert!(unfinished.admit(&game(&[("Result", "*")], "1. e4 *")).is_ok());
        assert_eq!(unfinished.admit(&game(&[("Result", "?")], "1. e4")), Err(Rejection::Result));
    }
}
