//! Conversion tests: content detection, round trips through every pair and
//! what each keeps and drops, bad input.

use super::*;
use crate::book::format::json::JsonError;
use crate::book::format::sbob::{square_field, SbobMove};
use crate::book::play::{format_from_extension, sniff};
use crate::testdata::TempDir;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// A shared test file, or `None` when it is not available (the test skips).
fn shared(path: &str) -> Option<PathBuf> {
    crate::testdata::path(path)
}

fn data(name: &str) -> PathBuf {
    PathBuf::from(format!("{}/engine-tests/data/{name}", env!("CARGO_MANIFEST_DIR")))
}

fn start() -> Vec<Board> {
    vec![Board::startpos()]
}

/// (key, move, weight) of every entry, as a set (order within a key aside).
fn triples(entries: impl Iterator<Item = PolyglotEntry>) -> BTreeSet<(u64, u16, u16)> {
    entries.map(|e| (e.key, e.raw_move, e.weight)).collect()
}

#[test]
fn formats_are_told_by_content() {
    assert_eq!(sniff(&std::fs::read(shared("books/lasker-trap.bin").unwrap()).unwrap()), BookFormat::Polyglot);
    assert_eq!(sniff(&std::fs::read(data("sbob_golden.sbob")).unwrap()), BookFormat::Sbob);
    assert_eq!(sniff(&std::fs::read(data("sbob_golden.json")).unwrap()), BookFormat::Json);
    assert_eq!(sniff(b" \n{}"), BookFormat::Json);
    assert_eq!(sniff(&[b'{', 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), BookFormat::Polyglot);
    assert_eq!(format_from_extension(Path::new("a/b.SBOB")), Some(BookFormat::Sbob));
    assert_eq!(format_from_extension(Path::new("b.bin")), Some(BookFormat::Polyglot));
    assert_eq!(format_from_extension(Path::new("b.txt")), None);
}

#[test]
fn polyglot_round_trips_through_sbob_and_json_keeping_reached_legal_entries() {
    let Some(performance) = shared("books/performance.bin") else { return };
    let book = PolyglotBook::open(&performance).unwrap();
    let (sbob_book, report) = polyglot_to_sbob(&book, &start());
    assert!(report.positions > 10_000, "{report}");
    assert_eq!(report.moves + report.illegal_moves + report.unreachable_entries, book.len(), "{report}");
    let (back, to_pg) = sbob_to_polyglot(&sbob_book);
    assert_eq!(to_pg.moves, report.moves);
    assert_eq!(to_pg.illegal_moves + to_pg.skipped_positions + to_pg.clamped_weights, 0, "{to_pg}");
    // Every entry that came back is an original entry (learn aside) ...
    let original = triples(book.iter());
    let returned = triples(back.iter().copied());
    assert!(returned.is_subset(&original));
    assert_eq!(returned.len(), back.len());
    assert!(back.iter().all(|e| e.learn == 0));
    // ... and the reached keys keep all their legal entries.
    let reached: BTreeSet<u64> = back.iter().map(|e| e.key).collect();
    let legal_at_reached = original.iter().filter(|t| reached.contains(&t.0)).count();
    assert_eq!(legal_at_reached, back.len() + report.illegal_moves);
    // JSON carries the same: Polyglot → JSON → Polyglot = Polyglot → SBOB → Polyglot.
    let text = json::to_string(&json::from_sbob(&sbob_book));
    let (via_json, _) = json::to_sbob(&json::parse(&text).unwrap()).unwrap();
    assert_eq!(sbob_to_polyglot(&via_json).0, back);
}

#[test]
fn a_one_sided_book_converts_and_comes_back_byte_for_byte() {
    let dir = TempDir::new("convert-lasker");
    let path = shared("books/lasker-trap.bin").unwrap();
    let (out_sbob, out_json, out_bin) = (dir.file("lasker.sbob"), dir.file("lasker.json"), dir.file("lasker.bin"));
    let r = convert(&path, &out_sbob, BookFormat::Sbob, &[]).unwrap();
    assert_eq!((r.positions, r.moves, r.unreachable_entries), (7, 7, 0), "{r}");
    convert(&out_sbob, &out_json, BookFormat::Json, &[]).unwrap();
    let r = convert(&out_json, &out_bin, BookFormat::Polyglot, &[]).unwrap();
    assert_eq!(r.notations_dropped, 7, "SAN is not carried into Polyglot: {r}");
    assert_eq!(std::fs::read(&out_bin).unwrap(), std::fs::read(&path).unwrap());
    let text = std::fs::read_to_string(&out_json).unwrap();
    assert!(text.contains("\"move_notation\": \"fxg1=N+\""), "{text}");
}

#[test]
fn unreachable_entries_are_counted_and_roots_reach_them() {
    let path = shared("books/lasker-trap.bin").unwrap();
    let book = PolyglotBook::open(&path).unwrap();
    // From a position after 1.d4 d5 2.c4 e5 3.dxe5 the first four entries are behind us.
    let mut b = Board::startpos();
    for san in ["d4", "d5", "c4", "e5", "dxe5"] {
        let m = b.parse_san(san).unwrap();
        b.make_move(m);
    }
    let (_, report) = polyglot_to_sbob(&book, std::slice::from_ref(&b));
    assert_eq!((report.positions, report.unreachable_entries), (5, 2), "{report}");
    let empty = Board::from_fen("8/8/8/8/8/8/8/K6k w - - 0 1", false).unwrap();
    let (sb, report) = polyglot_to_sbob(&book, &[empty]);
    assert!(sb.positions.is_empty());
    assert_eq!(report.unreachable_entries, 7);
}

#[test]
fn sbob_and_json_round_trip_losslessly_and_canonically() {
    let dir = TempDir::new("convert-roundtrip");
    let golden_sbob = std::fs::read(data("sbob_golden.sbob")).unwrap();
    let golden_json = std::fs::read_to_string(data("sbob_golden.json")).unwrap();
    let (to_json, back_sbob, back_json) = (dir.file("g.json"), dir.file("g.sbob"), dir.file("g2.json"));
    convert(&data("sbob_golden.sbob"), &to_json, BookFormat::Json, &[]).unwrap();
    assert_eq!(std::fs::read_to_string(&to_json).unwrap(), golden_json);
    let r = convert(&to_json, &back_sbob, BookFormat::Sbob, &[]).unwrap();
    assert_eq!(std::fs::read(&back_sbob).unwrap(), golden_sbob);
    assert_eq!(r.notations_dropped, 4, "{r}");
    convert(&back_sbob, &back_json, BookFormat::Json, &[]).unwrap();
    assert_eq!(std::fs::read_to_string(&back_json).unwrap(), golden_json, "SAN is derived again");
    // X → X rewrites canonically.
    let same = dir.file("same.sbob");
    convert(&data("sbob_golden.sbob"), &same, BookFormat::Sbob, &[]).unwrap();
    assert_eq!(std::fs::read(&same).unwrap(), golden_sbob);
    let same_json = dir.file("same.json");
    convert(&data("sbob_golden.json"), &same_json, BookFormat::Json, &[]).unwrap();
    assert_eq!(std::fs::read_to_string(&same_json).unwrap(), golden_json);
}

#[test]
fn to_polyglot_clamps_weights_drops_evaluations_and_skips_what_is_not_chess() {
    let chess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let pawn = |weight, evaluation| SbobMove {
        from: square_field(1, 4),
        to: square_field(3, 4),
        piece_type: 1,
        is_drop: false,
        is_promotion: 0,
        weight,
        evaluation,
    };
    let knight = SbobMove { from: square_field(0, 6), to: square_field(2, 5), piece_type: 2, ..pawn(0, 0) };
    let illegal = SbobMove { to: square_field(4, 4), ..pawn(9, 0) };
    let book = SbobBook {
        positions: vec![
            SbobPosition { fen: chess.into(), moves: vec![pawn(70_000, 33), knight, illegal] },
            SbobPosition {
                fen: "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1".into(),
                moves: vec![],
            },
            SbobPosition { fen: "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1".into(), moves: vec![] },
        ],
    };
    let (entries, r) = sbob_to_polyglot(&book);
    assert_eq!((r.positions, r.moves, r.skipped_positions, r.illegal_moves), (1, 2, 2, 1), "{r}");
    assert_eq!((r.clamped_weights, r.evaluations_dropped), (2, 1));
    let weights: Vec<u16> = entries.iter().map(|e| e.weight).collect();
    assert_eq!(weights, vec![65535, 1], "70000 → 65535 first, 0 → 1");
    assert!(entries.iter().all(|e| e.key == 0x463b96181691fc9c && e.learn == 0));
}

#[test]
fn polyglot_to_polyglot_rewrites_in_book_order() {
    let dir = TempDir::new("convert-rewrite");
    let out = dir.file("perf.bin");
    let Some(performance) = shared("books/performance.bin") else { return };
    let r = convert(&performance, &out, BookFormat::Polyglot, &[]).unwrap();
    let original = PolyglotBook::open(&performance).unwrap();
    let rewritten = PolyglotBook::open(&out).unwrap();
    assert_eq!(r.moves, original.len());
    let mut expected: Vec<PolyglotEntry> = original.iter().collect();
    polyglot::sort_entries(&mut expected);
    assert_eq!(rewritten.iter().collect::<Vec<_>>(), expected, "learn is kept Polyglot to Polyglot");
}

#[test]
fn bad_input_is_a_typed_error() {
    let dir = TempDir::new("convert-bad");
    let bad = dir.file("bad.bin");
    std::fs::write(&bad, [0u8; 17]).unwrap();
    assert!(matches!(
        convert(&bad, &dir.file("x.sbob"), BookFormat::Sbob, &[]),
        Err(ConvertError::Input { source: BookError::Polyglot(_), .. })
    ));
    std::fs::write(&bad, b"SBOB\x02").unwrap();
    assert!(matches!(
        convert(&bad, &dir.file("x.json"), BookFormat::Json, &[]),
        Err(ConvertError::Input { source: BookError::Sbob(_), .. })
    ));
    std::fs::write(&bad, b"{\"version\": 1,\n \"positions\": [}").unwrap();
    let err = convert(&bad, &dir.file("x.bin"), BookFormat::Polyglot, &[]).unwrap_err();
    assert!(
        matches!(err, ConvertError::Input { source: BookError::Json(JsonError::Syntax { line: 2, .. }), .. }),
        "{err}"
    );
    assert!(matches!(
        convert(Path::new("/nonexistent"), &bad, BookFormat::Json, &[]),
        Err(ConvertError::Input { source: BookError::Io { .. }, .. })
    ));
}

mod yacb_conversions {
    use super::super::*;
    use crate::book::format::yacb::{self, YacbBook};
    use crate::book::play::{format_from_extension, sniff};

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("archivist-yacbconv-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/engine-tests/data/golden.yacb");

    #[test]
    fn yacb_to_json_and_back_keeps_reached_keys_best_moves_and_values() {
        let d = dir("json");
        let json = d.join("g.json");
        let back = d.join("g.yacb");
        let r = convert(std::path::Path::new(GOLDEN), &json, BookFormat::Json, &[]).unwrap();
        assert_eq!((r.positions, r.unreachable_entries), (2, 1), "the made-up key is not reachable");
        convert(&json, &back, BookFormat::Yacb, &[]).unwrap();
        let a = YacbBook::open(std::path::Path::new(GOLDEN)).unwrap();
        let b = YacbBook::open(&back).unwrap();
        assert_eq!(b.len(), 2);
        for e in b.iter().map(Result::unwrap) {
            let orig = a.lookup(e.key).expect("same key");
            assert_eq!(e.best_move, orig.best_move);
            assert_eq!(e.value, yacb_value_to_cp(&orig), "value kept as centipawns");
        }
    }

    #[test]
    fn yacb_round_trip_through_itself_is_byte_identical() {
        let d = dir("self");
        let out = d.join("same.yacb");
        convert(std::path::Path::new(GOLDEN), &out, BookFormat::Yacb, &[]).unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(GOLDEN).unwrap());
    }

    #[test]
    fn polyglot_to_yacb_keeps_the_heaviest_move_of_each_reached_position() {
        let d = dir("pg");
        let y = d.join("p.yacb");
        let back = d.join("p.bin");
        let Some(performance) = crate::testdata::path("books/performance.bin") else { return };
        let r = convert(&performance, &y, BookFormat::Yacb, &[]).unwrap();
        assert!(r.positions > 50_000, "{r:?}");
        let book = YacbBook::open(&y).unwrap();
        book.verify().unwrap();
        let pg = crate::book::format::polyglot::PolyglotBook::open(&performance).unwrap();
        // Walk a few plies: the YACB best move is one of the heaviest Polyglot moves.
        let mut board = crate::board::Board::startpos();
        for _ in 0..8 {
            let moves = pg.moves(&board);
            let Some(e) = book.probe(&board) else { break };
            let heaviest = moves.iter().map(|m| m.weight).max().unwrap();
            assert!(moves.iter().any(|m| m.weight == heaviest && m.mv == e.best_move));
            board.make_move(e.best_move);
        }
        // And back to Polyglot: one weight-1 move per position. Positions the
        // Polyglot walk reached only through moves YACB does not keep (not the
        // heaviest) are counted as unreachable, not silently lost.
        let r2 = convert(&y, &back, BookFormat::Polyglot, &[]).unwrap();
        assert_eq!(r2.moves, r2.positions);
        assert_eq!(r2.positions + r2.unreachable_entries, book.len(), "{r2:?}");
        assert!(r2.positions > 60_000, "{r2:?}");
        let _ = yacb::MAGIC;
    }

    #[test]
    fn format_is_told_by_content() {
        assert_eq!(sniff(&std::fs::read(GOLDEN).unwrap()), BookFormat::Yacb);
        assert_eq!(format_from_extension(std::path::Path::new("x.yacb")), Some(BookFormat::Yacb));
    }
}

