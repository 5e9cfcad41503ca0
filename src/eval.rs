//! Static evaluation: a hand-written, tapered (middlegame/endgame) score whose
//! weights are fitted to game results by `archivist tune` ([`tune`]).
//!
//! Responsibilities: [`evaluate`] for the search, [`trace`] for the UCI `eval`
//! command, [`piece_value`] for exchange evaluation and move ordering, and
//! [`tune::features`] for the tuner.
//!
//! Every term is a count of some feature times a middlegame/endgame weight
//! pair `S` from one table, [`weights::WEIGHTS`] (indices in [`layout`]),
//! computed per colour from that colour's point of view:
//!
//! | row | features |
//! | --- | --- |
//! | material, psqt | pieces, and pieces by owner-relative square |
//! | mobility | safe squares of knights, bishops, rooks and queens (a table per count) |
//! | pawns | doubled, isolated and connected (supported or side by side) pawns |
//! | passed | passed pawns by rank, free or blocked, king distances to the stop square |
//! | king | pawn shield, and a table indexed by the attack units on the king zone |
//! | pieces | bishop pair, rooks on open and half-open files |
//! | threats | pieces attacked by enemy pawns, minor pieces and rooks |
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
//! * Linear in the weights for a fixed phase and endgame scale: the score is
//!   the tapered sum of `count × weight` over the features [`tune::features`]
//!   lists (tested), which is what lets the tuner fit them.
//! * The result lies within `±MAX_EVAL`, far below the search's mate scores.
//! * [`trace`] and [`evaluate`] share one computation, so the breakdown always
//!   adds up to the score the search sees.

pub mod tune;
mod weights;

use crate::attacks;
use crate::board::Board;
use crate::types::{Bitboard, Color, PieceType, Square};
use std::fmt::Write as _;
use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};
use weights::WEIGHTS;

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

/// Where each weight lives in [`weights::WEIGHTS`]; every group is a run of
/// consecutive entries.
pub mod layout {
    /// Material, by piece type pawn to king (the king's stays unused).
    pub const MATERIAL: usize = 0;
    /// Piece-square bonus, `PSQT + 64·piece type + owner-relative square`.
    pub const PSQT: usize = MATERIAL + 6;
    /// Mobility tables for knight, bishop, rook and queen, by safe squares.
    pub const MOBILITY: [usize; 4] = [PSQT + 384, PSQT + 384 + 9, PSQT + 384 + 23, PSQT + 384 + 38];
    /// Entries of each mobility table (0 to the most squares the piece reaches).
    pub const MOBILITY_LEN: [usize; 4] = [9, 14, 15, 28];
    pub const DOUBLED: usize = PSQT + 384 + 66;
    pub const ISOLATED: usize = DOUBLED + 1;
    /// Connected pawns (supported or side by side), by relative rank.
    pub const CONNECTED: usize = ISOLATED + 1;
    /// Passed pawns with a free stop square, by relative rank.
    pub const PASSED: usize = CONNECTED + 8;
    /// Passed pawns whose stop square is occupied, by relative rank.
    pub const PASSED_BLOCKED: usize = PASSED + 8;
    /// Per square of king distance to the stop square, by relative rank.
    pub const PASSED_ENEMY_KING: usize = PASSED_BLOCKED + 8;
    pub const PASSED_OWN_KING: usize = PASSED_ENEMY_KING + 8;
    pub const BISHOP_PAIR: usize = PASSED_OWN_KING + 8;
    pub const ROOK_OPEN_FILE: usize = BISHOP_PAIR + 1;
    pub const ROOK_HALF_OPEN_FILE: usize = ROOK_OPEN_FILE + 1;
    /// Pawn shield per file around the king: nearest own pawn one or two
    /// ranks ahead, none nearer, and a file without pawns of either colour.
    pub const SHIELD_CLOSE: usize = ROOK_HALF_OPEN_FILE + 1;
    pub const SHIELD_FAR: usize = SHIELD_CLOSE + 1;
    pub const SHIELD_MISSING: usize = SHIELD_FAR + 1;
    pub const SHIELD_OPEN_FILE: usize = SHIELD_MISSING + 1;
    /// King danger of the defender, by attack units (capped at the last entry).
    pub const KING_DANGER: usize = SHIELD_OPEN_FILE + 1;
    pub const KING_DANGER_LEN: usize = 64;
    /// A piece (by type) attacked by an enemy pawn, minor piece or rook.
    pub const THREAT_BY_PAWN: usize = KING_DANGER + KING_DANGER_LEN;
    pub const THREAT_BY_MINOR: usize = THREAT_BY_PAWN + 6;
    pub const THREAT_BY_ROOK: usize = THREAT_BY_MINOR + 6;
    /// Number of weights.
    pub const COUNT: usize = THREAT_BY_ROOK + 6;

