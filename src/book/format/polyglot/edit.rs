//! Editing the weights of one position of a Polyglot book.
//!
//! [`edit`] returns the book's entries with the changes applied to the
//! entries of one position (its Polyglot key): `Set` gives a move a weight,
//! adding an entry (learn 0) when the move has none; `Remove` drops the
//! move's entries. A move is matched to an entry as the engine reads the
//! book ([`decode_move`]), so `e1g1` and `e1h1` are the same castling move.
//! The position's entries are then put back in book order (heaviest first,
//! equal weights in their previous order); every other entry, including
//! entries of the key whose move is not legal in the position (a hash
//! collision), keeps its bytes and place.

use super::{decode_move, entry_for, PolyglotBook, PolyglotEntry};
use crate::board::zobrist::polyglot_key;
use crate::board::Board;
use crate::types::Move;

/// One change to a position's moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Set(Move, u16),
    Remove(Move),
}

/// What [`edit`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditReport {
    pub updated: usize,
    pub added: usize,
    pub removed: usize,
}

/// The entries of `book` with `changes` applied to `board`'s position, in
/// file order (see the module documentation). Each move in `changes` must
/// be legal in `board`.
pub fn edit(book: &PolyglotBook, board: &Board, changes: &[Change]) -> (Vec<PolyglotEntry>, EditReport) {
    let key = polyglot_key(board);
    let range = book.range(key);
    let legal = board.legal_moves();
    let mut group: Vec<PolyglotEntry> = range.clone().filter_map(|i| book.entry(i)).collect();
    let mut report = EditReport::default();
    for change in changes {
        let (Change::Set(mv, _) | Change::Remove(mv)) = *change;
        let is_mv = |e: &PolyglotEntry| decode_move(board, &legal, e.raw_move) == Some(mv);
        match *change {
            Change::Set(_, weight) => {
                let mut found = false;
                for e in group.iter_mut().filter(|e| is_mv(e)) {
                    e.weight = weight;
                    found = true;
                    report.updated += 1;
                }
                if !found {
                    group.push(entry_for(board, mv, weight, 0));
                    report.added += 1;
                }
            }
            Change::Remove(_) => {
                let before = group.len();
                group.retain(|e| !is_mv(e));
                report.removed += before - group.len();
            }
        }
    }
    group.sort_by_key(|e| std::cmp::Reverse(e.weight));
    let mut out: Vec<PolyglotEntry> = (0..range.start).filter_map(|i| book.entry(i)).collect();
    out.extend(group);
    out.extend((range.end..book.len()).filter_map(|i| book.entry(i)));
    (out, report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book_of(entries: &[PolyglotEntry]) -> PolyglotBook {
        let mut v = Vec::new();
        for e in entries {
            v.extend_from_slice(&e.to_bytes());
        }
        PolyglotBook::from_bytes(v).unwrap()
    }

    fn mv(board: &Board, uci: &str) -> Move {
        board.parse_uci(uci).unwrap()
    }

    #[test]
    fn set_updates_adds_and_reorders_only_the_position() {
        let start = Board::startpos();
        let key = polyglot_key(&start);
        let e4 = entry_for(&start, mv(&start, "e2e4"), 10, 7);
        let d4 = entry_for(&start, mv(&start, "d2d4"), 5, 0);
        let before = PolyglotEntry { key: key - 1, raw_move: 1, weight: 1, learn: 0 };
        let after = PolyglotEntry { key: key + 1, raw_move: 2, weight: 3, learn: 0 };
        let book = book_of(&[before, e4, d4, after]);
        let changes = [Change::Set(mv(&start, "d2d4"), 40), Change::Set(mv(&start, "g1f3"), 20)];
        let (out, report) = edit(&book, &start, &changes);
        assert_eq!(report, EditReport { updated: 1, added: 1, removed: 0 });
        let nf3 = entry_for(&start, mv(&start, "g1f3"), 20, 0);
        assert_eq!(out, [before, PolyglotEntry { weight: 40, ..d4 }, nf3, e4, after]);
        // The result is a valid book.
        assert!(super::super::parse(&super::super::encode(&out)).is_ok());
    }

    #[test]
    fn remove_drops_the_move_and_castling_matches_both_spellings() {
        let board = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
        let castle = mv(&board, "e1g1");
        let key = polyglot_key(&board);
        // e1g1 written king-to-destination, as some books do: 0o0406 = e1, g1.
        let kings_form = PolyglotEntry { key, raw_move: (4 << 6) | 6, weight: 9, learn: 0 };
        let other = entry_for(&board, mv(&board, "a1a2"), 3, 0);
        let book = book_of(&[kings_form, other]);
        let (out, report) = edit(&book, &board, &[Change::Remove(castle)]);
        assert_eq!(report.removed, 1);
        assert_eq!(out, [other]);
    }

    #[test]
    fn a_new_position_is_inserted_at_its_key() {
        let start = Board::startpos();
        let key = polyglot_key(&start);
        let low = PolyglotEntry { key: 1, raw_move: 1, weight: 1, learn: 0 };
        let high = PolyglotEntry { key: u64::MAX, raw_move: 2, weight: 1, learn: 0 };
        assert!(key > 1 && key < u64::MAX);
        let book = book_of(&[low, high]);
        let (out, _) = edit(&book, &start, &[Change::Set(mv(&start, "e2e4"), 2)]);
        assert_eq!(out.len(), 3);
        assert_eq!((out[0], out[2]), (low, high));
        assert_eq!(out[1].key, key);
    }
}
