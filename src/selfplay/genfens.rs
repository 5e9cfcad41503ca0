//! OpenBench's `genfens`: `genfens N seed S book <None|FILE>` makes N
//! opening positions for data generation, the same for the same arguments,
//! so OpenBench can spread generation over many machines.
//!
//! Each position is the book's (an EPD/PGN file, or a YACB or Polyglot book
//! walked by [`super::open_book`]) or the start position (a random Chess960
//! one when `UCI_Chess960` is on), plus random legal plies (8 without a book,
//! 2 with one), kept only when a short search scores it within ±400 cp, or
//! within the `window CP` of the line (an Archivist extension: SPRT opening
//! suites use `window 150`).

use super::game::{balanced_opening, Player, StopSlot};
use super::openings::{game_rng, FileOpenings, OpeningError, OpeningSource};
use super::{config, Hooks, ScoreRules, SearchLimit, Settings};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Nodes of the balance check of each position.
pub const CHECK_NODES: u64 = 1000;

/// The arguments of a `genfens` command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    pub count: u64,
    pub seed: u64,
    pub book: Option<String>,
    /// The balance window in centipawns (`window CP`; default ±400).
    pub window_cp: i32,
}

impl Request {
    /// Parses `genfens N seed S book <None|FILE> [window CP]` (`seed`, `book`
    /// and `window` are optional; unknown trailing words, such as OpenBench's
    /// extras, are ignored).
    pub fn parse(line: &str) -> Result<Request, String> {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.first() != Some(&"genfens") {
            return Err("not a genfens command".into());
        }
        let count =
            words.get(1).and_then(|w| w.parse::<u64>().ok()).ok_or("usage: genfens N [seed S] [book <None|FILE>]")?;
        let mut req = Request { count, seed: 0, book: None, window_cp: config::DEFAULT_OPENING_CP_LIMIT };
        let mut i = 2;
        while i < words.len() {
            match (words[i], words.get(i + 1)) {
                ("seed", Some(s)) => {
                    req.seed = s
                        .parse::<i64>()
                        .map(|v| v as u64)
                        .or_else(|_| s.parse::<u64>())
                        .map_err(|_| format!("genfens: seed '{s}' is not a number"))?;
                    i += 2;
                }
                ("window", Some(w)) => {
                    req.window_cp = w
                        .parse::<i32>()
                        .ok()
                        .filter(|&w| w > 0)
                        .ok_or_else(|| format!("genfens: window '{w}' is not a positive number of centipawns"))?;
                    i += 2;
                }
                ("book", Some(b)) => {
                    req.book = (!b.eq_ignore_ascii_case("none")).then(|| b.to_string());
                    i += 2;
                }
                _ => i += 1,
            }
        }
        Ok(req)
    }
}

/// Opens an opening file for `genfens`: a book ([`crate::book::play::input_kind`])
/// goes to [`super::open_book`], anything else is read as EPD or PGN.
pub fn open_source(path: &Path, chess960: bool) -> Result<Box<dyn OpeningSource>, OpeningError> {
    let name = || path.display().to_string();
    let kind = crate::book::play::input_kind(path).map_err(|source| OpeningError::Book { path: name(), source })?;
    if matches!(kind, crate::book::play::InputKind::Book(_)) {
        super::open_book(path, chess960, 16)
    } else {
        Ok(Box::new(FileOpenings::load(path, chess960)?))
    }
}

/// The FENs of `req` (exactly `req.count` of them).
pub fn generate(req: &Request, chess960: bool) -> Result<Vec<String>, OpeningError> {
    let openings = req.book.as_ref().map(|b| open_source(Path::new(b), chess960)).transpose()?;
    let has_book = openings.is_some();
    let hooks = Hooks { openings, adjudicator: None, net: None };
    let settings = Settings {
        out: PathBuf::new(),
        append: false,
        games: req.count,
        fill: None,
        limit: SearchLimit::Nodes(CHECK_NODES),
        soft_nodes: None,
        value_only: false,
        threads: 1,
        hash_mb: 4,
        seed: req.seed,
        random_plies: if has_book { 2 } else { 8 },
        chess960,
        max_plies: config::DEFAULT_MAX_PLIES,
        opening_cp_limit: req.window_cp,
        score_rules: ScoreRules::default(),
        progress_interval: Duration::from_secs(10),
        command: None,
    };
    let mut player = Player::new(settings.hash_mb, settings.limits(), Arc::new(StopSlot::default()));
    player.new_game();
    let never = AtomicBool::new(false);
    let mut fens = Vec::with_capacity(req.count.min(1 << 20) as usize);
    let mut index = 0u64;
    while (fens.len() as u64) < req.count {
        // A stream that yields nothing balanced moves on to the next one;
        // give up only when a whole range of streams fails.
        let mut rng = game_rng(req.seed, index);
        index += 1;
        match balanced_opening(&mut player, &settings, &hooks, &mut rng, &never) {
            Some((board, _)) => fens.push(board.fen()),
            None if index > fens.len() as u64 + 16 => {
                return Err(OpeningError::Empty { path: req.book.clone().unwrap_or_else(|| "start position".into()) })
            }
            None => {}
        }
    }
    Ok(fens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_openbench_command() {
        let r = Request::parse("genfens 10 seed 123 book None").unwrap();
        assert_eq!(r, Request { count: 10, seed: 123, book: None, window_cp: 400 });
        let r = Request::parse("genfens 5 seed -7 book books/a.epd extra x").unwrap();
        assert_eq!(r, Request { count: 5, seed: (-7i64) as u64, book: Some("books/a.epd".into()), window_cp: 400 });
        let r = Request::parse("genfens 5 seed 1 book None window 150").unwrap();
        assert_eq!(r.window_cp, 150);
        assert!(Request::parse("genfens 5 window -3").is_err());
        assert!(Request::parse("genfens x").is_err());
        assert!(Request::parse("genfens 3 seed y").is_err());
    }

    #[test]
    fn same_seed_gives_same_valid_positions() {
        let req = Request { count: 6, seed: 99, book: None, window_cp: 400 };
        let a = generate(&req, false).unwrap();
        assert_eq!(a.len(), 6);
        assert_eq!(a, generate(&req, false).unwrap());
        assert_ne!(a, generate(&Request { seed: 100, ..req.clone() }, false).unwrap());
        for fen in &a {
            let b = crate::board::Board::from_fen(fen, false).unwrap();
            assert!(b.has_legal_moves());
        }
        let c960 = generate(&Request { count: 3, ..req }, true).unwrap();
        assert!(c960.iter().all(|f| crate::board::Board::from_fen(f, true).is_ok()));
    }
}
