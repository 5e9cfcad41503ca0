//! `records import`: PGN games with engine scores in their move comments
//! (cutechess, fastchess, OpenBench datagen workloads, lichess-style
//! `[%eval]` annotations) turned into compressed-board game records.
//!
//! Input: any [`BufRead`]; with [`crate::input::Input`] plain, gzip, zstd
//! or bzip2 text and standard input. It is cut into batches of whole games
//! ([`GameBatches`]) that worker threads convert while the caller's thread
//! writes the records in input order ([`crate::ordered`]); memory stays
//! bounded by the batches in flight (`threads × 2`, about 1 MB each).
//!
//! Rules, game by game:
//!
//! * **Start**: the `FEN` tag or the standard position; Chess960 when the
//!   `Variant` tag names it (`Chess960`, `fischerandom`) or when the caller
//!   says all games are ([`ImportOptions::chess960`]).
//! * **Result**: [`crate::pgn::outcome`]'s: the `Result` tag, else the
//!   result token ending the movetext; when both hold results and differ,
//!   the tag's is taken and the game counted ([`ImportSummary::result_disagreements`]).
//!   A game without a decisive or drawn result (`*`) is bad. A result
//!   that the final position contradicts (a mate scored as a draw) is bad.
//! * **Score of a move**: the first comment after the move that carries a
//!   score ([`crate::pgn::Comment::eval`]). An engine score (`{+0.35/12
//!   0.81s}`) is the mover's view of the position before the move; an
//!   `[%eval …]` is white's view of the position after it, which is the
//!   mover's value of the move played: it is turned to the mover's view.
//!   Centipawns become `p = 1 / (1 + e^(−cp/400))` ([`super::score`]);
//!   a mate for the mover is 1, against it 0; `#0` / `M0` counts as no
//!   score. A comment that starts like a score (`+`/`-` and a `/`, or
//!   `[%eval`) but does not read as one makes the game bad.
//! * **Moves without a score** ([`Unscored`]): with `Skip` (the default)
//!   the leading unscored moves (book moves, the opening) are played over
//!   and the record starts after them; a game that has no scored move, or
//!   an unscored move after its first scored one, is skipped and counted as
//!   unscored. With `Keep` every game is stored from its start and an
//!   unscored move gets the score ½ (stored 32768, exported as 0 cp).
//! * **Bad games** (illegal or unreadable move, bad `FEN` tag, no result,
//!   a contradicted result, an unreadable score, a start the format cannot
//!   hold) are reported with file, game number and ply, and skipped.
//!
//! Errors of the input itself (a truncated compressed stream, a read
//! error) end the import with [`ImportError`]; the caller's output is then
//! incomplete and must be discarded (the CLI writes atomically).

use super::{contradiction, score, GameRecorder, GameResult, RecordError};
use crate::board::Board;
use crate::ordered::{self, Feed, Spares};
use crate::pgn::{self, Comment, Eval, GameBatches, GameSource, ReadOptions};
use crate::types::{Color, Move};
use std::fmt;
use std::io::{self, BufRead, Write};
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;

/// What to do with moves that carry no score; see the module doc.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Unscored {
    /// Leading unscored moves become the start; other unscored games are skipped.
    #[default]
    Skip,
    /// Every move is kept; an unscored one is stored as ½.
    Keep,
}

/// How to import.
#[derive(Clone, Debug)]
pub struct ImportOptions {
    pub unscored: Unscored,
    /// Treat every game as Chess960 (files whose games do not say so).
    pub chess960: bool,
    /// Worker threads converting batches (at least 1).
    pub threads: usize,
    /// Bytes of PGN text per batch.
    pub batch_bytes: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions { unscored: Unscored::Skip, chess960: false, threads: 1, batch_bytes: 1 << 20 }
    }
}

/// Why one game was not imported.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BadGame {
    #[error("no result (the game ends with {0})")]
    NoResult(String),
    #[error("bad FEN tag: {0}")]
    BadStart(crate::board::FenError),
    #[error("illegal move '{san}' ({error})")]
    IllegalMove { ply: usize, san: String, error: crate::board::notation::NotationError },
    #[error("unreadable score comment {{{comment}}}")]
    BadScore { ply: usize, comment: String },
    #[error("result {result} contradicts the final position ({reason})")]
    ResultContradicted { result: GameResult, reason: &'static str },
    #[error("cannot be stored: {0}")]
    Unencodable(String),
}

