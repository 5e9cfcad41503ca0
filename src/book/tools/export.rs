//! `book export`: a book's lines (any playable book, or the games of a
//! PGN) as an EPD opening suite for testers, or as one PGN game whose
//! variations are the book's tree, for GUIs.
//!
//! The lines form a tree from the start position, at most `max_ply` plies
//! deep: a book through the moves it offers ([`crate::book::play::offer`], heaviest
//! first: Polyglot and ABK by weight, YACB by the mover's expected score),
//! PGN through the games' moves (most played first). A position is
//! expanded once (a transposition ends its line), so the tree is finite.
//!
//! EPD: one line per distinct position (by key) at a ply in
//! `min_ply..=max_ply`, in tree order, with `hmvc` and `fmvn` opcodes;
//! an optional filter (the caller's short search) keeps positions whose
//! score for white lies within a window. Written atomically, gzip when
//! asked.

use crate::board::Board;
use crate::book::play::offer::Offers;
use crate::input::Input;
use crate::pgn::{GameBatches, ReadOptions};
use crate::types::Move;
use std::collections::HashSet;
use std::io::{self, Write};
use std::path::Path;

/// A node of the book's tree: the move into it, its weight, its children
/// (heaviest first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Node {
    pub mv: Option<Move>,
    pub weight: u64,
    pub children: Vec<Node>,
}

impl Node {
    fn child(&mut self, mv: Move) -> &mut Node {
        let i = match self.children.iter().position(|c| c.mv == Some(mv)) {
            Some(i) => i,
            None => {
                self.children.push(Node { mv: Some(mv), ..Node::default() });
                self.children.len() - 1
            }
        };
        &mut self.children[i]
    }

    fn sort(&mut self) {
        self.children.sort_by_key(|c| std::cmp::Reverse(c.weight));
        self.children.iter_mut().for_each(Node::sort);
    }

    /// Nodes in the tree (the root included).
    pub fn size(&self) -> usize {
        1 + self.children.iter().map(Node::size).sum::<usize>()
    }
}

/// The tree of a playable book from the start position: each position's
/// offers ([`crate::book::play::offer`]), heaviest first.
pub fn book_tree(book: &dyn Offers, max_ply: usize) -> Node {
    let mut seen = HashSet::new();
    let mut root = Node::default();
    let mut board = Board::startpos();
    grow(&mut root, &mut board, max_ply, &mut seen, &mut |b| {
        book.offers(b).into_iter().map(|o| (o.mv, u64::from(o.weight))).collect()
    });
    root
}

fn grow(
    node: &mut Node,
    board: &mut Board,
    plies_left: usize,
    seen: &mut HashSet<u64>,
    moves: &mut dyn FnMut(&mut Board) -> Vec<(Move, u64)>,
) {
    if plies_left == 0 || !seen.insert(board.key()) {
        return;
    }
    let mut next = moves(board);
    next.sort_by_key(|m| std::cmp::Reverse(m.1));
    for (m, w) in next {
        let mut child = Node { mv: Some(m), weight: w, children: Vec::new() };
        board.make_move(m);
        grow(&mut child, board, plies_left - 1, seen, moves);
        board.unmake_move();
        node.children.push(child);
    }
}

/// The tree of the games of a PGN (plain or compressed, `-` for standard
/// input): their first `max_ply` moves, weighted by how many games played
/// them. Games that do not replay are skipped (counted).
pub fn pgn_tree(path: &Path, max_ply: usize) -> io::Result<(Node, usize)> {
    let input = Input::open(path).map_err(io::Error::other)?;
    let mut root = Node::default();
    let mut skipped = 0;
    for batch in GameBatches::new(input, 1 << 20) {
        for game in batch?.parse(ReadOptions::default(), None) {
            let mut line = Vec::new();
            match game.replay_first(max_ply, |_, m| line.push(m)) {
                Ok(_) if game.tag("FEN").is_none() => {
                    let mut node = &mut root;
                    for m in line {
                        node = node.child(m);
                        node.weight += 1;
                    }
                }
                _ => skipped += 1,
            }
        }
    }
    root.sort();
    Ok((root, skipped))
}

