//! Position indexing: from the squares of a table's pieces (in the order the
//! table's header lists them) to the position's index inside a subtable.
//!
//! The index is a mixed-radix number with one digit per *group* of pieces:
//!
//! * the **leading group**: for pawnless tables either three unique pieces
//!   (31,332 placements up to symmetry) or, when fewer than three piece kinds
//!   are unique, the two kings (462 placements); for tables with pawns the
//!   pawns of the leading colour, of which the "leading pawn" picks one of four
//!   subtables (its file folded to a–d);
//! * the pawns of the other colour, when both sides have pawns (placed on the
//!   48 squares of ranks 2–7 that the leading pawns leave free);
//! * every following run of identical pieces, placed on the squares still free.
//!
//! A group's digit is its rank in the combinatorial number system over the
//! squares left free by earlier pieces; the header's `order` nibbles say in
//! which order the digits are multiplied together (see [`Groups::new`]).
//!
//! Symmetry: pawnless positions are mirrored so that the first leading piece
//! lies in the a1–d1–d4 triangle and the first of the leading pieces that is
//! off the a1–h8 diagonal lies below it; positions with pawns are only
//! mirrored left–right, so that the leading pawn is on files a–d.
//!
//! Invariants: the constant tables are built at compile time; every function
//! is total (no panics) on squares in `0..64`; [`encode_pawnless`] and
//! [`encode_pawns`] return `None` for a placement no legal position has.

/// Most pieces on the board a Syzygy table covers.
pub const MAX_PIECES: usize = 7;

/// Placements of three unique leading pieces (pawnless encoding 0).
pub(crate) const THREE_UNIQUE: u64 = 31_332;
/// Placements of two kings that do not touch (pawnless encoding 2).
pub(crate) const TWO_KINGS: u64 = 462;

/// `n` choose `k`, 0 when `k > n`.
pub(crate) const fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = if k > n - k { n - k } else { k };
    let mut r = 1u64;
    let mut d = 1u64;
    while d <= k {
        r = r * (n + 1 - d) / d;
        d += 1;
    }
    r
}

/// `BINOMIAL[k][n]` for the digits of the remaining groups.
static BINOMIAL: [[u64; 64]; MAX_PIECES + 1] = {
    let mut t = [[0u64; 64]; MAX_PIECES + 1];
    let mut k = 0;
    while k <= MAX_PIECES {
        let mut n = 0;
        while n < 64 {
            t[k][n] = binomial(n as u64, k as u64);
            n += 1;
        }
        k += 1;
    }
    t
};

#[inline]
fn choose(n: u32, k: usize) -> u64 {
    BINOMIAL.get(k).and_then(|row| row.get(n as usize)).copied().unwrap_or(0)
}

const fn file(sq: u8) -> u8 {
    sq & 7
}

const fn rank(sq: u8) -> u8 {
    sq >> 3
}

/// Mirror along the a1–h8 diagonal (a3 ↔ c1).
const fn flip_diagonal(sq: u8) -> u8 {
    ((sq >> 3) | (sq << 3)) & 63
}

/// Rank − file: positive above the a1–h8 diagonal (a3), 0 on it, negative
/// below it (c1).
const fn off_diagonal(sq: u8) -> i8 {
    rank(sq) as i8 - file(sq) as i8
}

/// Squares of the a1–d1–d4 triangle in index order: first the six squares off
/// the diagonal (b1 c1 d1 c2 d2 d3), then the diagonal (a1 b2 c3 d4).
const TRIANGLE_SQUARES: [u8; 10] = [1, 2, 3, 10, 11, 19, 0, 9, 18, 27];

/// Index 0..10 of each square's image in the a1–d1–d4 triangle.
const TRIANGLE: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut f = file(sq as u8);
        let mut r = rank(sq as u8);
        if f > 3 {
            f = 7 - f;
        }
        if r > 3 {
            r = 7 - r;
        }
        if r > f {
            let x = f;
            f = r;
            r = x;
        }
        let folded = r * 8 + f;
        let mut i = 0;
        while i < 10 {
            if TRIANGLE_SQUARES[i] == folded {
                t[sq] = i as u8;
            }
            i += 1;
        }
        sq += 1;
    }
    t
};

