//! Merging YACB books: for each key the entry with the higher elo wins, ties
//! keep the earlier book's entry, and an irreplaceable entry (0xFFFF) is
//! never replaced (it ranks above every rated value; two irreplaceable
//! entries keep the first).

use crate::book::format::yacb::{YacbBook, YacbEntry, YacbError};
use std::collections::BTreeMap;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MergeError {
    #[error(transparent)]
    Yacb(#[from] YacbError),
    #[error("book {index} uses a different key type than the first book")]
    KeyTypeMismatch { index: usize },
}

/// Merges `books` (in priority order for ties) into sorted entries.
pub fn merge(books: &[YacbBook]) -> Result<Vec<YacbEntry>, MergeError> {
    let mut out: BTreeMap<u64, YacbEntry> = BTreeMap::new();
    for (index, book) in books.iter().enumerate() {
        if book.key_type() != books[0].key_type() {
            return Err(MergeError::KeyTypeMismatch { index });
        }
        for e in book.iter() {
            let e = e?;
            match out.get(&e.key) {
                Some(old) if e.elo.rank() <= old.elo.rank() => {}
                _ => {
                    out.insert(e.key, e);
                }
            }
        }
    }
    Ok(out.into_values().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::book::format::yacb::{BoundType, Elo, Source, ValueType, HEADER_LEN, MAGIC};
    use crate::types::Move;

    fn e(key: u64, elo: Elo, value: i32) -> YacbEntry {
        YacbEntry {
            key,
            elo,
            value_type: ValueType::Centipawns,
            bound: BoundType::Exact,
            source: Source::Engine,
            value,
            best_move: Move::NONE,
        }
    }

    fn book(entries: &[YacbEntry]) -> YacbBook {
        let mut v = vec![0u8; HEADER_LEN];
        v[0..4].copy_from_slice(MAGIC);
        for x in entries {
            v.extend_from_slice(&x.encode());
        }
        YacbBook::from_vec(v).unwrap()
    }

    #[test]
    fn higher_elo_wins_ties_keep_first_irreplaceable_never_replaced() {
        let a = book(&[
            e(1, Elo::Rated(-100), 10),
            e(2, Elo::Rated(50), 20),
            e(3, Elo::Irreplaceable, 30),
            e(4, Elo::Rated(0), 40),
            e(6, Elo::Irreplaceable, 60),
        ]);
        let b = book(&[
            e(1, Elo::Rated(-50), 11),
            e(2, Elo::Rated(50), 21),
            e(3, Elo::Rated(i16::MAX), 31),
            e(4, Elo::Irreplaceable, 41),
            e(5, Elo::Rated(-3000), 51),
            e(6, Elo::Irreplaceable, 61),
        ]);
        let merged: Vec<(u64, i32)> = merge(&[a, b]).unwrap().iter().map(|x| (x.key, x.value)).collect();
        assert_eq!(merged, vec![(1, 11), (2, 20), (3, 30), (4, 41), (5, 51), (6, 60)]);
    }

    #[test]
    fn books_with_different_key_types_are_refused() {
        let a = book(&[e(1, Elo::Rated(0), 0)]);
        let mut v = vec![0u8; HEADER_LEN];
        v[0..4].copy_from_slice(MAGIC);
        v[5] = 1;
        v.extend(std::iter::repeat(0u8).take(781 * 8));
        let b = YacbBook::from_vec(v).unwrap();
        assert!(matches!(merge(&[a, b]), Err(MergeError::KeyTypeMismatch { index: 1 })));
    }
}
