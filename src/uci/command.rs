//! One UCI input line as a [`Command`]: the single conversion from text.
//!
//! `vampirc-uci` parses the standard commands. Three things it cannot do
//! are handled here, before it sees the line, and nowhere else:
//!
//! * `position`: vampirc's FEN grammar rejects Chess960 castling fields
//!   (`HAha`, `KQkq` with outer rooks), so the FEN and the move list are
//!   split off as text and validated later by the board's own parser.
//! * `go … ponder …`: vampirc keeps either `ponder` or the clock, not both;
//!   the `ponder` flag is read from the words of the line, the rest from
//!   vampirc.
//! * Extensions that are not UCI: `d`, `eval`, `bench [depth]`,
//!   `go perft N`, OpenBench's `genfens …`.
//!
//! vampirc's parser is run inside `catch_unwind` (a few malformed lines make
//! its grammar code panic); whatever it does not recognise is
//! [`Command::Unknown`].

use vampirc_uci::{UciMessage, UciTimeControl};

/// The limits of a `go` command as sent (times in milliseconds).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub infinite: bool,
    pub ponder: bool,
    pub movetime_ms: Option<u64>,
    pub wtime_ms: Option<u64>,
    pub btime_ms: Option<u64>,
    pub winc_ms: Option<u64>,
    pub binc_ms: Option<u64>,
    pub movestogo: Option<u32>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub mate: Option<i32>,
    /// `searchmoves`, as text: legality is the engine's business.
    pub searchmoves: Vec<String>,
}

/// One line of UCI input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    /// `debug` and `register`: accepted and ignored.
    Ignored,
    SetOption {
        name: String,
        value: Option<String>,
    },
    UciNewGame,
    /// `position startpos|fen FEN [moves …]`; `fen: None` is the start position.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    Quit,
    /// `d`: the board diagram and its description.
    Display,
    /// `eval`: the evaluation's breakdown.
    Eval,
    /// `bench [depth]`.
    Bench {
        depth: Option<i32>,
    },
    /// `go perft N`.
    Perft {
        depth: u32,
    },
    /// `genfens …`: the whole line, parsed by [`crate::selfplay::genfens::Request`].
    GenFens(String),
    /// A known command whose arguments do not parse: what was expected.
    Malformed {
        usage: &'static str,
    },
    /// Anything else (the line, trimmed).
    Unknown(String),
    /// An empty line.
    Empty,
}

impl Command {
    /// Parses one line (surrounding whitespace ignored). Never panics.
    pub fn parse(line: &str) -> Command {
        let line = line.trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => Command::Empty,
            ["d"] => Command::Display,
            ["eval"] => Command::Eval,
            ["bench", rest @ ..] => Command::Bench { depth: rest.first().and_then(|d| d.parse().ok()) },
            ["genfens", ..] => Command::GenFens(line.to_string()),
            ["position", rest @ ..] => position(rest),
            ["go", "perft", rest @ ..] => match rest {
                [n] => match n.parse::<u32>() {
                    Ok(depth) if depth <= 10 => Command::Perft { depth },
                    _ => Command::Malformed { usage: "go perft N (N from 0 to 10)" },
                },
                _ => Command::Malformed { usage: "go perft N (N from 0 to 10)" },
            },
            _ => from_vampirc(line, &words),
        }
    }
}

