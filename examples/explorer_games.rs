//! A seeded PGN database shaped like a Lichess monthly dump, for the
//! opening explorer's tests and `make explorer-bench`.
//!
//! Each game opens with a named line of `books/openings/*.tsv` (shorter
//! lines more often), then goes on with random legal moves (captures of
//! the most valuable piece preferred half the time) to 20–150 plies or the
//! end of the game. Tags as Lichess writes them: `Event` by speed, `Site`
//! with an 8-character game id, `Date`/`UTCDate` from 2013 to 2024 (more
//! games in later years), players from a pool of 4,000 with ratings around
//! 1500 (a tail up to 3100), `WhiteElo`/`BlackElo` (1 % `?`), `TimeControl`
//! (bullet 30 %, blitz 40 %, rapid 18 %, classical 5 %, ultraBullet 3 %,
//! correspondence 4 %), results by the rating difference (8 % draws).
//! Data as it comes: 0.5 % of the games unfinished (`*`), 0.3 % of another
//! variant, 0.2 % repeated (the same id again).
//!
//! With `--clk`, each move of a game with a clock carries a `{ [%clk
//! H:MM:SS] }` comment, and Black's moves their `N...` number, as
//! Lichess's dumps write them (correspondence games have none); the games
//! are otherwise the same. `OUT.pgn` of `-` writes to standard output.
//!
//! `cargo run --release --example explorer_games -- [--clk] OUT.pgn GAMES [SEED]`

use archivist::board::Board;
use archivist::codec::SplitMix64;
use archivist::types::{MoveKind, PieceType};
use std::io::{BufWriter, Write};

const OPENINGS: [&str; 5] = [
    include_str!("../books/openings/a.tsv"),
    include_str!("../books/openings/b.tsv"),
    include_str!("../books/openings/c.tsv"),
    include_str!("../books/openings/d.tsv"),
    include_str!("../books/openings/e.tsv"),
];

const SPEEDS: [(&str, &str, u64); 6] = [
    ("Rated Bullet game", "60+0", 30),
    ("Rated Blitz game", "180+2", 40),
    ("Rated Rapid game", "600+5", 18),
    ("Rated Classical game", "1800+20", 5),
    ("Rated UltraBullet game", "15+0", 3),
    ("Rated Correspondence game", "-", 4),
];

fn pick_weighted(rng: &mut SplitMix64, weights: &[u64]) -> usize {
    let total: u64 = weights.iter().sum();
    let mut r = rng.below(total);
    for (i, &w) in weights.iter().enumerate() {
        if r < w {
            return i;
        }
        r -= w;
    }
    weights.len() - 1
}

/// A rating around 1500, a tail to 3100.
fn rating(rng: &mut SplitMix64) -> u32 {
    let sum: u64 = (0..6).map(|_| rng.below(400)).sum();
    let base = 900 + sum as i64; // 900..3300, mean 2097: pulled down below
    let r = if rng.below(10) < 8 { base - 600 } else { base };
    r.clamp(600, 3100) as u32
}

fn id(rng: &mut SplitMix64) -> String {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    (0..8).map(|_| DIGITS[rng.below(62) as usize] as char).collect()
}

/// The movetext of a game and whether it ended in mate (and who mated).
fn moves(rng: &mut SplitMix64, lines: &[Vec<String>]) -> (Vec<String>, Option<bool>) {
    let mut b = Board::startpos();
    let mut sans = Vec::new();
    let line = &lines[rng.below(lines.len() as u64) as usize];
    for san in line {
        let Ok(m) = b.parse_san(san) else { break };
        sans.push(b.move_to_san(m));
        b.make_move(m);
    }
    let length = 20 + rng.below(131) as usize;
    while sans.len() < length {
        let legal = b.legal_moves();
        if legal.is_empty() {
            break;
        }
        let all: Vec<_> = legal.iter().collect();
        let value = |m: &archivist::types::Move| match (m.kind(), b.piece_on(m.to())) {
            (MoveKind::EnPassant, _) => 1,
            (_, Some(p)) if m.kind() != MoveKind::Castling => 1 + p.kind() as u32,
            _ => 0,
        };
        let best = all.iter().map(value).max().unwrap_or(0);
        let m = if best > 0 && rng.below(2) == 0 {
            let top: Vec<_> = all.iter().filter(|m| value(m) == best).collect();
            *top[rng.below(top.len() as u64) as usize]
        } else {
            all[rng.below(all.len() as u64) as usize]
        };
        sans.push(b.move_to_san(m));
        b.make_move(m);
        if b.is_insufficient_material() {
            break;
        }
    }
    let mate = b.is_checkmate().then(|| b.side_to_move() == archivist::types::Color::Black);
    let _ = PieceType::Pawn;
    (sans, mate)
}

/// `H:MM:SS` of a clock in seconds.
fn clock(seconds: u64) -> String {
    format!("{}:{:02}:{:02}", seconds / 3600, seconds / 60 % 60, seconds % 60)
}

