//! Opening names: the named lines of lichess-org/chess-openings (CC0,
//! `books/openings/*.tsv`, built into the binary), each naming the position
//! its moves reach, found by the explorer's position key
//! ([`crate::board::Board::key_legal_ep`], so a transposition
//! gets the name too). As Lichess: a position's name is an exact match; a
//! line's is the last exact match along it.

use crate::board::Board;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A named opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Opening {
    pub eco: &'static str,
    pub name: &'static str,
}

const TABLES: [&str; 5] = [
    include_str!("../../books/openings/a.tsv"),
    include_str!("../../books/openings/b.tsv"),
    include_str!("../../books/openings/c.tsv"),
    include_str!("../../books/openings/d.tsv"),
    include_str!("../../books/openings/e.tsv"),
];

fn table() -> &'static HashMap<u64, Opening> {
    static TABLE: OnceLock<HashMap<u64, Opening>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map = HashMap::new();
        for line in TABLES.iter().flat_map(|t| t.lines().skip(1)) {
            let mut fields = line.split('\t');
            let (Some(eco), Some(name), Some(pgn)) = (fields.next(), fields.next(), fields.next()) else { continue };
            let mut b = Board::startpos();
            let played = pgn.split_whitespace().filter(|t| !t.ends_with('.')).all(|san| match b.parse_san(san) {
                Ok(m) => {
                    b.make_move(m);
                    true
                }
                Err(_) => false,
            });
            if played {
                // The first line naming a position keeps it.
                map.entry(b.key_legal_ep()).or_insert(Opening { eco, name });
            }
        }
        map
    })
}

/// The opening named exactly by this position, if any.
pub fn named(board: &Board) -> Option<Opening> {
    table().get(&board.key_legal_ep()).copied()
}

/// How many positions are named.
pub fn count() -> usize {
    table().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_names_its_position_and_transpositions_share_the_name() {
        assert!(count() > 3700, "{}", count());
        let mut b = Board::startpos();
        assert_eq!(named(&b), None);
        for san in ["e4", "e5", "Nf3", "Nc6", "Bb5"] {
            let m = b.parse_san(san).unwrap();
            b.make_move(m);
        }
        assert_eq!(named(&b).map(|o| (o.eco, o.name)), Some(("C60", "Ruy Lopez")));
        let mut t = Board::startpos();
        for san in ["Nf3", "Nc6", "e4", "e5", "Bb5"] {
            let m = t.parse_san(san).unwrap();
            t.make_move(m);
        }
        assert_eq!(named(&t), named(&b));
    }
}
