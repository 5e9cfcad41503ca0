//! The explorer routes over an index of Stockfish's 200 self-play games
//! given Lichess's tags (ratings, clocks and months varied by game): kept
//! answers are the answers computed, queries in one form share one, an
//! index error is never kept, and `--explorer-cache-mb 0` keeps nothing.

use super::*;
use crate::codec::TempDir;
use crate::explorer::build::{build, ExplorerOptions};
use crate::explorer::index::{Explorer, HEADER_LEN};
use crate::explorer::model::{RatingGroup, Speed};
use crate::pgn::pipeline::{Observer, Progress};
use crate::pgn::ReplayError;
use crate::serve::{Limits as ServeLimits, ServeOptions};
use axum::http::{StatusCode, Uri};
use std::path::{Path, PathBuf};

struct Quiet;

impl Observer for Quiet {
    fn skipped(&mut self, _: &ReplayError) {}
    fn damaged(&mut self, _: &str, _: &str) {}
    fn progress(&mut self, _: &Progress) {}
}

/// The Lichess and the masters index of the self-play games with
/// Lichess's tags, in `dir`.
fn index(dir: &TempDir) -> Option<(PathBuf, PathBuf)> {
    let text = std::fs::read_to_string(crate::testdata::path("pgn/stockfish-selfplay-200.pgn")?).unwrap();
    let controls = ["60+0", "180+2", "600+5", "1800+20", "-"];
    let mut pgn = String::new();
    for (i, game) in text.split("[Event ").skip(1).enumerate() {
        let rating = 1000 + (i * 97) % 1900;
        let tags = format!(
            "[WhiteElo \"{}\"]\n[BlackElo \"{}\"]\n[TimeControl \"{}\"]\n[Event ",
            rating,
            rating + 50,
            controls[i % controls.len()]
        );
        let date = format!("[Date \"{}.{:02}.01\"]", 2016 + i % 5, 1 + i % 12);
        pgn.push_str(&tags);
        pgn.push_str(&game.replace("[Date \"????.??.??\"]", &date));
    }
    let input = dir.file("games.pgn");
    std::fs::write(&input, pgn).unwrap();
    let (lichess, masters) = (dir.file("lichess.axi"), dir.file("masters.axi"));
    let summary = build(std::slice::from_ref(&input), &lichess, &ExplorerOptions::default(), &mut Quiet).unwrap();
    assert!(summary.indexed > 150, "{summary:?}");
    let options = ExplorerOptions { masters: true, ..ExplorerOptions::default() };
    let summary = build(&[input], &masters, &options, &mut Quiet).unwrap();
    assert!(summary.indexed > 30, "{summary:?}");
    Some((lichess, masters))
}

fn state(lichess: &Path, masters: Option<&Path>, cache_bytes: usize) -> Arc<State> {
    let options = ServeOptions {
        books: Vec::new(),
        syzygy: None,
        hash_file: None,
        listen: "127.0.0.1:0".parse().unwrap(),
        searches: 1,
        search_hash_mb: 1,
        search_seconds: 1,
        limits: ServeLimits::default(),
        lichess: vec![lichess.to_path_buf()],
        masters: masters.into_iter().map(Path::to_path_buf).collect(),
        web: None,
        tb_cache_bytes: 0,
        explorer_cache_bytes: cache_bytes,
    };
    Arc::new(State::open(&options).unwrap())
}

/// The status and body of `path?query` (`/lichess` or `/masters`).
async fn ask(s: &Arc<State>, path: &str, query: &str) -> (StatusCode, Vec<u8>) {
    let uri: Uri = format!("{path}?{query}").parse().unwrap();
    let q = Query::<ExplorerQuery>::try_from_uri(&uri);
    let response = match path {
        "/lichess" => lichess(Shared(s.clone()), q).await,
        _ => masters(Shared(s.clone()), q).await,
    }
    .unwrap_or_else(IntoResponse::into_response);
    let status = response.status();
    (status, axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap().to_vec())
}

/// Lines of the first games, each with filters of every kind.
fn queries() -> Vec<(&'static str, String)> {
    let lines = ["", "d2d4", "g1f3,d7d5", "d2d4,g8f6,c2c4", "e2e4,c7c5,g1f3"];
    let filters = [
        "",
        "speeds=blitz,rapid",
        "ratings=1600,2000,2500&topGames=2",
        "since=2017-03&until=2019-10&history=true",
        "speeds=classical,correspondence,bullet&recentGames=3&moves=3",
        "topGames=0&recentGames=0",
    ];
    let mut out = Vec::new();
    for line in lines {
        for f in filters {
            out.push(("/lichess", format!("play={line}&{f}")));
        }
        out.push(("/masters", format!("play={line}&since=2017&topGames=20")));
    }
    out
}

