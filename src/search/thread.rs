//! Iterative deepening, Lazy SMP and the final `bestmove`.
//!
//! [`Searcher::search`] searches with every worker at once (helpers share only the TT and
//! the stop flag), waits while pondering or in `go infinite`, stops the
//! helpers, and reports `bestmove` after all of them have finished. Only
//! the main worker (id 0) reports `info` lines.

use super::correction::Correction;
use super::params as P;
use super::time::budget;
use super::{
    Ctx, InfoLine, Limits, Reporter, RootMove, Score, SearchConfig, SearchEvent, Shared, Worker, INFINITE,
    MATE_IN_MAX_PLY, MAX_PLY,
};
use crate::board::Board;
use crate::tt::{Bound, TranspositionTable};
use crate::types::Move;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

/// The result of a finished search.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    pub best: Move,
    pub ponder: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub root_moves: Vec<RootMove>,
    pub nodes: u64,
}

/// Everything a search keeps from one search to the next: the
/// transposition table and one worker (with its histories) per thread.
/// The engine, `bench`, `book analyse`, self-play and `genfens` all search
/// through [`Searcher::search`], so they search exactly as play does.
pub struct Searcher {
    tt: TranspositionTable,
    workers: Vec<Worker>,
}

impl Searcher {
    pub fn new(hash_mb: usize, threads: usize) -> Searcher {
        Searcher {
            tt: TranspositionTable::new(hash_mb.max(1)),
            workers: {
                let correction = Arc::new(Correction::default());
                (0..threads.max(1)).map(|id| Worker::new(id, Arc::clone(&correction))).collect()
            },
        }
    }

    pub fn tt(&self) -> &TranspositionTable {
        &self.tt
    }

    pub fn threads(&self) -> usize {
        self.workers.len()
    }

    /// Sets the number of search threads (at least one); workers kept keep
    /// their histories.
    pub fn set_threads(&mut self, threads: usize) {
        let n = threads.max(1);
        self.workers.truncate(n);
        while self.workers.len() < n {
            let correction = Arc::clone(&self.workers[0].correction);
            self.workers.push(Worker::new(self.workers.len(), correction));
        }
    }

    /// Resizes the table (its contents are lost).
    pub fn resize_tt(&mut self, mb: usize) {
        self.tt.resize(mb.max(1));
    }

    /// Empties the table, with every search thread's help.
    pub fn clear_tt(&self) {
        self.tt.clear(self.workers.len());
    }

    /// Forgets the workers' move-ordering statistics (a new game).
    pub fn clear_history(&mut self) {
        for w in &mut self.workers {
            w.clear();
        }
    }

    /// The main worker's histories as a search-state file
    /// ([`super::state_file`]).
    pub fn save_state(&self) -> Vec<u8> {
        self.workers[0].save_state()
    }

    /// Gives every worker the histories of a search-state file; on error
    /// nothing changes.
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), super::state_file::StateError> {
        for w in &mut self.workers {
            w.restore_state(bytes)?;
        }
        Ok(())
    }

    /// Table and histories cleared: the next search starts from nothing.
    pub fn clear(&mut self) {
        self.clear_tt();
        self.clear_history();
    }

    /// The control block of one search with this searcher's threads: its
    /// stop and ponder flags, which the caller may set from another thread.
    pub fn control(&self, pondering: bool) -> Shared {
        Shared::new(self.workers.len(), pondering)
    }

    /// Searches `board` with every thread until `limits` (or `shared.stop`)
    /// ends it. `report` receives the main thread's `info` lines.
    pub fn search(
        &mut self,
        board: &Board,
        limits: &Limits,
        config: &SearchConfig,
        shared: &Shared,
        report: Option<&Reporter>,
    ) -> Outcome {
        // A control block sized for fewer threads (made for another
        // searcher) limits the search to that many.
        let threads = shared.node_counts.len().min(self.workers.len());
        run(board, limits, config, &self.tt, shared, &mut self.workers[..threads], report)
    }
}

