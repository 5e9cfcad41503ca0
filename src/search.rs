//! The search: iterative deepening with aspiration windows around a
//! principal-variation alpha-beta search, and quiescence with SEE.
//!
//! A [`Worker`] owns a copy of the board, its ordering tables (butterfly,
//! counter-move and continuation histories) and its pawn correction history
//! ([`correction`]); all workers
//! share the transposition table and a [`Shared`] block (stop flag, node
//! counters). The search never prints: the main worker reports
//! [`SearchEvent`]s through a callback. Threads and the final `bestmove`
//! live in [`thread`]; time budgets in [`time`].

pub mod book;
pub mod correction;
pub mod ordering;
pub mod params;
pub mod see;
pub mod state_file;
pub mod thread;
pub use thread::{table_line, Outcome, Searcher};
pub mod time;

use crate::board::Board;
use crate::clock::Instant;
use crate::eval::evaluate;
use crate::nnue::{AccumulatorStack, Network};
use crate::tt::{Bound, TranspositionTable};
use crate::types::{Move, PieceType};
use ordering::{is_bad_capture_score, is_noisy, History, MovePicker};
use params as P;
use see::see_ge;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

pub const MAX_PLY: usize = 128;
pub const MATE: i32 = 32_000;
pub const MATE_IN_MAX_PLY: i32 = MATE - MAX_PLY as i32;
/// Tablebase wins sit just below the mate band.
pub const TB_WIN: i32 = MATE_IN_MAX_PLY - 1;
pub const TB_WIN_IN_MAX_PLY: i32 = TB_WIN - MAX_PLY as i32;
pub const INFINITE: i32 = MATE + 1;
pub const NO_VALUE: i32 = MATE + 2;

#[inline]
pub const fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

#[inline]
pub const fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

/// Mate/TB scores are stored relative to the node, not the root.
#[inline]
fn value_to_tt(v: i32, ply: usize) -> i32 {
    if v >= TB_WIN_IN_MAX_PLY {
        v + ply as i32
    } else if v <= -TB_WIN_IN_MAX_PLY {
        v - ply as i32
    } else {
        v
    }
}

#[inline]
fn value_from_tt(v: i32, ply: usize) -> i32 {
    if v >= TB_WIN_IN_MAX_PLY {
        v - ply as i32
    } else if v <= -TB_WIN_IN_MAX_PLY {
        v + ply as i32
    } else {
        v
    }
}

/// Whether a TT value stored with `bound` says more than `eval`: it is
/// exact, or a bound beyond `eval` on its own side; mate and tablebase
/// scores aside.
fn tt_refines(bound: Bound, tt_value: i32, eval: i32) -> bool {
    let beyond = match bound {
        Bound::Exact => true,
        Bound::Lower => tt_value > eval,
        Bound::Upper => tt_value < eval,
        Bound::None => false,
    };
    beyond && tt_value != NO_VALUE && tt_value.abs() < TB_WIN_IN_MAX_PLY
}

/// The bound a node's result is stored with: it failed high, it is an exact
/// PV value that raised alpha, or it failed low.
fn node_bound(best: i32, original_alpha: i32, beta: i32, pv_node: bool) -> Bound {
    if best >= beta {
        Bound::Lower
    } else if pv_node && best > original_alpha {
        Bound::Exact
    } else {
        Bound::Upper
    }
}

/// The static evaluation with a network whose output for `board` is `out`
/// centipawns: the output itself, or the hand-written evaluation plus it
/// for a network trained on that base ([`crate::nnue::Base`]).
pub fn with_base(board: &Board, net: &Network, out: i32) -> i32 {
    match net.base() {
        crate::nnue::Base::Zero => out,
        crate::nnue::Base::HandWritten => (evaluate(board) + out).clamp(-crate::eval::MAX_EVAL, crate::eval::MAX_EVAL),
    }
}

/// What a position's key is mixed with for the search that leaves `excluded`
/// out (a fixed odd multiplier spreads the 16 move bits over the key).
fn exclusion_salt(excluded: Move) -> u64 {
    (u64::from(excluded.raw()) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
}

/// What `go` asked for.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    /// Soft node limit: no new iteration starts once the nodes searched
    /// reach this (checked between iterations; `nodes` stays the hard limit).
    pub soft_nodes: Option<u64>,
    /// Mate in this many moves.
    pub mate: Option<i32>,
    pub movetime_ms: Option<u64>,
    pub clock: Option<time::Clock>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<Move>,
}

/// A score as UCI shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    /// Mate in N moves (negative: getting mated).
    Mate(i32),
}

impl Score {
    pub fn from_value(v: i32) -> Score {
        if (TB_WIN_IN_MAX_PLY..MATE_IN_MAX_PLY).contains(&v.abs()) {
            // Tablebase wins: large centipawn scores below mate, as Stockfish shows them.
            return Score::Cp(v.signum() * (20_000 - (TB_WIN - v.abs())));
        }
        if v >= MATE_IN_MAX_PLY {
            Score::Mate((MATE - v + 1) / 2)
        } else if v <= -MATE_IN_MAX_PLY {
            Score::Mate(-(MATE + v) / 2)
        } else {
            Score::Cp(v)
        }
    }
}

/// Win/draw/loss per mille from a score (a logistic model: a draw is most
/// likely at 0, a win at ≥ +400 cp; mates are certain): what UCI's
/// `UCI_ShowWDL` and the service's live analysis show.
pub fn wdl_model(value: i32) -> (u32, u32, u32) {
    if value >= MATE_IN_MAX_PLY {
        return (1000, 0, 0);
    }
    if value <= -MATE_IN_MAX_PLY {
        return (0, 0, 1000);
    }
    let v = value.clamp(-4000, 4000) as f64;
    let w = 1000.0 / (1.0 + ((200.0 - v) / 90.0).exp());
    let l = 1000.0 / (1.0 + ((200.0 + v) / 90.0).exp());
    let (w, l) = (w.round() as u32, l.round() as u32);
    (w, 1000u32.saturating_sub(w + l), l)
}