impl BadGame {
    /// The ply the problem is at, when it is at one.
    pub fn ply(&self) -> Option<usize> {
        match self {
            BadGame::IllegalMove { ply, .. } | BadGame::BadScore { ply, .. } => Some(*ply),
            _ => None,
        }
    }
}

/// A skipped bad game and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub game: GameSource,
    pub problem: BadGame,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problem.ply() {
            Some(ply) => write!(f, "{}, ply {ply}: {}", self.game, self.problem),
            None => write!(f, "{}: {}", self.game, self.problem),
        }
    }
}

/// Why an import stopped.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The input failed (a truncated compressed stream, a read error)
    /// after `offset` bytes of decompressed text.
    #[error("reading the input after byte {offset} of its text: {source}")]
    Input { offset: u64, source: io::Error },
    #[error("writing the records: {0}")]
    Output(io::Error),
}

/// What an import did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Games read from the input.
    pub games: u64,
    /// Games written as records.
    pub imported: u64,
    /// Positions (plies) written.
    pub positions: u64,
    /// Games skipped for having no (usable) scores.
    pub unscored: u64,
    /// Bad games skipped.
    pub bad: u64,
    /// Games whose `Result` tag and termination marker name different
    /// results (the tag's was taken).
    pub result_disagreements: u64,
    /// Bytes of PGN text read (decompressed).
    pub text_bytes: u64,
}

impl ImportSummary {
    fn add(&mut self, o: &ImportSummary) {
        self.games += o.games;
        self.imported += o.imported;
        self.positions += o.positions;
        self.unscored += o.unscored;
        self.bad += o.bad;
        self.result_disagreements += o.result_disagreements;
        self.text_bytes += o.text_bytes;
    }
}

