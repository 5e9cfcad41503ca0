//! Move notations: UCI, SAN, the Polyglot move field and the seed-001
//! (compressed-board game record) move encoding.
//!
//! * UCI: castling is written `e1g1` in standard chess and king-takes-rook
//!   (`e1h1`) in Chess960; parsing accepts both forms in standard chess.
//! * SAN: written with minimal disambiguation, `x`, `=Q`, `+`/`#`; parsing
//!   accepts `O-O`/`0-0`, optional `x`, `=`, check marks and annotations.
//! * Polyglot: bits 0–2 to-file, 3–5 to-row, 6–8 from-file, 9–11 from-row,
//!   12–14 promotion (N=1 … Q=4); castling is king-takes-rook.
//! * Record ([docs/formats.md#records-move](../../docs/formats.md#records-move)): `flag | to << 4 | from << 10`, castling as the king
//!   moving to the c- or g-file with flag 3 or 2.
//!
//! Every parser's result is legal: SAN is resolved from the destination
//! backwards and checked with [`Board::is_legal`], the others are matched
//! against the legal moves.

use super::{Board, MoveList};
use crate::attacks;
use crate::types::{Bitboard, Color, Move, MoveKind, PieceType, Square};
use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NotationError {
    #[error("'{0}' is not a move in this notation")]
    Syntax(String),
    #[error("'{0}' is not a legal move here")]
    Illegal(String),
    #[error("'{0}' is ambiguous here")]
    Ambiguous(String),
}

/// UCI text for `m`; castling as king-takes-rook when `chess960`.
pub fn uci_string(m: Move, chess960: bool) -> String {
    if m.is_none() {
        return "0000".to_string();
    }
    let from = m.from();
    let mut to = m.to();
    if m.is_castling() && !chess960 {
        let file = if to.file() > from.file() { 6 } else { 2 };
        to = Square::from_coords(file, from.rank());
    }
    let mut s = format!("{from}{to}");
    if let Some(p) = m.promotion_piece() {
        s.push(p.char());
    }
    s
}

/// The king's destination square of a castling move (c- or g-file).
pub fn castling_king_target(m: Move) -> Square {
    let file = if m.to().file() > m.from().file() { 6 } else { 2 };
    Square::from_coords(file, m.from().rank())
}

impl Board {
    pub fn move_to_uci(&self, m: Move) -> String {
        uci_string(m, self.is_chess960())
    }

    /// Parses a UCI move and checks it is legal here.
    pub fn parse_uci(&self, text: &str) -> Result<Move, NotationError> {
        let b = text.as_bytes();
        let syntax = || NotationError::Syntax(text.to_string());
        if !(4..=5).contains(&b.len()) {
            return Err(syntax());
        }
        let from = text.get(0..2).and_then(Square::parse).ok_or_else(syntax)?;
        let to = text.get(2..4).and_then(Square::parse).ok_or_else(syntax)?;
        let promo = match b.get(4) {
            None => None,
            Some(&c) => match PieceType::from_char(c as char) {
                Some(pt) if !matches!(pt, PieceType::Pawn | PieceType::King) && c.is_ascii_lowercase() => Some(pt),
                _ => return Err(syntax()),
            },
        };
        let found = self.legal_moves().iter().find(|&m| {
            if m.from() != from || m.promotion_piece() != promo {
                return false;
            }
            if m.is_castling() {
                m.to() == to || (!self.is_chess960() && castling_king_target(m) == to)
            } else {
                m.to() == to
            }
        });
        found.ok_or_else(|| NotationError::Illegal(text.to_string()))
    }

    /// SAN for a legal move `m` (with `+`/`#`). Temporarily plays the move.
    pub fn move_to_san(&mut self, m: Move) -> String {
        let mut s = self.san_without_suffix(m);
        self.make_move(m);
        if self.in_check() {
            s.push(if self.has_legal_moves() { '+' } else { '#' });
        }
        self.unmake_move();
        s
    }

