//! Engine-level behaviour: positions, options, search results.

use super::*;
use crate::search::{Limits, Score};

fn quiet_engine() -> Engine {
    Engine::new(Arc::new(|_| {}))
}

/// An engine whose default is the hand-written evaluation, whether or not
/// the binary has a built-in network (the tests of EvalFile's selection).
fn hand_written_engine() -> Engine {
    let mut e = quiet_engine();
    e.set_builtin_network(None);
    e
}

/// An engine that keeps every info line it reports.
fn recording_engine() -> (Engine, Arc<parking_lot::Mutex<Vec<crate::search::InfoLine>>>) {
    let infos = Arc::new(parking_lot::Mutex::new(Vec::new()));
    let sink = infos.clone();
    let e = Engine::new(Arc::new(move |ev| {
        if let SearchEvent::Info(i) = ev {
            sink.lock().push(i);
        }
    }));
    (e, infos)
}

fn depth(d: i32) -> Limits {
    Limits { depth: Some(d), ..Limits::default() }
}

#[test]
fn illegal_move_keeps_position_after_last_legal_move() {
    let mut e = quiet_engine();
    let err = e.set_position(None, &["e2e4", "e7e5", "e1e8", "g1f3"]).unwrap_err();
    assert!(matches!(err, EngineError::IllegalMove { index: 3, .. }));
    assert_eq!(e.board().fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
}

#[test]
fn bad_fen_leaves_position_unchanged() {
    let mut e = quiet_engine();
    e.set_position(None, &["d2d4"]).unwrap();
    let before = e.board().fen();
    assert!(matches!(e.set_position(Some("8/8/8 w - - 0 1"), &[]), Err(EngineError::BadFen(_))));
    assert_eq!(e.board().fen(), before);
}

#[test]
fn finds_mate_in_two() {
    let mut e = quiet_engine();
    // 1.Kc7 Ka7 2.Ra1# (Stockfish 15.1: score mate 2, pv d6c7 a8a7 b1a1).
    e.set_position(Some("k7/8/3K4/8/8/8/8/1R6 w - - 0 1"), &[]).unwrap();
    let out = e.search_sync(Limits { mate: Some(2), depth: Some(20), ..Limits::default() }).unwrap();
    assert_eq!(Score::from_value(out.score), Score::Mate(2));
    assert_eq!(e.board().move_to_uci(out.best), "d6c7");
}

#[test]
fn searchmoves_restricts_the_best_move() {
    let mut e = quiet_engine();
    let only = e.board().parse_uci("a2a3").unwrap();
    let out = e.search_sync(Limits { depth: Some(6), searchmoves: vec![only], ..Limits::default() }).unwrap();
    assert_eq!(out.best, only);
}

#[test]
fn multipv_reports_distinct_lines() {
    let mut e = quiet_engine();
    e.set_option("MultiPV", Some("3")).unwrap();
    let out = e.search_sync(depth(6)).unwrap();
    let top: Vec<_> = out.root_moves.iter().take(3).map(|r| r.mv).collect();
    assert_eq!(top.len(), 3);
    assert!(top[0] != top[1] && top[1] != top[2] && top[0] != top[2]);
    assert!(out.root_moves[2].score > -crate::search::INFINITE);
}

#[test]
fn no_legal_move_gives_null_bestmove() {
    let mut e = quiet_engine();
    e.set_position(Some("7k/5Q2/8/8/8/8/8/6K1 b - - 0 1"), &[]).unwrap();
    let out = e.search_sync(depth(5)).unwrap();
    assert!(out.best.is_none());
}

#[test]
fn node_limit_is_respected_with_one_thread() {
    let mut e = quiet_engine();
    let out = e.search_sync(Limits { nodes: Some(20_000), ..Limits::default() }).unwrap();
    assert!(out.nodes <= 20_000 + 1, "{}", out.nodes);
    assert!(e.board().is_legal(out.best));
}

#[test]
fn soft_node_limit_ends_the_iteration_that_passes_it() {
    let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let search = |limits: Limits| {
        let mut e = quiet_engine();
        e.set_position(Some(fen), &[]).unwrap();
        e.search_sync(limits).unwrap()
    };
    let soft = 30_000;
    let out = search(Limits { soft_nodes: Some(soft), ..Limits::default() });
    assert!(out.nodes >= soft, "{}", out.nodes);
    // The search is the fixed-depth search of the iteration that passed
    // the limit: the one before it stayed below.
    let same = search(depth(out.depth));
    assert_eq!((same.nodes, same.best, same.score), (out.nodes, out.best, out.score));
    assert!(search(depth(out.depth - 1)).nodes < soft);
    // The hard limit still ends the search inside an iteration.
    let hard = search(Limits { soft_nodes: Some(soft), nodes: Some(5_000), ..Limits::default() });
    assert!(hard.nodes <= 5_001, "{}", hard.nodes);
}

#[test]
fn fixed_node_search_is_deterministic() {
    let run = || {
        let mut e = quiet_engine();
        e.set_position(Some("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"), &[]).unwrap();
        let o = e.search_sync(Limits { nodes: Some(50_000), ..Limits::default() }).unwrap();
        (o.best, o.score, o.root_moves.iter().map(|r| r.nodes).collect::<Vec<_>>())
    };
    assert_eq!(run(), run());
}

#[test]
fn two_threads_search_returns_a_legal_move() {
    let mut e = quiet_engine();
    e.set_option("Threads", Some("2")).unwrap();
    let out = e.search_sync(depth(10)).unwrap();
    assert!(e.board().is_legal(out.best));
    assert!(out.depth >= 10);
}

#[test]
fn depth_limited_search_on_two_threads_answers_at_the_depth_with_its_line() {
    // Whichever thread completes the depth first ends the search; the
    // answer and the last info line are that thread's.
    let (mut e, infos) = recording_engine();
    e.set_option("Threads", Some("2")).unwrap();
    for fen in crate::bench::POSITIONS.iter().take(12) {
        e.new_game();
        e.set_position(Some(fen), &[]).unwrap();
        infos.lock().clear();
        let out = e.search_sync(depth(9)).unwrap();
        assert!(e.board().is_legal(out.best), "{fen}");
        assert_eq!(out.depth, 9, "{fen}");
        let last = infos.lock().last().cloned().expect("an info line");
        assert_eq!((last.depth, last.pv.first().copied()), (9, Some(out.best)), "{fen}");
    }
}

#[test]
fn last_line_before_bestmove_starts_with_the_move_played() {
    // A node limit stops the search inside an iteration, where a move that
    // raised alpha is played ahead of the last completed iteration's best:
    // its line is shown before bestmove.
    let (mut e, infos) = recording_engine();
    let mut from_stopped_iteration = 0;
    for fen in crate::bench::POSITIONS.iter().take(20) {
        for nodes in [4_000, 9_000, 20_000, 45_000] {
            e.new_game();
            e.set_position(Some(fen), &[]).unwrap();
            infos.lock().clear();
            let out = e.search_sync(Limits { nodes: Some(nodes), ..Limits::default() }).unwrap();
            let infos = infos.lock();
            let last = infos.iter().rev().find(|i| i.multipv == 1).expect("an info line");
            assert_eq!(last.pv.first().copied(), Some(out.best), "{fen} at {nodes} nodes");
            if last.depth > out.depth {
                from_stopped_iteration += 1;
            }
        }
    }
    assert!(from_stopped_iteration > 0, "no search changed its mind in a stopped iteration");
}

#[test]
fn rejects_unknown_options_and_out_of_range_values() {
    let mut e = quiet_engine();
    assert!(matches!(e.set_option("NoSuchOption", Some("1")), Err(EngineError::UnknownOption(_))));
    assert!(matches!(e.set_option("Hash", Some("abc")), Err(EngineError::BadOptionValue { .. })));
    assert!(matches!(e.set_option("Threads", Some("0")), Err(EngineError::BadOptionValue { .. })));
    assert!(matches!(e.set_option("UCI_ShowWDL", Some("maybe")), Err(EngineError::BadOptionValue { .. })));
    assert!(e.set_option("hash", Some("8")).is_ok(), "names are case-insensitive");
    assert_eq!(e.hash_mb(), 8);
}

#[test]
fn avoids_a_losing_capture_and_takes_a_free_queen() {
    let mut e = quiet_engine();
    e.set_position(Some("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"), &[]).unwrap();
    let out = e.search_sync(depth(6)).unwrap();
    assert_eq!(e.board().move_to_uci(out.best), "d2d5");
}

#[test]
fn search_elo_rates_the_smallest_node_budget() {
    use crate::book::format::elo::estimate;
    use crate::engine::search_elo;
    let nodes = Limits { nodes: Some(1_000_000), ..Limits::default() };
    assert_eq!(search_elo(&nodes, 1, 20), estimate(1_000_000, 1));
    assert!(search_elo(&nodes, 2, 20) < search_elo(&nodes, 1, 20), "the same nodes on two threads are worth less");
    // 100 ms minus 20 ms overhead at 2M nodes/s = 160k nodes, below the node limit.
    let both = Limits { nodes: Some(1_000_000), movetime_ms: Some(100), ..Limits::default() };
    assert_eq!(search_elo(&both, 1, 20), estimate(160_000, 1));
    let infinite = Limits { infinite: true, ..Limits::default() };
    assert_eq!(search_elo(&infinite, 1, 20), i32::MAX);
    assert_eq!(search_elo(&Limits::default(), 1, 20), i32::MAX);
}

#[test]
fn gui_aliases_set_the_book_options() {
    let mut o = Options::default();
    o.set("Book File", Some("/tmp/a.bin")).unwrap();
    assert_eq!(o.book_file, "/tmp/a.bin");
    o.set("bestbookmove", Some("true")).unwrap();
    assert_eq!(o.book_selection, crate::book::play::select::Selection::Best);
    o.set("BestBookMove", Some("false")).unwrap();
    assert_eq!(o.book_selection, crate::book::play::select::Selection::Weighted);
    let err = o.set("BestBookMove", Some("maybe")).unwrap_err();
    assert!(matches!(err, EngineError::BadOptionValue { ref name, .. } if name == "BestBookMove"), "{err:?}");
    o.set("BookSelection", Some("uniform")).unwrap();
    assert_eq!(o.book_selection, crate::book::play::select::Selection::Uniform);
}

#[test]
fn book_width_and_min_weight_narrow_polyglot_choices() {
    let path = std::env::temp_dir().join(format!("archivist-width-{}.bin", std::process::id()));
    let start = crate::board::Board::startpos();
    let entries: Vec<_> = [("e2e4", 50), ("d2d4", 40), ("c2c4", 30)]
        .iter()
        .map(|(m, w)| crate::book::format::polyglot::entry_for(&start, start.parse_uci(m).unwrap(), *w, 0))
        .collect();
    crate::book::format::polyglot::write_book(&path, &entries).unwrap();
    let mut e = quiet_engine();
    e.set_option("BookFile", path.to_str()).unwrap();
    e.set_option("BookSelection", Some("uniform")).unwrap();
    let seen = |e: &mut Engine| {
        let mut s: Vec<String> = (0..60)
            .map(|_| {
                let m = e.book_move().unwrap().mv;
                e.board().move_to_uci(m)
            })
            .collect();
        s.sort();
        s.dedup();
        s
    };
    assert_eq!(seen(&mut e), ["c2c4", "d2d4", "e2e4"]);
    e.set_option("BookWidth", Some("2")).unwrap();
    assert_eq!(seen(&mut e), ["d2d4", "e2e4"]);
    e.set_option("BookWidth", Some("0")).unwrap();
    e.set_option("BookMinWeight", Some("45")).unwrap();
    assert_eq!(seen(&mut e), ["e2e4"]);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn learned_results_change_the_yacb_book_choice() {
    use crate::book::format::yacb::{self, BoundType, Elo, KeyType, Source, ValueType, YacbEntry};
    let dir = std::env::temp_dir().join(format!("archivist-learned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("b.yacb");
    let start = crate::board::Board::startpos();
    let child = |m: &str, perf: i32| {
        let mut b = start.clone();
        b.make_move(b.parse_uci(m).unwrap());
        let e = YacbEntry {
            key: b.key(),
            elo: Elo::Rated(0),
            value_type: ValueType::Perf,
            bound: BoundType::Exact,
            source: Source::Statistical,
            value: perf,
            best_move: crate::types::Move::NONE,
        };
        (b.key(), e)
    };
    let (e4, e4_entry) = child("e2e4", 22_000);
    let (_, d4_entry) = child("d2d4", 21_000);
    yacb::write(&path, &KeyType::Engine, vec![e4_entry, d4_entry]).unwrap();
    // Eight games after 1. e4, all lost by white.
    crate::book::format::learn::record(&path, &[(e4, 0); 8]).unwrap();
    let mut e = quiet_engine();
    e.set_option("BookFile", path.to_str()).unwrap();
    e.set_option("BookSelection", Some("best")).unwrap();
    let best = |e: &mut Engine| {
        let m = e.book_move().unwrap().mv;
        e.board().move_to_uci(m)
    };
    assert_eq!(best(&mut e), "e2e4");
    e.set_option("BookLearn", Some("true")).unwrap();
    // (0.55 · 8 + 0) / 16 = 0.275 for white after 1. e4: d4 is better now.
    assert_eq!(best(&mut e), "d2d4");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_file_switches_the_search_to_the_network_and_back() {
    let dir = crate::testdata::TempDir::new("engine-evalfile");
    let path = dir.file("random.nnue");
    crate::nnue::Network::random(32, 5).write(&path).unwrap();
    let fen = "r3k2r/1pp2ppp/p1n1bn2/3pp3/1bPP4/2N1PN2/PP1BBPPP/R2QK2R w KQkq d6 0 9";
    let nodes = |e: &mut Engine| {
        e.new_game();
        e.set_position(Some(fen), &["c4d5", "e6d5", "e1g1"]).unwrap();
        e.search_sync(depth(8)).unwrap().nodes
    };
    let mut e = hand_written_engine();
    let hand_written = nodes(&mut e);
    assert!(!e.eval_report().contains("NNUE"));
    let msg = e.set_option("EvalFile", Some(path.to_str().unwrap())).unwrap().unwrap();
    assert!(msg.contains("loaded"), "{msg}");
    assert!(e.eval_report().contains("NNUE evaluation"), "{}", e.eval_report());
    // The test profile checks every incremental accumulator against a
    // refresh (captures, castling, en passant and promotions included).
    let with_net = nodes(&mut e);
    assert_ne!(with_net, hand_written, "the network evaluates");
    e.set_option("Threads", Some("2")).unwrap();
    let best = e.search_sync(depth(8)).unwrap().best;
    assert!(e.board().is_legal(best));
    e.set_option("EvalFile", Some("<empty>")).unwrap();
    e.set_option("Threads", Some("1")).unwrap();
    assert_eq!(nodes(&mut e), hand_written, "back to the hand-written evaluation");
}

#[test]
fn a_zero_correction_on_the_hand_written_base_searches_as_the_hand_written_evaluation() {
    let dir = crate::testdata::TempDir::new("engine-evalfile-base");
    let path = dir.file("zero.nnue");
    let mut net = crate::nnue::FloatNetwork::zeros(16, crate::nnue::Quantisation::default()).unwrap();
    net.set_base(crate::nnue::Base::HandWritten);
    net.quantise().write(&path).unwrap();
    let fen = "r3k2r/1pp2ppp/p1n1bn2/3pp3/1bPP4/2N1PN2/PP1BBPPP/R2QK2R w KQkq d6 0 9";
    let search = |e: &mut Engine| {
        e.new_game();
        e.set_position(Some(fen), &["c4d5", "e6d5"]).unwrap();
        let r = e.search_sync(depth(8)).unwrap();
        (r.nodes, r.best)
    };
    let mut e = hand_written_engine();
    let hand_written = search(&mut e);
    let reply = e.set_option("EvalFile", Some(path.to_str().unwrap())).unwrap().unwrap_or_default();
    assert!(reply.contains("(768 -> 16) x 2 -> 1 + the hand-written evaluation loaded"), "{reply}");
    let report = e.eval_report();
    let hce = crate::eval::evaluate(e.board());
    assert!(report.contains(&format!("Hand-written evaluation {hce} cp + network 0 cp")), "{report}");
    assert_eq!(search(&mut e), hand_written, "the same tree, node for node");
}

#[test]
fn use_network_false_selects_the_hand_written_evaluation_and_an_empty_eval_file_the_built_in_network() {
    let dir = crate::testdata::TempDir::new("engine-use-network");
    let path = dir.file("random.nnue");
    let net = crate::nnue::Network::random(32, 5);
    net.write(&path).unwrap();
    let fen = "r3k2r/1pp2ppp/p1n1bn2/3pp3/1bPP4/2N1PN2/PP1BBPPP/R2QK2R w KQkq d6 0 9";
    let nodes = |e: &mut Engine| {
        e.new_game();
        e.set_position(Some(fen), &["c4d5", "e6d5"]).unwrap();
        e.search_sync(depth(7)).unwrap().nodes
    };
    let mut e = hand_written_engine();
    let hand_written = nodes(&mut e);
    e.set_option("EvalFile", Some(path.to_str().unwrap())).unwrap();
    let with_file = nodes(&mut e);
    assert_ne!(with_file, hand_written);
    let msg = e.set_option("UseNetwork", Some("false")).unwrap().unwrap();
    assert!(msg.contains("hand-written"), "{msg}");
    assert!(!e.eval_report().contains("NNUE"));
    assert_eq!(nodes(&mut e), hand_written);
    e.set_option("UseNetwork", Some("true")).unwrap();
    assert_eq!(nodes(&mut e), with_file);

    // With a built-in network, an empty EvalFile selects it; UseNetwork
    // false still selects the hand-written evaluation.
    e.set_option("EvalFile", Some("<empty>")).unwrap();
    assert_eq!(nodes(&mut e), hand_written, "this binary has no built-in network");
    e.set_builtin_network(Some(Arc::new(net)));
    assert_eq!(nodes(&mut e), with_file, "the built-in network, the same as the file");
    assert!(e.eval_report().contains("NNUE evaluation"));
    e.set_option("UseNetwork", Some("false")).unwrap();
    assert_eq!(nodes(&mut e), hand_written);
}

#[test]
fn a_bad_eval_file_is_reported_and_the_current_evaluation_kept() {
    let dir = crate::testdata::TempDir::new("engine-evalfile-bad");
    let good = dir.file("good.nnue");
    crate::nnue::Network::random(16, 2).write(&good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let bad = dir.file("bad.nnue");
    std::fs::write(&bad, &bytes[..bytes.len() - 9]).unwrap();
    let mut e = hand_written_engine();
    let msg = e.set_option("EvalFile", Some(bad.to_str().unwrap())).unwrap().unwrap();
    assert!(msg.contains("truncated") && msg.contains("hand-written evaluation is kept"), "{msg}");
    assert_eq!(e.options().eval_file, "");
    e.set_option("EvalFile", Some(good.to_str().unwrap())).unwrap();
    let msg = e.set_option("EvalFile", Some(dir.file("missing.nnue").to_str().unwrap())).unwrap().unwrap();
    assert!(msg.contains("network in use is kept"), "{msg}");
    assert_eq!(e.options().eval_file, good.to_str().unwrap());
    assert!(e.eval_report().contains("NNUE evaluation"));
}

/// A string option's value, read from the engine's options.
fn string_option<'a>(o: &'a Options, name: &str) -> &'a str {
    match name {
        "Hash File" => &o.hash_file,
        "BookFile" => &o.book_file,
        "BookFileWhite" => &o.book_file_white,
        "BookFileBlack" => &o.book_file_black,
        "SyzygyPath" => &o.syzygy_path,
        "EvalFile" => &o.eval_file,
        "Debug Log File" => &o.debug_log_file,
        other => panic!("string option {other}: read it here"),
    }
}

#[test]
fn empty_value_clears_every_string_option() {
    let dir = std::env::temp_dir().join(format!("archivist-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut e = quiet_engine();
    for spec in OPTIONS.iter().filter(|s| matches!(s.kind, OptionKind::Str { .. })) {
        let path = dir.join(spec.name);
        e.set_option(spec.name, path.to_str()).unwrap();
        e.set_option(spec.name, Some("<empty>")).unwrap();
        assert_eq!(string_option(e.options(), spec.name), "", "{}", spec.name);
    }
    assert!(!crate::logging::log_file_active(), "<empty> closes the debug log");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The debug game (what `make debug-game` plays over UCI): two engines with
/// two search threads and 8 MB each play 120 plies at 20,000 nodes a move
/// from a Petrov-like opening, here in the test profile, so the debug
/// assertions (the Board consistency check after every make and unmake, in
/// every thread) run all the way. Every best move must be legal.
#[test]
fn debug_game_between_two_engines_with_two_threads_each_is_clean() {
    const START: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    let mut sides = [quiet_engine(), quiet_engine()];
    for e in &mut sides {
        e.set_option("Hash", Some("8")).unwrap();
        e.set_option("Threads", Some("2")).unwrap();
    }
    let mut board = Board::from_fen(START, false).unwrap();
    let mut moves: Vec<String> = Vec::new();
    for ply in 0..120 {
        if board.legal_moves().is_empty() {
            break;
        }
        let e = &mut sides[ply % 2];
        let played: Vec<&str> = moves.iter().map(String::as_str).collect();
        e.set_position(Some(START), &played).unwrap();
        let out = e.search_sync(Limits { nodes: Some(20_000), ..Limits::default() }).expect("a finished search");
        let best = out.best;
        assert!(
            best != crate::types::Move::NONE && board.is_legal(best),
            "illegal {best:?} at ply {ply} in {}",
            board.fen()
        );
        moves.push(crate::board::notation::uci_string(best, false));
        board.make_move(best);
    }
    assert!(moves.len() >= 20, "the game ended after {} plies", moves.len());
}
