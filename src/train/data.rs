//! Training samples from compressed-board game records: the filters, the
//! sample layout and the shuffled stream the trainer reads each epoch.
//!
//! A [`Sample`] keeps the side to move's 768-input feature indices (at most
//! 32 pieces), the search's expected score and the game result, both from
//! the side to move's view. The other perspective's indices follow from the
//! first ([`other_perspective`]), so they are not stored: 76 bytes a sample.
//! A network trained on a base ([`Base::HandWritten`]) also needs the
//! hand-written evaluation of each position, which the sample keeps.
//!
//! A training leg ([`Dataset::leg`]) reads its files once, in the order
//! given, and never holds more than `buffer` samples: each kept position
//! enters a seeded shuffle buffer that hands out a random one once full, and
//! is drained (shuffled) at the leg's end, so nothing carries over from one
//! leg to the next but the network and the optimiser.

use super::TrainError;
use crate::board::Board;
use crate::codec::SplitMix64;
use crate::nnue::{feature_index, Base};
use crate::records::{self, score, Game, GameResult, Reader};
use std::path::PathBuf;

/// The records' score scale in centipawns ([`crate::types::LOGISTIC_SCALE`]):
/// `p = σ(cp / SCORE_SCALE)` for the recorded scores, the network's outputs
/// and the hand-written base alike.
pub const SCORE_SCALE: f32 = crate::types::LOGISTIC_SCALE as f32;

/// The logistic, `1 / (1 + e^−x)`: a sample's expected score from its
/// logit (here and in the trainer's forward pass, [`super::grad`]).
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// Most pieces a legal position has.
pub const MAX_PIECES: usize = 32;

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The side to move's input indices; the first `count` are used.
    pub features: [u16; MAX_PIECES],
    pub count: u8,
    /// The search's expected score for the side to move, in `[0, 1]`.
    pub score: f32,
    /// The game result for the side to move: 1, 0.5 or 0.
    pub result: f32,
    /// The base score the network's output is added to, in centipawns for
    /// the side to move: 0, or the hand-written evaluation.
    pub base: i16,
}

// The size the shuffle buffer's documentation states (`--buffer`).
const _: () = assert!(std::mem::size_of::<Sample>() == 76);

impl Sample {
    /// The sample of `board` with a stored record score and the game result.
    pub fn new(board: &Board, stored_score: u16, result: GameResult) -> Sample {
        let us = board.side_to_move();
        let mut features = [0u16; MAX_PIECES];
        let mut count = 0;
        for sq in board.occupied() {
            let Some(piece) = board.piece_on(sq) else { continue };
            if count < MAX_PIECES {
                features[count] = feature_index(us, piece, sq) as u16;
                count += 1;
            }
        }
        let result = result.score_for(us) as f32;
        let score = records::score_from_u16(stored_score) as f32;
        Sample { features, count: count as u8, score, result, base: 0 }
    }

    /// The sample of `board` for a network on `base`.
    pub fn with_base(board: &Board, stored_score: u16, result: GameResult, base: Base) -> Sample {
        let mut sample = Sample::new(board, stored_score, result);
        if base == Base::HandWritten {
            // The evaluation lies within ±MAX_EVAL (10,000), so it fits.
            sample.base = crate::eval::evaluate(board).clamp(-crate::eval::MAX_EVAL, crate::eval::MAX_EVAL) as i16;
        }
        sample
    }

    /// The search's expected score at the logistic scale `scale` (cp):
    /// `σ(cp / scale)` for the recorded `score = σ(cp / 400)`. At 400 the
    /// stored value itself, bit for bit.
    #[inline]
    pub fn score_at(&self, scale: f32) -> f32 {
        if scale == SCORE_SCALE {
            return self.score;
        }
        let logit = (self.score / (1.0 - self.score)).ln();
        sigmoid(logit * (SCORE_SCALE / scale))
    }

    /// The side to move's input indices.
    #[inline]
    pub fn ours(&self) -> &[u16] {
        &self.features[..usize::from(self.count)]
    }
}

