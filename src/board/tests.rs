//! Board tests: outside vectors (perft, keys), random-game invariants,
//! notation round trips and FEN rejections.

use super::notation::NotationError;
use super::zobrist::{engine_key, polyglot_key, stockfish_d_key};
use super::*;
use crate::perft::perft;

/// Committed outside data (engine-tests/data/shared): always present.
fn shared(path: &str) -> String {
    crate::testdata::read(path).unwrap_or_else(|| panic!("{path}: committed test data is missing"))
}

fn csv_rows(path: &str) -> Vec<Vec<String>> {
    shared(path)
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(';').map(str::to_string).collect())
        .collect()
}

/// Small deterministic generator for random games.
pub(crate) struct Rng(u64);
impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn check_perft_file(path: &str, chess960: bool) {
    let rows = csv_rows(path);
    assert!(!rows.is_empty());
    for row in rows {
        let mut b = Board::from_fen(&row[0], chess960).unwrap_or_else(|e| panic!("{}: {e}", row[0]));
        let depth: u32 = row[1].parse().expect("depth");
        let nodes: u64 = row[2].parse().expect("nodes");
        assert_eq!(perft(&mut b, depth), nodes, "perft {depth} of {}", row[0]);
    }
}

#[test]
fn perft_matches_stockfish_vectors() {
    check_perft_file("vectors/perft.csv", false);
}

#[test]
fn perft_matches_stockfish_chess960_vectors() {
    check_perft_file("vectors/perft960.csv", true);
}

fn check_keys_file(path: &str, chess960: bool) {
    let rows = csv_rows(path);
    assert!(rows.len() >= 300);
    for row in rows {
        let b = Board::from_fen(&row[0], chess960).unwrap_or_else(|e| panic!("{}: {e}", row[0]));
        assert_eq!(format!("{:016X}", b.key()), row[1], "engine key of {}", row[0]);
        assert_eq!(format!("{:016X}", engine_key(&b)), row[1]);
        assert_eq!(format!("{:016X}", stockfish_d_key(&b)), row[2], "Stockfish d key of {}", row[0]);
        if let Some(pg) = row.get(3).filter(|s| !s.is_empty()) {
            assert_eq!(format!("{:016X}", polyglot_key(&b)), pg.to_uppercase(), "polyglot key of {}", row[0]);
        }
    }
}

#[test]
fn engine_and_polyglot_keys_match_vectors() {
    check_keys_file("vectors/keys.csv", false);
}

#[test]
fn chess960_keys_match_vectors() {
    check_keys_file("vectors/keys960.csv", true);
}

#[test]
fn formats_md_check_values() {
    let mut b = Board::startpos();
    assert_eq!(b.key(), 0x8F8F01D4562F59FB);
    let m = b.parse_uci("e2e4").expect("legal");
    b.make_move(m);
    assert_eq!(b.key(), 0xB46022469E3DD31B);
}

#[test]
fn polyglot_keys_match_the_nine_seed_test_keys() {
    let seed = shared("seeds/002-polyglot-test-keys.txt");
    let mut fen = None;
    let mut n = 0;
    for line in seed.lines() {
        let text = line.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
        if let Some(f) = text.strip_prefix("FEN=") {
            fen = Some(f.to_string());
        } else if let Some(k) = text.strip_prefix("key=").filter(|k| k.len() == 16) {
            let f = fen.take().expect("FEN before key");
            let b = Board::from_fen(&f, false).expect("seed FEN");
            assert_eq!(format!("{:016x}", polyglot_key(&b)), k, "{f}");
            n += 1;
        }
    }
    assert_eq!(n, 9);
}

#[test]
fn fen_round_trips_on_vector_positions() {
    for (path, c960) in [("vectors/keys.csv", false), ("vectors/keys960.csv", true)] {
        for row in csv_rows(path) {
            let b = Board::from_fen(&row[0], c960).expect("fen");
            let again = Board::from_fen(&b.fen(), c960).expect("own fen");
            assert_eq!(b, again, "{}", row[0]);
            assert_eq!(b.key(), again.key());
        }
    }
}

