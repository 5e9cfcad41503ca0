//! Every legal move of a position with its tablebase values, categorised
//! and ranked as the Lichess tablebase API (`lila-tablebase`, 2026) does.
//!
//! Each move carries the WDL and DTZ of the position *after* it, from the
//! side then to move ([`Tablebases::probe_wdl`]/[`Tablebases::probe_dtz`],
//! python-chess's values), and a [`Category`] from that side's view too: a
//! move into `loss` wins for the mover. Categories follow Lichess:
//!
//! * `draw`: stalemate, insufficient material or DTZ 0;
//! * checkmate: `loss` (`blessed-loss` if the clock before the move had
//!   reached 100 plies);
//! * otherwise from DTZ and the halfmove clock after the move `h`, as
//!   shakmaty-syzygy's `AmbiguousWdl::from_dtz_and_halfmoves`: with `h = 0`
//!   the DTZ alone (`|dtz| ≤ 100` win/loss, beyond cursed/blessed); else
//!   from `dtz ± h`, where exactly ±100 from a table that stores full moves
//!   (so the value may be one ply too large) is `syzygy-win` /
//!   `syzygy-loss` (Lichess's names since March 2025; its `maybe-*` are
//!   DTC answers, which no table read here gives); with the clock at 100
//!   or more before the move, every decisive value is `cursed-win` /
//!   `blessed-loss`;
//! * `unknown` when the DTZ cannot be probed (missing table, too many
//!   pieces, castling rights).
//!
//! Ranking (best move first), Lichess's sort key without its DTM, DTW and
//! DTC terms (always empty here): category `loss` < `unknown` <
//! `syzygy-loss` < `blessed-loss` < `draw` < `cursed-win` < `syzygy-win` <
//! `win`; then checkmates; then stalemates, then insufficient material;
//! then, unless the move loses (its category is a win for the opponent),
//! conversions (captures and promotions) first, last when it loses; zeroing
//! moves likewise; then the larger DTZ after the move (unknown first); then
//! the more valuable captured piece, then promotion. Remaining ties fall
//! where lila-tablebase's sort leaves them: it lists the moves in
//! shakmaty's order ([`super::order`]) and sorts them with Rust's unstable
//! sort, which is deterministic but moves equal elements by its own rules,
//! and those depend on the size of what it sorts; [`lila_sort`] sorts
//! elements of the size of lila-tablebase's (see [`Slot`]), so ties land
//! in the same places. Finally, as Lichess does, the leading `syzygy-*`
//! moves are resolved by the category of the position itself when that is
//! certain, and the position's category is the negation of its best move's.

use super::{Dtz, Tablebases, TbError, Wdl};
use crate::board::Board;
use crate::types::{Move, MoveKind, PieceType};
use serde::Serialize;
use std::cmp::Reverse;

/// Lichess's tablebase categories, in ranking order (best move first), from
/// the side to move's view. Serialised by their API names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Loss,
    Unknown,
    SyzygyLoss,
    BlessedLoss,
    Draw,
    CursedWin,
    SyzygyWin,
    Win,
}

impl Category {
    /// Every category, in ranking order.
    pub const ALL: [Category; 8] = [
        Category::Loss,
        Category::Unknown,
        Category::SyzygyLoss,
        Category::BlessedLoss,
        Category::Draw,
        Category::CursedWin,
        Category::SyzygyWin,
        Category::Win,
    ];

