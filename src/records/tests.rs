use super::*;
use crate::pgn;
use proptest::prelude::*;
use std::path::PathBuf;

fn pgn_games(name: &str) -> Vec<pgn::Game> {
    let text = crate::testdata::read(&format!("pgn/{name}")).expect("committed test PGNs");
    pgn::parse(&text)
}

fn pgn_result(g: &pgn::Game) -> GameResult {
    match g.result.as_deref() {
        Some("1-0") => GameResult::WhiteWin,
        Some("0-1") => GameResult::BlackWin,
        _ => GameResult::Draw,
    }
}

/// Deterministic made-up node counts for every legal move (the played move
/// gets the most), and a made-up score.
fn fake_search(b: &Board, played: Move, ply: usize) -> (u16, Vec<(Move, u64)>) {
    let nodes = b
        .legal_moves()
        .iter()
        .enumerate()
        .map(|(i, m)| (m, if m == played { 10_000 } else { (i as u64 * 7919 + ply as u64 * 31) % 9_000 }))
        .collect();
    (((ply * 2654435761) % 65536) as u16, nodes)
}

/// Encodes a PGN game with fake search data; `None` if the result
/// contradicts the final position (resignations are fine, time forfeits in
/// dead positions are not).
fn encode_pgn_game(g: &pgn::Game) -> Option<Vec<u8>> {
    let start = g.start_board().unwrap();
    let mut rec = GameRecorder::new(&start).unwrap();
    let mut ply = 0;
    let end = g
        .replay_with(|b, m| {
            let (score, nodes) = fake_search(b, m, ply);
            rec.push(m, score, &nodes).unwrap();
            ply += 1;
        })
        .unwrap();
    contradiction(&end, pgn_result(g)).is_none().then(|| rec.finish(pgn_result(g)))
}

pub(crate) fn corpus() -> (Vec<u8>, usize) {
    let mut file = Vec::new();
    let mut n = 0;
    for name in ["stockfish-selfplay-200.pgn", "cutechess-fischerrandom.pgn", "kasparov-deep-blue-1997.pgn"] {
        for g in pgn_games(name) {
            if let Some(bytes) = encode_pgn_game(&g) {
                file.extend_from_slice(&bytes);
                n += 1;
            }
        }
    }
    (file, n)
}

fn one_game() -> Vec<u8> {
    let g = pgn::parse("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. O-O Nf6 1-0");
    encode_pgn_game(&g[0]).unwrap()
}

#[test]
fn round_trip_keeps_every_field() {
    let (file, n) = corpus();
    assert!(n > 200, "{n} games");
    let games = parse(&file).unwrap();
    assert_eq!(games.len(), n);
    let mut again = Vec::new();
    for g in &games {
        again.extend_from_slice(&encode(g).unwrap());
    }
    assert_eq!(again, file);
    assert_eq!(scan(&file).unwrap(), n as u64);
    let t = validate(&file).unwrap();
    assert_eq!(t.games, n as u64);
    assert_eq!(t.positions, games.iter().map(|g| g.plies.len() as u64).sum::<u64>());
}

/// Decodes every game of `data` with montyformat and replays it beside our
/// reading: results, move counts, and at each ply that montyformat's best
/// move is legal and its legal-move count is ours. `per_ply` adds checks
/// (game index, their ply, our ply, their legal moves); `per_game` gets the
/// game and its final position. Returns the number of games.
pub(crate) fn check_with_montyformat(
    data: &[u8],
    mut per_ply: impl FnMut(usize, &montyformat::SearchData, &Ply, &[u16], &Board),
    mut per_game: impl FnMut(usize, &Game, &Board),
) -> usize {
    let ours = parse(data).unwrap();
    let mut reader = std::io::BufReader::new(data);
    for (i, game) in ours.iter().enumerate() {
        let theirs = montyformat::MontyFormat::deserialise_from(&mut reader).unwrap();
        assert_eq!(theirs.result, game.result.white_score() as f32, "game {i}");
        assert_eq!(theirs.moves.len(), game.plies.len(), "game {i}");
        let mut pos = theirs.startpos;
        let mut board = game.start.clone();
        for (data, ply) in theirs.moves.iter().zip(&game.plies) {
            let mut legal = Vec::new();
            pos.map_legal_moves(&theirs.castling, |m| legal.push(u16::from(m)));
            assert!(legal.contains(&u16::from(data.best_move)), "game {i}: {}", board.fen());
            assert_eq!(legal.len() as u64, board.count_legal(), "game {i}: {}", board.fen());
            per_ply(i, data, ply, &legal, &board);
            pos.make(data.best_move, &theirs.castling);
            board.make_move(ply.mv);
        }
        per_game(i, game, &board);
    }
    ours.len()
}

