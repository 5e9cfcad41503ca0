//! `bench`: a fixed search over 50 positions (taken from the shared game
//! records, plus classic test positions), one thread, 16 MB hash cleared per
//! position. The node count is the search's signature: it changes only when
//! search behaviour changes, and commits quote it as `Bench: N`.

use crate::board::Board;
use crate::clock::Instant;
use crate::search::{Limits, SearchConfig, Searcher};

pub const DEFAULT_DEPTH: i32 = 11;

pub const POSITIONS: [&str; 50] = [
    "r2qk2r/pp1n1ppp/2pbpn2/3p4/6b1/1P1P1NP1/PBP1PPBP/RN1Q1RK1 w kq - 1 8",
    "r3r1k1/ppbn1p2/2p2n1p/q2pp1pb/4P3/PP1P1NPP/1BPN1PB1/R3QRK1 w - - 1 16",
    "3rr1k1/1p1nbp2/1qp4p/p3p2b/4P3/PP2NPP1/1BP3B1/R1Q1R1K1 w - - 1 26",
    "r1bqk2r/2p1bppp/p1np1n2/1p2p3/4P3/1B3N2/PPPP1PPP/RNBQR1K1 w kq - 0 8",
    "r2qrbk1/3b1pp1/p1np1n1p/1pp1p3/3PP3/1PP2NNP/P1B2PP1/R1BQR1K1 w - - 1 16",
    "r1rq1bk1/3b1ppn/p2p3p/1p1Pp3/PPp1P3/R1P1B1NP/2B1QPP1/R5K1 w - - 4 26",
    "r2q1rk1/ppp1bppp/2npbn2/4p3/2P5/P1NP1NP1/1P2PPBP/R1BQK2R w KQ - 3 8",
    "r4rk1/p2qbpp1/1p1p1n1p/2p1p2b/1PPnP3/P1NPBPP1/5NBP/R2Q1RK1 w - - 0 16",
    "r4r1k/4bpp1/p2p1nbp/2p2P2/2PnP1B1/2NP4/R2B1N1P/3q1RK1 w - - 0 26",
    "rn1qkb1r/pp3ppp/2p1pn2/3p3b/3PP3/2NB1N1P/PPP1QPP1/R1B1K2R w KQkq - 0 8",
    "2kr3r/ppnnqpp1/2p1p1p1/3pP3/3P2PP/2N2N2/PPP1QP2/2K3RR w - - 5 16",
    "2k1rr2/pp1n1qp1/2p1n1p1/3pP3/1P4PP/P1NQ1NR1/2P2P2/1K2R3 w - - 3 26",
    "r2qkbnr/pp3ppp/2p1p3/3pn3/4P3/3P1BPP/PPP2P2/RNBQK2R w KQkq - 1 8",
    "r3k2r/ppq1bpp1/2p2nn1/4p2p/3P3P/2P3P1/PP1NQPB1/R1B1K2R w KQkq - 0 16",
    "1k2r3/ppq2pp1/8/2p3Pp/2n3n1/2P2NP1/PPQ2PB1/1K1R4 w - - 1 26",
    "r1bqkb1r/pp1n1pp1/2p1pn1p/6N1/3P4/3B1N2/PPP2PPP/R1BQK2R w KQkq - 0 8",
    "r1k2b1r/pb1nq1p1/4p1Bp/1p1n4/3P4/5NB1/1PP2PPP/R2QR1K1 w - - 0 16",
    "r1bq1rk1/1pp1bppp/p1p5/2n5/3QPB2/5N2/PPP2PPP/RN2R1K1 w - - 3 11",
    "3r1rk1/2p1qbp1/ppp1np1p/8/4P3/2N1QPBP/PPP3PK/3RR3 w - - 0 21",
    "1Q6/3q1bpk/2pBnp1p/ppp5/4P3/P4PNP/1PP3PK/8 w - - 6 31",
    "r3kb1r/pb1n1p2/q1p1pn1p/1p4p1/2pPP2B/1PN2N2/P1Q1BPPP/1R3RK1 w kq - 0 13",
    "3qk3/3nbp2/4p3/1P2B2r/b3P1p1/6P1/1Q1NBP2/2R3K1 w - - 1 31",
    "8/4B1n1/2k1P3/4Q3/8/6P1/5P2/7K w - - 3 51",
    "r2q1rk1/pb1p2pp/1pn1p3/2p2pn1/2PP4/P2BPP2/1P1N2PP/R1BQ1RK1 w - - 2 13",
    "2r2rk1/1b4p1/3Rp3/p1p1Bq1p/2P2PpP/P7/1P3QP1/3R2K1 w - - 2 31",
    "r1bqk2r/pp2bp1p/1nn1p1p1/8/8/2NBPN2/PP1B1PPP/RQ2K2R w KQkq - 0 13",
    "2r3k1/5p1p/R5p1/2n5/3N4/1p2P3/1PbB1PPP/6K1 w - - 3 31",
    "r1bqnrk1/pp4pp/3p1b2/2pNp3/1PPnPp2/P2P4/4BPPP/R1BQNRK1 w - - 4 13",
    "4r1k1/4r2p/1p1q1pb1/2pP4/2P4N/R6P/5Pp1/2Q1R1K1 w - - 2 31",
    "8/7k/1p3p2/2pP4/2P1N1Q1/5PKP/1q6/7r w - - 3 51",
    "2rr2k1/pp2b1pp/2n1pn2/2p3B1/4P3/2N2N1P/PP3PP1/R3K2R w KQ - 1 13",
    "8/pp4p1/3Nk2p/2b1P3/6rP/8/PP1K4/7R w - - 2 31",
    "8/p7/4R3/1K2N2p/1P6/4r2k/5b2/8 w - - 8 51",
    "r1bqk2r/ppp2p2/2n2n2/b2p4/1P1P3p/P3P3/3N1PPP/RN1QKB1R w KQkq - 0 13",
    "4r3/1kp1qp2/Np1r4/3p2nb/1QnP2P1/P3PP1p/4B2P/2RNKR2 w - - 1 31",
    "4r3/1b6/1p4k1/6P1/3P4/P1N4p/3K3P/8 w - - 1 51",
    "rn3b1r/2q1k1p1/p3bnBp/1p2p3/2p1P3/2P2N2/PPQ2PPP/RNB1K2R w KQ - 2 13",
    "1r2r1k1/R1b3p1/2q2n1p/1p2pN2/1Pp1P3/N1PnBP1P/6PK/1Q1R4 w - - 7 31",
    "8/6pk/6Np/5R1P/r2KP3/5P2/6n1/8 w - - 8 51",
    "r3kb1r/pp2pppp/1qnP4/1N3b2/2P2P2/8/PP4PP/RN1QKB1R w KQkq - 1 13",
    "k2r4/pp3ppp/3Nb3/2P2n2/5P2/3B2P1/P4K1P/3R4 w - - 1 31",
    "8/8/5KN1/2k4p/5P2/7b/R5r1/8 w - - 1 51",
    "2rqkb1r/1bpn1ppp/p3pn2/8/Pp1P1B2/5NP1/1P2PPBP/RN1Q1RK1 w k - 0 13",
    "br4k1/2R2p1p/p2np1p1/P2p4/3q3P/1r1N2P1/1P2PPB1/R1Q3K1 w - - 0 31",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/8/1p6/p1p5/P1P2k2/1P6/5K2/8 w - - 0 1",
    "8/8/8/3k4/8/8/3KP3/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
];