/// What [`import`] tells its caller as it goes.
pub enum Event<'a> {
    /// A bad game was skipped.
    Skipped(&'a Skipped),
    /// A batch was written; the totals so far.
    Progress(&'a ImportSummary),
}

/// The result of one game ([`pgn::outcome`]).
fn game_result(game: &pgn::Game) -> Result<GameResult, BadGame> {
    let parse = |s: &str| match s {
        "1-0" => Some(GameResult::WhiteWin),
        "0-1" => Some(GameResult::BlackWin),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    };
    let token = pgn::outcome(game.tag("Result"), game.result.as_deref()).token;
    token.and_then(parse).ok_or_else(|| {
        BadGame::NoResult(match token {
            Some(t) => format!("'{t}'"),
            None => "no result token".to_string(),
        })
    })
}

/// Whether a comment looks like it meant to carry a score.
fn looks_like_score(c: &Comment) -> bool {
    let text = c.text().trim();
    let first = text.split_whitespace().next().unwrap_or("");
    text.contains("[%eval") || (first.starts_with(['+', '-']) && first.contains('/'))
}

/// The stored score of the move played in `board`, from its comments.
fn move_score(board: &Board, notes: Option<&pgn::Notes>, ply: usize) -> Result<Option<u16>, BadGame> {
    let Some(notes) = notes else { return Ok(None) };
    for c in &notes.comments {
        let Some(eval) = c.eval() else {
            if looks_like_score(c) {
                return Err(BadGame::BadScore { ply, comment: c.text().to_string() });
            }
            continue;
        };
        // `[%eval]` is white's view; an engine score is the mover's.
        let flip = c.text().contains("[%eval") && board.side_to_move() == Color::Black;
        return Ok(match eval {
            Eval::Cp(cp) => Some(score::from_cp(if flip { -cp } else { cp })),
            Eval::Mate(n) => score::from_mate(if flip { -n } else { n }),
        });
    }
    Ok(None)
}

/// Converts one PGN game to record bytes: `Ok(None)` when the unscored
/// rule skips it.
pub fn import_game(game: &pgn::Game, options: &ImportOptions) -> Result<Option<(Vec<u8>, u64)>, BadGame> {
    let result = game_result(game)?;
    let mut board = match game.start_board() {
        Ok(b) => b,
        Err(pgn::ReplayError::BadStart { error, .. }) => return Err(BadGame::BadStart(error)),
        Err(e) => return Err(BadGame::Unencodable(e.to_string())),
    };
    if options.chess960 {
        board.set_chess960(true);
    }
    let initial = board.clone();
    let mut plies: Vec<(Move, Option<u16>)> = Vec::with_capacity(game.moves.len());
    // With `Skip`: the position before the first scored move.
    let mut first_scored: Option<(usize, Board)> = None;
    let mut gap = false;
    for (i, san) in game.moves.iter().enumerate() {
        let ply = i + 1;
        let mv = board.parse_san(san).map_err(|error| BadGame::IllegalMove { ply, san: san.to_string(), error })?;
        let score = move_score(&board, game.notes.get(i), ply)?;
        let started = first_scored.is_some();
        match score {
            Some(_) if !started && options.unscored == Unscored::Skip => first_scored = Some((i, board.clone())),
            None if started => gap = true,
            _ => {}
        }
        board.make_move(mv);
        plies.push((mv, score));
    }
    if let Some(reason) = contradiction(&board, result) {
        return Err(BadGame::ResultContradicted { result, reason });
    }
    let (skip, start) = match options.unscored {
        Unscored::Keep => (0, initial),
        Unscored::Skip => match first_scored {
            Some(found) if !gap => found,
            _ => return Ok(None),
        },
    };
    let unencodable = |e: RecordError| BadGame::Unencodable(e.to_string());
    let mut rec = GameRecorder::new(&start).map_err(unencodable)?;
    for &(mv, s) in plies.iter().skip(skip) {
        rec.push_visits(mv, s.unwrap_or(32768), &[]).map_err(unencodable)?;
    }
    let n = rec.plies() as u64;
    Ok(Some((rec.finish(result), n)))
}

/// One converted batch.
struct Converted {
    bytes: Vec<u8>,
    summary: ImportSummary,
    skipped: Vec<Skipped>,
}

fn convert(batch: &pgn::Batch, file: Option<&Arc<Path>>, options: &ImportOptions) -> Converted {
    let mut games = batch.parse(ReadOptions::default(), file);
    let mut out = Converted { bytes: Vec::new(), summary: ImportSummary::default(), skipped: Vec::new() };
    out.summary.text_bytes = batch.text.len() as u64;
    for game in &mut games {
        if options.chess960 {
            game.set_chess960();
        }
        out.summary.games += 1;
        if pgn::outcome(game.tag("Result"), game.result.as_deref()).disagrees {
            out.summary.result_disagreements += 1;
        }
        match import_game(game, options) {
            Ok(Some((bytes, plies))) => {
                out.bytes.extend_from_slice(&bytes);
                out.summary.imported += 1;
                out.summary.positions += plies;
            }
            Ok(None) => out.summary.unscored += 1,
            Err(problem) => {
                out.summary.bad += 1;
                out.skipped.push(Skipped { game: game.source.clone(), problem });
            }
        }
    }
    out
}

/// Imports every game of `reader` into `out`, in input order; `file`
/// names the input in reports. Returns the totals, or the input or output
/// error that stopped the import.
pub fn import<R: BufRead + Send>(
    reader: R,
    file: Option<Arc<Path>>,
    out: &mut dyn Write,
    options: &ImportOptions,
    on_event: &mut dyn FnMut(Event),
) -> Result<ImportSummary, ImportError> {
    let threads = options.threads.max(1);
    let batches = GameBatches::new(reader, options.batch_bytes);
    // An input error is the last job: the writer stops at it.
    let produce = |feed: &mut Feed<io::Result<pgn::Batch>>| {
        for item in batches {
            let failed = item.is_err();
            if !feed.send(item) || failed {
                return;
            }
        }
    };
    let worker = || {
        let file = file.clone();
        move |item: io::Result<pgn::Batch>, _: &Spares<()>| item.map(|b| convert(&b, file.as_ref(), options))
    };
    let mut total = ImportSummary::default();
    ordered::run(threads, threads * 2, produce, worker, |converted| {
        let c = converted.map_err(|source| ImportError::Input { offset: total.text_bytes, source })?;
        out.write_all(&c.bytes).map_err(ImportError::Output)?;
        for s in &c.skipped {
            on_event(Event::Skipped(s));
        }
        total.add(&c.summary);
        on_event(Event::Progress(&total));
        Ok(Vec::new())
    })?;
    Ok(total)
}

#[cfg(test)]
mod tests;
