use super::adjudication::rules_ending;
use super::config::Preset;
use super::openings::{chess960_position, game_rng, BookWalk, FileOpenings, Rng};
use super::progress::Silent;
use super::*;
use crate::board::Board;
use crate::records::{self, GameResult};
use std::collections::HashSet;

use crate::testdata::TempDir;

fn settings(out: PathBuf, games: u64) -> Settings {
    Preset {
        out: Some(out),
        games: Some(games),
        nodes: Some(400),
        max_plies: Some(90),
        seed: Some(1),
        hash: Some(2),
        ..Preset::default()
    }
    .resolve(0)
    .unwrap()
}

fn play(settings: &Settings, hooks: &Hooks) -> Summary {
    run(settings, hooks, &AtomicBool::new(false), &mut Silent).unwrap()
}

/// Decodes every game with montyformat and checks it against our replay:
/// a full visit distribution at every ply, and a result that agrees with the
/// final position when the rules ended the game.
fn check_with_montyformat(data: &[u8]) -> usize {
    records::tests::check_with_montyformat(
        data,
        |_, data, _, legal, _| {
            let dist = data.visit_distribution.as_ref().expect("every ply carries a distribution");
            assert_eq!(dist.len(), legal.len());
            assert_eq!(dist.iter().map(|d| d.1).max(), Some(255));
        },
        |i, game, board| {
            if let Some((result, _)) = rules_ending(board) {
                assert_eq!(result, game.result, "game {i}: {}", board.fen());
            }
        },
    )
}

#[test]
fn generated_file_decodes_with_montyformat() {
    let dir = TempDir::new("monty");
    let mut s = settings(dir.file("std.bin"), 4);
    s.threads = 2;
    let summary = play(&s, &Hooks::default());
    assert_eq!(summary.snapshot.games_done, 4);
    let data = std::fs::read(&s.out).unwrap();
    assert_eq!(check_with_montyformat(&data), 4);
    let totals = records::validate(&data).unwrap();
    assert_eq!(totals.positions, summary.snapshot.positions);

    let mut s960 = settings(dir.file("960.bin"), 3);
    s960.chess960 = true;
    play(&s960, &Hooks::default());
    let data = std::fs::read(&s960.out).unwrap();
    assert_eq!(check_with_montyformat(&data), 3);
    assert!(records::parse(&data).unwrap().iter().all(|g| g.start.is_chess960()));
}

#[test]
fn same_seed_single_thread_gives_identical_bytes() {
    let dir = TempDir::new("determinism");
    let a = settings(dir.file("a.bin"), 3);
    let b = Settings { out: dir.file("b.bin"), ..a.clone() };
    let c = Settings { out: dir.file("c.bin"), seed: 2, ..a.clone() };
    play(&a, &Hooks::default());
    play(&b, &Hooks::default());
    play(&c, &Hooks::default());
    let (a, b, c) = (std::fs::read(&a.out).unwrap(), std::fs::read(&b.out).unwrap(), std::fs::read(&c.out).unwrap());
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn threads_change_only_the_order_of_games() {
    let dir = TempDir::new("threads");
    let one = settings(dir.file("one.bin"), 4);
    let two = Settings { out: dir.file("two.bin"), threads: 2, ..one.clone() };
    play(&one, &Hooks::default());
    play(&two, &Hooks::default());
    let games = |p: &Path| -> HashSet<Vec<u8>> {
        let data = std::fs::read(p).unwrap();
        let mut out = HashSet::new();
        for g in records::parse(&data).unwrap() {
            out.insert(records::encode(&g).unwrap());
        }
        out
    };
    assert_eq!(games(&one.out), games(&two.out));
}

#[test]
fn stop_flag_mid_run_keeps_whole_games_only() {
    let dir = TempDir::new("stop");
    let mut s = settings(dir.file("stop.bin"), 10_000);
    s.threads = 2;
    let stop = AtomicBool::new(false);
    let summary = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(700));
            stop.store(true, Relaxed);
        });
        run(&s, &Hooks::default(), &stop, &mut Silent).unwrap()
    });
    assert!(summary.interrupted);
    assert!(summary.snapshot.games_done < 10_000);
    let data = std::fs::read(&s.out).unwrap();
    let totals = records::validate(&data).unwrap();
    assert_eq!(totals.games, summary.snapshot.games_done);
}

