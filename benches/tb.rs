//! `make tb-bench`: WDL and DTZ probes per second over a fixed position list
//! (the positions of `engine-tests/data/tb_vectors.csv`), with warm tables,
//! for Archivist and, in the same run, for the `shakmaty-syzygy` crate
//! (memory-mapped). Prints both rates and their ratio.
//!
//! Tables: `../shared/syzygy`, or the directory in `ARCHIVIST_SYZYGY`.

use archivist::board::Board;
use archivist::tb::Tablebases;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};
use shakmaty_syzygy::Tablebase;
use std::time::Instant;

/// Best time of `runs` passes of `f` over the list; `f` returns a checksum.
fn best_of<F: FnMut() -> i64>(runs: usize, mut f: F) -> (i64, f64) {
    let mut best = f64::MAX;
    let mut sum = 0;
    for _ in 0..runs {
        let t = Instant::now();
        sum = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (sum, best)
}

fn main() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = std::env::var("ARCHIVIST_SYZYGY").unwrap_or_else(|_| format!("{root}/../shared/syzygy"));
    let csv = std::fs::read_to_string(format!("{root}/engine-tests/data/tb_vectors.csv")).expect("vector file");
    let fens: Vec<&str> = csv.lines().skip(1).filter_map(|l| l.split(';').next()).collect();

    let (tb, issues) = Tablebases::new(&dir);
    assert!(issues.is_empty() && tb.table_count() > 0, "no usable tables in {dir}: {issues:?}");
    let boards: Vec<Board> = fens.iter().map(|f| Board::from_fen(f, false).expect("vector FEN")).collect();

    // SAFETY (required by the crate): the table files are not modified
    // while the benchmark runs.
    let mut sk = unsafe { Tablebase::<Chess>::with_mmap_filesystem() };
    sk.add_directory(&dir).expect("shakmaty-syzygy reads the directory");
    let positions: Vec<Chess> = fens
        .iter()
        .map(|f| {
            let fen: Fen = f.parse().expect("shakmaty parses the FEN");
            fen.into_position(CastlingMode::Standard).expect("legal position")
        })
        .collect();

    let ours_wdl = || boards.iter().map(|b| tb.probe_wdl(b).map_or(9, |w| w.value() as i64)).sum::<i64>();
    let ours_dtz = || boards.iter().map(|b| tb.probe_dtz(b).map_or(9999, |d| d.0 as i64)).sum::<i64>();
    let sk_wdl =
        || positions.iter().map(|p| sk.probe_wdl_after_zeroing(p).map_or(9, |w| i64::from(i32::from(w)))).sum::<i64>();
    let sk_dtz =
        || positions.iter().map(|p| sk.probe_dtz(p).map_or(9999, |d| i64::from(i32::from(d.ignore_rounding())))).sum();
    // Warm up: map every table and fault its pages in.
    let (a, b) = (ours_wdl(), sk_wdl());
    assert_eq!(a, b, "WDL answers differ");
    let _ = (ours_dtz(), sk_dtz());

    let n = boards.len() as f64;
    println!("{} positions, tables in {dir}", boards.len());
    println!("{:<5} {:>16} {:>20} {:>7}", "probe", "archivist/s", "shakmaty-syzygy/s", "ratio");
    for (name, ours, theirs) in
        [("WDL", &ours_wdl as &dyn Fn() -> i64, &sk_wdl as &dyn Fn() -> i64), ("DTZ", &ours_dtz, &sk_dtz)]
    {
        let (_, ta) = best_of(5, ours);
        let (_, ts) = best_of(5, theirs);
        let (ra, rs) = (n / ta, n / ts);
        println!("{name:<5} {ra:>16.0} {rs:>20.0} {:>7.2}", ra / rs);
    }
}
