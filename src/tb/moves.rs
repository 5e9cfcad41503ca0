//! Every legal move of a position with its tablebase values, categorised
//! and ranked as the Lichess tablebase API (`lila-tablebase`) does.
//!
//! Each move carries the WDL and DTZ of the position *after* it, from the
//! side then to move ([`Tablebases::probe_wdl`]/[`Tablebases::probe_dtz`],
//! python-chess's values), and a [`Category`] from that side's view too: a
//! move into `loss` wins for the mover. Categories follow Lichess:
//!
//! * `draw`: stalemate, insufficient material or DTZ 0;
//! * checkmate: `loss` (`blessed-loss` if the clock before the move had
//!   reached 100 plies);
//! * otherwise from DTZ and the halfmove clock after the move `h`: with
//!   `h = 0` the DTZ alone (`|dtz| ≤ 100` win/loss, beyond cursed/blessed);
//!   else from `dtz ± h`, where exactly ±100 from a table that stores full
//!   moves (so the value may be one ply too large) is `maybe-win` /
//!   `maybe-loss`; with the clock at 100 or more before the move, every
//!   decisive value is `cursed-win` / `blessed-loss`;
//! * `unknown` when the DTZ cannot be probed (missing table, too many
//!   pieces, castling rights).
//!
//! Ranking (best move first): category `loss` < `unknown` < `maybe-loss` <
//! `blessed-loss` < `draw` < `cursed-win` < `maybe-win` < `win`; then
//! checkmates, stalemates, insufficient material first; then, when the
//! mover is not losing, zeroing moves and captures first (last when
//! losing); then the larger DTZ after the move (unknown first); then the
//! more valuable capture and promotion. Lichess leaves remaining ties in
//! any order; here the UCI string decides. Finally, as Lichess does, the
//! leading `maybe-*` moves are resolved by the category of the position
//! itself when that is certain.

use super::{Dtz, Tablebases, TbError, Wdl};
use crate::board::Board;
use crate::types::{Move, MoveKind, PieceType};
use serde_json::{json, Value};
use std::cmp::Reverse;

/// Lichess's tablebase categories, in ranking order (best move first).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    Loss,
    Unknown,
    MaybeLoss,
    BlessedLoss,
    Draw,
    CursedWin,
    MaybeWin,
    Win,
}

