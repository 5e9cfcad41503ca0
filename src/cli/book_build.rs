//! `archivist book build`: the arguments, the progress bar and the summary;
//! the work is [`crate::book::tools::build`].

use crate::book::tools::build::{self, parse_day, parse_result, Filters, Rejection};
use crate::book::tools::build::{BuildError, BuildOptions, Observer, Progress, Summary, Target};
use crate::book::tools::make_book::MakeBookOptions;
use crate::codec::unnamed;
use crate::explorer::index::Explorer;
use crate::explorer::index::ExplorerError;
use crate::explorer::model::{Month, RatingGroup, Speed};
use crate::explorer::query::Filter;
use crate::pgn::ReplayError;
use crate::types::Color;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildFormat {
    Polyglot,
    Yacb,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorArg {
    White,
    Black,
}

/// `book build`'s arguments; its help is [`super::book::BookCommand::Build`]'s
/// doc.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// Book format to write (default: yacb when OUT ends in .yacb, else polyglot).
    #[arg(long, value_enum)]
    pub format: Option<BuildFormat>,
    /// PGN files (plain or compressed), read in order; `-` is standard input.
    #[arg(long, num_args = 1.., required_unless_present = "from_explorer", conflicts_with = "from_explorer")]
    pub pgn: Vec<PathBuf>,
    /// Build from the games of explorer indexes (`explorer build`; shards in
    /// order) instead of PGN, with the filters an index answers:
    /// --time-control (speeds), --ratings, --since/--until, and the book's
    /// --min-game, --min-score, --only-white, --only-black.
    #[arg(long, num_args = 1..)]
    pub from_explorer: Vec<PathBuf>,
    // `conflicts_with = "pgn"` as well: clap lets a `requires` go unmet when
    // the required argument conflicts with one given (`--pgn`).
    /// With --from-explorer: keep games of these rating groups, as Lichess's
    /// `ratings` (0, 1000, 1200, …, 2200; 2500 takes every mean from 2500 up).
    #[arg(long, value_delimiter = ',', requires = "from_explorer", conflicts_with = "pgn")]
    pub ratings: Vec<RatingGroup>,
    /// With --from-explorer: keep games of this month (YYYY-MM) or later.
    #[arg(long, requires = "from_explorer", conflicts_with = "pgn")]
    pub since: Option<String>,
    /// With --from-explorer: keep games of this month (YYYY-MM) or earlier.
    #[arg(long, requires = "from_explorer", conflicts_with = "pgn")]
    pub until: Option<String>,
    /// Output book.
    #[arg(long)]
    pub out: PathBuf,
    /// Count only the first N plies of each game (default 1024; with
    /// --from-explorer, the plies the index counts: 50 unless built otherwise).
    #[arg(long)]
    pub max_ply: Option<usize>,
    /// Keep moves (YACB: positions) played at least N times.
    #[arg(long, default_value_t = 3)]
    pub min_game: u32,
    /// YACB: the elo stored in every entry (default: from the games'
    /// ratings, mean rating − 3500; unrated positions −2000).
    #[arg(long, allow_negative_numbers = true)]
    pub elo: Option<i32>,
    /// Keep moves scoring at least this many percent for the mover.
    #[arg(long, default_value_t = 0.0)]
    pub min_score: f64,
    /// Keep only white's moves.
    #[arg(long, conflicts_with = "only_black")]
    pub only_white: bool,
    /// Keep only black's moves.
    #[arg(long)]
    pub only_black: bool,
    /// Give every move weight 1.
    #[arg(long)]
    pub uniform: bool,
    /// Threads that parse and replay games.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Memory budget in MB (events beyond it are spilled to disk).
    #[arg(long, default_value_t = 1024)]
    pub memory: usize,
    /// Directory for the spilled runs (default: the system's temporary directory).
    #[arg(long)]
    pub temp_dir: Option<PathBuf>,
    /// Write the book even when an input is damaged (truncated compressed stream).
    #[arg(long)]
    pub allow_damaged: bool,
    /// With --min-elo: count only the moves of players rated at least N.
    #[arg(long, requires = "min_elo")]
    pub min_elo_mover: bool,
    /// Drop games of variants (Variant tag other than standard).
    #[arg(long)]
    pub exclude_variants: bool,
    /// With --exclude-variants: keep Chess960 games.
    #[arg(long, requires = "exclude_variants")]
    pub chess960: bool,
    /// Keep games with these results: 1-0, 0-1, 1/2-1/2 (draw), *.
    #[arg(long, value_delimiter = ',')]
    pub result: Vec<String>,
    #[command(flatten)]
    pub games: GameFilterArgs,
}