    /// The group an index belongs to and the index within it (for the
    /// tuner's output and reports).
    pub fn name(i: usize) -> (&'static str, usize) {
        const GROUPS: [(&str, usize); 23] = [
            ("MATERIAL", MATERIAL),
            ("PSQT", PSQT),
            ("MOBILITY_KNIGHT", MOBILITY[0]),
            ("MOBILITY_BISHOP", MOBILITY[1]),
            ("MOBILITY_ROOK", MOBILITY[2]),
            ("MOBILITY_QUEEN", MOBILITY[3]),
            ("DOUBLED", DOUBLED),
            ("ISOLATED", ISOLATED),
            ("CONNECTED", CONNECTED),
            ("PASSED", PASSED),
            ("PASSED_BLOCKED", PASSED_BLOCKED),
            ("PASSED_ENEMY_KING", PASSED_ENEMY_KING),
            ("PASSED_OWN_KING", PASSED_OWN_KING),
            ("BISHOP_PAIR", BISHOP_PAIR),
            ("ROOK_OPEN_FILE", ROOK_OPEN_FILE),
            ("ROOK_HALF_OPEN_FILE", ROOK_HALF_OPEN_FILE),
            ("SHIELD_CLOSE", SHIELD_CLOSE),
            ("SHIELD_FAR", SHIELD_FAR),
            ("SHIELD_MISSING", SHIELD_MISSING),
            ("SHIELD_OPEN_FILE", SHIELD_OPEN_FILE),
            ("KING_DANGER", KING_DANGER),
            ("THREAT_BY_PAWN", THREAT_BY_PAWN),
            ("THREAT_BY_MINOR", THREAT_BY_MINOR),
        ];
        if i >= THREAT_BY_ROOK {
            return ("THREAT_BY_ROOK", i - THREAT_BY_ROOK);
        }
        let g = GROUPS.iter().rev().find(|g| g.1 <= i).unwrap_or(&GROUPS[0]);
        (g.0, i - g.1)
    }
}

/// PeSTO's phase: knight and bishop 1, rook 2, queen 4; 24 at the start.
const MAX_PHASE: i32 = 24;
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];

/// Attack units per king-zone square hit, knight to queen (the index into
/// the king danger table; halved when the attacker has no queen).
const KING_ATTACK_WEIGHT: [i32; 4] = [2, 2, 3, 5];

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

/// The rows of the breakdown [`trace`] prints.
#[derive(Copy, Clone)]
enum Row {
    Material,
    Psqt,
    Mobility,
    Pawns,
    Passed,
    King,
    Pieces,
    Threats,
}

const ROWS: usize = 8;
const ROW_NAMES: [&str; ROWS] =
    ["Material", "Piece-square", "Mobility", "Pawn structure", "Passed pawns", "King safety", "Pieces", "Threats"];

/// Every row for both colours (index = colour), plus what blending needs.
#[derive(Default)]
struct Terms {
    rows: [[S; 2]; ROWS],
    /// 0..=24; 24 with all pieces on the board.
    phase: i32,
    /// Non-pawn material by [`piece_value`], per colour.
    non_pawn: [i32; 2],
    pawn_count: [u32; 2],
}

/// Where the features of one evaluation go: summed into [`Terms`] for the
/// search, and also listed for the tuner ([`tune::features`]).
trait Sink {
    fn terms(&mut self) -> &mut Terms;

    /// `n` times weight `w` for colour `c`, in row `row`.
    #[inline(always)]
    fn add(&mut self, row: Row, c: usize, w: usize, n: i32) {
        self.terms().rows[row as usize][c] += WEIGHTS[w] * n;
    }
}

