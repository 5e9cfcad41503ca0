use super::*;
use crate::records::export::{self, Format};
use crate::records::tests::{check_with_montyformat, corpus};
use crate::records::text::{dump, DumpFormat};
use crate::records::{parse as parse_records, score};

fn run(text: &str, options: &ImportOptions) -> (Vec<u8>, ImportSummary, Vec<Skipped>) {
    let mut out = Vec::new();
    let mut skipped = Vec::new();
    let file: Arc<Path> = Arc::from(Path::new("test.pgn"));
    let summary = import(io::Cursor::new(text.as_bytes().to_vec()), Some(file), &mut out, options, &mut |e| {
        if let Event::Skipped(s) = e {
            skipped.push(s.clone())
        }
    })
    .unwrap();
    (out, summary, skipped)
}

fn scores(bytes: &[u8]) -> Vec<Vec<u16>> {
    parse_records(bytes).unwrap().iter().map(|g| g.plies.iter().map(|p| p.score).collect()).collect()
}

#[test]
fn imports_cutechess_chess960_games_that_montyformat_decodes() {
    let text = crate::testdata::read("pgn/cutechess-fischerrandom.pgn").unwrap();
    let (bytes, summary, skipped) = run(&text, &ImportOptions::default());
    assert!(skipped.is_empty(), "{skipped:?}");
    assert!(summary.imported > 0 && summary.imported == summary.games - summary.unscored);
    let games = check_with_montyformat(&bytes, |_, _, _, _, _| {}, |_, g, _| assert!(g.start.is_chess960()));
    assert_eq!(games as u64, summary.imported);
    let first = &parse_records(&bytes).unwrap()[0];
    assert_eq!(first.start.fen(), "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w GDgd - 0 1");
    // 1. d4 {+0.13/12 0.29s} d5 {-0.17/15 0.30s}: each the mover's view.
    assert_eq!(first.plies[0].score, score::from_cp(13));
    assert_eq!(first.plies[1].score, score::from_cp(-17));
    assert_eq!(first.result, GameResult::BlackWin);
}

#[test]
fn eval_commands_are_whites_view_and_mates_are_certain() {
    let text = "[Result \"1-0\"]\n\n1. e4 {[%eval 0.3]} e5 {[%eval 0.25,20]} 2. Qh5 {+M3/9} Nc6 {-M2/9} 3. Bc4 {[%eval #-4]} Nf6 {[%eval #4]} 4. Qxf7# 1-0\n";
    let (bytes, summary, skipped) = run(text, &ImportOptions { unscored: Unscored::Keep, ..Default::default() });
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(summary.positions, 7);
    let s = &scores(&bytes)[0];
    assert_eq!(s[..2], [score::from_cp(30), score::from_cp(-25)]);
    // +M3 for white, -M2 for black (black is mated), [%eval #-4] after a
    // white move: white is mated (0), [%eval #4] after a black move: black is.
    assert_eq!(s[2..6], [u16::MAX, 0, 0, 0]);
    assert_eq!(s[6], 32768, "unscored with Keep: one half");
}

#[test]
fn the_result_tag_wins_over_the_marker_and_disagreements_are_counted() {
    let keep = ImportOptions { unscored: Unscored::Keep, ..Default::default() };
    let disagree = "[Result \"0-1\"]\n\n1. e4 e5 1-0\n";
    let star_tag = "[Result \"*\"]\n\n1. d4 d5 1/2-1/2\n";
    let tagless = "1. c4 c5 1-0\n";
    let (bytes, summary, skipped) = run(&format!("{disagree}\n{star_tag}\n{tagless}"), &keep);
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!((summary.imported, summary.result_disagreements), (3, 1));
    let results: Vec<GameResult> = parse_records(&bytes).unwrap().iter().map(|g| g.result).collect();
    assert_eq!(results, [GameResult::BlackWin, GameResult::Draw, GameResult::WhiteWin]);
}