#[test]
fn writer_output_decodes_with_montyformat() {
    let (file, n) = corpus();
    let games = check_with_montyformat(
        &file,
        |_, data, ply, _, board| {
            assert_eq!(u16::from(data.best_move), board.to_record_move(ply.mv));
            assert_eq!(data.score, ply.score as f32 / 65535.0);
            let dist = data.visit_distribution.as_ref().unwrap();
            assert_eq!(dist.iter().map(|&(_, v)| v as u8).collect::<Vec<_>>(), ply.visits);
        },
        |_, _, _| {},
    );
    assert_eq!(games, n);
}

#[test]
fn bytes_equal_montyformat_serialiser() {
    use montyformat::chess::{Castling, Move as MMove, Position};
    use montyformat::{MontyFormat, SearchData};
    let mut games = pgn_games("stockfish-selfplay-200.pgn");
    games.truncate(20);
    games.extend(pgn_games("cutechess-fischerrandom.pgn"));
    for g in games {
        let Some(ours) = encode_pgn_game(&g) else { continue };
        let start = g.start_board().unwrap();
        let mut castling = Castling::default();
        let pos = Position::parse_fen(&start.fen(), &mut castling);
        let mut monty = MontyFormat::new(pos, castling);
        monty.result = pgn_result(&g).white_score() as f32;
        let mut ply = 0;
        g.replay_with(|b, m| {
            let (score, nodes) = fake_search(b, m, ply);
            let dist: Vec<(MMove, u32)> =
                nodes.iter().map(|&(mv, n)| (MMove::from(b.to_record_move(mv)), n as u32)).collect();
            // montyformat truncates where we round: aim a quarter above.
            let p = ((score as f32 + 0.25) / 65535.0).min(1.0);
            monty.push(SearchData::new(MMove::from(b.to_record_move(m)), p, Some(dist)));
            ply += 1;
        })
        .unwrap();
        let mut theirs = Vec::new();
        monty.serialise_into_buffer(&mut theirs).unwrap();
        assert_eq!(ours, theirs, "{:?}", g.tags);
    }
}

#[test]
fn golden_file_decodes_and_reencodes_identically() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("engine-tests/data/records/golden.bin");
    let expected = one_game();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &expected).unwrap();
    }
    let golden = std::fs::read(&path).unwrap();
    assert_eq!(golden, expected);
    let games = parse(&golden).unwrap();
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].plies.len(), 8);
    assert_eq!(games[0].result, GameResult::WhiteWin);
    assert_eq!(&golden[..8], &0xFFFF_0000_0000_0000u64.to_le_bytes());
    assert_eq!(&golden[38..43], &[0, 7, 0, 7, 2]);
    // 1. e4: e2 (12) → e4 (28), double push.
    assert_eq!(u16::from_le_bytes([golden[43], golden[44]]), 12737);
    assert_eq!(golden[47], 20);
    assert_eq!(&golden[golden.len() - 2..], &[0, 0]);
}

#[test]
fn scores_convert_with_rounding() {
    assert_eq!(score_to_u16(0.0), 0);
    assert_eq!(score_to_u16(1.0), 65535);
    assert_eq!(score_to_u16(0.5), 32768);
    assert_eq!(score_to_u16(2.0), 65535);
    assert_eq!(score_to_u16(f64::NAN), 32768);
    assert!((score_from_u16(65535) - 1.0).abs() < 1e-12);
}

#[test]
fn empty_file_has_no_games() {
    assert_eq!(parse(&[]).unwrap().len(), 0);
    assert_eq!(scan(&[]).unwrap(), 0);
}

// ----- one rejection per error variant ---------------------------------------

fn first_error(data: &[u8]) -> RecordError {
    parse(data).unwrap_err()
}

#[test]
fn rejects_truncated_game() {
    let g = one_game();
    for cut in [1, 20, HEADER_BYTES, HEADER_BYTES + 3, g.len() - 1] {
        let mut data = one_game();
        data.extend_from_slice(&g[..cut]);
        match first_error(&data) {
            RecordError::Truncated { game: 1, source } => {
                assert_eq!(source.len, data.len() as u64);
                assert!(source.offset >= g.len() as u64 && source.offset + source.needed > source.len, "{source:?}");
            }
            e => panic!("{e:?}"),
        }
        assert!(matches!(scan(&data), Err(RecordError::Truncated { game: 1, .. })));
    }
}

