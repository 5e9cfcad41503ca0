//! Engine analysis turned into YACB entries: `book analyse` (a node-limited
//! search of every position) and [`from_tt`] (the seed's one-way conversion
//! of a saved transposition table). Both live above the search, which owns
//! the meaning of a score.
//!
//! Scores become YACB values through [`crate::search::book::value_to_entry`].

pub mod from_tt;
pub mod positions;

use crate::board::Board;
use crate::book::format::elo;
use crate::book::format::yacb::{Elo, Source, YacbEntry};
use crate::search::book::value_to_entry;
use crate::search::{Limits, SearchConfig, Searcher};
use crate::tt::Bound;

/// Settings of `book analyse`.
#[derive(Clone, Debug)]
pub struct AnalyseOptions {
    pub nodes: u64,
    pub threads: usize,
    pub hash_mb: usize,
}

/// Searches one position per call with a fresh table, so every entry costs
/// the same node budget and earns the same elo.
pub struct Analyser {
    options: AnalyseOptions,
    searcher: Searcher,
    config: SearchConfig,
    elo: Elo,
}

impl Analyser {
    pub fn new(options: AnalyseOptions) -> Analyser {
        let threads = options.threads.max(1);
        let elo = Elo::rated(elo::estimate(options.nodes, threads));
        Analyser { searcher: Searcher::new(options.hash_mb, threads), config: SearchConfig::default(), options, elo }
    }

    /// The elo every entry of this analyser gets.
    pub fn elo(&self) -> Elo {
        self.elo
    }

    /// The entry for `board`, or `None` when the game is over there. A
    /// budget too small to finish depth 1 gets depth 1.
    pub fn analyse(&mut self, board: &Board) -> Option<YacbEntry> {
        if !board.has_legal_moves() {
            return None;
        }
        self.searcher.clear();
        let limits = Limits { nodes: Some(self.options.nodes.max(1)), ..Limits::default() };
        let control = self.searcher.control(false);
        let mut out = self.searcher.search(board, &limits, &self.config, &control, None);
        if out.depth < 1 {
            // The budget ran out inside the first iteration: depth 1 is the
            // least analysis an entry gets.
            let limits = Limits { depth: Some(1), ..Limits::default() };
            let control = self.searcher.control(false);
            out = self.searcher.search(board, &limits, &self.config, &control, None);
        }
        let (value_type, bound, value) = value_to_entry(out.score, Bound::Exact, board.side_to_move())?;
        Some(YacbEntry {
            key: board.key(),
            elo: self.elo,
            value_type,
            bound,
            source: Source::Engine,
            value,
            best_move: out.best,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::format::yacb::{BoundType, ValueType};

    #[test]
    fn analysis_finds_the_mate_and_names_the_move() {
        let board = Board::from_fen("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", false).unwrap();
        let mut a = Analyser::new(AnalyseOptions { nodes: 20_000, threads: 1, hash_mb: 1 });
        let e = a.analyse(&board).unwrap();
        assert_eq!((e.value_type, e.bound, e.value), (ValueType::Dtm, BoundType::Proven, 1));
        assert_eq!(board.move_to_uci(e.best_move), "d1d8");
        assert_eq!((e.key, e.source, e.elo), (board.key(), Source::Engine, Elo::rated(elo::estimate(20_000, 1))));
        let mated = Board::from_fen("3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1", false).unwrap();
        assert_eq!(a.analyse(&mated), None);
    }

    #[test]
    fn a_tiny_budget_still_completes_depth_one() {
        let board =
            Board::from_fen("r1bq1b1r/3pkp1p/2n2n2/ppp1p1pQ/1P2P2P/2N2N2/PBPP1PP1/R3KB1R b KQ - 3 11", false).unwrap();
        let mut a = Analyser::new(AnalyseOptions { nodes: 1, threads: 1, hash_mb: 1 });
        let e = a.analyse(&board).expect("an entry");
        assert!(board.is_legal(e.best_move));
        assert_eq!(e.value_type, ValueType::Centipawns);
    }
}