    /// The API's name (`syzygy-win`, `cursed-win`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Category::Loss => "loss",
            Category::Unknown => "unknown",
            Category::SyzygyLoss => "syzygy-loss",
            Category::BlessedLoss => "blessed-loss",
            Category::Draw => "draw",
            Category::CursedWin => "cursed-win",
            Category::SyzygyWin => "syzygy-win",
            Category::Win => "win",
        }
    }

    /// The same outcome from the other side's view.
    pub const fn flipped(self) -> Category {
        match self {
            Category::Loss => Category::Win,
            Category::Unknown => Category::Unknown,
            Category::SyzygyLoss => Category::SyzygyWin,
            Category::BlessedLoss => Category::CursedWin,
            Category::Draw => Category::Draw,
            Category::CursedWin => Category::BlessedLoss,
            Category::SyzygyWin => Category::SyzygyLoss,
            Category::Win => Category::Loss,
        }
    }

    /// A win of some kind for the side to move (Lichess's `is_positive`).
    pub const fn is_positive(self) -> bool {
        matches!(self, Category::CursedWin | Category::SyzygyWin | Category::Win)
    }

    /// Category of a DTZ counted from a zeroing move (shakmaty-syzygy's
    /// `Wdl::from_dtz`).
    fn from_dtz(dtz: i32) -> Category {
        match dtz {
            n if n < -100 => Category::BlessedLoss,
            n if n < 0 => Category::Loss,
            0 => Category::Draw,
            n if n <= 100 => Category::Win,
            _ => Category::CursedWin,
        }
    }

    /// shakmaty-syzygy's `AmbiguousWdl::from_dtz_and_halfmoves`, its
    /// `MaybeWin`/`MaybeLoss` named as Lichess names them.
    fn from_dtz_and_halfmoves(dtz: i32, rounded: bool, halfmoves: u32) -> Category {
        if halfmoves == 0 {
            return Category::from_dtz(dtz);
        }
        let h = i32::try_from(halfmoves).unwrap_or(i32::MAX);
        let d = match dtz {
            0 => 0,
            n if n > 0 => n.saturating_add(h),
            n => n.saturating_sub(h),
        };
        match d {
            100 if rounded => Category::SyzygyWin,
            -100 if rounded => Category::SyzygyLoss,
            _ => Category::from_dtz(d),
        }
    }
}

/// What the tables (and the board) say about one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionInfo {
    pub wdl: Option<Wdl>,
    pub dtz: Option<Dtz>,
    /// The DTZ comes from a table storing full moves (may be one ply large).
    pub dtz_rounded: bool,
    pub checkmate: bool,
    pub stalemate: bool,
    pub insufficient_material: bool,
    /// The halfmove clock of the position.
    pub halfmoves: u32,
}

impl PositionInfo {
    /// The category of this position, reached by a move made with the
    /// clock at `halfmoves_before` (Lichess's `PositionInfo::category`).
    pub fn category(&self, halfmoves_before: u32) -> Category {
        if self.stalemate || self.insufficient_material || self.dtz == Some(Dtz(0)) {
            Category::Draw
        } else if self.checkmate {
            if halfmoves_before < 100 {
                Category::Loss
            } else {
                Category::BlessedLoss
            }
        } else if let Some(Dtz(d)) = self.dtz {
            if halfmoves_before < 100 {
                Category::from_dtz_and_halfmoves(d, self.dtz_rounded, self.halfmoves)
            } else if d < 0 {
                Category::BlessedLoss
            } else {
                Category::CursedWin
            }
        } else {
            Category::Unknown
        }
    }

    /// Lichess's position fields for this position, whose category is
    /// `category`.
    pub fn answer(&self, category: Category) -> PositionAnswer {
        PositionAnswer {
            checkmate: self.checkmate,
            stalemate: self.stalemate,
            variant_win: false,
            variant_loss: false,
            insufficient_material: self.insufficient_material,
            dtz: self.dtz.map(|d| d.0),
            precise_dtz: self.dtz.filter(|_| !self.dtz_rounded).map(|d| d.0),
            dtm: None,
            dtw: None,
            dtc: None,
            category,
        }
    }
}

/// One legal move and the position it leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveInfo {
    pub mv: Move,
    pub uci: String,
    pub san: String,
    /// A capture or a pawn move.
    pub zeroing: bool,
    /// A capture or a promotion (shakmaty's `is_conversion`).
    pub conversion: bool,
    pub capture: Option<PieceType>,
    pub promotion: Option<PieceType>,
    /// The position after the move, from the side then to move.
    pub after: PositionInfo,
    pub category: Category,
}

/// A position and its ranked moves ([`Tablebases::probe_moves`]); its
/// answer in Lichess's shape is [`MovesReport::answer`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovesReport {
    pub position: PositionInfo,
    /// The position's category: the reverse of the best move's, or its own
    /// when it has no legal move.
    pub category: Category,
    pub moves: Vec<MoveInfo>,
}

