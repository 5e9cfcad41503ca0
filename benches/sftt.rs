//! `make sftt-bench` (second half): save and load speed of a full 1 GB
//! transposition table in SFTT format, beside `cp` of the same file in the
//! same run. The table is filled with synthetic entries (every slot used),
//! which is what a long analysis leaves behind.

use archivist::tt::persist::{self, SfttHeader};
use archivist::tt::{Bound, TranspositionTable};
use archivist::types::Move;
use std::time::Instant;

fn main() {
    let mb: usize = std::env::var("SFTT_BENCH_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(1024);
    let dir = std::env::temp_dir().join(format!("archivist-sftt-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("bench.sftt");
    let copy = dir.join("copy.sftt");

    let tt = TranspositionTable::new(mb);
    let mut x = 0x1234_5678_9ABC_DEF1u64;
    for _ in 0..tt.capacity() * 2 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        tt.store(x, (x % 30) as i32 + 1, Bound::Exact, false, Move::from_raw(x as u16), (x >> 20) as i16 as i32, 0);
    }
    let header = SfttHeader { root_pos: None, nodes: 0, root_depth: 0, min_entry_depth: 0 };
    let saved = persist::save(&tt, &header, &path).expect("save");
    drop(tt);
    let mb_file = saved.bytes as f64 / (1024.0 * 1024.0);

    let fresh = TranspositionTable::new(mb);
    let (_, loaded) = persist::load(&fresh, &path).expect("load");

    let t = Instant::now();
    let st = std::process::Command::new("cp").arg(&path).arg(&copy).status().expect("cp");
    let cp_s = t.elapsed().as_secs_f64();
    assert!(st.success());
    // Like save, make cp's copy durable before stopping the clock.
    let t2 = Instant::now();
    let _ = std::process::Command::new("sync").arg(&copy).status();
    let cp_sync_s = cp_s + t2.elapsed().as_secs_f64();

    println!("SFTT file: {} entries, {:.0} MB (Hash {mb} MB)", saved.entries, mb_file);
    println!("{:<28} {:>8} {:>10}", "operation", "seconds", "MB/s");
    println!("{:<28} {:>8.2} {:>10.0}", "save (write+fsync+rename)", saved.seconds, mb_file / saved.seconds);
    println!("{:<28} {:>8.2} {:>10.0}", "load (validate+insert)", loaded.seconds, mb_file / loaded.seconds);
    println!("{:<28} {:>8.2} {:>10.0}", "cp", cp_s, mb_file / cp_s);
    println!("{:<28} {:>8.2} {:>10.0}", "cp + sync", cp_sync_s, mb_file / cp_sync_s);
    let _ = std::fs::remove_dir_all(&dir);
}
