//! Damaged copies of an index (flipped bits, zeroed ranges, splices,
//! truncations), seeded: every answer of every copy is the undamaged
//! index's answer or an error, never another answer, and nothing panics.

use super::*;
use crate::explorer::index::HEADER_LEN;
use crate::explorer::query::ExplorerAnswer;

const KINDS: [&str; 4] = ["flipped bits", "zeroed range", "spliced range", "truncated"];
/// Copies of each kind, at each block size.
const COPIES: usize = 60;

/// A copy of `bytes` with damage of kind `kind`.
fn damaged(bytes: &[u8], kind: usize, rng: &mut SplitMix64) -> Vec<u8> {
    let mut b = bytes.to_vec();
    let n = b.len();
    // Where: anywhere, or (one time in five) the header or the block checksums.
    let at = |rng: &mut SplitMix64| match rng.below(5) {
        0 if rng.below(2) == 0 => rng.below_usize(HEADER_LEN),
        0 => n - 1 - rng.below_usize(64.min(n)),
        _ => rng.below_usize(n),
    };
    match kind {
        0 => {
            for _ in 0..1 + rng.below(3) {
                let i = at(rng);
                b[i] ^= 1 << rng.below(8);
            }
        }
        1 => {
            let (i, len) = (at(rng), 1 + rng.below_usize(4096));
            b[i..(i + len).min(n)].fill(0);
        }
        2 => {
            let len = 8 + rng.below_usize(1 << 16).min(n / 2);
            let (from, to) = (rng.below_usize(n - len), rng.below_usize(n - len));
            b.copy_within(from..from + len, to);
        }
        _ => b.truncate(rng.below_usize(n)),
    }
    b
}

/// The questions asked of every copy.
enum Question {
    Answer(Box<Board>, Filter),
    Game(String),
}

fn ask(shards: &Shards, q: &Question) -> Result<(Option<ExplorerAnswer>, Option<GameRecord>), String> {
    let limits = Limits { moves: 12, top_games: 4, recent_games: 4 };
    match q {
        Question::Answer(b, f) => shards.answer(b, f, limits, Kind::Lichess, false).map(|a| (Some(a), None)),
        Question::Game(id) => shards.game_by_id(id).map(|g| (None, g)),
    }
    .map_err(|e| e.to_string())
}

#[test]
fn every_answer_of_a_damaged_index_is_the_undamaged_one_or_an_error() {
    let dir = Dir::new("explorer-damage");
    let games = lichess_like_pgn(1500, 11);
    let pgn = write(&dir, "in.pgn", &games);
    let (bytes, _) = index(&dir, "good.axi", &[pgn], &ExplorerOptions::default());
    let mut questions = Vec::new();
    for (i, text) in games.iter().enumerate().step_by(75) {
        let game = crate::pgn::parse(text).remove(0);
        let mut b = Board::startpos();
        for (ply, m) in game.replay().unwrap().moves.into_iter().enumerate().take(8) {
            let f = match (i + ply) % 3 {
                0 => Filter::default(),
                1 => Filter { speeds: Some(vec![Speed::Blitz, Speed::Rapid]), ..Filter::default() },
                _ => Filter {
                    groups: Some(Filter::groups_of([1600, 2000].map(RatingGroup::of_rating))),
                    ..Filter::default()
                },
            };
            questions.push(Question::Answer(Box::new(b.clone()), f));
            b.make_move(m);
        }
        if let Some(at) = text.find("lichess.org/") {
            questions.push(Question::Game(text[at + 12..at + 20].to_string()));
        }
    }
    let mut rng = SplitMix64::new(75);
    let mut copies = 0;
    for shift in [crate::explorer::index::BLOCK_SHIFT, 10] {
        let good_bytes = Explorer::reblocked(&bytes, shift).unwrap();
        let good_path = dir.file("good.axi");
        std::fs::write(&good_path, &good_bytes).unwrap();
        let good = Shards::open(&[good_path]).unwrap();
        let want: Vec<_> = questions.iter().map(|q| ask(&good, q).unwrap()).collect();
        // Per kind: copies refused at open, answers the same, answers errors.
        let mut counts = [[0usize; 3]; 4];
        for kind in 0..KINDS.len() {
            for copy in 0..COPIES {
                let path = dir.file("damaged.axi");
                std::fs::write(&path, damaged(&good_bytes, kind, &mut rng)).unwrap();
                copies += 1;
                let Ok(shards) = Shards::open(&[path]) else {
                    counts[kind][0] += 1;
                    continue;
                };
                for (q, w) in questions.iter().zip(&want) {
                    match ask(&shards, q) {
                        Ok(got) => {
                            assert!(got == *w, "{} copy {copy} (2^{shift} blocks): another answer", KINDS[kind]);
                            counts[kind][1] += 1;
                        }
                        Err(message) => {
                            counts[kind][2] += 1;
                            assert!(message.contains("offset"), "{message}");
                        }
                    }
                }
            }
        }
        for (kind, [refused, same, errors]) in KINDS.iter().zip(counts) {
            eprintln!(
                "blocks of 2^{shift}: {kind}: {COPIES} copies, {refused} refused at open; of the others' {} answers {same} the same, {errors} errors",
                same + errors
            );
        }
        // Damage found lazily leaves the other answers standing.
        assert!(counts.iter().map(|c| c[1]).sum::<usize>() > 0);
    }
    assert!(copies >= 200, "{copies}");
}
