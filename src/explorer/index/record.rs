//! The records of an explorer index: a game ([`encode_game`],
//! [`decode_game`]), a position's entry ([`encode_position`],
//! [`decode_position`]) and the bit fields of moves and singles.
//!
//! A position entry:
//!
//! A varint form: 0 counted, 1 listed. A listed entry ([`PositionEntry::Listed`]):
//! the moves (varint count, then each as u16, the board's encoding,
//! increasing), then the games (varint count, 2 to [`super::LISTED`]), each
//! the rise of its number from the one before (varint; the first as it
//! is) and the index of its move (varint). A counted entry:
//!
//! | field | encoding |
//! |---|---|
//! | moves | as a listed entry's; then per move its cells (varint count), each: the cell (varint: the first as it is, then the rise from the one before, [`Cell`]), its games `n` (varint), then for `n` = 1 a byte (result in bits 0–1 as the game flags; bit 2: rated) and, when rated, the mover's rating (varint), and the game (varint); for `n` > 1 white wins, draws, the rating sum and the rated moves (varints; black wins are the rest) |
//! | game cells | varint count, then per cell (increasing, as above): its top games (varint count, each the game, the index of its move in the position's moves and its rank (a masters index: `WhiteElo + BlackElo` in the top 16 bits, the id's value below), varints), its recent games (varint count, each a varint `r`: `r` ≥ 1 is top game `r` again, 0 is followed by a game and a move index, varints) |

use super::LICHESS_SITE;
use super::{Cell, CellGames, ExplorerError, GameRecord, GameRef, MoveCell, MoveStats, PositionEntry, Stats};
use crate::attacks;
use crate::board::Board;
use crate::codec::{Put, Reader};
use crate::explorer::model::{GameDate, GameId, Outcome, Speed};
use crate::types::{Bitboard, Color, Move, PieceType, Square};

/// Bits that hold every value below `n` (0 for `n` ≤ 1).
pub fn bits_for(n: u64) -> u32 {
    if n <= 1 {
        0
    } else {
        64 - (n - 1).leading_zeros()
    }
}

/// Appends bit fields to bytes, low bits first: whole words go out as they
/// fill, the bits after the last one wait in a 128-bit accumulator, so a
/// field (up to 64 bits) goes in with one shift and one or.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitWriter {
    /// The whole words so far (little-endian).
    whole: Vec<u8>,
    acc: u128,
    /// Bits waiting in `acc`: fewer than 64.
    pending: u32,
}

impl BitWriter {
    /// Empties it (its room kept).
    pub fn clear(&mut self) {
        self.whole.clear();
        (self.acc, self.pending) = (0, 0);
    }

    /// Appends the low `width` bits of `value` (at most 64; the bits above
    /// `width` are left out).
    #[inline]
    pub fn put(&mut self, value: u64, width: u32) {
        let width = width.min(64);
        let value = if width == 64 { value } else { value & ((1u64 << width) - 1) };
        self.acc |= u128::from(value) << self.pending;
        self.pending += width;
        if self.pending >= 64 {
            self.whole.extend_from_slice(&(self.acc as u64).to_le_bytes());
            self.acc >>= 64;
            self.pending -= 64;
        }
    }

    /// Bits written.
    pub fn bits(&self) -> u64 {
        8 * self.whole.len() as u64 + u64::from(self.pending)
    }

    /// The whole words written since the last [`BitWriter::clear_whole`].
    pub fn whole(&self) -> &[u8] {
        &self.whole
    }

    /// Forgets the whole words (written out by the caller); the bits after
    /// them stay.
    pub fn clear_whole(&mut self) {
        self.whole.clear();
    }

    /// Appends what is left to `out`: the whole words, then the bytes the
    /// waiting bits take (the last one's high bits 0).
    pub fn append_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.whole);
        out.extend_from_slice(&self.acc.to_le_bytes()[..self.pending.div_ceil(8) as usize]);
    }
}

