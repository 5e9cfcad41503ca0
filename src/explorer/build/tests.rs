use super::*;
use crate::book::tools::build::{build as book_build, build_from_explorer, BuildOptions, Target};
use crate::book::tools::make_book::MakeBookOptions;
use crate::codec::SplitMix64;
use crate::explorer::model::{Month, RatingGroup};
use crate::explorer::query::{Filter, Kind, Limits, Shards};
use crate::testdata::TempDir as Dir;
use crate::types::Move;
use std::collections::HashSet;

#[derive(Default)]
struct Quiet;

impl Observer for Quiet {
    fn skipped(&mut self, _: &ReplayError) {}
    fn damaged(&mut self, _: &str, _: &str) {}
    fn progress(&mut self, _: &Progress) {}
}

/// `n` games with Lichess's tags, seeded: the first plies from a few
/// moves (so that games share positions), then random legal moves; no
/// game reaches a position twice in its first 60 plies. Ratings, time
/// controls, dates and results vary; some games have no `Site` (a hashed
/// id), some miss a rating or the date.
pub(crate) fn lichess_like_pgn(n: usize, seed: u64) -> Vec<String> {
    let mut rng = SplitMix64::new(seed);
    let controls = ["15+0", "60+0", "120+1", "180+2", "300+0", "600+5", "900+10", "1800+20", "-", ""];
    let mut games = Vec::with_capacity(n);
    for _ in 0..n {
        let mut b = Board::startpos();
        let mut seen = HashSet::from([b.key_legal_ep()]);
        let mut sans = Vec::new();
        let plies = 8 + rng.below(52) as usize;
        while sans.len() < plies {
            let legal: Vec<Move> = b.legal_moves().iter().collect();
            let fresh: Vec<Move> = legal
                .into_iter()
                .filter(|&m| {
                    let mut next = b.clone();
                    next.make_move(m);
                    !seen.contains(&next.key_legal_ep())
                })
                .collect();
            if fresh.is_empty() {
                break;
            }
            let pick =
                if sans.len() < 4 { rng.below(3.min(fresh.len() as u64)) } else { rng.below(fresh.len() as u64) };
            let m = fresh[pick as usize];
            sans.push(b.move_to_san(m));
            b.make_move(m);
            seen.insert(b.key_legal_ep());
        }
        let mut tags = vec![("Event", "Rated game".to_string())];
        if rng.below(10) > 0 {
            tags.push(("Site", format!("https://lichess.org/{}", GameId::from_hash(rng.next_u64()))));
        }
        let year = 2015 + rng.below(10);
        if rng.below(20) > 0 {
            tags.push(("Date", format!("{year}.{:02}.{:02}", 1 + rng.below(12), 1 + rng.below(28))));
        }
        tags.push(("White", format!("p{}", rng.below(30))));
        tags.push(("Black", format!("p{}", rng.below(30))));
        let result = ["1-0", "0-1", "1/2-1/2"][rng.below(3) as usize];
        tags.push(("Result", result.to_string()));
        let base = 800 + rng.below(2200);
        if rng.below(20) > 0 {
            tags.push(("WhiteElo", (base + rng.below(200)).to_string()));
        }
        if rng.below(20) > 0 {
            tags.push(("BlackElo", (base + rng.below(200)).to_string()));
        }
        let tc = controls[rng.below(controls.len() as u64) as usize];
        if !tc.is_empty() {
            tags.push(("TimeControl", tc.to_string()));
        }
        let mut text: String = tags.iter().map(|(k, v)| format!("[{k} \"{v}\"]\n")).collect();
        text.push('\n');
        for (i, san) in sans.iter().enumerate() {
            if i % 2 == 0 {
                text.push_str(&format!("{}. ", i / 2 + 1));
            }
            text.push_str(san);
            text.push(' ');
        }
        text.push_str(result);
        text.push_str("\n\n");
        games.push(text);
    }
    games
}

fn write(dir: &Dir, name: &str, games: &[String]) -> PathBuf {
    let path = dir.file(name);
    std::fs::write(&path, games.concat()).unwrap();
    path
}

fn index(dir: &Dir, name: &str, inputs: &[PathBuf], options: &ExplorerOptions) -> (Vec<u8>, ExplorerSummary) {
    let out = dir.file(name);
    let summary = build(inputs, &out, options, &mut Quiet).expect("builds");
    (std::fs::read(&out).unwrap(), summary)
}

