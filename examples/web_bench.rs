//! The native half of `make wasm-bench`: the same calls the browser build
//! makes (`archivist::web`), timed here on the native build so that
//! `tools/wasm_bench.py` can print both side by side from one run.
//!
//! `web_bench probe BOOK FENS SECONDS` probes every FEN of the file FENS
//! (one a line) in a loop for about SECONDS and prints
//! `{"probes": N, "seconds": S, "hits": H}`; `web_bench bench` prints
//! `{"nodes": N, "seconds": S}` for `archivist bench`'s search.

use archivist::web::{self, WebBook};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("probe") if args.len() == 4 => {
            let book = WebBook::open(std::fs::read(&args[1])?, None)?;
            let text = std::fs::read_to_string(&args[2])?;
            let fens: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let budget: f64 = args[3].parse()?;
            let (mut probes, mut hits) = (0u64, 0u64);
            let start = Instant::now();
            while start.elapsed().as_secs_f64() < budget {
                for fen in &fens {
                    hits += u64::from(book.probe(fen)?.is_some());
                }
                probes += fens.len() as u64;
            }
            let seconds = start.elapsed().as_secs_f64();
            println!("{{\"probes\": {probes}, \"seconds\": {seconds}, \"hits\": {hits}}}");
        }
        Some("bench") => {
            let start = Instant::now();
            let nodes = web::bench();
            println!("{{\"nodes\": {nodes}, \"seconds\": {}}}", start.elapsed().as_secs_f64());
        }
        _ => return Err("usage: web_bench probe BOOK FENS SECONDS | web_bench bench".into()),
    }
    Ok(())
}
