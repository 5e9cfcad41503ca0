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

use super::plain::{stops, PLAIN};
use super::{Comment, Game, Notes, SanText, Variation};
use std::path::Path;
use std::sync::Arc;

/// What the reader keeps beyond the main line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Keep variations (skipped when off).
    pub variations: bool,
    /// Drop comments, NAGs and variations (`notes` left empty, not one
    /// per move): for readers that want only the moves, such as `book build`.
    pub skip_notes: bool,
}

/// Parses every game in `text`, variations skipped.
pub fn parse(text: &str) -> Vec<Game> {
    parse_with(text, ReadOptions::default())
}

/// Reads every game of the file at `path` (plain, gzip, zstd or bzip2, as
/// [`crate::input::Input`] tells them; `-` for standard input); each
/// game's source names it.
pub fn read_file(path: &Path, options: ReadOptions) -> std::io::Result<Vec<Game>> {
    let bytes = crate::input::Input::read_all(path)?;
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

/// What a movetext token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Token<'t> {
    /// `1-0`, `0-1`, `1/2-1/2`, `*`.
    Result,
    /// `$n` (after any move number); `None` when `n` is no NAG.
    Nag(Option<u8>),
    /// A move with its move number removed, and its `!`/`?` suffix.
    Move { san: &'t str, suffix: &'t str },
    /// A bare move number, or a suffix alone.
    Empty,
}