impl Sink for Terms {
    #[inline(always)]
    fn terms(&mut self) -> &mut Terms {
        self
    }
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
    /// Squares attacked by each colour's pawns.
    pawn_attacks: [Bitboard; 2],
    /// Squares each colour's pieces may use for mobility.
    mobility_area: [Bitboard; 2],
}

/// Squares attacked by each colour's minor pieces and rooks, gathered while
/// the pieces are scored, for the threats.
#[derive(Default)]
struct PieceAttacks {
    minor: [Bitboard; 2],
    rook: [Bitboard; 2],
}

impl Terms {
    fn side_total(&self, c: usize) -> S {
        self.rows.iter().fold(S::ZERO, |acc, r| acc + r[c])
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

/// Every feature of `board` into `sink`; shared by [`evaluate`], [`trace`]
/// and [`tune::features`].
#[inline(always)]
fn compute<K: Sink>(board: &Board, sink: &mut K) {
    let occ = board.occupied();
    let pawns = [board.pieces_of(Color::White, PieceType::Pawn), board.pieces_of(Color::Black, PieceType::Pawn)];
    let kings = [board.king_square(Color::White), board.king_square(Color::Black)];
    let pawn_att = [pawn_attacks(pawns[0], Color::White), pawn_attacks(pawns[1], Color::Black)];
    let ctx = Context {
        occ,
        pawns,
        kings,
        zones: [attacks::king(kings[0]).with(kings[0]), attacks::king(kings[1]).with(kings[1])],
        pawn_attacks: pawn_att,
        mobility_area: [!(board.color_bb(Color::White) | pawn_att[1]), !(board.color_bb(Color::Black) | pawn_att[0])],
    };

    let mut att = PieceAttacks::default();
    // Called once per colour with a constant, so each copy is specialised.
    let white_attack = side_terms(board, &ctx, Color::White, sink, &mut att);
    let black_attack = side_terms(board, &ctx, Color::Black, sink, &mut att);
    king_danger(sink, 0, black_attack, board.pieces_of(Color::Black, PieceType::Queen).any());
    king_danger(sink, 1, white_attack, board.pieces_of(Color::White, PieceType::Queen).any());
    threats(board, &ctx, &att, Color::White, sink);
    threats(board, &ctx, &att, Color::Black, sink);
    let t = sink.terms();
    t.phase = t.phase.min(MAX_PHASE);
}

/// All terms of colour `c`; returns its attacks on the enemy king zone.
#[inline(always)]
fn side_terms<K: Sink>(board: &Board, ctx: &Context, c: Color, sink: &mut K, att: &mut PieceAttacks) -> KingAttack {
    let us = c.index();
    let mut attack = KingAttack::default();
    pawn_terms(ctx, c, sink);
    piece_terms(board, ctx, c, PieceType::Knight, sink, &mut attack, att);
    piece_terms(board, ctx, c, PieceType::Bishop, sink, &mut attack, att);
    piece_terms(board, ctx, c, PieceType::Rook, sink, &mut attack, att);
    piece_terms(board, ctx, c, PieceType::Queen, sink, &mut attack, att);
    sink.add(Row::Psqt, us, psqt_index(PieceType::King, ctx.kings[us].relative(c)), 1);
    pawn_shield(ctx, c, sink);
    if board.pieces_of(c, PieceType::Bishop).more_than_one() {
        sink.add(Row::Pieces, us, layout::BISHOP_PAIR, 1);
    }
    sink.terms().pawn_count[us] = ctx.pawns[us].count();
    attack
}

#[inline(always)]
fn psqt_index(pt: PieceType, relative: Square) -> usize {
    layout::PSQT + 64 * pt.index() + relative.index()
}

/// Material, piece-square values, doubled, isolated, connected and passed pawns.
#[inline(always)]
fn pawn_terms<K: Sink>(ctx: &Context, c: Color, sink: &mut K) {
    let us = c.index();
    let them = 1 - us;
    let (ours, theirs) = (ctx.pawns[us], ctx.pawns[them]);
    sink.add(Row::Material, us, layout::MATERIAL + PieceType::Pawn.index(), ours.count() as i32);
    // Pawns side by side: shifted one file either way.
    let not_a = !Bitboard::FILE_A.0;
    let not_h = !Bitboard::file(7).0;
    let beside = Bitboard((ours.0 & not_a) >> 1 | (ours.0 & not_h) << 1);
    let connected = ctx.pawn_attacks[us] | beside;
    for sq in ours {
        let rank = sq.relative(c).rank() as usize;
        sink.add(Row::Psqt, us, psqt_index(PieceType::Pawn, sq.relative(c)), 1);
        let rear_of_doubled = (ours & MASKS.front_file[us][sq.index()]).any();
        if rear_of_doubled {
            sink.add(Row::Pawns, us, layout::DOUBLED, 1);
        }
        if (ours & MASKS.adjacent_files[sq.file() as usize]).is_empty() {
            sink.add(Row::Pawns, us, layout::ISOLATED, 1);
        }
        if connected.contains(sq) {
            sink.add(Row::Pawns, us, layout::CONNECTED + rank, 1);
        }
        if !rear_of_doubled && (theirs & MASKS.passed_span[us][sq.index()]).is_empty() {
            passed_pawn(ctx, c, sq, sink);
        }
    }
}

/// The passed pawn of colour `c` on `sq`.
#[inline(always)]
fn passed_pawn<K: Sink>(ctx: &Context, c: Color, sq: Square, sink: &mut K) {
    let us = c.index();
    let rank = sq.relative(c).rank() as usize;
    let stop = sq.bb().forward(c).lsb();
    let table = if ctx.occ.contains(stop) { layout::PASSED_BLOCKED } else { layout::PASSED };
    sink.add(Row::Passed, us, table + rank, 1);
    if rank >= 3 {
        sink.add(Row::Passed, us, layout::PASSED_ENEMY_KING + rank, distance(ctx.kings[1 - us], stop));
        sink.add(Row::Passed, us, layout::PASSED_OWN_KING + rank, distance(ctx.kings[us], stop));
    }
}

/// Material, piece-square values, mobility and king-zone attacks of the
/// pieces of type `pt` (knight to queen); rook files for rooks.
#[inline(always)]
fn piece_terms<K: Sink>(
    board: &Board,
    ctx: &Context,
    c: Color,
    pt: PieceType,
    sink: &mut K,
    attack: &mut KingAttack,
    att: &mut PieceAttacks,
) {
    let us = c.index();
    let them = 1 - us;
    let idx = pt.index() - 1;
    let pieces = board.pieces_of(c, pt);
    let n = pieces.count() as i32;
    sink.add(Row::Material, us, layout::MATERIAL + pt.index(), n);
    let t = sink.terms();
    t.phase += PHASE_WEIGHT[pt.index()] * n;
    t.non_pawn[us] += piece_value(pt) * n;
    for sq in pieces {
        sink.add(Row::Psqt, us, psqt_index(pt, sq.relative(c)), 1);
        let a = attacks::piece(pt, sq, ctx.occ);
        match pt {
            PieceType::Knight | PieceType::Bishop => att.minor[us] |= a,
            PieceType::Rook => att.rook[us] |= a,
            _ => {}
        }
        let safe = (a & ctx.mobility_area[us]).count() as usize;
        sink.add(Row::Mobility, us, layout::MOBILITY[idx] + safe.min(layout::MOBILITY_LEN[idx] - 1), 1);
        let zone_hits = (a & ctx.zones[them]).count() as i32;
        if zone_hits > 0 {
            attack.attackers += 1;
            attack.units += KING_ATTACK_WEIGHT[idx] * zone_hits;
        }
        if pt == PieceType::Rook {
            let file = Bitboard::file(sq.file());
            if ((ctx.pawns[0] | ctx.pawns[1]) & file).is_empty() {
                sink.add(Row::Pieces, us, layout::ROOK_OPEN_FILE, 1);
            } else if (ctx.pawns[us] & file).is_empty() {
                sink.add(Row::Pieces, us, layout::ROOK_HALF_OPEN_FILE, 1);
            }
        }
    }
}

/// Shield of own pawns in front of the king of colour `c`, on the king's file
/// and its neighbours (three files, shifted inwards at the edge).
#[inline(always)]
fn pawn_shield<K: Sink>(ctx: &Context, c: Color, sink: &mut K) {
    let us = c.index();
    let ksq = ctx.kings[us];
    let ahead = MASKS.forward_ranks[us][ksq.rank() as usize];
    let centre = ksq.file().clamp(1, 6);
    for f in centre - 1..=centre + 1 {
        let file = Bitboard::file(f);
        let shield = ctx.pawns[us] & file & ahead;
        if shield.any() {
            let nearest = match c {
                Color::White => shield.lsb(),
                Color::Black => shield.msb(),
            };
            let w = match nearest.rank().abs_diff(ksq.rank()) {
                1 => layout::SHIELD_CLOSE,
                2 => layout::SHIELD_FAR,
                _ => layout::SHIELD_MISSING,
            };
            sink.add(Row::King, us, w, 1);
        } else {
            sink.add(Row::King, us, layout::SHIELD_MISSING, 1);
            if (ctx.pawns[1 - us] & file).is_empty() {
                sink.add(Row::King, us, layout::SHIELD_OPEN_FILE, 1);
            }
        }
    }
}

/// Danger to the king of colour `defender` from `attack`: needs two
/// attackers; the units are halved when the attacker has no queen.
#[inline(always)]
fn king_danger<K: Sink>(sink: &mut K, defender: usize, attack: KingAttack, attacker_has_queen: bool) {
    if attack.attackers < 2 {
        return;
    }
    let units = if attacker_has_queen { attack.units } else { attack.units / 2 };
    let i = (units as usize).min(layout::KING_DANGER_LEN - 1);
    sink.add(Row::King, defender, layout::KING_DANGER + i, 1);
}

/// Pieces of colour `c` attacked by enemy pawns, minor pieces and rooks,
/// counted by the attacked piece's type.
#[inline(always)]
fn threats<K: Sink>(board: &Board, ctx: &Context, att: &PieceAttacks, c: Color, sink: &mut K) {
    let us = c.index();
    let them = 1 - us;
    let targets = board.color_bb(c) & !ctx.pawns[us] & !ctx.kings[us].bb();
    if (targets & (ctx.pawn_attacks[them] | att.minor[them] | att.rook[them])).is_empty() {
        return;
    }
    for pt in [PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen] {
        let ours = board.pieces_of(c, pt);
        let by_pawn = (ours & ctx.pawn_attacks[them]).count() as i32;
        if by_pawn > 0 {
            sink.add(Row::Threats, us, layout::THREAT_BY_PAWN + pt.index(), by_pawn);
        }
        let by_minor = (ours & att.minor[them]).count() as i32;
        if by_minor > 0 {
            sink.add(Row::Threats, us, layout::THREAT_BY_MINOR + pt.index(), by_minor);
        }
        let by_rook = (ours & att.rook[them]).count() as i32;
        if by_rook > 0 {
            sink.add(Row::Threats, us, layout::THREAT_BY_ROOK + pt.index(), by_rook);
        }
    }
}

/// Side-to-move score from a white-view score: tempo and clamp.
#[inline]
fn for_side_to_move(white: i32, stm: Color) -> i32 {
    (white * stm.sign() + TEMPO).clamp(-MAX_EVAL, MAX_EVAL)
}

fn terms(board: &Board) -> Terms {
    let mut t = Terms::default();
    compute(board, &mut t);
    t
}

/// Static evaluation in centipawns from the side to move's point of view
/// (positive = good for the side to move), within `±MAX_EVAL`.
pub fn evaluate(board: &Board) -> i32 {
    for_side_to_move(terms(board).white_score(), board.side_to_move())
}

/// A human-readable breakdown of [`evaluate`] for the UCI `eval` command.
pub fn trace(board: &Board) -> String {
    let t = terms(board);
    let mut out = String::with_capacity(1024);
    let rule = "---------------+---------------+---------------+---------------";
    let _ = writeln!(out, "{:<14} | {:^13} | {:^13} | {:^13}", "Term", "White", "Black", "Total");
    let _ = writeln!(out, "{:<14} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}", "", "MG", "EG", "MG", "EG", "MG", "EG");
    let _ = writeln!(out, "{rule}");
    let row = |out: &mut String, name: &str, w: S, b: S| {
        let d = w - b;
        let _ =
            writeln!(out, "{name:<14} | {:>6} {:>6} | {:>6} {:>6} | {:>6} {:>6}", w.mg, w.eg, b.mg, b.eg, d.mg, d.eg);
    };
    for (name, v) in ROW_NAMES.iter().zip(&t.rows) {
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