fn random_game_positions(seed: u64, games: usize, check: &mut dyn FnMut(&mut Board)) {
    let mut rng = Rng::new(seed);
    let starts: Vec<String> = csv_rows("vectors/perft.csv")
        .into_iter()
        .chain(csv_rows("vectors/perft960.csv"))
        .map(|r| r[0].clone())
        .collect();
    for g in 0..games {
        let fen = &starts[g % starts.len()];
        let mut b = Board::from_fen(fen, false).expect("fen");
        for _ in 0..200 {
            let moves = b.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves.as_slice()[rng.below(moves.len())];
            b.make_move(m);
            check(&mut b);
        }
    }
}

#[test]
fn incremental_key_matches_recomputation() {
    let mut positions = 0;
    random_game_positions(7, 2000, &mut |b| {
        assert_eq!(b.key(), engine_key(b), "{}", b.fen());
        let fresh = Board::from_fen(&b.fen(), b.is_chess960()).expect("own fen parses");
        assert_eq!(fresh.key(), b.key(), "{}", b.fen());
        assert_eq!(fresh.checkers(), b.checkers());
        positions += 1;
    });
    assert!(positions > 100_000);
}

#[test]
fn unmake_restores_the_position_exactly() {
    random_game_positions(11, 1000, &mut |b| {
        let before = b.clone();
        for m in b.legal_moves().iter() {
            b.make_move(m);
            b.unmake_move();
            assert_eq!(*b, before, "after {m:?} in {}", before.fen());
            assert_eq!(b.mailbox, before.mailbox);
            assert_eq!(b.history.len(), before.history.len());
        }
        if !b.in_check() {
            b.make_null_move();
            b.unmake_move();
            assert_eq!(*b, before);
        }
    });
}

#[test]
fn noisy_and_quiet_generation_partition_the_legal_moves() {
    random_game_positions(13, 300, &mut |b| {
        let all = b.legal_moves();
        let mut noisy = MoveList::new();
        let mut quiet = MoveList::new();
        b.generate(movegen::GenKind::Noisy, &mut noisy);
        b.generate(movegen::GenKind::Quiet, &mut quiet);
        assert_eq!(noisy.len() + quiet.len(), all.len(), "{}", b.fen());
        for m in noisy.iter().chain(quiet.iter()) {
            assert!(all.contains(m));
        }
        for m in noisy.iter() {
            assert!(b.piece_on(m.to()).is_some() || m.kind() != MoveKind::Normal || m.is_castling());
        }
    });
}

#[test]
fn is_legal_agrees_with_generation_on_random_raw_moves() {
    let mut rng = Rng::new(99);
    random_game_positions(17, 100, &mut |b| {
        let legal = b.legal_moves();
        for _ in 0..20 {
            let m = Move::from_raw(rng.next() as u16);
            assert_eq!(b.is_legal(m), legal.contains(m));
        }
    });
}

/// Every move shape (each from, to and kind, each promotion piece) in
/// positions from random games: the generator-free legality check says yes
/// exactly to the generated moves.
#[test]
fn is_legal_agrees_with_generation_on_every_move_shape() {
    let mut checked = 0u64;
    random_game_positions(23, 6, &mut |b| {
        let legal = b.legal_moves();
        let mut accepted = 0;
        for from in Square::all() {
            for to in Square::all() {
                let shapes = [
                    Move::normal(from, to),
                    Move::with_kind(from, to, MoveKind::EnPassant),
                    Move::with_kind(from, to, MoveKind::Castling),
                    Move::promotion(from, to, PieceType::Knight),
                    Move::promotion(from, to, PieceType::Bishop),
                    Move::promotion(from, to, PieceType::Rook),
                    Move::promotion(from, to, PieceType::Queen),
                ];
                for m in shapes {
                    let ok = b.is_legal(m);
                    assert_eq!(ok, legal.contains(m), "{m:?} in {}", b.fen());
                    accepted += ok as usize;
                    checked += 1;
                }
            }
        }
        assert_eq!(accepted, legal.len(), "{}", b.fen());
    });
    assert!(checked > 1_000_000, "{checked}");
}