/// Reads the bit field of `width` bits (at most 64) at bit `at` of `bytes`
/// (`None` past the end).
pub fn bits_at(bytes: &[u8], at: u64, width: u32) -> Option<u64> {
    let width = width.min(64);
    if width == 0 {
        return Some(0);
    }
    let end = at.checked_add(u64::from(width))?;
    if end.div_ceil(8) > bytes.len() as u64 {
        return None;
    }
    let (mut v, mut got, mut bit) = (0u64, 0u32, at);
    while got < width {
        let byte = u64::from(bytes[(bit / 8) as usize] >> (bit % 8));
        let take = (8 - (bit % 8) as u32).min(width - got);
        v |= (byte & ((1u64 << take) - 1)) << got;
        got += take;
        bit += u64::from(take);
    }
    Some(v)
}

/// A game's moves, packed ([`PackedMoves::push`]): per ply the moving
/// piece's square as its rank among the mover's pieces (⌈log₂ n⌉ bits, `n`
/// the mover's pieces), the destination as its rank among that piece's
/// [`targets`] (⌈log₂ t⌉ bits), and for a pawn reaching the last rank the
/// promotion (2 bits: knight, bishop, rook, queen). Castling is the king
/// taking its rook (the board's encoding).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PackedMoves {
    pub plies: u64,
    bits: BitWriter,
}

/// The squares a piece may reach as far as the packing goes (its legal
/// destinations and more): a pawn's pushes and captures (the en-passant
/// square too), a king's steps and its side's castling rooks, others'
/// attacks on squares not of their side.
pub fn targets(b: &Board, from: Square) -> Bitboard {
    let us = b.side_to_move();
    let (own, occ) = (b.color_bb(us), b.occupied());
    let Some(piece) = b.piece_on(from) else { return Bitboard::EMPTY };
    match piece.kind() {
        PieceType::Pawn => {
            let single = Bitboard(from.bb().forward(us).0 & !occ.0);
            let start = Bitboard::rank(us.relative_rank(1));
            let double = if start.contains(from) { Bitboard(single.forward(us).0 & !occ.0) } else { Bitboard::EMPTY };
            let ep = b.ep_square().map_or(0, |e| e.bb().0);
            let captures = attacks::pawn(us, from).0 & (b.color_bb(!us).0 | ep);
            Bitboard(single.0 | double.0 | captures)
        }
        PieceType::King => {
            let mut t = attacks::king(from).0 & !own.0;
            let rights = b.castling_rights();
            let first = if us == Color::White { 0 } else { 2 };
            for i in first..first + 2 {
                if rights >> i & 1 != 0 {
                    t |= b.castling_rook(i).bb().0;
                }
            }
            Bitboard(t)
        }
        // By lines: replaying games, the slider table is out of the cache.
        pt => Bitboard(attacks::piece_by_lines(pt, from, occ).0 & !own.0),
    }
}

/// The rank of `sq` among the squares of `set` (those below it).
fn rank_in(set: Bitboard, sq: Square) -> u64 {
    u64::from((set.0 & ((1u64 << sq.index()) - 1)).count_ones())
}

/// The `n`-th square of `set` (from a1 up).
fn nth(set: Bitboard, n: u64) -> Option<Square> {
    set.into_iter().nth(usize::try_from(n).ok()?)
}

fn promotion_code(pt: Option<PieceType>) -> u64 {
    match pt {
        Some(PieceType::Bishop) => 1,
        Some(PieceType::Rook) => 2,
        Some(PieceType::Queen) => 3,
        _ => 0,
    }
}

fn is_promotion_square(b: &Board, from: Square, to: Square) -> bool {
    b.piece_on(from).is_some_and(|p| p.kind() == PieceType::Pawn) && to.rank() == b.side_to_move().relative_rank(7)
}

impl PackedMoves {
    /// Empties it (its room kept).
    pub fn clear(&mut self) {
        self.plies = 0;
        self.bits.clear();
    }

    /// Appends `m`, a legal move of `b`.
    #[inline]
    pub fn push(&mut self, b: &Board, m: Move) {
        let (from, to) = (m.from(), m.to());
        let own = b.color_bb(b.side_to_move());
        // The ply's fields in one put: at most 4 bits (16 pieces), 5 (27
        // targets) and 2.
        let mut field = rank_in(own, from);
        let mut width = bits_for(u64::from(own.count()));
        let t = targets(b, from);
        field |= rank_in(t, to) << width;
        width += bits_for(u64::from(t.count()));
        if is_promotion_square(b, from, to) {
            field |= promotion_code(m.promotion_piece()) << width;
            width += 2;
        }
        debug_assert!(field < 1 << width, "{m:?} is not a move of the board");
        self.bits.put(field, width);
        self.plies += 1;
    }

