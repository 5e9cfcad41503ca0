//! `archivist serve`: the local service ([`crate::serve`]).

use crate::serve::{Limits, ServeOptions, DEFAULT_LISTEN, EXPLORER_CACHE_MB};
use anyhow::Context;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// See books, tablebases and a saved table by position in a browser; with
/// `--lichess`/`--masters`, answer as Lichess's opening explorer; with
/// `--web DIR`, also serve the browser build's site under `/web/`.
#[derive(clap::Args, Debug)]
#[command(after_help = "Every option is optional. `archivist serve --web target/web` serves the browser \
build's site alone (`make wasm` assembles it): open http://127.0.0.1:9090/web/. Its page opens books \
from disk, converts and saves them, and runs the engine in the browser; the site cannot run from a \
file:// address, which loads no module scripts or workers.")]
pub struct ServeArgs {
    /// A book to show (Polyglot, ABK, YACB; SBOB and JSON are listed as
    /// not playable); repeat for several. Requests choose one by file name.
    #[arg(long = "book")]
    pub books: Vec<PathBuf>,
    /// Syzygy directories, `:`-separated (as the `SyzygyPath` option).
    #[arg(long)]
    pub syzygy: Option<String>,
    /// A saved transposition table (SFTT) whose analysis is shown.
    #[arg(long)]
    pub hash_file: Option<PathBuf>,
    /// Address and port to listen on; anything but loopback exposes the
    /// service to the network.
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: SocketAddr,
    /// Live searches at most at once (others get 429).
    #[arg(long, default_value_t = 2)]
    pub searches: usize,
    /// Table of each live search, in MB.
    #[arg(long, default_value_t = 64)]
    pub search_hash: usize,
    /// A live search stops after this many seconds.
    #[arg(long, default_value_t = 30)]
    pub search_seconds: u64,
    /// Open connections at most (more wait to be accepted).
    #[arg(long, default_value_t = Limits::default().max_connections)]
    pub max_connections: usize,
    /// Seconds a connection has to send a whole request head (slow or idle
    /// connections are closed after it).
    #[arg(long, default_value_t = Limits::default().header_seconds)]
    pub header_seconds: u64,
    /// An explorer index served as Lichess's explorer (`/lichess`,
    /// `/player`); repeat for shards served together.
    #[arg(long = "lichess")]
    pub lichess: Vec<PathBuf>,
    /// An explorer index served as Lichess's masters database (`/masters`);
    /// repeat for shards.
    #[arg(long = "masters")]
    pub masters: Vec<PathBuf>,
    /// Seconds within which a request is answered, or 503.
    #[arg(long, default_value_t = Limits::default().request_seconds)]
    pub request_seconds: u64,
    /// A folder served as a static site under `/web/` (`/web/` is its
    /// index.html), such as the browser build in `target/web/`: the page
    /// runs books, conversions and the engine in the browser itself. Only
    /// files inside DIR are served; it must be a directory.
    #[arg(long, value_name = "DIR")]
    pub web: Option<PathBuf>,
    /// MB of `/standard` answers kept by position, so that a position
    /// asked again is answered at once (0 keeps none).
    #[arg(long, default_value_t = 128)]
    pub tb_cache_mb: usize,
    /// MB of `/lichess` and `/masters` answers kept by query, so that a
    /// question asked again is answered at once (0 keeps none).
    #[arg(long, default_value_t = EXPLORER_CACHE_MB)]
    pub explorer_cache_mb: usize,
}

pub fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    crate::logging::init();
    let options = ServeOptions {
        books: args.books,
        syzygy: args.syzygy,
        hash_file: args.hash_file,
        listen: args.listen,
        searches: args.searches,
        search_hash_mb: args.search_hash,
        search_seconds: args.search_seconds,
        lichess: args.lichess,
        masters: args.masters,
        web: args.web,
        tb_cache_bytes: args.tb_cache_mb.saturating_mul(1 << 20),
        explorer_cache_bytes: args.explorer_cache_mb.saturating_mul(1 << 20),
        limits: Limits {
            max_connections: args.max_connections,
            header_seconds: args.header_seconds,
            request_seconds: args.request_seconds,
            ..Limits::default()
        },
    };
    let site = options.web.is_some();
    crate::serve::run(&options, |addr| {
        // Tests and scripts read this line to learn the port (`--listen 127.0.0.1:0`).
        println!("listening on http://{addr}/");
        if site {
            println!("the site: http://{addr}/web/");
        }
    })
    .context("archivist serve")?;
    Ok(ExitCode::SUCCESS)
}
