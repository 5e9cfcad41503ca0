//! Static evaluation: a hand-written, tapered (middlegame/endgame) score.
//!
//! Responsibilities: [`evaluate`] for the search, [`trace`] for the UCI `eval`
//! command, and [`piece_value`] for exchange evaluation and move ordering.
//!
//! Every term is a middlegame/endgame pair `S` computed per colour from that
//! colour's point of view:
//!
//! | term | what it measures |
//! | --- | --- |
//! | material, psqt | PeSTO's values and piece-square tables (`eval/psqt.rs`) |
//! | mobility | safe squares of knights, bishops, rooks and queens |
//! | pawns | doubled and isolated pawns |
//! | passed | passed pawns by rank, halved when blocked, king distance |
//! | king | pawn shield, and attacks on the king zone |
//! | pieces | bishop pair, rooks on open and half-open files |
//!
//! The white-minus-black sum is blended by PeSTO's game phase (0..=24 from
//! non-pawn material), the endgame half is scaled down when the stronger side
//! cannot win without pawns, and the side to move gets [`TEMPO`].
//!
//! Invariants:
//! * Colour symmetry: both colours go through the same code with relative
//!   squares, and every division rounds toward zero, so
//!   `evaluate(&b.color_flipped()) == evaluate(&b)` exactly (tested).
//! * No allocation and no move generation: `evaluate` only reads bitboards.
//! * The result lies within `±MAX_EVAL`, far below the search's mate scores.
//! * [`trace`] and [`evaluate`] share one computation, so the breakdown always
//!   adds up to the score the search sees.

mod psqt;

use crate::attacks;
use crate::board::Board;
use crate::types::{Bitboard, Color, PieceType, Square};
use psqt::{MATERIAL, PSQT};
use std::fmt::Write as _;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

/// Largest magnitude [`evaluate`] returns (mate scores start near ±32000).
pub const MAX_EVAL: i32 = 10_000;

/// Bonus for the side to move, in centipawns.
pub const TEMPO: i32 = 15;

/// Simple piece values for exchange evaluation and move ordering.
pub fn piece_value(pt: PieceType) -> i32 {
    match pt {
        PieceType::Pawn => 100,
        PieceType::Knight => 320,
        PieceType::Bishop => 330,
        PieceType::Rook => 500,
        PieceType::Queen => 950,
        PieceType::King => 0,
    }
}

/// A middlegame/endgame score pair in centipawns.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct S {
    mg: i32,
    eg: i32,
}

impl S {
    const ZERO: S = S::new(0, 0);

    const fn new(mg: i32, eg: i32) -> S {
        S { mg, eg }
    }
}

impl Add for S {
    type Output = S;
    #[inline]
    fn add(self, o: S) -> S {
        S::new(self.mg + o.mg, self.eg + o.eg)
    }
}

impl Sub for S {
    type Output = S;
    #[inline]
    fn sub(self, o: S) -> S {
        S::new(self.mg - o.mg, self.eg - o.eg)
    }
}

impl AddAssign for S {
    #[inline]
    fn add_assign(&mut self, o: S) {
        *self = *self + o;
    }
}

impl SubAssign for S {
    #[inline]
    fn sub_assign(&mut self, o: S) {
        *self = *self - o;
    }
}

impl Neg for S {
    type Output = S;
    #[inline]
    fn neg(self) -> S {
        S::new(-self.mg, -self.eg)
    }
}

impl Mul<i32> for S {
    type Output = S;
    #[inline]
    fn mul(self, k: i32) -> S {
        S::new(self.mg * k, self.eg * k)
    }
}

// ----- weights ---------------------------------------------------------------

/// PeSTO's phase: knight and bishop 1, rook 2, queen 4; 24 at the start.
const MAX_PHASE: i32 = 24;
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Mobility per safe square beyond a neutral count, knight to queen.
const MOBILITY_WEIGHT: [S; 4] = [S::new(4, 4), S::new(5, 5), S::new(3, 5), S::new(2, 3)];
const MOBILITY_NEUTRAL: [i32; 4] = [4, 6, 6, 12];

const DOUBLED_PAWN: S = S::new(-8, -20);
const ISOLATED_PAWN: S = S::new(-6, -10);