#[test]
fn san_round_trips_over_every_game_in_shared_pgn() {
    let dir = crate::testdata::path("pgn").expect("committed test PGNs");
    let mut moves = 0;
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("pgn dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("pgn") {
            continue;
        }
        files += 1;
        let text = std::fs::read_to_string(&path).expect("read pgn");
        for (gi, game) in crate::pgn::parse(&text).iter().enumerate() {
            let result = game.replay_with(|b, m| {
                let san = b.move_to_san(m);
                assert_eq!(b.parse_san(&san), Ok(m), "{san} in {}", b.fen());
                let uci = b.move_to_uci(m);
                assert_eq!(b.parse_uci(&uci), Ok(m), "{uci} in {}", b.fen());
                let pg = notation::to_polyglot_move(m);
                assert_eq!(b.from_polyglot_move(pg), Some(m));
                let rec = b.to_record_move(m);
                assert_eq!(b.from_record_move(rec), Some(m));
                moves += 1;
            });
            if let Err(e) = result {
                panic!("{} game {}: {e}", path.display(), gi + 1);
            }
        }
    }
    assert_eq!(files, 5);
    assert!(moves > 10_000, "{moves}");
}

#[test]
fn san_written_matches_pgn_text() {
    // The PGN files were written by python-chess / cutechess: our SAN must
    // reproduce the text exactly (modulo annotation glyphs).
    let text = shared("pgn/stockfish-selfplay-200.pgn");
    for game in crate::pgn::parse(&text) {
        let mut i = 0;
        game.replay_with(|b, m| {
            let expected = game.moves[i].trim_end_matches(['!', '?']);
            assert_eq!(b.move_to_san(m), expected);
            i += 1;
        })
        .expect("replay");
    }
}

#[test]
fn record_move_encoding_matches_seed_examples() {
    let b = Board::startpos();
    let ng1f3 = b.parse_uci("g1f3").expect("legal");
    assert_eq!(b.to_record_move(ng1f3), 6480);
    let e2e4 = b.parse_uci("e2e4").expect("legal");
    assert_eq!(b.to_record_move(e2e4), 12737);
    let b = Board::from_fen("3r3k/8/8/8/8/8/4p3/K4R2 b - - 0 1", false).expect("fen");
    let exf1 = b.parse_uci("e2f1r").expect("legal");
    assert_eq!(b.to_record_move(exf1) & 15, 14);
    let b = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).expect("fen");
    let oo = b.parse_san("O-O").expect("legal");
    assert_eq!(b.to_record_move(oo), 2 | 6 << 4 | 4 << 10);
    let ooo = b.parse_san("O-O-O").expect("legal");
    assert_eq!(b.to_record_move(ooo), 3 | 2 << 4 | 4 << 10);
}

#[test]
fn uci_castling_notation_depends_on_chess960() {
    let mut b = Board::from_fen("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", false).expect("fen");
    let oo = b.parse_uci("e1g1").expect("standard form");
    assert!(oo.is_castling());
    assert_eq!(b.parse_uci("e1h1"), Ok(oo));
    assert_eq!(b.move_to_uci(oo), "e1g1");
    b.set_chess960(true);
    assert_eq!(b.move_to_uci(oo), "e1h1");
    assert!(b.parse_uci("e1g1").is_err());
}

#[test]
fn en_passant_pins_are_respected() {
    // Horizontal pin: capturing en passant would expose the king on the rank.
    let b = Board::from_fen("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", false).expect("fen");
    assert!(b.parse_uci("e5d6").is_err());
    // Diagonal pin of the capturing pawn.
    let b = Board::from_fen("8/8/8/2KpP3/8/8/8/7b w - d6 0 1", false);
    assert!(b.is_err() || b.is_ok_and(|b| b.parse_uci("e5d6").is_ok()));
    // Checking pawn can be captured en passant.
    let b = Board::from_fen("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1", false).expect("fen");
    assert!(b.parse_uci("e4d3").is_ok());
}

