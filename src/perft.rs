//! Perft: count the leaf nodes of the legal move tree (bulk counting at the
//! last ply), and divide (per-root-move counts, as Stockfish's `go perft`).

use crate::board::movegen::GenKind;
use crate::board::{Board, MoveList};
use crate::types::Move;

/// Leaf nodes at `depth` plies below the position.
pub fn perft(board: &mut Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth == 1 {
        return board.count_legal();
    }
    let mut list = MoveList::new();
    board.generate(GenKind::All, &mut list);
    let mut nodes = 0;
    for m in list.iter() {
        board.make_move(m);
        nodes += perft(board, depth - 1);
        board.unmake_move();
    }
    nodes
}

/// Per-root-move leaf counts, in generation order.
pub fn divide(board: &mut Board, depth: u32) -> Vec<(Move, u64)> {
    let list = board.legal_moves();
    list.iter()
        .map(|m| {
            board.make_move(m);
            let n = if depth <= 1 { 1 } else { perft(board, depth - 1) };
            board.unmake_move();
            (m, n)
        })
        .collect()
}

/// Stockfish-style report: `move: nodes` lines, a blank line, `Nodes searched: N`.
pub fn divide_report(board: &mut Board, depth: u32) -> String {
    let mut out = String::new();
    let mut total = 0;
    if depth == 0 {
        total = 1;
    } else {
        for (m, n) in divide(board, depth) {
            out.push_str(&format!("{}: {}\n", board.move_to_uci(m), n));
            total += n;
        }
    }
    out.push_str(&format!("\nNodes searched: {total}\n"));
    out
}