/// `lichess_like_pgn`'s games, some given a `UTCDate` other than their
/// `Date` (a day later, or unreadable) or an unreadable `Date`.
fn with_other_dates(games: Vec<String>) -> Vec<String> {
    let other = ["[UTCDate \"2021.03.01\"]\n", "[UTCDate \"2021.??.??\"]\n", "[Date \"2019.13.05\"]\n", ""];
    games.into_iter().enumerate().map(|(i, g)| format!("{}{g}", other[i % other.len()])).collect()
}

#[test]
fn book_builds_filter_sees_the_group_and_month_explorer_build_stores() {
    let dir = Dir::new("explorer-facts");
    let games = with_other_dates(lichess_like_pgn(400, 9));
    let idx = dir.file("in.axi");
    let summary = build(&[write(&dir, "in.pgn", &games)], &idx, &all_games(), &mut Quiet).unwrap();
    assert_eq!(summary.indexed, games.len() as u64);
    let explorer = Explorer::open(&idx).unwrap();
    let strings = explorer.strings().unwrap();
    let (mut odd_sums, mut months) = (0, HashSet::new());
    for (i, text) in games.iter().enumerate() {
        let game = crate::pgn::parse(text).remove(0);
        let seen = Filters::default().admit(&game).expect("no filter");
        let stored = explorer.game(i as u32, &strings).unwrap();
        let cell = stored.cell();
        assert_eq!((seen.group(), seen.month()), (cell.group(), cell.month()), "game {i}:\n{text}");
        assert_eq!(seen.rating, stored.mean_rating(), "game {i}");
        let rated = stored.white_rating > 0 && stored.black_rating > 0;
        odd_sums += usize::from(rated && (stored.white_rating + stored.black_rating) % 2 == 1);
        months.insert(cell.month());
    }
    assert!(odd_sums > 100 && months.len() > 50, "{odd_sums} odd rating sums, {} months", months.len());
}

#[test]
fn the_index_is_the_same_for_any_threads_and_memory() {
    let dir = Dir::new("explorer-threads");
    let pgn = write(&dir, "in.pgn", &lichess_like_pgn(1500, 1));
    let (want, first) = index(&dir, "a.axi", std::slice::from_ref(&pgn), &all_games());
    assert_eq!(first.indexed, 1500);
    assert_eq!(first.runs, 0);
    for (threads, memory_mb) in [(2, 1024), (1, 1), (3, 1)] {
        let options = ExplorerOptions { threads, memory_mb, ..all_games() };
        let (got, summary) = index(&dir, "b.axi", std::slice::from_ref(&pgn), &options);
        assert!(got == want, "threads {threads}, memory {memory_mb} MB: {summary:?}");
        if memory_mb == 1 {
            assert!(summary.runs > 0, "1500 games spill from 1 MB: {summary:?}");
        }
    }
}

#[test]
fn merging_four_shards_equals_the_single_build() {
    let dir = Dir::new("explorer-merge");
    let mut games = lichess_like_pgn(800, 2);
    // A copy of a game of the first shard in the third: counted once.
    let copy = games.iter().find(|g| g.contains("lichess.org/")).cloned().unwrap();
    games.insert(500, copy);
    let whole = write(&dir, "all.pgn", &games);
    let (want, summary) = index(&dir, "all.axi", &[whole], &all_games());
    assert_eq!((summary.games, summary.indexed, summary.duplicates), (801, 800, 1));
    let mut shards = Vec::new();
    for (i, part) in games.chunks(201).enumerate() {
        let pgn = write(&dir, &format!("part{i}.pgn"), part);
        let out = dir.file(&format!("part{i}.axi"));
        build(&[pgn], &out, &all_games(), &mut Quiet).unwrap();
        shards.push(out);
    }
    assert_eq!(shards.len(), 4);
    let merged = dir.file("merged.axi");
    let summary = merge(&shards, &merged, &all_games()).unwrap();
    assert_eq!((summary.games, summary.indexed, summary.duplicates), (801, 800, 1));
    assert!(std::fs::read(&merged).unwrap() == want, "the merge differs from the single build");
}