/// Passed pawn bonus by relative rank (0 = own back rank).
const PASSED_RANK: [S; 8] = [
    S::new(0, 0),
    S::new(0, 4),
    S::new(3, 8),
    S::new(8, 16),
    S::new(16, 30),
    S::new(30, 50),
    S::new(50, 75),
    S::new(0, 0),
];
/// Endgame bonus per square of king distance to the stop square, multiplied
/// by (relative rank − 2) from the 4th rank on.
const PASSED_ENEMY_KING_DISTANCE: i32 = 4;
const PASSED_OWN_KING_DISTANCE: i32 = 2;

const BISHOP_PAIR: S = S::new(25, 50);
const ROOK_OPEN_FILE: S = S::new(22, 8);
const ROOK_HALF_OPEN_FILE: S = S::new(10, 5);

/// Pawn shield, per file around the king: nearest own pawn one or two ranks
/// ahead, none nearer, and a file without pawns of either colour.
const SHIELD_CLOSE: S = S::new(10, 0);
const SHIELD_FAR: S = S::new(5, 0);
const SHIELD_MISSING: S = S::new(-12, 0);
const SHIELD_OPEN_FILE: S = S::new(-10, 0);

/// Attack units per king-zone square hit, knight to queen.
const KING_ATTACK_WEIGHT: [i32; 4] = [2, 2, 3, 5];
/// Middlegame penalty = units² / divisor, capped; needs two attackers.
const KING_DANGER_DIVISOR: i32 = 6;
const KING_DANGER_MAX: i32 = 400;

/// Endgame scale factors, out of [`SCALE_NORMAL`].
const SCALE_NORMAL: i32 = 64;
const SCALE_NO_PAWNS_SMALL_EDGE: i32 = 16;

// ----- masks -----------------------------------------------------------------

struct Masks {
    /// Squares strictly in front, on the same and adjacent files, by colour.
    passed_span: [[Bitboard; 64]; 2],
    /// Squares strictly in front on the same file, by colour.
    front_file: [[Bitboard; 64]; 2],
    /// Ranks strictly in front of a rank, by colour.
    forward_ranks: [[Bitboard; 8]; 2],
    /// The files next to a file.
    adjacent_files: [Bitboard; 8],
}

static MASKS: Masks = build_masks();

const fn build_masks() -> Masks {
    let mut m = Masks {
        passed_span: [[Bitboard::EMPTY; 64]; 2],
        front_file: [[Bitboard::EMPTY; 64]; 2],
        forward_ranks: [[Bitboard::EMPTY; 8]; 2],
        adjacent_files: [Bitboard::EMPTY; 8],
    };
    let mut f = 0;
    while f < 8 {
        let left = if f > 0 { Bitboard::file(f - 1).0 } else { 0 };
        let right = if f < 7 { Bitboard::file(f + 1).0 } else { 0 };
        m.adjacent_files[f as usize] = Bitboard(left | right);
        f += 1;
    }
    let mut r = 0;
    while r < 8 {
        m.forward_ranks[0][r] = Bitboard(if r == 7 { 0 } else { !0u64 << (8 * (r + 1)) });
        m.forward_ranks[1][r] = Bitboard((1u64 << (8 * r)) - 1);
        r += 1;
    }
    let mut c = 0;
    while c < 2 {
        let mut sq = 0;
        while sq < 64 {
            let ahead = m.forward_ranks[c][sq / 8].0;
            let file = Bitboard::file((sq % 8) as u8).0;
            m.front_file[c][sq] = Bitboard(ahead & file);
            m.passed_span[c][sq] = Bitboard(ahead & (file | m.adjacent_files[sq % 8].0));
            sq += 1;
        }
        c += 1;
    }
    m
}

#[inline]
fn pawn_attacks(pawns: Bitboard, c: Color) -> Bitboard {
    let not_a = !Bitboard::FILE_A.0;
    let not_h = !Bitboard::file(7).0;
    let p = pawns.0;
    Bitboard(match c {
        Color::White => (p & not_a) << 7 | (p & not_h) << 9,
        Color::Black => (p & not_a) >> 9 | (p & not_h) >> 7,
    })
}

#[inline]
fn distance(a: Square, b: Square) -> i32 {
    i32::from(a.file().abs_diff(b.file()).max(a.rank().abs_diff(b.rank())))
}