#[derive(Clone, Debug, PartialEq)]
pub struct InfoLine {
    pub depth: i32,
    pub seldepth: usize,
    pub multipv: usize,
    pub score: Score,
    pub value: i32,
    /// Some(Lower/Upper) when the score is only a bound (aspiration fail).
    pub bound: Option<Bound>,
    pub nodes: u64,
    pub nps: u64,
    pub hashfull: u32,
    pub tbhits: u64,
    pub time_ms: u64,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SearchEvent {
    Info(InfoLine),
    /// A free-form message (`info string …`).
    Message(String),
    BestMove {
        best: Move,
        ponder: Option<Move>,
    },
}

pub type Reporter = Arc<dyn Fn(SearchEvent) + Send + Sync>;

/// One root move with what the last iterations learned about it.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMove {
    pub mv: Move,
    pub score: i32,
    /// What `score` is: exact, a lower bound (the move failed high) or an
    /// upper bound (the first move failed low).
    pub bound: Bound,
    pub prev_score: i32,
    pub pv: Vec<Move>,
    pub seldepth: usize,
    /// Nodes spent under this move in the current (last) iteration.
    pub nodes: u64,
    /// The tablebase verdict shown instead of a non-mate search score.
    pub tb_value: Option<i32>,
    /// Nodes spent under this move in the last completed iteration (0 until
    /// one completes). A node-limited search always stops inside an
    /// iteration, where `nodes` covers only the moves searched so far;
    /// self-play takes its visit distribution from this field instead.
    pub completed_nodes: u64,
}

impl RootMove {
    fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -INFINITE,
            bound: Bound::None,
            prev_score: -INFINITE,
            pv: vec![mv],
            seldepth: 0,
            nodes: 0,
            completed_nodes: 0,
            tb_value: None,
        }
    }
}

/// A value alone on its 64-byte cache line: counters that different
/// threads write must not share a line, or every write evicts the other
/// threads' copies (false sharing).
#[repr(align(64))]
#[derive(Debug, Default)]
pub struct CacheLine<T>(pub T);

impl<T> std::ops::Deref for CacheLine<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// State shared by all threads of one search.
pub struct Shared {
    pub stop: AtomicBool,
    /// True while `go ponder` has not been answered by `ponderhit`.
    pub pondering: AtomicBool,
    /// Each thread's node count, published every 1,024 nodes.
    pub node_counts: Vec<CacheLine<AtomicU64>>,
    /// Written by every thread at each tablebase hit: a line of its own,
    /// away from `stop`, which every node reads.
    pub tbhits: CacheLine<AtomicU64>,
    /// Tablebase probes that failed on a bad or unreadable file (a missing
    /// table is no failure), and the first such error: reported once, at
    /// the end of the search.
    pub tb_errors: AtomicU64,
    pub first_tb_error: parking_lot::Mutex<Option<crate::tb::TbError>>,
    pub start: Instant,
}

impl Shared {
    pub fn new(threads: usize, pondering: bool) -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            node_counts: (0..threads.max(1)).map(|_| CacheLine(AtomicU64::new(0))).collect(),
            tbhits: CacheLine(AtomicU64::new(0)),
            tb_errors: AtomicU64::new(0),
            first_tb_error: parking_lot::Mutex::new(None),
            start: Instant::now(),
        }
    }

    pub fn total_nodes(&self) -> u64 {
        self.node_counts.iter().map(|n| n.load(Relaxed)).sum()
    }

    /// Counts a failed tablebase probe (a position the tables do not cover,
    /// such as a missing table, is not counted).
    pub fn tb_failed(&self, error: crate::tb::TbError) {
        if !error.is_failure() {
            return;
        }
        if self.tb_errors.fetch_add(1, Relaxed) == 0 {
            *self.first_tb_error.lock() = Some(error);
        }
    }

    /// The one report of this search's failed probes, if there were any.
    pub fn tb_error_report(&self) -> Option<String> {
        let n = self.tb_errors.load(Relaxed);
        let first = self.first_tb_error.lock().clone()?;
        Some(format!("tablebase probe failed {n} time(s); first: {first}"))
    }

    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }
}

/// Options that shape one search.
#[derive(Clone)]
pub struct SearchConfig {
    pub multipv: usize,
    pub move_overhead_ms: u64,
    pub tb: Option<Arc<crate::tb::Tablebases>>,
    /// Probe WDL in the search only at this depth or more (SyzygyProbeDepth).
    pub tb_probe_depth: i32,
    /// Probe only positions with at most this many pieces (SyzygyProbeLimit).
    pub tb_probe_limit: u32,
    /// Cursed wins and blessed losses count as draws (Syzygy50MoveRule).
    pub tb_50_move_rule: bool,
    /// YACB entries used like TT entries (BookInSearch), see [`book`].
    pub book: Option<book::BookInSearch>,
    /// The network the search evaluates with; `None`: the hand-written
    /// evaluation. The default is the built-in network, if the binary has one.
    pub net: Option<Arc<Network>>,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            multipv: 1,
            move_overhead_ms: 20,
            tb: None,
            tb_probe_depth: 1,
            tb_probe_limit: 7,
            tb_50_move_rule: true,
            book: None,
            net: crate::nnue::builtin::network(),
        }
    }
}

impl std::fmt::Debug for SearchConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchConfig")
            .field("multipv", &self.multipv)
            .field("move_overhead_ms", &self.move_overhead_ms)
            .field("tb", &self.tb.as_ref().map(|t| t.table_count()))
            .field("book_min_elo", &self.book.as_ref().map(|b| b.min_elo))
            .field("net_hidden", &self.net.as_ref().map(|n| n.hidden()))
            .finish()
    }
}