#[test]
fn game_end_detection() {
    let mate = Board::from_fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1", false).expect("fen");
    assert!(mate.is_checkmate());
    let stale = Board::from_fen("7k/5Q2/8/8/8/8/8/6K1 b - - 0 1", false).expect("fen");
    assert!(stale.is_stalemate());
    assert!(Board::from_fen("8/8/4k3/8/8/2B5/8/4K3 w - - 0 1", false).expect("fen").is_insufficient_material());
    assert!(Board::from_fen("8/8/4k3/8/8/2B1B3/8/4K3 w - - 0 1", false).expect("fen").is_insufficient_material());
    assert!(!Board::from_fen("8/8/4k3/8/8/2BB4/8/4K3 w - - 0 1", false).expect("fen").is_insufficient_material());
    assert!(!Board::from_fen("8/8/4k3/8/8/2N1N3/8/4K3 w - - 0 1", false).expect("fen").is_insufficient_material());
    let fifty = Board::from_fen("8/8/4k3/8/8/2R5/8/4K3 w - - 100 80", false).expect("fen");
    assert!(fifty.is_draw(0));
    let mut rep = Board::startpos();
    for uci in ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"] {
        let m = rep.parse_uci(uci).expect("legal");
        rep.make_move(m);
        assert!(!rep.is_repetition(0), "{uci}");
    }
    let m = rep.parse_uci("f6g8").expect("legal");
    rep.make_move(m);
    assert!(rep.is_repetition(0), "threefold");
}

fn fen_err(fen: &str) -> FenError {
    Board::from_fen(fen, false).expect_err(fen)
}

#[test]
fn rejects_fen_with_wrong_field_count() {
    assert_eq!(fen_err("8/8/8/8/8/8/8/K6k w -"), FenError::FieldCount { found: 3 });
    assert!(matches!(fen_err("8/8/8/8/8/8/8/K6k w - - 0 1 extra"), FenError::FieldCount { found: 7 }));
}

#[test]
fn missing_move_counters_default_to_0_1() {
    let b = Board::from_fen("8/8/8/8/8/8/8/K6k w - -", false).expect("4 fields");
    assert_eq!(b.halfmove_clock(), 0);
    assert_eq!(b.fullmove_number(), 1);
}

#[test]
fn rejects_fen_with_bad_piece_letter() {
    assert!(matches!(fen_err("8/8/8/8/8/8/8/K5xk w - - 0 1"), FenError::BadPiece { letter: 'x', rank: 1 }));
}

#[test]
fn rejects_fen_with_bad_rank_length() {
    assert!(matches!(fen_err("8/8/8/8/8/8/8/K6k1 w - - 0 1"), FenError::RankLength { rank: 1, .. }));
    assert!(matches!(fen_err("8/8/8/8/8/8/7/K6k w - - 0 1"), FenError::RankLength { rank: 2, squares: 7 }));
    assert!(matches!(fen_err("8/8/8/8/8/8/K6k w - - 0 1"), FenError::RankCount { found: 7 }));
}

#[test]
fn rejects_fen_with_wrong_king_count() {
    assert!(matches!(fen_err("8/8/8/8/8/8/8/K6K w - - 0 1"), FenError::KingCount { color: Color::White, count: 2 }));
    assert!(matches!(fen_err("8/8/8/8/8/8/8/K7 w - - 0 1"), FenError::KingCount { color: Color::Black, count: 0 }));
    assert!(matches!(fen_err("k7/8/8/8/8/8/8/KK5k w - - 0 1"), FenError::KingCount { color: Color::White, count: 2 }));
}

#[test]
fn rejects_fen_with_pawn_on_back_rank() {
    assert!(matches!(fen_err("P7/8/8/8/8/8/8/K6k w - - 0 1"), FenError::PawnOnBackRank { .. }));
    assert!(matches!(fen_err("8/8/8/8/8/8/8/K5pk w - - 0 1"), FenError::PawnOnBackRank { .. }));
}

#[test]
fn rejects_fen_with_bad_side_to_move() {
    assert!(matches!(fen_err("8/8/8/8/8/8/8/K6k x - - 0 1"), FenError::BadSideToMove { .. }));
}

#[test]
fn rejects_fen_when_side_not_to_move_is_in_check() {
    assert_eq!(fen_err("8/8/8/8/8/8/8/KR5k w - - 0 1"), FenError::OpponentInCheck);
}

