//! `make book-interchange-bench`: Polyglot lookups per second with
//! Archivist's reader and, in the same run and on the same positions, with
//! python-chess's `chess.polyglot.open_reader(...).find_all(board)`; then the
//! time to convert Debian's gnuchess book (180,358 entries) between formats.
//!
//! A lookup is: Polyglot key of the position, binary search, every entry of
//! the key read and its move turned into a legal move (weight-0 entries
//! included on both sides). Positions are those of the python-chess vectors
//! for the gnuchess book (two thirds in the book, one third just outside).
//! Set BENCH_PYTHON to the interpreter with python-chess (the Makefile passes
//! the virtualenv's).

use archivist::board::Board;
use archivist::book::format::polyglot::PolyglotBook;
use archivist::book::play::BookFormat;
use archivist::book::tools::convert;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const GNUCHESS_BOOK: &str = "/usr/share/games/gnuchess/book.bin";

const PYTHON_BENCH: &str = r#"
import sys, time, chess, chess.polyglot
book, fens = sys.argv[1], open(sys.argv[2]).read().split("\n")
boards = [chess.Board(f) for f in fens if f]
with chess.polyglot.open_reader(book) as reader:
    found = sum(len(list(reader.find_all(b, minimum_weight=0))) for b in boards)
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < 2.0:
        for b in boards:
            for _ in reader.find_all(b, minimum_weight=0):
                pass
        n += len(boards)
    print(n, time.perf_counter() - start, found)
"#;

fn vector_fens() -> Vec<String> {
    let path = format!("{}/engine-tests/data/polyglot_vectors.txt.gz", env!("CARGO_MANIFEST_DIR"));
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).expect("vectors")).read_to_string(&mut text).expect("gzip");
    text.lines().filter(|l| l.starts_with("book.bin;")).filter_map(|l| l.split(';').nth(1)).map(String::from).collect()
}

fn python() -> String {
    std::env::var("BENCH_PYTHON").unwrap_or_else(|_| {
        let venv = format!("{}/.venv/bin/python", env!("CARGO_MANIFEST_DIR"));
        if Path::new(&venv).exists() {
            venv
        } else {
            "python3".into()
        }
    })
}

fn time<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64())
}

fn main() {
    let book_path = Path::new(GNUCHESS_BOOK);
    let book = PolyglotBook::open(book_path).expect("gnuchess book (make deps installs gnuchess-book)");
    let fens = vector_fens();
    let boards: Vec<Board> = fens.iter().map(|f| Board::from_fen(f, false).expect("vector FEN")).collect();
    let found: usize = boards.iter().map(|b| book.moves(b).len()).sum();
    let (mut n, start) = (0usize, Instant::now());
    while start.elapsed().as_secs_f64() < 2.0 {
        for b in &boards {
            std::hint::black_box(book.moves(std::hint::black_box(b)));
        }
        n += boards.len();
    }
    let ours = n as f64 / start.elapsed().as_secs_f64();

    let dir = std::env::temp_dir().join(format!("archivist-book-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fen_file = dir.join("fens.txt");
    std::fs::write(&fen_file, fens.join("\n")).expect("fen file");
    let py = Command::new(python()).arg("-c").arg(PYTHON_BENCH).arg(book_path).arg(&fen_file).output();
    let theirs = match py {
        Ok(out) if out.status.success() => {
            let text = String::from_utf8_lossy(&out.stdout);
            let v: Vec<f64> = text.split_whitespace().filter_map(|x| x.parse().ok()).collect();
            match v.as_slice() {
                [n, s, f] => {
                    assert_eq!(*f as usize, found, "python-chess found a different number of entries");
                    Some(n / s)
                }
                _ => None,
            }
        }
        Ok(out) => {
            eprintln!("python-chess run failed: {}", String::from_utf8_lossy(&out.stderr));
            None
        }
        Err(e) => {
            eprintln!("python-chess not run: {e}");
            None
        }
    };

    println!("Polyglot lookups on {} positions of {GNUCHESS_BOOK} ({found} entries found per pass)", boards.len());
    println!("{:<34} {:>14}", "reader", "lookups/s");
    println!("{:<34} {:>14.0}", "archivist PolyglotBook::moves", ours);
    match theirs {
        Some(t) => {
            println!("{:<34} {:>14.0}", "python-chess find_all", t);
            println!("ratio: {:.1}x", ours / t);
        }
        None => println!("{:<34} {:>14}", "python-chess find_all", "n/a"),
    }

    let p = |name: &str| -> PathBuf { dir.join(name) };
    let (sbob, json, yacb) = (p("g.sbob"), p("g.json"), p("g.yacb"));
    let steps: [(&str, &Path, PathBuf, BookFormat); 7] = [
        ("gnuchess polyglot -> yacb", book_path, yacb.clone(), BookFormat::Yacb),
        ("yacb -> polyglot", &yacb, p("g5.bin"), BookFormat::Polyglot),
        ("gnuchess polyglot -> sbob", book_path, sbob.clone(), BookFormat::Sbob),
        ("sbob -> polyglot", &sbob, p("g2.bin"), BookFormat::Polyglot),
        ("gnuchess polyglot -> json", book_path, json.clone(), BookFormat::Json),
        ("json -> polyglot", &json, p("g3.bin"), BookFormat::Polyglot),
        ("polyglot -> polyglot (rewrite)", book_path, p("g4.bin"), BookFormat::Polyglot),
    ];
    println!("\n{:<34} {:>8}  result", "conversion", "seconds");
    for (name, input, output, to) in steps {
        let (report, s) = time(|| convert::convert(input, &output, to, &[]).expect("convert"));
        println!("{name:<34} {s:>8.3}  {report}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
