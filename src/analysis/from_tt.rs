//! `book from-tt`: a YACB book from a saved transposition table (SFTT), the
//! seed's one-way conversion.
//!
//! A TT entry has a key but no position, and its value and bound are from
//! the side to move's view, which the key alone does not tell. So the
//! conversion walks: from the file's `root_pos` (the start position when the
//! file has none) and every extra root, through each legal move whose
//! resulting position has an entry, breadth first. Every position reached
//! this way knows its side to move, and its entry becomes a YACB entry
//! (see [`crate::search::book::value_to_entry`]): value and bound in white's view, source
//! TT, best move the TT move when it is legal there (none otherwise), elo
//! from the entry's depth ([`crate::book::format::elo::estimate_for_depth`]).
//! Entries below `min_depth`, entries without a value, and entries the walk
//! never reaches are dropped and counted.

use crate::board::Board;
use crate::book::format::elo;
use crate::book::format::yacb::{Elo, Source, YacbEntry};
use crate::search::book::value_to_entry;
use crate::tt::persist::{self, SfttError};
use crate::tt::TtEntry;
use crate::types::Move;
use std::collections::HashMap;

/// What the conversion kept and dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FromTtStats {
    pub entries_in_file: u64,
    pub below_min_depth: u64,
    pub written: u64,
    pub unreached: u64,
    pub without_value: u64,
    pub illegal_moves: u64,
}

/// Converts a whole SFTT image (validated here) into sorted YACB entries.
pub fn convert(
    bytes: &[u8],
    min_depth: i32,
    extra_roots: &[Board],
) -> Result<(Vec<YacbEntry>, FromTtStats), SfttError> {
    let (header, count) = persist::validate(bytes)?;
    let mut stats = FromTtStats { entries_in_file: count, ..FromTtStats::default() };
    let mut table: HashMap<u64, TtEntry> = HashMap::with_capacity(count as usize);
    for e in persist::entries(bytes) {
        if e.depth() < min_depth {
            stats.below_min_depth += 1;
            continue;
        }
        // A key may appear twice (two slots); the deeper entry wins.
        match table.get(&e.key) {
            Some(old) if old.depth() >= e.depth() => {}
            _ => {
                table.insert(e.key, e);
            }
        }
    }
    let mut roots = Vec::new();
    match header.root_pos.as_deref().map(|f| Board::from_fen(f, false)) {
        Some(Ok(b)) => roots.push(b),
        Some(Err(e)) => return Err(SfttError::BadRootPos { offset: 5, reason: e.to_string() }),
        None => roots.push(Board::startpos()),
    }
    roots.extend(extra_roots.iter().cloned());

    let mut out = Vec::new();
    let visit = |board: &Board, legal: &crate::board::MoveList| {
        let Some(e) = table.get(&board.key()) else { return };
        match value_to_entry(e.value as i32, e.bound(), board.side_to_move()) {
            Some((value_type, bound, value)) => {
                let tt_move = e.best_move();
                let best_move = legal.iter().find(|m| m.raw() == tt_move.raw()).unwrap_or(Move::NONE);
                if best_move.is_none() && !tt_move.is_none() {
                    stats.illegal_moves += 1;
                }
                out.push(YacbEntry {
                    key: e.key,
                    elo: Elo::rated(elo::estimate_for_depth(e.depth())),
                    value_type,
                    bound,
                    source: Source::Tt,
                    value,
                    best_move,
                });
            }
            None => stats.without_value += 1,
        }
    };
    crate::book::format::walk_known(&roots, usize::MAX, Board::key, visit, |_, _, k| table.contains_key(&k));
    let reached = out.len() as u64 + stats.without_value;
    stats.unreached = table.len() as u64 - reached;
    stats.written = out.len() as u64;
    out.sort_by_key(|e| e.key);
    Ok((out, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::format::yacb::BoundType;
    use crate::search::{Limits, SearchConfig, Searcher};
    use crate::tt::persist::SfttHeader;
    use crate::tt::Bound;

    /// Searches `fen`, saves the table as SFTT and reads the file back.
    fn saved_table(fen: &str, name: &str) -> (Vec<u8>, crate::search::Outcome, Searcher) {
        let board = Board::from_fen(fen, false).unwrap();
        let mut searcher = Searcher::new(4, 1);
        let limits = Limits { depth: Some(9), ..Limits::default() };
        let control = searcher.control(false);
        let out = searcher.search(&board, &limits, &SearchConfig::default(), &control, None);
        let dir = std::env::temp_dir().join(format!("archivist-fromtt-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("h.sftt");
        let header =
            SfttHeader { root_pos: Some(fen.to_string()), nodes: out.nodes, root_depth: 9, min_entry_depth: 1 };
        crate::tt::persist::save(searcher.tt(), &header, &path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (bytes, out, searcher)
    }

    #[test]
    fn from_tt_on_a_saved_table_keeps_the_root_and_flips_black_bounds() {
        let fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 2";
        let (bytes, out, searcher) = saved_table(fen, "black");
        let (entries, stats) = convert(&bytes, 1, &[]).unwrap();
        assert!(entries.len() > 50, "{stats:?}");
        assert_eq!(stats.written, entries.len() as u64);
        assert_eq!(
            stats.entries_in_file,
            stats.below_min_depth + stats.written + stats.unreached + stats.without_value
        );
        assert!(entries.windows(2).all(|w| w[0].key < w[1].key));
        let board = Board::from_fen(fen, false).unwrap();
        let root = entries.iter().find(|e| e.key == board.key()).expect("the root entry");
        let tte = searcher.tt().probe(board.key()).unwrap();
        assert_eq!(root.best_move, out.best, "the TT move at the root is the search's best move");
        assert_eq!(root.value, -(tte.value as i32), "black to move: value turned to white's view");
        let expected = match tte.bound() {
            Bound::Lower => BoundType::Upper,
            Bound::Upper => BoundType::Lower,
            _ => BoundType::Exact,
        };
        assert_eq!(root.bound, expected);
        assert_eq!(root.source, Source::Tt);
        assert_eq!(root.elo, Elo::rated(elo::estimate_for_depth(tte.depth())));
        // Every kept best move is legal where the walk met the position.
        let mut b = board.clone();
        for m in b.legal_moves().iter() {
            b.make_move(m);
            if let Some(e) = entries.iter().find(|e| e.key == b.key()) {
                assert!(e.best_move.is_none() || b.is_legal(e.best_move), "{}", b.fen());
            }
            b.unmake_move();
        }
    }

    #[test]
    fn min_depth_filters_entries_and_a_corrupt_file_is_refused() {
        let (bytes, _, _) = saved_table(Board::START_FEN, "depth");
        let (all, _) = convert(&bytes, 1, &[]).unwrap();
        let (deep, stats) = convert(&bytes, 6, &[]).unwrap();
        assert!(deep.len() < all.len() && !deep.is_empty());
        assert!(stats.below_min_depth > 0);
        let mut bad = bytes.clone();
        bad.truncate(bytes.len() - 3);
        assert!(matches!(convert(&bad, 1, &[]), Err(SfttError::BadSize { .. })));
    }
}
