//! Old openingBook.json tests: the seed's example, the square and piece
//! mapping, a generated book of over a thousand moves against an oracle,
//! duplicates, every refusal, the SBOB round trip and the content sniff.

use super::*;
use crate::book::format::json;
use std::collections::{HashMap, HashSet};

const START: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// The seed's example of the old format, verbatim.
pub(crate) const SEED_EXAMPLE: &str = r#"[
  {
"name": "Aggressive Rook",
"moves": {
  "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1": [
    { "from": "27", "to": "26" }
  ]
}
  }
]"#;

fn mv(from: [u8; 2], to: [u8; 2], piece: &str, opening: &str) -> JsonMove {
    JsonMove {
        from: Some(from),
        to,
        piece_type: PieceTag::Name(piece.to_string()),
        is_drop: false,
        is_promotion: false,
        weight: 1,
        evaluation: 0,
        opening_name: Some(opening.to_string()),
        move_notation: None,
        promotion: None,
    }
}

/// One opening's positions: (fen, [(from, to)]).
type Positions = Vec<(String, Vec<(String, String)>)>;

/// An old-format book: openings of (name, positions).
fn old_book(openings: &[(&str, Positions)]) -> String {
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let openings: Vec<String> = openings
        .iter()
        .map(|(name, positions)| {
            let positions: Vec<String> = positions
                .iter()
                .map(|(fen, moves)| {
                    let moves: Vec<String> =
                        moves.iter().map(|(f, t)| format!("{{\"from\": {}, \"to\": {}}}", q(f), q(t))).collect();
                    format!("{}: [{}]", q(fen), moves.join(", "))
                })
                .collect();
            format!("{{\"name\": {}, \"moves\": {{{}}}}}", q(name), positions.join(",\n "))
        })
        .collect();
    format!("[\n{}\n]\n", openings.join(",\n"))
}

fn one(fen: &str, moves: &[(&str, &str)]) -> Positions {
    vec![(fen.to_string(), moves.iter().map(|(f, t)| (f.to_string(), t.to_string())).collect())]
}

#[test]
fn the_seeds_example_becomes_one_pawn_push_from_row_6_col_1() {
    let (book, report) = parse(SEED_EXAMPLE).unwrap();
    assert_eq!(book.positions.len(), 1);
    assert_eq!(book.positions[0].fen, START);
    assert_eq!(book.positions[0].moves, vec![mv([6, 1], [5, 1], "Pawn", "Aggressive Rook")]);
    assert_eq!(report, LegacyReport { openings: 1, positions: 1, moves: 1, duplicate_moves: 0 });
    assert_eq!(
        report.to_string(),
        "1 openings: 1 positions, 1 moves, 0 duplicate moves dropped (first opening's name kept)"
    );
}

#[test]
fn squares_are_rank_minus_one_and_file_minus_one_and_pieces_come_from_the_sfen_file_order() {
    let cases = [
        ("28", [7, 1], "Rook"),
        ("88", [7, 7], "Bishop"),
        ("82", [1, 7], "Rook"),
        ("22", [1, 1], "Bishop"),
        ("59", [8, 4], "King"),
        ("51", [0, 4], "King"),
        ("39", [8, 2], "Silver"),
        ("49", [8, 3], "Gold"),
        ("11", [0, 0], "Lance"),
        ("99", [8, 8], "Lance"),
        ("81", [0, 7], "Knight"),
    ];
    let moves: Vec<(&str, &str)> = cases.iter().map(|c| (c.0, "55")).collect();
    let (book, _) = parse(&old_book(&[("o", one(START, &moves))])).unwrap();
    let want: Vec<JsonMove> = cases.iter().map(|&(_, from, piece)| mv(from, [4, 4], piece, "o")).collect();
    assert_eq!(book.positions[0].moves, want);
    // Promoted pieces, either colour.
    let fen = "l+nsgkgsnl/1+r5+b1/p+pppppppp/9/9/9/PPPPPPP+SP/1+B5R1/+LNSGKGSNL w - 8";
    let cases = [("81", "PromotedKnight"), ("82", "Dragon"), ("22", "Horse"), ("83", "PromotedPawn")];
    let more = [("27", "PromotedSilver"), ("88", "Horse"), ("99", "PromotedLance"), ("28", "Rook"), ("17", "Pawn")];
    let moves: Vec<(&str, &str)> = cases.iter().chain(&more).map(|c| (c.0, "55")).collect();
    let (book, _) = parse(&old_book(&[("p", one(fen, &moves))])).unwrap();
    let got: Vec<&PieceTag> = book.positions[0].moves.iter().map(|m| &m.piece_type).collect();
    let want: Vec<PieceTag> = cases.iter().chain(&more).map(|c| PieceTag::Name(c.1.to_string())).collect();
    assert_eq!(got, want.iter().collect::<Vec<_>>());
}