#[test]
fn shards_served_together_answer_as_their_merge() {
    let dir = Dir::new("explorer-shards");
    let games = lichess_like_pgn(600, 3);
    let halves: Vec<PathBuf> = games
        .chunks(300)
        .enumerate()
        .map(|(i, part)| {
            let out = dir.file(&format!("half{i}.axi"));
            build(&[write(&dir, &format!("half{i}.pgn"), part)], &out, &all_games(), &mut Quiet).unwrap();
            out
        })
        .collect();
    let merged = dir.file("merged.axi");
    merge(&halves, &merged, &all_games()).unwrap();
    let (apart, together) = (Shards::open(&halves).unwrap(), Shards::open(&[merged]).unwrap());
    let limits = Limits { moves: 12, top_games: 4, recent_games: 4 };
    let filters = [
        Filter::default(),
        Filter { speeds: Some(vec![Speed::Blitz, Speed::Bullet]), ..Filter::default() },
        Filter { groups: Some(Filter::groups_of([1600, 2500].map(RatingGroup::of_rating))), ..Filter::default() },
        Filter { since: Some(Month::new(2018, 1)), until: Some(Month::new(2021, 6)), ..Filter::default() },
    ];
    let mut compared = 0;
    for text in games.iter().step_by(7) {
        let game = crate::pgn::parse(text).remove(0);
        let mut b = Board::startpos();
        for (ply, m) in game.replay().unwrap().moves.into_iter().enumerate().take(12) {
            for f in &filters {
                let a = apart.answer(&b, f, limits, Kind::Lichess, false).unwrap();
                let t = together.answer(&b, f, limits, Kind::Lichess, false).unwrap();
                assert_eq!(a, t, "ply {ply} of {text}, {f:?}");
                compared += 1;
            }
            b.make_move(m);
        }
    }
    assert!(compared > 1000, "{compared}");
}

#[test]
fn a_book_from_the_index_equals_book_build_on_the_games() {
    let dir = Dir::new("explorer-book");
    let pgn = write(&dir, "in.pgn", &lichess_like_pgn(700, 4));
    let idx = dir.file("in.axi");
    build(std::slice::from_ref(&pgn), &idx, &all_games(), &mut Quiet).unwrap();
    let polyglot = |only_white| {
        Target::Polyglot(MakeBookOptions { max_ply: 50, min_game: 1, only_white, ..MakeBookOptions::default() })
    };
    let targets = [polyglot(false), polyglot(true), Target::Yacb { max_ply: 50, min_game: 2, elo: None }];
    for target in targets {
        for threads in [1, 2] {
            let options = BuildOptions { threads, ..BuildOptions::new(target.clone()) };
            let (a, b) = (dir.file("pgn.book"), dir.file("index.book"));
            book_build(std::slice::from_ref(&pgn), &a, &options, &mut Quiet).unwrap();
            let summary =
                build_from_explorer(std::slice::from_ref(&idx), &Filter::default(), &b, &options, &mut Quiet).unwrap();
            assert_eq!(summary.kept, 700);
            assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(), "{target:?}, {threads} threads");
        }
    }
}

#[test]
fn a_book_from_the_index_takes_the_games_the_filter_admits() {
    let dir = Dir::new("explorer-book-filter");
    let games = lichess_like_pgn(500, 5);
    let idx = dir.file("in.axi");
    build(&[write(&dir, "in.pgn", &games)], &idx, &all_games(), &mut Quiet).unwrap();
    // The same selection made on the PGN: blitz games of 2018 or later.
    let explorer = Explorer::open(&idx).unwrap();
    let strings = explorer.strings().unwrap();
    let kept: Vec<String> = games
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            let g = explorer.game(*i as u32, &strings).unwrap();
            g.speed == Speed::Blitz && g.date.year >= 2018 && g.date.month > 0
        })
        .map(|(_, t)| t.clone())
        .collect();
    assert!(kept.len() > 30, "{}", kept.len());
    let target = Target::Polyglot(MakeBookOptions { max_ply: 50, min_game: 1, ..MakeBookOptions::default() });
    let options = BuildOptions::new(target);
    let (a, b) = (dir.file("pgn.bin"), dir.file("index.bin"));
    book_build(&[write(&dir, "kept.pgn", &kept)], &a, &options, &mut Quiet).unwrap();
    let filter = Filter { speeds: Some(vec![Speed::Blitz]), since: Some(Month::new(2018, 1)), ..Filter::default() };
    let summary = build_from_explorer(&[idx], &filter, &b, &options, &mut Quiet).unwrap();
    assert_eq!(summary.kept, kept.len() as u64);
    assert!(std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap());
}