// ----- the computation -------------------------------------------------------

/// Every term for both colours (index = colour), plus what blending needs.
#[derive(Default)]
struct Terms {
    material: [S; 2],
    psqt: [S; 2],
    mobility: [S; 2],
    pawns: [S; 2],
    passed: [S; 2],
    king: [S; 2],
    pieces: [S; 2],
    /// 0..=24; 24 with all pieces on the board.
    phase: i32,
    /// Non-pawn material by [`piece_value`], per colour.
    non_pawn: [i32; 2],
    pawn_count: [u32; 2],
}

/// Accumulated attacks of one colour on the enemy king zone.
#[derive(Copy, Clone, Default)]
struct KingAttack {
    attackers: i32,
    units: i32,
}

/// Positions shared by all terms of one evaluation.
struct Context {
    occ: Bitboard,
    pawns: [Bitboard; 2],
    kings: [Square; 2],
    /// King square and its neighbours, per colour.
    zones: [Bitboard; 2],
    /// Squares each colour's pieces may use for mobility.
    mobility_area: [Bitboard; 2],
}

impl Terms {
    fn side_total(&self, c: usize) -> S {
        self.material[c]
            + self.psqt[c]
            + self.mobility[c]
            + self.pawns[c]
            + self.passed[c]
            + self.king[c]
            + self.pieces[c]
    }

    /// White minus black, before blending.
    fn total(&self) -> S {
        self.side_total(0) - self.side_total(1)
    }

    /// Endgame scale (out of [`SCALE_NORMAL`]) for the side `eg` favours: a
    /// side without pawns needs more than a minor piece's edge to win.
    fn eg_scale(&self, eg: i32) -> i32 {
        let strong = if eg > 0 { 0 } else { 1 };
        let weak = 1 - strong;
        if self.pawn_count[strong] > 0 {
            return SCALE_NORMAL;
        }
        let bishop = piece_value(PieceType::Bishop);
        if self.non_pawn[strong] <= bishop {
            0
        } else if self.non_pawn[strong] - self.non_pawn[weak] <= bishop {
            SCALE_NO_PAWNS_SMALL_EDGE
        } else {
            SCALE_NORMAL
        }
    }

    /// The tapered score from white's point of view, without tempo.
    fn white_score(&self) -> i32 {
        let t = self.total();
        let eg = t.eg * self.eg_scale(t.eg) / SCALE_NORMAL;
        (t.mg * self.phase + eg * (MAX_PHASE - self.phase)) / MAX_PHASE
    }
}

/// Every term of `board`; shared by [`evaluate`] and [`trace`].
#[inline(always)]
fn compute(board: &Board) -> Terms {
    let occ = board.occupied();
    let pawns = [board.pieces_of(Color::White, PieceType::Pawn), board.pieces_of(Color::Black, PieceType::Pawn)];
    let kings = [board.king_square(Color::White), board.king_square(Color::Black)];
    let pawn_att = [pawn_attacks(pawns[0], Color::White), pawn_attacks(pawns[1], Color::Black)];
    let ctx = Context {
        occ,
        pawns,
        kings,
        zones: [attacks::king(kings[0]).with(kings[0]), attacks::king(kings[1]).with(kings[1])],
        mobility_area: [!(board.color_bb(Color::White) | pawn_att[1]), !(board.color_bb(Color::Black) | pawn_att[0])],
    };

    let mut t = Terms::default();
    // Called once per colour with a constant, so each copy is specialised.
    let white_attack = side_terms(board, &ctx, Color::White, &mut t);
    let black_attack = side_terms(board, &ctx, Color::Black, &mut t);
    t.king[0] -= king_danger(black_attack, board.pieces_of(Color::Black, PieceType::Queen).any());
    t.king[1] -= king_danger(white_attack, board.pieces_of(Color::White, PieceType::Queen).any());
    t.phase = t.phase.min(MAX_PHASE);
    t
}

