//! Conversions among Polyglot, SBOB, SBOB's JSON form and YACB (and from
//! ABK), and what each keeps.
//!
//! | from → to         | keeps | drops |
//! |-------------------|-------|-------|
//! | Polyglot → SBOB/JSON | positions reached from the roots (the start position unless given) through book moves and through any legal move into a position the book knows; each legal move with its weight | learn; entries whose key is never reached and entries whose move is illegal where reached (both counted); evaluation is 0 |
//! | SBOB/JSON → Polyglot | chess positions (key from the FEN) and their legal moves; weight clamped to 1..=65535 (0 becomes 1) | evaluation, opening names, notations; learn is 0; non-chess or unparsable FENs and moves that are not legal there (counted) |
//! | SBOB → JSON       | everything (plus piece names and SAN for chess) | nothing |
//! | JSON → SBOB       | everything else | `opening_name`, `move_notation` (counted; SAN is derived again on the way back) |
//! | old JSON → JSON   | every position and move (see [`crate::book::format::legacy_json`]), the opening's name as each move's `opening_name`; weight 1, evaluation 0 | a move repeated in a position (counted: the first opening's name is kept) |
//! | old JSON → SBOB/Polyglot/YACB | as old JSON → JSON → that format (shogi positions are not chess: Polyglot and YACB keep none of them) | as those steps |
//! | YACB → SBOB/JSON/Polyglot | positions reached from the roots through best moves and through any legal move into a position the book knows (any key type); each one's best move (weight 1) with its value as the evaluation in centipawns, white's view (perf% and DTZ/DTM turned into centipawns) | elo, bound, source, value type; entries never reached and best moves not legal where reached (counted) |
//! | SBOB/JSON/Polyglot → YACB | one entry per chess position: engine key, the heaviest legal move as best move, its evaluation as the value (cp, exact, source "other", elo −2000: the analysis behind it is unknown) | every other move and all weights; opening names, notations; non-chess positions (counted) |
//! | ABK → Polyglot/YACB | see [`crate::book::format::abk`]: positions replayed from the start position, lines that transpose merged | illegal moves with their lines, entries no link reaches (both counted) |
//! | X → X             | everything: the file is validated and rewritten canonically | nothing |
//!
//! Input books are opened through [`crate::book::play::open()`], which tells the
//! format by content.

use crate::board::zobrist::polyglot_key;
use crate::board::Board;
use crate::book::format::abk::{self, AbkBook};
use crate::book::format::json;
use crate::book::format::polyglot::{self, PolyglotBook, PolyglotEntry};
use crate::book::format::sbob::{self, SbobBook, SbobPosition};
use crate::book::format::write_atomic;
use crate::book::format::yacb::{self, BoundType, Elo, KeyType, Source, ValueType, YacbBook, YacbEntry};
use crate::book::format::{same_move, score_to_cp, UNKNOWN_ELO};
use crate::book::play::{Book, BookError, BookFormat};
use crate::codec::IoAt;
use std::fmt;
use std::path::Path;
use thiserror::Error;

/// Why a conversion failed: reading the input book or writing the output
/// (each message names the file, and for a damaged input the offset).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConvertError {
    #[error("{path}: {source}")]
    Input { path: std::path::PathBuf, source: BookError },
    #[error("writing {path}: {source}")]
    Output { path: std::path::PathBuf, source: BookError },
    /// A conversion the input's format does not have.
    #[error("{0}")]
    Unsupported(String),
}

fn reading<E: Into<BookError>>(path: &Path) -> impl FnOnce(E) -> ConvertError + '_ {
    move |e| ConvertError::Input { path: path.to_path_buf(), source: e.into() }
}

fn writing<E: Into<BookError>>(path: &Path) -> impl FnOnce(E) -> ConvertError + '_ {
    move |e| ConvertError::Output { path: path.to_path_buf(), source: e.into() }
}

/// Counts of what a conversion carried over and left behind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    pub from: Option<BookFormat>,
    pub positions: usize,
    pub moves: usize,
    /// Polyglot input: entries never reached by the walk.
    pub unreachable_entries: usize,
    /// Entries or moves not legal in their position.
    pub illegal_moves: usize,
    /// Polyglot input: learn fields that were not zero.
    pub learn_dropped: usize,
    /// To Polyglot: positions that are not chess or whose FEN does not parse.
    pub skipped_positions: usize,
    /// To Polyglot: weights outside 1..=65535 that were clamped.
    pub clamped_weights: usize,
    /// To Polyglot: non-zero evaluations left behind.
    pub evaluations_dropped: usize,
    pub opening_names_dropped: usize,
    pub notations_dropped: usize,
    /// Old JSON input: moves listed again (under a second opening or the
    /// same one) merged into the first, whose opening name is kept.
    pub duplicate_moves: usize,
}

