//! Tests of the tablebase module: python-chess's answers on the vector file,
//! damaged copies of real tables, random bytes, threads and root ranking.

use super::table::{Kind, Storage, Table};
use super::*;
use crate::board::Board;
use crate::types::Move;
use std::sync::atomic::{AtomicU64, Ordering};

/// The shared Syzygy tables (16 MB, not committed): tests that need them
/// start with `if !have_tables() { return; }`.
fn have_tables() -> bool {
    crate::testdata::path("syzygy").is_some()
}

fn syzygy_dir() -> String {
    crate::testdata::path("syzygy").expect("checked by have_tables").display().to_string()
}

fn tables() -> Tablebases {
    let (tb, issues) = Tablebases::new(&syzygy_dir());
    assert!(issues.is_empty(), "{issues:?}");
    assert!(tb.table_count() >= 37, "tables not found in {}", syzygy_dir());
    tb
}

/// xorshift64*: a small deterministic generator for damage offsets.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A fresh empty directory under the system temp dir.
fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("archivist-tb-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn vectors() -> Vec<(String, i32, i32)> {
    let path = format!("{}/engine-tests/data/tb_vectors.csv", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(';').collect();
            (f[0].to_string(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

#[test]
fn the_readme_states_how_many_vectors_there_are() {
    let readme = std::fs::read_to_string(format!("{}/README.md", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let (_, after) = readme.split_once("`engine-tests/data/tb_vectors.csv`").expect("the README names the file");
    let (_, count) = after.split_once(" of ").expect("… of N positions");
    let stated: usize = count.split_whitespace().next().unwrap().replace(',', "").parse().unwrap();
    assert_eq!(stated, vectors().len(), "README.md: tb_vectors.csv's count");
}

#[test]
fn wdl_and_dtz_agree_with_python_chess_on_every_vector() {
    if !have_tables() {
        return;
    }
    let tb = tables();
    let rows = vectors();
    assert!(rows.len() >= 20_000);
    let mut bad = Vec::new();
    for (fen, wdl, dtz) in &rows {
        let b = Board::from_fen(fen, false).unwrap();
        let got_wdl = tb.probe_wdl(&b).map(Wdl::value);
        let got_dtz = tb.probe_dtz(&b).map(|d| d.0);
        if got_wdl != Ok(*wdl) || got_dtz != Ok(*dtz) {
            bad.push(format!("{fen}: want {wdl} {dtz}, got {got_wdl:?} {got_dtz:?}"));
        }
    }
    assert!(bad.is_empty(), "{} of {} disagree, e.g.\n{}", bad.len(), rows.len(), bad[..bad.len().min(20)].join("\n"));
}

#[test]
fn vectors_cover_every_table_both_orientations_and_en_passant() {
    if !have_tables() {
        return;
    }
    let rows = vectors();
    let mut seen = std::collections::HashSet::new();
    let mut ep = 0;
    for (fen, _, _) in &rows {
        let b = Board::from_fen(fen, false).unwrap();
        seen.insert(Pos::from_board(&b).material().key());
        ep += b.ep_square().is_some() as usize;
    }
    let tb = tables();
    for e in &tb.entries {
        assert!(seen.contains(&e.material.key()), "{} not covered", e.material);
        assert!(seen.contains(&e.material.flipped().key()), "{} not covered mirrored", e.material);
    }
    assert!(ep >= 1000, "only {ep} en-passant positions");
}

use super::position::Pos;

#[test]
fn simple_positions() {
    if !have_tables() {
        return;
    }
    let tb = tables();
    let probe = |fen: &str| {
        let b = Board::from_fen(fen, false).unwrap();
        (tb.probe_wdl(&b).map(Wdl::value), tb.probe_dtz(&b).map(|d| d.0))
    };
    // python-chess's documentation example.
    assert_eq!(probe("8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1"), (Ok(-2), Ok(-53)));
    assert_eq!(probe("8/8/8/8/8/8/8/K1k5 w - - 0 1"), (Ok(0), Ok(0)));
    assert_eq!(probe("4k3/8/8/8/8/8/8/4K2R w K - 0 1").0, Err(TbError::Castling));
    let six = probe("4k3/8/8/8/8/8/PPP5/4K2R w - - 0 1").0;
    assert!(matches!(six, Err(TbError::MissingTable { .. })), "{six:?}");
    let eight = probe("4k3/8/8/8/8/8/PPPPP3/4K2R w - - 0 1").0;
    assert!(matches!(eight, Err(TbError::TooManyPieces { count: 8, .. })), "{eight:?}");
    let nine = probe("4k3/8/8/8/8/8/PPPPPP2/4K2R w - - 0 1").0;
    assert!(matches!(nine, Err(TbError::TooManyPieces { count: 9, .. })), "{nine:?}");
    let name = match probe("7r/8/8/8/8/3k4/7P/K1R5 w - - 0 1").0 {
        Err(TbError::MissingTable { name }) => name.to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(name, "KRPvKR");
}

#[test]
fn probes_from_many_threads_agree() {
    if !have_tables() {
        return;
    }
    let tb = tables();
    let rows = vectors();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (tb, rows) = (&tb, &rows);
            s.spawn(move || {
                for (fen, wdl, dtz) in rows.iter().skip(t).step_by(7).take(1500) {
                    let b = Board::from_fen(fen, false).unwrap();
                    assert_eq!(tb.probe_wdl(&b).map(Wdl::value), Ok(*wdl), "{fen}");
                    assert_eq!(tb.probe_dtz(&b).map(|d| d.0), Ok(*dtz), "{fen}");
                }
            });
        }
    });
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn tablebases_are_send_and_sync() {
    assert_send_sync::<Tablebases>();
}

#[test]
fn check_all_reports_every_table_ok() {
    if !have_tables() {
        return;
    }
    let tb = tables();
    let status = tb.check_all();
    assert_eq!(status.len(), tb.table_count());
    for s in &status {
        assert!(matches!(s.wdl, FileStatus::Ok { .. }), "{s:?}");
        assert!(matches!(s.dtz, FileStatus::Ok { .. }), "{s:?}");
    }
    assert_eq!(tb.max_pieces(), 5);
}

// ----- damaged files ------------------------------------------------------

/// Vector positions (with python-chess's answers) of a given material.
fn positions_of(name: &str) -> Vec<(Board, i32, i32)> {
    let m = Material::parse(name).unwrap();
    vectors()
        .iter()
        .map(|(fen, w, d)| (Board::from_fen(fen, false).unwrap(), *w, *d))
        .filter(|(b, _, _)| {
            let k = Pos::from_board(b).material().key();
            k == m.key() || k == m.flipped().key()
        })
        .take(60)
        .collect()
}

/// A directory with every table: `file` a damaged copy, the rest symlinks.
fn damaged_dir(tag: &str, file: &str, mut damage: impl FnMut(&mut Vec<u8>)) -> PathBuf {
    let dir = temp_dir(tag);
    for entry in std::fs::read_dir(syzygy_dir()).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        if name == file {
            let mut bytes = std::fs::read(&p).unwrap();
            damage(&mut bytes);
            std::fs::write(dir.join(&name), bytes).unwrap();
        } else if name.ends_with(".rtbw") || name.ends_with(".rtbz") {
            std::os::unix::fs::symlink(&p, dir.join(&name)).unwrap();
        }
    }
    dir
}

#[test]
fn truncated_tables_give_errors_not_crashes() {
    if !have_tables() {
        return;
    }
    for (file, material) in [("KQvKR.rtbw", "KQvKR"), ("KRPvK.rtbz", "KRPvK"), ("KQRvKR.rtbw", "KQRvKR")] {
        let full = std::fs::metadata(format!("{}/{file}", syzygy_dir())).unwrap().len() as usize;
        let boards = positions_of(material);
        let wdl_file = file.ends_with("rtbw");
        for cut in [0, 3, 5, 16, 80, 200, full / 2, full / 2 / 64 * 64 + 16, full - 64, full - 1] {
            let dir = damaged_dir("trunc", file, |b| b.truncate(cut));
            let (tb, issues) = Tablebases::new(dir.to_str().unwrap());
            let cut_is_valid_length = cut % 64 == 16;
            assert_eq!(issues.is_empty(), cut_is_valid_length, "{file} cut at {cut}: {issues:?}");
            let mut errors = 0;
            for (b, wdl, dtz) in &boards {
                // Without the table a probe fails, unless the answer never
                // needed it (a winning capture, a draw for DTZ …): then it
                // is still right.
                let (got, want) = if wdl_file {
                    (tb.probe_wdl(b).map(Wdl::value), *wdl)
                } else {
                    (tb.probe_dtz(b).map(|d| d.0), *dtz)
                };
                match got {
                    Err(_) => errors += 1,
                    Ok(v) => assert_eq!(v, want, "{file} cut at {cut}: {}", b.fen()),
                }
            }
            assert!(errors > boards.len() / 3, "{file} cut at {cut}: only {errors} errors");
            let failed = tb.check_all().iter().any(|s| {
                let bad = |f: &FileStatus| matches!(f, FileStatus::Failed { .. } | FileStatus::Missing);
                s.name == material && bad(if wdl_file { &s.wdl } else { &s.dtz })
            }) || !cut_is_valid_length;
            assert!(failed, "{file} cut at {cut} not reported");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

#[test]
fn bit_flips_give_errors_or_values_never_crashes() {
    if !have_tables() {
        return;
    }
    for (file, material) in [("KQvKR.rtbw", "KQvKR"), ("KPvKP.rtbz", "KPvKP"), ("KRRvKR.rtbw", "KRRvKR")] {
        let len = std::fs::metadata(format!("{}/{file}", syzygy_dir())).unwrap().len() as usize;
        let boards = positions_of(material);
        let mut rng = Rng(len as u64 | 1);
        let mut offsets: Vec<usize> = (0..64).chain([len / 3, len / 2, len - 20]).collect();
        offsets.extend((0..40).map(|_| rng.below(len)));
        for off in offsets {
            for bit in [0, 3, 7] {
                let dir = damaged_dir("flip", file, |b| b[off] ^= 1 << bit);
                let (tb, _) = Tablebases::new(dir.to_str().unwrap());
                for (b, _, _) in &boards {
                    let _ = tb.probe_wdl(b);
                    let _ = tb.probe_dtz(b);
                }
                let _ = tb.check_all();
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}

#[test]
fn random_bytes_never_crash_the_parser() {
    if !have_tables() {
        return;
    }
    let mut rng = Rng(77);
    let real = std::fs::read(format!("{}/KRvKP.rtbw", syzygy_dir())).unwrap();
    let m = Material::parse("KRvKP").unwrap();
    let b = Board::from_fen("8/8/8/8/3k4/8/3p4/K6R w - - 0 1", false).unwrap();
    for round in 0..3000 {
        let mut bytes = real.clone();
        let flips = 1 + rng.below(8);
        for _ in 0..flips {
            let i = if round % 2 == 0 { rng.below(200.min(bytes.len())) } else { rng.below(bytes.len()) };
            bytes[i] = rng.next() as u8;
        }
        if let Ok(t) = Table::parse(Storage::Owned(bytes), Kind::Wdl, m, "fuzz".into()) {
            let _ = t.probe_wdl(&Pos::from_board(&b), Pos::from_board(&b).material());
        }
    }
    let mut junk = vec![0u8; 4096 + 16];
    for _ in 0..500 {
        junk.iter_mut().for_each(|x| *x = rng.next() as u8);
        junk[..4].copy_from_slice(&[0x71, 0xE8, 0x23, 0x5D]);
        let _ = Table::parse(Storage::Owned(junk.clone()), Kind::Wdl, m, "fuzz".into());
    }
}

#[test]
fn bad_paths_are_reported() {
    if !have_tables() {
        return;
    }
    let dir = temp_dir("empty");
    std::fs::write(dir.join("KQvK.rtbw"), b"too short").unwrap();
    std::fs::write(dir.join("notes.txt"), b"x").unwrap();
    let path = format!("{}:/nonexistent/archivist/syzygy", dir.display());
    let (tb, issues) = Tablebases::new(&path);
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert_eq!(tb.table_count(), 0);
    let b = Board::from_fen("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1", false).unwrap();
    assert_eq!(tb.probe_wdl(&b).unwrap_err().to_string(), "missing table KQvK");
    assert!(issues.iter().all(TbLoadIssue::is_failure));

    // The same table in two directories: the first is used, the second noted.
    let other = temp_dir("dup");
    for d in [&dir, &other] {
        std::fs::copy(format!("{}/KQvK.rtbw", syzygy_dir()), d.join("KQvK.rtbw")).unwrap();
    }
    let (tb, issues) = Tablebases::new(&format!("{}:{}", dir.display(), other.display()));
    assert!(matches!(&issues[..], [TbLoadIssue::Duplicate { kept, .. }] if kept.starts_with(&dir)), "{issues:?}");
    assert_eq!(tb.probe_wdl(&b), Ok(Wdl::Win));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&other);
}

// ----- root ranking -------------------------------------------------------

#[test]
fn root_ranking_keeps_wins_and_prefers_short_ones() {
    if !have_tables() {
        return;
    }
    let tb = tables();
    let rows = vectors();
    let mut checked = 0;
    for (fen, wdl, dtz) in rows.iter().step_by(97) {
        let mut b = Board::from_fen(fen, false).unwrap();
        let before = b.clone();
        let ranked = tb.rank_root(&mut b, true, true).unwrap();
        if ranked.moves.is_empty() {
            assert!(b.legal_moves().is_empty(), "{fen}");
            continue;
        }
        assert_eq!(b, before);
        assert_eq!(ranked.moves.len(), b.legal_moves().len());
        assert!(ranked.used_dtz);
        let best = ranked.moves[0];
        // The best move keeps the value of the position.
        b.make_move(best.mv);
        let child = tb.probe_wdl(&b).unwrap().value();
        b.unmake_move();
        assert_eq!(-child.signum(), wdl.signum(), "{fen}: best {:?}", best.mv);
        if *wdl == 2 && b.halfmove_clock() == 0 {
            assert!(best.rank >= rank_bound(true), "{fen}");
            assert_eq!(best.score, TbScore::Win);
            // A win ranked by DTZ: the best move needs at most DTZ + 1 plies.
            assert!(MAX_DTZ - best.rank <= dtz + 1, "{fen}: rank {} dtz {dtz}", best.rank);
        }
        checked += 1;
    }
    assert!(checked > 200);
}

#[test]
fn halfmove_clock_turns_a_slow_win_into_a_cursed_one() {
    if !have_tables() {
        return;
    }
    let tb = tables();
    // KBN v K: mate is 50+ plies away here, so with a high clock the win is
    // no longer safe under the 50-move rule.
    let fen = "8/8/8/8/8/8/8/KBNk4 w - - 0 1";
    let dtz = tb.probe_dtz(&Board::from_fen(fen, false).unwrap()).unwrap().0;
    assert!(dtz > 30, "{dtz}");
    let fresh = tb.rank_root(&mut Board::from_fen(fen, false).unwrap(), true, true).unwrap();
    assert_eq!(fresh.moves[0].score, TbScore::Win);
    let late = "8/8/8/8/8/8/8/KBNk4 w - - 80 100";
    let mut b = Board::from_fen(late, false).unwrap();
    let ranked = tb.rank_root(&mut b, true, true).unwrap();
    let best = ranked.moves[0];
    assert!(best.rank > 0 && best.rank < rank_bound(true), "{best:?}");
    assert!(matches!(best.score, TbScore::Centipawns(c) if c > 0), "{best:?}");
    // Without the 50-move rule it is still a win.
    let ranked = tb.rank_root(&mut b, false, true).unwrap();
    assert_eq!(ranked.moves[0].score, TbScore::Win);
    let plain: Vec<(Move, i32)> = tb.rank_root_moves(&mut b, true).unwrap();
    assert_eq!(plain[0], (best.mv, best.rank));
}

#[test]
fn root_ranking_falls_back_to_wdl_without_dtz_tables() {
    if !have_tables() {
        return;
    }
    let dir = temp_dir("wdlonly");
    for entry in std::fs::read_dir(syzygy_dir()).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "rtbw") {
            std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
        }
    }
    let (tb, issues) = Tablebases::new(dir.to_str().unwrap());
    assert!(issues.is_empty());
    let mut b = Board::from_fen("8/8/8/8/8/3k4/8/K1Q5 w - - 0 1", false).unwrap();
    let ranked = tb.rank_root(&mut b, true, true).unwrap();
    assert!(!ranked.used_dtz);
    assert_eq!(ranked.moves[0].rank, MAX_DTZ);
    assert_eq!(ranked.moves[0].score, TbScore::Win);
    // Qc2+?? Kxc2 and the like are ranked last: they give a draw.
    let last = ranked.moves.last().unwrap();
    assert_eq!(last.rank, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Decompresses every index of every WDL subtable (about 90 s in release
/// mode, hence ignored): no errors, values in range. It also showed that
/// none of the shared tables stores a cursed win or blessed loss.
#[test]
#[ignore]
fn every_wdl_index_decompresses() {
    if !have_tables() {
        return;
    }
    for entry in std::fs::read_dir(syzygy_dir()).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "rtbw") {
            let name = p.file_stem().unwrap().to_str().unwrap();
            let m = Material::parse(name).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            let t = Table::parse(Storage::Owned(bytes), Kind::Wdl, m, name.into()).unwrap();
            for (sub, h) in t.histogram() {
                println!("{name} subtable {sub}: values 0..=4 {:?}", &h[..5]);
                assert_eq!(h[5..], [0, 0, 0], "{name} subtable {sub}");
            }
        }
    }
}
