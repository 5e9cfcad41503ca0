//! A synthetic PGN database for `make book-build-bench`: self-play games
//! perturbed into a pool of distinct games (each leaves its seed game at a
//! random ply with a random legal move, then follows the seed's moves where
//! they are legal and random legal moves where not), written again and
//! again with varied tags until the file reaches the size asked for.
//! Every move is legal, so `polyglot make-book` reads it too.
//!
//! `cargo run --release --example book_synth_pgn -- SEED.pgn OUT.pgn MB [POOL]`

use archivist::board::Board;
use archivist::pgn;
use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// One perturbed game's movetext (SAN with move numbers), or `None` when
/// the seed does not replay.
fn perturb(seed: &pgn::Game, rng: &mut Rng) -> Option<String> {
    let mut board = Board::startpos();
    let deviate = 4 + rng.below(30);
    let mut text = String::with_capacity(seed.moves.len() * 6);
    for (ply, san) in seed.moves.iter().enumerate() {
        let legal: Vec<_> = board.legal_moves().iter().collect();
        if legal.is_empty() {
            break;
        }
        let m = match board.parse_san(san) {
            Ok(m) if ply != deviate => m,
            _ => legal[rng.below(legal.len())],
        };
        if ply % 2 == 0 {
            text.push_str(&format!("{}. ", ply / 2 + 1));
        }
        text.push_str(&board.move_to_san(m));
        text.push(' ');
        board.make_move(m);
    }
    Some(text)
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: book_synth_pgn SEED.pgn OUT.pgn MB [POOL]");
        std::process::exit(2);
    }
    let seeds = pgn::read_file(args[1].as_ref(), pgn::ReadOptions::default())?;
    let target: u64 = args[3].parse::<u64>().unwrap_or(2048) << 20;
    let pool_size: usize = args.get(4).and_then(|p| p.parse().ok()).unwrap_or(150_000);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut pool = Vec::with_capacity(pool_size);
    while pool.len() < pool_size {
        let seed = &seeds[rng.below(seeds.len())];
        let result = seed.tag("Result").unwrap_or("*").to_string();
        if let Some(moves) = perturb(seed, &mut rng) {
            pool.push((moves, result));
        }
    }
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(&args[2])?);
    let classes = ["60+0", "180+2", "300+3", "600+5", "900+10", "1800+0"];
    let (mut written, mut round) = (0u64, 0u64);
    while written < target {
        for (moves, result) in &pool {
            round += 1;
            let game = format!(
                "[Event \"synthetic\"]\n[Site \"?\"]\n[Date \"20{:02}.{:02}.{:02}\"]\n[Round \"{round}\"]\n\
                 [White \"player{}\"]\n[Black \"player{}\"]\n[Result \"{result}\"]\n[WhiteElo \"{}\"]\n\
                 [BlackElo \"{}\"]\n[TimeControl \"{}\"]\n\n{moves}{result}\n\n",
                18 + rng.below(7),
                1 + rng.below(12),
                1 + rng.below(28),
                rng.below(5000),
                rng.below(5000),
                1200 + rng.below(1700),
                1200 + rng.below(1700),
                classes[rng.below(classes.len())],
            );
            out.write_all(game.as_bytes())?;
            written += game.len() as u64;
            if written >= target {
                break;
            }
        }
    }
    out.flush()?;
    eprintln!("{} bytes, {round} games ({} distinct) written to {}", written, pool.len(), args[2]);
    Ok(())
}