impl Report {
    /// The report of a second step (SBOB model → output) after this first
    /// one (input → SBOB model): what the first step alone knows is kept.
    fn then(self, second: Report) -> Report {
        Report {
            from: self.from,
            unreachable_entries: self.unreachable_entries,
            opening_names_dropped: self.opening_names_dropped,
            notations_dropped: self.notations_dropped,
            duplicate_moves: self.duplicate_moves,
            ..second
        }
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} positions, {} moves", self.positions, self.moves)?;
        let notes = [
            (self.unreachable_entries, "entries not reachable from the roots dropped"),
            (self.illegal_moves, "illegal moves dropped"),
            (self.learn_dropped, "non-zero learn values dropped"),
            (self.skipped_positions, "non-chess or unparsable positions dropped"),
            (self.clamped_weights, "weights clamped to 1..65535"),
            (self.evaluations_dropped, "evaluations dropped"),
            (self.opening_names_dropped, "opening names dropped"),
            (self.notations_dropped, "move notations dropped"),
            (self.duplicate_moves, "repeated moves merged (the first opening's name kept)"),
        ];
        for (n, what) in notes {
            if n > 0 {
                write!(f, "; {n} {what}")?;
            }
        }
        Ok(())
    }
}

/// Polyglot → SBOB: walks the book from `roots` through book moves and
/// through every legal move into a position the book knows (moves a book
/// leaves out: one-sided books, moves that never scored). Positions with
/// legal book moves come out once each, in breadth-first order, their moves
/// in file order.
pub fn polyglot_to_sbob(book: &PolyglotBook, roots: &[Board]) -> (SbobBook, Report) {
    let mut positions = Vec::new();
    let mut report = Report { from: Some(BookFormat::Polyglot), ..Report::default() };
    let mut reached_entries = 0;
    let visit = |board: &Board, _: &crate::board::MoveList| {
        let in_file = book.range(polyglot_key(board)).len();
        let moves = book.moves(board);
        reached_entries += in_file;
        report.illegal_moves += in_file - moves.len();
        if !moves.is_empty() {
            report.positions += 1;
            report.moves += moves.len();
            report.learn_dropped += moves.iter().filter(|m| m.learn != 0).count();
            let sbob_moves = moves.iter().map(|m| sbob::from_chess_move(board, m.mv, m.weight as u32, 0)).collect();
            positions.push(SbobPosition { fen: board.fen(), moves: sbob_moves });
        }
        moves.into_iter().map(|m| m.mv).collect::<Vec<_>>()
    };
    let follow = |book_moves: &Vec<crate::types::Move>, m, child| book_moves.contains(&m) || book.contains_key(child);
    crate::book::format::walk_known(roots, usize::MAX, polyglot_key, visit, follow);
    report.unreachable_entries = book.len() - reached_entries;
    (SbobBook { positions }, report)
}

/// The chess position of an SBOB position (None for other games or a bad FEN).
fn chess_board(p: &SbobPosition) -> Option<Board> {
    match sbob::game_kind(&p.fen) {
        sbob::GameKind::Chess => Board::from_fen(&p.fen, false).ok(),
        _ => None,
    }
}

/// The SBOB book's chess positions with their boards, in book order; the
/// others (other games, bad FENs) are counted in `report.skipped_positions`.
fn chess_positions<'a>(book: &'a SbobBook, report: &mut Report) -> Vec<(&'a SbobPosition, Board)> {
    let boards: Vec<_> = book.positions.iter().filter_map(|p| Some((p, chess_board(p)?))).collect();
    report.skipped_positions += book.positions.len() - boards.len();
    boards
}

/// SBOB → Polyglot entries (see the module table for what is kept).
pub fn sbob_to_polyglot(book: &SbobBook) -> (Vec<PolyglotEntry>, Report) {
    let mut report = Report::default();
    let mut entries = Vec::new();
    for (p, board) in chess_positions(book, &mut report) {
        let key = polyglot_key(&board);
        let legal = board.legal_moves();
        let before = entries.len();
        for m in &p.moves {
            let Some(mv) = sbob::to_chess_move(&board, &legal, m) else {
                report.illegal_moves += 1;
                continue;
            };
            let weight = m.weight.clamp(1, u16::MAX as u32);
            report.clamped_weights += usize::from(weight != m.weight);
            report.evaluations_dropped += usize::from(m.evaluation != 0);
            entries.push(polyglot::entry_for(&board, mv, weight as u16, 0));
            debug_assert_eq!(entries.last().map(|e| e.key), Some(key));
        }
        if entries.len() > before {
            report.positions += 1;
        }
    }
    report.moves = entries.len();
    polyglot::sort_entries(&mut entries);
    (entries, report)
}