    /// The moves of `g`, packed (they replay: [`GameRecord::replay`]);
    /// `None` when one is not legal.
    pub fn of(g: &GameRecord) -> Option<PackedMoves> {
        let mut packed = PackedMoves::default();
        g.replay(usize::MAX, |b, m| packed.push(b, m)).ok()?;
        Some(packed)
    }

    /// Appends the packed moves to `out` (the last byte's high bits 0).
    pub fn append_to(&self, out: &mut Vec<u8>) {
        self.bits.append_to(out);
    }
}

/// A game record's bytes (without its length), its strings numbered by
/// `string` (White, Black, event, site, round, time control, in turn).
pub fn encode_game(g: &GameRecord, moves: &PackedMoves, mut string: impl FnMut(&str) -> u64, out: &mut Vec<u8>) {
    out.put(g.id.as_bytes());
    out.put_varint(string(&g.white));
    out.put_varint(string(&g.black));
    out.put_u16_le(g.white_rating);
    out.put_u16_le(g.black_rating);
    let lichess_site = is_lichess_site(g);
    out.put_u8(g.outcome as u8 | (g.speed as u8) << 2 | u8::from(lichess_site) << 5);
    out.put_u16_le(g.date.year);
    out.put_u8(g.date.month);
    out.put_u8(g.date.day);
    out.put_varint(string(&g.event));
    out.put_varint(if lichess_site { string("") } else { string(&g.site) });
    out.put_varint(string(&g.round));
    out.put_varint(string(&g.time_control));
    out.put_varint(moves.plies);
    moves.append_to(out);
}

/// Whether the site is Lichess's page of the game (stored as a flag).
pub(super) fn is_lichess_site(g: &GameRecord) -> bool {
    g.site.strip_prefix(LICHESS_SITE).is_some_and(|rest| rest.as_bytes() == g.id.as_bytes())
}

/// A game record of `bytes` (the record after its length, at `base`),
/// its moves replayed to unpack them when `moves` is set.
pub fn decode_game(bytes: &[u8], base: usize, strings: &[String], moves: bool) -> Result<GameRecord, ExplorerError> {
    let mut r = Reader::new(bytes);
    let short = |r: &Reader| ExplorerError::corrupt(base + r.offset(), "game record cut short");
    let string = |r: &mut Reader| -> Result<String, ExplorerError> {
        let at = base + r.offset();
        let i = r.varint().map_err(|_| short(r))?;
        strings.get(i as usize).cloned().ok_or(ExplorerError::corrupt(at, "string number out of range"))
    };
    let id = GameId::new(r.array().map_err(|_| short(&r))?)
        .map_err(|_| ExplorerError::corrupt(base, "game id not 8 letters and digits"))?;
    let white = string(&mut r)?;
    let black = string(&mut r)?;
    let white_rating = r.u16_le().map_err(|_| short(&r))?;
    let black_rating = r.u16_le().map_err(|_| short(&r))?;
    let at = base + r.offset();
    let flags = r.u8().map_err(|_| short(&r))?;
    let outcome = Outcome::from_u8(flags & 3).ok_or(ExplorerError::corrupt(at, "bad result"))?;
    let speed = Speed::from_u8(flags >> 2 & 7).ok_or(ExplorerError::corrupt(at, "bad speed"))?;
    if flags >> 6 != 0 {
        return Err(ExplorerError::corrupt(at, "unknown game flags"));
    }
    let year = r.u16_le().map_err(|_| short(&r))?;
    let month = r.u8().map_err(|_| short(&r))?;
    let day = r.u8().map_err(|_| short(&r))?;
    if month > 12 || day > 31 {
        return Err(ExplorerError::corrupt(base + r.offset(), "bad date"));
    }
    let event = string(&mut r)?;
    let mut site = string(&mut r)?;
    if flags & 32 != 0 {
        site = format!("{LICHESS_SITE}{id}");
    }
    let round = string(&mut r)?;
    let time_control = string(&mut r)?;
    let at = base + r.offset();
    let plies = r.varint().map_err(|_| short(&r))?;
    if plies > 20_000 {
        return Err(ExplorerError::corrupt(at, "more plies than any game has"));
    }
    let packed = r.rest();
    let mut g = GameRecord {
        id,
        white,
        black,
        white_rating,
        black_rating,
        outcome,
        speed,
        date: GameDate { year, month, day },
        event,
        site,
        round,
        time_control,
        moves: Vec::new(),
    };
    if moves {
        let at = base + r.offset();
        g.moves = unpack(packed, plies).ok_or(ExplorerError::corrupt(at, "a game's moves do not replay"))?;
    }
    Ok(g)
}

