use super::*;
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
        id: GameId::new(*id).unwrap(),
        white: "Alice".into(),
        black: "Bob".into(),
        white_rating: 1850,
        black_rating: 0,
        outcome,
        speed: Speed::Blitz,
        date: GameDate { year: 2024, month: 3, day: 9 },
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
    assert_eq!(e.game_by_id(&"0000zzzz".parse().unwrap()).unwrap(), Some(1));
    assert_eq!(e.game_by_id(&"zzzz0000".parse().unwrap()).unwrap(), None);
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
        [None, Some(999), Some(1000), Some(2499), Some(2500), Some(3300)].map(|m| RatingGroup::of_mean(m).index()),
        [0, 0, 1, 7, 8, 10]
    );
    let c = Cell::new(Month::new(2013, 12), Speed::Rapid, RatingGroup::Group2800);
    assert_eq!((c.month(), c.speed(), c.group()), (Month::new(2013, 12), Speed::Rapid, RatingGroup::Group2800));
    assert_eq!(c.0 >> 8, 2013 * 12 + 12, "the month's code");
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
    // The one block (the index is small) holds the offset tables that open reads.
    let mut b = bytes.clone();
    b[HEADER_LEN + 3] ^= 1;
    let e = Explorer::from_bytes(b).err().expect("a damaged block");
    assert!(matches!(e, ExplorerError::Damaged { offset: 152, section: "strings", .. }), "{e}");
    for len in [0, 3, 100, bytes.len() / 2, bytes.len() - 1] {
        assert!(Explorer::from_bytes(bytes[..len].to_vec()).is_err(), "{len}");
    }
}

/// `n` games of seeded random legal moves (10 to 60 plies), no positions.
fn many(n: usize, seed: u64) -> Vec<u8> {
    let dir = crate::testdata::TempDir::new("explorer-blocks");
    let out = dir.path().join("many.axi");
    let mut w = ExplorerWriter::create(&out, 50, 4).unwrap();
    let mut rng = crate::codec::SplitMix64::new(seed);
    for i in 0..n {
        let mut b = Board::startpos();
        let mut sans = Vec::new();
        for _ in 0..10 + rng.below(50) {
            let legal: Vec<Move> = b.legal_moves().iter().collect();
            if legal.is_empty() {
                break;
            }
            let m = legal[rng.below_usize(legal.len())];
            sans.push(b.move_to_san(m));
            b.make_move(m);
        }
        let sans: Vec<&str> = sans.iter().map(String::as_str).collect();
        let mut g = game(format!("g{i:07}").as_bytes().try_into().unwrap(), &sans, Outcome::Draw);
        g.white = format!("player {}", rng.below(40));
        w.game(&g, &PackedMoves::of(&g).unwrap()).unwrap();
    }
    w.finish().unwrap();
    std::fs::read(&out).unwrap()
}

/// Every game of `e`, each read or its error.
fn games_of(e: &Explorer, strings: &[String]) -> Vec<Result<GameRecord, String>> {
    (0..e.games() as u32).map(|i| e.game(i, strings).map_err(|e| e.to_string())).collect()
}

#[test]
fn blocks_of_any_size_read_the_same() {
    let bytes = many(300, 1);
    let want = Explorer::from_bytes(bytes.clone()).unwrap();
    assert_eq!(want.blocks(), (1, 1 << BLOCK_SHIFT));
    let strings = want.strings().unwrap();
    let games = games_of(&want, &strings);
    assert!(games.iter().all(Result::is_ok));
    for shift in [10, 12, 24] {
        let e = Explorer::from_bytes(Explorer::reblocked(&bytes, shift).unwrap()).unwrap();
        assert_eq!(e.blocks().1, 1 << shift);
        assert_eq!(games_of(&e, &strings), games, "blocks of 2^{shift}");
        e.verify().unwrap();
    }
}

#[test]
fn a_damaged_block_fails_the_reads_that_touch_it_and_no_other() {
    let bytes = Explorer::reblocked(&many(300, 2), 10).unwrap();
    let good = Explorer::from_bytes(bytes.clone()).unwrap();
    let strings = good.strings().unwrap();
    let want = games_of(&good, &strings);
    let (blocks, size) = good.blocks();
    assert!(blocks > 10, "{blocks}");
    // A byte in the middle of the game data.
    let at = HEADER_LEN + size * (blocks / 2) + 100;
    let mut b = bytes.clone();
    b[at] ^= 0x20;
    let e = Explorer::from_bytes(b).unwrap();
    let got = games_of(&e, &strings);
    let (mut failed, mut read) = (0, 0);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        match g {
            Ok(_) => {
                assert_eq!(g, w, "game {i}");
                read += 1;
            }
            Err(message) => {
                let start = (HEADER_LEN + (at - HEADER_LEN) / size * size).to_string();
                assert!(message.contains(&format!("damaged block at offset {start} of (bytes)")), "{message}");
                failed += 1;
            }
        }
    }
    assert!(failed > 0 && read > failed, "{failed} failed, {read} read");
    // Asked again: the same error, from the block's state.
    let again = games_of(&e, &strings);
    assert_eq!(again, got);
}