/// The game filters `book build` and `explorer build` share.
#[derive(Args, Debug, Default)]
pub struct GameFilterArgs {
    /// Keep games whose players are both rated at least N (WhiteElo/BlackElo).
    #[arg(long)]
    pub min_elo: Option<u32>,
    /// Keep games of these speeds (the TimeControl tag classed as the
    /// explorer classes it: base + 40 × increment seconds; `-`, `?` or none
    /// is correspondence): ultrabullet, bullet, blitz, rapid, classical,
    /// correspondence.
    #[arg(long, value_delimiter = ',')]
    pub time_control: Vec<String>,
    /// Keep games of at least N plies.
    #[arg(long, default_value_t = 0)]
    pub min_plies: usize,
    /// Keep games played on or after this date (YYYY.MM.DD, YYYY.MM or YYYY).
    #[arg(long)]
    pub date_from: Option<String>,
    /// Keep games played on or before this date.
    #[arg(long)]
    pub date_to: Option<String>,
    /// Keep games of this player (White/Black tag, case ignored).
    #[arg(long)]
    pub player: Option<String>,
    /// With --player: only games where the player had this colour.
    #[arg(long, value_enum, requires = "player")]
    pub color: Option<ColorArg>,
}

impl GameFilterArgs {
    /// The speeds of `--time-control` (Lichess's names, case ignored;
    /// `standard` is classical).
    fn speeds(&self) -> anyhow::Result<Vec<Speed>> {
        self.time_control
            .iter()
            .map(|t| {
                let name = if t.eq_ignore_ascii_case("standard") { "classical" } else { t.as_str() };
                name.parse::<Speed>().with_context(|| format!("unknown time control class '{t}'"))
            })
            .collect()
    }

    /// The filters (results and variants left open).
    pub fn filters(&self) -> anyhow::Result<Filters> {
        let time_controls = self.speeds()?;
        let day = |d: &Option<String>, end: bool| -> anyhow::Result<Option<u32>> {
            d.as_deref().map(|d| parse_day(d, end).with_context(|| format!("bad date '{d}'"))).transpose()
        };
        Ok(Filters {
            min_elo: self.min_elo,
            time_controls,
            min_plies: self.min_plies,
            date_from: day(&self.date_from, false)?,
            date_to: day(&self.date_to, true)?,
            player: self.player.clone(),
            color: self.color.map(|c| if c == ColorArg::White { Color::White } else { Color::Black }),
            ..Filters::default()
        })
    }
}

/// The explorer index at `path` (`--from-explorer`, and the `explorer`
/// subcommands), or its error naming the path once.
pub fn open_index(path: &Path) -> anyhow::Result<Explorer> {
    Explorer::open(path).map_err(|e| index_error(path, &e))
}

/// An index's error, the path in front and only there (an I/O error of the
/// index names its file itself).
pub fn index_error(path: &Path, e: &ExplorerError) -> anyhow::Error {
    anyhow::anyhow!("{}: {}", path.display(), unnamed(path, e))
}

