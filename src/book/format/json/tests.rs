//! JSON tests: the seed example, the chess golden files, the shogi SFEN
//! round trip, errors with line and column, lossless conversion, random text.

use super::*;
use crate::book::format::sbob::tests::arb_move;
use crate::book::format::sbob::{square_field, SbobBook, SbobMove, SbobPosition};
use proptest::prelude::*;

const SFEN: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// The seed's JSON example, verbatim.
const SEED_EXAMPLE: &str = r#"{
  "version": 1,
  "positions": {
    "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1": {
      "moves": [
        {
          "from": [1, 2],
          "to": [1, 1],
          "piece_type": "Rook",
          "is_drop": false,
          "is_promotion": false,
          "weight": 850,
          "evaluation": 15,
          "opening_name": "Aggressive Rook",
          "move_notation": "2b-2a"
        },
        {
          "from": [1, 2],
          "to": [1, 0],
          "piece_type": "Rook",
          "is_drop": false,
          "is_promotion": false,
          "weight": 120,
          "evaluation": 8,
          "opening_name": "Aggressive Rook",
          "move_notation": "2b-2c"
        },
        {
          "from": null,
          "to": [2, 1],
          "piece_type": "Pawn",
          "is_drop": true,
          "is_promotion": false,
          "weight": 30,
          "evaluation": -5,
          "opening_name": "Aggressive Rook",
          "move_notation": "P*2b"
        }
      ]
    }
  }
}"#;