/// A YACB value as centipawns from white's view.
pub fn yacb_value_to_cp(e: &YacbEntry) -> i32 {
    match e.value_type {
        ValueType::Centipawns | ValueType::KnownWin => e.value,
        ValueType::Perf => score_to_cp(e.value as f64 / 40_000.0).round() as i32,
        ValueType::Dtz | ValueType::Dtm => e.value.signum() * (20_000 - e.value.abs().min(1000)),
    }
}

/// YACB → the SBOB model: a walk from `roots` through positions the book
/// knows, and through each best move even into a position without an entry
/// (the walk goes on through it into positions the book knows); see the
/// module table.
pub fn yacb_to_sbob(book: &YacbBook, roots: &[Board]) -> (SbobBook, Report) {
    let mut positions = Vec::new();
    let mut report = Report { from: Some(BookFormat::Yacb), ..Report::default() };
    let key_type = book.key_type();
    let visit = |b: &Board, legal: &crate::board::MoveList| {
        let entry = book.lookup(key_type.key(b))?;
        let moves: Vec<_> = legal
            .iter()
            .filter(|&m| same_move(entry.best_move, m))
            .map(|m| sbob::from_chess_move(b, m, 1, yacb_value_to_cp(&entry)))
            .collect();
        report.illegal_moves += usize::from(moves.is_empty() && !entry.best_move.is_none());
        report.moves += moves.len();
        positions.push(SbobPosition { fen: b.fen(), moves });
        Some(entry.best_move)
    };
    let follow = |best: &Option<crate::types::Move>, m, child| {
        best.is_some_and(|b| same_move(b, m)) || book.lookup(child).is_some()
    };
    crate::book::format::walk_known(roots, usize::MAX, |b| key_type.key(b), visit, follow);
    report.positions = positions.len();
    report.unreachable_entries = book.len().saturating_sub(positions.len());
    (SbobBook { positions }, report)
}

/// The SBOB model → YACB entries (see the module table).
pub fn sbob_to_yacb(book: &SbobBook) -> (Vec<YacbEntry>, Report) {
    let mut report = Report::default();
    let mut entries = Vec::new();
    for (p, board) in chess_positions(book, &mut report) {
        let legal = board.legal_moves();
        let mut best: Option<(crate::types::Move, &sbob::SbobMove)> = None;
        for m in &p.moves {
            match sbob::to_chess_move(&board, &legal, m) {
                Some(mv) if best.map_or(true, |(_, b)| m.weight > b.weight) => best = Some((mv, m)),
                Some(_) => {}
                None => report.illegal_moves += 1,
            }
        }
        let Some((mv, m)) = best else { continue };
        entries.push(YacbEntry {
            key: board.key(),
            elo: Elo::rated(UNKNOWN_ELO),
            value_type: ValueType::Centipawns,
            bound: BoundType::Exact,
            source: Source::Other,
            value: m.evaluation.clamp(i16::MIN as i32, i16::MAX as i32),
            best_move: mv,
        });
        report.positions += 1;
        report.moves += 1;
    }
    (entries, report)
}

/// Converts the book at `input` into `to` at `output` (written through a
/// synced temporary file, see [`write_atomic`]). `roots` are the walk's
/// starting positions for Polyglot and YACB input (the start position when
/// empty); ABK input converts to Polyglot or YACB only, from its own root.
pub fn convert(input: &Path, output: &Path, to: BookFormat, roots: &[Board]) -> Result<Report, ConvertError> {
    let loaded = crate::book::play::open(input).map_err(reading(input))?;
    let (bytes, report) = convert_book(loaded, to, roots, Names { input, output })?;
    write_atomic(output, &bytes).at(output).map_err(writing(output))?;
    Ok(report)
}

/// The names a conversion's errors give its input and output.
#[derive(Clone, Copy, Debug)]
pub struct Names<'a> {
    pub input: &'a Path,
    pub output: &'a Path,
}