/// The index of the same piece seen from the other side: own and enemy
/// halves swap and the rank is mirrored (see [`crate::nnue`]).
#[inline]
pub const fn other_perspective(feature: u16) -> u16 {
    let swapped = if feature < 384 { feature + 384 } else { feature - 384 };
    swapped ^ 56
}

/// Which positions of a game become samples. Positions in check and
/// positions whose recorded move is tactical (a capture, en passant or a
/// promotion) are always left out: their static value is not the search
/// value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Leave out the first `skip_plies` recorded plies of each game.
    pub skip_plies: u32,
    /// Leave out positions whose score is beyond ±`max_cp` centipawns
    /// (decided positions, mates and tablebase results included).
    pub max_cp: i32,
}

impl Default for Filter {
    fn default() -> Filter {
        Filter { skip_plies: 8, max_cp: 2000 }
    }
}

/// How many positions each filter left out, and how many were kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilterCounts {
    pub seen: u64,
    pub kept: u64,
    pub opening: u64,
    pub in_check: u64,
    pub tactical: u64,
    pub extreme: u64,
}

/// Appends the kept positions of `game` to `out`, as samples for a network on `base`.
pub fn game_samples(game: &Game, filter: &Filter, base: Base, counts: &mut FilterCounts, out: &mut Vec<Sample>) {
    kept_positions(game, filter, counts, |board, score| out.push(Sample::with_base(board, score, game.result, base)));
}

/// Calls `keep` with each position of `game` that passes `filter` and its
/// stored score (the side to move's view); counts what was left out.
pub fn kept_positions(game: &Game, filter: &Filter, counts: &mut FilterCounts, mut keep: impl FnMut(&Board, u16)) {
    let mut ply = 0u32;
    game.replay(|board, p| {
        counts.seen += 1;
        let skip = if ply < filter.skip_plies {
            &mut counts.opening
        } else if board.in_check() {
            &mut counts.in_check
        } else if board.is_noisy(p.mv) {
            &mut counts.tactical
        } else if score::to_cp(p.score).abs() > filter.max_cp {
            &mut counts.extreme
        } else {
            counts.kept += 1;
            keep(board, p.score);
            ply += 1;
            return;
        };
        *skip += 1;
        ply += 1;
    });
}

/// The record files of a training run, mapped and validated.
pub struct Dataset {
    files: Vec<DataFile>,
    games: u64,
    positions: u64,
}

impl std::fmt::Debug for Dataset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let paths: Vec<_> = self.files.iter().map(|file| &file.path).collect();
        f.debug_struct("Dataset")
            .field("files", &paths)
            .field("games", &self.games)
            .field("positions", &self.positions)
            .finish()
    }
}

struct DataFile {
    path: PathBuf,
    map: memmap2::Mmap,
    games: u64,
    positions: u64,
}

impl Dataset {
    /// Maps and validates every file (a damaged file is an error naming the
    /// file, the game and the byte offset; nothing is trained).
    pub fn open(paths: &[PathBuf]) -> Result<Dataset, TrainError> {
        let mut files = Vec::with_capacity(paths.len());
        let (mut games, mut positions) = (0, 0);
        for path in paths {
            let bad = |source| TrainError::Records { path: path.clone(), source };
            let map = records::map(path).map_err(bad)?;
            let totals = records::validate(&map).map_err(bad)?;
            games += totals.games;
            positions += totals.positions;
            files.push(DataFile { path: path.clone(), map, games: totals.games, positions: totals.positions });
        }
        if positions == 0 {
            return Err(TrainError::NoData);
        }
        Ok(Dataset { files, games, positions })
    }

    pub fn games(&self) -> u64 {
        self.games
    }