#[test]
fn games_with_other_results_variants_and_copies_are_skipped_and_counted() {
    let dir = Dir::new("explorer-skips");
    let mut games = lichess_like_pgn(20, 6);
    games.push("[Event \"?\"]\n[Result \"*\"]\n\n1. d4 d5 *\n\n".into());
    games.push("[Event \"?\"]\n[Variant \"Atomic\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n".into());
    games.push("[Event \"?\"]\n[FEN \"8/8/8/8/8/8/k7/K7 w - - 0 1\"]\n[Result \"1/2-1/2\"]\n\n1/2-1/2\n\n".into());
    games.push(games[5].clone());
    games.push("[Event \"?\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 1-0\n\n".into());
    let (_, s) = index(&dir, "x.axi", &[write(&dir, "in.pgn", &games)], &all_games());
    assert_eq!(s.games, 25);
    assert_eq!((s.bad_result, s.duplicates, s.variants, s.illegal), (1, 1, 2, 1));
    assert_eq!(s.indexed, 20);
}

#[test]
fn shards_of_another_max_ply_are_not_merged() {
    let dir = Dir::new("explorer-ply");
    let pgn = write(&dir, "in.pgn", &lichess_like_pgn(10, 7));
    let (a, b) = (dir.file("a.axi"), dir.file("b.axi"));
    build(std::slice::from_ref(&pgn), &a, &all_games(), &mut Quiet).unwrap();
    build(&[pgn], &b, &ExplorerOptions { max_ply: 20, ..all_games() }, &mut Quiet).unwrap();
    let err = merge(&[a, b.clone()], &dir.file("m.axi"), &all_games()).unwrap_err();
    assert!(matches!(err, ExplorerBuildError::Mismatch { found: 20, expected: 50, .. }), "{err}");
    assert!(err.to_string().contains("b.axi"), "{err}");
}

/// The options of these tests: every game kept (the generated games lack
/// ratings and dates at times; Lichess's refusals have tests of their own
/// in engine-tests/test_explorer.py).
fn all_games() -> ExplorerOptions {
    ExplorerOptions { all_games: true, ..ExplorerOptions::default() }
}

#[test]
fn days_from_the_epoch_are_gregorian_dates() {
    assert_eq!(super::civil_from_days(0), (1970, 1, 1));
    assert_eq!(super::civil_from_days(11_016), (2000, 2, 29));
    assert_eq!(super::civil_from_days(20_088), (2024, 12, 31));
    assert_eq!(super::civil_from_days(20_794), (2026, 12, 7));
}

mod damage;

#[test]
fn visits_spill_with_their_game_facts_and_damage_is_found() {
    let v = Visit {
        key: 0x8123_4567_89ab_cdef,
        game: 70_000,
        ply: 49,
        mv: 0x1234,
        cell: crate::explorer::index::Cell::new(
            crate::explorer::model::Month::new(2024, 12),
            Speed::Classical,
            crate::explorer::model::RatingGroup::Group3200,
        ),
        outcome: Outcome::Draw,
        rating: 3100,
        rank: u64::MAX - 1,
    };
    let bucket = bucket_of(v.key, 0);
    for masters in [false, true] {
        let encoding = Visits { masters };
        let mut bytes = vec![0u8; encoding.item_len()];
        encoding.encode(&v, 0, &mut bytes);
        let mut out = Vec::new();
        assert_eq!(encoding.decode(&bytes, bucket, 0, &mut out), Ok(()));
        assert_eq!(out, [Visit { rank: if masters { v.rank } else { 0 }, ..v }]);
        for (at, byte) in [(18, 3), (22, 1)] {
            let mut bad = bytes.clone();
            bad[at] = byte;
            assert_eq!(encoding.decode(&bad, bucket, 0, &mut Vec::new()), Err(0), "byte {at}");
        }
        assert_eq!(encoding.decode(&bytes, bucket ^ 1, 0, &mut Vec::new()), Err(0));
    }
}

