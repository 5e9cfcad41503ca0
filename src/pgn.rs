//! A small PGN reader: tag pairs and the main line's SAN moves.
//!
//! Comments (`{…}`, `;…`), variations (`(…)`, nested), NAGs (`$n`), move
//! numbers and escape lines (`%…`) are skipped. A game ends at its result
//! token or at the next tag section. [`Game::replay`] plays the moves from
//! the `FEN` tag (or the start position), honouring `Variant "Chess960"`,
//! and reports an illegal move with its ply.

use crate::board::notation::NotationError;
use crate::board::{Board, FenError};
use crate::types::Move;
use thiserror::Error;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Game {
    pub tags: Vec<(String, String)>,
    pub moves: Vec<String>,
    /// `1-0`, `0-1`, `1/2-1/2`, `*`, or `None` when the text ended first.
    pub result: Option<String>,
}

#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PgnError {
    #[error("bad FEN tag: {0}")]
    Fen(#[from] FenError),
    #[error("ply {ply}: {source}")]
    Move { ply: usize, source: NotationError },
}

impl Game {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn is_chess960(&self) -> bool {
        self.tag("Variant").is_some_and(|v| {
            let v = v.to_ascii_lowercase();
            v.contains("960") || v.contains("fischer")
        })
    }

    /// The position the game starts from.
    pub fn start_board(&self) -> Result<Board, PgnError> {
        let chess960 = self.is_chess960();
        match self.tag("FEN") {
            Some(fen) => Ok(Board::from_fen(fen, chess960)?),
            None => {
                let mut b = Board::startpos();
                b.set_chess960(chess960);
                Ok(b)
            }
        }
    }

    /// Replays the moves, calling `visit(board_before, move)` for each.
    pub fn replay(&self, mut visit: impl FnMut(&mut Board, Move)) -> Result<Board, PgnError> {
        let mut board = self.start_board()?;
        for (ply, san) in self.moves.iter().enumerate() {
            let m = board.parse_san(san).map_err(|source| PgnError::Move { ply: ply + 1, source })?;
            visit(&mut board, m);
            board.make_move(m);
        }
        Ok(board)
    }
}

fn is_result(tok: &str) -> bool {
    matches!(tok, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Parses every game in `text`.
pub fn parse(text: &str) -> Vec<Game> {
    let mut games = Vec::new();
    let mut game = Game::default();
    let mut in_moves = false;
    let mut chars = text.chars().peekable();
    let mut depth = 0usize;
    let mut at_line_start = true;
    let mut token = String::new();

    let flush = |token: &mut String, game: &mut Game, games: &mut Vec<Game>, in_moves: &mut bool| {
        if token.is_empty() {
            return;
        }
        let t = std::mem::take(token);
        if is_result(&t) {
            game.result = Some(t);
            games.push(std::mem::take(game));
            *in_moves = false;
            return;
        }
        // Strip a leading move number such as "12." or "12..." glued to a move.
        let stripped = t.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
        if stripped.is_empty() || stripped.starts_with('$') {
            return;
        }
        game.moves.push(stripped.to_string());
        *in_moves = true;
    };

    while let Some(c) = chars.next() {
        let line_start = at_line_start;
        at_line_start = c == '\n';
        if depth > 0 {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '{' => {
                    for d in chars.by_ref() {
                        if d == '}' {
                            break;
                        }
                    }
                }
                _ => {}
            }
            continue;
        }
        match c {
            '%' if line_start => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        at_line_start = true;
                        break;
                    }
                }
            }
            '[' if !in_moves || line_start => {
                flush(&mut token, &mut game, &mut games, &mut in_moves);
                if in_moves {
                    // A new tag section without a result: close the game.
                    games.push(std::mem::take(&mut game));
                    in_moves = false;
                }
                let mut inner = String::new();
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    inner.push(d);
                }
                if let Some((k, v)) = inner.trim().split_once(char::is_whitespace) {
                    let v = v.trim().trim_matches('"').replace("\\\"", "\"");
                    game.tags.push((k.to_string(), v));
                }
            }
            '{' => {
                flush(&mut token, &mut game, &mut games, &mut in_moves);
                for d in chars.by_ref() {
                    if d == '}' {
                        break;
                    }
                }
            }
            ';' => {
                flush(&mut token, &mut game, &mut games, &mut in_moves);
                for d in chars.by_ref() {
                    if d == '\n' {
                        at_line_start = true;
                        break;
                    }
                }
            }
            '(' => {
                flush(&mut token, &mut game, &mut games, &mut in_moves);
                depth = 1;
            }
            c if c.is_whitespace() => flush(&mut token, &mut game, &mut games, &mut in_moves),
            c => token.push(c),
        }
    }
    flush(&mut token, &mut game, &mut games, &mut in_moves);
    if !game.moves.is_empty() || !game.tags.is_empty() {
        games.push(game);
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_comments_variations_and_nags() {
        let text = "[Event \"x\"]\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n\n1. Kb1 {c} (1. Ka2 (1. Kb2)) 1... Kg1 $1 ; rest\n2. Kc1 1/2-1/2\n";
        let games = parse(text);
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].moves, vec!["Kb1", "Kg1", "Kc1"]);
        assert_eq!(games[0].result.as_deref(), Some("1/2-1/2"));
        assert_eq!(games[0].tag("Event"), Some("x"));
        assert!(games[0].replay(|_, _| {}).is_ok());
    }

    #[test]
    fn reports_illegal_move_with_ply() {
        let games = parse("1. e4 e5 2. Ke3 *");
        let err = games[0].replay(|_, _| {}).unwrap_err();
        assert!(matches!(err, PgnError::Move { ply: 3, .. }));
    }
}