/// Runs a whole search on `board` with `workers.len()` threads.
fn run(
    board: &Board,
    limits: &Limits,
    config: &SearchConfig,
    tt: &TranspositionTable,
    shared: &Shared,
    workers: &mut [Worker],
    report: Option<&Reporter>,
) -> Outcome {
    tt.new_search();
    let ctx = Ctx { tt, shared, limits, config, report };
    let root_moves: Vec<RootMove> = board
        .legal_moves()
        .iter()
        .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(m))
        .map(RootMove::new)
        .collect();
    let (root_moves, cardinality) = rank_by_tablebases(board, config, shared, root_moves);
    for w in workers.iter_mut() {
        w.tb_cardinality = cardinality;
        w.board = board.clone();
        w.set_network(config.net.as_ref());
        w.root_moves = root_moves.clone();
        w.completed_depth = 0;
        w.nodes = 0;
        w.stopped = false;
        w.shown_best = Move::NONE;
    }
    let (main, helpers) = match workers.split_first_mut() {
        Some(x) => x,
        None => return empty_outcome(),
    };
    std::thread::scope(|s| {
        for h in helpers.iter_mut() {
            let ctx = &ctx;
            s.spawn(move || h.iterate(ctx));
        }
        main.iterate(&ctx);
        // In `go infinite` and while pondering, bestmove waits for stop/ponderhit.
        while (limits.infinite || shared.pondering.load(Relaxed)) && !shared.stop.load(Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        shared.stop.store(true, Relaxed);
    });
    if let (Some(report), Some(text)) = (report, shared.tb_error_report()) {
        report(SearchEvent::Message(text));
    }
    let nodes = shared.total_nodes();
    // A depth-limited search ends when any thread completes the depth
    // (see `Worker::iterate`): its answer is the deepest thread's, the
    // main thread's on a tie, and an info line shows that thread's line.
    // Otherwise the main thread answers.
    let mut answer: &Worker = main;
    if limits.depth.is_some() {
        for h in helpers.iter() {
            if h.completed_depth > answer.completed_depth {
                answer = h;
            }
        }
        if answer.id != 0 {
            if let Some(rm) = answer.root_moves.first() {
                answer.emit(&ctx, answer.info_for(&ctx, answer.completed_depth, 0, rm.score, None));
            }
        }
    }
    let main = answer;
    let Some(best_rm) = main.root_moves.first() else {
        return Outcome { nodes, ..empty_outcome() };
    };
    let best = best_rm.mv;
    let mut ponder = best_rm.pv.get(1).copied();
    if ponder.is_none() {
        // Ask the TT what the opponent's best reply was.
        let mut b = board.clone();
        b.make_move(best);
        ponder = table_line(tt, &b, 1).first().copied();
    }
    Outcome {
        best,
        ponder,
        score: best_rm.score,
        depth: main.completed_depth,
        root_moves: main.root_moves.clone(),
        nodes,
    }
}

/// The principal variation stored in the table from `board`: each position's
/// move while it is legal, at most `limit` moves, stopping before a position
/// repeats (a cycle of table moves would never end).
pub fn table_line(tt: &TranspositionTable, board: &Board, limit: usize) -> Vec<Move> {
    let mut b = board.clone();
    let mut seen = vec![b.key()];
    let mut line = Vec::new();
    while line.len() < limit {
        let Some(m) = tt.probe(b.key()).map(|e| e.best_move()).filter(|&m| b.is_legal(m)) else {
            break;
        };
        b.make_move(m);
        if seen.contains(&b.key()) {
            break;
        }
        seen.push(b.key());
        line.push(m);
    }
    line
}