/// Squares below the a1–h8 diagonal numbered 0..28 rank by rank (b1 = 0 …
/// h7 = 27); squares above it take their mirror image's number; the diagonal
/// itself is 28..36.
const LOWER: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut f = file(sq as u8);
        let mut r = rank(sq as u8);
        if r > f {
            let x = f;
            f = r;
            r = x;
        }
        t[sq] = if r == f {
            28 + f
        } else {
            // Squares below the diagonal on ranks before r, then the offset.
            let mut before = 0;
            let mut rr = 0;
            while rr < r {
                before += 7 - rr;
                rr += 1;
            }
            before + (f - r - 1)
        };
        sq += 1;
    }
    t
};

/// Sentinel for two-king placements that never occur.
const NO_KK: u16 = u16::MAX;

const fn kings_touch(a: u8, b: u8) -> bool {
    let df = file(a) as i8 - file(b) as i8;
    let dr = rank(a) as i8 - rank(b) as i8;
    df >= -1 && df <= 1 && dr >= -1 && dr <= 1
}

/// `KK[t][sq]`: index of the two-king placement whose first king is on
/// triangle square `t` and second on `sq`. Placements with the first king on
/// the diagonal and the second above it are left out (they mirror others);
/// those with both kings on the diagonal are numbered last.
static KK: [[u16; 64]; 10] = {
    let mut t = [[NO_KK; 64]; 10];
    let mut code = 0u16;
    let mut i = 0;
    while i < 10 {
        let k1 = TRIANGLE_SQUARES[i];
        let mut k2 = 0u8;
        while k2 < 64 {
            let both_diagonal = off_diagonal(k1) == 0 && off_diagonal(k2) == 0;
            let skip = kings_touch(k1, k2) || (off_diagonal(k1) == 0 && off_diagonal(k2) > 0);
            if !skip && !both_diagonal {
                t[i][k2 as usize] = code;
                code += 1;
            }
            k2 += 1;
        }
        i += 1;
    }
    let mut i = 0;
    while i < 10 {
        let k1 = TRIANGLE_SQUARES[i];
        let mut k2 = 0u8;
        while k2 < 64 {
            if off_diagonal(k1) == 0 && off_diagonal(k2) == 0 && !kings_touch(k1, k2) {
                t[i][k2 as usize] = code;
                code += 1;
            }
            k2 += 1;
        }
        i += 1;
    }
    t
};

/// Distance of a file from the nearer edge: a/h = 0 … d/e = 3.
const fn edge_distance(f: u8) -> u8 {
    if f < 4 {
        f
    } else {
        7 - f
    }
}

/// Pawn squares (ranks 2–7) numbered 0..48 so that central files and
/// advanced ranks come first; of two mirror squares the one on files a–d gets
/// the odd (larger) number. Leading pawns are ordered by this number.
const PAWN_TWIST: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut sq = 8;
    while sq < 56 {
        let f = file(sq as u8);
        let r = rank(sq as u8);
        let left = if f < 4 { 1 } else { 0 };
        t[sq] = 12 * (3 - edge_distance(f)) + 2 * (6 - r) + left;
        sq += 1;
    }
    t
};

/// Leading-pawn square numbered 0..24: folded file × 6 + rank − 1. The
/// leading pawn is the one with the smallest number.
const PAWN_FLAP: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut sq = 8;
    while sq < 56 {
        t[sq] = edge_distance(file(sq as u8)) * 6 + rank(sq as u8) - 1;
        sq += 1;
    }
    t
};

