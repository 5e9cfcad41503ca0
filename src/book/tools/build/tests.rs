use super::*;
use crate::book::format::polyglot;
use crate::book::format::yacb::{Elo, YacbBook};
use crate::book::tools::make_book::make_book;
use crate::book::tools::stats::{statistical_entries, StatsOptions};
use crate::pgn;
use crate::pgn::ReplayError;
use std::io::Write;

#[derive(Default)]
struct Quiet {
    skipped: usize,
    damaged: usize,
}

impl Observer for Quiet {
    fn skipped(&mut self, _: &ReplayError) {
        self.skipped += 1;
    }
    fn damaged(&mut self, _: &str, _: &str) {
        self.damaged += 1;
    }
    fn progress(&mut self, _: &Progress) {}
}

use crate::testdata::TempDir as Dir;

fn options(target: Target, threads: usize, memory_mb: usize) -> BuildOptions {
    BuildOptions { threads, memory_mb, ..BuildOptions::new(target) }
}

fn selfplay() -> Option<String> {
    let path = crate::testdata::path("pgn/stockfish-selfplay-200.pgn")?;
    Some(std::fs::read_to_string(path).unwrap())
}

fn build_bytes(dir: &Dir, text: &[u8], opts: &BuildOptions) -> (Vec<u8>, Summary) {
    let input = dir.file("in.pgn");
    std::fs::write(&input, text).unwrap();
    let out = dir.file("out.bin");
    let summary = build(&[input], &out, opts, &mut Quiet::default()).expect("builds");
    (std::fs::read(&out).unwrap(), summary)
}

#[test]
fn polyglot_output_is_make_books_for_any_threads_and_memory() {
    let Some(text) = selfplay() else { return };
    let dir = Dir::new("poly");
    let mb = MakeBookOptions { min_game: 1, ..MakeBookOptions::default() };
    let (entries, _) = make_book(&pgn::parse(&text), &mb);
    let want = polyglot::encode(&entries);
    for (threads, memory) in [(1, 1024), (2, 1024), (1, 1), (2, 1)] {
        let (got, summary) =
            build_bytes(&dir, text.as_bytes(), &options(Target::Polyglot(mb.clone()), threads, memory));
        assert_eq!(summary.games, 200);
        assert_eq!(got, want, "threads {threads}, memory {memory} MB");
        if memory == 1 {
            assert!(summary.runs > 0, "200 games spill from 1 MB: {summary:?}");
        }
    }
}

/// `n` games through 1.e4 e5 2.Nf3, each then going its own way for 12
/// plies (a small generator so that the positions differ).
fn branching_games(n: usize) -> String {
    let mut text = String::new();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for i in 0..n {
        let mut board = crate::board::Board::startpos();
        let mut sans = Vec::new();
        for ply in 0..15 {
            let legal = board.legal_moves();
            if legal.is_empty() {
                break;
            }
            let moves: Vec<_> = legal.iter().collect();
            let m = if ply < 3 {
                board.parse_san(["e4", "e5", "Nf3"][ply]).unwrap()
            } else {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                moves[(x % moves.len() as u64) as usize]
            };
            sans.push(board.move_to_san(m));
            board.make_move(m);
        }
        let result = ["1-0", "0-1", "1/2-1/2"][i % 3];
        text.push_str(&format!("[Result \"{result}\"]\n\n{} {result}\n\n", sans.join(" ")));
    }
    text
}

#[test]
fn halving_is_exact_when_the_events_were_spilled_combined_or_split_again() {
    let text = branching_games(17_000);
    let dir = Dir::new("halve");
    let mb = MakeBookOptions { min_game: 1, ..MakeBookOptions::default() };
    let (entries, warnings) = make_book(&pgn::parse(&text), &mb);
    assert!(warnings.is_empty());
    let want = polyglot::encode(&entries);
    // 1.e4's 17,000 plays are halved. The events are spilled from 1 MB; a
    // fan-in of 2 combines the runs in stages first; 2 kB a bucket
    // counts many buckets in a map and splits those whose positions
    // pass even that.
    for (threads, bucket, fan_in) in [(1, None, 64), (2, Some(2048), 64), (1, None, 2), (2, Some(2048), 2)] {
        let opts = BuildOptions {
            bucket_bytes: bucket,
            merge_fan_in: Some(fan_in),
            ..options(Target::Polyglot(mb.clone()), threads, 1)
        };
        let (got, summary) = build_bytes(&dir, text.as_bytes(), &opts);
        assert!(summary.runs > 2, "{summary:?}");
        assert_eq!(summary.splits > 0, bucket.is_some(), "{summary:?}");
        assert_eq!(got, want, "threads {threads}, bucket bytes {bucket:?}, fan-in {fan_in}: {summary:?}");
    }
}

