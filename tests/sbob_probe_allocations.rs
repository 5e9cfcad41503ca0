//! SBOB is probed in place (`SbobFile::lookup`): one hash, one probe
//! sequence over the file's bytes, and no allocation beyond the answer.
//! A counting allocator (this test binary's own) holds it: at most 1 + the
//! number of moves allocations per probe, none for a miss.

use archivist::board::Board;
use archivist::book::format::sbob::{self, SbobBook, SbobFile, SbobPosition};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counter is a thread-local `Cell` with no destructor, which allocates
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `alloc` is passed on as it is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
        // SAFETY: the caller's contract for `realloc` is passed on as it is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let out = f();
    (out, ALLOCATIONS.with(Cell::get) - before)
}

#[test]
fn an_sbob_probe_allocates_only_its_answer() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/sbob_golden.sbob");
    let golden = SbobFile::from_bytes(std::fs::read(path).unwrap()).unwrap();
    probe_every_position(&golden);
    probe_every_position(&SbobFile::from_bytes(sbob::encode(&walked_book(500)).unwrap()).unwrap());
}

/// The first `count` positions of a breadth-first walk from the start
/// position, each with all its legal moves (weights 1, 2, ...).
fn walked_book(count: usize) -> SbobBook {
    let mut positions = Vec::new();
    let mut queue = std::collections::VecDeque::from([Board::startpos()]);
    let mut seen = std::collections::HashSet::new();
    while let Some(mut b) = queue.pop_front() {
        if positions.len() == count {
            break;
        }
        if !seen.insert(b.key()) {
            continue;
        }
        let legal = b.legal_moves();
        let moves = legal.iter().enumerate().map(|(i, m)| sbob::from_chess_move(&b, m, i as u32 + 1, 0)).collect();
        positions.push(SbobPosition { fen: b.fen(), moves });
        for m in legal.iter() {
            b.make_move(m);
            let mut child = b.clone();
            child.clear_history();
            queue.push_back(child);
            b.unmake_move();
        }
    }
    SbobBook { positions }
}

fn probe_every_position(file: &SbobFile) {
    let positions = file.book().positions.clone();
    for p in &positions {
        // A query with other move counters finds the same position.
        let mut fields: Vec<&str> = p.fen.split_whitespace().take(4).collect();
        fields.extend(["7", "42"]);
        let query = fields.join(" ");
        let (found, n) = allocations_during(|| file.lookup(&query));
        assert_eq!(found.as_ref(), Some(p), "{query}");
        assert!(n <= 1 + p.moves.len(), "{n} allocations for {} moves: {query}", p.moves.len());
        drop(found);
    }
    let (missing, n) = allocations_during(|| file.lookup("8/8/8/8/8/8/8/K6k w - - 0 1"));
    assert_eq!((missing, n), (None, 0));
}