/// Ranks the root moves with the tablebases when the root is in them: only
/// the best-ranked moves are searched (ranked by DTZ, so a won ending is
/// converted within the 50-move rule and a drawn one never spoiled), each
/// carrying its tablebase score. Returns the moves and the piece count up to
/// which the search itself probes WDL (0 when DTZ ranking already decides).
fn rank_by_tablebases(
    board: &Board,
    config: &SearchConfig,
    shared: &Shared,
    mut root_moves: Vec<RootMove>,
) -> (Vec<RootMove>, u32) {
    let Some(tb) = config.tb.as_ref() else { return (root_moves, 0) };
    let cardinality = config.tb_probe_limit.min(tb.max_pieces());
    if cardinality == 0 || board.piece_count() > cardinality {
        return (root_moves, cardinality);
    }
    let mut b = board.clone();
    let ranking = match tb.rank_root(&mut b, config.tb_50_move_rule, true) {
        Ok(r) => r,
        Err(e) => {
            shared.tb_failed(e);
            return (root_moves, cardinality);
        }
    };
    if let Some(e) = ranking.dtz_error.clone() {
        shared.tb_failed(e);
    }
    shared.tbhits.fetch_add(ranking.moves.len() as u64, Relaxed);
    use crate::tb::TbScore;
    let best_rank = ranking.moves.first().map_or(0, |m| m.rank);
    let mut ranked = Vec::with_capacity(root_moves.len());
    for rm in &ranking.moves {
        let keep = rm.rank == best_rank || config.multipv > 1;
        if let (true, Some(mut r)) = (keep, root_moves.iter().find(|r| r.mv == rm.mv).cloned()) {
            r.tb_value = Some(match rm.score {
                TbScore::Win => super::TB_WIN - 1,
                TbScore::Loss => -(super::TB_WIN - 1),
                TbScore::Draw => 0,
                TbScore::Centipawns(cp) => cp,
            });
            ranked.push(r);
        }
    }
    if ranked.is_empty() {
        return (root_moves, cardinality);
    }
    let winning = ranked[0].tb_value.is_some_and(|v| v > 0);
    root_moves.clear();
    root_moves.extend(ranked);
    let probe = if ranking.used_dtz || !winning { 0 } else { cardinality };
    (root_moves, probe)
}

/// The soft (optimum) and hard (maximum) time of a search in milliseconds:
/// `movetime` less the overhead for both, the clock's budget, or no limit.
fn time_limits(ctx: &Ctx) -> (u64, u64) {
    match (&ctx.limits.clock, ctx.limits.movetime_ms) {
        (_, Some(mt)) => {
            let t = mt.saturating_sub(ctx.config.move_overhead_ms).max(1);
            (t, t)
        }
        (Some(clock), None) => {
            let b = budget(clock, ctx.config.move_overhead_ms);
            (b.optimum_ms, b.maximum_ms)
        }
        _ => (u64::MAX, u64::MAX),
    }
}

/// Whether helper `id` (1, 2, ...) skips iteration `depth`. Helper `id`
/// takes row `(id - 1) % 20` of the size and phase tables (Stockfish's
/// classic Lazy SMP pattern): it searches `size` depths in a row, then skips
/// `size`, shifted by `phase`. Helper 1 searches every other depth, so with
/// two threads the helper runs one depth ahead of the main thread half the
/// time and fills the table for it (make smp-bench, 50 positions to depth
/// 14: two threads search 1.26x the nodes of one, against 1.49x when helper
/// `id` skipped every fourth depth; time to depth 1.67x against 1.32x).
fn skips_depth(id: usize, depth: usize) -> bool {
    let row = (id.max(1) - 1) % P::SMP_SKIP_SIZE.len();
    (depth + P::SMP_SKIP_PHASE[row]) / P::SMP_SKIP_SIZE[row] % 2 == 1
}

fn empty_outcome() -> Outcome {
    Outcome { best: Move::NONE, ponder: None, score: 0, depth: 0, root_moves: Vec::new(), nodes: 0 }
}

