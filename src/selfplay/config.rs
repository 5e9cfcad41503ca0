//! Self-play presets: `configs/selfplay.toml` and the command line fill the
//! same [`Preset`]; command-line values override the file's, which override
//! the built-in defaults. [`Preset::resolve`] turns the result into
//! [`Settings`] and names what is missing or out of range.

use super::adjudication::ScoreRules;
use super::{SearchLimit, Settings};
use serde::Deserialize;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

pub const DEFAULT_NODES: u64 = 5000;
pub const DEFAULT_HASH_MB: usize = 16;
/// Table bytes per node of the hard node limit when the hash is sized to it.
pub const HASH_BYTES_PER_NODE: u64 = 32;

/// The hash when none is given: sized to the hard node limit (about
/// [`HASH_BYTES_PER_NODE`] a node, a power of two from 1 to
/// [`DEFAULT_HASH_MB`] MB), so a node-limited search works in a table that
/// fits the cache and a new game clears little; depth limits get the default.
/// (40,000 nodes: 2 MB, against 16 MB before, +10 % positions/s.)
pub fn hash_for(limit: SearchLimit) -> usize {
    match limit {
        SearchLimit::Nodes(n) => {
            let mb = n.saturating_mul(HASH_BYTES_PER_NODE).div_ceil(1 << 20).max(1);
            (mb.next_power_of_two() as usize).min(DEFAULT_HASH_MB)
        }
        SearchLimit::Depth(_) => DEFAULT_HASH_MB,
    }
}
pub const DEFAULT_MAX_PLIES: u32 = 400;
pub const DEFAULT_OPENING_CP_LIMIT: i32 = 400;
/// Random plies when no book or openings file is given.
pub const DEFAULT_RANDOM_PLIES: u32 = 8;
/// The hard node limit is this many times `soft_nodes` when only the soft
/// limit is given.
pub const SOFT_TO_HARD_NODES: u64 = 8;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("{0}")]
    Invalid(String),
}

/// Every setting, each optional: a TOML preset or the command line.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    pub out: Option<PathBuf>,
    pub append: Option<bool>,
    pub games: Option<u64>,
    /// Play until the file holds this many games (implies `append`).
    pub fill: Option<u64>,
    pub nodes: Option<u64>,
    /// Soft node limit: no new iteration once the nodes pass it.
    pub soft_nodes: Option<u64>,
    pub depth: Option<i32>,
    /// Records without visit distributions (5 bytes a position).
    pub value_only: Option<bool>,
    pub threads: Option<usize>,
    pub hash: Option<usize>,
    pub seed: Option<u64>,
    pub book: Option<PathBuf>,
    pub openings: Option<PathBuf>,
    pub random_plies: Option<u32>,
    pub syzygy: Option<String>,
    /// A network file the players evaluate with.
    pub eval_file: Option<PathBuf>,
    /// The players use the hand-written evaluation even when the binary has
    /// a built-in network (which is their default otherwise).
    pub hand_written: Option<bool>,
    pub chess960: Option<bool>,
    pub max_plies: Option<u32>,
    pub opening_cp_limit: Option<i32>,
    pub win_cp: Option<i32>,
    pub win_plies: Option<u32>,
    pub draw_cp: Option<i32>,
    pub draw_plies: Option<u32>,
    pub draw_after_ply: Option<u32>,
    /// Seconds between plain progress lines (when stderr is not a terminal).
    pub progress_interval: Option<u64>,
}

impl Preset {
    /// Reads a TOML preset; unknown keys are errors naming them.
    pub fn load(path: &std::path::Path) -> Result<Preset, ConfigError> {
        let file = |reason: String| ConfigError::File { path: path.display().to_string(), reason };
        let text = std::fs::read_to_string(path).map_err(|e| file(e.to_string()))?;
        toml::from_str(&text).map_err(|e| file(e.to_string()))
    }

    /// `self` with every value that `over` sets replaced. A search limit in
    /// `over` (nodes, soft nodes or depth) replaces all of `self`'s, and so
    /// does a game count (games or fill).
    pub fn overridden_by(mut self, over: Preset) -> Preset {
        if over.nodes.is_some() || over.depth.is_some() || over.soft_nodes.is_some() {
            self.nodes = None;
            self.depth = None;
            self.soft_nodes = None;
        }
        if over.games.is_some() || over.fill.is_some() {
            self.games = None;
            self.fill = None;
        }
        macro_rules! take {
            ($($f:ident),*) => { $( if over.$f.is_some() { self.$f = over.$f; } )* };
        }
        take!(
            out,
            append,
            games,
            fill,
            nodes,
            soft_nodes,
            depth,
            value_only,
            threads,
            hash,
            seed,
            book,
            openings,
            random_plies,
            syzygy,
            eval_file,
            hand_written,
            chess960,
            max_plies,
            opening_cp_limit,
            win_cp,
            win_plies,
            draw_cp,
            draw_plies,
            draw_after_ply,
            progress_interval
        );
        self
    }

