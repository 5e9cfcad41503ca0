//! The builder against the FEN parser: the same board from the same parts,
//! and each invalid part rejected with its own error.

use super::*;

/// FENs of the committed key and Chess960 perft vectors, with positions a
/// few moves on from each, and whether they are Chess960.
fn positions() -> Vec<(String, bool)> {
    let mut out = Vec::new();
    for (path, chess960) in [("vectors/keys.csv", false), ("vectors/perft960.csv", true)] {
        let text = crate::testdata::read(path).unwrap_or_else(|| panic!("{path}: committed test data is missing"));
        for line in text.lines().skip(1).take(150) {
            let fen = line.split(';').next().unwrap_or_default();
            let mut b = Board::from_fen(fen, chess960).unwrap();
            out.push((fen.to_string(), chess960));
            for i in 0..3 {
                let moves = b.legal_moves();
                let Some(m) = moves.iter().nth(i * 7 % moves.len().max(1)) else { break };
                b.make_move(m);
                out.push((b.fen(), chess960));
            }
        }
    }
    out
}

/// The parts of a FEN, read from its text, not through a board.
fn parts(fen: &str, chess960: bool) -> BoardBuilder {
    let f: Vec<&str> = fen.split_whitespace().collect();
    let mut builder = BoardBuilder { chess960, ..BoardBuilder::new() };
    for (i, rank) in f[0].split('/').enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(d) => file += d as u8,
                None => {
                    builder.piece(Square::from_coords(file, 7 - i as u8), Piece::from_char(c));
                    file += 1;
                }
            }
        }
    }
    builder.side_to_move = if f[1] == "w" { Color::White } else { Color::Black };
    let king_file = |color: Color| {
        let king = Some(Piece::new(color, PieceType::King));
        (0..8).find(|&x| builder.squares[Square::from_coords(x, color.relative_rank(0)).index()] == king)
    };
    let (white_king, black_king) = (king_file(Color::White), king_file(Color::Black));
    for c in f[2].chars().filter(|&c| c != '-') {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let kf = if color == Color::White { white_king } else { black_king }.unwrap();
        let (file, king_side) = match c.to_ascii_lowercase() {
            'k' => (7, true),
            'q' => (0, false),
            x => (x as u8 - b'a', x as u8 - b'a' > kf),
        };
        builder.castle(color, king_side, file);
    }
    builder.en_passant = Square::parse(f[3]);
    builder.halfmove_clock = f[4].parse().unwrap();
    builder.fullmove_number = f[5].parse().unwrap();
    builder
}

#[test]
fn builder_gives_the_board_the_fen_parser_gives() {
    let positions = positions();
    assert!(positions.len() >= 300, "{}", positions.len());
    for (fen, chess960) in positions {
        let want = Board::from_fen(&fen, chess960).unwrap();
        let got = parts(&fen, chess960).build().unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert_eq!(got, want, "{fen}");
        assert_eq!((got.key(), got.fen(), got.checkers()), (want.key(), want.fen(), want.checkers()), "{fen}");
        assert_eq!(BoardBuilder::from(&want).build().unwrap(), want, "{fen}");
    }
}

#[test]
fn invalid_parts_are_rejected_with_their_error() {
    let start = || BoardBuilder::from(&Board::startpos());
    let mut b = start();
    b.piece(Square::parse("e8").unwrap(), None);
    assert_eq!(b.build(), Err(BuildError::KingCount { color: Color::Black, count: 0 }));
    let mut b = start();
    b.piece(Square::parse("a1").unwrap(), Some(Piece::new(Color::White, PieceType::Pawn)));
    assert_eq!(b.build(), Err(BuildError::PawnOnBackRank { square: Square::parse("a1").unwrap() }));
    let mut b = start();
    b.piece(Square::parse("h1").unwrap(), None);
    assert_eq!(b.build(), Err(BuildError::CastlingWithoutRook { color: Color::White, file: 7 }));
    let mut b = start();
    b.castle(Color::Black, true, 2);
    assert_eq!(b.build(), Err(BuildError::CastlingWithoutRook { color: Color::Black, file: 2 }));
    let mut b = start();
    b.piece(Square::parse("e1").unwrap(), None)
        .piece(Square::parse("e2").unwrap(), Some(Piece::new(Color::White, PieceType::King)));
    assert_eq!(b.build(), Err(BuildError::CastlingWithoutKing { color: Color::White }));
    let mut b = start();
    b.en_passant = Square::parse("e3");
    assert_eq!(b.build(), Err(BuildError::ImpossibleEnPassant { square: Square::parse("e3").unwrap() }));
    let mut b = start();
    b.fullmove_number = 0;
    assert_eq!(b.build(), Err(BuildError::ZeroFullmoveNumber));
    let mut b = parts("4k3/8/8/8/8/8/8/4K3 w - - 0 1", false);
    b.piece(Square::parse("e2").unwrap(), Some(Piece::new(Color::White, PieceType::Rook)));
    assert_eq!(b.build(), Err(BuildError::OpponentInCheck));
}

#[test]
fn an_en_passant_square_no_pawn_can_take_is_dropped_as_in_a_fen() {
    let fen = "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1";
    let board = parts(fen, false).build().unwrap();
    assert_eq!(board.ep_square(), None);
    assert_eq!(board, Board::from_fen(fen, false).unwrap());
}