/// All terms of colour `c`; returns its attacks on the enemy king zone.
#[inline(always)]
fn side_terms(board: &Board, ctx: &Context, c: Color, t: &mut Terms) -> KingAttack {
    let us = c.index();
    let mut attack = KingAttack::default();
    pawn_terms(ctx, c, t);
    piece_terms(board, ctx, c, PieceType::Knight, t, &mut attack);
    piece_terms(board, ctx, c, PieceType::Bishop, t, &mut attack);
    piece_terms(board, ctx, c, PieceType::Rook, t, &mut attack);
    piece_terms(board, ctx, c, PieceType::Queen, t, &mut attack);
    t.psqt[us] += PSQT[PieceType::King.index()][ctx.kings[us].relative(c).index()];
    t.king[us] += pawn_shield(ctx, c);
    if board.pieces_of(c, PieceType::Bishop).more_than_one() {
        t.pieces[us] += BISHOP_PAIR;
    }
    t.pawn_count[us] = ctx.pawns[us].count();
    attack
}

/// Material, piece-square values, doubled/isolated and passed pawns.
#[inline(always)]
fn pawn_terms(ctx: &Context, c: Color, t: &mut Terms) {
    let us = c.index();
    let them = 1 - us;
    let (ours, theirs) = (ctx.pawns[us], ctx.pawns[them]);
    t.material[us] += MATERIAL[PieceType::Pawn.index()] * ours.count() as i32;
    for sq in ours {
        t.psqt[us] += PSQT[PieceType::Pawn.index()][sq.relative(c).index()];
        let rear_of_doubled = (ours & MASKS.front_file[us][sq.index()]).any();
        if rear_of_doubled {
            t.pawns[us] += DOUBLED_PAWN;
        }
        if (ours & MASKS.adjacent_files[sq.file() as usize]).is_empty() {
            t.pawns[us] += ISOLATED_PAWN;
        }
        if !rear_of_doubled && (theirs & MASKS.passed_span[us][sq.index()]).is_empty() {
            t.passed[us] += passed_pawn(ctx, c, sq);
        }
    }
}

/// Bonus of the passed pawn of colour `c` on `sq`.
#[inline(always)]
fn passed_pawn(ctx: &Context, c: Color, sq: Square) -> S {
    let us = c.index();
    let rank = sq.relative(c).rank() as i32;
    let stop = sq.bb().forward(c).lsb();
    let mut bonus = PASSED_RANK[rank as usize];
    if ctx.occ.contains(stop) {
        bonus = S::new(bonus.mg / 2, bonus.eg / 2);
    }
    if rank >= 3 {
        let w = rank - 2;
        let proximity = PASSED_ENEMY_KING_DISTANCE * distance(ctx.kings[1 - us], stop)
            - PASSED_OWN_KING_DISTANCE * distance(ctx.kings[us], stop);
        bonus.eg += proximity * w;
    }
    bonus
}

/// Material, piece-square values, mobility and king-zone attacks of the
/// pieces of type `pt` (knight to queen); rook files for rooks.
#[inline(always)]
fn piece_terms(board: &Board, ctx: &Context, c: Color, pt: PieceType, t: &mut Terms, attack: &mut KingAttack) {
    let us = c.index();
    let them = 1 - us;
    let idx = pt.index() - 1;
    let pieces = board.pieces_of(c, pt);
    let n = pieces.count() as i32;
    t.material[us] += MATERIAL[pt.index()] * n;
    t.phase += PHASE_WEIGHT[pt.index()] * n;
    t.non_pawn[us] += piece_value(pt) * n;
    for sq in pieces {
        t.psqt[us] += PSQT[pt.index()][sq.relative(c).index()];
        let att = attacks::piece(pt, sq, ctx.occ);
        let safe = (att & ctx.mobility_area[us]).count() as i32;
        t.mobility[us] += MOBILITY_WEIGHT[idx] * (safe - MOBILITY_NEUTRAL[idx]);
        let zone_hits = (att & ctx.zones[them]).count() as i32;
        if zone_hits > 0 {
            attack.attackers += 1;
            attack.units += KING_ATTACK_WEIGHT[idx] * zone_hits;
        }
        if pt == PieceType::Rook {
            let file = Bitboard::file(sq.file());
            if ((ctx.pawns[0] | ctx.pawns[1]) & file).is_empty() {
                t.pieces[us] += ROOK_OPEN_FILE;
            } else if (ctx.pawns[us] & file).is_empty() {
                t.pieces[us] += ROOK_HALF_OPEN_FILE;
            }
        }
    }
}