    /// The settings, with defaults for what is not set. `clock_seed` is the
    /// seed used when none is given.
    pub fn resolve(&self, clock_seed: u64) -> Result<Settings, ConfigError> {
        let bad = |s: &str| Err(ConfigError::Invalid(s.to_string()));
        let Some(out) = self.out.clone() else {
            return bad("no output file: give --out FILE (or `out` in the preset)");
        };
        if self.book.is_some() && self.openings.is_some() {
            return bad("give either a book or an openings file, not both");
        }
        let (limit, soft_nodes) = self.search_limit()?;
        if self.games.is_some() && self.fill.is_some() {
            return bad("give either games or fill, not both");
        }
        let threads = self.threads.unwrap_or(1);
        if !(1..=1024).contains(&threads) {
            return bad("threads must be in 1..=1024");
        }
        let hash_mb = self.hash.unwrap_or_else(|| hash_for(limit));
        if !(1..=65536).contains(&hash_mb) {
            return bad("hash must be in 1..=65536 MB");
        }
        let has_source = self.book.is_some() || self.openings.is_some();
        let defaults = ScoreRules::default();
        Ok(Settings {
            out,
            append: self.append.unwrap_or(false) || self.fill.is_some(),
            games: self.games.unwrap_or(100),
            fill: self.fill,
            limit,
            soft_nodes,
            value_only: self.value_only.unwrap_or(false),
            threads,
            hash_mb,
            seed: self.seed.unwrap_or(clock_seed),
            random_plies: self.random_plies.unwrap_or(if has_source { 0 } else { DEFAULT_RANDOM_PLIES }),
            chess960: self.chess960.unwrap_or(false),
            max_plies: self.max_plies.unwrap_or(DEFAULT_MAX_PLIES).max(1),
            opening_cp_limit: self.opening_cp_limit.unwrap_or(DEFAULT_OPENING_CP_LIMIT),
            score_rules: ScoreRules {
                win_cp: self.win_cp.unwrap_or(defaults.win_cp),
                win_plies: self.win_plies.unwrap_or(defaults.win_plies),
                draw_cp: self.draw_cp.unwrap_or(defaults.draw_cp),
                draw_plies: self.draw_plies.unwrap_or(defaults.draw_plies),
                draw_after_ply: self.draw_after_ply.unwrap_or(defaults.draw_after_ply),
            },
            progress_interval: Duration::from_secs(self.progress_interval.unwrap_or(10).max(1)),
            command: None,
        })
    }

