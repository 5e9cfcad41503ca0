//! Text views of a record file: `records dump` (plain, PGN, FEN lines) and
//! `records stats`. Both stream game by game and stop at the first invalid
//! game with its error, after writing what came before it.

use super::{score_from_u16, Game, GameResult, Reader, RecordError, Totals};
use crate::board::Board;
use std::io::Write;

/// What `records dump` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DumpFormat {
    /// One header line per game (`game I`, the 0-based index that errors
    /// name too), one line per ply: move, score, count, visits.
    Plain,
    /// One PGN game per record (FEN and Variant tags when needed).
    Pgn,
    /// PGN with each move's score as cutechess writes it, `{+0.35/1}`:
    /// the mover's centipawns ([`super::score::to_cp`]) in pawns, depth 1.
    /// `records import` reads it back.
    PgnScores,
    /// One line per position: `FEN | score | result | move`.
    Fen,
}

/// Writes every game of `data` in `format`.
pub fn dump(data: &[u8], format: DumpFormat, out: &mut impl Write) -> Result<Totals, RecordError> {
    let mut totals = Totals::default();
    let mut reader = Reader::new(data);
    loop {
        let offset = reader.offset();
        let Some(game) = reader.next() else { break };
        let game = game?;
        match format {
            DumpFormat::Plain => plain(&game, totals.games, offset, out)?,
            DumpFormat::Pgn => out.write_all(pgn_string(&game, totals.games).as_bytes())?,
            DumpFormat::PgnScores => out.write_all(pgn_text(&game, totals.games, true).as_bytes())?,
            DumpFormat::Fen => fen_lines(&game, out)?,
        }
        totals.games += 1;
        totals.positions += game.plies.len() as u64;
    }
    Ok(totals)
}

fn plain(game: &Game, index: u64, offset: u64, out: &mut impl Write) -> Result<(), RecordError> {
    writeln!(
        out,
        "game {index} at offset {offset}: {} plies, result {}, start {}",
        game.plies.len(),
        game.result,
        game.start.fen()
    )?;
    let mut err = Ok(());
    game.replay(|b, ply| {
        if err.is_err() {
            return;
        }
        let visits: Vec<String> = ply.visits.iter().map(u8::to_string).collect();
        err = writeln!(
            out,
            "  {:>3} {} {:<6} score {:.4} moves {:>3} visits [{}]",
            b.plies_since_setup() + 1,
            if b.side_to_move() == crate::types::Color::White { 'w' } else { 'b' },
            b.move_to_uci(ply.mv),
            score_from_u16(ply.score),
            ply.visits.len(),
            visits.join(" ")
        );
    });
    Ok(err?)
}

/// The PGN text of one game (`index` is 0-based).
pub fn pgn_string(game: &Game, index: u64) -> String {
    pgn_text(game, index, false)
}

/// The PGN text of one game, with cutechess-style score comments when
/// `scores` is on.
pub fn pgn_text(game: &Game, index: u64, scores: bool) -> String {
    let start = &game.start;
    let mut s = String::new();
    s.push_str("[Event \"Archivist game records\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n");
    s.push_str(&format!("[Round \"{}\"]\n[White \"Archivist\"]\n[Black \"Archivist\"]\n", index + 1));
    s.push_str(&format!("[Result \"{}\"]\n", game.result));
    if start.is_chess960() {
        s.push_str("[Variant \"Chess960\"]\n");
    }
    if start.is_chess960() || *start != Board::startpos() {
        s.push_str(&format!("[SetUp \"1\"]\n[FEN \"{}\"]\n", start.fen()));
    }
    s.push_str(&format!("[PlyCount \"{}\"]\n\n", game.plies.len()));
    let mut line = String::new();
    let mut first = true;
    game.replay(|b, ply| {
        let white = b.side_to_move() == crate::types::Color::White;
        if white {
            line.push_str(&format!("{}. ", b.fullmove_number()));
        } else if first {
            line.push_str(&format!("{}... ", b.fullmove_number()));
        }
        first = false;
        line.push_str(&b.move_to_san(ply.mv));
        line.push(' ');
        if scores {
            let cp = super::score::to_cp(ply.score);
            let sign = if cp < 0 { '-' } else { '+' };
            line.push_str(&format!("{{{sign}{}.{:02}/1}} ", cp.abs() / 100, cp.abs() % 100));
        }
    });
    line.push_str(game.result.pgn());
    s.push_str(&wrap(&line, 79));
    s.push_str("\n\n");
    s
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / width + 1);
    let mut len = 0;
    for word in text.split(' ') {
        if len > 0 && len + 1 + word.len() > width {
            out.push('\n');
            len = 0;
        } else if len > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(word);
        len += word.len();
    }
    out
}