    /// Recorded positions before filtering.
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// One training leg's stream: every game of every file once, the files
    /// in the order given, each kept position through a shuffle buffer of
    /// `buffer` samples, handed to `train` in batches of `batch`.
    ///
    /// The buffer fills first; after that each new position takes the place
    /// of a uniformly chosen one, which goes to the batch. At the end the
    /// buffer is shuffled (Fisher–Yates) and drained, and the last batch may
    /// be short. The order depends only on `seed`. Returns the filter counts.
    pub fn leg(
        &self,
        seed: u64,
        buffer: usize,
        batch: usize,
        filter: &Filter,
        base: Base,
        mut train: impl FnMut(&[Sample]) -> Result<(), TrainError>,
    ) -> Result<FilterCounts, TrainError> {
        let mut rng = SplitMix64::new(seed);
        let mut pool: Vec<Sample> = Vec::with_capacity(buffer);
        let mut out: Vec<Sample> = Vec::with_capacity(batch);
        let mut game_buf: Vec<Sample> = Vec::new();
        let mut result = Ok(());
        let counts = self.for_each_game(|game, counts| {
            if result.is_err() {
                return;
            }
            game_buf.clear();
            game_samples(game, filter, base, counts, &mut game_buf);
            for &sample in &game_buf {
                if pool.len() < buffer {
                    pool.push(sample);
                    continue;
                }
                let slot = rng.below_usize(buffer);
                out.push(std::mem::replace(&mut pool[slot], sample));
                if out.len() == batch {
                    result = train(&out);
                    out.clear();
                    if result.is_err() {
                        return;
                    }
                }
            }
        })?;
        result?;
        rng.shuffle(&mut pool);
        for sample in pool {
            out.push(sample);
            if out.len() == batch {
                train(&out)?;
                out.clear();
            }
        }
        if !out.is_empty() {
            train(&out)?;
        }
        Ok(counts)
    }

    /// The filter counts of one pass (what a leg would keep), without training.
    pub fn count(&self, filter: &Filter) -> Result<FilterCounts, TrainError> {
        self.for_each_game(|game, counts| kept_positions(game, filter, counts, |_, _| {}))
    }

    /// Each file's path, games, recorded positions, bytes and 64-bit FNV-1a.
    pub fn files(&self) -> impl Iterator<Item = FileSummary<'_>> {
        self.files.iter().map(|f| FileSummary {
            path: &f.path,
            games: f.games,
            positions: f.positions,
            bytes: f.map.len() as u64,
            fnv1a64: crate::codec::fnv1a64(&f.map),
        })
    }
}

/// What a training leg read of one file.
#[derive(Clone, Copy, Debug)]
pub struct FileSummary<'a> {
    pub path: &'a std::path::Path,
    pub games: u64,
    pub positions: u64,
    pub bytes: u64,
    pub fnv1a64: u64,
}

impl Dataset {
    /// Appends every kept position of every file, in file order.
    pub fn in_order(&self, filter: &Filter, base: Base, out: &mut Vec<Sample>) -> Result<FilterCounts, TrainError> {
        self.for_each_game(|game, counts| game_samples(game, filter, base, counts, out))
    }

    /// `count` of the `kept` positions a pass keeps (all of them when
    /// fewer), spread evenly over the files, for calibrating a network's
    /// rounding ([`crate::nnue::rounding`]).
    pub fn spread_positions(&self, filter: &Filter, count: usize, kept: u64) -> Result<Vec<Board>, TrainError> {
        // Never reserve more than the data holds: `count` comes from the command line.
        let (mut boards, mut index) = (Vec::with_capacity(count.min(kept as usize)), 0u64);
        let wanted = count as u64;
        self.for_each_game(|game, counts| {
            kept_positions(game, filter, counts, |board, _| {
                // Position i is taken when i·count mod kept < count: `count` of every `kept`, evenly.
                if (kept <= wanted || (index * wanted) % kept < wanted) && boards.len() < count {
                    boards.push(board.clone());
                }
                index += 1;
            })
        })?;
        Ok(boards)
    }

    /// Every game of every file, in file order, with the filter counts to add to.
    pub fn for_each_game(&self, mut visit: impl FnMut(&Game, &mut FilterCounts)) -> Result<FilterCounts, TrainError> {
        let mut counts = FilterCounts::default();
        for file in &self.files {
            for game in Reader::new(&file.map) {
                let game = game.map_err(|source| TrainError::Records { path: file.path.clone(), source })?;
                visit(&game, &mut counts);
            }
        }
        Ok(counts)
    }
}