#[test]
fn rejects_castling_right_without_king_or_rook() {
    // King on g1 with the a1 rook: a legal Chess960 queen-side right.
    assert!(Board::from_fen("4k3/8/8/8/8/8/8/R5K1 w Q - 0 1", false).is_ok_and(|b| b.is_chess960()));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/4K3/R7 w Q - 0 1"), FenError::CastlingWithoutKing { right: 'Q' }));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/4K3 w K - 0 1"), FenError::CastlingWithoutRook { right: 'K' }));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/R3K3 w C - 0 1"), FenError::CastlingWithoutRook { right: 'C' }));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/R3K2R w KX - 0 1"), FenError::BadCastling { .. }));
}

#[test]
fn rejects_impossible_en_passant_square() {
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/4K3 w - e6 0 1"), FenError::ImpossibleEnPassant { .. }));
    assert!(matches!(fen_err("4k3/8/8/4p3/8/8/8/4K3 w - e3 0 1"), FenError::ImpossibleEnPassant { .. }));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/4K3 w - z9 0 1"), FenError::BadEnPassant { .. }));
}

#[test]
fn rejects_counters_out_of_range() {
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/4K3 w - - -1 1"), FenError::BadHalfmoveClock { .. }));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/4K3 w - - 70000 1"), FenError::BadHalfmoveClock { .. }));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/4K3 w - - 0 0"), FenError::BadFullmoveNumber { .. }));
    assert!(matches!(fen_err("4k3/8/8/8/8/8/8/4K3 w - - 0 x"), FenError::BadFullmoveNumber { .. }));
}

#[test]
fn x_fen_and_shredder_fen_castling_agree() {
    let x = Board::from_fen("rk2r3/8/8/8/8/8/8/RK2R3 w KQkq - 0 1", false).expect("x-fen");
    let s = Board::from_fen("rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1", false).expect("shredder");
    assert!(x.is_chess960());
    assert_eq!(x, s);
    assert_eq!(s.fen(), "rk2r3/8/8/8/8/8/8/RK2R3 w EAea - 0 1");
}

/// SAN resolved the way it was before the generator-free resolver: the
/// text's piece, destination, promotion and disambiguation matched against
/// every generated legal move. The oracle for the resolver.
fn parse_san_by_generation(b: &Board, text: &str) -> Result<Move, NotationError> {
    let legal = b.legal_moves();
    let (piece, to, promo, from_file, from_rank) = match notation::San::parse(text)? {
        notation::San::Castle { king_side } => {
            return legal
                .iter()
                .find(|m| m.is_castling() && (m.to().file() > m.from().file()) == king_side)
                .ok_or_else(|| NotationError::Illegal(text.to_string()))
        }
        notation::San::Move { piece, to, promo, from_file, from_rank } => (piece, to, promo, from_file, from_rank),
    };
    let mut found = None;
    for m in legal.iter() {
        if m.is_castling() || m.to() != to || m.promotion_piece() != promo {
            continue;
        }
        if b.piece_on(m.from()).map(|p| p.kind()) != Some(piece) {
            continue;
        }
        if from_file.is_some_and(|f| f != m.from().file()) || from_rank.is_some_and(|r| r != m.from().rank()) {
            continue;
        }
        if found.is_some() {
            return Err(NotationError::Ambiguous(text.to_string()));
        }
        found = Some(m);
    }
    found.ok_or_else(|| NotationError::Illegal(text.to_string()))
}

