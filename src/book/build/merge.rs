//! The final merge of `book build`: the sorted runs and the table's last
//! contents, read together in key order, one position at a time.
//!
//! Counts add up across sources, except where `make-book` halved them: a
//! position whose counts came from one source was counted there from its
//! first game in game order, so its halving is exact; a position split
//! across sources whose moves reach [`COUNT_MAX`] in total (or that was
//! halved in one of them) lost its order, and is "unsettled": `book build`
//! counts it again in a second pass (see [`super`]).

use super::run::{RunError, RunWriter};
use super::table::{Rec, HALVED, HEAD, SPLIT};
use crate::book::make_book::COUNT_MAX;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

/// One position's records from every source, combined.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub key: u64,
    /// The head record (YACB: visits, points, ratings).
    pub head: Option<Rec>,
    /// Move records, by move.
    pub moves: Vec<Rec>,
    /// How many sources held the position.
    pub sources: u32,
}

impl Group {
    /// Whether halving made the combined Polyglot counts unreliable.
    pub fn unsettled(&self) -> bool {
        let flagged = |flag: u8| self.moves.iter().chain(&self.head).any(|r| r.flags & flag != 0);
        let split = self.sources > 1 || flagged(SPLIT);
        split && (flagged(HALVED) || self.moves.iter().any(|r| r.n >= COUNT_MAX))
    }

    /// Adds a record of the position (records of one move come one after
    /// another). A move's first record is taken whole: adding it to a
    /// zeroed slot whose `first` is `u64::MAX` gives the same record.
    #[inline]
    fn add(&mut self, r: Rec) {
        let slot = if r.mv == HEAD {
            match &mut self.head {
                Some(head) => head,
                None => {
                    self.head = Some(r);
                    return;
                }
            }
        } else {
            match self.moves.last_mut() {
                Some(last) if last.mv == r.mv => last,
                _ => {
                    self.moves.push(r);
                    return;
                }
            }
        };
        slot.n = slot.n.saturating_add(r.n);
        slot.sum = slot.sum.saturating_add(r.sum);
        slot.rating_sum += r.rating_sum;
        slot.rating_n += r.rating_n;
        slot.first = slot.first.min(r.first);
        slot.flags |= r.flags;
    }
}

type Source = Box<dyn Iterator<Item = Result<Rec, RunError>> + Send>;

/// The low bits of an [`order_key`]: the source.
const SOURCE_MASK: u128 = (1 << 48) - 1;

/// A record's place in the merge as one number (one comparison in the
/// heap): key, then move, then source `i` (below 2^48: a count of files).
fn order_key(r: &Rec, i: usize) -> u128 {
    (r.key as u128) << 64 | (r.mv as u128) << 48 | (i as u128 & SOURCE_MASK)
}

/// Reads sources of sorted records as position groups in key order.
pub struct Merge {
    sources: Vec<Source>,
    /// Each source's pending record as [`order_key`], smallest first.
    heap: BinaryHeap<Reverse<u128>>,
    pending: Vec<Option<Rec>>,
    /// The group handed out last (its buffers are reused).
    group: Group,
    /// Per source: the number of the last group it gave to.
    stamp: Vec<u64>,
    groups: u64,
}

impl Merge {
    pub fn new(sources: Vec<Source>) -> Result<Merge, RunError> {
        let mut m = Merge {
            pending: vec![None; sources.len()],
            stamp: vec![0; sources.len()],
            sources,
            heap: BinaryHeap::new(),
            group: Group::default(),
            groups: 0,
        };
        for i in 0..m.sources.len() {
            m.refill(i)?;
        }
        Ok(m)
    }

    fn refill(&mut self, i: usize) -> Result<(), RunError> {
        if let Some(r) = self.sources[i].next().transpose()? {
            self.heap.push(Reverse(order_key(&r, i)));
            self.pending[i] = Some(r);
        }
        Ok(())
    }

    /// The next position, or `None` at the end.
    pub fn next_group(&mut self) -> Result<Option<&mut Group>, RunError> {
        if self.sources.len() == 1 {
            return self.next_group_alone();
        }
        let Some(&Reverse(top)) = self.heap.peek() else { return Ok(None) };
        let key = (top >> 64) as u64;
        self.groups += 1;
        let group = &mut self.group;
        group.key = key;
        group.head = None;
        group.moves.clear();
        group.sources = 0;
        while let Some(mut top) = self.heap.peek_mut() {
            let Reverse(packed) = *top;
            let i = (packed & SOURCE_MASK) as usize;
            if (packed >> 64) as u64 != key {
                break;
            }
            if let Some(r) = self.pending[i].take() {
                self.group.add(r);
            }
            if self.stamp[i] != self.groups {
                self.stamp[i] = self.groups;
                self.group.sources += 1;
            }
            // The source's next record takes its place: one sift, not two.
            match self.sources[i].next().transpose()? {
                Some(r) => {
                    *top = Reverse(order_key(&r, i));
                    self.pending[i] = Some(r);
                }
                None => {
                    PeekMut::pop(top);
                }
            }
        }
        Ok(Some(&mut self.group))
    }