fn fen_lines(game: &Game, out: &mut impl Write) -> Result<(), RecordError> {
    let result = match game.result {
        GameResult::WhiteWin => "1.0",
        GameResult::Draw => "0.5",
        GameResult::BlackWin => "0.0",
    };
    let mut err = Ok(());
    game.replay(|b, ply| {
        if err.is_ok() {
            err =
                writeln!(out, "{} | {:.4} | {result} | {}", b.fen(), score_from_u16(ply.score), b.move_to_uci(ply.mv));
        }
    });
    Ok(err?)
}

/// What `records stats` reports.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    pub games: u64,
    pub positions: u64,
    /// Games won by white, drawn, won by black.
    pub results: [u64; 3],
    pub min_plies: u64,
    pub max_plies: u64,
    /// Games by length, in buckets of 20 plies (the last is open-ended).
    pub length_histogram: [u64; 16],
    /// Positions by the side to move's expected score, in tenths.
    pub score_histogram: [u64; 10],
    /// Positions that carry a visit distribution.
    pub with_visits: u64,
    pub chess960_games: u64,
}

impl Stats {
    pub fn add(&mut self, game: &Game) {
        let plies = game.plies.len() as u64;
        if self.games == 0 || plies < self.min_plies {
            self.min_plies = plies;
        }
        self.max_plies = self.max_plies.max(plies);
        self.games += 1;
        self.positions += plies;
        self.results[match game.result {
            GameResult::WhiteWin => 0,
            GameResult::Draw => 1,
            GameResult::BlackWin => 2,
        }] += 1;
        self.length_histogram[((plies / 20) as usize).min(15)] += 1;
        self.chess960_games += u64::from(game.start.is_chess960());
        for ply in &game.plies {
            let bucket = ((score_from_u16(ply.score) * 10.0) as usize).min(9);
            self.score_histogram[bucket] += 1;
            self.with_visits += u64::from(!ply.visits.is_empty());
        }
    }

    /// The report, one fact per line.
    pub fn report(&self) -> String {
        let pct = |n: u64, of: u64| 100.0 * n as f64 / of.max(1) as f64;
        let g = self.games;
        let mut s = format!("games:        {g}\npositions:    {}\n", self.positions);
        s.push_str(&format!(
            "results:      white {} ({:.1}%)  draw {} ({:.1}%)  black {} ({:.1}%)\n",
            self.results[0],
            pct(self.results[0], g),
            self.results[1],
            pct(self.results[1], g),
            self.results[2],
            pct(self.results[2], g)
        ));
        s.push_str(&format!(
            "length:       min {}  mean {:.1}  max {} plies\n",
            self.min_plies,
            self.positions as f64 / g.max(1) as f64,
            self.max_plies
        ));
        s.push_str(&format!("chess960:     {} games\n", self.chess960_games));
        s.push_str(&format!(
            "visits:       {} positions ({:.1}%) carry a distribution\n",
            self.with_visits,
            pct(self.with_visits, self.positions)
        ));
        s.push_str("length histogram (plies):\n");
        let max = self.length_histogram.iter().copied().max().unwrap_or(1).max(1);
        for (i, &n) in self.length_histogram.iter().enumerate() {
            let label = if i == 15 { "300+   ".to_string() } else { format!("{:>3}-{:<3}", i * 20, i * 20 + 19) };
            s.push_str(&format!("  {label} {n:>10} {}\n", bar(n, max)));
        }
        s.push_str("score histogram (side to move's expected score):\n");
        let max = self.score_histogram.iter().copied().max().unwrap_or(1).max(1);
        for (i, &n) in self.score_histogram.iter().enumerate() {
            s.push_str(&format!("  {:.1}-{:.1} {n:>10} {}\n", i as f64 / 10.0, (i + 1) as f64 / 10.0, bar(n, max)));
        }
        s
    }
}

fn bar(n: u64, max: u64) -> String {
    "#".repeat(((n * 50).div_ceil(max)) as usize)
}

/// Statistics of every game of `data`; stops at the first invalid game.
pub fn stats(data: &[u8]) -> Result<Stats, RecordError> {
    let mut s = Stats::default();
    for game in Reader::new(data) {
        s.add(&game?);
    }
    Ok(s)
}