    /// The hard limit and the soft node limit: a soft limit alone gets a
    /// hard one of [`SOFT_TO_HARD_NODES`] times it.
    fn search_limit(&self) -> Result<(SearchLimit, Option<u64>), ConfigError> {
        let bad = |s: &str| Err(ConfigError::Invalid(s.to_string()));
        match (self.nodes, self.depth, self.soft_nodes) {
            (Some(_), Some(_), _) => bad("give either nodes or depth, not both"),
            (_, Some(_), Some(_)) => bad("soft nodes go with a node limit, not with depth"),
            (Some(0), None, _) => bad("nodes must be at least 1"),
            (_, None, Some(0)) => bad("soft nodes must be at least 1"),
            (Some(n), None, Some(s)) if s > n => bad("soft nodes must not exceed nodes (the hard limit)"),
            (Some(n), None, soft) => Ok((SearchLimit::Nodes(n), soft)),
            (None, None, Some(s)) => Ok((SearchLimit::Nodes(s.saturating_mul(SOFT_TO_HARD_NODES)), Some(s))),
            (None, Some(d), None) if (1..=100).contains(&d) => Ok((SearchLimit::Depth(d), None)),
            (None, Some(_), None) => bad("depth must be in 1..=100"),
            (None, None, None) => Ok((SearchLimit::Nodes(DEFAULT_NODES), None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_preset_parses_and_matches_built_in_defaults() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("configs/selfplay.toml");
        let preset = Preset::load(&path).unwrap();
        let with_out = preset.overridden_by(Preset { out: Some("x.bin".into()), ..Preset::default() });
        let from_file = with_out.resolve(7).unwrap();
        let built_in = Preset { out: Some("x.bin".into()), ..Preset::default() }.resolve(7).unwrap();
        assert_eq!(from_file, built_in);
    }

    #[test]
    fn command_line_limit_replaces_preset_limit() {
        let file = Preset { nodes: Some(100), games: Some(5), out: Some("a".into()), ..Preset::default() };
        let cli = Preset { depth: Some(6), ..Preset::default() };
        let s = file.overridden_by(cli).resolve(0).unwrap();
        assert_eq!(s.limit, SearchLimit::Depth(6));
        assert_eq!(s.games, 5);
    }

    #[test]
    fn rejects_unknown_keys_and_bad_values() {
        assert!(toml::from_str::<Preset>("nodez = 5").is_err());
        let p = Preset { out: Some("a".into()), ..Preset::default() };
        assert!(Preset { nodes: Some(0), ..p.clone() }.resolve(0).is_err());
        assert!(Preset { threads: Some(0), ..p.clone() }.resolve(0).is_err());
        assert!(Preset { book: Some("b".into()), openings: Some("o".into()), ..p }.resolve(0).is_err());
        assert!(Preset::default().resolve(0).is_err());
    }

    #[test]
    fn soft_nodes_alone_get_a_hard_limit_of_eight_times() {
        let p = Preset { out: Some("a".into()), soft_nodes: Some(5000), ..Preset::default() };
        let s = p.resolve(0).unwrap();
        assert_eq!((s.limit, s.soft_nodes), (SearchLimit::Nodes(40_000), Some(5000)));
        assert_eq!(s.limits().soft_nodes, Some(5000));
        assert_eq!(s.limits().nodes, Some(40_000));
        let both = Preset { nodes: Some(9000), ..p.clone() }.resolve(0).unwrap();
        assert_eq!((both.limit, both.soft_nodes), (SearchLimit::Nodes(9000), Some(5000)));
        assert_eq!(Preset { out: Some("a".into()), ..Preset::default() }.resolve(0).unwrap().limits().soft_nodes, None);
        assert!(Preset { nodes: Some(4000), ..p.clone() }.resolve(0).is_err());
        assert!(Preset { depth: Some(5), ..p.clone() }.resolve(0).is_err());
        assert!(Preset { soft_nodes: Some(0), ..p }.resolve(0).is_err());
    }

    #[test]
    fn command_line_soft_nodes_replace_the_preset_node_limit() {
        let file = toml::from_str::<Preset>("nodes = 5000\nvalue_only = true\nsoft_nodes = 100").unwrap();
        let cli = Preset { soft_nodes: Some(2000), out: Some("a".into()), ..Preset::default() };
        let s = file.overridden_by(cli).resolve(0).unwrap();
        assert_eq!((s.limit, s.soft_nodes, s.value_only), (SearchLimit::Nodes(16_000), Some(2000), true));
    }

    #[test]
    fn fill_implies_append_and_excludes_games() {
        let p = Preset { out: Some("a".into()), fill: Some(50), ..Preset::default() };
        let s = p.clone().resolve(0).unwrap();
        assert!(s.append);
        assert_eq!(s.fill, Some(50));
        assert!(Preset { games: Some(3), ..p.clone() }.resolve(0).is_err());
        let s = p.overridden_by(Preset { games: Some(3), ..Preset::default() }).resolve(0).unwrap();
        assert_eq!((s.games, s.fill, s.append), (3, None, false));
    }

    #[test]
    fn hash_is_sized_to_the_node_limit_unless_given() {
        assert_eq!(hash_for(SearchLimit::Nodes(40_000)), 2);
        assert_eq!(hash_for(SearchLimit::Nodes(5_000)), 1);
        assert_eq!(hash_for(SearchLimit::Nodes(10_000_000)), DEFAULT_HASH_MB);
        assert_eq!(hash_for(SearchLimit::Depth(8)), DEFAULT_HASH_MB);
        let p = Preset { out: Some("a".into()), soft_nodes: Some(5000), ..Preset::default() };
        assert_eq!(p.clone().resolve(0).unwrap().hash_mb, 2);
        assert_eq!(Preset { hash: Some(16), ..p }.resolve(0).unwrap().hash_mb, 16);
    }

    #[test]
    fn random_plies_default_depends_on_an_opening_source() {
        let p = Preset { out: Some("a".into()), ..Preset::default() };
        assert_eq!(p.resolve(0).unwrap().random_plies, DEFAULT_RANDOM_PLIES);
        assert_eq!(Preset { openings: Some("o.epd".into()), ..p }.resolve(0).unwrap().random_plies, 0);
    }
}
