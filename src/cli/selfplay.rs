//! `archivist selfplay`: flags, the preset file, the hooks, Ctrl-C/SIGTERM,
//! progress on stderr and the summary on stdout.

use crate::selfplay::config::Preset;
use crate::selfplay::openings::FileOpenings;
use crate::selfplay::progress::{Bar, Lines, Progress};
use crate::selfplay::{self, Hooks};
use anyhow::Context;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Flags of `selfplay`; each overrides the preset's value (see
/// configs/selfplay.toml for the defaults).
#[derive(clap::Args, Debug, Default)]
pub struct SelfplayArgs {
    /// A preset (TOML, see configs/selfplay.toml): its values, each
    /// overridden by a flag given here.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Output file (compressed-board game records).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Add games to an existing --out instead of refusing it (a game cut
    /// short by a crash at its end is removed first). A seed already in the
    /// run log (OUT.runs.json) continues after the games it played.
    #[arg(long)]
    append: bool,
    /// Number of games of this run (default 100).
    #[arg(long, conflicts_with = "fill")]
    games: Option<u64>,
    /// Play until --out holds N games (implies --append; 0 games when it
    /// already does): the same command resumes an interrupted run.
    #[arg(long, value_name = "N")]
    fill: Option<u64>,
    /// Nodes per move: the hard limit (default 5000; 8 x --soft-nodes when
    /// only --soft-nodes is given).
    #[arg(long, conflicts_with = "depth")]
    nodes: Option<u64>,
    /// Soft node limit per move: no new iteration once the search has
    /// passed N nodes (checked between iterations); the hard limit is
    /// --nodes, or 8 x N when --nodes is not given.
    #[arg(long, value_name = "N", conflicts_with = "depth")]
    soft_nodes: Option<u64>,
    /// Value-only records: per move only the move, the score and a
    /// legal-move count of 0 (no visit distribution): 5 bytes a position.
    #[arg(long)]
    value_only: bool,
    /// Depth per move instead of nodes.
    #[arg(long)]
    depth: Option<i32>,
    /// Game threads (each plays its own games with a one-thread search).
    #[arg(long)]
    threads: Option<usize>,
    /// Hash per game thread, in MB (default: sized to the node limit, 32 bytes a node of the hard limit, 1 to 16 MB).
    #[arg(long)]
    hash: Option<usize>,
    /// Seed of the openings (default: from the clock, printed and logged);
    /// the same seed with --threads 1 gives the same bytes. Give every run
    /// its own seed.
    #[arg(long)]
    seed: Option<u64>,
    /// Opening book (YACB or Polyglot), walked by weight.
    #[arg(long, conflicts_with = "openings")]
    book: Option<PathBuf>,
    /// Opening positions: EPD/FEN lines or PGN games.
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Random legal plies after the opening (default 8 without a book or openings file, else 0).
    #[arg(long)]
    random_plies: Option<u32>,
    /// Syzygy tablebase directories (separated by ':' or ';'): adjudicate covered positions.
    #[arg(long)]
    syzygy: Option<String>,
    /// Chess960: random start positions (or the openings read as Chess960).
    #[arg(long)]
    chess960: bool,
    /// Recorded plies after which a game is a draw.
    #[arg(long)]
    max_plies: Option<u32>,
    /// Evaluate with this network file (ARNN v1) instead of the default
    /// evaluation (the built-in network, or the hand-written evaluation when
    /// the binary has none).
    #[arg(long, conflicts_with = "hand_written")]
    eval_file: Option<PathBuf>,
    /// Evaluate with the hand-written evaluation even when the binary has a
    /// built-in network.
    #[arg(long)]
    hand_written: bool,
}

