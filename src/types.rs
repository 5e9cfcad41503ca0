//! Basic chess types: colours, pieces, squares, bitboards and the engine move.
//!
//! Invariants: a [`Square`] is always in `0..64` (a1 = 0, b1 = 1, …, h8 = 63);
//! a [`Move`] is the Stockfish 16-bit encoding described in [docs/formats.md#engine-move](../docs/formats.md#engine-move)
//! (bits 0–5 destination, 6–11 origin, 12–13 promotion piece − knight,
//! 14–15 kind); castling is always stored king-takes-rook.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// Side to move / piece owner.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// +1 for white, −1 for black.
    #[inline]
    pub const fn sign(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// The rank (0-based) that is `r` ranks from this side's back rank.
    #[inline]
    pub const fn relative_rank(self, r: u8) -> u8 {
        match self {
            Color::White => r,
            Color::Black => 7 - r,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// Kind of piece, without colour.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PieceType {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl PieceType {
    pub const ALL: [PieceType; 6] =
        [PieceType::Pawn, PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen, PieceType::King];

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline]
    pub const fn from_index(i: usize) -> PieceType {
        match i {
            0 => PieceType::Pawn,
            1 => PieceType::Knight,
            2 => PieceType::Bishop,
            3 => PieceType::Rook,
            4 => PieceType::Queen,
            _ => PieceType::King,
        }
    }

    /// Lower-case letter as in FEN and UCI promotions.
    pub const fn char(self) -> char {
        match self {
            PieceType::Pawn => 'p',
            PieceType::Knight => 'n',
            PieceType::Bishop => 'b',
            PieceType::Rook => 'r',
            PieceType::Queen => 'q',
            PieceType::King => 'k',
        }
    }

    pub fn from_char(c: char) -> Option<PieceType> {
        Some(match c.to_ascii_lowercase() {
            'p' => PieceType::Pawn,
            'n' => PieceType::Knight,
            'b' => PieceType::Bishop,
            'r' => PieceType::Rook,
            'q' => PieceType::Queen,
            'k' => PieceType::King,
            _ => return None,
        })
    }
}

/// A coloured piece. Index = colour * 6 + piece type (white P N B R Q K, then black).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    #[inline]
    pub const fn new(color: Color, pt: PieceType) -> Piece {
        Piece(color as u8 * 6 + pt as u8)
    }

    #[inline]
    pub const fn color(self) -> Color {
        if self.0 < 6 {
            Color::White
        } else {
            Color::Black
        }
    }

    #[inline]
    pub const fn kind(self) -> PieceType {
        PieceType::from_index((self.0 % 6) as usize)
    }

    /// 0..12: white P N B R Q K, then black P N B R Q K.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// FEN letter: upper case for white.
    pub fn char(self) -> char {
        let c = self.kind().char();
        match self.color() {
            Color::White => c.to_ascii_uppercase(),
            Color::Black => c,
        }
    }

    pub fn from_char(c: char) -> Option<Piece> {
        let pt = PieceType::from_char(c)?;
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        Some(Piece::new(color, pt))
    }
}

/// A square, a1 = 0 … h8 = 63.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// Builds a square from an index; the index is masked to `0..64`.
    #[inline]
    pub const fn new(index: u8) -> Square {
        Square(index & 63)
    }

    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        Square((rank & 7) * 8 + (file & 7))
    }

    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline]
    pub const fn file(self) -> u8 {
        self.0 & 7
    }

    #[inline]
    pub const fn rank(self) -> u8 {
        self.0 >> 3
    }

    #[inline]
    pub const fn bb(self) -> Bitboard {
        Bitboard(1u64 << self.0)
    }

    /// Mirror vertically (a1 <-> a8).
    #[inline]
    pub const fn flip_rank(self) -> Square {
        Square(self.0 ^ 56)
    }

    /// Mirror horizontally (a1 <-> h1).
    #[inline]
    pub const fn flip_file(self) -> Square {
        Square(self.0 ^ 7)
    }

    /// The square as seen from `color`'s side (identity for white).
    #[inline]
    pub const fn relative(self, color: Color) -> Square {
        match color {
            Color::White => self,
            Color::Black => self.flip_rank(),
        }
    }

    /// Offset by a signed number of squares; `None` when off the board.
    #[inline]
    pub fn offset(self, delta: i8) -> Option<Square> {
        let i = self.0 as i8 + delta;
        (0..64).contains(&i).then_some(Square(i as u8))
    }

    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
            return None;
        }
        Some(Square::from_coords(b[0] - b'a', b[1] - b'1'))
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..64).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, (b'1' + self.rank()) as char)
    }
}