/// The resolver that works back from the destination gives the same
/// answer (the move, or the same error) as matching against every legal
/// move, for every legal move's SAN and for texts around it: each piece
/// letter, disambiguations right and wrong, promotions to every piece and
/// none, on the legal destinations and on random squares.
#[test]
fn san_resolution_agrees_with_matching_generated_moves() {
    let mut rng = Rng::new(5);
    let mut texts = 0u64;
    let mut resolved = 0u64;
    random_game_positions(41, 2, &mut |b| {
        let mut squares: Vec<Square> = b.legal_moves().iter().map(|m| m.to()).collect();
        squares.extend((0..4).map(|_| Square::new(rng.below(64) as u8)));
        squares.sort_by_key(|s| s.index());
        squares.dedup();
        let files = [String::new(), ((b'a' + rng.below(8) as u8) as char).to_string()];
        let ranks = [String::new(), ((b'1' + rng.below(8) as u8) as char).to_string()];
        for to in squares {
            for piece in ["", "N", "B", "R", "Q", "K"] {
                for file in &files {
                    for rank in &ranks {
                        for promo in ["", "=N", "=Q", "=K", "Q"] {
                            for capture in ["", "x"] {
                                let text = format!("{piece}{file}{rank}{capture}{to}{promo}");
                                let got = b.parse_san(&text);
                                assert_eq!(got, parse_san_by_generation(b, &text), "{text} in {}", b.fen());
                                texts += 1;
                                resolved += got.is_ok() as u64;
                            }
                        }
                    }
                }
            }
        }
        for m in b.legal_moves().iter() {
            let san = b.move_to_san(m);
            assert_eq!(b.parse_san(&san), Ok(m), "{san} in {}", b.fen());
        }
    });
    assert!(texts > 100_000 && resolved > 1_000, "{texts} texts, {resolved} resolved");
}

/// The shortcut for the commonest SAN shapes gives a move only where the
/// general path gives that same move: for every legal move's SAN, with
/// and without `x` and check marks, and for pushes, captures and piece
/// moves to every square, legal or not. It takes most of a game's moves.
#[test]
fn common_san_shapes_resolve_as_the_general_path_does() {
    let (mut texts, mut shortcut, mut legal_sans, mut legal_shortcut) = (0u64, 0u64, 0u64, 0u64);
    let mut check = |b: &Board, text: &str| -> bool {
        let general = b.parse_any_san(text);
        let common = b.parse_common_san(text.as_bytes());
        if let Some(m) = common {
            assert_eq!(general, Ok(m), "{text} in {}", b.fen());
        }
        assert_eq!(b.parse_san(text), general, "{text} in {}", b.fen());
        texts += 1;
        shortcut += common.is_some() as u64;
        common.is_some()
    };
    // Promotions (which the shortcut must leave alone), en passant, a
    // pin, a check to block, and two knights that reach one square.
    let special = [
        "r1n1k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/1p6/R1N1K3 b - - 0 1",
        "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1",
        "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
        "4k3/4r3/8/8/8/8/3N4/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/N1N1K3 w - - 0 1",
    ];
    let mut boards: Vec<Board> = special.iter().map(|f| Board::from_fen(f, false).expect(f)).collect();
    random_game_positions(43, 2, &mut |b| boards.push(b.clone()));
    for b in &mut boards {
        for m in b.legal_moves().iter() {
            let san = b.move_to_san(m);
            let bare = san.trim_end_matches(['+', '#']).to_string();
            legal_sans += 1;
            legal_shortcut += check(b, &san) as u64;
            for text in [bare.clone(), format!("{bare}+"), format!("{bare}#"), bare.replace('x', "")] {
                check(b, &text);
            }
        }
        for sq in 0..64u8 {
            let to = Square::new(sq).to_string();
            for lead in ["", "N", "B", "R", "Q", "K", "Nx", "Kx", "Qx", "ax", "bx", "dx", "ex", "hx", "x", "Pe"] {
                for mark in ["", "+", "#"] {
                    check(b, &format!("{lead}{to}{mark}"));
                }
            }
        }
    }
    assert!(texts > 100_000, "{texts} texts");
    assert!(shortcut > texts / 50, "{shortcut} of {texts} texts took the shortcut");
    assert!(legal_shortcut * 10 > legal_sans * 7, "{legal_shortcut} of {legal_sans} legal moves took the shortcut");
}

