//! Command-line tools. With no subcommand the binary speaks UCI; with
//! arguments that are not a subcommand, each argument is one UCI line
//! (`archivist "genfens 10 seed 1 book None" "quit"`, as OpenBench calls it).
//! `anyhow` is used here and only here.

mod book;
mod book_build;
mod book_export;
mod book_import;
mod explorer;
mod polyglot;
mod records;
mod selfplay;
mod serve;
mod yacb;
mod yacb_build;

use crate::board::Board;
use clap::{Parser, Subcommand};
use std::io::{BufRead, Write};
use std::process::ExitCode;

pub mod tb;
mod tb_moves;
mod train;
mod train_ledger;
mod tune;

#[derive(Parser, Debug)]
#[command(name = "archivist", version, about = "A UCI chess engine that keeps everything on disk")]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// A TOML file of UCI option defaults applied before the UCI loop
    /// (configs/engine.toml). Only the engine reads it; `selfplay` has its
    /// own `--config` (a preset), no other subcommand takes one.
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// UCI lines to run instead of reading stdin, one per argument
    /// (e.g. "genfens 10 seed 1 book None" "quit").
    #[arg(value_name = "UCI_LINE")]
    pub lines: Vec<String>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Search the fixed bench positions; the last line is `N nodes M nps`.
    Bench {
        /// Search depth (default 11).
        depth: Option<i32>,
        /// Search threads (the signature uses 1).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Hash in MB (the signature uses 16).
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Use only the first N positions.
        #[arg(long, default_value_t = crate::bench::POSITIONS.len())]
        count: usize,
        /// Evaluate with this network (ARNN v1) instead of the default
        /// evaluation (the signature uses the default).
        #[arg(long, conflicts_with = "hand_written")]
        eval_file: Option<std::path::PathBuf>,
        /// Evaluate with the hand-written evaluation even when the binary
        /// has a built-in network.
        #[arg(long)]
        hand_written: bool,
    },
    /// Count leaf nodes of the legal move tree, per root move (like Stockfish's `go perft`).
    Perft {
        depth: u32,
        #[arg(long)]
        fen: Option<String>,
        #[arg(long)]
        chess960: bool,
    },
    /// Opening books (Polyglot, YACB, ABK, SBOB and its JSON form, SugaR's .exp): build, analyse, probe,
    /// inspect, verify, merge, edit, convert, export and import them.
    Book {
        #[command(subcommand)]
        command: book::BookCommand,
    },
    /// Inspect saved transposition tables (SFTT files).
    Tt {
        #[command(subcommand)]
        command: TtCommand,
    },
    /// Play games against itself and write them as compressed-board game
    /// records (the `montyformat` layout). `selfplay --config FILE` reads a
    /// preset.
    Selfplay(Box<selfplay::SelfplayArgs>),
    /// Train a value network from compressed-board game records (see `train --help`).
    Train(Box<train::TrainArgs>),
    /// Fit the hand-written evaluation's weights to game records (see `tune --help`).
    Tune(Box<tune::TuneArgs>),
    /// Compressed-board game records (`selfplay` output): dump, stats and
    /// verify them, import them from PGN, export them to trainers' formats,
    /// filter, dedup, shuffle, interleave and split them.
    Records {
        #[command(subcommand)]
        command: records::RecordsCommand,
    },
    /// Print FEN, engine key, Polyglot key and legal move count of positions
    /// (the `--fen` position, or each FEN line on standard input).
    Show {
        #[arg(long)]
        fen: Option<String>,
        #[arg(long)]
        chess960: bool,
    },
    /// Syzygy tablebases: probe positions (WDL and DTZ, or every move
    /// ranked), the DTZ-optimal line, info on the tables (found, failing
    /// validation).
    Tb {
        #[command(subcommand)]
        command: tb::TbCommand,
    },
    /// The local service: books, tablebases, a saved table and live analysis
    /// by position, in a browser and as JSON; Lichess's tablebase, cloud
    /// evaluation and opening explorer routes; the browser build's site
    /// (listens on 127.0.0.1:9090 by default).
    Serve(Box<serve::ServeArgs>),
    /// Every UCI option: its `uci` line (type, default, range) and what it
    /// does.
    Options,
    /// The opening explorer's index over PGN databases: build, merge,
    /// info, verify (`serve --lichess`/`--masters` answers from it).
    Explorer {
        #[command(subcommand)]
        command: explorer::ExplorerCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum TtCommand {
    /// Header fields, entry count, depth and bound histograms.
    Info { file: std::path::PathBuf },
    /// Validate every byte; exit status 0 only for a valid file.
    Verify { file: std::path::PathBuf },
}

pub fn main() -> ExitCode {
    let args: Vec<String> = std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect();
    if let Some(message) = config_before_subcommand(&args) {
        use clap::CommandFactory;
        Cli::command().error(clap::error::ErrorKind::ArgumentConflict, message).exit();
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", chain_message(&e));
            ExitCode::FAILURE
        }
    }
}