/// The fields Lichess's tablebase API gives for every position (the one
/// asked about and the one after each move), always all of them.
/// `dtz` may be one ply too large (a table that stores full moves), and
/// `precise_dtz` is then `null`; `dtm`, `dtw` and `dtc` are always `null`
/// (no such tables are read), `variant_win` and `variant_loss` always
/// false (standard chess only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionAnswer {
    pub checkmate: bool,
    pub stalemate: bool,
    pub variant_win: bool,
    pub variant_loss: bool,
    pub insufficient_material: bool,
    pub dtz: Option<i32>,
    pub precise_dtz: Option<i32>,
    pub dtm: Option<i32>,
    pub dtw: Option<i32>,
    pub dtc: Option<i32>,
    pub category: Category,
}

/// One move of [`TablebaseAnswer`]: the move and the position after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveAnswer {
    pub uci: String,
    pub san: String,
    pub zeroing: bool,
    pub conversion: bool,
    #[serde(flatten)]
    pub position: PositionAnswer,
}

/// Lichess's tablebase answer (`GET /standard?fen=`), the one type that
/// `archivist serve` and `tb probe --moves --json` print: the position's
/// fields and its moves, best first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TablebaseAnswer {
    #[serde(flatten)]
    pub position: PositionAnswer,
    pub moves: Vec<MoveAnswer>,
}

impl MovesReport {
    /// The report in Lichess's shape.
    pub fn answer(&self) -> TablebaseAnswer {
        TablebaseAnswer {
            position: self.position.answer(self.category),
            moves: self
                .moves
                .iter()
                .map(|m| MoveAnswer {
                    uci: m.uci.clone(),
                    san: m.san.clone(),
                    zeroing: m.zeroing,
                    conversion: m.conversion,
                    position: m.after.answer(m.category),
                })
                .collect(),
        }
    }
}

impl Tablebases {
    /// What is known about `board`. A position outside the tables (missing
    /// table, too many pieces, castling rights) has unknown values; a
    /// damaged or unreadable table is an error.
    pub fn position_info(&self, board: &Board) -> Result<PositionInfo, TbError> {
        let wdl = known(self.probe_wdl(board))?;
        let dtz = known(self.probe_dtz_rounding(board))?;
        Ok(PositionInfo {
            wdl,
            dtz: dtz.map(|d| d.0),
            dtz_rounded: dtz.is_some_and(|d| d.1),
            checkmate: board.is_checkmate(),
            stalemate: board.is_stalemate(),
            insufficient_material: board.is_insufficient_material(),
            halfmoves: u32::from(board.halfmove_clock()),
        })
    }

    /// Every legal move of `board` (restored before returning), ranked as
    /// the Lichess tablebase API ranks them (see the module documentation).
    pub fn probe_moves(&self, board: &mut Board) -> Result<MovesReport, TbError> {
        let halfmoves = u32::from(board.halfmove_clock());
        let mut moves = Vec::new();
        for mv in super::order::legal_moves(board) {
            let capture = captured_piece(board, mv);
            let zeroing = is_zeroing(board, mv);
            let promotion = mv.promotion_piece();
            let conversion = capture.is_some() || promotion.is_some();
            let uci = board.move_to_uci(mv);
            let san = board.move_to_san(mv);
            board.make_move(mv);
            let after = self.position_info(board);
            board.unmake_move();
            let after = after?;
            let category = after.category(halfmoves);
            moves.push(MoveInfo { mv, uci, san, zeroing, conversion, capture, promotion, after, category });
        }
        lila_sort(&mut moves);
        let position = self.position_info(board)?;
        let own = position.category(halfmoves.saturating_sub(1));
        resolve_syzygy(own, &mut moves);
        let category = moves.first().map_or(own, |m| m.category.flipped());
        Ok(MovesReport { position, category, moves })
    }
}

/// `Some` value, `None` for a position outside the tables, or the error of
/// a damaged table.
fn known<T>(r: Result<T, TbError>) -> Result<Option<T>, TbError> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_failure() => Err(e),
        Err(_) => Ok(None),
    }
}

type RankKey = (
    Category,
    Reverse<bool>,
    (Reverse<bool>, Reverse<bool>),
    bool,
    (bool, Option<Reverse<i32>>),
    (Reverse<Option<PieceType>>, Reverse<Option<PieceType>>),
);