#[test]
fn unscored_rule_skips_or_keeps() {
    let book = "[Result \"1/2-1/2\"]\n\n1. e4 {book} e5 {book} 2. Nf3 {+0.20/10} Nc6 {-0.10/10} 1/2-1/2\n";
    let gap = "[Result \"1/2-1/2\"]\n\n1. e4 {+0.20/10} e5 2. Nf3 {+0.20/10} 1/2-1/2\n";
    let none = "[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2\n";
    let text = format!("{book}\n{gap}\n{none}");
    let (bytes, summary, _) = run(&text, &ImportOptions::default());
    assert_eq!((summary.games, summary.imported, summary.unscored, summary.positions), (3, 1, 2, 2));
    let games = parse_records(&bytes).unwrap();
    assert_eq!(games[0].start.fen(), "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    let keep = ImportOptions { unscored: Unscored::Keep, ..Default::default() };
    let (bytes, summary, _) = run(&text, &keep);
    assert_eq!((summary.imported, summary.unscored, summary.positions), (3, 0, 9));
    assert_eq!(scores(&bytes)[1], [score::from_cp(20), 32768, score::from_cp(20)]);
}

#[test]
fn bad_games_are_reported_with_file_game_and_ply_and_skipped() {
    let good = "[Result \"1-0\"]\n\n1. e4 {+0.3/5} e5 {-0.2/5} 1-0\n";
    let text = [
        good,
        "[Result \"1-0\"]\n\n1. e4 {+0.3/5} e5 {-0.2/5} 2. Ke3 {+0.1/5} 1-0\n",
        "[Result \"1-0\"]\n\n1. e4 {+0.3x/5 1s} e5 {-0.2/5} 1-0\n",
        "[Result \"*\"]\n\n1. e4 {+0.3/5} *\n",
        "[Result \"1/2-1/2\"]\n\n1. f3 {+0.1/1} e5 {+0.1/1} 2. g4 {+0.1/1} Qh4# {+M1/1} 1/2-1/2\n",
        "[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n[Result \"1-0\"]\n\n1. e4 {+0.3/5} 1-0\n",
        good,
    ]
    .join("\n");
    let (bytes, summary, skipped) = run(&text, &ImportOptions::default());
    assert_eq!((summary.games, summary.imported, summary.bad), (7, 2, 5));
    assert_eq!(parse_records(&bytes).unwrap().len(), 2);
    let lines: Vec<String> = skipped.iter().map(ToString::to_string).collect();
    assert!(lines[0].starts_with("test.pgn: game 2, ply 3: illegal move 'Ke3'"), "{}", lines[0]);
    assert_eq!(lines[1], "test.pgn: game 3, ply 1: unreadable score comment {+0.3x/5 1s}");
    assert!(lines[2].starts_with("test.pgn: game 4: no result"), "{}", lines[2]);
    assert!(lines[3].contains("game 5: result 1/2-1/2 contradicts the final position (checkmate)"), "{}", lines[3]);
    assert!(lines[4].starts_with("test.pgn: game 6: bad FEN tag"), "{}", lines[4]);
    assert_eq!(skipped[0].problem.ply(), Some(3));
}

#[test]
fn truncated_compressed_input_stops_the_import_with_an_input_error() {
    let text = crate::testdata::read("pgn/cutechess-fischerrandom.pgn").unwrap();
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    io::Write::write_all(&mut e, text.as_bytes()).unwrap();
    let z = e.finish().unwrap();
    let cut = z[..z.len() / 2].to_vec();
    let input = crate::input::Input::from_reader(Box::new(io::Cursor::new(cut)), None, "cut.zst").unwrap();
    let mut out = Vec::new();
    let options = ImportOptions { batch_bytes: 4096, ..Default::default() };
    let r = import(input, None, &mut out, &options, &mut |_| {});
    assert!(matches!(r, Err(ImportError::Input { .. })), "{r:?}");
}

#[test]
fn threads_write_the_same_bytes_in_input_order() {
    let (file, _) = corpus();
    let mut pgn = Vec::new();
    dump(&file, DumpFormat::PgnScores, &mut pgn).unwrap();
    let text = String::from_utf8(pgn).unwrap();
    let one = run(&text, &ImportOptions { batch_bytes: 10_000, ..Default::default() });
    let three = run(&text, &ImportOptions { batch_bytes: 10_000, threads: 3, ..Default::default() });
    assert_eq!(one.0, three.0);
    assert_eq!(one.1, three.1);
}

/// The acceptance round trip: records → sf-plain, and the same records →
/// cutechess-style PGN → import → sf-plain, give the same positions,
/// moves, plies and results, and scores within a centipawn.
#[test]
fn records_and_their_pgn_import_export_the_same_positions() {
    let (file, n) = corpus();
    let mut pgn = Vec::new();
    dump(&file, DumpFormat::PgnScores, &mut pgn).unwrap();
    let (imported, summary, skipped) = run(&String::from_utf8(pgn).unwrap(), &ImportOptions::default());
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(summary.imported, n as u64);
    let plain = |data: &[u8]| {
        let mut out = Vec::new();
        export::export(data, Format::SfPlain, &mut out, &mut |_| {}).unwrap();
        String::from_utf8(out).unwrap()
    };
    let (a, b) = (plain(&file), plain(&imported));
    let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert_eq!(a.len(), b.len());
    assert!(a.len() > 60_000, "{}", a.len());
    for (x, y) in a.iter().zip(&b) {
        match (x.strip_prefix("score "), y.strip_prefix("score ")) {
            (Some(p), Some(q)) => {
                let (p, q): (i32, i32) = (p.parse().unwrap(), q.parse().unwrap());
                assert!((p - q).abs() <= 1, "{p} vs {q}");
            }
            _ => assert_eq!(x, y),
        }
    }
}

#[test]
fn a_real_cutechess_pgn_imports_every_game_with_its_comment_scores() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("engine-tests/data/records/cutechess-stockfish.pgn");
    let text = std::fs::read_to_string(path).unwrap();
    let (bytes, summary, skipped) = run(&text, &ImportOptions::default());
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!((summary.games, summary.imported), (4, 4));
    let pgn_games = crate::pgn::parse(&text);
    let games = check_with_montyformat(
        &bytes,
        |i, theirs, ply, _, board| {
            let _ = (i, board);
            assert_eq!(theirs.score, ply.score as f32 / 65535.0);
        },
        |_, _, _| {},
    );
    assert_eq!(games, 4);
    let records = parse_records(&bytes).unwrap();
    for (g, r) in pgn_games.iter().zip(&records) {
        assert_eq!(r.plies.len(), g.moves.len());
        let first = g.notes[0].comments[0].eval().unwrap();
        let crate::pgn::Eval::Cp(cp) = first else { panic!("{first:?}") };
        assert_eq!(r.plies[0].score, score::from_cp(cp));
        assert_eq!(r.start.fen(), g.tag("FEN").unwrap());
    }
}

proptest::proptest! {
    /// Hostile PGN text (tags, moves, comments, results shuffled) never
    /// panics and never writes a record that does not decode.
    #[test]
    fn hostile_text_never_panics_and_writes_only_valid_records(
        picks in proptest::collection::vec(0usize..14, 0..60),
        keep in proptest::bool::ANY,
    ) {
        const TOKENS: [&str; 14] = [
            "[Result \"1-0\"]\n", "[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n", "e4 ", "e5 ", "Nf3 ", "{+0.3/5} ",
            "{[%eval #0]} ", "{-M2/3} ", "{+x/1} ", "1-0\n", "*\n", "1/2-1/2\n", "{unclosed ", "O-O ",
        ];
        let text: String = picks.iter().map(|&i| TOKENS[i]).collect();
        let unscored = if keep { Unscored::Keep } else { Unscored::Skip };
        let (bytes, summary, skipped) = run(&text, &ImportOptions { unscored, ..Default::default() });
        proptest::prop_assert_eq!(summary.bad as usize, skipped.len());
        proptest::prop_assert_eq!(parse_records(&bytes).unwrap().len() as u64, summary.imported);
    }
}