impl BuildArgs {
    fn output_is_yacb(&self) -> bool {
        self.out.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("yacb"))
    }

    fn filters(&self) -> anyhow::Result<Filters> {
        let results = self
            .result
            .iter()
            .map(|r| parse_result(r).with_context(|| format!("unknown result '{r}'")))
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok(Filters {
            min_elo_mover: self.min_elo_mover,
            exclude_variants: self.exclude_variants,
            chess960: self.chess960,
            results,
            ..self.games.filters()?
        })
    }

    /// What `--from-explorer` selects: the filters an index answers; any
    /// other game filter is refused.
    fn explorer_filter(&self) -> anyhow::Result<Filter> {
        let g = &self.games;
        let refused = [
            ("--min-elo (use --ratings)", g.min_elo.is_some()),
            ("--min-plies", g.min_plies > 0),
            ("--date-from (use --since)", g.date_from.is_some()),
            ("--date-to (use --until)", g.date_to.is_some()),
            ("--player", g.player.is_some()),
            ("--min-elo-mover", self.min_elo_mover),
            ("--exclude-variants (an index holds standard games only)", self.exclude_variants),
            ("--chess960", self.chess960),
            ("--result", !self.result.is_empty()),
        ];
        if let Some((name, _)) = refused.iter().find(|(_, given)| *given) {
            bail!(
                "{name} is not answered by an explorer index; with --from-explorer the games are chosen by \
                 --time-control, --ratings and --since/--until"
            );
        }
        let speeds = (!g.time_control.is_empty()).then(|| g.speeds()).transpose()?;
        let month = |v: &Option<String>| -> anyhow::Result<Option<Month>> {
            v.as_deref().map(|v| v.trim().parse().map_err(|_| anyhow::anyhow!("bad month '{v}' (YYYY-MM)"))).transpose()
        };
        Ok(Filter {
            speeds,
            groups: (!self.ratings.is_empty()).then(|| Filter::groups_of(self.ratings.iter().copied())),
            since: month(&self.since)?,
            until: month(&self.until)?,
        })
    }

    /// The plies counted: --max-ply, else 1024 (PGN) or the indexes' plies.
    fn max_ply(&self) -> anyhow::Result<usize> {
        if let Some(n) = self.max_ply {
            return Ok(n);
        }
        let mut plies = 1024;
        for path in &self.from_explorer {
            let index = open_index(path)?;
            plies = plies.min(usize::from(index.max_ply()));
        }
        Ok(plies)
    }

    fn target(&self) -> anyhow::Result<Target> {
        let max_ply = self.max_ply()?;
        let format =
            self.format.unwrap_or(if self.output_is_yacb() { BuildFormat::Yacb } else { BuildFormat::Polyglot });
        if format == BuildFormat::Yacb {
            if self.min_score != 0.0 || self.only_white || self.only_black || self.uniform {
                bail!("--min-score, --only-white, --only-black and --uniform are Polyglot options");
            }
            return Ok(Target::Yacb { max_ply, min_game: self.min_game, elo: self.elo });
        }
        if self.elo.is_some() {
            bail!("--elo is a YACB option (pass --format yacb or an OUT ending in .yacb)");
        }
        Ok(Target::Polyglot(MakeBookOptions {
            max_ply,
            min_game: self.min_game,
            min_score: self.min_score,
            only_white: self.only_white,
            only_black: self.only_black,
            uniform: self.uniform,
        }))
    }
}

/// Warnings through the bar (so they do not tear it), progress in its message.
pub struct Bar(pub indicatif::ProgressBar);

impl Bar {
    /// A spinner on standard error (drawn only on a terminal).
    pub fn new() -> Bar {
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
        Bar(bar)
    }
}

