//! The rules of `polyglot make-book` that `book build` ([`super::build`])
//! follows ([`MakeBookOptions`], [`keeps`], [`book_entry`], [`COUNT_MAX`]),
//! and, compiled for tests only, `make_book`: the whole-file reference
//! builder the streamed build is checked against.
//!
//! Polyglot books from PGN games, byte for byte as `polyglot make-book`
//! (Debian's polyglot 2.0.4) builds them, with three deliberate differences:
//! FEN tags and Chess960 games are honoured (the tool starts every game from
//! the standard position), and a game with an illegal move (or a bad FEN) is
//! reported with its number and ply and skipped whole instead of aborting
//! the run.
//!
//! The algorithm, as the tool does it:
//! 1. For every game, each of its first `max_ply` moves is counted against
//!    the (position key, move) pair: `n += 1` and `sum += 2` for a win of the
//!    side that moved, `1` for a draw or an unknown result (`*`, missing),
//!    `0` for a loss. The result is [`crate::pgn::outcome`]'s: the `Result`
//!    tag (the game's termination marker when the tag is missing or `*`, where
//!    the tool counts a `*` tag as unknown). Moves past `max_ply` are
//!    not even parsed. A repeated position counts again.
//! 2. When a pair's `n` reaches 16384, every pair of that position has `n`
//!    and `sum` halved, rounding up (`(x + 1) / 2`).
//! 3. A pair is kept when `n ≥ min_game`, `sum > 0` (moves that never scored
//!    are dropped), `sum / n / 2 ≥ min_score / 100` (as doubles), and its
//!    mover passes `only_white` / `only_black`. Key 0 is never written.
//! 4. Weight = `sum` (1 with `uniform`), learn = 0; entries sorted by key,
//!    heaviest first, equal weights in the order their pairs were first met.

use crate::book::format::polyglot::PolyglotEntry;
#[cfg(test)]
use {
    crate::board::notation::to_polyglot_move,
    crate::board::zobrist::polyglot_key,
    crate::book::format::polyglot::sort_entries,
    crate::pgn::{Game, ReplayError},
    crate::types::Color,
    std::collections::HashMap,
};

/// When a pair's game count reaches this, the position's counts are halved.
pub const COUNT_MAX: u32 = 16384;

/// The options of `polyglot make-book`, with its defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct MakeBookOptions {
    /// Moves counted per game (`-max-ply`, default 1024).
    pub max_ply: usize,
    /// Minimum times a move was played (`-min-game`, default 3).
    pub min_game: u32,
    /// Minimum score in percent (`-min-score`, default 0).
    pub min_score: f64,
    /// Keep only white's moves (`-only-white`).
    pub only_white: bool,
    /// Keep only black's moves (`-only-black`).
    pub only_black: bool,
    /// Every weight 1 (`-uniform`).
    pub uniform: bool,
}

impl Default for MakeBookOptions {
    fn default() -> MakeBookOptions {
        MakeBookOptions {
            max_ply: 1024,
            min_game: 3,
            min_score: 0.0,
            only_white: false,
            only_black: false,
            uniform: false,
        }
    }
}

#[cfg(test)]
#[derive(Clone, Copy, Debug)]
struct Pair {
    key: u64,
    raw_move: u16,
    n: u32,
    sum: u32,
    white: bool,
}

#[cfg(test)]
#[derive(Default)]
struct Counts {
    pairs: Vec<Pair>,
    index: HashMap<(u64, u16), usize>,
    by_key: HashMap<u64, Vec<usize>>,
}

#[cfg(test)]
impl Counts {
    fn add(&mut self, key: u64, raw_move: u16, white: bool, points: u32) {
        let pos = *self.index.entry((key, raw_move)).or_insert_with(|| {
            self.pairs.push(Pair { key, raw_move, n: 0, sum: 0, white });
            self.by_key.entry(key).or_default().push(self.pairs.len() - 1);
            self.pairs.len() - 1
        });
        let Some(pair) = self.pairs.get_mut(pos) else { return };
        pair.n += 1;
        pair.sum += points;
        if pair.n >= COUNT_MAX {
            for &i in self.by_key.get(&key).map(Vec::as_slice).unwrap_or(&[]) {
                if let Some(p) = self.pairs.get_mut(i) {
                    p.n = p.n.div_ceil(2);
                    p.sum = p.sum.div_ceil(2);
                }
            }
        }
    }
}