impl Worker {
    /// The depth iterative deepening starts at, with the root moves seeded
    /// from the table or the book.
    fn first_depth(&mut self, ctx: &Ctx, max_depth: i32, multipv: usize) -> i32 {
        let limits = ctx.limits;
        let main = self.id == 0;
        // Resume analysis where the table left off: in an analysis search
        // (no clock, node or move-time limit), an exact root entry of depth D
        // (an earlier search, or a loaded hash file) lets iterative deepening
        // start at D + 1 instead of re-walking 1..D. Depth D itself is not
        // searched again: its entries answer only the nodes searched with the
        // same reductions, and those follow move order and histories that have
        // changed since, so a repeat cost up to a whole cold search (resume
        // benchmark, `make resume-bench`: warm nodes to D + 1 on 20 positions
        // 0.52 of cold with the repeat, 0.28 without). A limited search always
        // starts at depth 1: jumping to D + 1 could spend its whole budget
        // without completing an iteration.
        let analysis = limits.clock.is_none() && limits.nodes.is_none() && limits.movetime_ms.is_none();
        //
        // When the entry is already as deep as the `go depth` asked for (one
        // line, every root move allowed), the table holds the answer: it is
        // given with the line walked from the table and no search at all.
        let first_depth = match ctx.tt.probe(self.board.key()) {
            Some(e) if analysis && e.bound() == Bound::Exact && e.depth() >= 2 => {
                // A restored search state of this position: its root order,
                // so the search goes on exactly as the saved one would have.
                if let Some((_, order)) = self.root_order.take().filter(|(key, _)| *key == self.board.key()) {
                    self.root_moves.sort_by_key(|r| order.iter().position(|&m| m == r.mv).unwrap_or(usize::MAX));
                }
                // Seed the root: the stored move first, the window around its value.
                if let Some(i) = self.root_moves.iter().position(|r| r.mv == e.best_move()) {
                    self.root_moves[..=i].rotate_right(1);
                    self.root_moves[0].score = e.value as i32;
                    let answered = limits.depth.is_some_and(|d| e.depth() >= d)
                        && multipv == 1
                        && limits.searchmoves.is_empty()
                        && !limits.infinite
                        && self.root_moves[0].tb_value.is_none();
                    if answered {
                        // Past the last depth: no iteration runs, and the end
                        // of the search below stops the threads as usual.
                        self.root_moves[0].pv = table_line(ctx.tt, &self.board, max_depth as usize);
                        self.completed_depth = max_depth;
                        if main {
                            let rm = &self.root_moves[0];
                            self.show(ctx, self.info_for(ctx, max_depth, 0, rm.score, None));
                        }
                        max_depth + 1
                    } else {
                        (e.depth() + 1).min(max_depth)
                    }
                } else {
                    1
                }
            }
            _ => 1,
        };
        // BookInSearch: a trusted entry's move goes first at the root too.
        if first_depth == 1 {
            if let Some((m, _)) = ctx.config.book.as_ref().and_then(|b| b.probe(&self.board, 0)) {
                if let Some(i) = self.root_moves.iter().position(|r| r.mv == m) {
                    self.root_moves[..=i].rotate_right(1);
                }
            }
        }
        first_depth
    }