/// The distinct positions of the tree at plies `min_ply..=max_ply`, in
/// tree order.
pub fn positions(root: &Node, min_ply: usize, max_ply: usize) -> Vec<Board> {
    fn walk(n: &Node, b: &mut Board, ply: usize, r: (usize, usize), seen: &mut HashSet<u64>, out: &mut Vec<Board>) {
        if ply >= r.0 && ply <= r.1 && seen.insert(b.key()) {
            let mut copy = b.clone();
            copy.clear_history();
            out.push(copy);
        }
        if ply >= r.1 {
            return;
        }
        for c in &n.children {
            if let Some(m) = c.mv {
                b.make_move(m);
                walk(c, b, ply + 1, r, seen, out);
                b.unmake_move();
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut Board::startpos(), 0, (min_ply, max_ply), &mut HashSet::new(), &mut out);
    out
}

/// One EPD line: the FEN's four fields and the `hmvc`/`fmvn` opcodes.
pub fn epd_line(board: &Board) -> String {
    let fen = board.fen();
    let fields: Vec<&str> = fen.split_whitespace().take(4).collect();
    format!("{} hmvc {}; fmvn {};", fields.join(" "), board.halfmove_clock(), board.fullmove_number())
}

/// The balance of a suite: how many positions, and (when scored) their
/// scores for white.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Balance {
    pub positions: usize,
    pub white_to_move: usize,
    pub scores: Vec<i32>,
}

impl std::fmt::Display for Balance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} positions ({} white to move)", self.positions, self.white_to_move)?;
        if self.scores.is_empty() {
            return Ok(());
        }
        let n = self.scores.len() as f64;
        let mean = self.scores.iter().map(|&s| s as f64).sum::<f64>() / n;
        let sd = (self.scores.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / n).sqrt();
        let within = |w: i32| self.scores.iter().filter(|s| s.abs() <= w).count();
        let white = self.scores.iter().filter(|&&s| s > 0).count();
        let black = self.scores.iter().filter(|&&s| s < 0).count();
        write!(
            f,
            "; score for white: mean {mean:+.1} cp, sd {sd:.1}; within ±25: {}, ±50: {}, ±100: {}; white better {white}, black better {black}",
            within(25),
            within(50),
            within(100)
        )
    }
}

/// A position's score for white in centipawns (`None`: no score).
pub type Scorer<'a> = &'a mut dyn FnMut(&Board) -> Option<i32>;

/// Writes the suite (filtered by `score` against `window` when given) to
/// `out`, gzip-compressed with `gzip`; returns its balance.
pub fn write_epd(
    out: &Path,
    boards: &[Board],
    mut score: Option<Scorer<'_>>,
    window: i32,
    gzip: bool,
) -> io::Result<Balance> {
    let mut balance = Balance::default();
    let mut text = String::new();
    for b in boards {
        if let Some(score) = score.as_deref_mut() {
            match score(b) {
                Some(s) if s.abs() <= window => balance.scores.push(s),
                _ => continue,
            }
        }
        balance.positions += 1;
        balance.white_to_move += (b.side_to_move() == crate::types::Color::White) as usize;
        text.push_str(&epd_line(b));
        text.push('\n');
    }
    crate::atomic_file::write_with(out, 1 << 16, |w| {
        if gzip {
            let mut z = flate2::write::GzEncoder::new(w, flate2::Compression::default());
            z.write_all(text.as_bytes())?;
            z.finish()?;
            Ok(())
        } else {
            w.write_all(text.as_bytes())
        }
    })?;
    Ok(balance)
}