#[cfg(test)]
/// Result of a game for white: +1, 0 or −1 ([`crate::pgn::outcome`]).
pub(super) fn white_result(game: &Game) -> i32 {
    match crate::pgn::outcome(game.tag("Result"), game.result.as_deref()).token {
        Some("1-0") => 1,
        Some("0-1") => -1,
        _ => 0,
    }
}

#[cfg(test)]
/// The (key, move, mover is white) of each counted ply, or why the game is skipped.
fn game_plies(game: &Game, max_ply: usize) -> Result<Vec<(u64, u16, bool)>, ReplayError> {
    let mut plies = Vec::with_capacity(game.moves.len().min(max_ply));
    game.replay_first(max_ply, |board, m| {
        plies.push((polyglot_key(board), to_polyglot_move(m), board.side_to_move() == Color::White));
    })?;
    Ok(plies)
}

#[cfg(test)]
fn keep(pair: &Pair, options: &MakeBookOptions) -> bool {
    keeps(pair.key, pair.n, pair.sum, pair.white, options)
}

/// Whether a (key, move) pair counted `n` times for `sum` points, played by
/// white or black, goes into the book (rule 3 above).
pub fn keeps(key: u64, n: u32, sum: u32, white: bool, options: &MakeBookOptions) -> bool {
    if n < options.min_game || sum == 0 || key == 0 {
        return false;
    }
    let score = (sum as f64 / n as f64) / 2.0;
    if score < options.min_score / 100.0 {
        return false;
    }
    !(options.only_white && !white || options.only_black && white)
}

/// The entry of a kept pair: weight = its points (1 with `uniform`), learn 0.
pub fn book_entry(key: u64, raw_move: u16, sum: u32, options: &MakeBookOptions) -> PolyglotEntry {
    PolyglotEntry { key, raw_move, weight: if options.uniform { 1 } else { sum.min(u16::MAX as u32) as u16 }, learn: 0 }
}

