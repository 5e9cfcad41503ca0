//! `make perft-bench`: perft 6 from the start position and perft 5 from
//! Kiwipete with Archivist and, in the same run, with the `cozy-chess` crate.
//! Both count leaves the same way (bulk counting: the last ply's moves are
//! counted, not played). Prints nodes/s for each and the ratio.

use archivist::board::Board;
use std::time::Instant;

fn cozy_perft(board: &cozy_chess::Board, depth: u32) -> u64 {
    let mut nodes = 0u64;
    if depth == 1 {
        board.generate_moves(|moves| {
            nodes += moves.len() as u64;
            false
        });
    } else {
        board.generate_moves(|moves| {
            for mv in moves {
                let mut child = board.clone();
                child.play_unchecked(mv);
                nodes += cozy_perft(&child, depth - 1);
            }
            false
        });
    }
    nodes
}

fn best_of<F: FnMut() -> u64>(runs: usize, mut f: F) -> (u64, f64) {
    let mut best = f64::MAX;
    let mut nodes = 0;
    for _ in 0..runs {
        let t = Instant::now();
        nodes = f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    (nodes, best)
}

fn main() {
    let cases = [
        ("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6),
        ("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5),
    ];
    println!(
        "{:<10} {:>5} {:>12} {:>14} {:>14} {:>7}",
        "position", "depth", "nodes", "archivist n/s", "cozy-chess n/s", "ratio"
    );
    let (mut total_a, mut total_c) = (0.0, 0.0);
    for (name, fen, depth) in cases {
        let mut board = Board::from_fen(fen, false).expect("bench FEN is valid");
        let (na, ta) = best_of(3, || archivist::perft::perft(&mut board, depth));
        let cozy: cozy_chess::Board = fen.parse().expect("cozy parses the bench FEN");
        let (nc, tc) = best_of(3, || cozy_perft(&cozy, depth));
        assert_eq!(na, nc, "node counts differ for {name}");
        let (ra, rc) = (na as f64 / ta, nc as f64 / tc);
        total_a += ta;
        total_c += tc;
        println!("{name:<10} {depth:>5} {na:>12} {ra:>14.0} {rc:>14.0} {:>7.2}", ra / rc);
    }
    println!("total time: archivist {total_a:.3}s, cozy-chess {total_c:.3}s, speed ratio {:.2}", total_c / total_a);
}
