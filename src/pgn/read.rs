//! The PGN reader: text to [`Game`]s. Never fails on odd text; what it
//! cannot place is dropped (a NAG before any move, a variation before any
//! move, a result token inside a variation).
//!
//! Tokens: `[Tag "value"]` (a tag section starts a new game when moves
//! were read), `{comment}`, `;comment` (to the end of the line), `%escape`
//! (a whole line, at a line start), `(` and `)`, `$n`, a result (`1-0`,
//! `0-1`, `1/2-1/2`, `*`, which ends the game), and anything else between
//! whitespace is a move, its leading move number (`12.`, `12...`) and its
//! trailing `!`/`?` suffix (a NAG) removed.

use super::{Comment, Game, Notes, SanText, Variation};
use std::path::Path;
use std::sync::Arc;

/// What the reader keeps beyond the main line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Keep variations (skipped when off).
    pub variations: bool,
}

/// Parses every game in `text`, variations skipped.
pub fn parse(text: &str) -> Vec<Game> {
    parse_with(text, ReadOptions::default())
}

/// Reads every game of the file at `path`; each game's source names it.
pub fn read_file(path: &Path, options: ReadOptions) -> std::io::Result<Vec<Game>> {
    let bytes = std::fs::read(path)?;
    let mut games = parse_with(&String::from_utf8_lossy(&bytes), options);
    let file: Arc<Path> = Arc::from(path);
    for g in &mut games {
        g.source.file = Some(file.clone());
    }
    Ok(games)
}

fn is_result(tok: &str) -> bool {
    matches!(tok, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// The NAG of a move suffix.
fn suffix_nag(suffix: &str) -> Option<u8> {
    Some(match suffix {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        _ => return None,
    })
}

/// Builds games from tokens.
struct Builder {
    options: ReadOptions,
    games: Vec<Game>,
    game: Game,
    main: Variation,
    /// Open variations, innermost last (kept only with `options.variations`).
    open: Vec<Variation>,
    /// Depth of variations being skipped.
    skip: usize,
    in_moves: bool,
}

impl Builder {
    fn line(&mut self) -> &mut Variation {
        self.open.last_mut().unwrap_or(&mut self.main)
    }

    fn finish(&mut self, result: Option<String>) {
        // Unclosed variations are dropped.
        self.open.clear();
        self.skip = 0;
        let main = std::mem::take(&mut self.main);
        let mut game = std::mem::take(&mut self.game);
        game.intro = main.intro;
        game.moves = main.moves;
        game.notes = main.notes;
        game.result = result;
        game.source.index = self.games.len() + 1;
        self.games.push(game);
        self.in_moves = false;
    }

    fn has_content(&self) -> bool {
        !self.main.moves.is_empty() || !self.game.tags.is_empty()
    }

    fn tag(&mut self, inner: &str) {
        if self.in_moves {
            // A new tag section without a result: close the game.
            self.finish(None);
        }
        if let Some((k, v)) = inner.trim().split_once(char::is_whitespace) {
            let v = v.trim().trim_matches('"').replace("\\\"", "\"");
            self.game.tags.push((k.to_string(), v));
        }
    }

    fn comment(&mut self, text: String) {
        if self.skip > 0 {
            return;
        }
        let line = self.line();
        match line.notes.last_mut() {
            Some(notes) => notes.comments.push(Comment(text)),
            None => line.intro.push(Comment(text)),
        }
    }

    fn nag(&mut self, nag: u8) {
        if self.skip > 0 {
            return;
        }
        if let Some(notes) = self.line().notes.last_mut() {
            notes.nags.push(nag);
        }
    }

    fn open_variation(&mut self) {
        if self.options.variations && self.skip == 0 {
            self.open.push(Variation::default());
        } else {
            self.skip += 1;
        }
    }

    fn close_variation(&mut self) {
        if self.skip > 0 {
            self.skip -= 1;
            return;
        }
        if let Some(v) = self.open.pop() {
            if let Some(notes) = self.line().notes.last_mut() {
                notes.variations.push(v);
            }
        }
    }

    fn token(&mut self, t: &str) {
        if is_result(t) {
            if self.skip == 0 && self.open.is_empty() {
                self.finish(Some(t.to_string()));
            }
            return;
        }
        let stripped = t.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('.');
        if let Some(n) = stripped.strip_prefix('$') {
            if let Ok(n) = n.parse::<u8>() {
                self.nag(n);
            }
            return;
        }
        if stripped.is_empty() || self.skip > 0 {
            return;
        }
        let san = stripped.trim_end_matches(['!', '?']);
        let nag = suffix_nag(&stripped[san.len()..]);
        if san.is_empty() {
            return;
        }
        let line = self.line();
        line.moves.push(SanText::new(san));
        line.notes.push(Notes { nags: nag.into_iter().collect(), ..Notes::default() });
        self.in_moves = true;
    }
}

/// Parses every game in `text`.
pub fn parse_with(text: &str, options: ReadOptions) -> Vec<Game> {
    let mut b = Builder {
        options,
        games: Vec::new(),
        game: Game::default(),
        main: Variation::default(),
        open: Vec::new(),
        skip: 0,
        in_moves: false,
    };
    let mut chars = text.chars().peekable();
    let mut at_line_start = true;
    let mut token = String::new();
    let rest_of_line = |chars: &mut std::iter::Peekable<std::str::Chars>| {
        let mut s = String::new();
        for d in chars.by_ref() {
            if d == '\n' {
                break;
            }
            s.push(d);
        }
        s
    };
    let upto = |chars: &mut std::iter::Peekable<std::str::Chars>, end: char| {
        let mut s = String::new();
        for d in chars.by_ref() {
            if d == end {
                break;
            }
            s.push(d);
        }
        s
    };
    while let Some(c) = chars.next() {
        let line_start = at_line_start;
        at_line_start = c == '\n';
        let delimiter = c.is_whitespace() || matches!(c, '{' | ';' | '(' | ')') || c == '[' && !b.in_moves;
        if delimiter && !token.is_empty() {
            b.token(&token);
            token.clear();
        }
        match c {
            '%' if line_start => {
                rest_of_line(&mut chars);
                at_line_start = true;
            }
            '[' if (!b.in_moves || line_start) && b.skip == 0 && b.open.is_empty() => {
                if !token.is_empty() {
                    b.token(&token);
                    token.clear();
                }
                let inner = upto(&mut chars, ']');
                b.tag(&inner);
            }
            '{' => {
                let text = upto(&mut chars, '}');
                b.comment(text);
            }
            ';' => {
                let text = rest_of_line(&mut chars);
                at_line_start = true;
                b.comment(text);
            }
            '(' => b.open_variation(),
            ')' => b.close_variation(),
            c if c.is_whitespace() => {}
            c => token.push(c),
        }
    }
    if !token.is_empty() {
        b.token(&token);
    }
    if b.has_content() {
        b.finish(None);
    }
    b.games
}
