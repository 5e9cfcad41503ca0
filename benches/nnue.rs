//! `make nnue-bench`: NNUE inference speed with random networks of hidden
//! size 64 to 512: full accumulator refreshes, incremental updates along
//! random games (the parent accumulator hot in cache, as in a search) and
//! forward passes (the kernel `evaluate` picks for this CPU, and the
//! portable one); then the hand-written evaluation on the same positions,
//! which a network on the hand-written base adds to its own cost. Prints
//! calls per second and nanoseconds per call.

use archivist::board::{Board, MoveList};
use archivist::nnue::{evaluate, evaluate_scalar, Accumulator, Network};
use archivist::types::Move;
use std::hint::black_box;
use std::time::Instant;

const STARTS: [&str; 3] = [
    Board::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
];

/// (position, move played in it) along random games, in game order.
fn game_plies(count: usize) -> Vec<(Board, Move)> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(count);
    'games: for game in 0.. {
        let mut board = Board::from_fen(STARTS[game % STARTS.len()], false).expect("bench FEN is valid");
        for _ in 0..120 {
            let mut list = MoveList::new();
            board.generate_legal(&mut list);
            if list.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let m = list.as_slice()[(state % list.len() as u64) as usize];
            let mut before = board.clone();
            before.clear_history();
            out.push((before, m));
            if out.len() == count {
                break 'games;
            }
            board.make_move(m);
        }
    }
    out
}

/// Calls per second of `f`, which makes `calls` calls: the best of 25 short
/// runs (a few milliseconds each), so that a run without preemption is
/// likely even on a busy machine.
fn rate(calls: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..25 {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    calls as f64 / best
}

fn main() {
    let plies = game_plies(4_000);
    println!(
        "{:>6} {:>16} {:>16} {:>16} {:>16}",
        "hidden", "refresh/s (ns)", "update/s (ns)", "evaluate/s (ns)", "portable (ns)"
    );
    for hidden in [64, 128, 256, 512] {
        let net = Network::random(hidden, 1);
        let mut acc = Accumulator::new(&net);
        let refresh = rate(plies.len(), || {
            for (board, _) in &plies {
                acc.refresh(black_box(board), &net);
                black_box(&acc);
            }
        });
        let (mut parent, mut child) = (Accumulator::from_board(&plies[0].0, &net), Accumulator::new(&net));
        let update = rate(plies.len(), || {
            for (board, m) in &plies {
                child.update_from(&parent, black_box(board), *m, &net);
                std::mem::swap(&mut parent, &mut child);
            }
        });
        let accs: Vec<Accumulator> = plies.iter().take(16).map(|(b, _)| Accumulator::from_board(b, &net)).collect();
        let rounds = 2_000;
        let forward = |eval: fn(&Accumulator, archivist::types::Color, &Network) -> i32| {
            let mut sink = 0i64;
            let r = rate(rounds * accs.len(), || {
                for _ in 0..rounds {
                    for (acc, (board, _)) in accs.iter().zip(&plies) {
                        sink += i64::from(eval(black_box(acc), board.side_to_move(), &net));
                    }
                }
            });
            black_box(sink);
            r
        };
        let (fast, portable) = (forward(evaluate), forward(evaluate_scalar));
        let cell = |r: f64| format!("{:.2}M ({:.0})", r / 1e6, 1e9 / r);
        println!("{hidden:>6} {:>16} {:>16} {:>16} {:>16}", cell(refresh), cell(update), cell(fast), cell(portable));
    }
    let boards: Vec<&Board> = plies.iter().map(|(b, _)| b).collect();
    let mut sink = 0i64;
    let hand_written = rate(boards.len(), || {
        for board in &boards {
            sink += i64::from(archivist::eval::evaluate(black_box(board)));
        }
    });
    black_box(sink);
    println!("hand-written evaluate/s (ns): {:.2}M ({:.0})", hand_written / 1e6, 1e9 / hand_written);
}