/// The moves of `plies` plies packed in `bytes`, replayed from the start
/// position; `None` when a field names no legal move or the bits do not
/// fill the bytes.
fn unpack(bytes: &[u8], plies: u64) -> Option<Vec<Move>> {
    let mut b = Board::startpos();
    let mut at = 0u64;
    let mut out = Vec::with_capacity(plies as usize);
    let field = |width: u32, at: &mut u64| {
        let v = bits_at(bytes, *at, width);
        *at += u64::from(width);
        v
    };
    for _ in 0..plies {
        let own = b.color_bb(b.side_to_move());
        let from = nth(own, field(bits_for(u64::from(own.count())), &mut at)?)?;
        let t = targets(&b, from);
        let to = nth(t, field(bits_for(u64::from(t.count())), &mut at)?)?;
        let promotion = if is_promotion_square(&b, from, to) {
            Some([PieceType::Knight, PieceType::Bishop, PieceType::Rook, PieceType::Queen][field(2, &mut at)? as usize])
        } else {
            None
        };
        let m =
            b.legal_moves().iter().find(|m| m.from() == from && m.to() == to && m.promotion_piece() == promotion)?;
        out.push(m);
        b.make_move(m);
    }
    (at.div_ceil(8) == bytes.len() as u64).then_some(out)
}

/// A position entry's bytes (moves, cells and games increasing).
pub fn encode_position(p: &PositionEntry, out: &mut Vec<u8>) {
    match p {
        PositionEntry::Listed { moves, games } => {
            out.put_varint(1);
            out.put_varint(moves.len() as u64);
            for m in moves {
                out.put_u16_le(m.raw());
            }
            out.put_varint(games.len() as u64);
            let mut prev = None;
            for g in games {
                out.put_varint(prev.map_or(u64::from(g.game), |p: u32| u64::from(g.game - p)));
                prev = Some(g.game);
                out.put_varint(u64::from(g.mv));
            }
        }
        PositionEntry::Counted { moves, games } => {
            out.put_varint(0);
            encode_counted(moves, games, out);
        }
    }
}

fn encode_counted(moves: &[MoveStats], games: &[CellGames], out: &mut Vec<u8>) {
    out.put_varint(moves.len() as u64);
    for m in moves {
        out.put_u16_le(m.mv.raw());
    }
    for m in moves {
        put_cells(out, m.cells.iter().map(|c| (c.cell, c)), |out, c| {
            let s = &c.stats;
            out.put_varint(s.games());
            if s.games() == 1 {
                let result = if s.white == 1 {
                    Outcome::White
                } else if s.black == 1 {
                    Outcome::Black
                } else {
                    Outcome::Draw
                };
                out.put_u8(result as u8 | u8::from(s.rated == 1) << 2);
                if s.rated == 1 {
                    out.put_varint(s.rating_sum);
                }
                out.put_varint(u64::from(c.game.unwrap_or(0)));
            } else {
                for f in [s.white, s.draws, s.rating_sum, s.rated] {
                    out.put_varint(f);
                }
            }
        });
    }
    put_cells(out, games.iter().map(|g| (g.cell, g)), |out, g| {
        out.put_varint(g.top.len() as u64);
        for r in &g.top {
            out.put_varint(u64::from(r.game));
            out.put_varint(u64::from(r.mv));
            out.put_varint(r.rank);
        }
        out.put_varint(g.recent.len() as u64);
        for r in &g.recent {
            match g.top.iter().position(|t| (t.game, t.mv) == (r.game, r.mv)) {
                Some(i) => out.put_varint(i as u64 + 1),
                None => {
                    out.put_varint(0);
                    out.put_varint(u64::from(r.game));
                    out.put_varint(u64::from(r.mv));
                }
            }
        }
    });
}