    fn san_without_suffix(&self, m: Move) -> String {
        if m.is_castling() {
            return if m.to().file() > m.from().file() { "O-O".into() } else { "O-O-O".into() };
        }
        let Some(pc) = self.piece_on(m.from()) else { return uci_string(m, false) };
        let from = m.from();
        let to = m.to();
        let capture = self.piece_on(to).is_some() || m.kind() == MoveKind::EnPassant;
        let mut s = String::with_capacity(8);
        if pc.kind() == PieceType::Pawn {
            if capture {
                s.push((b'a' + from.file()) as char);
            }
        } else {
            s.push(pc.kind().char().to_ascii_uppercase());
            let rivals: Vec<Square> = self
                .legal_moves()
                .iter()
                .filter(|o| o.to() == to && o.from() != from && !o.is_castling() && self.piece_on(o.from()) == Some(pc))
                .map(|o| o.from())
                .collect();
            if !rivals.is_empty() {
                if rivals.iter().all(|r| r.file() != from.file()) {
                    s.push((b'a' + from.file()) as char);
                } else if rivals.iter().all(|r| r.rank() != from.rank()) {
                    s.push((b'1' + from.rank()) as char);
                } else {
                    s.push_str(&from.to_string());
                }
            }
        }
        if capture {
            s.push('x');
        }
        s.push_str(&to.to_string());
        if let Some(p) = m.promotion_piece() {
            s.push('=');
            s.push(p.char().to_ascii_uppercase());
        }
        s
    }

    /// Parses SAN (lenient about `x`, `=`, check marks and `!?` annotations).
    #[inline]
    pub fn parse_san(&self, text: &str) -> Result<Move, NotationError> {
        match self.parse_common_san(text.as_bytes()) {
            Some(m) => Ok(m),
            None => self.parse_any_san(text),
        }
    }

    /// The commonest shapes of SAN, read and resolved in one go: a pawn
    /// push (`e4`), a piece move (`Nf3`, `Nxf3`) and a pawn capture
    /// (`exd5`), each maybe with `+` or `#`. Gives the move that
    /// [`Board::parse_any_san`] gives when exactly one piece can make it
    /// and it is legal; `None` for anything else (castling, promotion,
    /// disambiguation, en passant, errors), which that general path then
    /// takes. PGN replay spends its time here: this path makes no
    /// [`San`], no iterator and no search over candidates.
    #[inline]
    pub(super) fn parse_common_san(&self, text: &[u8]) -> Option<Move> {
        let body = match text {
            [body @ .., b'+' | b'#'] => body,
            _ => text,
        };
        let (lead, to) = match *body {
            [ref lead @ .., f @ b'a'..=b'h', r @ b'1'..=b'8'] => (lead, Square::from_coords(f - b'a', r - b'1')),
            _ => return None,
        };
        let us = self.side;
        let (ours, theirs) = (self.by_color[us.index()], self.by_color[(!us).index()]);
        if ours.contains(to) {
            return None;
        }
        let occ = ours | theirs;
        let pawns = ours & self.by_type[PieceType::Pawn.index()];
        let last_rank = Bitboard::rank(us.relative_rank(7)).contains(to);
        let (piece, from) = match *lead {
            // A push lands on an empty square short of the last rank.
            [] if !last_rank && !theirs.contains(to) => (PieceType::Pawn, push_origins(us, to, occ) & pawns),
            [p @ (b'N' | b'B' | b'R' | b'Q' | b'K')] | [p @ (b'N' | b'B' | b'R' | b'Q' | b'K'), b'x'] => {
                let piece = PieceType::from_char(p as char)?;
                (piece, self.reaching(piece, to, ours & self.by_type[piece.index()], occ))
            }
            // A capture (en passant aside) short of the last rank.
            [f @ b'a'..=b'h', b'x'] if !last_rank && theirs.contains(to) => {
                (PieceType::Pawn, attacks::pawn(!us, to) & pawns & Bitboard::file(f - b'a'))
            }
            _ => return None,
        };
        if from.is_empty() || from.more_than_one() {
            return None;
        }
        let m = Move::normal(from.lsb(), to);
        self.candidate_is_legal(m, piece, &mut None).then_some(m)
    }