/// `PAWN_INDEX[n][flap]`: first index of the placements of `n` leading pawns
/// whose leading pawn has number `flap`; `PAWN_FACTOR[n][file]` the number of
/// placements for a leading file. The other `n − 1` leading pawns sit on
/// squares with a smaller `PAWN_TWIST`.
static PAWN_TABLES: ([[u64; 24]; MAX_PIECES], [[u64; 4]; MAX_PIECES]) = {
    let mut index = [[0u64; 24]; MAX_PIECES];
    let mut factor = [[0u64; 4]; MAX_PIECES];
    let mut n = 1;
    while n < MAX_PIECES {
        let mut f = 0;
        while f < 4 {
            let mut sum = 0u64;
            let mut r = 1;
            while r < 7 {
                let sq = r * 8 + f;
                index[n][f * 6 + r - 1] = sum;
                sum += binomial(PAWN_TWIST[sq] as u64, n as u64 - 1);
                r += 1;
            }
            factor[n][f] = sum;
            f += 1;
        }
        n += 1;
    }
    (index, factor)
};

/// Placements of `lead` leading pawns whose leading pawn is on folded file
/// `file` (0 = a/h … 3 = d/e).
pub(crate) fn lead_pawn_factor(lead: usize, file: usize) -> Option<u64> {
    PAWN_TABLES.1.get(lead)?.get(file).copied().filter(|&f| f > 0)
}

/// Folded file (0..4) of the leading pawn among `squares` (white's view), and
/// moves that pawn to the front.
pub(crate) fn leading_pawn_file(squares: &mut [u8]) -> usize {
    let mut best = 0;
    for i in 1..squares.len() {
        if PAWN_FLAP[squares[i] as usize & 63] < PAWN_FLAP[squares[best] as usize & 63] {
            best = i;
        }
    }
    squares.swap(0, best);
    squares.first().map_or(0, |&s| edge_distance(file(s)) as usize)
}

/// How the pieces of one subtable are grouped and how the groups' digits are
/// weighted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Groups {
    /// Group lengths in piece order (`lens[0]` is the leading group).
    pub lens: [u8; MAX_PIECES],
    pub count: usize,
    /// Weight of each group's digit.
    pub factors: [u64; MAX_PIECES],
    /// Number of indices of the subtable.
    pub size: u64,
    /// Group 1 holds the other colour's pawns.
    pub second_pawns: bool,
}

impl Groups {
    /// Builds the groups. `lens` are the group lengths in piece order,
    /// `lead_size` the number of placements of the leading group, `order`
    /// and `order2` the header nibbles giving the position of the leading
    /// group and of the second pawn group among the digits (`order2` is
    /// ignored unless `second_pawns`). Returns `None` for inconsistent input.
    pub fn new(lens: &[u8], lead_size: u64, order: u8, order2: u8, second_pawns: bool) -> Option<Groups> {
        let count = lens.len();
        if count == 0 || count > MAX_PIECES || (second_pawns && count < 2) {
            return None;
        }
        let order = order as usize;
        let order2 = if second_pawns { order2 as usize } else { usize::MAX };
        if order >= count || (second_pawns && (order2 >= count || order2 == order)) {
            return None;
        }
        let mut g = Groups { lens: [0; MAX_PIECES], count, factors: [0; MAX_PIECES], size: 0, second_pawns };
        g.lens[..count].copy_from_slice(lens);
        let placed: u32 = lens.iter().take(if second_pawns { 2 } else { 1 }).map(|&l| l as u32).sum();
        let mut free = 64u32.checked_sub(placed)?;
        let mut next = if second_pawns { 2 } else { 1 };
        let mut f = 1u64;
        for k in 0..count {
            let mult = if k == order {
                g.factors[0] = f;
                lead_size
            } else if k == order2 {
                g.factors[1] = f;
                let free_pawn_squares = 48u32.checked_sub(lens[0] as u32)?;
                binomial(free_pawn_squares as u64, lens[1] as u64)
            } else {
                let len = *lens.get(next)? as u32;
                g.factors[next] = f;
                let m = binomial(free as u64, len as u64);
                free = free.checked_sub(len)?;
                next += 1;
                m
            };
            f = f.checked_mul(mult)?;
        }
        if next != count || f == 0 {
            return None;
        }
        g.size = f;
        Some(g)
    }
}