#[test]
fn framing_ends_after_the_last_whole_game() {
    let g = one_game();
    let two = [g.as_slice(), &g].concat();
    let whole = Framing { games: 2, complete_bytes: two.len() as u64, last_game_start: g.len() as u64 };
    assert_eq!(framing(&two), whole);
    for cut in [1, HEADER_BYTES, g.len() - 1] {
        let torn = [two.as_slice(), &g[..cut]].concat();
        assert_eq!(framing(&torn), whole, "cut {cut}");
    }
    assert_eq!(framing(&[]), Framing::default());
    assert_eq!(framing(&g[..10]), Framing::default());
}

#[test]
fn value_only_plies_take_five_bytes_and_decode_with_montyformat() {
    let mut rec = GameRecorder::new(&Board::startpos()).unwrap();
    for (i, m) in ["e2e4", "e7e5", "g1f3"].iter().enumerate() {
        let mv = rec.board().parse_uci(m).unwrap();
        rec.push_visits(mv, 1000 * i as u16, &[]).unwrap();
    }
    let data = rec.finish(GameResult::Draw);
    assert_eq!(data.len(), HEADER_BYTES + 3 * 5 + 2);
    let n = check_with_montyformat(
        &data,
        |_, theirs, ours, _, _| {
            assert!(theirs.visit_distribution.is_none() && ours.visits.is_empty());
            assert_eq!(theirs.score, ours.score as f32 / 65535.0);
        },
        |_, _, _| {},
    );
    assert_eq!(n, 1);
}