#[derive(Clone, Copy)]
struct Frame {
    static_eval: i32,
    current: Move,
    /// Continuation key of `current` ([`ordering::NO_CONT`] for a null move).
    cont: u16,
    /// The move a singular-extension search leaves out here (or none).
    excluded: Move,
    /// Double extensions on the path from the root to here.
    double_extensions: u8,
}

/// Per-thread search state.
pub struct Worker {
    pub id: usize,
    pub board: Board,
    pub root_moves: Vec<RootMove>,
    pub completed_depth: i32,
    pub history: History,
    killers: Vec<[Move; 2]>,
    frames: Vec<Frame>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: Vec<usize>,
    nodes: u64,
    seldepth: usize,
    root_depth: i32,
    pv_idx: usize,
    stopped: bool,
    /// The first move of the last `multipv 1` line shown (see
    /// `Worker::show_new_best`).
    shown_best: Move,
    /// Probe WDL in the search up to this many pieces (0: never).
    pub(crate) tb_cardinality: u32,
    // Limits (main thread enforces them).
    max_nodes: u64,
    maximum_ms: u64,
    reductions: Reductions,
    /// The correction histories, one table for all the searcher's threads.
    correction: Arc<correction::Correction>,
    /// The network and this thread's accumulators, updated with every move
    /// the search makes (`None`: the hand-written evaluation).
    nnue: Option<(Arc<Network>, AccumulatorStack)>,
    /// The root position's key and root move order of a restored search
    /// state, used once by a search of that position that resumes.
    root_order: Option<(u64, Vec<Move>)>,
}

/// Late-move reductions in plies, `[depth][move number]` (both 0..=63;
/// larger values use row or column 63): `LMR_BASE + ln(depth)·ln(moves) /
/// LMR_DIVISOR`, computed once per worker so the search does no floating
/// point per node.
struct Reductions(Box<[[u8; 64]; 64]>);

impl Reductions {
    fn new() -> Reductions {
        let mut table = Box::new([[0u8; 64]; 64]);
        for (depth, row) in table.iter_mut().enumerate() {
            for (moves, r) in row.iter_mut().enumerate() {
                let d = (depth.max(1)) as f64;
                let m = (moves.max(1)) as f64;
                *r = (P::LMR_BASE + d.ln() * m.ln() / P::LMR_DIVISOR) as u8;
            }
        }
        Reductions(table)
    }

    fn get(&self, depth: i32, moves: usize) -> i32 {
        i32::from(self.0[depth.clamp(1, 63) as usize][moves.clamp(1, 63)])
    }
}