/// Digits of the groups after the leading group(s), starting at group
/// `first`; `sq` holds all squares in piece order, already mirrored.
fn encode_rest(sq: &mut [u8], g: &Groups, first: usize, mut start: usize) -> Option<u64> {
    let mut idx = 0u64;
    for gi in first..g.count {
        let len = g.lens[gi] as usize;
        let end = start.checked_add(len)?;
        let (before, group) = sq.get_mut(..end)?.split_at_mut(start);
        group.sort_unstable();
        let pawn_shift = if g.second_pawns && gi == 1 { 8 } else { 0 };
        let mut digit = 0u64;
        for (m, &p) in group.iter().enumerate() {
            let below = before.iter().filter(|&&q| q < p).count() as u32;
            let n = (p as u32).checked_sub(below + pawn_shift)?;
            digit += choose(n, m + 1);
        }
        idx = idx.checked_add(digit.checked_mul(g.factors[gi])?)?;
        start = end;
    }
    Some(idx)
}

/// Index of a pawnless position. `sq` are the squares in header order;
/// `g.lens[0]` is 3 (three unique leading pieces) or 2 (the two kings).
pub(crate) fn encode_pawnless(sq: &mut [u8], g: &Groups) -> Option<u64> {
    let first = *sq.first()?;
    if file(first) > 3 {
        sq.iter_mut().for_each(|s| *s ^= 7);
    }
    if rank(sq[0]) > 3 {
        sq.iter_mut().for_each(|s| *s ^= 56);
    }
    let lead = g.lens[0] as usize;
    if let Some(i) = sq.iter().take(lead).position(|&s| off_diagonal(s) != 0) {
        if off_diagonal(sq[i]) > 0 {
            sq[i..].iter_mut().for_each(|s| *s = flip_diagonal(*s));
        }
    }
    let lead_idx = match lead {
        3 => three_unique(sq[0], *sq.get(1)?, *sq.get(2)?)?,
        2 => {
            let v = *KK.get(TRIANGLE[sq[0] as usize] as usize)?.get(*sq.get(1)? as usize)?;
            (v != NO_KK).then_some(v as u64)?
        }
        _ => return None,
    };
    let idx = lead_idx.checked_mul(g.factors[0])?;
    idx.checked_add(encode_rest(sq, g, 1, lead)?)
}

/// The leading-group digit of three unique pieces already in canonical
/// orientation; `None` for squares no position has (e.g. repeated ones).
fn three_unique(s0: u8, s1: u8, s2: u8) -> Option<u64> {
    let a1 = (s1 > s0) as i64;
    let a2 = (s2 > s0) as i64 + (s2 > s1) as i64;
    let diag = |s: u8| (s & 7) as i64; // position along the a1–h8 diagonal
    let lower = |s: u8| LOWER[s as usize & 63] as i64;
    let idx = if off_diagonal(s0) != 0 {
        TRIANGLE[s0 as usize & 63] as i64 * 63 * 62 + (s1 as i64 - a1) * 62 + (s2 as i64 - a2)
    } else if off_diagonal(s1) != 0 {
        6 * 63 * 62 + diag(s0) * 28 * 62 + lower(s1) * 62 + (s2 as i64 - a2)
    } else if off_diagonal(s2) != 0 {
        6 * 63 * 62 + 4 * 28 * 62 + diag(s0) * 7 * 28 + (diag(s1) - a1) * 28 + lower(s2)
    } else {
        6 * 63 * 62 + 4 * 28 * 62 + 4 * 7 * 28 + diag(s0) * 7 * 6 + (diag(s1) - a1) * 6 + (diag(s2) - a2)
    };
    u64::try_from(idx).ok()
}