#[test]
fn refuses_existing_output_unless_appending() {
    let dir = TempDir::new("append");
    let s = settings(dir.file("a.bin"), 2);
    play(&s, &Hooks::default());
    let first = std::fs::read(&s.out).unwrap();
    let err = run(&s, &Hooks::default(), &AtomicBool::new(false), &mut Silent).unwrap_err();
    assert!(matches!(err, SelfplayError::OutputExists(_)));
    let more = Settings { append: true, ..s.clone() };
    let summary = play(&more, &Hooks::default());
    assert_eq!(summary.existing_games, 2);
    let both = std::fs::read(&s.out).unwrap();
    assert!(both.starts_with(&first));
    let games = records::parse(&both).unwrap();
    assert_eq!(games.len(), 4);
    // Appended games continue the numbering, so they are new games.
    assert_ne!(records::encode(&games[0]).unwrap(), records::encode(&games[2]).unwrap());
}

#[test]
fn value_only_file_decodes_with_montyformat_and_the_records_tools() {
    let dir = TempDir::new("value");
    let mut s = settings(dir.file("v.bin"), 3);
    s.value_only = true;
    s.soft_nodes = Some(200);
    let summary = play(&s, &Hooks::default());
    let data = std::fs::read(&s.out).unwrap();
    // 45 bytes a game (header and terminator), 5 a position.
    assert_eq!(data.len() as u64, 3 * (records::HEADER_BYTES as u64 + 2) + 5 * summary.snapshot.positions);
    let games = records::tests::check_with_montyformat(
        &data,
        |_, theirs, ours, _, _| {
            assert!(theirs.visit_distribution.is_none());
            assert!(ours.visits.is_empty());
            assert_eq!(theirs.score, ours.score as f32 / 65535.0);
        },
        |_, _, _| {},
    );
    assert_eq!(games, 3);
    let stats = records::text::stats(&data).unwrap();
    assert_eq!((stats.games, stats.positions, stats.with_visits), (3, summary.snapshot.positions, 0));
    for format in [records::text::DumpFormat::Plain, records::text::DumpFormat::Pgn, records::text::DumpFormat::Fen] {
        let mut text = Vec::new();
        let totals = records::text::dump(&data, format, &mut text).unwrap();
        assert_eq!(totals.positions, summary.snapshot.positions);
    }
    let mut fen = Vec::new();
    records::text::dump(&data, records::text::DumpFormat::Fen, &mut fen).unwrap();
    assert_eq!(String::from_utf8(fen).unwrap().lines().count() as u64, summary.snapshot.positions);
}

/// The run log of `out`.
fn log_of(out: &Path) -> runlog::RunLog {
    runlog::RunLog::load(&runlog::path_for(out)).unwrap()
}

#[test]
fn appending_with_the_same_seed_continues_its_games_exactly() {
    let dir = TempDir::new("resume");
    let whole = settings(dir.file("whole.bin"), 4);
    play(&whole, &Hooks::default());
    let parts = Settings { out: dir.file("parts.bin"), games: 2, ..whole.clone() };
    play(&parts, &Hooks::default());
    let summary = play(&Settings { append: true, ..parts.clone() }, &Hooks::default());
    assert_eq!((summary.first_index, summary.existing_games), (2, 2));
    // Two runs of two games are the one run of four, byte for byte.
    assert_eq!(std::fs::read(&parts.out).unwrap(), std::fs::read(&whole.out).unwrap());
    let log = log_of(&parts.out);
    let runs: Vec<_> = log.runs.iter().map(|r| (r.seed, r.first_index, r.end_index, r.games, r.status)).collect();
    assert_eq!(
        runs,
        [(1, 0, Some(2), Some(2), runlog::Status::Finished), (1, 2, Some(4), Some(2), runlog::Status::Finished)]
    );
    assert_eq!(log.runs[1].bytes_before, log.runs[0].bytes_after.unwrap());
    assert_eq!(log.runs[1].bytes_after, Some(std::fs::metadata(&parts.out).unwrap().len()));
    assert_eq!(log.runs[0].settings.nodes, Some(400));
}