#[tokio::test]
async fn a_kept_answer_is_the_answer_computed() {
    let dir = TempDir::new("serve-explorer-cache");
    let Some((lichess, masters)) = index(&dir) else { return };
    let (kept, off) = (state(&lichess, Some(&masters), 64 << 20), state(&lichess, Some(&masters), 0));
    let mut asked = 0;
    for (path, q) in queries() {
        let want = ask(&off, path, &q).await;
        assert_eq!(want.0, StatusCode::OK, "{path}?{q}: {}", String::from_utf8_lossy(&want.1));
        assert_eq!(ask(&kept, path, &q).await, want, "{path}?{q}, computed");
        asked += 1;
        assert_eq!(kept.explorer_answers.len(), asked, "{path}?{q}");
        assert_eq!(ask(&kept, path, &q).await, want, "{path}?{q}, kept");
    }
    assert!(asked >= 30 && off.explorer_answers.len() == 0);
    // One question in other words: lists in another order or with
    // repeats, limits above what the rules list, a group that never counts.
    let same = [
        ("speeds=blitz,rapid", "speeds=rapid,blitz,rapid"),
        ("ratings=1600,2000,2500&topGames=2", "ratings=2500,2000,1600,2800&topGames=2"),
        ("topGames=4&recentGames=8&moves=12", "topGames=40&recentGames=99&moves=12"),
        ("speeds=blitz", "speeds=Blitz"),
        ("", "speeds=ultraBullet,bullet,blitz,rapid,classical,correspondence"),
        ("", "ratings=0,1000,1200,1400,1600,1800,2000,2200,2500"),
    ];
    for (a, b) in same {
        let before = kept.explorer_answers.len();
        let want = ask(&off, "/lichess", &format!("play=d2d4&{b}")).await;
        assert_eq!(ask(&kept, "/lichess", &format!("play=d2d4&{a}")).await, want, "{a} / {b}");
        assert_eq!(ask(&kept, "/lichess", &format!("play=d2d4&{b}")).await, want, "{a} / {b}");
        assert!(kept.explorer_answers.len() <= before + 1, "{a} / {b}: two answers kept");
    }
}

#[test]
fn normalised_filters_and_limits_give_the_same_answers() {
    let dir = TempDir::new("serve-explorer-normalised");
    let Some((lichess, masters)) = index(&dir) else { return };
    let shards = [Shards::open(&[lichess]).unwrap(), Shards::open(&[masters]).unwrap()];
    let speeds = |s: &[Speed]| Some(s.to_vec());
    let filters = [
        Filter { speeds: speeds(&[Speed::Rapid, Speed::Blitz, Speed::Rapid]), ..Filter::default() },
        Filter { speeds: speeds(&Speed::ALL), ..Filter::default() },
        Filter {
            groups: Some(Filter::groups_of([2900, 1600, 2000, 2500].map(RatingGroup::of_rating))),
            ..Filter::default()
        },
        Filter { groups: Some(Filter::groups_of([2800].map(RatingGroup::of_rating))), ..Filter::default() },
        Filter {
            groups: Some(Filter::groups_of(
                [0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500].map(RatingGroup::of_rating),
            )),
            ..Filter::default()
        },
    ];
    let limits = [
        Limits { moves: usize::MAX, top_games: usize::MAX, recent_games: usize::MAX },
        Limits { moves: 300, top_games: 5, recent_games: 9 },
        Limits { moves: 2, top_games: 1, recent_games: 0 },
    ];
    let mut b = Board::startpos();
    for uci in ["", "d2d4", "g8f6", "c2c4"] {
        if let Some(m) = parse_uci(&b, uci) {
            b.make_move(m);
        }
        for f in &filters {
            for &l in &limits {
                for (shards, kind) in shards.iter().zip([Kind::Lichess, Kind::Masters]) {
                    let history = kind == Kind::Lichess;
                    let raw = shards.answer(&b, f, l, kind, history).unwrap();
                    let one = shards.answer(&b, &f.normalised(), l.normalised(kind), kind, history);
                    assert_eq!(one.unwrap(), raw, "{f:?} {l:?} {kind:?}");
                }
            }
        }
    }
}

#[tokio::test]
async fn an_answer_that_met_an_index_error_is_never_kept() {
    let dir = TempDir::new("serve-explorer-damaged");
    let Some((index, _)) = index(&dir) else { return };
    // Blocks of 1 KiB, a byte flipped in each that lies wholly in the
    // position data (sections at offset 40 of the header: position data
    // from the 7th), which opening does not read.
    let mut bytes = Explorer::reblocked(&std::fs::read(&index).unwrap(), 10).unwrap();
    let section = |i: usize| u64::from_le_bytes(bytes[40 + 8 * i..48 + 8 * i].try_into().unwrap()) as usize;
    let (start, end) = (section(6), section(7));
    let first = HEADER_LEN + (start - HEADER_LEN).div_ceil(1024) * 1024;
    for at in (first..end.saturating_sub(1024)).step_by(1024) {
        bytes[at + 512] ^= 0x10;
    }
    let damaged = dir.file("damaged.axi");
    std::fs::write(&damaged, &bytes).unwrap();
    let s = state(&damaged, None, 64 << 20);
    let lichess: Vec<String> = queries().into_iter().filter(|(p, _)| *p == "/lichess").map(|(_, q)| q).collect();
    let mut failed = 0;
    for round in 0..2 {
        let mut answered = 0;
        for q in &lichess {
            let (status, body) = ask(&s, "/lichess", q).await;
            let body = String::from_utf8_lossy(&body);
            if status == StatusCode::OK {
                answered += 1;
            } else {
                assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{q}: {body}");
                assert!(body.contains("damaged block at offset"), "{q}: {body}");
                failed += 1;
            }
        }
        assert_eq!(s.explorer_answers.len(), answered, "round {round}: only answers are kept");
    }
    assert!(failed > 0, "no question met the damage");
}