/// [`convert`] in memory: the bytes `convert` writes for `loaded` (opened
/// by [`crate::book::play::open`] or [`crate::book::play::open_bytes`]) and
/// its report. Errors name the input and output as `names` says.
pub fn convert_book(
    loaded: Book,
    to: BookFormat,
    roots: &[Board],
    names: Names<'_>,
) -> Result<(Vec<u8>, Report), ConvertError> {
    let Names { input, output } = names;
    let rooted = !roots.is_empty();
    let default_roots = [Board::startpos()];
    let roots = if roots.is_empty() { &default_roots[..] } else { roots };
    let mut report = Report::default();
    // Everything but Polyglot → Polyglot goes through the SBOB model.
    let sbob_book = match loaded {
        Book::Yacb(book) if to == BookFormat::Yacb => {
            let entries = book.iter().collect::<Result<Vec<_>, _>>().map_err(reading(input))?;
            report.from = Some(BookFormat::Yacb);
            report.positions = entries.len();
            report.moves = entries.iter().filter(|e| !e.best_move.is_none()).count();
            let (bytes, _) = yacb::encode(book.key_type(), entries).map_err(writing(output))?;
            return Ok((bytes, report));
        }
        Book::Yacb(book) => {
            let (b, r) = yacb_to_sbob(&book, roots);
            report = r;
            b
        }
        Book::Polyglot(book) if to == BookFormat::Polyglot => {
            let entries: Vec<PolyglotEntry> = book.iter().collect();
            report.from = Some(BookFormat::Polyglot);
            report.positions =
                entries.windows(2).filter(|w| w[0].key != w[1].key).count() + usize::from(!entries.is_empty());
            report.moves = entries.len();
            return Ok((polyglot::encode_book(&entries).map_err(writing(output))?, report));
        }
        Book::Polyglot(book) => {
            let (b, r) = polyglot_to_sbob(&book, roots);
            report = r;
            b
        }
        Book::Sbob(b) => {
            report.from = Some(BookFormat::Sbob);
            b
        }
        Book::Json(j) => {
            if to == BookFormat::Json {
                report.from = Some(BookFormat::Json);
                report.positions = j.positions.len();
                report.moves = j.positions.iter().map(|p| p.moves.len()).sum();
                return Ok((json::to_string(&j).into_bytes(), report));
            }
            let (b, dropped) = json::to_sbob(&j).map_err(reading(input))?;
            report.from = Some(BookFormat::Json);
            report.opening_names_dropped = dropped.opening_names;
            report.notations_dropped = dropped.move_notations;
            b
        }
        Book::LegacyJson(j, legacy) => {
            report.from = Some(BookFormat::LegacyJson);
            report.duplicate_moves = legacy.duplicate_moves;
            if to == BookFormat::Json {
                report.positions = j.positions.len();
                report.moves = j.positions.iter().map(|p| p.moves.len()).sum();
                return Ok((json::to_string(&j).into_bytes(), report));
            }
            let (b, dropped) = json::to_sbob(&j).map_err(reading(input))?;
            report.opening_names_dropped = dropped.opening_names;
            report.notations_dropped = dropped.move_notations;
            b
        }
        Book::Abk(book) => return abk_to(&book, output, to, rooted),
    };
    match to {
        BookFormat::Yacb => {
            let (entries, r) = sbob_to_yacb(&sbob_book);
            let (bytes, _) = yacb::encode(&KeyType::Engine, entries).map_err(writing(output))?;
            Ok((bytes, report.then(r)))
        }
        BookFormat::Polyglot => {
            let (entries, r) = sbob_to_polyglot(&sbob_book);
            Ok((polyglot::encode_book(&entries).map_err(writing(output))?, report.then(r)))
        }
        BookFormat::Abk | BookFormat::LegacyJson => {
            Err(ConvertError::Unsupported(format!("books are not converted to {}", to.title())))
        }
        BookFormat::Sbob | BookFormat::Json => {
            if !matches!(report.from, Some(BookFormat::Polyglot | BookFormat::Yacb)) {
                report.positions = sbob_book.positions.len();
                report.moves = sbob_book.positions.iter().map(|p| p.moves.len()).sum();
            }
            let bytes = if to == BookFormat::Sbob {
                sbob::encode(&sbob_book).map_err(writing(output))?
            } else {
                json::to_string(&json::from_sbob(&sbob_book)).into_bytes()
            };
            Ok((bytes, report))
        }
    }
}

/// An ABK book's positions ([`AbkBook::positions`]) as Polyglot or YACB
/// entries ([`abk::to_polyglot`], [`abk::to_yacb`]).
fn abk_to(book: &AbkBook, output: &Path, to: BookFormat, rooted: bool) -> Result<(Vec<u8>, Report), ConvertError> {
    if rooted {
        return Err(ConvertError::Unsupported(
            "--root does not apply to ABK books: their tree starts at the start position".to_string(),
        ));
    }
    let (positions, abk) = book.positions();
    let bytes = match to {
        BookFormat::Polyglot => polyglot::encode_book(&abk::to_polyglot(&positions)).map_err(writing(output))?,
        BookFormat::Yacb => yacb::encode(&KeyType::Engine, abk::to_yacb(&positions)).map_err(writing(output))?.0,
        other => {
            return Err(ConvertError::Unsupported(format!(
                "ABK books convert to polyglot or yacb, not {other}; convert the result further"
            )))
        }
    };
    let report = Report {
        from: Some(BookFormat::Abk),
        positions: abk.positions,
        moves: abk.moves,
        illegal_moves: abk.illegal_moves,
        unreachable_entries: abk.unreachable_entries,
        ..Report::default()
    };
    Ok((bytes, report))
}

#[cfg(test)]
mod tests;