#[test]
fn letters_use_sbobs_shogi_numbering() {
    for (c, name) in "PLNSBRGK".chars().zip(["Pawn", "Lance", "Knight", "Silver", "Bishop", "Rook", "Gold", "King"]) {
        let n = letter_number(c).unwrap();
        assert_eq!(letter_number(c.to_ascii_lowercase()), Some(n));
        assert_eq!(sbob::piece_name(GameKind::Shogi, n), Some(name));
    }
    let promoted = ["PromotedPawn", "PromotedLance", "PromotedKnight", "PromotedSilver", "Horse", "Dragon"];
    for (c, name) in "PLNSBR".chars().zip(promoted) {
        assert_eq!(sbob::piece_name(GameKind::Shogi, letter_number(c).unwrap() + PROMOTED), Some(name));
    }
}

/// A generated piece: letter (upper case: sente) and promotion.
type Cell = Option<(char, bool)>;

fn grid(rows: [&str; 9]) -> [[Cell; 9]; 9] {
    let mut out = [[None; 9]; 9];
    for (r, text) in rows.iter().enumerate() {
        for (c, ch) in text.chars().enumerate() {
            out[r][c] = (ch != '.').then_some((ch, false));
        }
    }
    out
}

/// The SFEN of a generated board (written independently of the parser).
fn sfen(cells: &[[Cell; 9]; 9], sente: bool, ply: usize) -> String {
    let rows: Vec<String> = cells
        .iter()
        .map(|row| {
            let (mut s, mut run) = (String::new(), 0);
            for cell in row {
                match cell {
                    None => run += 1,
                    Some((ch, promoted)) => {
                        if run > 0 {
                            s.push_str(&run.to_string());
                            run = 0;
                        }
                        s.push_str(if *promoted { "+" } else { "" });
                        s.push(*ch);
                    }
                }
            }
            if run > 0 {
                s.push_str(&run.to_string());
            }
            s
        })
        .collect();
    format!("{} {} - {}", rows.join("/"), if sente { "b" } else { "w" }, ply)
}

fn name_of((ch, promoted): (char, bool)) -> &'static str {
    match (ch.to_ascii_uppercase(), promoted) {
        ('P', false) => "Pawn",
        ('L', false) => "Lance",
        ('N', false) => "Knight",
        ('S', false) => "Silver",
        ('B', false) => "Bishop",
        ('R', false) => "Rook",
        ('G', _) => "Gold",
        ('K', _) => "King",
        ('P', true) => "PromotedPawn",
        ('L', true) => "PromotedLance",
        ('N', true) => "PromotedKnight",
        ('S', true) => "PromotedSilver",
        ('B', true) => "Horse",
        ('R', true) => "Dragon",
        _ => unreachable!(),
    }
}

struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as usize % n
    }
}

/// A random move of the side to move: (from, to) as (row, cell), cell 0 = file 9.
fn pick(rng: &mut Lcg, cells: &[[Cell; 9]; 9], sente: bool, forward: bool) -> ((usize, usize), (usize, usize)) {
    let own = |c: &Cell| c.is_some_and(|(ch, _)| ch.is_ascii_uppercase() == sente);
    let mine: Vec<(usize, usize)> = (0..81).map(|i| (i / 9, i % 9)).filter(|&(r, c)| own(&cells[r][c])).collect();
    let (r, c) = mine[rng.below(mine.len())];
    let ahead = if sente { r.checked_sub(1) } else { Some(r + 1).filter(|&r| r < 9) };
    match ahead.filter(|&a| forward && !own(&cells[a][c])) {
        Some(a) => ((r, c), (a, c)),
        None => loop {
            let (tr, tc) = (rng.below(9), rng.below(9));
            if !own(&cells[tr][tc]) {
                break ((r, c), (tr, tc));
            }
        },
    }
}