impl Worker {
    /// Worker `id`, learning corrections into the searcher's shared `correction`.
    pub fn new(id: usize, correction: Arc<correction::Correction>) -> Worker {
        Worker {
            id,
            board: Board::startpos(),
            root_moves: Vec::new(),
            completed_depth: 0,
            history: History::default(),
            killers: vec![[Move::NONE; 2]; MAX_PLY + 2],
            root_order: None,
            frames: vec![
                Frame {
                    static_eval: NO_VALUE,
                    current: Move::NONE,
                    cont: ordering::NO_CONT,
                    excluded: Move::NONE,
                    double_extensions: 0,
                };
                MAX_PLY + 4
            ],
            pv: vec![[Move::NONE; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: vec![0; MAX_PLY + 2],
            nodes: 0,
            seldepth: 0,
            root_depth: 0,
            pv_idx: 0,
            stopped: false,
            shown_best: Move::NONE,
            tb_cardinality: 0,
            max_nodes: u64::MAX,
            maximum_ms: u64::MAX,
            reductions: Reductions::new(),
            correction,
            nnue: None,
        }
    }

    /// Sets the evaluation for a search from `self.board`: the network's
    /// accumulators refreshed from the root, or the hand-written evaluation.
    pub(crate) fn set_network(&mut self, net: Option<&Arc<Network>>) {
        match (net, &mut self.nnue) {
            (None, _) => self.nnue = None,
            (Some(net), Some((ours, stack))) if Arc::ptr_eq(net, ours) => stack.reset(&self.board, net),
            (Some(net), _) => {
                self.nnue = Some((Arc::clone(net), AccumulatorStack::new(&self.board, net, MAX_PLY + 8)));
            }
        }
    }

    /// The static evaluation of the current position, side to move's view.
    #[inline]
    fn evaluate(&self) -> i32 {
        match &self.nnue {
            Some((net, stack)) => {
                debug_assert_eq!(
                    stack.current(),
                    &crate::nnue::Accumulator::from_board(&self.board, net),
                    "incremental accumulator differs from a refresh in {}",
                    self.board.fen()
                );
                with_base(&self.board, net, crate::nnue::evaluate(stack.current(), self.board.side_to_move(), net))
            }
            None => evaluate(&self.board),
        }
    }

    /// Makes `m` on the board and the accumulators.
    #[inline]
    fn make(&mut self, m: Move) {
        if let Some((net, stack)) = &mut self.nnue {
            stack.push(&self.board, m, net);
        }
        self.board.make_move(m);
    }

    /// Takes back the move [`make`](Self::make) made.
    #[inline]
    fn unmake(&mut self) {
        if let Some((_, stack)) = &mut self.nnue {
            stack.pop();
        }
        self.board.unmake_move();
    }

    /// Forgets ordering statistics (new game).
    pub fn clear(&mut self) {
        self.history.clear();
        self.correction.clear();
        for k in &mut self.killers {
            *k = [Move::NONE; 2];
        }
        self.root_order = None;
    }

    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The bytes of a search-state file of this worker's histories, killers,
    /// counter moves and root move order: all a later search needs to go on
    /// exactly where this one stopped (`make resume-bench`).
    pub fn save_state(&self) -> Vec<u8> {
        let [a, b, c] = self.history.state_tables();
        let corrections = self.correction.snapshot();
        let [d, e] = corrections.state_tables();
        let counters = state_file::raw_moves(self.history.counter_moves());
        let killers = state_file::raw_moves(self.killers.iter().flatten());
        let mut root = state_file::key_parts(self.board.key()).to_vec();
        root.extend(state_file::raw_moves(self.root_moves.iter().map(|r| &r.mv)));
        root.resize(state_file::ROOT_LEN, 0);
        let [cm, kl, rt] = state_file::MOVE_TAGS;
        let (f, g, h) = (
            state_file::move_table(cm, &counters),
            state_file::move_table(kl, &killers),
            state_file::move_table(rt, &root),
        );
        state_file::write(&[a, b, c, d, e, f, g, h])
    }

    /// Restores a search-state file; on error nothing changes. The root
    /// order is kept for the next search of the same position that resumes
    /// from the table (`Worker::first_depth`).
    pub fn restore_state(&mut self, bytes: &[u8]) -> Result<(), state_file::StateError> {
        let mut counters = state_file::raw_moves(self.history.counter_moves());
        let mut killers = state_file::raw_moves(self.killers.iter().flatten());
        let mut root = vec![0; state_file::ROOT_LEN];
        let mut corrections = self.correction.snapshot();
        {
            let [a, b, c] = self.history.state_tables_mut();
            let [d, e] = corrections.state_tables_mut();
            let [cm, kl, rt] = state_file::MOVE_TAGS;
            let (f, g, h) = (
                state_file::move_table_mut(cm, &mut counters),
                state_file::move_table_mut(kl, &mut killers),
                state_file::move_table_mut(rt, &mut root),
            );
            state_file::restore(bytes, &mut [a, b, c, d, e, f, g, h])?;
        }
        self.correction.load(&corrections);
        for (m, &raw) in self.history.counter_moves_mut().zip(&counters) {
            *m = state_file::move_of(raw);
        }
        for (m, &raw) in self.killers.iter_mut().flatten().zip(&killers) {
            *m = state_file::move_of(raw);
        }
        let (key, moves) = root.split_at(4);
        let order: Vec<Move> = moves.iter().map(|&raw| state_file::move_of(raw)).take_while(|m| !m.is_none()).collect();
        self.root_order = (!order.is_empty()).then(|| (state_file::key_of(key), order));
        Ok(())
    }

    /// Checks stop conditions; the main thread also enforces time and nodes.
    #[inline]
    fn check_stop(&mut self, ctx: &Ctx) -> bool {
        if self.stopped {
            return true;
        }
        if self.nodes & 1023 == 0 {
            ctx.shared.node_counts[self.id].store(self.nodes, Relaxed);
            self.check_clock(ctx);
        }
        if self.id == 0 && self.max_nodes != u64::MAX && ctx.shared.total_nodes_fast(self) >= self.max_nodes {
            ctx.shared.stop.store(true, Relaxed);
        }
        // The first iteration always completes (a few hundred nodes at
        // most), so a search stopped at once still answers with a searched
        // move, not the first one generated.
        if ctx.shared.stop.load(Relaxed) && self.root_depth > 1 {
            self.stopped = true;
        }
        self.stopped
    }

    /// The main thread raises the stop flag once the time is up (the flag
    /// is acted on at the next [`Self::check_stop`]).
    #[inline]
    fn check_clock(&self, ctx: &Ctx) {
        if self.id == 0 && !ctx.shared.pondering.load(Relaxed) && ctx.shared.elapsed_ms() >= self.maximum_ms {
            ctx.shared.stop.store(true, Relaxed);
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let child_len = self.pv_len[ply + 1];
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][ply] = m;
        let n = child_len.saturating_sub(ply + 1).min(MAX_PLY - ply);
        head[ply][ply + 1..ply + 1 + n].copy_from_slice(&tail[0][ply + 1..ply + 1 + n]);
        self.pv_len[ply] = ply + 1 + n;
    }

    /// Enters a node of either search: empties its PV, counts it and
    /// checks the limits. False when the search is stopped: a stopped
    /// search returns at once and counts no more nodes, so a node limit is
    /// never overshot by the calls still under way. `seldepth` follows the
    /// ply when `track_seldepth` (PV nodes of the main search, every
    /// quiescence node).
    #[inline(always)]
    fn enter_node(&mut self, ctx: &Ctx, ply: usize, track_seldepth: bool) -> bool {
        self.pv_len[ply] = ply;
        if self.stopped {
            return false;
        }
        self.nodes += 1;
        if self.check_stop(ctx) {
            return false;
        }
        if track_seldepth && ply + 1 > self.seldepth {
            self.seldepth = ply + 1;
        }
        true
    }

    /// A move's value `v` against the node's best so far: a better value
    /// becomes `best`; one above `alpha` also makes `m` the best move (and
    /// the PV at a PV node) and raises `alpha`. True when it fails high.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn new_best(
        &mut self,
        ply: usize,
        pv_node: bool,
        m: Move,
        v: i32,
        best: &mut i32,
        best_move: &mut Move,
        alpha: &mut i32,
        beta: i32,
    ) -> bool {
        if v <= *best {
            return false;
        }
        *best = v;
        if v > *alpha {
            *best_move = m;
            if pv_node {
                self.update_pv(ply, m);
            }
            if v >= beta {
                return true;
            }
            *alpha = v;
        }
        false
    }

    /// The principal-variation search. Steps are numbered as in the
    /// module documentation of Stockfish-like engines.
    #[allow(clippy::too_many_lines, reason = "the one long function, read through its numbered steps")]
    fn search(&mut self, ctx: &Ctx, mut alpha: i32, mut beta: i32, mut depth: i32, ply: usize, cut_node: bool) -> i32 {
        let pv_node = beta - alpha > 1;
        let root = ply == 0;

        // Step 1. Horizon: hand over to quiescence.
        if depth <= 0 {
            return self.qsearch(ctx, alpha, beta, ply);
        }
        if !self.enter_node(ctx, ply, pv_node) {
            return 0;
        }
        let in_check = self.board.in_check();

        // Step 2. Draws and the ply limit; mate distance pruning.
        if !root {
            if self.board.is_draw(ply) {
                return 0;
            }
            if ply >= MAX_PLY {
                return if in_check { 0 } else { self.evaluate() };
            }
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        // Step 3. Transposition table lookup and cutoff. The search that
        // leaves the TT move out to test it for singularity has an entry of
        // its own, under the position's key mixed with the excluded move: a
        // repeated search (a warm start from a saved table) finds its result
        // instead of searching again with a window no normal entry answers.
        let excluded = self.frames[ply].excluded;
        let singular_search = !excluded.is_none();
        self.frames[ply + 1].double_extensions = self.frames[ply].double_extensions;
        let key = if singular_search { self.board.key() ^ exclusion_salt(excluded) } else { self.board.key() };
        let tte = ctx.tt.probe(key);
        let tt_move = tte.map_or(Move::NONE, |e| e.best_move());
        let tt_value = tte.map_or(NO_VALUE, |e| value_from_tt(e.value as i32, ply));
        if let Some(e) = tte {
            if !pv_node
                && e.depth() >= depth
                && tt_value != NO_VALUE
                && self.board.halfmove_clock() < P::CUT_MAX_RULE50
                && e.bound().cuts(tt_value, alpha, beta)
            {
                return tt_value;
            }
        }

        // Step 3a. Book in search: a trusted YACB entry acts as a TT entry of
        // unlimited depth (its move first, its value cuts at non-PV nodes).
        let mut tt_move = tt_move;
        if !root && !singular_search {
            if let Some((book_move, book_value)) = ctx.config.book.as_ref().and_then(|b| b.probe(&self.board, ply)) {
                if let Some((v, bound)) = book_value {
                    if !pv_node && bound.cuts(v, alpha, beta) && self.board.halfmove_clock() < P::CUT_MAX_RULE50 {
                        return v;
                    }
                }
                if !book_move.is_none() {
                    tt_move = book_move;
                }
            }
        }

        // Step 3b. Tablebase probe: when the 50-move counter was just reset,
        // no castling rights remain and the piece count is within the limit.
        if !root && !singular_search && self.tb_cardinality > 0 {
            if let Some(v) = self.probe_tb(ctx, key, depth, ply, alpha, beta) {
                return v;
            }
        }

        // Step 4. Static evaluation (the TT keeps the raw one), corrected by
        // the pawn correction history, then refined by the TT value when
        // its bound allows.
        let raw_eval = if in_check {
            NO_VALUE
        } else {
            match tte {
                Some(e) if e.eval as i32 != NO_VALUE && e.eval.unsigned_abs() < 30_000 => e.eval as i32,
                _ => self.evaluate(),
            }
        };
        let static_eval = self.corrected(raw_eval);
        self.frames[ply].static_eval = static_eval;
        let mut eval = static_eval;
        if !in_check && tte.is_some_and(|e| tt_refines(e.bound(), tt_value, eval)) {
            eval = tt_value;
        }
        let improving = !in_check
            && ply >= 2
            && self.frames[ply - 2].static_eval != NO_VALUE
            && static_eval > self.frames[ply - 2].static_eval;
        let us = self.board.side_to_move();
        let non_pawn =
            self.board.color_bb(us) & !(self.board.type_bb(PieceType::Pawn) | self.board.type_bb(PieceType::King));

        // Step 5. Reverse futility pruning.
        if !pv_node && !in_check && depth <= P::RFP_MAX_DEPTH && eval.abs() < TB_WIN_IN_MAX_PLY {
            let margin = P::RFP_MARGIN * (depth - improving as i32);
            if eval - margin >= beta {
                return eval;
            }
        }

        // Step 5a. Razoring: far below alpha near the horizon, trust the
        // quiescence search when it agrees.
        if !pv_node && !in_check && depth <= P::RAZOR_MAX_DEPTH && eval + P::RAZOR_MARGIN * depth < alpha {
            let v = self.qsearch(ctx, alpha, alpha + 1, ply);
            if self.stopped {
                return 0;
            }
            if v <= alpha {
                return v;
            }
        }

        // Step 6. Null-move pruning.
        if !pv_node
            && !in_check
            && !singular_search
            && depth >= P::NMP_MIN_DEPTH
            && eval >= beta
            && non_pawn.any()
            && ply > 0
            && self.frames[ply - 1].current != Move::NULL
            && beta.abs() < TB_WIN_IN_MAX_PLY
        {
            let r = P::NMP_BASE + depth / P::NMP_DEPTH_DIV + ((eval - beta) / P::NMP_EVAL_DIV).min(P::NMP_EVAL_MAX);
            self.frames[ply].current = Move::NULL;
            self.frames[ply].cont = ordering::NO_CONT;
            self.board.make_null_move();
            let v = -self.search(ctx, -beta, -beta + 1, depth - r, ply + 1, !cut_node);
            self.board.unmake_move();
            if self.stopped {
                return 0;
            }
            if v >= beta {
                return if v >= TB_WIN_IN_MAX_PLY { beta } else { v };
            }
        }

        // Step 7. Internal iterative reduction: no TT move, search shallower.
        if depth >= P::IIR_MIN_DEPTH && tt_move.is_none() && (pv_node || cut_node) && !singular_search {
            depth -= 1;
        }

        // Step 8. The move loop.
        let cont_at = |back: usize| if ply >= back { self.frames[ply - back].cont } else { ordering::NO_CONT };
        let conts = [cont_at(1), cont_at(2)];
        let mut picker = if root {
            None
        } else {
            Some(MovePicker::main(&self.board, tt_move, self.killers[ply], &self.history, conts))
        };
        let mut root_index = self.pv_idx;
        let mut best = -INFINITE;
        let mut best_move = Move::NONE;
        let mut move_count = 0usize;
        // Quiet moves searched before the best one (their history is lowered
        // on a fail high): a fixed array, no allocation per node.
        let mut quiets_tried = [Move::NONE; P::QUIETS_TRIED_MAX];
        let mut quiets_count = 0;
        let mut captures_tried = [Move::NONE; P::CAPTURES_TRIED_MAX];
        let mut captures_count = 0;
        let original_alpha = alpha;

        loop {
            let (m, order_score) = match picker.as_mut() {
                Some(p) => match p.pick(&self.board, &self.history) {
                    Some(x) => x,
                    None => break,
                },
                None => {
                    if root_index >= self.root_moves.len() {
                        break;
                    }
                    root_index += 1;
                    (self.root_moves[root_index - 1].mv, 0)
                }
            };
            if m == excluded {
                continue;
            }
            move_count += 1;
            let noisy = is_noisy(&self.board, m);

            // Step 9. Shallow-depth pruning (never at the root, never when
            // every move so far loses to a mate). Late-move pruning ends the
            // quiets altogether; futility, history and SEE pruning look at
            // the depth the move would be searched to after its reduction.
            if !root && best > -TB_WIN_IN_MAX_PLY && non_pawn.any() {
                if !noisy {
                    let lmp_limit = (P::LMP_BASE + depth * depth) as usize / if improving { 1 } else { 2 };
                    let shallow = depth <= P::QUIET_PRUNE_MAX_DEPTH;
                    if shallow && move_count > lmp_limit.max(P::LMP_MIN) && !in_check {
                        if let Some(p) = picker.as_mut() {
                            p.skip_quiets();
                        }
                        continue;
                    }
                    let lmr_depth = (depth - 1 - self.reductions.get(depth, move_count)).max(0);
                    if lmr_depth <= P::HISTORY_PRUNE_MAX_DEPTH && order_score < -P::HISTORY_PRUNE_MARGIN * depth {
                        continue;
                    }
                    if !in_check
                        && lmr_depth <= P::QUIET_PRUNE_MAX_DEPTH
                        && static_eval + P::FUTILITY_BASE + P::FUTILITY_PER_DEPTH * lmr_depth <= alpha
                    {
                        continue;
                    }
                    if lmr_depth <= P::QUIET_PRUNE_MAX_DEPTH
                        && !see_ge(&self.board, m, -P::SEE_QUIET_MARGIN * lmr_depth * lmr_depth / 4)
                    {
                        continue;
                    }
                } else if depth <= P::SEE_NOISY_MAX_DEPTH && !see_ge(&self.board, m, -P::SEE_NOISY_MARGIN * depth) {
                    continue;
                }
            }

            // Step 10. Extensions. A TT move whose value holds a lower bound
            // deep enough is searched without it first: if every other move
            // fails low well below its value, it is singular and extended
            // (twice when far below, a limited number of times per path);
            // if even the others beat beta, the node is cut (multi-cut);
            // if the TT value beats beta anyway, it is reduced. Checks are
            // extended otherwise.
            let mut extension = 0;
            let extend_more = (ply as i32) < P::CHECK_EXTENSION_PLY_FACTOR * self.root_depth;
            let singular_candidate = !root
                && !singular_search
                && depth >= P::SE_MIN_DEPTH
                && extend_more
                && tte.is_some_and(|e| {
                    e.best_move() == m
                        && e.depth() >= depth - P::SE_TT_DEPTH_MARGIN
                        && matches!(e.bound(), Bound::Lower | Bound::Exact)
                })
                && tt_value.abs() < TB_WIN_IN_MAX_PLY;
            if singular_candidate {
                let singular_beta = tt_value - P::SE_BETA_MARGIN * depth / 8;
                self.frames[ply].excluded = m;
                let v = self.search(ctx, singular_beta - 1, singular_beta, (depth - 1) / 2, ply, cut_node);
                self.frames[ply].excluded = Move::NONE;
                if self.stopped {
                    return 0;
                }
                if v < singular_beta {
                    extension = 1;
                    if !pv_node
                        && v < singular_beta - P::SE_DOUBLE_MARGIN
                        && self.frames[ply].double_extensions < P::SE_DOUBLE_MAX
                    {
                        extension = 2;
                    }
                } else if singular_beta >= beta {
                    return singular_beta;
                } else if tt_value >= beta {
                    extension = -1;
                }
            }

            // Step 11. Make the move.
            self.frames[ply + 1].double_extensions = self.frames[ply].double_extensions + u8::from(extension == 2);
            let nodes_before = self.nodes;
            let hist = if noisy {
                0
            } else if root {
                self.history.quiet_with(&self.board, m, conts)
            } else {
                order_score
            };
            self.frames[ply].current = m;
            self.frames[ply].cont = ordering::cont_index(&self.board, m);
            self.make(m);
            ctx.tt.prefetch(self.board.key());
            let gives_check = self.board.in_check();
            if !singular_candidate && gives_check && extend_more {
                extension = 1;
            }
            let new_depth = depth - 1 + extension;

            // Step 12. Late-move reductions, then PVS re-searches.
            let mut v = -INFINITE;
            let reducible = !noisy || is_bad_capture_score(order_score);
            if depth >= P::LMR_MIN_DEPTH && move_count > 1 + root as usize && reducible {
                let mut r = self.reductions.get(depth, move_count);
                r -= pv_node as i32;
                r += !improving as i32;
                r += cut_node as i32;
                r -= gives_check as i32;
                r -= hist / P::LMR_HISTORY_DIV;
                let d = (new_depth - r).clamp(1, new_depth.max(1));
                v = -self.search(ctx, -alpha - 1, -alpha, d, ply + 1, true);
                if v > alpha && d < new_depth {
                    v = -self.search(ctx, -alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
                }
            } else if !pv_node || move_count > 1 {
                v = -self.search(ctx, -alpha - 1, -alpha, new_depth, ply + 1, !cut_node);
            }
            if pv_node && (move_count == 1 || (v > alpha && (root || v < beta))) {
                v = -self.search(ctx, -beta, -alpha, new_depth, ply + 1, false);
            }
            self.unmake();
            if self.stopped {
                return 0;
            }

            // Step 13. Root bookkeeping: scores, PVs, node counts.
            if root {
                let spent = self.nodes - nodes_before;
                let child_pv_len = self.pv_len[1];
                let seldepth = self.seldepth;
                if let Some(rm) = self.root_moves.iter_mut().find(|r| r.mv == m) {
                    rm.nodes += spent;
                    if move_count == 1 || v > alpha {
                        rm.score = v;
                        rm.bound = node_bound(v, alpha, beta, true);
                        rm.seldepth = seldepth;
                        rm.pv.clear();
                        rm.pv.push(m);
                        rm.pv.extend_from_slice(&self.pv[1][1..child_pv_len.max(1)]);
                    } else {
                        rm.score = -INFINITE;
                    }
                }
            }

            // Step 14. New best move?
            if self.new_best(ply, pv_node, m, v, &mut best, &mut best_move, &mut alpha, beta) {
                break;
            }
            if m != best_move {
                if !noisy && quiets_count < P::QUIETS_TRIED_MAX {
                    quiets_tried[quiets_count] = m;
                    quiets_count += 1;
                } else if noisy && captures_count < P::CAPTURES_TRIED_MAX {
                    captures_tried[captures_count] = m;
                    captures_count += 1;
                }
            }
        }

        // Step 15. No legal move: mate or stalemate (or, in a singularity
        // search, only the excluded move: a fail low).
        if move_count == 0 {
            if singular_search {
                return alpha;
            }
            return if in_check { mated_in(ply) } else { 0 };
        }

        // Step 16. Reward the move that failed high; punish the moves of its
        // kind tried before it (and the captures tried before a quiet).
        if best >= beta {
            let bonus = (P::HISTORY_BONUS_MUL * depth - P::HISTORY_BONUS_SUB).min(P::HISTORY_BONUS_MAX);
            if is_noisy(&self.board, best_move) {
                self.history.update_capture(&self.board, best_move, bonus);
            } else {
                self.history.update(&self.board, best_move, conts, bonus);
                for &q in &quiets_tried[..quiets_count] {
                    self.history.update(&self.board, q, conts, -bonus);
                }
                if self.killers[ply][0] != best_move {
                    self.killers[ply][1] = self.killers[ply][0];
                    self.killers[ply][0] = best_move;
                }
                self.history.set_counter_move(&self.board, best_move);
            }
            for &c in &captures_tried[..captures_count] {
                self.history.update_capture(&self.board, c, -bonus);
            }
        }

        // Step 17. Store in the transposition table.
        let bound = node_bound(best, original_alpha, beta, pv_node);
        // (Not for the later lines of a MultiPV root.)
        let later_multipv_line = root && self.pv_idx > 0;
        if !later_multipv_line {
            ctx.tt.store(key, depth, bound, pv_node, best_move, value_to_tt(best, ply), raw_eval);
        }

        // Step 18. Teach the correction history what this search found,
        // unless a capture decided it or the bound says nothing about it.
        let decided_by_capture = !best_move.is_none() && is_noisy(&self.board, best_move);
        let bound_says_nothing =
            (bound == Bound::Lower && best <= static_eval) || (bound == Bound::Upper && best >= static_eval);
        let learn = !(in_check || singular_search || decided_by_capture || bound_says_nothing);
        if learn && best.abs() < TB_WIN_IN_MAX_PLY {
            self.correction.update(&self.board, depth, best - static_eval);
        }
        best
    }

    /// A raw static evaluation plus the pawn correction history, kept
    /// clear of the tablebase and mate range.
    fn corrected(&self, raw_eval: i32) -> i32 {
        if raw_eval == NO_VALUE {
            return NO_VALUE;
        }
        (raw_eval + self.correction.get(&self.board)).clamp(-TB_WIN_IN_MAX_PLY + 1, TB_WIN_IN_MAX_PLY - 1)
    }

    /// WDL probe inside the search; returns a value when it settles the node.
    fn probe_tb(&mut self, ctx: &Ctx, key: u64, depth: i32, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
        let tb = ctx.config.tb.as_ref()?;
        let pieces = self.board.piece_count();
        if pieces > self.tb_cardinality
            || (pieces == self.tb_cardinality && depth < ctx.config.tb_probe_depth)
            || self.board.halfmove_clock() != 0
            || self.board.castling_rights() != 0
        {
            return None;
        }
        let probed = tb.probe_wdl(&self.board);
        // A probe may have waited on a slow disk: look at the clock now, not
        // up to 1,024 nodes later. Only the stop flag can change, so a search
        // with no time limit (bench) is unaffected.
        self.check_clock(ctx);
        let wdl = match probed {
            Ok(wdl) => wdl,
            Err(e) => {
                ctx.shared.tb_failed(e);
                return None;
            }
        };
        ctx.shared.tbhits.fetch_add(1, Relaxed);
        use crate::tb::Wdl;
        let rule50 = ctx.config.tb_50_move_rule;
        let v = match wdl {
            Wdl::Win => TB_WIN - ply as i32,
            Wdl::Loss => -TB_WIN + ply as i32,
            Wdl::CursedWin if !rule50 => TB_WIN - ply as i32,
            Wdl::BlessedLoss if !rule50 => -TB_WIN + ply as i32,
            Wdl::CursedWin => 1,
            Wdl::BlessedLoss => -1,
            Wdl::Draw => 0,
        };
        let bound = if v > 1 {
            Bound::Lower
        } else if v < -1 {
            Bound::Upper
        } else {
            Bound::Exact
        };
        if bound.cuts(v, alpha, beta) {
            ctx.tt.store(
                key,
                (depth + 6).min(MAX_PLY as i32 - 1),
                bound,
                false,
                Move::NONE,
                value_to_tt(v, ply),
                NO_VALUE,
            );
            return Some(v);
        }
        None
    }

    /// Quiescence search: captures and promotions (all evasions in check),
    /// from a stand-pat value, down to quiet positions.
    fn qsearch(&mut self, ctx: &Ctx, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        let pv_node = beta - alpha > 1;

        // Step 1. Stop, count the node, draws and the ply limit.
        if !self.enter_node(ctx, ply, true) {
            return 0;
        }
        if self.board.is_draw(ply) {
            return 0;
        }
        let in_check = self.board.in_check();
        if ply >= MAX_PLY {
            return if in_check { 0 } else { self.evaluate() };
        }

        // Step 2. Transposition table lookup and cutoff (not at PV nodes).
        let key = self.board.key();
        let tte = ctx.tt.probe(key);
        let tt_value = tte.map_or(NO_VALUE, |e| value_from_tt(e.value as i32, ply));
        if let Some(e) = tte {
            if !pv_node && tt_value != NO_VALUE && e.bound().cuts(tt_value, alpha, beta) {
                return tt_value;
            }
        }

        // Step 3. Stand pat: the corrected static evaluation (or a TT value
        // whose bound allows it) is a lower bound unless in check.
        let mut best;
        let static_eval;
        let raw_eval;
        if in_check {
            best = -INFINITE;
            static_eval = NO_VALUE;
            raw_eval = NO_VALUE;
        } else {
            raw_eval = match tte {
                Some(e) if e.eval.unsigned_abs() < 30_000 => e.eval as i32,
                _ => self.evaluate(),
            };
            static_eval = self.corrected(raw_eval);
            best = static_eval;
            if tte.is_some_and(|e| tt_refines(e.bound(), tt_value, best)) {
                best = tt_value;
            }
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }

        // Step 4. The move loop: captures and promotions, every evasion in
        // check.
        let original_alpha = alpha;
        let mut picker = MovePicker::quiescence(&self.board, tte.map_or(Move::NONE, |e| e.best_move()));
        let mut best_move = Move::NONE;
        let mut moves = 0;
        while let Some((m, _)) = picker.pick(&self.board, &self.history) {
            moves += 1;

            // Step 5. Pruning (not in check): under-promotions, captures
            // that lose material, and delta pruning (even winning the piece
            // cannot reach alpha).
            if !in_check {
                if m.promotion_piece().is_some_and(|p| p != PieceType::Queen) {
                    continue;
                }
                if !see_ge(&self.board, m, 0) {
                    continue;
                }
                let gain = self.board.piece_on(m.to()).map_or(100, |p| see::SEE_VALUES[p.kind().index()]);
                if m.promotion_piece().is_none() && static_eval + gain + P::DELTA_MARGIN <= alpha {
                    continue;
                }
            }

            // Step 6. Make, search, unmake.
            self.make(m);
            let v = -self.qsearch(ctx, -beta, -alpha, ply + 1);
            self.unmake();
            if self.stopped {
                return 0;
            }

            // Step 7. New best move?
            if self.new_best(ply, pv_node, m, v, &mut best, &mut best_move, &mut alpha, beta) {
                break;
            }
        }

        // Step 8. No evasion: mated.
        if in_check && moves == 0 {
            return mated_in(ply);
        }

        // Step 9. Store in the transposition table (depth 0).
        let bound = node_bound(best, original_alpha, beta, pv_node);
        ctx.tt.store(key, 0, bound, pv_node, best_move, value_to_tt(best, ply), raw_eval);
        best
    }
}

impl Shared {
    #[inline]
    fn total_nodes_fast(&self, main: &Worker) -> u64 {
        if self.node_counts.len() == 1 {
            main.nodes
        } else {
            self.total_nodes() - self.node_counts[0].load(Relaxed) + main.nodes
        }
    }
}

/// Everything a worker reads but does not own.
pub struct Ctx<'a> {
    pub tt: &'a TranspositionTable,
    pub shared: &'a Shared,
    pub limits: &'a Limits,
    pub config: &'a SearchConfig,
    pub report: Option<&'a Reporter>,
}

#[cfg(test)]
mod tb_error_tests {
    use super::Shared;
    use crate::tb::{TableName, TbError};

    #[test]
    fn failed_probes_are_counted_and_reported_once_with_the_first_error() {
        let shared = Shared::new(1, false);
        assert_eq!(shared.tb_error_report(), None);
        let missing = TbError::MissingTable { name: TableName(Default::default()) };
        shared.tb_failed(missing);
        assert_eq!(shared.tb_error_report(), None, "a missing table is no failure");
        shared.tb_failed(TbError::Castling);
        shared.tb_failed(TbError::TooManyPieces { count: 9, max: 5 });
        assert_eq!(shared.tb_error_report(), None, "a position outside the tables is no failure");
        let corrupt = |offset| TbError::Corrupt { file: "KQvK.rtbw".into(), offset, reason: "bad block" };
        shared.tb_failed(corrupt(64));
        shared.tb_failed(corrupt(128));
        let report = shared.tb_error_report().unwrap();
        assert!(report.starts_with("tablebase probe failed 2 time(s)"), "{report}");
        assert!(report.contains("KQvK.rtbw at offset 64"), "{report}");
    }
}