    /// [`Board::parse_san`] for any text.
    pub(super) fn parse_any_san(&self, text: &str) -> Result<Move, NotationError> {
        let (piece, to, promo, from_file, from_rank) = match San::parse(text)? {
            San::Castle { king_side } => {
                // Only the castling moves: no castling out of check.
                let mut list = MoveList::new();
                if !self.in_check() {
                    self.castling(&mut list);
                }
                return list
                    .iter()
                    .find(|m| (m.to().file() > m.from().file()) == king_side)
                    .ok_or_else(|| NotationError::Illegal(text.to_string()));
            }
            San::Move { piece, to, promo, from_file, from_rank } => (piece, to, promo, from_file, from_rank),
        };
        let mut found = None;
        // Pins are looked up once per position, and only when a candidate
        // needs them.
        let mut pinned = None;
        for m in self.san_candidates(piece, to, promo) {
            if from_file.is_some_and(|f| f != m.from().file()) || from_rank.is_some_and(|r| r != m.from().rank()) {
                continue;
            }
            if !self.candidate_is_legal(m, piece, &mut pinned) {
                continue;
            }
            if found.is_some() {
                return Err(NotationError::Ambiguous(text.to_string()));
            }
            found = Some(m);
        }
        found.ok_or_else(|| NotationError::Illegal(text.to_string()))
    }

    /// [`Board::is_legal`] for a move of [`Board::san_candidates`] by a
    /// `piece`: such a move reaches its square by construction, so only
    /// the king's safety is left to check (en passant, rare, goes through
    /// `is_legal`). `pinned` caches [`Board::pinned`] for the side to move,
    /// looked up only for a piece on a line with its king.
    #[inline(always)]
    fn candidate_is_legal(&self, m: Move, piece: PieceType, pinned: &mut Option<Bitboard>) -> bool {
        let us = self.side_to_move();
        let (from, to) = (m.from(), m.to());
        if m.kind() == MoveKind::EnPassant {
            return self.is_legal(m);
        }
        if piece == PieceType::King {
            return self.attackers_by_lines(to, !us, self.occupied().without(from)).is_empty();
        }
        let checkers = self.checkers();
        if checkers.more_than_one() {
            return false;
        }
        let ksq = self.king_square(us);
        if checkers.any() && !attacks::between(ksq, checkers.lsb()).contains(to) {
            return false;
        }
        // Only a piece aligned with its king can be pinned: the others
        // need no pin lookup (nor the large line table).
        let aligned = (attacks::rook_lines(ksq) | attacks::bishop_lines(ksq)).contains(from);
        !aligned
            || !pinned.get_or_insert_with(|| self.pinned(us)).contains(from)
            || attacks::line(ksq, from).contains(to)
    }

    /// The moves of a `piece` of the side to move that could land on `to`
    /// (promoting to `promo`) if pins and checks allowed them: castling
    /// aside, a superset of the legal ones, found from `to` backwards
    /// without generating every move (PGN replay spends its time here).
    fn san_candidates(&self, piece: PieceType, to: Square, promo: Option<PieceType>) -> impl Iterator<Item = Move> {
        let us = self.side_to_move();
        let ours = self.pieces_of(us, piece);
        let occ = self.occupied();
        let mut normal = Bitboard::EMPTY;
        let mut en_passant = Bitboard::EMPTY;
        let legal_promo =
            matches!(promo, None | Some(PieceType::Knight | PieceType::Bishop | PieceType::Rook | PieceType::Queen));
        if self.color_bb(us).contains(to) || !legal_promo {
            // Nothing lands on its own piece; no move promotes to that.
        } else if piece != PieceType::Pawn {
            if promo.is_none() {
                normal = self.reaching(piece, to, ours, occ);
            }
        } else if promo.is_some() == Bitboard::rank(us.relative_rank(7)).contains(to) {
            if self.color_bb(!us).contains(to) {
                normal = attacks::pawn(!us, to) & ours;
            } else {
                normal = push_origins(us, to, occ) & ours;
                if self.ep_square() == Some(to) {
                    en_passant = attacks::pawn(!us, to) & ours;
                }
            }
        }
        let ep_moves = en_passant.map(move |from| Move::with_kind(from, to, MoveKind::EnPassant));
        normal
            .map(move |from| match promo {
                Some(pt) => Move::promotion(from, to, pt),
                None => Move::normal(from, to),
            })
            .chain(ep_moves)
    }