/// Index of a position with pawns. `sq` are the squares in header order with
/// the leading pawn first (see [`leading_pawn_file`]).
pub(crate) fn encode_pawns(sq: &mut [u8], g: &Groups) -> Option<u64> {
    let first = *sq.first()?;
    if file(first) > 3 {
        sq.iter_mut().for_each(|s| *s ^= 7);
    }
    let lead = g.lens[0] as usize;
    let others = sq.get_mut(1..lead)?;
    others.sort_unstable_by(|a, b| PAWN_TWIST[*b as usize & 63].cmp(&PAWN_TWIST[*a as usize & 63]));
    let mut idx = *PAWN_TABLES.0.get(lead)?.get(PAWN_FLAP[sq[0] as usize & 63] as usize)?;
    for (i, &s) in sq[1..lead].iter().enumerate() {
        // The pawn with the largest twist gets the highest k.
        idx += choose(PAWN_TWIST[s as usize & 63] as u32, lead - 1 - i);
    }
    let idx = idx.checked_mul(g.factors[0])?;
    idx.checked_add(encode_rest(sq, g, 1, lead)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binomial(64, 3), 41664);
        assert_eq!(binomial(5, 7), 0);
        assert_eq!(binomial(48, 0), 1);
        assert_eq!(choose(62, 2), 1891);
    }

    #[test]
    fn two_king_table_numbers_462_placements_once() {
        let mut seen = vec![false; TWO_KINGS as usize];
        for row in KK.iter() {
            for &v in row.iter().filter(|&&v| v != NO_KK) {
                assert!(!seen[v as usize], "duplicate {v}");
                seen[v as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        // Spot checks: king b1 / king d1 is the first placement, a1 / c3 the
        // first with both kings on the diagonal.
        assert_eq!(KK[0][3], 0);
        assert_eq!(KK[6][18], 441);
    }

    #[test]
    fn triangle_and_lower_cover_their_ranges() {
        for (i, &s) in TRIANGLE_SQUARES.iter().enumerate() {
            assert_eq!(TRIANGLE[s as usize] as usize, i);
        }
        let mut lower: Vec<u8> = (0..64u8).filter(|&s| off_diagonal(s) < 0).map(|s| LOWER[s as usize]).collect();
        lower.sort_unstable();
        assert_eq!(lower, (0..28).collect::<Vec<u8>>());
        assert_eq!(LOWER[63], 35);
    }

    #[test]
    fn pawn_twist_is_a_permutation_of_pawn_squares() {
        let mut v: Vec<u8> = (8..56).map(|s| PAWN_TWIST[s]).collect();
        v.sort_unstable();
        assert_eq!(v, (0..48).collect::<Vec<u8>>());
        assert_eq!(PAWN_TWIST[8], 47); // a2
        assert_eq!(PAWN_TWIST[52], 0); // e7
    }

    #[test]
    fn one_leading_pawn_has_six_placements_per_file() {
        for f in 0..4 {
            assert_eq!(lead_pawn_factor(1, f), Some(6));
        }
        // Two leading pawns: all pairs of pawn squares, split over 4 files
        // (pairs on mirror squares are counted once).
        let total: u64 = (0..4).filter_map(|f| lead_pawn_factor(2, f)).sum();
        assert_eq!(total, binomial(48, 2) / 2 + 12);
    }

    #[test]
    fn three_unique_index_stays_below_its_size() {
        let g = Groups::new(&[3], THREE_UNIQUE, 0, 0x0f, false).unwrap();
        let mut max = 0;
        for a in 0..64u8 {
            for b in (0..64u8).filter(|&b| b != a) {
                for c in (0..64u8).filter(|&c| c != a && c != b) {
                    let mut sq = [a, b, c];
                    max = max.max(encode_pawnless(&mut sq, &g).unwrap());
                }
            }
        }
        assert_eq!(max, THREE_UNIQUE - 1);
    }

    #[test]
    fn groups_reject_bad_order_nibbles() {
        assert!(Groups::new(&[3, 2], THREE_UNIQUE, 2, 0x0f, false).is_none());
        assert!(Groups::new(&[1, 1, 2], 6, 1, 1, true).is_none());
        let g = Groups::new(&[3, 2], THREE_UNIQUE, 1, 0x0f, false).unwrap();
        assert_eq!(g.factors[1], 1);
        assert_eq!(g.factors[0], binomial(61, 2));
        assert_eq!(g.size, THREE_UNIQUE * binomial(61, 2));
    }
}