#[test]
fn a_tiny_budget_spills_the_ids_and_visits_and_streams_the_start_position_and_changes_nothing() {
    let dir = Dir::new("explorer-tiny");
    let mut games = lichess_like_pgn(1500, 8);
    // Copies, early and late: the first counts.
    for (from, to) in [(3, 40), (700, 1400), (10, 1200)] {
        let copy = games[from].clone();
        games.insert(to, copy);
    }
    let pgn = write(&dir, "in.pgn", &games);
    for masters in [false, true] {
        let options = ExplorerOptions { masters, threads: 2, ..all_games() };
        let (want, first) = index(&dir, "a.axi", std::slice::from_ref(&pgn), &options);
        assert_eq!(first.runs, 0);
        let tiny = Budget { bytes: 20 << 10, ..Budget::of(&options) };
        // The start position is reached in every game: more than a bucket
        // holds; the ids (about 40 bytes of their share an id held) spill
        // to more runs than are kept before a merge.
        assert!(tiny.bucket_visits(options.threads) < 1500 && tiny.id_bytes() / 40 < 1500 / 10, "{tiny:?}");
        let out = dir.file("b.axi");
        let summary = build_within(std::slice::from_ref(&pgn), &out, &options, tiny, &mut Quiet).unwrap();
        assert!(std::fs::read(&out).unwrap() == want, "masters {masters}: {summary:?}");
        assert!(summary.runs > 64, "{summary:?}");
        assert_eq!((summary.indexed, summary.duplicates), (first.indexed, first.duplicates));
        assert!(summary.duplicates >= 3, "{summary:?}");
    }
}

#[test]
fn a_damaged_input_writes_no_index_and_says_so() {
    use std::io::Write;
    let dir = Dir::new("explorer-damaged-input");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(lichess_like_pgn(50, 10).concat().as_bytes()).unwrap();
    let mut bytes = gz.finish().unwrap();
    bytes.truncate(bytes.len() / 2);
    let input = dir.file("cut.pgn.gz");
    std::fs::write(&input, bytes).unwrap();
    let out = dir.file("x.axi");
    let e = build(&[input], &out, &all_games(), &mut Quiet).unwrap_err();
    assert!(matches!(e, ExplorerBuildError::Damaged { .. }), "{e}");
    let message = e.to_string();
    assert!(message.starts_with("1 input(s) damaged (") && message.ends_with("); no index written"), "{message}");
    assert!(!out.exists());
}

/// A game's visits as a scan of all the earlier ones finds them (what
/// [`game_of`] gives, which looks back only over reversible plies).
fn visits_by_full_scan(sans: &[&str], max_ply: u8) -> Vec<(u64, u8, u16)> {
    let mut b = Board::startpos();
    let mut visits: Vec<(u64, u8, u16)> = Vec::new();
    for (ply, san) in sans.iter().enumerate() {
        let m = b.parse_san(san).unwrap();
        if ply < usize::from(max_ply) {
            let key = b.key_legal_ep();
            match visits.iter_mut().find(|v| v.0 == key) {
                Some(v) => *v = (key, ply as u8, m.raw()),
                None => visits.push((key, ply as u8, m.raw())),
            }
        }
        b.make_move(m);
    }
    visits
}

#[test]
fn a_repeated_position_keeps_its_last_ply_and_move() {
    let games: [&[&str]; 3] = [
        // Knights out and back twice, then a pawn move and again.
        &["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8", "e4", "e5", "Nf3", "Nc6", "Ng1", "Nb8", "Nc3", "Nf6"],
        // A repetition reached after a capture.
        &["e4", "d5", "exd5", "Qxd5", "Nc3", "Qd8", "Nb1", "Qd5", "Nc3", "Qa5", "Nb1", "Qd5", "Nc3"],
        // Castling rights lost by a king's walk: the same squares, another position.
        &["e4", "e5", "Ke2", "Ke7", "Ke1", "Ke8", "Ke2", "Ke7", "Ke1", "Ke8"],
    ];
    for sans in games {
        for max_ply in [4u8, 9, 50] {
            let text = format!("[Result \"*\"]\n\n{} *\n", sans.join(" "));
            let mut replayed = Replayed::default();
            let mut seen = 0;
            crate::pgn::for_each_game(&text, |view| {
                game_of(view, max_ply, GameSource::default, &mut replayed).unwrap();
                seen += 1;
            });
            assert_eq!(seen, 1);
            assert_eq!(replayed.visits, visits_by_full_scan(sans, max_ply), "{sans:?} to ply {max_ply}");
            assert_eq!(replayed.packed.plies, sans.len() as u64);
        }
    }
}
