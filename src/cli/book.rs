//! `archivist book …`: build books from PGN, probe, inspect and verify
//! them, convert among the formats. Every book is opened through
//! [`crate::book::play::open()`].

use crate::board::Board;
use crate::book;
use crate::book::play::report::Report;
use crate::book::play::{Book, BookFormat};
use crate::book::tools::convert;
use anyhow::{bail, Context};
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const CONVERT_HELP: &str = "\
What each direction keeps and drops:
  polyglot -> sbob|json  keeps the positions reached from the start position
                         (or each --root) through book moves and through any
                         legal move into a position the book knows, with each
                         legal move and its weight. Drops learn values, entries whose
                         key is never reached and entries whose move is illegal
                         where reached (all counted). Evaluations are 0; JSON
                         gets SAN in move_notation.
  sbob|json -> polyglot  keeps chess positions (key computed from the FEN) and
                         their legal moves; weight clamped to 1..65535 (0 becomes
                         1). Drops evaluations, opening names, notations, learn
                         (0), non-chess or unparsable positions and illegal
                         moves (counted).
  sbob -> json           keeps everything; adds piece names and SAN (chess).
  json -> sbob           keeps everything but opening_name and move_notation,
                         which the binary form has no place for (counted).
  yacb -> sbob|json|polyglot
                         keeps the positions reached from the start position
                         (or each --root) through best moves and through any
                         legal move into a position the book knows, each with
                         its best move (weight 1) and its value as the
                         evaluation (centipawns, white's view). Drops elo,
                         bound, source and value type; entries never reached
                         and best moves illegal where reached (counted).
  polyglot|sbob|json -> yacb
                         one entry per chess position (Polyglot: each one the
                         walk above reaches): engine key, the heaviest legal
                         move as best move, its evaluation as the value
                         (exact, source other, elo -2000). Drops every other
                         move and all weights, opening names, notations and
                         non-chess positions (counted).
  abk -> polyglot|yacb   the positions replayed from the start position, lines
                         that transpose merged (no --root). Drops illegal
                         moves with their lines and entries no link reaches
                         (counted). To sbob or json: through polyglot.
  old json -> json       the old openingBook.json (SBOB's predecessor: named
                         openings of shogi SFENs and \"27\"-style squares) keeps
                         every position and move, the opening's name as each
                         move's opening_name, weight 1, evaluation 0; a move
                         repeated in a position keeps the first opening's
                         name (counted). To sbob, polyglot or yacb: as to json,
                         then json to that format (shogi positions are not
                         chess: polyglot and yacb keep none of them).
  X -> X                 (polyglot, sbob, json, yacb) validates and rewrites
                         canonically.
The input format is told by content (book::play::open): YACB or SBOB magic;
ABK by Arena's signature and an ABK size (25200 + 28*n bytes), or by an .abk
name; JSON text starting '{'; old JSON text starting '[' then '{' or ']';
anything else is Polyglot (it has no header).";

#[derive(Subcommand, Debug)]
pub enum BookCommand {
    /// Build a book from PGN games or an explorer index's games (Polyglot: as `polyglot make-book`; YACB: perf%
    /// statistics).
    ///
    /// Polyglot: byte-identical to `polyglot make-book` for PGN without FEN tags; unlike the tool, FEN tags and
    /// Chess960 games are honoured and a game with an illegal move is reported (file, game, ply) and skipped
    /// instead of ending the run. YACB: one entry per position seen at least --min-game times, perf% for white,
    /// the most played move as best move, source statistical, elo from the players' ratings. Inputs are streamed
    /// (plain, .gz, .zst, .bz2 told by content; `-` is standard input) and counted in at most --memory MB,
    /// spilling runs of events to a temporary directory; the output is the same for any --threads and --memory.
    /// With --from-explorer the games are an explorer index's (`explorer build`), chosen by --time-control,
    /// --ratings and --since/--until; the PGN game filters are refused.
    Build(Box<super::book_build::BuildArgs>),
    /// A book's lines (any playable book, or a PGN) as an EPD opening suite or a PGN tree.
    Export(super::book_export::ExportArgs),
    /// Engine analysis of every position of a YACB book, a PGN or an EPD file into a YACB book.
    Analyse(super::yacb_build::AnalyseArgs),
    /// A YACB book from a saved transposition table (SFTT), walked from its root position.
    FromTt(super::yacb_build::FromTtArgs),
    /// Show a book's entries for a position and its children (YACB, Polyglot or ABK, told as `book::play::open` tells them).
    Probe(ProbeArgs),
    /// YACB: header fields, entry count, value/bound/source counts, elo range.
    /// Polyglot: entries, positions, moves per position, weights, learn values.
    /// SBOB, JSON, ABK: format and size.
    Info { book: PathBuf },
    /// Validate the whole book (any format); exit status 0 only for a valid book.
    Verify { book: PathBuf },
    /// YACB or Polyglot: one line (or JSON object) per entry.
    Dump {
        book: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// YACB: merge books; the higher elo wins, ties keep the earlier book, 65535 is never replaced.
    /// Polyglot: byte-identical to `polyglot merge-book -in1 A -in2 B` (more books: merged in turn).
    Merge {
        #[arg(num_args = 1.., required = true)]
        inputs: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
    },
    /// Polyglot: set (or remove) the weights of one position's moves, written atomically.
    Edit(super::polyglot::EditArgs),
    /// Convert a book to another format (yacb, polyglot, sbob, json; ABK input to polyglot or yacb; the old
    /// openingBook.json read too).
    #[command(after_long_help = CONVERT_HELP)]
    Convert(ConvertArgs),
    /// Merge SugaR/BrainLearn experience files (.exp) into a YACB book.
    ImportExp(super::book_import::ImportExpArgs),
}

#[derive(Args, Debug)]
pub struct ProbeArgs {
    /// The book (YACB, Polyglot or ABK, told by content).
    pub book: PathBuf,
    /// Position to look up (default: the start position).
    #[arg(long, default_value = Board::START_FEN)]
    pub fen: String,
    /// Treat the position as Chess960 (UCI castling as king-takes-rook).
    #[arg(long)]
    pub chess960: bool,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvertTo {
    Polyglot,
    Sbob,
    Json,
    Yacb,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Input book (format told by content).
    pub input: PathBuf,
    /// Output book.
    pub output: PathBuf,
    /// Output format (default: from OUT's extension: .bin, .sbob, .json, .yacb).
    #[arg(long, value_enum)]
    pub to: Option<ConvertTo>,
    /// Polyglot or YACB input: walk from this position instead of the start position (repeatable).
    #[arg(long = "root", value_name = "FEN")]
    pub roots: Vec<String>,
}

pub fn run(command: BookCommand) -> anyhow::Result<ExitCode> {
    match command {
        BookCommand::Build(args) => super::book_build::build(*args),
        BookCommand::Export(args) => super::book_export::export(args),
        BookCommand::Analyse(args) => super::yacb_build::analyse(args),
        BookCommand::FromTt(args) => super::yacb_build::from_tt(args),
        BookCommand::Probe(args) => probe(args),
        BookCommand::Convert(args) => convert_book(args),
        BookCommand::Info { book } => info(&book),
        BookCommand::Verify { book } => Ok(verify(&book)),
        BookCommand::Dump { book, json } => dump(&book, json),
        BookCommand::Merge { inputs, out } => super::polyglot::merge(&inputs, &out),
        BookCommand::Edit(args) => super::polyglot::edit(args),
        BookCommand::ImportExp(args) => super::book_import::import_exp(args),
    }
}

fn open(path: &Path) -> anyhow::Result<Book> {
    book::play::open(path).with_context(|| path.display().to_string())
}

/// `book info`: what each format's header and entries say.
fn info(path: &Path) -> anyhow::Result<ExitCode> {
    match open(path)? {
        Book::Yacb(book) => super::yacb::info(path, &book),
        Book::Polyglot(book) => super::polyglot::info(path, &book),
        other => {
            println!("file:      {}\nformat:    {}\n{}: {}", path.display(), other.format(), unit(&other), other.len());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// What [`Book::len`] counts.
fn unit(book: &Book) -> &'static str {
    match book {
        Book::Sbob(_) | Book::Json(_) | Book::LegacyJson(..) => "positions",
        _ => "entries",
    }
}

/// `book verify`: the book opened and validated in full.
fn verify(path: &Path) -> ExitCode {
    match book::play::open(path) {
        Ok(book) => {
            println!("{}: valid {} book, {} {}", path.display(), book.format().title(), book.len(), unit(&book));
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("{}: invalid: {e}", path.display());
            ExitCode::FAILURE
        }
    }
}

/// `book dump`: a YACB or Polyglot book's entries.
fn dump(path: &Path, json: bool) -> anyhow::Result<ExitCode> {
    match open(path)? {
        Book::Yacb(book) => super::yacb::dump(&book, json),
        Book::Polyglot(book) => super::polyglot::dump(&book, json),
        other => bail!(
            "{}: `book dump` lists YACB and Polyglot entries, not {}; `book convert` it to JSON to read it",
            path.display(),
            other.format()
        ),
    }
}

fn probe(args: ProbeArgs) -> anyhow::Result<ExitCode> {
    let mut board = Board::from_fen(&args.fen, args.chess960).with_context(|| format!("bad FEN '{}'", args.fen))?;
    let book = open(&args.book)?;
    let out = crate::book::play::report::report(&book, &mut board, None)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.book.display()))?;
    if args.json {
        println!("{}", serde_json::to_string(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    match book {
        Book::Yacb(_) => super::yacb::print_probe(&out)?,
        Book::Abk(_) => super::book_import::print_probe_abk(&out),
        _ => print_probe_polyglot(&out),
    }
    Ok(ExitCode::SUCCESS)
}

/// `book probe`'s text for a Polyglot book: each move's weight, its share
/// of the position's total, and its learn field.
fn print_probe_polyglot(out: &Report) {
    let moves = &out.moves;
    let total: u64 = moves.iter().map(|m| u64::from(m.weight)).sum();
    println!("Fen: {}", out.fen);
    println!("Key: {}", out.key);
    println!("Format: polyglot");
    println!("Moves: {}", moves.len());
    for m in moves {
        let weight = m.weight;
        let share = if total > 0 { 100.0 * f64::from(weight) / total as f64 } else { 0.0 };
        let learn = m.learn.map_or_else(|| "null".to_string(), |l| l.to_string());
        println!("  {:<6} {:<8} weight {weight:>5} ({share:5.1}%)  learn {learn}", m.uci, m.san);
    }
}

fn convert_book(args: ConvertArgs) -> anyhow::Result<ExitCode> {
    let to = match args.to {
        Some(ConvertTo::Polyglot) => BookFormat::Polyglot,
        Some(ConvertTo::Sbob) => BookFormat::Sbob,
        Some(ConvertTo::Json) => BookFormat::Json,
        Some(ConvertTo::Yacb) => BookFormat::Yacb,
        None => book::play::format_from_extension(&args.output)
            .with_context(|| format!("cannot tell the output format from '{}': pass --to", args.output.display()))?,
    };
    let roots = args
        .roots
        .iter()
        .map(|f| Board::from_fen(f, false).with_context(|| format!("bad --root FEN '{f}'")))
        .collect::<anyhow::Result<Vec<Board>>>()?;
    let report = convert::convert(&args.input, &args.output, to, &roots)?;
    let from = report.from.map_or_else(|| "?".to_string(), |f| f.to_string());
    println!("{} ({from}) -> {} ({to}): {report}", args.input.display(), args.output.display());
    Ok(ExitCode::SUCCESS)
}
