use super::dedup::dedup;
use super::filter::{filter, FilterOptions};
use super::mix::{interleave, parts_needed, split, SplitBy};
use super::shuffle::shuffle;
use super::*;
use crate::records::tests::corpus;
use crate::records::{framing_spans, parse, score};
use std::path::PathBuf;

/// (FEN, move) of every position of a record file, in order.
fn positions(data: &[u8]) -> Vec<(String, crate::types::Move, u16)> {
    let mut v = Vec::new();
    for g in parse(data).unwrap() {
        g.replay(|b, p| v.push((b.fen(), p.mv, p.score)));
    }
    v
}

/// A scratch directory (removed when dropped) and an output path in it.
fn scratch(tag: &str) -> (crate::testdata::TempDir, PathBuf) {
    let dir = crate::testdata::TempDir::new(&format!("pipeline-{tag}"));
    let out = dir.path().join("out.bin");
    (dir, out)
}

#[test]
fn filter_keeps_exactly_the_positions_that_pass_in_decodable_games() {
    let (file, _) = corpus();
    let options = [
        FilterOptions { min_ply: Some(16), max_ply: Some(120), ..Default::default() },
        FilterOptions { no_check: true, no_tactical: true, ..Default::default() },
        FilterOptions { max_cp: Some(300), ..Default::default() },
        FilterOptions { max_disagreement: Some(200), ..Default::default() },
    ];
    for o in options {
        let mut want = Vec::new();
        for g in parse(&file).unwrap() {
            g.replay(|b, p| {
                if o.keeps(b, p, g.result) {
                    want.push((b.fen(), p.mv, p.score));
                }
            });
        }
        let mut out = Vec::new();
        let s = filter(&file, &o, &mut out, &mut |_| {}).unwrap();
        let got = positions(&out);
        assert!(!got.is_empty() && got.len() < s.positions_in as usize, "{o:?}");
        assert_eq!(got.len() as u64, s.positions_out);
        assert_eq!(s.positions_out + s.positions_unstorable, want.len() as u64, "{o:?}");
        if s.positions_unstorable == 0 {
            assert_eq!(got, want, "{o:?}");
        }
    }
}

#[test]
fn filter_rules_read_the_position_and_the_result() {
    use crate::board::Board;
    use crate::records::{GameResult, Ply};
    let b = Board::from_fen("4k3/8/8/8/8/8/4q3/4K3 w - - 0 30", false).unwrap();
    let take = Ply { mv: b.parse_uci("e1e2").unwrap(), score: score::from_cp(-150), visits: vec![] };
    let keeps = |o: FilterOptions, r| o.keeps(&b, &take, r);
    assert!(!keeps(FilterOptions { no_check: true, ..Default::default() }, GameResult::Draw));
    assert!(!keeps(FilterOptions { no_tactical: true, ..Default::default() }, GameResult::Draw));
    assert!(!keeps(FilterOptions { max_ply: Some(57), ..Default::default() }, GameResult::Draw));
    assert!(keeps(FilterOptions { min_ply: Some(58), max_ply: Some(58), ..Default::default() }, GameResult::Draw));
    assert!(!keeps(FilterOptions { max_cp: Some(149), ..Default::default() }, GameResult::Draw));
    let disagree = || FilterOptions { max_disagreement: Some(100), ..Default::default() };
    assert!(!keeps(disagree(), GameResult::Draw), "-150 in a draw");
    assert!(!keeps(disagree(), GameResult::WhiteWin), "white to move at -150 won");
    assert!(keeps(disagree(), GameResult::BlackWin));
}

#[test]
fn dedup_keeps_the_first_of_each_position_whatever_the_memory() {
    let (file, _) = corpus();
    let twice = [file.clone(), file.clone()].concat();
    let mut first = std::collections::HashSet::new();
    let mut want = 0u64;
    for g in parse(&twice).unwrap() {
        g.replay(|b, _| want += u64::from(first.insert(b.key())));
    }
    let (_dir, path) = scratch("dedup");
    let mut results = Vec::new();
    for memory in [1 << 30, 64 << 10] {
        let mut out = Vec::new();
        let s = dedup(&twice, memory, &path, &mut out, &mut |_| {}).unwrap();
        assert_eq!(s.positions_out + s.positions_unstorable, want, "memory {memory}");
        let keys: Vec<u64> = {
            let mut k = Vec::new();
            for g in parse(&out).unwrap() {
                g.replay(|b, _| k.push(b.key()));
            }
            k
        };
        let distinct: std::collections::HashSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), keys.len(), "no position twice");
        results.push(out);
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(std::fs::read_dir(path.parent().unwrap()).unwrap().count(), 0, "temporary files removed");
}

fn sorted_games(data: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = framing_spans(data).into_iter().map(|r| &data[r]).collect();
    v.sort();
    v
}

