//! `make book-bench`: lookups per second on a 10-million-entry YACB book
//! read through the memory map (fence index + interpolation), hits and misses, and
//! the process's resident memory, beside an in-memory `HashMap` of the same
//! entries in the same run.

use archivist::book::format::yacb::{self, BoundType, Elo, KeyType, Source, ValueType, YacbBook, YacbEntry};
use archivist::types::Move;
use std::collections::HashMap;
use std::time::Instant;

fn rss_mb() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn main() {
    let n: usize = std::env::var("BOOK_BENCH_ENTRIES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000_000);
    let dir = std::env::temp_dir().join(format!("archivist-book-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("big.yacb");
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let keys: Vec<u64> = (0..n).map(|_| xorshift(&mut x)).collect();
    let entries: Vec<YacbEntry> = keys
        .iter()
        .map(|&key| YacbEntry {
            key,
            elo: Elo::Rated(-500),
            value_type: ValueType::Centipawns,
            bound: BoundType::Exact,
            source: Source::Engine,
            value: (key % 200) as i32 - 100,
            best_move: Move::from_raw(key as u16 & 0x0fff),
        })
        .collect();
    yacb::write(&path, &KeyType::Engine, entries.clone()).expect("write");
    let probes = 2_000_000usize;
    let hits: Vec<u64> = (0..probes).map(|_| keys[(xorshift(&mut x) % n as u64) as usize]).collect();
    let misses: Vec<u64> = (0..probes).map(|_| xorshift(&mut x) | 1).collect();

    let rss0 = rss_mb();
    let t = Instant::now();
    let book = YacbBook::open(&path).expect("open");
    let open_ms = t.elapsed().as_secs_f64() * 1000.0;
    let run = |probe: &dyn Fn(u64) -> bool, ks: &[u64]| {
        let t = Instant::now();
        let found = ks.iter().filter(|&&k| probe(k)).count();
        (ks.len() as f64 / t.elapsed().as_secs_f64(), found)
    };
    let mapped = |k: u64| book.lookup(k).is_some();
    let t = Instant::now();
    let _ = book.lookup(hits[0]); // builds the fence index
    let first_ms = t.elapsed().as_secs_f64() * 1000.0;
    let index_kb = book.index_bytes() / 1024;
    run(&mapped, &hits); // warm the page cache and the map
    let (map_hit, fh) = run(&mapped, &hits);
    let (map_miss, fm) = run(&mapped, &misses);
    let rss_map = rss_mb() - rss0;
    drop(book);

    let rss1 = rss_mb();
    let t = Instant::now();
    let table: HashMap<u64, YacbEntry> = entries.into_iter().map(|e| (e.key, e)).collect();
    let build_s = t.elapsed().as_secs_f64();
    let rss_hash = rss_mb() - rss1;
    let hashed = |k: u64| table.contains_key(&k);
    let (hash_hit, hh) = run(&hashed, &hits);
    let (hash_miss, hm) = run(&hashed, &misses);
    assert_eq!((fh, hh), (probes, probes));
    assert_eq!(fm, hm);

    println!("{n} entries, {} MB file; {probes} hits and {probes} misses per reader", n * 16 / (1024 * 1024));
    println!("{:<60} {:>14} {:>14} {:>12}", "reader", "hits/s", "misses/s", "memory MB");
    println!(
        "{:<60} {:>14.0} {:>14.0} {:>12.0}",
        format!("YACB mmap (open {open_ms:.2} ms, first lookup {first_ms:.1} ms, index {index_kb} KB)"),
        map_hit,
        map_miss,
        rss_map
    );
    println!(
        "{:<60} {:>14.0} {:>14.0} {:>12.0}",
        format!("HashMap (build {build_s:.1} s)"),
        hash_hit,
        hash_miss,
        rss_hash
    );
    let _ = std::fs::remove_dir_all(&dir);
}