    /// [`Merge::next_group`] for a lone source (the table, when nothing
    /// was spilled): its records, in order and each (key, move) once, make
    /// the groups one after another, without the heap. `pending[0]` holds
    /// the source's next record; the heap is left as it was.
    fn next_group_alone(&mut self) -> Result<Option<&mut Group>, RunError> {
        let Some(mut r) = self.pending[0].take() else { return Ok(None) };
        let group = &mut self.group;
        group.key = r.key;
        group.head = None;
        group.moves.clear();
        group.sources = 1;
        loop {
            group.add(r);
            match self.sources[0].next().transpose()? {
                Some(next) if next.key == group.key => r = next,
                next => {
                    self.pending[0] = next;
                    return Ok(Some(group));
                }
            }
        }
    }
}

/// Writes every group of `merge` to `out` as one run (moves, then the
/// head, in run order); a position that came from several sources is
/// flagged [`SPLIT`], so merging runs in stages decides exactly what one
/// merge of them all would.
pub fn merge_into(mut merge: Merge, out: &mut RunWriter) -> Result<(), RunError> {
    while let Some(g) = merge.next_group()? {
        let split = if g.sources > 1 { SPLIT } else { 0 };
        for r in g.moves.iter().chain(&g.head) {
            out.push(&Rec { flags: r.flags | split, ..*r })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(recs: Vec<Rec>) -> Source {
        Box::new(recs.into_iter().map(Ok))
    }

    fn rec(key: u64, mv: u16, n: u32, first: u64) -> Rec {
        Rec { key, mv, n, sum: n, first, ..Rec::default() }
    }

    #[test]
    fn groups_add_counts_across_sources_and_keep_the_first_ply() {
        let a = vec![rec(1, 5, 2, 10), rec(3, 5, 1, 11)];
        let b = vec![rec(1, 5, 3, 4), rec(1, 6, 1, 20), rec(2, HEAD, 7, 3)];
        let mut m = Merge::new(vec![src(a), src(b)]).unwrap();
        let g = m.next_group().unwrap().unwrap();
        assert_eq!((g.key, g.sources, g.moves.len()), (1, 2, 2));
        assert_eq!((g.moves[0].n, g.moves[0].first), (5, 4));
        assert_eq!(m.next_group().unwrap().unwrap().head.map(|h| h.n), Some(7));
        assert_eq!(m.next_group().unwrap().unwrap().sources, 1);
        assert_eq!(m.next_group().unwrap(), None);
    }

    #[test]
    fn split_positions_that_reach_the_halving_count_are_unsettled() {
        let mut g = Group { key: 1, moves: vec![rec(1, 5, COUNT_MAX, 0)], sources: 1, head: None };
        assert!(!g.unsettled(), "one source counted it in order");
        g.sources = 2;
        assert!(g.unsettled());
        g.moves[0].n = 100;
        assert!(!g.unsettled());
        g.moves[0].flags = HALVED;
        assert!(g.unsettled());
        // One source, but an intermediate merge had combined it from two.
        g.sources = 1;
        assert!(!g.unsettled());
        g.moves[0].flags = HALVED | SPLIT;
        assert!(g.unsettled());
    }

    #[test]
    fn staged_merging_marks_positions_combined_from_several_runs() {
        let dir = crate::testdata::TempDir::new("merge-into");
        let path = dir.file("m");
        let mut w = RunWriter::create(&path).unwrap();
        let a = vec![rec(1, 5, 2, 10), rec(3, 5, 1, 11)];
        let b = vec![rec(1, 5, 3, 4), rec(1, HEAD, 5, 4)];
        merge_into(Merge::new(vec![src(a), src(b)]).unwrap(), &mut w).unwrap();
        assert_eq!(w.finish().unwrap(), 3);
        let back: Vec<Rec> = super::super::run::RunReader::open(&path).unwrap().map(Result::unwrap).collect();
        assert_eq!(
            back.iter().map(|r| (r.key, r.mv, r.n, r.flags & SPLIT)).collect::<Vec<_>>(),
            [(1, 5, 5, SPLIT), (1, HEAD, 5, SPLIT), (3, 5, 1, 0)]
        );
    }
}