/// A set of squares.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);
    pub const FULL: Bitboard = Bitboard(!0);
    pub const FILE_A: Bitboard = Bitboard(0x0101_0101_0101_0101);
    pub const RANK_1: Bitboard = Bitboard(0xFF);
    pub const DARK_SQUARES: Bitboard = Bitboard(0xAA55_AA55_AA55_AA55);

    #[inline]
    pub const fn file(f: u8) -> Bitboard {
        Bitboard(Self::FILE_A.0 << (f & 7))
    }

    #[inline]
    pub const fn rank(r: u8) -> Bitboard {
        Bitboard(Self::RANK_1.0 << (8 * (r & 7)))
    }

    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    #[inline]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 >> sq.0 & 1 != 0
    }

    #[inline]
    pub const fn more_than_one(self) -> bool {
        self.0 & self.0.wrapping_sub(1) != 0
    }

    /// Lowest square; meaningless (a1) on an empty set.
    #[inline]
    pub const fn lsb(self) -> Square {
        Square((self.0.trailing_zeros() & 63) as u8)
    }

    /// Highest square; meaningless (a1) on an empty set.
    #[inline]
    pub const fn msb(self) -> Square {
        Square(((63 ^ self.0.leading_zeros()) & 63) as u8)
    }

    #[inline]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.0)
    }

    #[inline]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.0))
    }

    /// Shift towards rank 8 (white's "up") by one rank.
    #[inline]
    pub const fn north(self) -> Bitboard {
        Bitboard(self.0 << 8)
    }

    #[inline]
    pub const fn south(self) -> Bitboard {
        Bitboard(self.0 >> 8)
    }

    /// Forward one rank from `color`'s point of view.
    #[inline]
    pub const fn forward(self, color: Color) -> Bitboard {
        match color {
            Color::White => self.north(),
            Color::Black => self.south(),
        }
    }

    /// Mirror vertically.
    #[inline]
    pub const fn flip_rank(self) -> Bitboard {
        Bitboard(self.0.swap_bytes())
    }
}

impl Iterator for Bitboard {
    type Item = Square;
    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let sq = self.lsb();
        self.0 &= self.0 - 1;
        Some(sq)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

macro_rules! bb_op {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $atr for Bitboard {
            #[inline]
            fn $af(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
bb_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bb_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bb_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

/// What a move does besides moving a piece (bits 14–15 of the move).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    Normal = 0,
    Promotion = 1,
    EnPassant = 2,
    Castling = 3,
}

/// The engine move: Stockfish's 16-bit encoding. `Move::NONE` (0) is no move.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Move(u16);

impl Move {
    pub const NONE: Move = Move(0);
    /// Stockfish's null move (b1b1): from = to = 1.
    pub const NULL: Move = Move(65);

    #[inline]
    pub const fn normal(from: Square, to: Square) -> Move {
        Move((from.0 as u16) << 6 | to.0 as u16)
    }

    #[inline]
    pub const fn with_kind(from: Square, to: Square, kind: MoveKind) -> Move {
        Move((kind as u16) << 14 | (from.0 as u16) << 6 | to.0 as u16)
    }

    /// Promotion to `pt` (knight, bishop, rook or queen).
    #[inline]
    pub const fn promotion(from: Square, to: Square, pt: PieceType) -> Move {
        let p = (pt as u16).saturating_sub(1) & 3;
        Move(1 << 14 | p << 12 | (from.0 as u16) << 6 | to.0 as u16)
    }

    #[inline]
    pub const fn from_raw(raw: u16) -> Move {
        Move(raw)
    }

    #[inline]
    pub const fn raw(self) -> u16 {
        self.0
    }

    #[inline]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    #[inline]
    pub const fn from(self) -> Square {
        Square((self.0 >> 6 & 63) as u8)
    }

    #[inline]
    pub const fn to(self) -> Square {
        Square((self.0 & 63) as u8)
    }

    #[inline]
    pub const fn kind(self) -> MoveKind {
        match self.0 >> 14 {
            0 => MoveKind::Normal,
            1 => MoveKind::Promotion,
            2 => MoveKind::EnPassant,
            _ => MoveKind::Castling,
        }
    }

    /// The promotion piece, for promotions only.
    #[inline]
    pub const fn promotion_piece(self) -> Option<PieceType> {
        match self.kind() {
            MoveKind::Promotion => Some(PieceType::from_index(((self.0 >> 12) & 3) as usize + 1)),
            _ => None,
        }
    }

    #[inline]
    pub const fn is_castling(self) -> bool {
        self.0 >> 14 == 3
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            return write!(f, "0000");
        }
        write!(f, "{}{}", self.from(), self.to())?;
        if let Some(p) = self.promotion_piece() {
            write!(f, "{}", p.char())?;
        }
        Ok(())
    }
}

/// The scale of the one logistic between centipawns and expected score:
/// 400 cp is odds of e : 1.
pub const LOGISTIC_SCALE: f64 = 400.0;

/// The expected score (win 1, draw ½, loss 0) of a centipawn value,
/// `1 / (1 + e^(−cp/400))`: what self-play stores in its records, what
/// `records import` makes of a PGN's evaluations and what a YACB book's
/// centipawn values are worth in play.
#[inline]
pub fn expected_score(cp: f64) -> f64 {
    // libm's exp, not the platform's: the same bits on every target.
    1.0 / (1.0 + libm::exp(-cp / LOGISTIC_SCALE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_encoding_matches_stockfish_layout() {
        let e2 = Square::parse("e2").unwrap();
        let e4 = Square::parse("e4").unwrap();
        let m = Move::normal(e2, e4);
        assert_eq!(m.raw(), (12 << 6) | 28);
        let p = Move::promotion(Square::parse("a7").unwrap(), Square::parse("a8").unwrap(), PieceType::Queen);
        assert_eq!(p.raw() >> 14, 1);
        assert_eq!((p.raw() >> 12) & 3, 3);
        assert_eq!(p.promotion_piece(), Some(PieceType::Queen));
        let c = Move::with_kind(Square::parse("e1").unwrap(), Square::parse("h1").unwrap(), MoveKind::Castling);
        assert!(c.is_castling());
        assert_eq!(c.raw() >> 14, 3);
    }

    #[test]
    fn bitboard_iterates_in_square_order() {
        let b = Bitboard(0b1010_0001);
        let v: Vec<usize> = b.map(|s| s.index()).collect();
        assert_eq!(v, vec![0, 5, 7]);
    }
}