/// Totals of a bench run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub ms: u64,
}

impl BenchResult {
    /// The signature line: `N nodes M nps`.
    pub fn line(&self) -> String {
        format!("{} nodes {} nps", self.nodes, self.nodes * 1000 / self.ms.max(1))
    }
}

/// Runs the standard bench (1 thread, 16 MB, all positions); `progress`
/// receives one line per position. Returns the final `N nodes M nps` line.
pub fn run(depth: Option<i32>, progress: impl FnMut(&str)) -> String {
    run_with(depth.unwrap_or(DEFAULT_DEPTH), 1, 16, POSITIONS.len(), SearchConfig::default(), progress).line()
}

/// Searches the first `count` positions to `depth` with `threads` threads,
/// a fresh `hash_mb` table per position and `config` (the evaluation).
pub fn run_with(
    depth: i32,
    threads: usize,
    hash_mb: usize,
    count: usize,
    config: SearchConfig,
    mut progress: impl FnMut(&str),
) -> BenchResult {
    let depth = depth.clamp(1, 64);
    let mut searcher = Searcher::new(hash_mb, threads);
    let limits = Limits { depth: Some(depth), ..Limits::default() };
    let mut total = BenchResult { nodes: 0, ms: 0 };
    for (i, fen) in POSITIONS.iter().take(count).enumerate() {
        let Ok(board) = Board::from_fen(fen, false) else {
            progress(&format!("position {}: invalid FEN skipped", i + 1));
            continue;
        };
        searcher.clear();
        let control = searcher.control(false);
        let start = Instant::now();
        let out = searcher.search(&board, &limits, &config, &control, None);
        let ms = start.elapsed().as_millis() as u64;
        total.nodes += out.nodes;
        total.ms += ms;
        progress(&format!("position {:>2}/{count}: {:>10} nodes {:>7} ms  {fen}", i + 1, out.nodes, ms));
    }
    total
}

#[cfg(test)]
mod tests {
    #[test]
    fn bench_node_count_is_identical_run_to_run() {
        let a = super::run(Some(6), |_| {});
        let b = super::run(Some(6), |_| {});
        let nodes = |s: &str| s.split_whitespace().next().map(str::to_string);
        assert_eq!(nodes(&a), nodes(&b));
        assert!(nodes(&a).and_then(|n| n.parse::<u64>().ok()).is_some_and(|n| n > 10_000));
    }

    #[test]
    fn bench_positions_are_valid() {
        for fen in super::POSITIONS {
            assert!(crate::board::Board::from_fen(fen, false).is_ok(), "{fen}");
        }
    }
}