#[test]
fn appending_with_a_new_seed_plays_that_seeds_first_games() {
    let dir = TempDir::new("newseed");
    let first = settings(dir.file("a.bin"), 2);
    play(&first, &Hooks::default());
    let fresh = Settings { out: dir.file("b.bin"), seed: 2, ..first.clone() };
    play(&fresh, &Hooks::default());
    let summary = play(&Settings { append: true, seed: 2, ..first.clone() }, &Hooks::default());
    assert_eq!(summary.first_index, 0);
    let data = std::fs::read(&first.out).unwrap();
    assert!(data.ends_with(&std::fs::read(&fresh.out).unwrap()));
    // A file written before run logs: new games are numbered after its games.
    std::fs::remove_file(runlog::path_for(&first.out)).unwrap();
    let summary = play(&Settings { append: true, ..first.clone() }, &Hooks::default());
    assert_eq!(summary.first_index, 4);
    assert_eq!(log_of(&first.out).runs[0].games_before, 4);
}

/// A progress sink that raises the stop flag once the given number of games are done.
struct StopAfter<'a>(u64, &'a AtomicBool);

impl progress::Progress for StopAfter<'_> {
    fn update(&mut self, s: &Snapshot) {
        if s.games_done >= self.0 {
            self.1.store(true, Relaxed);
        }
    }
    fn finish(&mut self, _: &Snapshot) {}
}

#[test]
fn fill_resumes_an_interrupted_run_without_repeating_a_game() {
    let dir = TempDir::new("fill");
    let mut s = settings(dir.file("f.bin"), 0);
    (s.fill, s.append, s.threads) = (Some(6), true, 2);
    let stop = AtomicBool::new(false);
    let first = run(&s, &Hooks::default(), &stop, &mut StopAfter(2, &stop)).unwrap();
    assert!(first.interrupted && first.snapshot.games_done >= 2 && first.snapshot.games_done < 6);
    let summary = play(&s, &Hooks::default());
    assert_eq!(summary.existing_games, first.snapshot.games_done);
    assert_eq!(summary.existing_games + summary.snapshot.games_done, 6);
    let data = std::fs::read(&s.out).unwrap();
    let games = records::parse(&data).unwrap();
    let distinct: HashSet<Vec<u8>> = games.iter().map(|g| records::encode(g).unwrap()).collect();
    assert_eq!((games.len(), distinct.len()), (6, 6));
    let log = log_of(&s.out);
    let statuses: Vec<_> = log.runs.iter().map(|r| r.status).collect();
    assert_eq!(statuses, [runlog::Status::Interrupted, runlog::Status::Finished]);
    // The resumed run starts after every index the interrupted one handed
    // out (its games in progress are dropped, never replayed).
    assert_eq!(Some(log.runs[1].first_index), log.runs[0].end_index);
    assert!(log.runs[0].end_index >= Some(first.snapshot.games_done));
    // Full: the same command plays nothing and logs nothing.
    let again = play(&s, &Hooks::default());
    assert_eq!(again.snapshot.games_target, 0);
    assert_eq!(log_of(&s.out).runs.len(), 2);
    assert_eq!(std::fs::read(&s.out).unwrap(), data);
}

#[test]
fn a_killed_run_reserves_its_whole_index_range() {
    let dir = TempDir::new("killed");
    let s = settings(dir.file("k.bin"), 2);
    play(&s, &Hooks::default());
    let path = runlog::path_for(&s.out);
    let mut log = log_of(&s.out);
    // As a run killed mid-way leaves it: still running, no figures.
    log.runs[0].status = runlog::Status::Running;
    log.runs[0].end_index = None;
    log.runs[0].games_requested = 10;
    log.save(&path).unwrap();
    let summary = play(&Settings { append: true, games: 1, ..s.clone() }, &Hooks::default());
    assert_eq!(summary.first_index, 10);
}

