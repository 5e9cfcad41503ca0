//! `records filter`: keeps the positions that pass every given test; the
//! rest are dropped (runs of kept positions become games, see
//! [`super`]). Streaming: one game in memory.
//!
//! | option | drops a position when |
//! |--------|------------------------|
//! | `min_ply` / `max_ply` | its game ply (2 · (fullmove − 1), +1 for black) is outside the range |
//! | `no_check` | the side to move is in check |
//! | `no_tactical` | the move played (the search's best move) is a capture or a promotion |
//! | `max_cp` | its score's magnitude exceeds the limit (centipawns, [`crate::records::score`]) |
//! | `max_disagreement` | its score disagrees with the result by more than the limit: in a drawn game \|cp\| > limit; in a won game the winner's cp < −limit |

use super::{games, write_kept, Summary};
use crate::records::{score, GameResult, RecordError};
use crate::types::Color;
use std::io::Write;

/// The tests of a filter; `None` / `false` tests nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FilterOptions {
    pub min_ply: Option<u32>,
    pub max_ply: Option<u32>,
    pub no_check: bool,
    pub no_tactical: bool,
    pub max_cp: Option<i32>,
    pub max_disagreement: Option<i32>,
}

impl FilterOptions {
    /// Whether the position `board` with `ply` of a game ending in `result` is kept.
    pub fn keeps(&self, board: &crate::board::Board, ply: &crate::records::Ply, result: GameResult) -> bool {
        let game_ply = board.game_ply();
        if self.min_ply.is_some_and(|m| game_ply < m) || self.max_ply.is_some_and(|m| game_ply > m) {
            return false;
        }
        if self.no_check && board.in_check() {
            return false;
        }
        if self.no_tactical && board.is_noisy(ply.mv) {
            return false;
        }
        let cp = score::to_cp(ply.score);
        if self.max_cp.is_some_and(|m| cp.abs() > m) {
            return false;
        }
        if let Some(limit) = self.max_disagreement {
            let white_cp = if board.side_to_move() == Color::White { cp } else { -cp };
            let disagrees = match result {
                GameResult::Draw => white_cp.abs() > limit,
                GameResult::WhiteWin => white_cp < -limit,
                GameResult::BlackWin => -white_cp < -limit,
            };
            if disagrees {
                return false;
            }
        }
        true
    }
}

/// Filters every game of `data` into `out`; `progress` gets the bytes read.
pub fn filter(
    data: &[u8],
    options: &FilterOptions,
    out: &mut dyn Write,
    progress: &mut dyn FnMut(u64),
) -> Result<Summary, RecordError> {
    let mut summary = Summary::default();
    let mut read = 0u64;
    let mut keep = Vec::new();
    for item in games(data) {
        let item = item?;
        keep.clear();
        item.game.replay(|board, ply| keep.push(options.keeps(board, ply, item.game.result)));
        summary.games_in += 1;
        summary.positions_in += item.game.plies.len() as u64;
        write_kept(&item, &keep, false, out, &mut summary)?;
        read += item.bytes.len() as u64;
        progress(read);
    }
    Ok(summary)
}