/// The replay's make (checkers through the line tables) leaves every
/// position as the search's make does, after every legal move of many
/// random positions, checks and discovered checks included.
#[test]
fn replay_move_matches_make_move() {
    let mut checks = 0;
    random_game_positions(17, 6, &mut |b| {
        for m in b.legal_moves().iter() {
            let (mut searched, mut replayed) = (b.clone(), b.clone());
            searched.make_move(m);
            replayed.replay_move(m);
            assert_eq!(replayed.checkers(), searched.checkers(), "{m:?} in {}", b.fen());
            assert_eq!((replayed.fen(), replayed.key()), (searched.fen(), searched.key()));
            checks += searched.in_check() as u32;
        }
    });
    assert!(checks > 100, "{checks} checking moves");
}

/// A board keyed with the Polyglot numbers carries the Polyglot key
/// through every move (castling, en passant and promotions included, also
/// Chess960), and back through unmake.
#[test]
fn polyglot_keyed_board_carries_the_polyglot_key() {
    use super::zobrist::{polyglot_key, KeyScheme};
    let mut plies = 0;
    let mut special = [0usize; 3]; // castling, en passant, promotion
    for name in ["stockfish-selfplay-200.pgn", "cutechess-fischerrandom.pgn", "kasparov-deep-blue-1997.pgn"] {
        let text = crate::testdata::read(&format!("pgn/{name}")).expect("committed test PGN");
        for g in crate::pgn::parse(&text) {
            let Ok(mut b) = g.start_board() else { continue };
            b.set_key_scheme(KeyScheme::Polyglot);
            assert_eq!(b.key(), polyglot_key(&b), "{}", b.fen());
            let Ok(replay) = g.replay() else { continue };
            for (i, m) in replay.moves.into_iter().enumerate() {
                match m.kind() {
                    MoveKind::Castling => special[0] += 1,
                    MoveKind::EnPassant => special[1] += 1,
                    MoveKind::Promotion => special[2] += 1,
                    MoveKind::Normal => {}
                }
                let before = b.key();
                // Both ways of making a move follow the board's numbers.
                if i % 2 == 0 {
                    b.replay_move(m);
                } else {
                    b.make_move(m);
                }
                assert_eq!(b.key(), polyglot_key(&b), "after {m:?}: {}", b.fen());
                b.unmake_move();
                assert_eq!(b.key(), before);
                b.replay_move(m);
                plies += 1;
            }
        }
    }
    assert!(plies > 20_000, "{plies}");
    assert!(special.iter().all(|&n| n > 0), "castling, en passant, promotions: {special:?}");
}

/// Setting a key scheme recomputes the key; the engine's numbers give the
/// engine key back.
#[test]
fn setting_the_key_scheme_recomputes_the_key() {
    use super::zobrist::{polyglot_key, KeyScheme};
    let mut b = Board::from_fen("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1", false).unwrap();
    let engine = b.key();
    assert_eq!(engine, engine_key(&b));
    b.set_key_scheme(KeyScheme::Polyglot);
    assert_eq!(b.key(), polyglot_key(&b));
    assert_ne!(b.key(), engine);
    b.set_key_scheme(KeyScheme::Engine);
    assert_eq!(b.key(), engine);
}

/// The shortcut for plain SAN (`e4`, `Nf3`) reads every text it accepts
/// as the general reader does: all one-, two- and three-byte texts over
/// the bytes SAN uses, and a few more.
#[test]
fn plain_san_shortcut_agrees_with_the_general_reader() {
    let mut alphabet: Vec<u8> = b"abcdefghi0123456789NBRQKPOnbrqkpx=-+#!?: ".to_vec();
    alphabet.sort_unstable();
    alphabet.dedup();
    let mut texts: Vec<Vec<u8>> = alphabet.iter().map(|&c| vec![c]).collect();
    for &a in &alphabet {
        for &b in &alphabet {
            texts.push(vec![a, b]);
            for &c in &alphabet {
                texts.push(vec![a, b, c]);
            }
        }
    }
    let mut shortcut = 0;
    for t in &texts {
        let text = String::from_utf8_lossy(t);
        let general = notation::San::parse_general(&text);
        if let Some(san) = notation::San::plain(t) {
            assert_eq!(Ok(san), general, "{text}");
            shortcut += 1;
        }
        assert_eq!(notation::San::parse(&text), general, "{text}");
    }
    assert_eq!(shortcut, 64 + 5 * 64, "every pawn push and piece move shape");
}