#[test]
fn torn_last_game_is_removed_before_appending() {
    let dir = TempDir::new("torn");
    let s = settings(dir.file("t.bin"), 2);
    play(&s, &Hooks::default());
    let whole = std::fs::read(&s.out).unwrap();
    let games = records::parse(&whole).unwrap();
    let second = records::encode(&games[1]).unwrap();
    for cut in [1, 40, 60, second.len() - 1] {
        let first_len = whole.len() - second.len();
        std::fs::write(&s.out, &whole[..first_len + cut]).unwrap();
        let summary = play(&Settings { append: true, games: 1, ..s.clone() }, &Hooks::default());
        assert_eq!((summary.existing_games, summary.torn_bytes_removed), (1, cut as u64));
        let data = std::fs::read(&s.out).unwrap();
        assert!(data.starts_with(&whole[..first_len]));
        assert_eq!(records::validate(&data).unwrap().games, 2);
        assert_eq!(log_of(&s.out).runs.last().unwrap().torn_bytes_removed, Some(cut as u64));
    }
}

#[test]
fn damaged_files_are_not_appended_to() {
    let dir = TempDir::new("damaged");
    let s = settings(dir.file("d.bin"), 2);
    play(&s, &Hooks::default());
    let whole = std::fs::read(&s.out).unwrap();
    let more = Settings { append: true, ..s.clone() };
    let refused = |bytes: &[u8]| {
        std::fs::write(&s.out, bytes).unwrap();
        let err = run(&more, &Hooks::default(), &AtomicBool::new(false), &mut Silent).unwrap_err();
        assert!(matches!(err, SelfplayError::BadExistingFile { .. }), "{err}");
        assert_eq!(std::fs::read(&s.out).unwrap(), bytes, "a refused file is left as it was");
    };
    // Garbage after the games is not the start of a game.
    refused(&[whole.as_slice(), &[0xFF; 100]].concat());
    // A corrupt board in the torn game is damage too.
    let mut torn = [whole.as_slice(), &whole[..60]].concat();
    torn[whole.len() + 8..whole.len() + 24].fill(0xFF);
    refused(&torn);
}

#[test]
fn a_damaged_run_log_is_an_error_naming_it() {
    let dir = TempDir::new("badlog");
    let s = settings(dir.file("l.bin"), 1);
    play(&s, &Hooks::default());
    let whole = std::fs::read(&s.out).unwrap();
    let torn = [whole.as_slice(), &whole[..50]].concat();
    std::fs::write(&s.out, &torn).unwrap();
    std::fs::write(runlog::path_for(&s.out), "{").unwrap();
    let more = Settings { append: true, ..s.clone() };
    let err = run(&more, &Hooks::default(), &AtomicBool::new(false), &mut Silent).unwrap_err();
    assert!(matches!(err, SelfplayError::RunLog(runlog::RunLogError::Parse { .. })), "{err}");
    assert!(err.to_string().contains("l.bin.runs.json"));
    // Refused before anything changed: the torn game is still there.
    assert_eq!(std::fs::read(&s.out).unwrap(), torn);
}

#[test]
fn openings_file_positions_start_the_games() {
    let dir = TempDir::new("openings");
    let epd = dir.file("o.epd");
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    std::fs::write(
        &epd,
        format!("# comment\n{fen}\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"e4\";\n"),
    )
    .unwrap();
    let source = FileOpenings::load(&epd, false).unwrap();
    assert_eq!(source.len(), 2);
    let mut s = settings(dir.file("o.bin"), 3);
    s.random_plies = 0;
    play(&s, &Hooks { openings: Some(Box::new(source)), adjudicator: None, net: None });
    let games = records::parse(&std::fs::read(&s.out).unwrap()).unwrap();
    let starts: HashSet<String> = games.iter().map(|g| g.start.fen()).collect();
    assert!(starts.iter().all(|f| f == fen || f.starts_with("rnbqkbnr/pppppppp/8/8/4P3/")), "{starts:?}");

    let pgn = dir.file("o.pgn");
    std::fs::write(&pgn, "[Event \"a\"]\n\n1. d4 d5 2. c4 *\n\n[Event \"b\"]\n\n1. e4 c5 *\n").unwrap();
    let source = FileOpenings::load(&pgn, false).unwrap();
    assert_eq!(source.len(), 2);
    assert!(FileOpenings::load(&dir.file("missing.epd"), false).is_err());
    std::fs::write(&epd, "not a fen\n").unwrap();
    assert!(matches!(FileOpenings::load(&epd, false), Err(OpeningError::BadLine { line: 1, .. })));
}