/// Shield of own pawns in front of the king of colour `c`, on the king's file
/// and its neighbours (three files, shifted inwards at the edge).
#[inline(always)]
fn pawn_shield(ctx: &Context, c: Color) -> S {
    let us = c.index();
    let ksq = ctx.kings[us];
    let ahead = MASKS.forward_ranks[us][ksq.rank() as usize];
    let centre = ksq.file().clamp(1, 6);
    let mut s = S::ZERO;
    for f in centre - 1..=centre + 1 {
        let file = Bitboard::file(f);
        let shield = ctx.pawns[us] & file & ahead;
        if shield.any() {
            let nearest = match c {
                Color::White => shield.lsb(),
                Color::Black => shield.msb(),
            };
            s += match nearest.rank().abs_diff(ksq.rank()) {
                1 => SHIELD_CLOSE,
                2 => SHIELD_FAR,
                _ => SHIELD_MISSING,
            };
        } else {
            s += SHIELD_MISSING;
            if (ctx.pawns[1 - us] & file).is_empty() {
                s += SHIELD_OPEN_FILE;
            }
        }
    }
    s
}

/// Penalty for the defender of a king zone under `attack`; halved units when
/// the attacker has no queen.
#[inline(always)]
fn king_danger(attack: KingAttack, attacker_has_queen: bool) -> S {
    if attack.attackers < 2 {
        return S::ZERO;
    }
    let units = if attacker_has_queen { attack.units } else { attack.units / 2 };
    S::new((units * units / KING_DANGER_DIVISOR).min(KING_DANGER_MAX), 0)
}

/// Side-to-move score from a white-view score: tempo and clamp.
#[inline]
fn for_side_to_move(white: i32, stm: Color) -> i32 {
    (white * stm.sign() + TEMPO).clamp(-MAX_EVAL, MAX_EVAL)
}

/// Static evaluation in centipawns from the side to move's point of view
/// (positive = good for the side to move), within `±MAX_EVAL`.
pub fn evaluate(board: &Board) -> i32 {
    for_side_to_move(compute(board).white_score(), board.side_to_move())
}

/// A human-readable breakdown of [`evaluate`] for the UCI `eval` command.
pub fn trace(board: &Board) -> String {
    let t = compute(board);
    let mut out = String::with_capacity(1024);
    let rows: [(&str, &[S; 2]); 7] = [
        ("Material", &t.material),
        ("Piece-square", &t.psqt),
        ("Mobility", &t.mobility),
        ("Pawn structure", &t.pawns),
        ("Passed pawns", &t.passed),
        ("King safety", &t.king),
        ("Pieces", &t.pieces),
    ];
    let rule = "---------------+---------------+---------------+---------------";
    let _ = writeln!(out, "{:<14} | {:^13} | {:^13} | {:^13}", "Term", "White", "Black", "Total");
    let _ = writeln!(out, "{:<14} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}", "", "MG", "EG", "MG", "EG", "MG", "EG");
    let _ = writeln!(out, "{rule}");
    let row = |out: &mut String, name: &str, w: S, b: S| {
        let d = w - b;
        let _ =
            writeln!(out, "{name:<14} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}", w.mg, w.eg, b.mg, b.eg, d.mg, d.eg);
    };
    for (name, v) in rows {
        row(&mut out, name, v[0], v[1]);
    }
    let _ = writeln!(out, "{rule}");
    row(&mut out, "Sum", t.side_total(0), t.side_total(1));
    let total = t.total();
    let white = t.white_score();
    let stm = board.side_to_move();
    let score = for_side_to_move(white, stm);
    let stm_name = match stm {
        Color::White => "white",
        Color::Black => "black",
    };
    let _ = writeln!(out);
    let _ = writeln!(out, "Phase: {} of {MAX_PHASE} (24 = all pieces, 0 = kings and pawns)", t.phase);
    let _ = writeln!(out, "Endgame scale: {} of {SCALE_NORMAL}", t.eg_scale(total.eg));
    let _ = writeln!(out, "Tapered sum before tempo, white's side: {white:+}");
    let _ = writeln!(out, "Tempo: {TEMPO:+} for the side to move ({stm_name})");
    let _ = writeln!(out, "Final evaluation: {:+} (white's view), {score:+} (side to move)", score * stm.sign());
    out
}

#[cfg(test)]
mod tests;