#[test]
fn rejects_overlapping_bitboards() {
    let mut g = one_game();
    g[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    g[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    g[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(first_error(&g), RecordError::BadBitboards { game: 0, offset: 0 }));
    let mut g = one_game();
    g[0..8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(matches!(first_error(&g), RecordError::BadBitboards { .. }));
}

#[test]
fn rejects_bad_side_to_move() {
    let mut g = one_game();
    g[32] = 2;
    assert!(matches!(first_error(&g), RecordError::BadSideToMove { value: 2, offset: 32, .. }));
}

#[test]
fn rejects_impossible_en_passant_square() {
    let mut g = one_game();
    g[33] = 20; // e3 with white to move and no pawn that just moved
    assert!(matches!(first_error(&g), RecordError::BadEnPassant { value: 20, offset: 33, .. }));
    // Not a square at all (84 & 63 would be e3 again).
    g[33] = 84;
    assert!(matches!(first_error(&g), RecordError::BadEnPassant { value: 84, .. }));
}

#[test]
fn rejects_bad_castling_data() {
    for (i, v) in [(34, 16u8), (38, 9), (39, 3)] {
        let mut g = one_game();
        g[i] = v;
        assert!(matches!(first_error(&g), RecordError::BadCastling { offset: 34, .. }), "byte {i} = {v}");
    }
    // A right whose rook is missing (white O-O with the rook file moved to g).
    let mut g = one_game();
    g[39] = 6;
    assert!(matches!(first_error(&g), RecordError::BadCastling { .. }));
}

#[test]
fn rejects_illegal_start_position() {
    let mut g = one_game();
    // Remove the white king: bitboards 1 and 2 lose e1.
    for range in [8..16, 16..24] {
        let mut b = [0u8; 8];
        b.copy_from_slice(&g[range.clone()]);
        let v = u64::from_le_bytes(b) & !(1 << 4);
        g[range].copy_from_slice(&v.to_le_bytes());
    }
    g[34] = 3; // drop white's rights so the castling check passes
    assert!(matches!(first_error(&g), RecordError::BadPosition { source: BuildError::KingCount { .. }, .. }));
}

#[test]
fn rejects_bad_result_byte() {
    let mut g = one_game();
    g[42] = 3;
    assert!(matches!(first_error(&g), RecordError::BadResult { value: 3, offset: 42, .. }));
}

#[test]
fn rejects_illegal_move() {
    let mut g = one_game();
    g[43..45].copy_from_slice(&(12u16 << 10 | 36 << 4).to_le_bytes()); // e2e5
    assert!(matches!(first_error(&g), RecordError::IllegalMove { ply: 1, offset: 43, .. }));
    // The right squares with the wrong flag are illegal too.
    let mut g = one_game();
    g[43..45].copy_from_slice(&12736u16.to_le_bytes()); // e2e4 as a quiet move
    assert!(matches!(first_error(&g), RecordError::IllegalMove { ply: 1, .. }));
}

#[test]
fn rejects_move_count_mismatch() {
    let mut g = one_game();
    g[47] = 19;
    g.remove(48);
    assert!(matches!(first_error(&g), RecordError::MoveCountMismatch { found: 19, legal: 20, offset: 47, .. }));
}

#[test]
fn rejects_unnormalised_visits() {
    let mut g = one_game();
    for b in &mut g[48..68] {
        *b /= 2;
    }
    assert!(matches!(first_error(&g), RecordError::UnnormalisedVisits { ply: 1, offset: 48, max: 127, .. }));
}

#[test]
fn rejects_result_that_contradicts_mate() {
    let g = pgn::parse("1. f3 e5 2. g4 Qh4# 0-1");
    let mut bytes = encode_pgn_game(&g[0]).unwrap();
    assert!(parse(&bytes).is_ok());
    bytes[42] = GameResult::WhiteWin as u8;
    assert!(matches!(
        first_error(&bytes),
        RecordError::ResultMismatch { reason: "checkmate", result: GameResult::WhiteWin, .. }
    ));
    // The same game second in a file: the error names game 1.
    let mut bytes = one_game();
    let second = bytes.len();
    bytes.extend_from_slice(&encode_pgn_game(&g[0]).unwrap());
    bytes[second + 42] = GameResult::Draw as u8;
    assert!(matches!(first_error(&bytes), RecordError::ResultMismatch { game: 1, .. }));
}

#[test]
fn refuses_to_encode_what_the_format_cannot_hold() {
    let b = Board::from_fen("8/8/8/8/8/8/8/K6k w - - 300 200", false).unwrap();
    assert!(matches!(GameRecorder::new(&b), Err(RecordError::Unencodable { .. })));
    let mut rec = GameRecorder::new(&Board::startpos()).unwrap();
    let e2e5 = Move::normal(Square::parse("e2").unwrap(), Square::parse("e5").unwrap());
    assert!(matches!(rec.push(e2e5, 0, &[]), Err(RecordError::Unencodable { .. })));
    let e2e4 = Board::startpos().parse_uci("e2e4").unwrap();
    assert!(matches!(rec.push_visits(e2e4, 0, &[255; 3]), Err(RecordError::Unencodable { .. })));
}

#[test]
fn reports_io_errors() {
    let e = map(std::path::Path::new("/nonexistent/records.bin")).unwrap_err();
    assert!(matches!(e, RecordError::Io(_)));
}

#[test]
fn all_zero_nodes_write_no_distribution() {
    let mut rec = GameRecorder::new(&Board::startpos()).unwrap();
    let e2e4 = Board::startpos().parse_uci("e2e4").unwrap();
    rec.push(e2e4, 40000, &[]).unwrap();
    let bytes = rec.finish(GameResult::Draw);
    let g = parse(&bytes).unwrap();
    assert!(g[0].plies[0].visits.is_empty());
    assert_eq!(bytes[HEADER_BYTES + 4], 0);
}

#[test]
fn stats_and_dumps_cover_every_game() {
    let (file, n) = corpus();
    let s = text::stats(&file).unwrap();
    assert_eq!(s.games, n as u64);
    assert_eq!(s.results.iter().sum::<u64>(), n as u64);
    assert_eq!(s.score_histogram.iter().sum::<u64>(), s.positions);
    assert!(s.chess960_games > 0);
    assert!(s.report().contains(&format!("games:        {n}")));
    let mut out = Vec::new();
    let t = text::dump(&file, text::DumpFormat::Pgn, &mut out).unwrap();
    assert_eq!(t.games, n as u64);
    let reparsed = pgn::parse(&String::from_utf8(out).unwrap());
    assert_eq!(reparsed.len(), n);
    for g in &reparsed {
        g.replay().unwrap();
    }
    let mut out = Vec::new();
    text::dump(&file, text::DumpFormat::Fen, &mut out).unwrap();
    assert_eq!(String::from_utf8(out).unwrap().lines().count() as u64, s.positions);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = parse(&data);
        let _ = scan(&data);
        let _ = text::stats(&data);
    }

    #[test]
    fn mutated_files_never_panic(flips in proptest::collection::vec((0usize..4096, any::<u8>()), 1..6), cut in 0usize..4096) {
        let mut data = one_game();
        data.extend_from_slice(&one_game());
        for (i, v) in flips {
            let len = data.len();
            data[i % len] = v;
        }
        data.truncate(cut.max(1));
        let _ = parse(&data);
        let mut sink = Vec::new();
        let _ = text::dump(&data, text::DumpFormat::Pgn, &mut sink);
    }
}