fn data(name: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(format!("{}/engine-tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
}

fn rec(from: u16, to: u16, piece_type: u8, is_promotion: u8, weight: u32, evaluation: i32) -> SbobMove {
    SbobMove { from, to, piece_type, is_drop: false, is_promotion, weight, evaluation }
}

/// A small shogi book with the seed's moves, plus odd values the JSON must carry.
fn shogi_book() -> SbobBook {
    let moves = vec![
        rec(0x0102, 0x0101, 6, 0, 850, 15),
        rec(0x0102, 0x0100, 6, 0, 120, 8),
        SbobMove {
            from: sbob::DROP_FROM,
            to: 0x0201,
            piece_type: 1,
            is_drop: true,
            is_promotion: 0,
            weight: 30,
            evaluation: -5,
        },
        rec(0x0808, 0x0707, 13, 1, 0, i32::MIN),
        rec(0x0001, 0x0002, 42, 99, u32::MAX, i32::MAX),
    ];
    let second = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    SbobBook {
        positions: vec![
            SbobPosition { fen: SFEN.into(), moves },
            SbobPosition { fen: second.into(), moves: vec![rec(0x0601, 0x0501, 1, 0, 1, 0)] },
        ],
    }
}

/// A chess book with a pawn push, a knight move, castling and a capturing promotion.
fn chess_book() -> SbobBook {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let odd = "r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1";
    SbobBook {
        positions: vec![
            SbobPosition {
                fen: start.into(),
                moves: vec![
                    rec(square_field(1, 4), square_field(3, 4), 1, 0, 850, 15),
                    rec(square_field(0, 6), square_field(2, 5), 2, 0, 120, 8),
                ],
            },
            SbobPosition {
                fen: odd.into(),
                moves: vec![
                    rec(square_field(0, 4), square_field(0, 7), 6, 0, 30, -5),
                    rec(square_field(6, 1), square_field(7, 0), 1, 5, 7, 900),
                    rec(square_field(0, 0), square_field(5, 5), 4, 0, 1, 0),
                ],
            },
        ],
    }
}

#[test]
fn shogi_sfen_book_survives_sbob_json_sbob_byte_for_byte() {
    let bytes = sbob::encode(&shogi_book()).unwrap();
    let text = to_string(&from_sbob(&sbob::parse(&bytes).unwrap()));
    assert!(text.contains("\"piece_type\": \"Rook\""), "{text}");
    assert!(text.contains("\"piece_type\": 42"), "unnamed numbers stay numbers");
    assert!(text.contains("\"promotion\": 99"));
    assert!(!text.contains("move_notation"), "no notation is invented for shogi");
    let (back, dropped) = to_sbob(&parse(&text).unwrap()).unwrap();
    assert_eq!(dropped, Dropped::default());
    assert_eq!(sbob::encode(&back).unwrap(), bytes);
}

#[test]
fn the_seeds_example_is_written_back_exactly() {
    assert_eq!(to_string(&parse(SEED_EXAMPLE).unwrap()), format!("{SEED_EXAMPLE}\n"));
    assert_eq!(to_string(&JsonBook::default()), "{\n  \"version\": 1,\n  \"positions\": {}\n}\n");
    let empty = JsonBook { positions: vec![JsonPosition { fen: "a b c d".into(), moves: vec![] }] };
    assert_eq!(parse(&to_string(&empty)).unwrap(), empty);
}

#[test]
fn the_seeds_example_reads_and_its_extras_are_counted_as_dropped() {
    let book = parse(SEED_EXAMPLE).unwrap();
    assert_eq!(book.positions[0].fen, SFEN);
    let (sbob_book, dropped) = to_sbob(&book).unwrap();
    assert_eq!(dropped, Dropped { opening_names: 3, move_notations: 3 });
    assert_eq!(sbob_book.positions[0].moves, shogi_book().positions[0].moves[..3].to_vec());
}

/// engine-tests/data/sbob_golden.{sbob,json}: a chess book in both forms.
/// Set ARCHIVIST_BLESS=1 to rewrite them after a deliberate format change.
#[test]
fn chess_golden_files_match_byte_for_byte() {
    let book = chess_book();
    let bytes = sbob::encode(&book).unwrap();
    let text = to_string(&from_sbob(&book));
    if std::env::var_os("ARCHIVIST_BLESS").is_some() {
        std::fs::write(data("sbob_golden.sbob"), &bytes).unwrap();
        std::fs::write(data("sbob_golden.json"), &text).unwrap();
    }
    assert_eq!(std::fs::read(data("sbob_golden.sbob")).unwrap(), bytes);
    assert_eq!(std::fs::read_to_string(data("sbob_golden.json")).unwrap(), text);
    for san in ["\"e4\"", "\"Nf3\"", "\"O-O\"", "\"bxa8=Q+\""] {
        assert!(text.contains(&format!("\"move_notation\": {san}")), "{san} in {text}");
    }
    assert!(text.contains("\"promotion\": \"Queen\""));
    assert_eq!(to_sbob(&read(&data("sbob_golden.json")).unwrap()).unwrap().0, book);
}

#[test]
fn syntax_errors_give_line_and_column() {
    let err = parse("{\n  \"version\": 1,\n  \"positions\": {\n    \"x\": {\"moves\": [}\n").unwrap_err();
    assert!(matches!(err, JsonError::Syntax { line: 4, column: 21, .. }), "{err}");
    let err = parse("{\"version\": 1, \"positions\": {}, \"extra\": 0}").unwrap_err();
    assert!(
        matches!(&err, JsonError::Syntax { line: 1, column, message } if *column > 30 && message.contains("extra")),
        "{err}"
    );
    let dup = "{\"version\": 1, \"positions\": {\n\"a b c d\": {\"moves\": []},\n\"a b c d\": {\"moves\": []}}}";
    let err = parse(dup).unwrap_err();
    assert!(
        matches!(&err, JsonError::Syntax { line: 3, message, .. } if message.contains("duplicate position")),
        "{err}"
    );
    let err = parse("{\"version\": 1, \"positions\": {\"a\": {\"moves\": [{\"to\": [1, 2]}]}}}").unwrap_err();
    assert!(matches!(&err, JsonError::Syntax { message, .. } if message.contains("missing field")), "{err}");
}

#[test]
fn rejects_other_versions_unknown_pieces_and_the_drop_marker_as_a_square() {
    assert!(matches!(parse("{\"version\": 2, \"positions\": {}}"), Err(JsonError::UnsupportedVersion { version: 2 })));
    let one = |piece: &str, from: &str| {
        format!(
            "{{\"version\": 1, \"positions\": {{\"{SFEN}\": {{\"moves\": [{{\"from\": {from}, \"to\": [0, 0], \"piece_type\": {piece}, \"is_drop\": false, \"is_promotion\": false, \"weight\": 1, \"evaluation\": 0}}]}}}}}}"
        )
    };
    let err = to_sbob(&parse(&one("\"Queen\"", "[1, 1]")).unwrap()).unwrap_err();
    assert!(
        matches!(&err, JsonError::UnknownPiece { index: 0, name, .. } if name == "Queen"),
        "shogi has no queen: {err}"
    );
    let err = to_sbob(&parse(&one("1", "[255, 255]")).unwrap()).unwrap_err();
    assert!(matches!(err, JsonError::AmbiguousFrom { index: 0, .. }));
    assert!(matches!(read(std::path::Path::new("/nonexistent.json")), Err(JsonError::Io { .. })));
}

#[test]
fn write_then_read_round_trips() {
    let path = std::env::temp_dir().join(format!("archivist-json-{}.json", std::process::id()));
    let json = from_sbob(&chess_book());
    write(&path, &json).unwrap();
    assert_eq!(read(&path).unwrap(), json);
    std::fs::remove_file(&path).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn any_sbob_book_survives_json(moves in proptest::collection::vec(arb_move(), 0..8)) {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            SFEN,
            "opaque position w - -",
        ];
        let book = SbobBook {
            positions: fens.iter().map(|f| SbobPosition { fen: f.to_string(), moves: moves.clone() }).collect(),
        };
        let bytes = sbob::encode(&book).unwrap();
        let (back, _) = to_sbob(&parse(&to_string(&from_sbob(&book))).unwrap()).unwrap();
        prop_assert_eq!(sbob::encode(&back).unwrap(), bytes);
    }

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        let _ = parse(&text);
    }

    #[test]
    fn random_bytes_after_a_valid_prefix_never_panic(tail in "[\\[\\]{}\":,0-9a-z \\n-]{0,120}") {
        let _ = parse(&format!("{{\"version\": 1, \"positions\": {tail}"));
    }
}