impl Category {
    /// The API's name (`maybe-win`, `cursed-win`, …).
    pub const fn name(self) -> &'static str {
        match self {
            Category::Loss => "loss",
            Category::Unknown => "unknown",
            Category::MaybeLoss => "maybe-loss",
            Category::BlessedLoss => "blessed-loss",
            Category::Draw => "draw",
            Category::CursedWin => "cursed-win",
            Category::MaybeWin => "maybe-win",
            Category::Win => "win",
        }
    }

    /// The same outcome from the other side's view.
    pub const fn flipped(self) -> Category {
        match self {
            Category::Loss => Category::Win,
            Category::Unknown => Category::Unknown,
            Category::MaybeLoss => Category::MaybeWin,
            Category::BlessedLoss => Category::CursedWin,
            Category::Draw => Category::Draw,
            Category::CursedWin => Category::BlessedLoss,
            Category::MaybeWin => Category::MaybeLoss,
            Category::Win => Category::Loss,
        }
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

    /// shakmaty-syzygy's `AmbiguousWdl::from_dtz_and_halfmoves`.
    fn from_dtz_and_halfmoves(dtz: i32, rounded: bool, halfmoves: u32) -> Category {
        if halfmoves == 0 {
            return Category::from_dtz(dtz);
        }
        let h = i32::try_from(halfmoves).unwrap_or(i32::MAX);
        let d = if dtz > 0 { dtz.saturating_add(h) } else { dtz.saturating_sub(h) };
        match d {
            100 if rounded => Category::MaybeWin,
            -100 if rounded => Category::MaybeLoss,
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

    fn dtz_positive(&self) -> bool {
        self.dtz.is_some_and(|d| d.0 > 0)
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
    pub capture: Option<PieceType>,
    pub promotion: Option<PieceType>,
    /// The position after the move, from the side then to move.
    pub after: PositionInfo,
    pub category: Category,
}

/// A position and its ranked moves. As JSON ([`MovesReport::to_json`],
/// `tb probe --moves --json`, `archivist serve`'s `/api/tablebase`): the
/// fields of Lichess's tablebase API, `{"category", "wdl", "dtz",
/// "precise_dtz", "checkmate", "stalemate", "insufficient_material",
/// "moves": [{"uci", "san", "wdl", "dtz", "precise_dtz", "zeroing",
/// "checkmate", "stalemate", "insufficient_material", "category"}, …]}`,
/// moves ranked best first. Each move's `wdl`/`dtz` are those of the
/// position after it, from the side then to move; `null` when unknown;
/// `precise_dtz` is `null` also when the table rounds to full moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovesReport {
    pub position: PositionInfo,
    /// The position's category: the reverse of the best move's, or its own
    /// when it has no legal move.
    pub category: Category,
    pub moves: Vec<MoveInfo>,
}

fn position_json(p: &PositionInfo) -> Value {
    json!({
        "wdl": p.wdl.map(|w| w.value()),
        "dtz": p.dtz.map(|d| d.0),
        "precise_dtz": p.dtz.filter(|_| !p.dtz_rounded).map(|d| d.0),
        "checkmate": p.checkmate,
        "stalemate": p.stalemate,
        "insufficient_material": p.insufficient_material,
    })
}

impl MovesReport {
    /// The Lichess-shaped object of the report (the shape of Lichess's
    /// tablebase API, see [`MovesReport`]), with `fen` added.
    pub fn to_json(&self, fen: &str) -> Value {
        let r = self;
        let mut v = position_json(&r.position);
        v["fen"] = json!(fen);
        v["category"] = json!(r.category.name());
        v["moves"] = r
            .moves
            .iter()
            .map(|m| {
                let mut o = json!({"uci": m.uci, "san": m.san});
                if let (Value::Object(o), Value::Object(p)) = (&mut o, position_json(&m.after)) {
                    o.extend(p);
                    o.insert("zeroing".into(), json!(m.zeroing));
                    o.insert("category".into(), json!(m.category.name()));
                }
                o
            })
            .collect();
        v
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
        for mv in board.legal_moves().iter() {
            let capture = captured_piece(board, mv);
            let zeroing = is_zeroing(board, mv);
            let uci = board.move_to_uci(mv);
            let san = board.move_to_san(mv);
            board.make_move(mv);
            let after = self.position_info(board);
            board.unmake_move();
            let after = after?;
            let category = after.category(halfmoves);
            moves.push(MoveInfo { mv, uci, san, zeroing, capture, promotion: mv.promotion_piece(), after, category });
        }
        moves.sort_by_cached_key(rank_key);
        let position = self.position_info(board)?;
        let own = position.category(halfmoves.saturating_sub(1));
        resolve_maybe(own, &mut moves);
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
    Reverse<bool>,
    Reverse<bool>,
    bool,
    bool,
    Option<Reverse<i32>>,
    (Reverse<Option<u8>>, Reverse<Option<u8>>),
    String,
);

/// Lichess's sort key (its DTM terms are always empty here), then UCI.
fn rank_key(m: &MoveInfo) -> RankKey {
    let a = &m.after;
    let not_losing = !a.dtz_positive();
    let role = |p: Option<PieceType>| p.map(|p| p as u8);
    (
        m.category,
        Reverse(a.checkmate),
        Reverse(a.stalemate),
        Reverse(a.insufficient_material),
        m.zeroing ^ not_losing,
        m.capture.is_some() ^ not_losing,
        a.dtz.map(|d| Reverse(d.0)),
        (Reverse(role(m.capture)), Reverse(role(m.promotion))),
        m.uci.clone(),
    )
}

/// With the position's own category certain, the leading `maybe-*` moves
/// are what it implies (Lichess's fix-up after sorting).
fn resolve_maybe(own: Category, moves: &mut [MoveInfo]) {
    let (maybe, correct) = match own {
        Category::Win => (Category::MaybeLoss, Category::Loss),
        Category::CursedWin => (Category::MaybeLoss, Category::BlessedLoss),
        Category::BlessedLoss => (Category::MaybeWin, Category::CursedWin),
        Category::Loss => (Category::MaybeWin, Category::Win),
        _ => return,
    };
    for m in moves.iter_mut() {
        if m.category != maybe {
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
        assert_eq!(info(Some(90), true, 10).category(9), Category::MaybeWin);
        assert_eq!(info(Some(90), false, 10).category(9), Category::Win);
        assert_eq!(info(Some(-90), true, 10).category(9), Category::MaybeLoss);
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
        for c in [Loss, Unknown, MaybeLoss, BlessedLoss, Draw, CursedWin, MaybeWin, Win] {
            assert_eq!(c.flipped().flipped(), c);
            assert_ne!(c.name(), "");
        }
        assert_eq!(Win.flipped(), Loss);
        assert_eq!(MaybeWin.flipped(), MaybeLoss);
    }

    #[test]
    fn leading_maybe_moves_are_resolved_by_a_certain_position() {
        let mv = |category| MoveInfo {
            mv: Move::NONE,
            uci: String::new(),
            san: String::new(),
            zeroing: false,
            capture: None,
            promotion: None,
            after: info(None, false, 0),
            category,
        };
        let mut moves =
            vec![mv(Category::MaybeLoss), mv(Category::MaybeLoss), mv(Category::Draw), mv(Category::MaybeLoss)];
        resolve_maybe(Category::Win, &mut moves);
        let cats: Vec<_> = moves.iter().map(|m| m.category).collect();
        assert_eq!(cats, [Category::Loss, Category::Loss, Category::Draw, Category::MaybeLoss]);
        resolve_maybe(Category::Draw, &mut moves);
        assert_eq!(moves[3].category, Category::MaybeLoss);
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
