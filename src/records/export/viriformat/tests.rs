use super::*;
use crate::records::tests::corpus;
use crate::records::{parse as parse_records, GameRecorder};

/// Our castling rights as the `viriformat` crate prints them (`KQkq`).
fn kqkq(b: &Board) -> String {
    let s: String =
        "KQkq".chars().enumerate().filter(|&(i, _)| b.castling_rights() >> i & 1 != 0).map(|(_, c)| c).collect();
    if s.is_empty() {
        "-".into()
    } else {
        s
    }
}

/// Our FEN with the castling field in the crate's form.
fn their_style_fen(b: &Board) -> String {
    let fen = b.fen();
    let mut fields: Vec<&str> = fen.split(' ').collect();
    let rights = kqkq(b);
    fields[2] = &rights;
    fields.join(" ")
}

#[test]
fn export_decodes_with_the_viriformat_crate_position_for_position() {
    use viriformat::dataformat::{Game as TheirGame, WDL};
    let (file, n) = corpus();
    let ours = parse_records(&file).unwrap();
    let mut bytes = Vec::new();
    for g in &ours {
        bytes.extend_from_slice(&encode(g));
    }
    let mut reader = std::io::BufReader::new(bytes.as_slice());
    let mut positions = 0;
    for (i, game) in ours.iter().enumerate() {
        let theirs = TheirGame::deserialise_from(&mut reader, Vec::new()).unwrap();
        let want = match game.result {
            GameResult::WhiteWin => WDL::Win,
            GameResult::Draw => WDL::Draw,
            GameResult::BlackWin => WDL::Loss,
        };
        assert_eq!(theirs.outcome(), want, "game {i}");
        let mut expected = Vec::new();
        crate::records::export::positions(game, |p| expected.push((their_style_fen(p.board), p.white_cp())));
        let mut got = Vec::new();
        theirs.visit_positions(|b, eval| got.push((b.to_string(), eval)));
        assert_eq!(got, expected, "game {i}");
        positions += got.len();
    }
    assert_eq!(ours.len(), n);
    assert!(positions > 10_000, "{positions}");
    assert!(std::io::BufRead::fill_buf(&mut reader).unwrap().is_empty(), "no bytes left over");
}

#[test]
fn our_reader_gives_back_every_position_move_and_score() {
    let (file, _) = corpus();
    let ours = parse_records(&file).unwrap();
    let bytes: Vec<u8> = ours.iter().flat_map(encode).collect();
    let back = parse(&bytes).unwrap();
    assert_eq!(back.len(), ours.len());
    for (a, b) in ours.iter().zip(&back) {
        assert_eq!(a.result, b.result);
        assert_eq!(a.start.fen(), b.start.fen());
        let moves: Vec<Move> = a.plies.iter().map(|p| p.mv).collect();
        assert_eq!(b.plies.iter().map(|&(m, _)| m).collect::<Vec<_>>(), moves);
        let mut cps = Vec::new();
        crate::records::export::positions(a, |p| cps.push(p.white_cp() as i16));
        assert_eq!(b.plies.iter().map(|&(_, s)| s).collect::<Vec<_>>(), cps);
    }
}

fn one_game() -> Vec<u8> {
    let b = Board::startpos();
    let mut rec = GameRecorder::new(&b).unwrap();
    for uci in ["e2e4", "d7d5", "e4d5"] {
        let m = rec.board().parse_uci(uci).unwrap();
        rec.push_visits(m, 40000, &[]).unwrap();
    }
    let game = &parse_records(&rec.finish(GameResult::Draw)).unwrap()[0];
    encode(game)
}

#[test]
fn rejects_truncated_game() {
    let g = one_game();
    for cut in [1, 31, 33, g.len() - 1] {
        assert!(
            matches!(parse(&g[..cut]), Err(ViriformatError::Truncated { game: 0, source }) if source.len == cut as u64),
            "{cut}"
        );
    }
}

#[test]
fn rejects_bad_piece_code() {
    let mut g = one_game();
    g[8] |= 7; // the first piece (a1 rook) gets code 7
    assert!(matches!(parse(&g), Err(ViriformatError::BadPieces { offset: 0, .. })));
}

#[test]
fn rejects_bad_en_passant_square() {
    let mut g = one_game();
    g[24] = 65;
    assert!(matches!(parse(&g), Err(ViriformatError::BadEnPassant { offset: 24, value: 65, .. })));
}

#[test]
fn rejects_illegal_position() {
    let mut g = one_game();
    g[8] &= 0xf0; // the a1 rook becomes a white pawn on the first rank
    assert!(matches!(parse(&g), Err(ViriformatError::BadPosition { offset: 0, .. })));
}

#[test]
fn rejects_bad_wdl_byte() {
    let mut g = one_game();
    g[30] = 3;
    assert!(matches!(parse(&g), Err(ViriformatError::BadResult { offset: 30, value: 3, .. })));
}

#[test]
fn rejects_illegal_move() {
    let mut g = one_game();
    g[36] ^= 1; // the second move's from-square
    assert!(matches!(parse(&g), Err(ViriformatError::IllegalMove { ply: 2, offset: 36, .. })));
}

#[test]
fn castling_and_promotion_moves_round_trip_through_the_encoding() {
    let b = Board::from_fen("r3k2r/1P6/8/8/8/8/8/R3K2R w KQkq - 0 1", false).unwrap();
    for m in b.legal_moves().iter() {
        assert_eq!(decode_move(encode_move(m)), m, "{}", b.move_to_uci(m));
    }
}

proptest::proptest! {
    #[test]
    fn random_bytes_never_panic(data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
        let _ = parse(&data);
    }
}