#[test]
fn an_openings_file_of_tagless_pgn_is_read_as_pgn_and_a_book_is_refused() {
    let dir = TempDir::new("openings-kind");
    let text = dir.file("lines.txt");
    std::fs::write(&text, "1. e4 e5 2. Nf3 *\n\n1. d4 d5 *\n").unwrap();
    let source = FileOpenings::load(&text, false).unwrap();
    assert_eq!(source.len(), 2, "two games, not two bad EPD lines");
    let golden = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/golden.yacb"));
    assert!(matches!(FileOpenings::load(golden, false), Err(OpeningError::IsBook { .. })));
}

#[test]
fn unbalanced_openings_are_discarded() {
    let dir = TempDir::new("unbalanced");
    let epd = dir.file("o.epd");
    std::fs::write(&epd, "4k3/8/8/8/8/8/8/QQQ1K3 w - - 0 1\n").unwrap();
    let mut s = settings(dir.file("o.bin"), 1);
    s.random_plies = 0;
    let summary = play(
        &s,
        &Hooks { openings: Some(Box::new(FileOpenings::load(&epd, false).unwrap())), adjudicator: None, net: None },
    );
    assert_eq!(summary.snapshot.games_done, 0);
    assert_eq!(summary.skipped, 1);
}

struct CountAdjudicator;

impl Adjudicator for CountAdjudicator {
    fn adjudicate(&self, board: &Board) -> Option<GameResult> {
        (board.piece_count() <= 30).then_some(GameResult::Draw)
    }
    fn describe(&self) -> String {
        "test".into()
    }
}

#[test]
fn adjudicator_hook_ends_games() {
    let dir = TempDir::new("tb");
    let s = settings(dir.file("tb.bin"), 2);
    let hooks = Hooks { openings: None, adjudicator: Some(Box::new(CountAdjudicator)), net: None };
    let summary = play(&s, &hooks);
    let games = records::parse(&std::fs::read(&s.out).unwrap()).unwrap();
    assert!(summary.endings.contains_key(&Ending::Tablebase));
    for g in games.iter().filter(|g| g.result == GameResult::Draw) {
        assert!(g.replay(|_, _| {}).piece_count() <= 30 || g.plies.len() >= 90);
    }
}

struct FixedBook;

impl crate::book::play::offer::Offers for FixedBook {
    fn offers(&self, board: &mut Board) -> Vec<crate::book::play::offer::Offer> {
        ["e2e4", "e7e5", "g1f3"]
            .iter()
            .filter_map(|m| board.parse_uci(m).ok())
            .map(|mv| crate::book::play::offer::Offer { mv, weight: 3 })
            .collect()
    }
}