fn position(rest: &[&str]) -> Command {
    const USAGE: &str = "position startpos|fen FEN [moves M1 M2 …]";
    let (spec, moves) = match rest.iter().position(|&t| t == "moves") {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    let fen = match spec {
        ["startpos"] => None,
        ["fen", fields @ ..] if !fields.is_empty() => Some(fields.join(" ")),
        _ => return Command::Malformed { usage: USAGE },
    };
    Command::Position { fen, moves: moves.iter().map(|m| m.to_string()).collect() }
}

fn from_vampirc(line: &str, words: &[&str]) -> Command {
    let message = match std::panic::catch_unwind(|| vampirc_uci::parse_one(line)) {
        Ok(m) => m,
        Err(_) => return Command::Unknown(line.to_string()),
    };
    match message {
        UciMessage::Uci => Command::Uci,
        UciMessage::IsReady => Command::IsReady,
        UciMessage::Debug(_) | UciMessage::Register { .. } => Command::Ignored,
        UciMessage::SetOption { name, value } => Command::SetOption { name, value },
        UciMessage::UciNewGame => Command::UciNewGame,
        UciMessage::Stop => Command::Stop,
        UciMessage::PonderHit => Command::PonderHit,
        UciMessage::Quit => Command::Quit,
        UciMessage::Go { time_control, search_control } => {
            let ms = |d: Option<vampirc_uci::Duration>| d.map(|d| d.num_milliseconds().max(0) as u64);
            let mut go = Go { ponder: words.contains(&"ponder"), ..Go::default() };
            match time_control {
                Some(UciTimeControl::Infinite) => go.infinite = true,
                Some(UciTimeControl::MoveTime(d)) => go.movetime_ms = ms(Some(d)),
                Some(UciTimeControl::TimeLeft {
                    white_time,
                    black_time,
                    white_increment,
                    black_increment,
                    moves_to_go,
                }) => {
                    go.wtime_ms = ms(white_time);
                    go.btime_ms = ms(black_time);
                    go.winc_ms = ms(white_increment);
                    go.binc_ms = ms(black_increment);
                    go.movestogo = moves_to_go.map(u32::from);
                }
                Some(UciTimeControl::Ponder) | None => {}
            }
            if let Some(sc) = search_control {
                go.depth = sc.depth.map(i32::from);
                go.nodes = sc.nodes;
                go.mate = sc.mate.map(i32::from);
                go.searchmoves = sc.search_moves.iter().map(|m| m.to_string()).collect();
            }
            Command::Go(go)
        }
        _ => Command::Unknown(line.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_keeps_chess960_castling_fields_for_the_board_parser() {
        let c = Command::parse("position fen nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1 moves e2e4");
        assert_eq!(
            c,
            Command::Position {
                fen: Some("nrbkqbrn/pppppppp/8/8/8/8/PPPPPPPP/NRBKQBRN w GBgb - 0 1".into()),
                moves: vec!["e2e4".into()],
            }
        );
        assert_eq!(Command::parse("  position startpos  "), Command::Position { fen: None, moves: vec![] });
        assert!(matches!(Command::parse("position"), Command::Malformed { .. }));
        assert!(matches!(Command::parse("position fen"), Command::Malformed { .. }));
        assert!(matches!(Command::parse("position banana moves e2e4"), Command::Malformed { .. }));
    }

    #[test]
    fn go_ponder_keeps_the_clock() {
        let Command::Go(go) = Command::parse("go ponder wtime 1000 btime 2000 winc 10 binc 20 movestogo 5") else {
            panic!("not a go");
        };
        assert!(go.ponder);
        assert_eq!(
            (go.wtime_ms, go.btime_ms, go.winc_ms, go.binc_ms, go.movestogo),
            (Some(1000), Some(2000), Some(10), Some(20), Some(5))
        );
    }

    #[test]
    fn go_reads_every_limit() {
        let Command::Go(go) = Command::parse("go depth 7 nodes 5000 searchmoves e2e4 d2d4") else { panic!() };
        assert_eq!((go.depth, go.nodes, go.ponder), (Some(7), Some(5000), false));
        assert_eq!(go.searchmoves, vec!["e2e4".to_string(), "d2d4".to_string()]);
        assert_eq!(Command::parse("go infinite"), Command::Go(Go { infinite: true, ..Go::default() }));
        assert_eq!(Command::parse("go movetime 250"), Command::Go(Go { movetime_ms: Some(250), ..Go::default() }));
        assert_eq!(Command::parse("go mate 3"), Command::Go(Go { mate: Some(3), ..Go::default() }));
    }

    #[test]
    fn extensions_and_their_arguments() {
        assert_eq!(Command::parse("go perft 5"), Command::Perft { depth: 5 });
        assert!(matches!(Command::parse("go perft 11"), Command::Malformed { .. }));
        assert!(matches!(Command::parse("go perft x"), Command::Malformed { .. }));
        assert_eq!(Command::parse("bench 9"), Command::Bench { depth: Some(9) });
        assert_eq!(Command::parse("bench"), Command::Bench { depth: None });
        assert_eq!(Command::parse("d"), Command::Display);
        assert_eq!(Command::parse("genfens 4 seed 1 book None"), Command::GenFens("genfens 4 seed 1 book None".into()));
    }

    #[test]
    fn setoption_names_and_values_keep_their_spaces() {
        assert_eq!(
            Command::parse("setoption name Save Hash to File"),
            Command::SetOption { name: "Save Hash to File".into(), value: None }
        );
        assert_eq!(
            Command::parse("setoption name Hash File value /tmp/my table.sftt"),
            Command::SetOption { name: "Hash File".into(), value: Some("/tmp/my table.sftt".into()) }
        );
    }

    #[test]
    fn garbage_is_unknown_and_never_panics() {
        for line in ["xyzzy", "go wtime banana", "setoption", "uci extra words", "\u{0}\u{1}", "go depth 999999"] {
            let _ = Command::parse(line);
        }
        assert_eq!(Command::parse("xyzzy 1 2"), Command::Unknown("xyzzy 1 2".into()));
        assert_eq!(Command::parse("   "), Command::Empty);
        assert_eq!(Command::parse("isready"), Command::IsReady);
        assert_eq!(Command::parse("quit"), Command::Quit);
    }
}