#[cfg(test)]
/// Builds the book of `games`: its entries in book order, and why games
/// were skipped (each error names its game and ply).
pub fn make_book(games: &[Game], options: &MakeBookOptions) -> (Vec<PolyglotEntry>, Vec<ReplayError>) {
    let mut counts = Counts::default();
    let mut warnings = Vec::new();
    for game in games {
        let plies = match game_plies(game, options.max_ply) {
            Ok(p) => p,
            Err(w) => {
                warnings.push(w);
                continue;
            }
        };
        let result = white_result(game);
        for (key, raw_move, white) in plies {
            let mover = if white { result } else { -result };
            counts.add(key, raw_move, white, (mover + 1) as u32);
        }
    }
    let mut entries: Vec<PolyglotEntry> = counts
        .pairs
        .iter()
        .filter(|p| keep(p, options))
        .map(|p| book_entry(p.key, p.raw_move, p.sum, options))
        .collect();
    sort_entries(&mut entries);
    (entries, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn;

    fn book(text: &str, options: &MakeBookOptions) -> (Vec<PolyglotEntry>, Vec<ReplayError>) {
        make_book(&pgn::parse(text), options)
    }

    #[test]
    fn weight_is_two_per_win_and_one_per_draw_from_the_movers_side() {
        let text = "[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"1/2-1/2\"]\n1. e4 e5 1/2-1/2\n\n[Result \"0-1\"]\n1. e4 c5 0-1\n";
        let opts = MakeBookOptions { min_game: 1, ..Default::default() };
        let (entries, warnings) = book(text, &opts);
        assert!(warnings.is_empty());
        let start = crate::board::Board::startpos();
        let e4: Vec<_> = entries.iter().filter(|e| e.key == polyglot_key(&start)).collect();
        assert_eq!(e4.len(), 1);
        assert_eq!(e4[0].weight, 3); // win + draw + loss for white
                                     // 1...e5: a loss (0) and a draw (1) for black; 1...c5: a win (2).
        let weights: Vec<u16> = entries.iter().filter(|e| e.key != polyglot_key(&start)).map(|e| e.weight).collect();
        assert_eq!(weights, vec![2, 1]);
    }

    #[test]
    fn moves_that_never_scored_are_dropped() {
        let text = "[Result \"0-1\"]\n1. e4 e5 0-1\n";
        let (entries, _) = book(text, &MakeBookOptions { min_game: 1, ..Default::default() });
        assert_eq!(entries.len(), 1, "only black's winning 1...e5 stays");
        assert_eq!(entries[0].weight, 2);
    }

    #[test]
    fn min_game_counts_every_time_a_move_is_played() {
        let one = "[Result \"1-0\"]\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 1-0\n";
        let (entries, _) = book(one, &MakeBookOptions { min_game: 2, ..Default::default() });
        // Nf3 from the start position was played twice in the one game.
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].weight, 4);
    }

    #[test]
    fn counts_are_halved_when_one_reaches_16384() {
        let mut counts = Counts::default();
        for _ in 0..COUNT_MAX - 1 {
            counts.add(7, 1, true, 2);
        }
        counts.add(7, 2, true, 1);
        counts.add(7, 1, true, 1);
        assert_eq!((counts.pairs[0].n, counts.pairs[0].sum), (8192, (2 * 16383 + 1u32).div_ceil(2)));
        assert_eq!((counts.pairs[1].n, counts.pairs[1].sum), (1, 1));
    }

    #[test]
    fn max_ply_only_white_and_uniform_filter_as_the_tool() {
        let text = "[Result \"1/2-1/2\"]\n1. d4 d5 2. c4 e6 1/2-1/2\n";
        let base = MakeBookOptions { min_game: 1, ..Default::default() };
        assert_eq!(book(text, &MakeBookOptions { max_ply: 2, ..base.clone() }).0.len(), 2);
        let white = book(text, &MakeBookOptions { only_white: true, ..base.clone() }).0;
        assert_eq!(white.len(), 2);
        let black = book(text, &MakeBookOptions { only_black: true, uniform: true, ..base.clone() }).0;
        assert_eq!(black.len(), 2);
        assert!(black.iter().all(|e| e.weight == 1));
        assert!(book(text, &MakeBookOptions { min_score: 50.1, ..base }).0.is_empty());
    }

    #[test]
    fn illegal_moves_and_bad_fens_skip_the_game_with_its_number_and_ply() {
        let text = "[Result \"1-0\"]\n1. e4 e5 1-0\n\n[Result \"1-0\"]\n1. e4 e5 2. Ke3 1-0\n\n[FEN \"bad\"]\n[Result \"1-0\"]\n1. e4 1-0\n";
        let (entries, warnings) = book(text, &MakeBookOptions { min_game: 1, ..Default::default() });
        assert_eq!(entries.len(), 1, "only game 1 counts: {entries:?}");
        assert!(
            matches!(&warnings[0], ReplayError::IllegalMove { game, ply: 3, san, .. } if game.index == 2 && san == "Ke3")
        );
        assert!(matches!(&warnings[1], ReplayError::BadStart { game, .. } if game.index == 3));
        assert!(warnings[0].to_string().contains("game 2, ply 3"));
    }

    #[test]
    fn fen_tags_and_chess960_games_are_honoured() {
        let fen = "nbbrknrq/pppppppp/8/8/8/8/PPPPPPPP/NBBRKNRQ w KQkq - 0 1";
        let moves = "1. d4 d5 2. c3 Nb6 3. e4 dxe4 4. Bxe4 g6 5. g4 c6 6. Qf3 Ne6 7. Nb3 Qf6 8. Qxf6 exf6 9. h4 O-O";
        let text = format!("[Variant \"fischerandom\"]\n[FEN \"{fen}\"]\n[Result \"0-1\"]\n\n{moves} 0-1\n");
        let (entries, warnings) = book(&text, &MakeBookOptions { min_game: 1, ..Default::default() });
        assert!(warnings.is_empty(), "{warnings:?}");
        let board = crate::board::Board::from_fen(fen, true).unwrap();
        assert!(entries.iter().all(|e| e.key != polyglot_key(&board)), "white lost: its moves never scored");
        assert_eq!(entries.len(), 9);
        // 9...O-O is stored as king e8 takes rook g8.
        let castle = 7 << 9 | 4 << 6 | 7 << 3 | 6;
        assert!(entries.iter().any(|e| e.raw_move == castle && e.weight == 2));
    }
}