fn square_text((r, c): (usize, usize)) -> String {
    format!("{}{}", 9 - c, r + 1)
}

/// A generated old book of over 1,000 moves (64 openings of 14 plies from
/// three roots, some moves repeated) with the book and report an
/// independent oracle expects of it.
pub(crate) fn generated_old_book() -> (String, Vec<JsonPosition>, LegacyReport) {
    let start = grid([
        "lnsgkgsnl",
        ".r.....b.",
        "ppppppppp",
        ".........",
        ".........",
        ".........",
        "PPPPPPPPP",
        ".B.....R.",
        "LNSGKGSNL",
    ]);
    let mut edited = start;
    edited[4][4] = Some(('B', true));
    edited[7][1] = None;
    edited[3][6] = Some(('r', true));
    edited[1][1] = None;
    let roots = [(start, true), (start, false), (edited, true)];
    let mut rng = Lcg(2024);
    let (mut openings, mut raw) = (Vec::new(), 0usize);
    // Oracle: positions by key in first-appearance order, first moves kept.
    let mut order: Vec<(String, Vec<JsonMove>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    let mut seen = HashSet::new();
    for k in 0..64 {
        let name = format!("Opening {k}");
        let (mut cells, mut sente) = roots[k % roots.len()];
        let mut positions = Vec::new();
        for ply in 1..=14 {
            let fen = sfen(&cells, sente, ply);
            let i = *at.entry(sbob::position_key(&fen)).or_insert_with(|| {
                order.push((fen.clone(), Vec::new()));
                order.len() - 1
            });
            let forward = rng.below(3) != 0;
            let played = pick(&mut rng, &cells, sente, forward);
            let mut moves = vec![played];
            if rng.below(2) == 0 {
                moves.push(pick(&mut rng, &cells, sente, false));
            }
            for &(f, t) in &moves {
                raw += 1;
                let piece = cells[f.0][f.1].expect("every generated move starts on a piece");
                let (from, to) = ([f.0 as u8, 8 - f.1 as u8], [t.0 as u8, 8 - t.1 as u8]);
                if seen.insert((i, from, to)) {
                    order[i].1.push(mv(from, to, name_of(piece), &name));
                }
            }
            positions.push((fen, moves.iter().map(|&(f, t)| (square_text(f), square_text(t))).collect()));
            let ((fr, fc), (tr, tc)) = played;
            let (ch, promoted) = cells[fr][fc].take().unwrap();
            let zone = if sente { tr <= 2 } else { tr >= 6 };
            let promotes = zone && "PLNSBR".contains(ch.to_ascii_uppercase()) && rng.below(2) == 0;
            cells[tr][tc] = Some((ch, promoted || promotes));
            sente = !sente;
        }
        openings.push((name, positions));
    }
    let openings: Vec<(&str, Vec<_>)> = openings.iter().map(|(n, p)| (n.as_str(), p.clone())).collect();
    assert!(raw >= 1000, "{raw}");
    let distinct: usize = order.iter().map(|p| p.1.len()).sum();
    assert!(raw > distinct, "the generator should repeat some moves");
    let report =
        LegacyReport { openings: 64, positions: order.len(), moves: distinct, duplicate_moves: raw - distinct };
    let positions = order.into_iter().map(|(fen, moves)| JsonPosition { fen, moves }).collect();
    (old_book(&openings), positions, report)
}

#[test]
fn a_generated_book_of_over_a_thousand_moves_converts_with_the_expected_counts_and_pieces() {
    let (text, want_positions, want_report) = generated_old_book();
    let (book, report) = parse(&text).unwrap();
    assert_eq!(report, want_report);
    assert_eq!(book.positions, want_positions);
    assert!(book.positions.iter().flat_map(|p| &p.moves).any(|m| m.piece_type == PieceTag::Name("Horse".into())));
}

#[test]
fn a_move_repeated_under_a_second_opening_keeps_the_first_name_and_is_counted() {
    let spaced = START.replace(" b", "  b");
    let text = old_book(&[
        ("First", one(START, &[("27", "26"), ("77", "76")])),
        ("Second", one(&spaced, &[("77", "76"), ("28", "68"), ("77", "76")])),
    ]);
    let (book, report) = parse(&text).unwrap();
    assert_eq!(book.positions.len(), 1);
    assert_eq!(book.positions[0].fen, START, "the SFEN as first written");
    let want = vec![
        mv([6, 1], [5, 1], "Pawn", "First"),
        mv([6, 6], [5, 6], "Pawn", "First"),
        mv([7, 1], [7, 5], "Rook", "Second"),
    ];
    assert_eq!(book.positions[0].moves, want);
    assert_eq!(report, LegacyReport { openings: 2, positions: 1, moves: 3, duplicate_moves: 2 });
}

fn refusal(fen: &str, third: (&str, &str)) -> LegacyJsonError {
    let moves = [("27", "26"), ("77", "76"), third];
    parse(&old_book(&[("First", one(START, &[("27", "26")])), ("Second", one(fen, &moves))])).unwrap_err()
}

#[test]
fn bad_squares_and_empty_origins_are_refused_naming_opening_fen_and_move() {
    for (third, end, square) in [
        (("0a", "26"), MoveEnd::From, "0a"),
        (("27", "27x"), MoveEnd::To, "27x"),
        (("2", "26"), MoveEnd::From, "2"),
        (("27", "20"), MoveEnd::To, "20"),
        (("", "26"), MoveEnd::From, ""),
    ] {
        let e = refusal(START, third);
        assert!(matches!(&e, LegacyJsonError::BadSquare { opening: 1, index: 2, end: e2, .. } if *e2 == end), "{e}");
        let text = e.to_string();
        for part in ["opening 1 ('Second')", START, "move 2", &format!("{end} square '{square}'")] {
            assert!(text.contains(part), "{text} lacks {part}");
        }
    }
    let e = refusal(START, ("55", "54"));
    assert!(matches!(&e, LegacyJsonError::EmptyFrom { opening: 1, index: 2, .. }), "{e}");
    let text = e.to_string();
    for part in ["opening 1 ('Second')", START, "move 2", "no piece stands on the from square '55'"] {
        assert!(text.contains(part), "{text} lacks {part}");
    }
}

#[test]
fn boards_that_are_not_9_by_9_shogi_boards_are_refused_naming_opening_and_fen() {
    let chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let narrow = "lnsgkgsnl/1r5b1/pppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let wide = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R2/LNSGKGSNL b - 1";
    let queen = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGQGSNL b - 1";
    let gold = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNS+GKGSNL b - 1";
    let dangling = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R+/LNSGKGSNL b - 1";
    for (fen, problem) in [
        (chess, BoardProblem::Rows { rows: 8 }),
        (narrow, BoardProblem::Width { row: 2, text: "pppppppp".into(), width: 8 }),
        (wide, BoardProblem::Width { row: 7, text: "1B5R2".into(), width: 10 }),
        (queen, BoardProblem::Letter { row: 8, text: "LNSGQGSNL".into(), ch: 'Q' }),
        (gold, BoardProblem::Promotion { row: 8, text: "LNS+GKGSNL".into() }),
        (dangling, BoardProblem::Promotion { row: 7, text: "1B5R+".into() }),
        ("", BoardProblem::Missing),
    ] {
        let e = refusal(fen, ("27", "26"));
        let text = e.to_string();
        match e {
            LegacyJsonError::BadBoard { opening: 1, problem: p, .. } => assert_eq!(p, problem),
            other => panic!("{other}"),
        }
        assert!(text.contains("opening 1 ('Second')") && text.contains(&format!("'{fen}'")), "{text}");
    }
}

#[test]
fn malformed_json_and_wrong_shapes_give_line_and_column() {
    let e = parse("[\n  {\"name\": \"x\",\n").unwrap_err();
    assert!(matches!(e, LegacyJsonError::Syntax { line: 3, .. }), "{e}");
    let e = parse("[\n  {\"name\": \"x\" \"moves\": {}}]").unwrap_err();
    assert!(matches!(e, LegacyJsonError::Syntax { line: 2, column: 16, .. }), "{e}");
    for (text, line, needle) in [
        (r#"{"version": 1}"#, 1, "an array of openings"),
        ("[\n {\"name\": \"x\"}\n]", 2, "missing field `moves`"),
        ("[{\"moves\": {}}]", 1, "missing field `name`"),
        ("[{\"name\": \"x\", \"moves\": []}]", 1, "an object mapping SFEN strings"),
        ("[{\"name\": \"x\", \"moves\": {\"f\": [{\"from\": 27, \"to\": \"26\"}]}}]", 1, "invalid type: integer"),
        ("[{\"name\": \"x\", \"moves\": {\"f\": [{\"from\": \"27\"}]}}]", 1, "missing field `to`"),
        ("[{\"name\": \"x\", \"moves\": {}, \"weight\": 3}]", 1, "unknown field `weight`"),
    ] {
        let e = parse(text).unwrap_err();
        assert!(matches!(e, LegacyJsonError::Shape { line: l, .. } if l == line), "{text}: {e}");
        assert!(e.to_string().contains(needle), "{e}");
    }
    let (book, report) = parse("\u{feff} [ ]").unwrap();
    assert_eq!((book, report), (JsonBook::default(), LegacyReport::default()));
}

#[test]
fn the_converted_book_survives_sbob_and_back_with_squares_and_pieces() {
    let fen = "l+nsgkgsnl/1+r5+b1/p+pppppppp/9/9/9/PPPPPPP+SP/1+B5R1/+LNSGKGSNL w - 8";
    let text = old_book(&[
        ("Aggressive Rook", one(START, &[("27", "26"), ("28", "68"), ("59", "58")])),
        ("Promoted", one(fen, &[("81", "72"), ("82", "85"), ("22", "44"), ("28", "27"), ("99", "98")])),
    ]);
    let (book, report) = parse(&text).unwrap();
    let (sbob, dropped) = json::to_sbob(&book).unwrap();
    assert_eq!(dropped.opening_names, report.moves);
    let bytes = sbob::encode(&sbob).unwrap();
    let back = json::from_sbob(&sbob::parse(&bytes).unwrap());
    let mut want = book.clone();
    want.positions.iter_mut().flat_map(|p| &mut p.moves).for_each(|m| m.opening_name = None);
    assert_eq!(back, want);
}

#[test]
fn looks_like_accepts_old_books_and_rejects_binary_new_json_pgn_and_nothing() {
    assert!(looks_like(format!(" \n\t{SEED_EXAMPLE}").as_bytes()));
    assert!(looks_like(b"[]") && looks_like(b"\xEF\xBB\xBF[\r\n ]"));
    assert!(looks_like("[{\"name\": \"é".as_bytes().split_last().unwrap().1), "a cut character is still text");
    for head in [&b""[..], b"  ", b"[", b"[ ", b"{\"version\": 1}", b"[Event \"x\"]", b"[1, 2]"] {
        assert!(!looks_like(head), "{head:?}");
    }
    // Polyglot-like: 0x5B then key bytes that are not text, or a zero learn field.
    assert!(!looks_like(&[0x5B, 0x7B, 0x9F, 0xC3, 0x28, 0x11, 0x02, 0x80]));
    assert!(!looks_like(&[0x5B, 0x20, 0x7B, 0x41, 0x42, 0x43, 0x44, 0x45, 0x03, 0x1C, 0x00, 0x01, 0, 0, 0, 0]));
    // Random Polyglot heads whose first key byte is 0x5B (and second `{`).
    let mut rng = Lcg(7);
    for n in 0..20_000 {
        let mut head = Vec::new();
        for _ in 0..1 + n % 8 {
            head.extend((0..8).map(|_| rng.below(256) as u8));
            head.extend([rng.below(16) as u8, rng.below(256) as u8, 0, 1 + rng.below(200) as u8, 0, 0, 0, 0]);
        }
        head[0] = 0x5B;
        if n % 2 == 0 {
            head[1] = b'{';
        }
        assert!(!looks_like(&head), "{head:?}");
    }
}
