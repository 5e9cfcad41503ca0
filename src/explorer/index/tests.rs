use super::*;
use crate::explorer::model::month_of;
use proptest::prelude::*;

fn game(id: &[u8; 8], sans: &[&str], outcome: Outcome) -> GameRecord {
    let mut b = Board::startpos();
    let mut moves = Vec::new();
    for san in sans {
        let m = b.parse_san(san).unwrap();
        moves.push(m);
        b.make_move(m);
    }
    GameRecord {
        id: *id,
        white: "Alice".into(),
        black: "Bob".into(),
        white_rating: 1850,
        black_rating: 0,
        outcome,
        speed: Speed::Blitz,
        year: 2024,
        month: 3,
        day: 9,
        event: "Rated blitz game".into(),
        site: "https://lichess.org/abcdEFGH".into(),
        round: "-".into(),
        time_control: "300+0".into(),
        moves,
    }
}

/// A small index: two games, a position both reached, and singles.
fn small() -> (Vec<u8>, Vec<GameRecord>) {
    let dir = crate::testdata::TempDir::new("explorer-format");
    let out = dir.path().join("small.axi");
    let mut w = ExplorerWriter::create(&out, 50, 4).unwrap();
    let games =
        vec![game(b"abcdEFGH", &["e4", "e5", "Nf3"], Outcome::White), game(b"0000zzzz", &["e4", "c5"], Outcome::Draw)];
    for g in &games {
        w.game(g, &PackedMoves::of(g).unwrap()).unwrap();
    }
    let mut start = Board::startpos();
    let e4 = start.parse_san("e4").unwrap();
    let cell = games[0].cell();
    let stats = Stats { white: 1, draws: 1, black: 0, rating_sum: 3700, rated: 2 };
    let entry = PositionEntry::Counted {
        moves: vec![MoveStats { mv: e4, cells: vec![MoveCell { cell, stats, game: None }] }],
        games: vec![CellGames {
            cell,
            top: vec![GameRef { game: 0, mv: 0, rank: 1850 }, GameRef { game: 1, mv: 0, rank: 1850 }],
            recent: vec![GameRef { game: 1, mv: 0, rank: 0 }, GameRef { game: 0, mv: 0, rank: 0 }],
        }],
    };
    let start_key = start.key_legal_ep();
    start.make_move(e4);
    let listed = PositionEntry::Listed {
        moves: vec![start.parse_san("e5").unwrap(), start.parse_san("c5").unwrap()],
        games: vec![GameRef { game: 0, mv: 0, rank: 0 }, GameRef { game: 1, mv: 1, rank: 0 }],
    };
    let listed = match listed {
        PositionEntry::Listed { mut moves, games } => {
            moves.sort_unstable();
            let games = games.into_iter().map(|g| GameRef { mv: 1 - g.mv, ..g }).collect();
            PositionEntry::Listed { moves, games }
        }
        other => other,
    };
    let mut positions = [(start_key, entry), (start.key_legal_ep(), listed)];
    positions.sort_by_key(|p| p.0);
    for (key, entry) in &positions {
        w.position(*key, entry).unwrap();
    }
    let mut singles: Vec<(u64, u32, u8)> = Vec::new();
    for (i, g) in games.iter().enumerate() {
        for ply in 2..g.moves.len().min(3) {
            let b = g.replay(ply, |_, _| {}).unwrap();
            singles.push((b.key_legal_ep(), i as u32, ply as u8));
        }
    }
    singles.sort_unstable();
    for (k, g, p) in singles {
        w.single(k, g, p).unwrap();
    }
    w.finish().unwrap();
    (std::fs::read(&out).unwrap(), games)
}