fn put_cells<T>(
    out: &mut Vec<u8>,
    cells: impl ExactSizeIterator<Item = (Cell, T)>,
    mut item: impl FnMut(&mut Vec<u8>, T),
) {
    out.put_varint(cells.len() as u64);
    let mut prev = None;
    for (c, t) in cells {
        out.put_varint(match prev {
            None => u64::from(c.0),
            Some(p) => u64::from(c.0 - p),
        });
        prev = Some(c.0);
        item(out, t);
    }
}

/// A position entry of `bytes` (at `base`), in an index of `games` games.
pub fn decode_position(bytes: &[u8], base: usize, games: u64) -> Result<PositionEntry, ExplorerError> {
    let mut r = Reader::new(bytes);
    let short = |r: &Reader| ExplorerError::corrupt(base + r.offset(), "position entry cut short");
    let at = base + r.offset();
    let entry = match r.varint().map_err(|_| short(&r))? {
        0 => decode_counted(&mut r, base, games)?,
        1 => decode_listed(&mut r, base, games)?,
        _ => return Err(ExplorerError::corrupt(at, "unknown position entry form")),
    };
    if !r.is_empty() {
        return Err(ExplorerError::corrupt(base + r.offset(), "bytes after a position entry"));
    }
    Ok(entry)
}

/// The moves of an entry: a count, then each (u16, increasing).
fn read_moves(r: &mut Reader, base: usize) -> Result<Vec<Move>, ExplorerError> {
    let short = |r: &Reader| ExplorerError::corrupt(base + r.offset(), "position entry cut short");
    let n = r.varint().map_err(|_| short(r))?;
    if n == 0 || n > 256 {
        return Err(ExplorerError::corrupt(base + r.offset(), "a position with no moves or more than any has"));
    }
    let mut moves = Vec::with_capacity(n as usize);
    let mut prev = None;
    for _ in 0..n {
        let at = base + r.offset();
        let raw = r.u16_le().map_err(|_| short(r))?;
        if prev.is_some_and(|p| raw <= p) {
            return Err(ExplorerError::corrupt(at, "moves not increasing"));
        }
        prev = Some(raw);
        moves.push(Move::from_raw(raw));
    }
    Ok(moves)
}

fn decode_listed(r: &mut Reader, base: usize, games: u64) -> Result<PositionEntry, ExplorerError> {
    let short = |r: &Reader| ExplorerError::corrupt(base + r.offset(), "position entry cut short");
    let moves = read_moves(r, base)?;
    let n = r.varint().map_err(|_| short(r))?;
    if !(2..=super::LISTED as u64).contains(&n) {
        return Err(ExplorerError::corrupt(base + r.offset(), "a listed position's game count out of range"));
    }
    let mut list = Vec::with_capacity(n as usize);
    let mut prev: Option<u64> = None;
    for _ in 0..n {
        let at = base + r.offset();
        let delta = r.varint().map_err(|_| short(r))?;
        let game = match prev {
            None => delta,
            Some(p) if delta > 0 => p.saturating_add(delta),
            Some(_) => return Err(ExplorerError::corrupt(at, "games not increasing")),
        };
        let mv = r.varint().map_err(|_| short(r))?;
        if game >= games || mv >= moves.len() as u64 {
            return Err(ExplorerError::corrupt(at, "game or move reference out of range"));
        }
        prev = Some(game);
        list.push(GameRef { game: game as u32, mv: mv as u32, rank: 0 });
    }
    Ok(PositionEntry::Listed { moves, games: list })
}