    /// Iterative deepening with aspiration windows and MultiPV.
    pub fn iterate(&mut self, ctx: &Ctx) {
        let limits = ctx.limits;
        let main = self.id == 0;
        let (optimum_ms, maximum_ms) = time_limits(ctx);
        self.maximum_ms = maximum_ms;
        self.max_nodes = limits.nodes.unwrap_or(u64::MAX);
        if self.root_moves.is_empty() {
            if main {
                let value = if self.board.in_check() { -super::MATE } else { 0 };
                self.emit(ctx, self.info_for(ctx, 0, 0, value, None));
            }
            return;
        }
        let max_depth = limits.depth.unwrap_or(MAX_PLY as i32 - 1).clamp(1, MAX_PLY as i32 - 1);
        let multipv = ctx.config.multipv.clamp(1, self.root_moves.len());
        let mut stability = 0;
        let mut last_best = Move::NONE;

        let first_depth = self.first_depth(ctx, max_depth, multipv);
        for depth in first_depth..=max_depth {
            // Lazy SMP: helpers skip some depths so threads spread over the
            // tree; never the last one, which would leave them idle.
            if !main && depth > 1 && depth < max_depth && skips_depth(self.id, depth as usize) {
                continue;
            }
            self.root_depth = depth;
            for rm in &mut self.root_moves {
                rm.prev_score = rm.score;
                rm.nodes = 0;
            }
            for pv_idx in 0..multipv {
                self.pv_idx = pv_idx;
                self.seldepth = 0;
                self.aspiration(ctx, depth, pv_idx);
                self.root_moves[..=pv_idx].sort_by_key(|r| -r.score);
                if self.stopped {
                    break;
                }
                if main && (pv_idx + 1 == multipv || ctx.shared.elapsed_ms() > 3000) {
                    for i in 0..=pv_idx {
                        let rm = &self.root_moves[i];
                        let info = self.info_for(ctx, depth, i, rm.score, None);
                        self.show(ctx, info);
                    }
                }
            }
            if self.stopped {
                if main {
                    self.show_new_best(ctx, depth);
                }
                break;
            }
            self.completed_depth = depth;
            for rm in &mut self.root_moves {
                rm.completed_nodes = rm.nodes;
            }

            if !main {
                continue;
            }
            // Stop conditions checked between iterations (main thread only).
            let best = self.root_moves[0].mv;
            if best == last_best {
                stability += 1;
            } else {
                stability = 0;
                last_best = best;
            }
            if let Some(mate) = limits.mate {
                let v = self.root_moves[0].score;
                if v >= MATE_IN_MAX_PLY && (super::MATE - v + 1) / 2 <= mate {
                    break;
                }
            }
            if ctx.shared.pondering.load(Relaxed) || limits.infinite {
                continue;
            }
            if limits.soft_nodes.is_some_and(|n| ctx.shared.total_nodes_fast(self) >= n) {
                break;
            }
            // Soft stops only for clock-managed searches: `movetime` means
            // search exactly that long (the hard limit ends it).
            if limits.clock.is_some() && limits.movetime_ms.is_none() {
                let scale = match stability {
                    0 => P::STABILITY_SCALE[0],
                    1 => P::STABILITY_SCALE[1],
                    2..=3 => P::STABILITY_SCALE[2],
                    _ => P::STABILITY_SCALE[3],
                };
                let elapsed = ctx.shared.elapsed_ms() as f64;
                let single_reply = self.root_moves.len() == 1 && depth >= P::SINGLE_REPLY_DEPTH;
                if elapsed > optimum_ms as f64 * scale
                    || single_reply
                    || elapsed > maximum_ms as f64 * P::MAXIMUM_TIME_SHARE
                {
                    break;
                }
            }
        }
        ctx.shared.node_counts[self.id].store(self.nodes, Relaxed);
        // A helper that completes a depth limit ends the search too (`run`
        // answers with the deepest thread); not while pondering or in `go
        // infinite`, where only the GUI ends it.
        let helper_done = limits.depth.is_some()
            && self.completed_depth >= max_depth
            && !limits.infinite
            && !ctx.shared.pondering.load(Relaxed);
        if main || helper_done {
            ctx.shared.stop.store(true, Relaxed);
        }
    }