    /// The pieces of `from` (all of one non-pawn type) that reach `to`
    /// over `occ`. A slider reaches it when it stands on one of the type's
    /// lines through `to` with nothing between: few pieces, each looked up
    /// in the small line tables rather than the large slider table (which
    /// a replay of games mostly misses).
    #[inline(always)]
    fn reaching(&self, piece: PieceType, to: Square, from: Bitboard, occ: Bitboard) -> Bitboard {
        let lines = match piece {
            PieceType::Knight => return attacks::knight(to) & from,
            PieceType::King => return attacks::king(to) & from,
            PieceType::Pawn => return Bitboard::EMPTY,
            PieceType::Bishop => attacks::bishop_lines(to),
            PieceType::Rook => attacks::rook_lines(to),
            PieceType::Queen => attacks::rook_lines(to) | attacks::bishop_lines(to),
        };
        attacks::unblocked(to, lines & from, occ)
    }

    /// The legal move for a Polyglot move field, if any.
    pub fn from_polyglot_move(&self, raw: u16) -> Option<Move> {
        let to = Square::from_coords((raw & 7) as u8, (raw >> 3 & 7) as u8);
        let from = Square::from_coords((raw >> 6 & 7) as u8, (raw >> 9 & 7) as u8);
        let promo = match raw >> 12 & 7 {
            0 => None,
            1 => Some(PieceType::Knight),
            2 => Some(PieceType::Bishop),
            3 => Some(PieceType::Rook),
            4 => Some(PieceType::Queen),
            _ => return None,
        };
        self.legal_moves().iter().find(|m| m.from() == from && m.to() == to && m.promotion_piece() == promo)
    }

    /// The seed-001 record encoding of a legal move `m`.
    pub fn to_record_move(&self, m: Move) -> u16 {
        let from = m.from();
        let (to, flag) = match m.kind() {
            MoveKind::Castling => {
                let king_side = m.to().file() > from.file();
                (castling_king_target(m), if king_side { 2 } else { 3 })
            }
            MoveKind::EnPassant => (m.to(), 5),
            MoveKind::Promotion => {
                let p = m.promotion_piece().map_or(3, |p| p.index() as u16 - 1);
                let cap = if self.piece_on(m.to()).is_some() { 4 } else { 0 };
                (m.to(), 8 + cap + p)
            }
            MoveKind::Normal => {
                let double = self.piece_on(from).is_some_and(|p| p.kind() == PieceType::Pawn)
                    && from.index().abs_diff(m.to().index()) == 16;
                let flag = if self.piece_on(m.to()).is_some() {
                    4
                } else if double {
                    1
                } else {
                    0
                };
                (m.to(), flag)
            }
        };
        flag | (to.index() as u16) << 4 | (from.index() as u16) << 10
    }

    /// The legal move for a seed-001 record move, if any (the flag must match).
    pub fn from_record_move(&self, raw: u16) -> Option<Move> {
        self.legal_moves().iter().find(|&m| self.to_record_move(m) == raw)
    }
}

/// The squares from which a pawn of `us` pushes to `to` over `occ`: the
/// one behind it, and the one two behind when that is on the pawns'
/// start rank and the square between is empty (whose pawns stand there
/// is the caller's to check).
#[inline]
fn push_origins(us: Color, to: Square, occ: Bitboard) -> Bitboard {
    let one = to.bb().forward(!us);
    let two = (one & !occ).forward(!us) & Bitboard::rank(us.relative_rank(1));
    one | two
}

/// The Polyglot move field of an engine move (castling stays king-takes-rook).
pub fn to_polyglot_move(m: Move) -> u16 {
    let (from, to) = (m.from(), m.to());
    let promo = m.promotion_piece().map_or(0, |p| p.index() as u16);
    (to.file() as u16) | (to.rank() as u16) << 3 | (from.file() as u16) << 6 | (from.rank() as u16) << 9 | promo << 12
}

