//! `archivist serve`: the local explorer ([`crate::serve`]).

use crate::serve::{ServeOptions, DEFAULT_LISTEN};
use anyhow::Context;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

/// See books, tablebases and a saved table by position in a browser.
#[derive(clap::Args, Debug)]
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
    };
    crate::serve::run(&options, |addr| {
        // Tests and scripts read this line to learn the port (`--listen 127.0.0.1:0`).
        println!("listening on http://{addr}/");
    })
    .context("archivist serve")?;
    Ok(ExitCode::SUCCESS)
}