/// Lichess's sort key (`MoveInfo::sort_key`; its DTM, DTW and DTC terms
/// are always empty here).
fn rank_key(m: &MoveInfo) -> RankKey {
    let a = &m.after;
    let not_losing = !m.category.is_positive();
    (
        m.category,
        Reverse(a.checkmate),
        (Reverse(a.stalemate), Reverse(a.insufficient_material)),
        m.conversion ^ not_losing,
        (m.zeroing ^ not_losing, a.dtz.map(|d| Reverse(d.0))),
        (Reverse(m.capture), Reverse(m.promotion)),
    )
}

/// The size in bytes of lila-tablebase's `MoveInfo` (built with shakmaty
/// 0.30 on x86-64), the element its sort moves.
const LILA_MOVE_INFO_SIZE: usize = 64;

/// One move as lila-tablebase's sort sees it: its key and its place in the
/// list. Rust's unstable sort picks its partition scheme and its sort for
/// short runs by the size of the element (and whether it is `Copy`), and
/// where equal keys end up follows from those choices; a slot is as large
/// as lila-tablebase's `MoveInfo` and not `Copy`, so that the same sort
/// runs here. That is the sort of the Rust that builds both: lila-tablebase
/// a06a88b was built with 1.95, whose sort is ipnsort (since 1.81, this
/// crate's rust-version for that reason; 1.80's pdqsort would leave some
/// ties elsewhere); a later change of the sort would do the same,
/// and engine-tests/test_tb_lila.py, which holds the answers to
/// lila-tablebase's recorded ones, would show it.
struct Slot {
    key: RankKey,
    index: u8,
    _as_large_as_lila: [u8; SLOT_PADDING],
}

const SLOT_PADDING: usize = LILA_MOVE_INFO_SIZE - std::mem::size_of::<(RankKey, u8)>();

const _: () = assert!(std::mem::size_of::<Slot>() == LILA_MOVE_INFO_SIZE);

/// Sorts `moves` (in shakmaty's order) as lila-tablebase does:
/// `sort_unstable_by_key` on [`rank_key`], over elements of its size.
fn lila_sort(moves: &mut Vec<MoveInfo>) {
    // A position has at most 218 legal moves: every index fits a byte.
    let mut slots: Vec<Slot> = moves
        .iter()
        .enumerate()
        .map(|(i, m)| Slot { key: rank_key(m), index: i as u8, _as_large_as_lila: [0; SLOT_PADDING] })
        .collect();
    slots.sort_unstable_by_key(|s| s.key);
    let mut unsorted: Vec<Option<MoveInfo>> = moves.drain(..).map(Some).collect();
    moves.extend(slots.iter().filter_map(|s| unsorted.get_mut(usize::from(s.index))?.take()));
}

/// With the position's own category certain, the leading `syzygy-*` moves
/// are what it implies (Lichess's fix-up after sorting).
fn resolve_syzygy(own: Category, moves: &mut [MoveInfo]) {
    let (ambiguous, correct) = match own {
        Category::Win => (Category::SyzygyLoss, Category::Loss),
        Category::CursedWin => (Category::SyzygyLoss, Category::BlessedLoss),
        Category::BlessedLoss => (Category::SyzygyWin, Category::CursedWin),
        Category::Loss => (Category::SyzygyWin, Category::Win),
        _ => return,
    };
    for m in moves.iter_mut() {
        if m.category != ambiguous {
            break;
        }
        m.category = correct;
    }
}

/// Does `mv` reset the halfmove clock (a capture or a pawn move)?
pub(super) fn is_zeroing(board: &Board, mv: Move) -> bool {
    captured_piece(board, mv).is_some() || board.piece_on(mv.from()).is_some_and(|p| p.kind() == PieceType::Pawn)
}