#[test]
fn yacb_output_is_the_statistical_builders_with_a_fixed_elo() {
    let Some(text) = selfplay() else { return };
    let dir = Dir::new("yacb");
    let (entries, _) =
        statistical_entries(&pgn::parse(&text), &StatsOptions { max_ply: 30, min_game: 2, elo: Elo::rated(-700) });
    for (memory, fan_in, bucket) in [(1024, 64, None), (1, 64, None), (1, 2, Some(2048))] {
        let target = Target::Yacb { max_ply: 30, min_game: 2, elo: Some(-700) };
        let opts = BuildOptions { merge_fan_in: Some(fan_in), bucket_bytes: bucket, ..options(target, 2, memory) };
        let (got, summary) = build_bytes(&dir, text.as_bytes(), &opts);
        let book = YacbBook::from_vec(got).expect("a valid book");
        let read: Vec<_> = book.iter().map(|e| e.unwrap()).collect();
        assert_eq!(read, entries, "memory {memory}, fan-in {fan_in}, bucket bytes {bucket:?}: {summary:?}");
    }
}

#[test]
fn yacb_elo_comes_from_the_players_ratings() {
    let text = "[WhiteElo \"2800\"]\n[BlackElo \"2600\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
                [WhiteElo \"2400\"]\n[BlackElo \"?\"]\n[Result \"0-1\"]\n\n1. e4 c5 0-1\n\n[Result \"*\"]\n\n1. d4 *\n";
    let dir = Dir::new("elo");
    let target = Target::Yacb { max_ply: 10, min_game: 1, elo: None };
    let (got, _) = build_bytes(&dir, text.as_bytes(), &options(target, 1, 64));
    let book = YacbBook::from_vec(got).unwrap();
    let mut board = crate::board::Board::startpos();
    // Start: rated games 2700 and 2400 (the unrated third does not count).
    assert_eq!(book.probe(&board).unwrap().elo, Elo::rated(2550 - output::BASELINE_RATING));
    board.make_move(board.parse_san("d4").unwrap());
    assert_eq!(book.probe(&board).unwrap().elo, Elo::rated(crate::book::format::UNKNOWN_ELO));
}

#[test]
fn compressed_inputs_give_the_plain_inputs_book() {
    let Some(text) = selfplay() else { return };
    let dir = Dir::new("zst");
    let opts = options(Target::Polyglot(MakeBookOptions::default()), 2, 64);
    let (plain, _) = build_bytes(&dir, text.as_bytes(), &opts);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(text.as_bytes()).unwrap();
    let zst = zstd::stream::encode_all(text.as_bytes(), 3).unwrap();
    for bytes in [gz.finish().unwrap(), zst] {
        let (got, summary) = build_bytes(&dir, &bytes, &opts);
        assert_eq!(got, plain);
        assert_eq!(summary.source_bytes, bytes.len() as u64);
    }
}

#[test]
fn damaged_input_writes_nothing_and_reports_the_summary() {
    let Some(text) = selfplay() else { return };
    let dir = Dir::new("damaged");
    // Several zstd blocks, so that whole games come before the cut. The
    // repeats compress to almost nothing, so the first copy's blocks fill
    // most of the file: cut near its end (the zstd tool decodes 140 games
    // of such a cut).
    let zst = zstd::stream::encode_all(text.repeat(5).as_bytes(), 3).unwrap();
    let input = dir.file("cut.pgn.zst");
    std::fs::write(&input, &zst[..zst.len() * 9 / 10]).unwrap();
    let out = dir.file("out.bin");
    let mut quiet = Quiet::default();
    let opts = options(Target::Polyglot(MakeBookOptions::default()), 2, 64);
    match build(std::slice::from_ref(&input), &out, &opts, &mut quiet) {
        Err(BuildError::Damaged { summary }) => {
            assert!(summary.games > 0 && summary.games < 1000, "{summary:?}");
            assert_eq!(summary.damaged.len(), 1);
        }
        other => panic!("expected a damaged-input error: {other:?}"),
    }
    assert_eq!(quiet.damaged, 1);
    assert!(!out.exists());
    let allow = BuildOptions { allow_damaged: true, ..opts };
    let summary = build(&[input], &out, &allow, &mut Quiet::default()).expect("writes with allow_damaged");
    assert!(out.exists() && summary.entries > 0);
}