fn decode_counted(r: &mut Reader, base: usize, games: u64) -> Result<PositionEntry, ExplorerError> {
    let short = |r: &Reader| ExplorerError::corrupt(base + r.offset(), "position entry cut short");
    let game_number = |r: &mut Reader| -> Result<u32, ExplorerError> {
        let at = base + r.offset();
        let g = r.varint().map_err(|_| short(r))?;
        if g >= games {
            return Err(ExplorerError::corrupt(at, "game reference out of range"));
        }
        Ok(g as u32)
    };
    let raw_moves = read_moves(r, base)?;
    let mut moves = Vec::with_capacity(raw_moves.len());
    for mv in raw_moves {
        let cells = read_cells(r, base, |r| {
            let at = base + r.offset();
            let n = r.varint().map_err(|_| short(r))?;
            let mut s = Stats::default();
            let mut game = None;
            match n {
                0 => return Err(ExplorerError::corrupt(at, "a cell of no games")),
                1 => {
                    let at = base + r.offset();
                    let flags = r.u8().map_err(|_| short(r))?;
                    match Outcome::from_u8(flags & 3) {
                        Some(Outcome::White) => s.white = 1,
                        Some(Outcome::Black) => s.black = 1,
                        Some(Outcome::Draw) => s.draws = 1,
                        None => return Err(ExplorerError::corrupt(at, "bad result")),
                    }
                    if flags >> 3 != 0 {
                        return Err(ExplorerError::corrupt(at, "unknown cell flags"));
                    }
                    if flags & 4 != 0 {
                        s.rating_sum = r.varint().map_err(|_| short(r))?;
                        s.rated = 1;
                    }
                    game = Some(game_number(r)?);
                }
                _ => {
                    for f in [&mut s.white, &mut s.draws, &mut s.rating_sum, &mut s.rated] {
                        *f = r.varint().map_err(|_| short(r))?;
                    }
                    let played = s.white.checked_add(s.draws).filter(|&p| p <= n);
                    let Some(played) = played else {
                        return Err(ExplorerError::corrupt(at, "more wins and draws than games"));
                    };
                    s.black = n - played;
                    if s.rated > n {
                        return Err(ExplorerError::corrupt(at, "more rated moves than games"));
                    }
                }
            }
            Ok(MoveCell { cell: Cell(0), stats: s, game })
        })?;
        let cells = cells.into_iter().map(|(cell, c)| MoveCell { cell, ..c }).collect();
        moves.push(MoveStats { mv, cells });
    }
    let moves_len = moves.len() as u64;
    let games_cells = read_cells(r, base, |r| {
        let move_index = |r: &mut Reader| -> Result<u32, ExplorerError> {
            let at = base + r.offset();
            let mv = r.varint().map_err(|_| short(r))?;
            if mv >= moves_len {
                return Err(ExplorerError::corrupt(at, "move reference out of range"));
            }
            Ok(mv as u32)
        };
        let n = r.varint().map_err(|_| short(r))?;
        let mut top = Vec::with_capacity(n.min(255) as usize);
        for _ in 0..n {
            let (game, mv) = (game_number(r)?, move_index(r)?);
            let rank = r.varint().map_err(|_| short(r))?;
            top.push(GameRef { game, mv, rank });
        }
        let n = r.varint().map_err(|_| short(r))?;
        let mut recent = Vec::with_capacity(n.min(255) as usize);
        for _ in 0..n {
            let at = base + r.offset();
            let again = r.varint().map_err(|_| short(r))?;
            let g = match again {
                0 => GameRef { game: game_number(r)?, mv: move_index(r)?, rank: 0 },
                i => {
                    let t =
                        top.get(i as usize - 1).ok_or(ExplorerError::corrupt(at, "top game reference out of range"))?;
                    GameRef { rank: 0, ..*t }
                }
            };
            recent.push(g);
        }
        Ok((top, recent))
    })?;
    let games = games_cells.into_iter().map(|(cell, (top, recent))| CellGames { cell, top, recent }).collect();
    Ok(PositionEntry::Counted { moves, games })
}

/// A count, then that many cells (the first as it is, each later one as
/// its rise), each with what `item` reads after it.
fn read_cells<T>(
    r: &mut Reader,
    base: usize,
    mut item: impl FnMut(&mut Reader) -> Result<T, ExplorerError>,
) -> Result<Vec<(Cell, T)>, ExplorerError> {
    let short = |r: &Reader| ExplorerError::corrupt(base + r.offset(), "position entry cut short");
    let n = r.varint().map_err(|_| short(r))?;
    let mut out = Vec::with_capacity(n.min(4096) as usize);
    let mut prev: Option<u64> = None;
    for _ in 0..n {
        let at = base + r.offset();
        let delta = r.varint().map_err(|_| short(r))?;
        let code = match prev {
            None => delta,
            Some(p) if delta > 0 => p.checked_add(delta).ok_or(ExplorerError::corrupt(at, "cell overflows"))?,
            Some(_) => return Err(ExplorerError::corrupt(at, "cells not increasing")),
        };
        let cell = Cell(u32::try_from(code).map_err(|_| ExplorerError::corrupt(at, "cell overflows"))?);
        if !cell.is_valid() {
            return Err(ExplorerError::corrupt(at, "bad cell"));
        }
        prev = Some(code);
        out.push((cell, item(r)?));
    }
    Ok(out)
}