/// The piece `mv` captures on `board`, if any (castling is king-takes-rook
/// and captures nothing).
fn captured_piece(board: &Board, mv: Move) -> Option<PieceType> {
    match mv.kind() {
        MoveKind::Castling => None,
        MoveKind::EnPassant => Some(PieceType::Pawn),
        _ => board.piece_on(mv.to()).map(|p| p.kind()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(dtz: Option<i32>, rounded: bool, halfmoves: u32) -> PositionInfo {
        PositionInfo {
            wdl: None,
            dtz: dtz.map(Dtz),
            dtz_rounded: rounded,
            checkmate: false,
            stalemate: false,
            insufficient_material: false,
            halfmoves,
        }
    }

    #[test]
    fn categories_follow_dtz_and_the_clock_as_lichess() {
        assert_eq!(info(Some(-5), false, 0).category(0), Category::Loss);
        assert_eq!(info(Some(-101), false, 0).category(0), Category::BlessedLoss);
        assert_eq!(info(Some(100), true, 0).category(0), Category::Win);
        assert_eq!(info(Some(130), false, 0).category(0), Category::CursedWin);
        assert_eq!(info(Some(0), false, 7).category(6), Category::Draw);
        assert_eq!(info(None, false, 7).category(6), Category::Unknown);
        // Clock 10 after the move: 90 + 10 = 100 is ambiguous only when rounded.
        assert_eq!(info(Some(90), true, 10).category(9), Category::SyzygyWin);
        assert_eq!(info(Some(90), false, 10).category(9), Category::Win);
        assert_eq!(info(Some(-90), true, 10).category(9), Category::SyzygyLoss);
        assert_eq!(info(Some(92), true, 10).category(9), Category::CursedWin);
        // The clock had already run out before the move.
        assert_eq!(info(Some(-3), false, 101).category(100), Category::BlessedLoss);
        assert_eq!(info(Some(3), false, 101).category(100), Category::CursedWin);
        let mut mate = info(Some(-1), false, 0);
        mate.checkmate = true;
        assert_eq!(mate.category(0), Category::Loss);
        assert_eq!(mate.category(100), Category::BlessedLoss);
    }

    #[test]
    fn flipping_a_category_twice_is_the_identity() {
        use Category::*;
        for c in Category::ALL {
            assert_eq!(c.flipped().flipped(), c);
            assert_eq!(serde_json::to_value(c).unwrap(), c.name());
            assert_eq!(c.is_positive(), c.flipped() < Category::Draw && c.flipped() != Unknown);
        }
        assert_eq!(Win.flipped(), Loss);
        assert_eq!(SyzygyWin.flipped(), SyzygyLoss);
        assert!(Category::ALL.windows(2).all(|w| w[0] < w[1]), "ALL is the ranking order");
    }

    #[test]
    fn leading_syzygy_moves_are_resolved_by_a_certain_position() {
        let mut moves =
            vec![mv(Category::SyzygyLoss), mv(Category::SyzygyLoss), mv(Category::Draw), mv(Category::SyzygyLoss)];
        resolve_syzygy(Category::Win, &mut moves);
        let cats: Vec<_> = moves.iter().map(|m| m.category).collect();
        assert_eq!(cats, [Category::Loss, Category::Loss, Category::Draw, Category::SyzygyLoss]);
        resolve_syzygy(Category::Draw, &mut moves);
        assert_eq!(moves[3].category, Category::SyzygyLoss);
        let mut blessed = vec![mv(Category::SyzygyWin)];
        resolve_syzygy(Category::BlessedLoss, &mut blessed);
        assert_eq!(blessed[0].category, Category::CursedWin);
    }

    fn mv(category: Category) -> MoveInfo {
        MoveInfo {
            mv: Move::NONE,
            uci: String::new(),
            san: String::new(),
            zeroing: false,
            conversion: false,
            capture: None,
            promotion: None,
            after: info(None, false, 0),
            category,
        }
    }

    fn ranked(mut moves: Vec<MoveInfo>) -> Vec<String> {
        lila_sort(&mut moves);
        moves.into_iter().map(|m| m.uci).collect()
    }

    fn named(uci: &str, category: Category, dtz: Option<i32>) -> MoveInfo {
        MoveInfo { uci: uci.into(), after: info(dtz, false, 0), ..mv(category) }
    }

    #[test]
    fn conversions_and_zeroing_moves_rank_first_unless_the_move_loses() {
        let capture = |uci, category, dtz| MoveInfo {
            zeroing: true,
            conversion: true,
            capture: Some(PieceType::Knight),
            ..named(uci, category, dtz)
        };
        let push = |uci, category, dtz| MoveInfo { zeroing: true, ..named(uci, category, dtz) };
        // Winning (the child loses): conversion first, then zeroing, then DTZ.
        let order = ranked(vec![
            named("a1a2", Category::Loss, Some(-3)),
            push("b2b3", Category::Loss, Some(-9)),
            capture("c1c8", Category::Loss, Some(-20)),
        ]);
        assert_eq!(order, ["c1c8", "b2b3", "a1a2"]);
        // Losing (the child wins): the same moves in the other order.
        let order = ranked(vec![
            capture("c1c8", Category::Win, Some(20)),
            push("b2b3", Category::Win, Some(9)),
            named("a1a2", Category::Win, Some(3)),
        ]);
        assert_eq!(order, ["a1a2", "b2b3", "c1c8"]);
        // Drawing: a draw is not a win, so conversions come first.
        let order = ranked(vec![named("a1a2", Category::Draw, Some(0)), capture("c1c8", Category::Draw, Some(0))]);
        assert_eq!(order, ["c1c8", "a1a2"]);
    }

    #[test]
    fn dtz_then_captured_piece_then_promotion_break_ties() {
        // The larger DTZ after the move first (the quicker win); a short
        // list keeps equal moves in their order.
        let order = ranked(vec![
            named("a1a3", Category::Loss, Some(-7)),
            named("a1a4", Category::Loss, Some(-3)),
            named("a1a2", Category::Loss, Some(-3)),
            named("a1a5", Category::Unknown, None),
        ]);
        assert_eq!(order, ["a1a4", "a1a2", "a1a3", "a1a5"]);
        let take = |uci, piece| MoveInfo {
            zeroing: true,
            conversion: true,
            capture: Some(piece),
            ..named(uci, Category::Draw, Some(0))
        };
        let promote = |uci, piece| MoveInfo {
            zeroing: true,
            conversion: true,
            promotion: Some(piece),
            ..named(uci, Category::Draw, Some(0))
        };
        let order = ranked(vec![
            promote("b7b8n", PieceType::Knight),
            take("h1h8", PieceType::Rook),
            promote("b7b8q", PieceType::Queen),
            take("g1g8", PieceType::Queen),
            take("a1a8", PieceType::Rook),
        ]);
        assert_eq!(order, ["g1g8", "h1h8", "a1a8", "b7b8q", "b7b8n"]);
    }

    #[test]
    fn checkmate_then_stalemate_then_insufficient_material_lead_their_category() {
        let flagged = |uci, f: fn(&mut PositionInfo)| {
            let mut m = named(uci, Category::Draw, Some(0));
            f(&mut m.after);
            m
        };
        let order = ranked(vec![
            named("a1a2", Category::Draw, Some(0)),
            flagged("a1a3", |p| p.insufficient_material = true),
            flagged("a1a4", |p| p.stalemate = true),
        ]);
        assert_eq!(order, ["a1a4", "a1a3", "a1a2"]);
        let mut mate = named("h1h8", Category::Loss, Some(-1));
        mate.after.checkmate = true;
        assert_eq!(ranked(vec![named("a1a2", Category::Loss, Some(-1)), mate])[0], "h1h8");
    }
}

#[cfg(test)]
mod table_tests {
    use super::*;

    #[test]
    fn every_legal_move_is_ranked_best_first() {
        let Some(dir) = crate::testdata::path("syzygy") else { return };
        let tb = Tablebases::new(&dir.display().to_string()).0;
        let mut board = Board::from_fen("8/8/8/8/8/2k5/8/r2QK3 w - - 0 1", false).unwrap();
        let fen = board.fen();
        let report = tb.probe_moves(&mut board).unwrap();
        assert_eq!(board.fen(), fen);
        assert_eq!(report.moves.len(), board.legal_moves().len());
        // Capturing the rook wins; the best move is the capture.
        assert_eq!(report.moves[0].uci, "d1a1");
        assert_eq!(report.moves[0].category, Category::Loss);
        assert_eq!(report.category, Category::Win);
        assert!(report.moves.windows(2).all(|w| w[0].category <= w[1].category));
    }
}