#[test]
fn an_index_round_trips_games_positions_and_singles() {
    let (bytes, games) = small();
    let e = Explorer::from_bytes(bytes).unwrap();
    let strings = e.strings().unwrap();
    assert_eq!(e.games(), 2);
    assert_eq!(e.game(0, &strings).unwrap(), games[0]);
    assert_eq!(e.game(1, &strings).unwrap(), games[1]);
    assert_eq!(e.game_by_id(b"0000zzzz"), Some(1));
    assert_eq!(e.game_by_id(b"zzzz0000"), None);
    let start = Board::startpos();
    let Some(PositionEntry::Counted { moves, games: cells }) = e.position(start.key_legal_ep()).unwrap() else {
        panic!("the start position is counted")
    };
    assert_eq!(moves[0].cells[0].stats.games(), 2);
    assert_eq!(cells[0].top.len(), 2);
    assert_eq!(cells[0].recent[1], GameRef { game: 0, mv: 0, rank: 0 });
    let mut after = Board::startpos();
    after.make_move(after.parse_san("e4").unwrap());
    let Some(PositionEntry::Listed { games: listed, .. }) = e.position(after.key_legal_ep()).unwrap() else {
        panic!("after 1. e4 the games are listed")
    };
    assert_eq!(listed.len(), 2);
    assert_eq!(e.position(12345).unwrap(), None);
    // The position after 1. e4 e5 is a single of game 0.
    let b = games[0].replay(2, |_, _| {}).unwrap();
    let (game, ply, _) = e.single(b.key_legal_ep(), &strings).unwrap().unwrap();
    assert_eq!((game, ply), (0, 2));
    assert!(e.single(Board::startpos().key_legal_ep() ^ 1, &strings).unwrap().is_none());
    let summary = e.verify().unwrap();
    assert_eq!((summary.games, summary.positions, summary.plies), (2, 2, 5));
}

#[test]
fn speeds_groups_and_months_follow_lichess() {
    assert_eq!(Speed::of_time_control(Some("15+0")), Speed::UltraBullet);
    assert_eq!(Speed::of_time_control(Some("60+1")), Speed::Bullet);
    assert_eq!(Speed::of_time_control(Some("180+0")), Speed::Blitz);
    assert_eq!(Speed::of_time_control(Some("600+5")), Speed::Rapid);
    assert_eq!(Speed::of_time_control(Some("1800+30")), Speed::Classical);
    assert_eq!(Speed::of_time_control(Some("21600")), Speed::Correspondence);
    assert_eq!(Speed::of_time_control(Some("-")), Speed::Correspondence);
    assert_eq!(Speed::of_time_control(None), Speed::Correspondence);
    assert_eq!(
        [None, Some(999), Some(1000), Some(2499), Some(2500), Some(3300)].map(rating_group),
        [0, 0, 1, 7, 8, 10]
    );
    assert_eq!(month_of(month_code(2024, 3)), (2024, 3));
    assert_eq!(month_code(0, 0), 0);
    let c = Cell::new(month_code(2013, 12), Speed::Rapid, 9);
    assert_eq!((c.month(), c.speed(), c.group()), (month_code(2013, 12), Speed::Rapid, 9));
}

#[test]
fn a_damaged_index_is_an_error_with_an_offset() {
    let (bytes, _) = small();
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(Explorer::from_bytes(b), Err(ExplorerError::BadMagic)));
    let mut b = bytes.clone();
    b[4] = 9;
    assert!(matches!(Explorer::from_bytes(b), Err(ExplorerError::UnsupportedVersion { version: 9 })));
    let mut b = bytes.clone();
    b[HEADER_LEN + 3] ^= 1;
    assert!(matches!(Explorer::from_bytes(b).unwrap().verify(), Err(ExplorerError::Checksum { .. })));
    for len in [0, 3, 100, bytes.len() / 2, bytes.len() - 1] {
        assert!(Explorer::from_bytes(bytes[..len].to_vec()).is_err(), "{len}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_damage_never_panics(flips in proptest::collection::vec((0usize..4096, any::<u8>()), 1..8)) {
        let (mut bytes, _) = small();
        for (at, v) in flips {
            let n = bytes.len();
            bytes[at % n] ^= v;
        }
        if let Ok(e) = Explorer::from_bytes(bytes) {
            let strings = e.strings().unwrap_or_default();
            let _ = e.verify();
            for i in 0..e.games() as u32 {
                let _ = e.game(i, &strings);
            }
            let _ = e.position(Board::startpos().key_legal_ep());
            let _ = e.single(0, &strings);
        }
    }

    #[test]
    fn random_bytes_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = Explorer::from_bytes(bytes);
    }
}