impl Observer for Bar {
    fn skipped(&mut self, error: &ReplayError) {
        self.0.suspend(|| eprintln!("warning: {error}; game skipped"));
    }
    fn damaged(&mut self, input: &str, error: &str) {
        self.0.suspend(|| eprintln!("error: {input}: {error}; the rest of this input is lost"));
    }
    fn progress(&mut self, p: &Progress) {
        let s = p.seconds.max(1e-9);
        self.0.set_message(format!(
            "{} games, {:.0} games/s, {:.1} MB/s PGN ({:.1} MB/s read)",
            p.games,
            p.games as f64 / s,
            p.text_bytes as f64 / 1e6 / s,
            p.source_bytes as f64 / 1e6 / s
        ));
    }
}

fn print_summary(s: &Summary, from_index: bool) {
    let rejected: Vec<String> = Rejection::ALL
        .iter()
        .zip(s.rejected)
        .filter(|(_, n)| *n > 0)
        .map(|(r, n)| format!("{n} by {}", r.name()))
        .collect();
    let secs = s.seconds.max(1e-9);
    eprintln!(
        "summary: {} games read, {} kept, {} filtered out{}, {} skipped (illegal move or bad FEN), {} input(s) damaged",
        s.games,
        s.kept,
        s.rejected.iter().sum::<u64>(),
        if rejected.is_empty() { String::new() } else { format!(" ({})", rejected.join(", ")) },
        s.skipped,
        s.damaged.len()
    );
    if from_index {
        eprintln!(
            "summary: {} indexed games in {:.2} s ({:.2} s replaying them, {:.2} s counting): {:.0} games/s; {} events, {} run(s) spilled; peak memory {} MB",
            s.games,
            s.seconds,
            s.count_seconds,
            s.seconds - s.count_seconds,
            s.games as f64 / secs,
            s.events,
            s.runs,
            build::peak_rss_kb().map_or_else(|| "?".into(), |k| (k / 1024).to_string())
        );
        return;
    }
    eprintln!(
        "summary: {:.1} MB PGN ({:.1} MB read) in {:.2} s ({:.2} s reading the games, {:.2} s counting): {:.1} MB/s, {:.0} games/s; {} events, {} run(s) spilled ({} events), {} bucket(s) split again; peak memory {} MB",
        s.text_bytes as f64 / 1e6,
        s.source_bytes as f64 / 1e6,
        s.seconds,
        s.count_seconds,
        s.seconds - s.count_seconds,
        s.text_bytes as f64 / 1e6 / secs,
        s.games as f64 / secs,
        s.events,
        s.runs,
        s.spilled_events,
        s.splits,
        build::peak_rss_kb().map_or_else(|| "?".into(), |k| (k / 1024).to_string())
    );
}

pub fn build(args: BuildArgs) -> anyhow::Result<ExitCode> {
    let target = args.target()?;
    let from_explorer = if args.from_explorer.is_empty() { None } else { Some(args.explorer_filter()?) };
    let options = BuildOptions {
        filters: if from_explorer.is_some() { Filters::default() } else { args.filters()? },
        threads: args.threads.clamp(1, 256),
        memory_mb: args.memory.max(1),
        temp_dir: args.temp_dir.clone(),
        allow_damaged: args.allow_damaged,
        ..BuildOptions::new(target.clone())
    };
    let mut observer = Bar::new();
    let result = match &from_explorer {
        Some(filter) => build::build_from_explorer(&args.from_explorer, filter, &args.out, &options, &mut observer),
        None => build::build(&args.pgn, &args.out, &options, &mut observer),
    };
    observer.0.finish_and_clear();
    let summary = match result {
        Ok(s) => s,
        Err(BuildError::Damaged { summary }) => {
            print_summary(&summary, from_explorer.is_some());
            return Err(BuildError::Damaged { summary }.into());
        }
        Err(BuildError::Explorer { path, source }) => return Err(index_error(&path, &source)),
        Err(e) => return Err(e.into()),
    };
    print_summary(&summary, from_explorer.is_some());
    let what = if matches!(target, Target::Yacb { .. }) { "positions" } else { "entries" };
    println!(
        "{} games, {} skipped, {} {what} written to {}",
        summary.games,
        summary.skipped,
        summary.entries,
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}