#[test]
fn shuffle_is_a_seeded_permutation_in_bounded_memory() {
    let (file, _) = corpus();
    let (_dir, path) = scratch("shuffle");
    let run = |seed, memory, positions| {
        let mut out = Vec::new();
        shuffle(&file, seed, memory, positions, &path, &mut out, &mut |_| {}).unwrap();
        out
    };
    let a = run(7, 100_000, false);
    assert_eq!(a, run(7, 100_000, false), "same seed, same order");
    assert_ne!(a, run(8, 100_000, false));
    assert_ne!(a, file);
    assert_eq!(sorted_games(&a), sorted_games(&file));
    assert_eq!(sorted_games(&run(7, 1 << 30, false)), sorted_games(&file));
    let p = run(3, 1 << 20, true);
    let mut got = positions(&p);
    let mut want = positions(&file);
    assert_eq!(parse(&p).unwrap().len(), want.len(), "one game per position");
    got.sort();
    want.sort();
    assert_eq!(got, want);
}

/// With one bucket the order is the codec's Fisher–Yates over the games,
/// the generator seeded with the seed after one draw a game (the deal to
/// the bucket): a permutation, the same for a seed on every machine.
#[test]
fn shuffle_is_the_codecs_fisher_yates_for_a_seed() {
    let (file, _) = corpus();
    let (_dir, path) = scratch("shuffle-codec");
    let spans = framing_spans(&file);
    for seed in [0, 7, u64::MAX] {
        let mut out = Vec::new();
        shuffle(&file, seed, 1 << 30, false, &path, &mut out, &mut |_| {}).unwrap();
        let mut rng = crate::codec::SplitMix64::new(seed);
        for _ in &spans {
            rng.next_u64();
        }
        let mut order = spans.clone();
        rng.shuffle(&mut order);
        let want: Vec<u8> = order.iter().flat_map(|s| file[s.clone()].iter().copied()).collect();
        assert_eq!(out, want, "seed {seed}");
        assert_eq!(sorted_games(&out), sorted_games(&file), "a permutation");
    }
}

#[test]
fn interleave_keeps_every_game_and_each_inputs_order() {
    let (file, _) = corpus();
    let spans = framing_spans(&file);
    let (a, b) = file.split_at(spans[spans.len() / 3].start);
    let mut out = Vec::new();
    let s = interleave(&[a, b], 5, &mut out, &mut |_| {}).unwrap();
    assert_eq!(s.games_out as usize, spans.len());
    assert_eq!(sorted_games(&out), sorted_games(&file));
    assert_ne!(out, file, "the inputs are mixed");
    let mut again = Vec::new();
    interleave(&[a, b], 5, &mut again, &mut |_| {}).unwrap();
    assert_eq!(out, again);
    // Games of `a` keep their order.
    let from_a: Vec<&[u8]> =
        framing_spans(&out).into_iter().map(|r| &out[r]).filter(|g| a.windows(g.len()).any(|w| w == *g)).collect();
    let a_games: Vec<&[u8]> = framing_spans(a).into_iter().map(|r| &a[r]).collect();
    assert_eq!(from_a, a_games);
}

#[test]
fn split_deals_every_game_to_one_part() {
    let (file, n) = corpus();
    for by in [SplitBy::Parts(3), SplitBy::GamesPerPart(100)] {
        let k = parts_needed(&file, by);
        let mut bufs: Vec<Vec<u8>> = vec![Vec::new(); k];
        let mut outs: Vec<&mut dyn Write> = bufs.iter_mut().map(|b| b as &mut dyn Write).collect();
        split(&file, by, &mut outs, &mut |_| {}).unwrap();
        assert_eq!(bufs.iter().map(|b| framing_spans(b).len()).sum::<usize>(), n);
        if by == SplitBy::GamesPerPart(100) {
            assert_eq!(k, n.div_ceil(100));
            assert_eq!(bufs.concat(), file);
        } else {
            assert_eq!(framing_spans(&bufs[1]).len(), n / 3 + usize::from(n % 3 > 1));
        }
    }
}

#[test]
fn tools_stop_at_damaged_input() {
    let (file, _) = corpus();
    let cut = &file[..file.len() - 1];
    let mut out = Vec::new();
    assert!(filter(cut, &FilterOptions::default(), &mut out, &mut |_| {}).is_err());
    let (_dir, spill) = scratch("damaged");
    assert!(dedup(cut, 1 << 20, &spill, &mut out, &mut |_| {}).is_err());
    assert!(interleave(&[cut], 1, &mut out, &mut |_| {}).is_err());
}

#[test]
fn a_temporary_file_reads_back_only_as_written() {
    let (_dir, out) = scratch("read-back");
    let dir = TempDir::beside(&out).unwrap();
    std::fs::write(dir.file("t"), [1u8, 2, 3, 4]).unwrap();
    assert_eq!(super::read_back(&dir, "t", 4).unwrap(), [1, 2, 3, 4]);
    for len in [3, 5] {
        let e = super::read_back(&dir, "t", len).unwrap_err();
        assert!(
            matches!(&e, RecordError::Io(io) if io.kind() == std::io::ErrorKind::InvalidData),
            "{len} bytes written: {e}"
        );
        assert!(e.to_string().contains("temporary file damaged"), "{e}");
    }
    assert!(super::read_back(&dir, "never-written", 0).unwrap().is_empty());
    assert!(super::read_back(&dir, "never-written", 8).is_err());
}