impl SelfplayArgs {
    fn into_preset(self) -> Preset {
        let eval_file = self.eval_file;
        Preset {
            out: self.out,
            append: self.append.then_some(true),
            games: self.games,
            fill: self.fill,
            nodes: self.nodes,
            soft_nodes: self.soft_nodes,
            value_only: self.value_only.then_some(true),
            depth: self.depth,
            threads: self.threads,
            hash: self.hash,
            seed: self.seed,
            book: self.book,
            openings: self.openings,
            random_plies: self.random_plies,
            syzygy: self.syzygy,
            chess960: self.chess960.then_some(true),
            max_plies: self.max_plies,
            eval_file,
            hand_written: self.hand_written.then_some(true),
            ..Preset::default()
        }
    }
}

pub fn run(mut args: SelfplayArgs) -> anyhow::Result<ExitCode> {
    let file = match args.config.take() {
        Some(path) => Preset::load(&path)?,
        None => Preset::default(),
    };
    let preset = file.overridden_by(args.into_preset());
    let clock_seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64 ^ u64::from(std::process::id()));
    let mut settings = preset.resolve(clock_seed)?;
    settings.command = Some(command_line());
    let mut hooks = Hooks::default();
    let mut opening_text = format!("start position, {} random plies", settings.random_plies);
    if let Some(book) = &preset.book {
        let source = selfplay::open_book(book, settings.chess960, 16)?;
        opening_text = format!("{}, {} random plies", source.describe(), settings.random_plies);
        hooks.openings = Some(source);
    }
    if let Some(path) = &preset.openings {
        let source = FileOpenings::load(path, settings.chess960)?;
        opening_text =
            format!("{}, {} random plies", crate::selfplay::OpeningSource::describe(&source), settings.random_plies);
        hooks.openings = Some(Box::new(source));
    }
    if let Some(dirs) = &preset.syzygy {
        hooks.adjudicator = Some(selfplay::open_tablebases(dirs)?);
    }
    // The network the players evaluate with and how the run log names it:
    // the file read once (the network and its checksum come from the same
    // bytes), or the built-in one unless the hand-written evaluation is asked for.
    let evaluation = match &preset.eval_file {
        Some(path) => {
            let bytes = std::fs::read(path).with_context(|| format!("--eval-file {}", path.display()))?;
            let net =
                crate::nnue::Network::from_bytes(&bytes).with_context(|| format!("--eval-file {}", path.display()))?;
            Some((Arc::new(net), format!("network {}", path.display()), crate::codec::fnv1a64(&bytes)))
        }
        None if preset.hand_written.unwrap_or(false) => None,
        None => crate::nnue::builtin::network().zip(crate::nnue::builtin::bytes()).map(|(net, bytes)| {
            (net, format!("built-in network {}", crate::nnue::builtin::NAME), crate::codec::fnv1a64(bytes))
        }),
    };
    if let Some((net, name, checksum)) = evaluation {
        let what = format!("{name} {}, FNV-1a {checksum:016x}", net.shape());
        opening_text.push_str(&format!("; evaluation: {what}"));
        hooks.net = Some((net, what));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)).context("installing the Ctrl-C handler")?;
    let games = match settings.fill {
        Some(n) => format!("until the file holds {n} games"),
        None => format!("{} games", settings.games),
    };
    eprintln!(
        "selfplay: {games}, {} per move{}, game threads {}, hash {} MB each, seed {}, openings: {opening_text}{} -> {}",
        settings.limit_text(),
        if settings.value_only { ", value-only records" } else { "" },
        settings.threads,
        settings.hash_mb,
        settings.seed,
        if settings.chess960 { " (Chess960)" } else { "" },
        settings.out.display()
    );
    let mut progress: Box<dyn Progress> = if std::io::stderr().is_terminal() {
        Box::new(Bar::new(settings.games))
    } else {
        Box::new(Lines::new(settings.progress_interval))
    };
    let summary = selfplay::run(&settings, &hooks, &stop, progress.as_mut())?;
    println!("{}", summary.line());
    println!("{}", summary.endings_line());
    println!("{}", summary.log_line());
    Ok(ExitCode::SUCCESS)
}

/// The command line as typed, for the run log (arguments with spaces or
/// quotes are quoted).
fn command_line() -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c)) {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    std::env::args().map(quote).collect::<Vec<_>>().join(" ")
}