/// The tree as one PGN game: the heaviest line is the main line, the
/// others its variations.
pub fn pgn_text(root: &Node, event: &str) -> String {
    let mut s = format!("[Event \"{event}\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"-\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n");
    let mut board = Board::startpos();
    write_line(root, &mut board, &mut s, true);
    s.push_str("*\n");
    s
}

/// Writes the children of `node` from `board`: the first as the main move
/// with the others as variations after it, then the main move's line.
fn write_line(node: &Node, board: &mut Board, s: &mut String, mut number: bool) {
    let Some((main, rest)) = node.children.split_first() else { return };
    let Some(m) = main.mv else { return };
    write_move(board, m, s, number);
    for alt in rest {
        if let Some(am) = alt.mv {
            s.push('(');
            write_move(board, am, s, true);
            board.make_move(am);
            write_line(alt, board, s, false);
            board.unmake_move();
            while s.ends_with(' ') {
                s.pop();
            }
            s.push_str(") ");
        }
    }
    number = !rest.is_empty();
    board.make_move(m);
    write_line(main, board, s, number);
    board.unmake_move();
}

fn write_move(board: &mut Board, m: Move, s: &mut String, number: bool) {
    let white = board.side_to_move() == crate::types::Color::White;
    let n = board.fullmove_number();
    if white {
        s.push_str(&format!("{n}. "));
    } else if number {
        s.push_str(&format!("{n}... "));
    }
    s.push_str(&board.move_to_san(m));
    s.push(' ');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn;

    fn tree_of(text: &str, max_ply: usize) -> Node {
        let dir = std::env::temp_dir().join(format!("archivist-export-{}-{max_ply}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("g.pgn");
        std::fs::write(&p, text).unwrap();
        let (t, _) = pgn_tree(&p, max_ply).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        t
    }

    #[test]
    fn pgn_tree_round_trips_through_the_pgn_reader() {
        let t = tree_of("1. e4 e5 2. Nf3 *\n\n1. e4 c5 *\n\n1. d4 *\n\n1. e4 e5 2. Bc4 *\n", 10);
        let text = pgn_text(&t, "tree");
        assert!(text.contains("1. e4 (1. d4) 1... e5 (1... c5) 2. Nf3 (2. Bc4) *"), "{text}");
        let games = pgn::parse_with(&text, pgn::ReadOptions { variations: true, ..ReadOptions::default() });
        assert_eq!(games[0].moves, ["e4", "e5", "Nf3"]);
        assert_eq!(games[0].notes[0].variations[0].moves, ["d4"]);
    }

    #[test]
    fn positions_are_distinct_and_within_the_ply_range() {
        let t = tree_of("1. Nf3 Nf6 2. Nc3 *\n\n1. Nc3 Nf6 2. Nf3 *\n", 10);
        let p = positions(&t, 3, 3);
        assert_eq!(p.len(), 1, "both lines reach the same position at ply 3");
        assert_eq!(epd_line(&p[0]), "rnbqkb1r/pppppppp/5n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R b KQkq - hmvc 3; fmvn 2;");
        assert_eq!(positions(&t, 0, 1).len(), 3);
    }

    #[test]
    fn epd_window_keeps_balanced_positions_and_reports_them() {
        let t = tree_of("1. e4 e5 *\n\n1. d4 d5 *\n", 4);
        let boards = positions(&t, 1, 1);
        let dir = std::env::temp_dir().join(format!("archivist-export-epd-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("s.epd.gz");
        let mut score = |b: &Board| Some(if b.fen().contains("4P3/8") { 30 } else { 80 });
        let bal = write_epd(&out, &boards, Some(&mut score as Scorer<'_>), 50, true).unwrap();
        assert_eq!((bal.positions, bal.scores.clone()), (1, vec![30]));
        let mut text = String::new();
        io::Read::read_to_string(&mut flate2::read::GzDecoder::new(std::fs::File::open(&out).unwrap()), &mut text)
            .unwrap();
        assert!(text.starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - hmvc 0; fmvn 1;"), "{text}");
        assert!(bal.to_string().contains("within ±25: 0, ±50: 1"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