/// Why the command line `args` is refused, when `--config` stands before a
/// subcommand's name (`archivist --config x.toml book info b.bin`): clap
/// would read the subcommand and its arguments as UCI lines, which the
/// engine rejects one by one after loading the config, exiting with 0 (or
/// refuse the first option of the subcommand, naming only that).
fn config_before_subcommand(args: &[String]) -> Option<String> {
    use clap::CommandFactory;
    let mut rest = args.iter().skip(1);
    let mut config = None;
    let first = loop {
        let arg = rest.next()?;
        if arg == "--config" {
            config = Some(rest.next()?.as_str());
        } else if let Some(value) = arg.strip_prefix("--config=") {
            config = Some(value);
        } else {
            break arg;
        }
    };
    let config = config?;
    let command = Cli::command();
    let sub = command.get_subcommands().find(|s| s.get_name() == first.as_str())?;
    let own = if sub.get_arguments().any(|a| a.get_long() == Some("config")) {
        format!("; `{first}` takes its own after its name: `archivist {first} --config {config}`")
    } else {
        format!("; `{first}` takes none")
    };
    Some(format!(
        "--config applies to the UCI engine (`archivist --config FILE`, then UCI lines), not to the `{first}` \
         subcommand{own}"
    ))
}

/// The error and its causes, joined by `: `, leaving out a cause whose
/// text the message already ends with (the library's errors print their
/// source themselves, so `{:#}` would say it twice).
fn chain_message(e: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if message.is_empty() {
            message = text;
        } else if !message.ends_with(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        None if !cli.lines.is_empty() => {
            crate::logging::init();
            let mut uci = crate::uci::Uci::new();
            if let Some(path) = &cli.config {
                apply_config(&mut uci, path)?;
            }
            uci.run_lines(&cli.lines);
            Ok(ExitCode::SUCCESS)
        }
        None => {
            crate::logging::init();
            let mut uci = crate::uci::Uci::new();
            if let Some(path) = &cli.config {
                apply_config(&mut uci, path)?;
            }
            uci.run(std::io::stdin().lock());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Bench { depth, threads, hash, count, eval_file, hand_written }) => {
            let depth = depth.unwrap_or(crate::bench::DEFAULT_DEPTH);
            let mut config = crate::search::SearchConfig::default();
            if hand_written {
                config.net = None;
            }
            if let Some(path) = eval_file {
                config.net = Some(std::sync::Arc::new(crate::nnue::Network::load(&path)?));
            }
            let r = crate::bench::run_with(depth, threads, hash, count, config, |l| println!("{l}"));
            println!("Total time (ms) : {}", r.ms);
            println!("{}", r.line());
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Perft { depth, fen, chess960 }) => {
            let mut board = match fen {
                Some(f) => Board::from_fen(&f, chess960)?,
                None => {
                    let mut b = Board::startpos();
                    b.set_chess960(chess960);
                    b
                }
            };
            print!("{}", crate::perft::divide_report(&mut board, depth));
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Book { command }) => book::run(command),
        Some(Command::Tt { command }) => tt_command(command),
        Some(Command::Selfplay(args)) => selfplay::run(*args),
        Some(Command::Records { command }) => records::run(command),
        Some(Command::Train(args)) => train::run(*args),
        Some(Command::Tune(args)) => tune::run(*args),
        Some(Command::Show { fen, chess960 }) => {
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            match fen {
                Some(f) => writeln!(out, "{}", show(&f, chess960))?,
                None => {
                    for line in std::io::stdin().lock().lines() {
                        let line = line?;
                        if line.trim().is_empty() {
                            continue;
                        }
                        writeln!(out, "{}", show(line.trim(), chess960))?;
                    }
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Tb { command }) => tb::run(command),
        Some(Command::Serve(args)) => serve::run(*args),
        Some(Command::Explorer { command }) => explorer::run(command),
        Some(Command::Options) => {
            for spec in crate::engine::OPTIONS {
                println!("{}\n    {}", crate::uci::option_line(spec), spec.help);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn tt_command(command: TtCommand) -> anyhow::Result<ExitCode> {
    use crate::tt::persist;
    let (TtCommand::Info { file } | TtCommand::Verify { file }) = &command;
    let map = persist::map(file)?;
    let (header, count) = match persist::validate(&map) {
        Ok(x) => x,
        Err(e) => {
            println!("{}: invalid: {e}", file.display());
            return Ok(ExitCode::FAILURE);
        }
    };
    if matches!(command, TtCommand::Verify { .. }) {
        println!("{}: valid SFTT file, {count} entries", file.display());
        return Ok(ExitCode::SUCCESS);
    }
    println!("file:            {}", file.display());
    println!("version:         {}", persist::VERSION);
    println!("root_pos:        {}", header.root_pos.as_deref().unwrap_or("(none)"));
    println!("nodes:           {}", header.nodes);
    println!("root_depth:      {}", header.root_depth);
    println!("min_entry_depth: {}", header.min_entry_depth);
    println!("entries:         {count}");
    let mut depths = std::collections::BTreeMap::new();
    let mut bounds = [0u64; 4];
    for e in persist::entries(&map) {
        *depths.entry(e.depth()).or_insert(0u64) += 1;
        bounds[(e.gen_bound8 & 3) as usize] += 1;
    }
    println!("bounds:          upper {}  lower {}  exact {}", bounds[1], bounds[2], bounds[3]);
    println!("depth histogram:");
    let max = depths.values().copied().max().unwrap_or(1).max(1);
    for (d, n) in &depths {
        let bar = "#".repeat(((n * 50).div_ceil(max)) as usize);
        println!("  {d:>4} {n:>12} {bar}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Resolves the relative paths in a path option's `:`-list against `base`.
/// `SyzygyPath` is split by its own rule ([`crate::tb::split_dirs`]) and
/// rejoined with `;`, which separates on every platform.
fn resolve_paths(key: &str, value: &str, base: &std::path::Path) -> String {
    let syzygy = key.trim().eq_ignore_ascii_case("SyzygyPath");
    let parts = if syzygy { crate::tb::split_search_path(value) } else { value.split(':').collect() };
    parts
        .into_iter()
        .map(|p| {
            let trimmed = p.trim();
            if trimmed.is_empty() || trimmed == "<empty>" || std::path::Path::new(trimmed).is_absolute() {
                trimmed.to_string()
            } else {
                base.join(trimmed).display().to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(if syzygy { ";" } else { ":" })
}

/// Applies a TOML config whose keys are UCI option names. Unknown keys and
/// bad values are errors naming them. Relative paths in path options (those
/// [`crate::engine::OPTIONS`] marks `path`) are relative to the config
/// file's directory. Messages (books loaded, …) go to stderr: stdout belongs
/// to the GUI, which has not spoken yet.
pub fn apply_config(uci: &mut crate::uci::Uci, path: &std::path::Path) -> anyhow::Result<()> {
    use anyhow::Context;
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let table: toml::Table = text.parse().with_context(|| format!("parsing {}", path.display()))?;
    let unknown: Vec<&String> = table.keys().filter(|k| crate::engine::options::find(k).is_none()).collect();
    if !unknown.is_empty() {
        anyhow::bail!("{}: unknown option(s): {:?}", path.display(), unknown);
    }
    for (key, value) in &table {
        let text = match value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => anyhow::bail!("{}: option {key}: unsupported value {other}", path.display()),
        };
        let is_path = crate::engine::options::find(key).is_some_and(|spec| spec.is_path());
        let text =
            if is_path { resolve_paths(key, &text, path.parent().unwrap_or(std::path::Path::new("."))) } else { text };
        if let Some(msg) =
            uci.configure(key, Some(&text)).with_context(|| format!("{}: option {key}", path.display()))?
        {
            eprintln!("{}: {msg}", path.display());
        }
    }
    Ok(())
}

/// The `show` report for one FEN; a bad FEN gives an `Error: …` line.
pub fn show(fen: &str, chess960: bool) -> String {
    match Board::from_fen(fen, chess960) {
        Ok(b) => b.describe(),
        Err(e) => format!("Fen: {fen}\nError: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::chain_message;
    use anyhow::Context;

    #[derive(Debug, thiserror::Error)]
    #[error("inner: the file ends at offset 10")]
    struct Inner;

    #[derive(Debug, thiserror::Error)]
    #[error("outer.bin: {source}")]
    struct Outer {
        source: Inner,
    }

    #[test]
    fn error_chain_says_each_cause_once() {
        let e = Err::<(), _>(Outer { source: Inner }).context("reading the book").unwrap_err();
        assert_eq!(chain_message(&e), "reading the book: outer.bin: inner: the file ends at offset 10");
        let plain = Err::<(), _>(Inner).context("measuring").unwrap_err();
        assert_eq!(chain_message(&plain), "measuring: inner: the file ends at offset 10");
    }
}