/// The movetext: numbered SANs, each with its `[%clk]` when `clocks` is a
/// (base, increment) and the moves' time is drawn from `rng`.
fn movetext(text: &mut String, sans: &[String], clocks: Option<(u64, u64)>, rng: &mut SplitMix64) {
    let mut left = clocks.map_or([0, 0], |(base, _)| [base, base]);
    for (i, san) in sans.iter().enumerate() {
        if i % 2 == 0 {
            text.push_str(&format!("{}. ", i / 2 + 1));
        } else if clocks.is_some() {
            text.push_str(&format!("{}... ", i / 2 + 1));
        }
        text.push_str(san);
        text.push(' ');
        if let Some((base, increment)) = clocks {
            // A move takes up to a twentieth of what is left (at least 1 s).
            let side = &mut left[i % 2];
            let spent = rng.below((*side / 20).max(1) + 1).min(*side);
            *side = (*side - spent + increment).min(base.max(1) * 2);
            text.push_str(&format!("{{ [%clk {}] }} ", clock(*side)));
        }
    }
}

fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().collect();
    let clk = args.iter().any(|a| a == "--clk");
    args.retain(|a| a != "--clk");
    if args.len() < 3 {
        eprintln!("usage: explorer_games [--clk] OUT.pgn GAMES [SEED]");
        std::process::exit(2);
    }
    let games: u64 = args[2].parse().expect("GAMES");
    let seed = args.get(3).map_or(64, |s| s.parse().expect("SEED"));
    let mut rng = SplitMix64::new(seed);
    // The clocks' own generator, so that the games do not change with them.
    let mut clock_rng = SplitMix64::new(seed ^ 0xC10C_C10C_C10C_C10C);
    let mut lines: Vec<Vec<String>> = Vec::new();
    for table in OPENINGS {
        for row in table.lines().skip(1) {
            let Some(pgn) = row.split('\t').nth(2) else { continue };
            let sans: Vec<String> = pgn.split_whitespace().filter(|t| !t.ends_with('.')).map(String::from).collect();
            // Shorter lines more often: each line once per ply it lacks from 12.
            for _ in 0..12usize.saturating_sub(sans.len()).max(1) {
                lines.push(sans.clone());
            }
        }
    }
    let players: Vec<(String, u32)> = (0..4000).map(|i| (format!("player{i:04}"), rating(&mut rng))).collect();
    let sink: Box<dyn Write> =
        if args[1] == "-" { Box::new(std::io::stdout().lock()) } else { Box::new(std::fs::File::create(&args[1])?) };
    let mut out = BufWriter::with_capacity(1 << 20, sink);
    let mut previous: Vec<String> = Vec::new();
    for _ in 0..games {
        // 0.2 %: a game already written, again.
        if !previous.is_empty() && rng.below(1000) < 2 {
            let again = &previous[rng.below(previous.len() as u64) as usize];
            out.write_all(again.as_bytes())?;
            continue;
        }
        let (event, tc, _) = SPEEDS[pick_weighted(&mut rng, &SPEEDS.map(|s| s.2))];
        let year = 2013 + pick_weighted(&mut rng, &[1, 2, 3, 4, 6, 8, 10, 13, 18, 22, 25, 28]) as u32;
        let (month, day) = (1 + rng.below(12), 1 + rng.below(28));
        let white = &players[rng.below(players.len() as u64) as usize];
        // An opponent near the player's rating, most of the time.
        let black = loop {
            let p = &players[rng.below(players.len() as u64) as usize];
            if p.0 != white.0 && (p.1.abs_diff(white.1) < 300 || rng.below(5) == 0) {
                break p;
            }
        };
        let (sans, mate) = moves(&mut rng, &lines);
        let expected = 1.0 / (1.0 + 10f64.powf((f64::from(black.1) - f64::from(white.1)) / 400.0));
        let result = match mate {
            Some(true) => "1-0",
            Some(false) => "0-1",
            None if rng.below(1000) < 5 => "*",
            None if rng.below(100) < 8 => "1/2-1/2",
            None if (rng.below(1000) as f64) < expected * 1000.0 => "1-0",
            None => "0-1",
        };
        let elo = |r: u32, rng: &mut SplitMix64| if rng.below(100) == 0 { "?".to_string() } else { r.to_string() };
        let mut text = String::with_capacity(1024);
        text.push_str(&format!(
            "[Event \"{event}\"]\n[Site \"https://lichess.org/{}\"]\n[Date \"{year}.{month:02}.{day:02}\"]\n[Round \"-\"]\n[White \"{}\"]\n[Black \"{}\"]\n[Result \"{result}\"]\n[UTCDate \"{year}.{month:02}.{day:02}\"]\n[UTCTime \"12:00:00\"]\n[WhiteElo \"{}\"]\n[BlackElo \"{}\"]\n",
            id(&mut rng),
            white.0,
            black.0,
            elo(white.1, &mut rng),
            elo(black.1, &mut rng),
        ));
        if rng.below(1000) < 3 {
            text.push_str("[Variant \"Crazyhouse\"]\n");
        }
        text.push_str(&format!("[TimeControl \"{tc}\"]\n[Termination \"Normal\"]\n\n"));
        let clocks = (clk && tc != "-").then(|| {
            let (base, increment) = tc.split_once('+').unwrap_or((tc, "0"));
            (base.parse().unwrap_or(0), increment.parse().unwrap_or(0))
        });
        movetext(&mut text, &sans, clocks, &mut clock_rng);
        text.push_str(result);
        text.push_str("\n\n");
        out.write_all(text.as_bytes())?;
        if previous.len() < 1000 {
            previous.push(text);
        } else {
            let i = rng.below(1000) as usize;
            previous[i] = text;
        }
    }
    out.flush()
}
