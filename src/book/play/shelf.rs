//! The books `BookFile` (or a per-colour list) names, opened and verified
//! once, in order: what play ([`super::select`]) chooses from and what the
//! search's `BookInSearch` probes. It holds no play policy.

use super::Book;
use crate::board::Board;
use crate::book::format::yacb::YacbEntry;
use std::path::PathBuf;

/// The books named by `BookFile`, probed in order.
#[derive(Default)]
pub struct OpeningBooks {
    books: Vec<(PathBuf, Book)>,
}

impl OpeningBooks {
    /// Opens and fully verifies every book in a `:`-separated list (through
    /// [`super::open()`]). Returns the usable books and a message per
    /// file that could not be used, naming the file and, for a damaged one,
    /// the byte offset. YACB, Polyglot and ABK books are played; SBOB and JSON
    /// books are refused with the command that converts them.
    pub fn open(list: &str) -> (OpeningBooks, Vec<String>) {
        let mut books = Vec::new();
        let mut problems = Vec::new();
        for p in list.split(':').map(str::trim).filter(|p| !p.is_empty()) {
            let path = PathBuf::from(p);
            match super::open(&path) {
                Ok(b) => match b.playable() {
                    Ok(_) => books.push((path, b)),
                    Err(e) => problems.push(format!("{p}: {e}")),
                },
                Err(e) => problems.push(format!("{p}: {e}")),
            }
        }
        (OpeningBooks { books }, problems)
    }

    pub fn is_empty(&self) -> bool {
        self.books.is_empty()
    }

    pub fn len(&self) -> usize {
        self.books.len()
    }

    pub fn entries(&self) -> usize {
        self.books.iter().map(|(_, b)| b.len()).sum()
    }

    /// Paths of the YACB books, in order.
    pub fn yacb_paths(&self) -> impl Iterator<Item = &PathBuf> + '_ {
        self.books.iter().filter(|(_, b)| matches!(b, Book::Yacb(_))).map(|(p, _)| p)
    }

    /// The books with their paths, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&PathBuf, &Book)> + '_ {
        self.books.iter().map(|(p, b)| (p, b))
    }

    /// The YACB entry for the current position from the first YACB book
    /// that has one (for book-in-search).
    pub fn probe(&self, board: &Board) -> Option<YacbEntry> {
        self.books.iter().find_map(|(_, b)| match b {
            Book::Yacb(y) => y.probe(board),
            _ => None,
        })
    }
}