#[test]
fn rejects_a_spliced_block() {
    let bytes = Explorer::reblocked(&many(300, 3), 10).unwrap();
    let e = Explorer::from_bytes(bytes.clone()).unwrap();
    let (blocks, size) = e.blocks();
    let sums = bytes.len() - 8 * blocks;
    let (from, to) = (blocks / 2, blocks / 2 + 3);
    let block = |i: usize| HEADER_LEN + i * size..HEADER_LEN + (i + 1) * size;
    let sum = |i: usize| sums + 8 * i..sums + 8 * i + 8;
    // The block alone, then the block with its checksum: both fail where
    // they were put.
    for with_sum in [false, true] {
        let mut b = bytes.clone();
        b.copy_within(block(from), block(to).start);
        if with_sum {
            b.copy_within(sum(from), sum(to).start);
            // The checksums' own checksum follows, as a forger would make it.
            let d = crate::codec::hash64(sums as u64, &b[sums..]);
            b[136..144].copy_from_slice(&d.to_le_bytes());
            let h = crate::codec::hash64(0, &b[..144]);
            b[144..152].copy_from_slice(&h.to_le_bytes());
        }
        let verified = Explorer::from_bytes(b).and_then(|e| e.verify());
        let offset = block(to).start as u64;
        assert!(
            matches!(verified, Err(ExplorerError::Damaged { offset: o, .. }) if o == offset),
            "with its checksum: {with_sum}: {verified:?}"
        );
    }
    // Two blocks swapped.
    let mut b = bytes.clone();
    let first = b[block(from)].to_vec();
    b.copy_within(block(to), block(from).start);
    b[block(to)].copy_from_slice(&first);
    let offset = block(from).start as u64;
    assert!(matches!(
        Explorer::from_bytes(b).and_then(|e| e.verify()),
        Err(ExplorerError::Damaged { offset: o, .. }) if o == offset
    ));
}

#[test]
fn rejects_version_1_with_a_rebuild_message() {
    let (mut bytes, _) = small();
    bytes[4..6].copy_from_slice(&1u16.to_le_bytes());
    let e = Explorer::from_bytes(bytes).err().expect("version 1 is refused");
    assert!(matches!(e, ExplorerError::Outdated { version: 1 }));
    let message = e.to_string();
    assert!(
        message.contains("version 1") && message.contains("rebuild it with `archivist explorer build`"),
        "{message}"
    );
}

#[test]
fn verify_reports_the_offset_of_a_flipped_byte() {
    let bytes = Explorer::reblocked(&many(300, 4), 10).unwrap();
    let (blocks, size) = Explorer::from_bytes(bytes.clone()).unwrap().blocks();
    let end = bytes.len() - 8 * blocks;
    for at in [HEADER_LEN, HEADER_LEN + size - 1, HEADER_LEN + 5 * size + 17, end - 1] {
        let mut b = bytes.clone();
        b[at] ^= 1;
        let verified = Explorer::from_bytes(b).and_then(|e| e.verify());
        match verified {
            Err(ExplorerError::Damaged { offset, len, .. }) => {
                assert!(offset as usize <= at && at < (offset + len) as usize, "{at}: {offset} + {len}")
            }
            other => panic!("byte {at}: {other:?}"),
        }
    }
}

#[test]
fn the_header_and_the_block_checksums_are_checked_at_open() {
    let bytes = Explorer::reblocked(&many(100, 5), 10).unwrap();
    let (blocks, _) = Explorer::from_bytes(bytes.clone()).unwrap().blocks();
    // Any header byte after the version: the header's checksum.
    for at in [6, 8, 40, 112, 120, 128, 136, 150] {
        let mut b = bytes.clone();
        b[at] ^= 4;
        let e = Explorer::from_bytes(b).err().expect("refused");
        assert!(matches!(e, ExplorerError::HeaderChecksum { .. }), "{at}: {e}");
    }
    // A block checksum: their checksum.
    let mut b = bytes.clone();
    let n = b.len();
    b[n - 8 * blocks + 3] ^= 1;
    let e = Explorer::from_bytes(b).err().expect("refused");
    let end = (n - 8 * blocks) as u64;
    assert!(matches!(e, ExplorerError::Directory { offset, .. } if offset == end), "{e}");
    // Cut short or grown.
    let e = Explorer::from_bytes(bytes[..n - 1].to_vec()).err().expect("refused");
    assert!(matches!(e, ExplorerError::Truncated(_)), "{e}");
    let mut b = bytes.clone();
    b.push(0);
    let e = Explorer::from_bytes(b).err().expect("refused");
    assert!(matches!(e, ExplorerError::BadHeader { offset: 120, .. }), "{e}");
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
            let _ = e.game_by_id(&"abcdEFGH".parse().unwrap());
        }
    }

    #[test]
    fn random_bytes_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = Explorer::from_bytes(bytes);
    }
}
