//! Material signatures: how many pieces of each kind each side has, written
//! as a table name (`KRPvKR`) and packed into an integer key for lookups.
//!
//! Invariants: counts are at most 15 per kind (a nibble of the key); names
//! list pieces in the order K Q R B N P; [`Material::normalized`] puts the
//! side Syzygy files name first (more pieces, then stronger pieces) in front,
//! exactly as python-chess and the official file names do.

use crate::types::{Bitboard, Color, PieceType};
use std::fmt;

/// Piece letters in name order, with their piece types.
const NAME_ORDER: [(char, PieceType); 6] = [
    ('K', PieceType::King),
    ('Q', PieceType::Queen),
    ('R', PieceType::Rook),
    ('B', PieceType::Bishop),
    ('N', PieceType::Knight),
    ('P', PieceType::Pawn),
];

/// Pieces per colour and kind. Copy, no allocation: it doubles as the name
/// of a missing table in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Material {
    counts: [[u8; 6]; 2],
}

impl Material {
    /// The material of a position given by its piece bitboards.
    #[inline]
    pub(crate) fn from_bitboards(by_type: &[Bitboard; 6], by_color: &[Bitboard; 2]) -> Material {
        let mut m = Material::default();
        for (counts, &side) in m.counts.iter_mut().zip(by_color) {
            for (n, &pieces) in counts.iter_mut().zip(by_type) {
                *n = (pieces & side).count().min(15) as u8;
            }
        }
        m
    }

    pub(crate) fn add(&mut self, color: Color, pt: PieceType) {
        let n = &mut self.counts[color.index()][pt.index()];
        *n = n.saturating_add(1).min(15);
    }

    /// Number of pieces of `pt` that `color` has.
    pub fn count(&self, color: Color, pt: PieceType) -> u32 {
        self.counts[color.index()][pt.index()] as u32
    }

    /// Pieces of one side.
    pub fn side_count(&self, color: Color) -> u32 {
        self.counts[color.index()].iter().map(|&n| n as u32).sum()
    }

    /// Pieces on the board.
    pub fn total(&self) -> u32 {
        self.side_count(Color::White) + self.side_count(Color::Black)
    }

    /// Packed key: one nibble per colour and piece kind.
    #[inline]
    pub(crate) fn key(&self) -> u64 {
        let mut k = 0u64;
        for c in 0..2 {
            for p in 0..6 {
                k |= (self.counts[c][p] as u64) << (4 * (c * 6 + p));
            }
        }
        k
    }

    /// The same material with the colours swapped.
    pub fn flipped(&self) -> Material {
        Material { counts: [self.counts[1], self.counts[0]] }
    }

    pub fn is_symmetric(&self) -> bool {
        self.counts[0] == self.counts[1]
    }

    pub fn has_pawns(&self) -> bool {
        self.counts[0][0] + self.counts[1][0] > 0
    }

    /// Number of (colour, kind) pairs with exactly one piece, kings included.
    pub(crate) fn unique_pieces(&self) -> usize {
        self.counts.iter().flatten().filter(|&&n| n == 1).count()
    }

    /// Parses a table name such as `KRPvKR`: exactly one king per side,
    /// listed first, then any of `QRBNP`. `None` for anything else.
    pub fn parse(name: &str) -> Option<Material> {
        let (w, b) = name.split_once('v')?;
        let mut m = Material::default();
        for (color, part) in [(Color::White, w), (Color::Black, b)] {
            let mut chars = part.chars();
            if chars.next() != Some('K') {
                return None;
            }
            m.add(color, PieceType::King);
            for ch in chars {
                let pt = NAME_ORDER.iter().skip(1).find(|(c, _)| *c == ch)?.1;
                m.add(color, pt);
            }
        }
        (m.total() as usize <= super::index::MAX_PIECES).then_some(m)
    }

    /// The orientation official file names use: the side with more pieces
    /// first; with equally many, the side whose pieces (sorted K Q R B N P)
    /// are stronger at the first difference.
    pub fn normalized(&self) -> Material {
        let rank_list = |c: usize| -> Vec<usize> {
            NAME_ORDER
                .iter()
                .enumerate()
                .flat_map(|(i, (_, pt))| std::iter::repeat(i).take(self.counts[c][pt.index()] as usize))
                .collect()
        };
        let (w, b) = (rank_list(0), rank_list(1));
        if (w.len(), &b) < (b.len(), &w) {
            self.flipped()
        } else {
            *self
        }
    }

    fn write_side(&self, f: &mut fmt::Formatter<'_>, c: usize) -> fmt::Result {
        for (ch, pt) in NAME_ORDER {
            for _ in 0..self.counts[c][pt.index()] {
                write!(f, "{ch}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Material {
    /// The name with white's pieces first, e.g. `KRvKP` (not normalized).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_side(f, 0)?;
        write!(f, "v")?;
        self.write_side(f, 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_print_and_normalize_names() {
        let m = Material::parse("KRPvKR").unwrap();
        assert_eq!(m.to_string(), "KRPvKR");
        assert_eq!(m.total(), 5);
        assert!(m.has_pawns());
        assert_eq!(m.flipped().to_string(), "KRvKRP");
        assert_eq!(m.flipped().normalized(), m);
        assert_eq!(Material::parse("KNvKB").unwrap().normalized().to_string(), "KBvKN");
        assert_eq!(Material::parse("KRvKQ").unwrap().normalized().to_string(), "KQvKR");
        assert_eq!(Material::parse("KvKP").unwrap().normalized().to_string(), "KPvK");
        assert!(Material::parse("KRvK").unwrap().flipped().key() != Material::parse("KRvK").unwrap().key());
        for bad in ["KRK", "RvK", "KRvKK", "KQQQQvKQQ", "KXvK", "", "v"] {
            assert!(Material::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn unique_piece_count_decides_the_encoding() {
        assert_eq!(Material::parse("KRRvK").unwrap().unique_pieces(), 2);
        assert_eq!(Material::parse("KRRvKR").unwrap().unique_pieces(), 3);
        assert_eq!(Material::parse("KBNvK").unwrap().unique_pieces(), 4);
    }
}