#[test]
fn the_old_opening_book_json_is_sniffed_and_converts_to_json_and_sbob() {
    use crate::book::format::legacy_json::tests::{generated_old_book, SEED_EXAMPLE};
    let dir = TempDir::new("convert-legacy");
    // The seed's example: one position, sente's rook-pawn push.
    let seed = dir.path().join("openingBook.json");
    std::fs::write(&seed, SEED_EXAMPLE).unwrap();
    assert_eq!(sniff(SEED_EXAMPLE.as_bytes()), BookFormat::LegacyJson);
    let out = dir.path().join("seed.json");
    let r = convert(&seed, &out, BookFormat::Json, &[]).unwrap();
    assert_eq!((r.from, r.positions, r.moves, r.duplicate_moves), (Some(BookFormat::LegacyJson), 1, 1, 0));
    let book = json::read(&out).unwrap();
    let m = &book.positions[0].moves[0];
    assert_eq!((m.from, m.to, m.opening_name.as_deref()), (Some([6, 1]), [5, 1], Some("Aggressive Rook")));
    assert_eq!(m.piece_type, json::PieceTag::Name("Pawn".to_string()));
    // A generated book of over 1,000 moves: to JSON with every name, to
    // SBOB with every square and piece (names counted as dropped).
    let (text, positions, legacy) = generated_old_book();
    let old = dir.path().join("generated.json");
    std::fs::write(&old, &text).unwrap();
    let new_json = dir.path().join("new.json");
    let r = convert(&old, &new_json, BookFormat::Json, &[]).unwrap();
    assert!(legacy.moves + legacy.duplicate_moves >= 1000);
    assert_eq!((r.positions, r.moves, r.duplicate_moves), (legacy.positions, legacy.moves, legacy.duplicate_moves));
    assert!(r.to_string().contains("repeated moves merged"), "{r}");
    assert_eq!(json::read(&new_json).unwrap().positions, positions);
    let sbob_out = dir.path().join("new.sbob");
    let r = convert(&old, &sbob_out, BookFormat::Sbob, &[]).unwrap();
    assert_eq!((r.positions, r.moves, r.opening_names_dropped), (legacy.positions, legacy.moves, legacy.moves));
    let back = sbob::read(&sbob_out).unwrap();
    assert_eq!(back.positions.len(), positions.len());
    for (b, p) in back.positions.iter().zip(&positions) {
        assert_eq!(b.fen, p.fen);
        let squares: Vec<_> = b.moves.iter().map(|m| (m.from_square(), m.to_square(), m.piece_type)).collect();
        let want: Vec<_> = p
            .moves
            .iter()
            .map(|m| {
                let piece = match &m.piece_type {
                    json::PieceTag::Name(n) => sbob::piece_number(sbob::GameKind::Shogi, n).unwrap(),
                    json::PieceTag::Number(n) => *n,
                };
                (m.from.map(|[r, c]| (r, c)), (m.to[0], m.to[1]), piece)
            })
            .collect();
        assert_eq!(squares, want, "{}", b.fen);
    }
    // Nothing converts to the old format.
    assert!(matches!(
        convert(&old, &dir.path().join("x.json"), BookFormat::LegacyJson, &[]),
        Err(ConvertError::Unsupported(_))
    ));
}