impl<'t> Token<'t> {
    /// Inlined into the tokenizer's callers for the two commonest
    /// tokens, a bare move and a move number; [`Token::of_any`] reads
    /// the rest.
    #[inline]
    pub(super) fn of(t: &'t str) -> Token<'t> {
        // Most tokens are bare moves: a letter first (no result, move
        // number or NAG starts so) and no `!`/`?` last, so nothing to cut.
        if let (Some(first), Some(last)) = (t.as_bytes().first(), t.as_bytes().last()) {
            if first.is_ascii_alphabetic() && !matches!(last, b'!' | b'?') {
                return Token::Move { san: t, suffix: "" };
            }
            // A move number alone (`12.`, `12...`): digits, then dots to
            // the end (no result is so).
            if first.is_ascii_digit() && *last == b'.' {
                let digits = t.bytes().take_while(u8::is_ascii_digit).count();
                if t.as_bytes()[digits..].iter().all(|&c| c == b'.') {
                    return Token::Empty;
                }
            }
        }
        Token::of_any(t)
    }

    /// [`Token::of`] for any token.
    #[inline(never)]
    fn of_any(t: &'t str) -> Token<'t> {
        if is_result(t) {
            return Token::Result;
        }
        // Bytes, not chars: every character trimmed is ASCII, so the cuts
        // fall on character boundaries.
        let b = t.as_bytes();
        let digits = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let dots = b[digits..].iter().take_while(|&&c| c == b'.').count();
        let stripped = &t[digits + dots..];
        if let Some(n) = stripped.strip_prefix('$') {
            return Token::Nag(n.parse::<u8>().ok());
        }
        let marks = stripped.as_bytes().iter().rev().take_while(|&&c| matches!(c, b'!' | b'?')).count();
        let (san, suffix) = stripped.split_at(stripped.len() - marks);
        if san.is_empty() {
            return Token::Empty;
        }
        Token::Move { san, suffix }
    }
}

/// What the tokenizer ([`tokenize`]) feeds: a game builder.
pub(super) trait Sink<'t> {
    /// Moves were read since the last tag section (a `[` then starts a
    /// tag section only at a line start).
    fn in_moves(&self) -> bool;
    /// Inside a variation, kept or skipped (a `[` there is no tag).
    fn in_variation(&self) -> bool;
    fn token(&mut self, t: &'t str);
    /// The text between `[` and `]`.
    fn tag(&mut self, inner: &'t str);
    fn comment(&mut self, text: &'t str);
    fn open_variation(&mut self);
    fn close_variation(&mut self);
}

/// A tag section's name and value (quotes and `\"` escapes removed).
pub(super) fn tag_pair(inner: &str) -> Option<(&str, std::borrow::Cow<'_, str>)> {
    match canonical_tag_pair(inner) {
        Some((k, v)) => Some((k, v.into())),
        None => any_tag_pair(inner),
    }
}

/// [`tag_pair`] for the form nearly every tag has, `Name "value"`: a name
/// of ASCII letters, digits and `_`, one space, and a quoted value that
/// holds no `\` and neither starts nor ends with a further `"`. Gives
/// what [`any_tag_pair`] gives for such a text; `None` for any other.
#[inline]
pub(super) fn canonical_tag_pair(inner: &str) -> Option<(&str, &str)> {
    let b = inner.as_bytes();
    let sp = b.iter().position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))?;
    let (name, rest) = b.split_at(sp);
    match *rest {
        [b' ', b'"', ref value @ .., b'"']
            if !name.is_empty()
                && value.first() != Some(&b'"')
                && value.last() != Some(&b'"')
                && !value.contains(&b'\\') =>
        {
            // The cuts fall next to ASCII bytes, on character boundaries.
            Some((&inner[..sp], &inner[sp + 2..b.len() - 1]))
        }
        _ => None,
    }
}

/// [`tag_pair`] for any text.
pub(super) fn any_tag_pair(inner: &str) -> Option<(&str, std::borrow::Cow<'_, str>)> {
    let (k, v) = inner.trim().split_once(char::is_whitespace)?;
    let v = v.trim().trim_matches('"');
    Some((k, if v.contains("\\\"") { v.replace("\\\"", "\"").into() } else { v.into() }))
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
        if let Some((k, v)) = tag_pair(inner) {
            self.game.tags.push((k.to_string(), v.into_owned()));
        }
    }

    fn comment(&mut self, text: &str) {
        if self.skip > 0 || self.options.skip_notes {
            return;
        }
        let text = text.to_string();
        let line = self.line();
        match line.notes.last_mut() {
            Some(notes) => notes.comments.push(Comment(text)),
            None => line.intro.push(Comment(text)),
        }
    }

    fn nag(&mut self, nag: u8) {
        if self.skip > 0 || self.options.skip_notes {
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
        let (san, suffix) = match Token::of(t) {
            Token::Result => {
                if self.skip == 0 && self.open.is_empty() {
                    self.finish(Some(t.to_string()));
                }
                return;
            }
            Token::Nag(n) => {
                if let Some(n) = n {
                    self.nag(n);
                }
                return;
            }
            Token::Empty => return,
            Token::Move { .. } if self.skip > 0 => return,
            Token::Move { san, suffix } => (san, suffix),
        };
        let nag = suffix_nag(suffix).filter(|_| !self.options.skip_notes);
        let skip_notes = self.options.skip_notes;
        let line = self.line();
        if line.moves.capacity() == 0 {
            // Room for a whole game of ordinary length: one allocation.
            line.moves.reserve(128);
        }
        line.moves.push(SanText::new(san));
        if !skip_notes {
            line.notes.push(Notes { nags: nag.into_iter().collect(), ..Notes::default() });
        }
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
    tokenize(text, &mut b);
    if b.has_content() {
        b.finish(None);
    }
    b.games
}

impl<'t> Sink<'t> for Builder {
    fn in_moves(&self) -> bool {
        self.in_moves
    }
    fn in_variation(&self) -> bool {
        self.skip > 0 || !self.open.is_empty()
    }
    fn token(&mut self, t: &'t str) {
        Builder::token(self, t);
    }
    fn tag(&mut self, inner: &'t str) {
        Builder::tag(self, inner);
    }
    fn comment(&mut self, text: &'t str) {
        Builder::comment(self, text);
    }
    fn open_variation(&mut self) {
        Builder::open_variation(self);
    }
    fn close_variation(&mut self) {
        Builder::close_variation(self);
    }
}

/// Cuts `text` into tokens for `sink` (the end of the text closes no game:
/// the caller does).
pub(super) fn tokenize<'t>(text: &'t str, b: &mut impl Sink<'t>) {
    // Every character the loop consumes without making it part of a token
    // comes after a delimiter, so a token is one slice of `text`, from
    // `start` to the delimiter. Delimiters are ASCII, so the slices fall
    // on character boundaries.
    let bytes = text.as_bytes();
    let find = |from: usize, end: u8| bytes[from..].iter().position(|&d| d == end).map_or(bytes.len(), |n| from + n);
    let mut i = 0;
    let mut start: Option<usize> = None;
    let mut at_line_start = true;
    while i < bytes.len() {
        let c = bytes[i];
        // Fast paths, with the effect the general step below would have:
        // a byte that continues a token, and a plain space between tokens.
        if start.is_some() && PLAIN[usize::from(c)] || start.is_none() && c == b' ' {
            at_line_start = false;
            i += 1;
            continue;
        }
        let (width, space) = if c < 0x80 {
            (1, matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C))
        } else {
            let ch = text[i..].chars().next().unwrap_or(' ');
            (ch.len_utf8(), ch.is_whitespace())
        };
        let line_start = at_line_start;
        at_line_start = c == b'\n';
        let delimiter = space || matches!(c, b'{' | b';' | b'(' | b')') || c == b'[' && !b.in_moves();
        if delimiter {
            if let Some(s) = start.take() {
                b.token(&text[s..i]);
            }
        }
        match c {
            b'%' if line_start => {
                i = find(i + 1, b'\n') + 1;
                at_line_start = true;
                continue;
            }
            b'[' if (!b.in_moves() || line_start) && !b.in_variation() => {
                if let Some(s) = start.take() {
                    b.token(&text[s..i]);
                }
                let end = find(i + 1, b']');
                b.tag(&text[i + 1..end]);
                i = end + 1;
                continue;
            }
            b'{' => {
                let end = find(i + 1, b'}');
                b.comment(&text[i + 1..end]);
                i = end + 1;
                continue;
            }
            b';' => {
                let end = find(i + 1, b'\n');
                b.comment(&text[i + 1..end]);
                at_line_start = true;
                i = end + 1;
                continue;
            }
            b'(' => b.open_variation(),
            b')' => b.close_variation(),
            _ if space => {}
            _ => {
                let mut s = *start.get_or_insert(i);
                // The rest of the token's plain bytes, then movetext's
                // common case, a token, one space, and a plain byte
                // starting the next token: what the steps above would do
                // (end the token at the space, pass it, start the next
                // one), done without them, from a mask of the bytes that
                // are not plain, 64 at a time.
                i += width;
                let mut base = i;
                let mut mask = stops(bytes, base);
                loop {
                    // `i - base` is below 64 here.
                    let ahead = mask >> (i - base);
                    if ahead == 0 {
                        (i, base) = (base + 64, base + 64);
                        mask = stops(bytes, base);
                        continue;
                    }
                    i += ahead.trailing_zeros() as usize;
                    let next = i + 1 - base;
                    let next_plain = if next < 64 {
                        mask >> next & 1 == 0
                    } else {
                        bytes.get(i + 1).is_some_and(|&d| PLAIN[usize::from(d)])
                    };
                    if bytes.get(i) != Some(&b' ') || !next_plain {
                        break;
                    }
                    b.token(&text[s..i]);
                    s = i + 1;
                    start = Some(s);
                    i = s + 1;
                    if i - base >= 64 {
                        base = i;
                        mask = stops(bytes, base);
                    }
                }
                continue;
            }
        }
        i += width;
    }
    if let Some(s) = start {
        b.token(&text[s..]);
    }
}