    /// One root search at `depth` for MultiPV line `pv_idx`, widening the
    /// window around the previous score until the result falls inside it.
    fn aspiration(&mut self, ctx: &Ctx, depth: i32, pv_idx: usize) {
        let prev = self.root_moves[pv_idx].prev_score;
        let mut delta = P::ASPIRATION_DELTA;
        let (mut alpha, mut beta) = if depth >= P::ASPIRATION_MIN_DEPTH && prev.abs() < MATE_IN_MAX_PLY {
            ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let v = self.search(ctx, alpha, beta, depth, 0, false);
            self.root_moves[pv_idx..].sort_by_key(|r| -r.score);
            if self.stopped {
                return;
            }
            let bound = if v <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (v - delta).max(-INFINITE);
                Some(Bound::Upper)
            } else if v >= beta {
                beta = (v + delta).min(INFINITE);
                Some(Bound::Lower)
            } else {
                return;
            };
            if self.id == 0 && ctx.shared.elapsed_ms() > 3000 {
                let info = self.info_for(ctx, depth, pv_idx, v, bound);
                self.show(ctx, info);
            }
            delta += delta / 2;
        }
    }

    fn info_for(&self, ctx: &Ctx, depth: i32, idx: usize, value: i32, bound: Option<Bound>) -> InfoLine {
        let nodes = ctx.shared.total_nodes() - ctx.shared.node_counts[self.id].load(Relaxed) + self.nodes;
        let time_ms = ctx.shared.elapsed_ms();
        let rm = self.root_moves.get(idx);
        let value = match rm.and_then(|r| r.tb_value) {
            Some(tb) if value.abs() < MATE_IN_MAX_PLY => tb,
            _ => value,
        };
        InfoLine {
            depth: depth.max(1),
            seldepth: rm.map_or(0, |r| r.seldepth.max(self.seldepth)),
            multipv: idx + 1,
            score: Score::from_value(value),
            value,
            bound,
            nodes,
            nps: nodes * 1000 / time_ms.max(1),
            hashfull: ctx.tt.hashfull(),
            tbhits: ctx.shared.tbhits.load(Relaxed),
            time_ms,
            pv: rm.map_or_else(Vec::new, |r| r.pv.clone()),
        }
    }

    /// A stop within iteration `depth` keeps what it found: a move that
    /// raised alpha there goes ahead of the last completed iteration's best,
    /// and `bestmove` plays it. Its line is shown first, so that the last PV
    /// a GUI saw starts with the move played (fastchess warns otherwise),
    /// with the bound its score has.
    fn show_new_best(&mut self, ctx: &Ctx, depth: i32) {
        let Some(rm) = self.root_moves.first() else { return };
        if rm.mv == self.shown_best || rm.score == -INFINITE {
            return;
        }
        let bound = match rm.bound {
            Bound::Lower | Bound::Upper => Some(rm.bound),
            Bound::Exact | Bound::None => None,
        };
        let info = self.info_for(ctx, depth, 0, rm.score, bound);
        self.show(ctx, info);
    }

    /// Emits a line of the main thread and remembers the best move it shows.
    fn show(&mut self, ctx: &Ctx, info: InfoLine) {
        if info.multipv == 1 {
            self.shown_best = info.pv.first().copied().unwrap_or(Move::NONE);
        }
        self.emit(ctx, info);
    }

    fn emit(&self, ctx: &Ctx, info: InfoLine) {
        if let Some(report) = ctx.report {
            report(SearchEvent::Info(info));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{skips_depth, Searcher};
    use crate::board::Board;
    use std::sync::Arc;

    #[test]
    fn every_thread_learns_into_one_correction_table() {
        let mut s = Searcher::new(1, 2);
        s.set_threads(4);
        let first = &s.workers[0].correction;
        assert!(s.workers.iter().all(|w| Arc::ptr_eq(&w.correction, first)));
        let b = Board::startpos();
        s.workers[3].correction.update(&b, 10, 60);
        assert_ne!(s.workers[0].correction.get(&b), 0, "a helper's correction serves the main thread");
        s.clear_history();
        assert!(s.workers.iter().all(|w| w.correction.get(&b) == 0));
    }

    #[test]
    fn first_helper_searches_every_other_depth_and_the_second_the_rest() {
        for depth in 2..40 {
            assert_eq!(skips_depth(1, depth), depth % 2 == 1, "depth {depth}");
            assert_ne!(skips_depth(1, depth), skips_depth(2, depth), "depth {depth}");
        }
    }

    #[test]
    fn every_helper_searches_at_least_a_third_of_the_depths() {
        for id in 1..64 {
            let searched = (2..50).filter(|&d| !skips_depth(id, d)).count();
            assert!(searched >= 16, "helper {id} searches {searched} of 48 depths");
        }
    }
}