/// The side that moves at `ply` of a game from the start position.
pub fn mover_of(ply: u64) -> Color {
    if ply % 2 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(w: &BitWriter) -> Vec<u8> {
        let mut bytes = Vec::new();
        w.append_to(&mut bytes);
        bytes
    }

    #[test]
    fn bit_fields_round_trip_at_any_width() {
        let mut w = BitWriter::default();
        let fields = [(5u64, 3u32), (0, 0), (1, 1), (0x3ff, 10), (0xdead_beef, 32), (7, 5)];
        for (v, width) in fields {
            w.put(v, width);
        }
        let bytes = bytes_of(&w);
        let mut at = 0;
        for (v, width) in fields {
            assert_eq!(bits_at(&bytes, at, width), Some(v));
            at += u64::from(width);
        }
        assert_eq!(bytes.len() as u64, at.div_ceil(8));
        assert_eq!(bits_at(&bytes, at + 64, 8), None);
        assert_eq!([0, 1, 2, 3, 4, 5, 255, 256, 257].map(bits_for), [0, 0, 1, 2, 2, 3, 8, 8, 9]);
    }

    /// The packing's one-put-a-ply writer against the fields written one at
    /// a time by [`BitWriter`], over random games (promotions, castling and
    /// en passant among them) of every length.
    #[test]
    fn packed_moves_are_their_fields_written_one_at_a_time() {
        let mut rng = crate::codec::SplitMix64::new(7575);
        let mut list = crate::board::MoveList::new();
        let mut kinds = std::collections::HashSet::new();
        for _ in 0..300 {
            let (mut b, mut packed, mut want) = (Board::startpos(), PackedMoves::default(), BitWriter::default());
            for _ in 0..rng.below(300) {
                list.clear();
                b.generate_legal(&mut list);
                if list.is_empty() {
                    break;
                }
                let m = list.as_slice()[rng.below_usize(list.len())];
                packed.push(&b, m);
                kinds.insert(m.kind());
                let own = b.color_bb(b.side_to_move());
                want.put(rank_in(own, m.from()), bits_for(u64::from(own.count())));
                let t = targets(&b, m.from());
                want.put(rank_in(t, m.to()), bits_for(u64::from(t.count())));
                if is_promotion_square(&b, m.from(), m.to()) {
                    want.put(promotion_code(m.promotion_piece()), 2);
                }
                b.make_move(m);
                let mut got = Vec::new();
                packed.append_to(&mut got);
                assert_eq!(got, bytes_of(&want), "{m:?} {}", b.fen());
            }
            packed.clear();
            let mut got = vec![1];
            packed.append_to(&mut got);
            assert_eq!(got, [1]);
        }
        assert_eq!(kinds.len(), 4, "normal moves, promotions, castling and en passant: {kinds:?}");
    }

    #[test]
    fn bit_writer_writes_what_a_bit_at_a_time_writer_writes() {
        let mut rng = crate::codec::SplitMix64::new(75);
        for _ in 0..200 {
            let (mut w, mut want, mut at) = (BitWriter::default(), Vec::<u8>::new(), 0usize);
            // The whole words taken out now and then, as the singles are.
            let (mut out, mut taken) = (Vec::new(), 0u64);
            for _ in 0..rng.below(40) {
                // Values wider than their field too: only the low bits count.
                let (value, width) = (rng.next_u64(), rng.below(66) as u32);
                w.put(value, width);
                if rng.below(4) == 0 {
                    out.extend_from_slice(w.whole());
                    taken += 8 * w.whole().len() as u64;
                    w.clear_whole();
                }
                for i in 0..width.min(64) {
                    if at % 8 == 0 {
                        want.push(0);
                    }
                    want[at / 8] |= ((value >> i & 1) as u8) << (at % 8);
                    at += 1;
                }
            }
            w.append_to(&mut out);
            assert_eq!(out, want);
            assert_eq!(taken + w.bits(), at as u64);
        }
    }
}