#[test]
fn book_walk_follows_the_book_until_it_runs_out() {
    let walk = BookWalk { book: FixedBook, name: "fixed".into(), max_plies: 10, chess960: false };
    let b = walk.opening(&mut Rng::new(5)).unwrap();
    assert_eq!(b.fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
}

#[test]
fn polyglot_and_yacb_books_give_openings_and_missing_files_are_errors() {
    if let Some(performance) = crate::testdata::path("books/performance.bin") {
        let source = open_book(&performance, false, 8).unwrap();
        let b = source.opening(&mut Rng::new(3)).unwrap();
        assert!(b.plies_since_setup() > 0, "the walk played book moves");
    }
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/golden.yacb");
    let yacb = open_book(Path::new(golden), false, 8).unwrap();
    let b = yacb.opening(&mut Rng::new(3)).unwrap();
    assert_eq!(b.plies_since_setup(), 2, "e2e4 then c7c5 from the golden book: {}", b.fen());
    assert!(matches!(open_book(Path::new("/nonexistent/x.bin"), false, 8), Err(OpeningError::Book { .. })));
}

#[test]
fn tablebases_adjudicate_covered_positions() {
    let Some(dir) = crate::testdata::path("syzygy") else { return };
    let tb = open_tablebases(dir.to_str().unwrap()).unwrap();
    let won = Board::from_fen("8/8/8/4k3/1Q6/8/8/6K1 w - - 0 1", false).unwrap();
    assert_eq!(tb.adjudicate(&won), Some(GameResult::WhiteWin));
    let drawn = Board::from_fen("8/r7/1R6/1K6/8/8/7k/8 b - - 0 1", false).unwrap();
    assert_eq!(tb.adjudicate(&drawn), Some(GameResult::Draw));
    assert_eq!(tb.adjudicate(&Board::startpos()), None);
    assert!(matches!(open_tablebases("/nonexistent"), Err(SelfplayError::Tablebases(_))));
}

#[test]
fn chess960_numbering_covers_960_distinct_positions() {
    assert_eq!(chess960_position(518).fen().split(' ').next(), Board::startpos().fen().split(' ').next());
    let all: HashSet<String> = (0..960).map(|n| chess960_position(n).fen()).collect();
    assert_eq!(all.len(), 960);
    assert_eq!(chess960_position(0).fen(), "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w HFhf - 0 1");
}

#[test]
fn rng_streams_depend_on_seed_and_index() {
    let a: Vec<u64> = (0..4).map(|_| game_rng(1, 0).next_u64()).collect();
    assert!(a.windows(2).all(|w| w[0] == w[1]));
    assert_ne!(game_rng(1, 0).next_u64(), game_rng(1, 1).next_u64());
    assert_ne!(game_rng(1, 0).next_u64(), game_rng(2, 0).next_u64());
    let mut r = Rng::new(3);
    assert!((0..1000).all(|_| r.below(7) < 7));
}

#[test]
fn summary_line_names_the_figures() {
    let dir = TempDir::new("summary");
    let s = settings(dir.file("s.bin"), 1);
    let summary = play(&s, &Hooks::default());
    let line = summary.line();
    assert!(line.starts_with("selfplay: 1 games"), "{line}");
    assert!(line.contains("positions/s") && line.contains("outside the search"));
    assert!(summary.endings_line().starts_with("endings: "));
    assert!((0.0..1.0).contains(&summary.outside_search));
}

#[test]
fn neighbouring_game_streams_do_not_overlap() {
    let draws = |i: u64| -> Vec<u64> {
        let mut r = game_rng(7, i);
        (0..64).map(|_| r.next_u64()).collect()
    };
    let mut seen = HashSet::new();
    for i in 0..200 {
        for v in draws(i) {
            assert!(seen.insert(v), "stream {i} repeats a value of another stream");
        }
    }
}

#[test]
fn a_network_plays_other_games_and_the_run_log_names_it() {
    let dir = TempDir::new("selfplay-net");
    let plain = settings(dir.file("plain.bin"), 2);
    let with_net = Settings { out: dir.file("net.bin"), ..plain.clone() };
    let net = std::sync::Arc::new(crate::nnue::Network::random(16, 4));
    play(&plain, &Hooks::default());
    play(&with_net, &Hooks { net: Some((net, "network test (768 -> 16)".into())), ..Hooks::default() });
    let (a, b) = (std::fs::read(&plain.out).unwrap(), std::fs::read(&with_net.out).unwrap());
    assert_eq!(records::parse(&b).unwrap().len(), 2);
    assert_ne!(a, b, "the network changes the games");
    assert_eq!(log_of(&plain.out).runs[0].settings.evaluation, None);
    assert_eq!(log_of(&with_net.out).runs[0].settings.evaluation.as_deref(), Some("network test (768 -> 16)"));
}
