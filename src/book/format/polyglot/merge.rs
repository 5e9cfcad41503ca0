//! Merging Polyglot books byte for byte as `polyglot merge-book -in1 A -in2
//! B` (PolyGlot 2.0.4, Debian's tool) does.
//!
//! The tool walks both books at once, key by key (keys ascending). A key
//! found in one book only keeps that book's entries. For a key in both, the
//! output is the first book's entries for it, in their order, each second-
//! book entry with the same move adding its weight to the *first* of them
//! (weights wrap at 65536, as the tool's 16-bit counter; learn values stay
//! the first book's); then the second book's entries whose move the first
//! book lacks for that key, in their order (not combined among themselves).
//! A book's entries for a key are those next to each other in the file.
//! More than two books merge as the tool run again on the previous output
//! with the next book.
//!
//! Differences from the tool, all on input it would misread: a file whose
//! length is not a multiple of 16 (the tool ignores the trailing bytes) or
//! whose keys are not sorted is rejected with the offset (by
//! [`PolyglotBook`]), and the output is written atomically.

use super::{PolyglotBook, PolyglotEntry, PolyglotError};
use crate::codec::IoAt;
use std::path::Path;

/// The entries of `books` merged as `polyglot merge-book` merges them, in
/// output order.
pub fn merge(books: &[PolyglotBook]) -> Vec<PolyglotEntry> {
    let mut iter = books.iter();
    let first: Vec<PolyglotEntry> = iter.next().map(|b| b.iter().collect()).unwrap_or_default();
    iter.fold(first, |acc, b| merge_two(&acc, &b.iter().collect::<Vec<_>>()))
}

/// End of the run of entries sharing the key of `x[i]`.
fn group_end(x: &[PolyglotEntry], i: usize) -> usize {
    let key = x[i].key;
    i + x[i..].iter().take_while(|e| e.key == key).count()
}

/// `polyglot merge-book` on two entry lists (see the module documentation).
pub fn merge_two(a: &[PolyglotEntry], b: &[PolyglotEntry]) -> Vec<PolyglotEntry> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), y) if y.map_or(true, |y| x.key < y.key) => {
                out.push(*x);
                i += 1;
            }
            (x, Some(y)) if x.map_or(true, |x| x.key > y.key) => {
                out.push(*y);
                j += 1;
            }
            _ => {
                let (ie, je) = (group_end(a, i), group_end(b, j));
                let start = out.len();
                out.extend_from_slice(&a[i..ie]);
                let mut new = Vec::new();
                for e in &b[j..je] {
                    match out[start..].iter_mut().find(|x| x.raw_move == e.raw_move) {
                        Some(x) => x.weight = x.weight.wrapping_add(e.weight),
                        None => new.push(*e),
                    }
                }
                out.extend(new);
                (i, j) = (ie, je);
            }
        }
    }
    out
}

/// Writes `entries` in the order given (no re-sorting: the merge order is
/// the tool's), atomically.
pub fn write_in_order(path: &Path, entries: &[PolyglotEntry]) -> Result<(), PolyglotError> {
    let mut bytes = Vec::with_capacity(entries.len() * super::ENTRY_LEN);
    for e in entries {
        bytes.extend_from_slice(&e.to_bytes());
    }
    Ok(super::super::write_atomic(path, &bytes).at(path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(entries: &[(u64, u16, u16, u32)]) -> PolyglotBook {
        let mut v = Vec::new();
        for &(key, raw_move, weight, learn) in entries {
            v.extend_from_slice(&PolyglotEntry { key, raw_move, weight, learn }.to_bytes());
        }
        PolyglotBook::from_bytes(v).unwrap()
    }

    fn tuples(entries: &[PolyglotEntry]) -> Vec<(u64, u16, u16, u32)> {
        entries.iter().map(|e| (e.key, e.raw_move, e.weight, e.learn)).collect()
    }

    #[test]
    fn shared_moves_add_their_weights_to_the_first_books_entry() {
        let a = book(&[(1, 10, 5, 7), (1, 11, 50, 0), (1, 10, 3, 0), (4, 12, 1, 0)]);
        let b = book(&[(1, 12, 8, 0), (1, 10, 20, 9), (1, 12, 1, 0), (1, 10, 1, 0), (2, 13, 3, 0), (9, 15, 2, 0)]);
        let merged = tuples(&merge(&[a, b]));
        assert_eq!(
            merged,
            [
                (1, 10, 26, 7),
                (1, 11, 50, 0),
                (1, 10, 3, 0),
                (1, 12, 8, 0),
                (1, 12, 1, 0),
                (2, 13, 3, 0),
                (4, 12, 1, 0),
                (9, 15, 2, 0)
            ]
        );
    }

    #[test]
    fn weights_wrap_at_65536_as_the_tools_counter() {
        let a = book(&[(1, 10, 40000, 0)]);
        let b = book(&[(1, 10, 40000, 0)]);
        assert_eq!(tuples(&merge(&[a, b])), [(1, 10, 14464, 0)]);
    }

    #[test]
    fn three_books_merge_as_the_tool_run_twice() {
        let a = book(&[(3, 1, 1, 0)]);
        let b = book(&[(1, 2, 1, 0), (3, 3, 1, 0)]);
        let c = book(&[(3, 1, 4, 0), (3, 4, 1, 0), (5, 5, 1, 0)]);
        let merged = tuples(&merge(&[a, b, c]));
        assert_eq!(merged, [(1, 2, 1, 0), (3, 1, 5, 0), (3, 3, 1, 0), (3, 4, 1, 0), (5, 5, 1, 0)]);
    }

    #[test]
    fn merging_with_an_empty_book_copies_the_other() {
        let a = book(&[(1, 10, 5, 0), (2, 11, 1, 3)]);
        let empty = book(&[]);
        assert_eq!(tuples(&merge(&[empty, a])), [(1, 10, 5, 0), (2, 11, 1, 3)]);
    }
}