/// What a SAN text says, before it is matched against a position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum San {
    Castle { king_side: bool },
    Move { piece: PieceType, to: Square, promo: Option<PieceType>, from_file: Option<u8>, from_rank: Option<u8> },
}

impl San {
    /// The two commonest shapes, a pawn push (`e4`) and a piece move
    /// (`Nf3`), read at once; what [`San::parse`] makes of them, or `None`
    /// for any other text.
    #[inline]
    pub(crate) fn plain(bytes: &[u8]) -> Option<San> {
        let square = |f: u8, r: u8| {
            (matches!(f, b'a'..=b'h') && matches!(r, b'1'..=b'8')).then(|| Square::from_coords(f - b'a', r - b'1'))
        };
        let (piece, to) = match *bytes {
            [f, r] => (PieceType::Pawn, square(f, r)?),
            [p @ (b'N' | b'B' | b'R' | b'Q' | b'K'), f, r] => (PieceType::from_char(p as char)?, square(f, r)?),
            _ => return None,
        };
        Some(San::Move { piece, to, promo: None, from_file: None, from_rank: None })
    }

    /// Reads the text: check marks and `!?` dropped, `x`, `:` and `-`
    /// ignored, the promotion with or without `=`.
    pub(crate) fn parse(text: &str) -> Result<San, NotationError> {
        // Bytes throughout: everything matched is ASCII (PGN replay parses
        // every move of every game here).
        match San::plain(text.as_bytes()) {
            Some(san) => Ok(san),
            None => San::parse_general(text),
        }
    }

    /// [`San::parse`] without the shortcut of [`San::plain`]: any text.
    pub(crate) fn parse_general(text: &str) -> Result<San, NotationError> {
        let syntax = || NotationError::Syntax(text.to_string());
        let bytes = text.as_bytes();
        let marks = bytes.iter().rev().take_while(|&&c| matches!(c, b'+' | b'#' | b'!' | b'?')).count();
        let core = &bytes[..bytes.len() - marks];
        if core.is_empty() || !core.is_ascii() {
            return Err(syntax());
        }
        if matches!(core, b"O-O" | b"0-0" | b"O-O-O" | b"0-0-0") {
            return Ok(San::Castle { king_side: core.len() == 3 });
        }
        let mut body = core;
        let mut promo = None;
        if let Some(eq) = body.iter().position(|&c| c == b'=') {
            let pt = body.get(eq + 1).and_then(|&c| PieceType::from_char(c as char)).ok_or_else(syntax)?;
            promo = Some(pt);
            body = &body[..eq];
        } else if let [.., digit, last] = body {
            if body.len() >= 3 && digit.is_ascii_digit() && b"NBRQ".contains(last) {
                promo = PieceType::from_char(*last as char);
                body = &body[..body.len() - 1];
            }
        }
        let first = *body.first().ok_or_else(syntax)?;
        let piece = if b"NBRQK".contains(&first) {
            body = &body[1..];
            PieceType::from_char(first as char).ok_or_else(syntax)?
        } else {
            PieceType::Pawn
        };
        // The squares' characters, separators dropped: at most 4.
        let mut rest = [0u8; 4];
        let mut n = 0;
        for &c in body.iter().filter(|&&c| !matches!(c, b'x' | b':' | b'-')) {
            *rest.get_mut(n).ok_or_else(syntax)? = c;
            n += 1;
        }
        if n < 2 {
            return Err(syntax());
        }
        let to = match rest[n - 2..n] {
            [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Square::from_coords(f - b'a', r - b'1'),
            _ => return Err(syntax()),
        };
        let (mut from_file, mut from_rank) = (None, None);
        for &c in &rest[..n - 2] {
            match c {
                b'a'..=b'h' => from_file = Some(c - b'a'),
                b'1'..=b'8' => from_rank = Some(c - b'1'),
                _ => return Err(syntax()),
            }
        }
        Ok(San::Move { piece, to, promo, from_file, from_rank })
    }
}
