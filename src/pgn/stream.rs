//! Streaming PGN: a database of any size read as batches of whole games,
//! never all at once.
//!
//! [`GameBatches`] reads lines from any [`BufRead`] (see [`crate::input`]
//! for compressed files and standard input) and cuts the text between
//! games into [`Batch`]es of about `target` bytes. A game starts at a line
//! whose first byte is `[` after a line of movetext, outside a `{…}`
//! comment: the same place where [`super::parse_with`] starts one, so
//! parsing the batches one by one (in any thread) gives the games that
//! parsing the whole text would.
//!
//! Games are numbered from 1 by their tag sections as the batches are cut;
//! [`Batch::parse`] gives each game its number and file. When the source
//! fails (a truncated compressed stream), the complete games read so far
//! come first as a batch, then the error, then the end.

use super::{parse_with, Game, ReadOptions};
use std::io::{self, BufRead};
use std::path::Path;
use std::sync::Arc;

/// Whole games' text and the number of the first of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The games' text (invalid UTF-8 replaced).
    pub text: String,
    /// The 1-based number of the batch's first game in its input.
    pub first_index: usize,
    /// The byte offset of the text in the (decompressed) input.
    pub offset: u64,
}

impl Batch {
    /// Parses the batch; games are numbered from [`Batch::first_index`] and
    /// name `file`.
    pub fn parse(&self, options: ReadOptions, file: Option<&Arc<Path>>) -> Vec<Game> {
        let mut games = parse_with(&self.text, options);
        for (i, g) in games.iter_mut().enumerate() {
            g.source.index = self.first_index + i;
            g.source.file = file.cloned();
        }
        games
    }
}

/// Cuts a PGN stream into batches of whole games.
pub struct GameBatches<R> {
    reader: R,
    target: usize,
    /// The text of the batch being filled, the start of the next perhaps
    /// after it: its lines are looked at where they lie, never copied.
    buf: Vec<u8>,
    /// The bytes of `buf` whose lines have been looked at.
    scanned: usize,
    /// Where the last game in `buf` starts (0: the batch's first game).
    last_start: usize,
    /// Games begun in `buf` (tag sections seen, or 1 for leading movetext).
    games_in_buf: usize,
    next_index: usize,
    offset: u64,
    /// A line of movetext has been read since the last tag section.
    movetext: bool,
    /// `{` opened and not yet closed.
    in_comment: bool,
    failed: Option<io::Error>,
    done: bool,
}

/// Bytes taken from the reader at once: small beside a batch, so what
/// follows a cut (copied to the next batch) stays small.
const CHUNK: usize = 64 << 10;

impl<R: BufRead> GameBatches<R> {
    /// Batches of about `target` bytes (a batch holds at least one game).
    pub fn new(reader: R, target: usize) -> Self {
        let target = target.max(1);
        GameBatches {
            reader,
            target,
            buf: Vec::new(),
            scanned: 0,
            last_start: 0,
            games_in_buf: 0,
            next_index: 1,
            offset: 0,
            movetext: false,
            in_comment: false,
            failed: None,
            done: false,
        }
    }

    /// Takes the first `len` bytes of the buffer as a batch of `games`
    /// games.
    fn cut(&mut self, len: usize, games: usize) -> Batch {
        let mut rest = Vec::with_capacity((self.target + 2 * CHUNK).max(self.buf.len() - len));
        rest.extend_from_slice(&self.buf[len..]);
        let mut bytes = std::mem::replace(&mut self.buf, rest);
        bytes.truncate(len);
        let batch = Batch {
            text: String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            first_index: self.next_index,
            offset: self.offset,
        };
        self.offset += len as u64;
        self.next_index += games;
        self.games_in_buf -= games;
        self.last_start = self.last_start.saturating_sub(len);
        self.scanned -= len;
        batch
    }

    /// Looks at the line `buf[start..end]`: a game starts there, or the
    /// comment state changes. Gives the batch to cut before it (its
    /// length and games) when the buffer has reached the target.
    fn line(&mut self, start: usize, end: usize) -> Option<(usize, usize)> {
        let line = &self.buf[start..end];
        let first = line.iter().copied().find(|b| !b.is_ascii_whitespace());
        let tag_line = !self.in_comment && line.first() == Some(&b'[');
        let mut ready = None;
        if tag_line && (self.movetext || self.games_in_buf == 0) {
            if start >= self.target && self.games_in_buf > 0 {
                ready = Some((start, self.games_in_buf));
            }
            self.last_start = start;
            self.games_in_buf += 1;
            self.movetext = false;
        } else if !tag_line && first.is_some() {
            if self.games_in_buf == 0 {
                self.games_in_buf = 1;
            }
            self.movetext |= first != Some(b'%');
        }
        self.in_comment = comment_state(line, self.in_comment);
        ready
    }
}

/// Whether a `{…}` comment is open after `line`, given whether one was
/// open before it (a `;` outside a comment ends the line's text).
fn comment_state(line: &[u8], mut in_comment: bool) -> bool {
    // Most lines have no comment mark: one quick look first.
    if memchr::memchr3(b'{', b'}', b';', line).is_none() {
        return in_comment;
    }
    for &b in line {
        match b {
            b'{' if !in_comment => in_comment = true,
            b'}' if in_comment => in_comment = false,
            b';' if !in_comment => break,
            _ => {}
        }
    }
    in_comment
}

impl<R: BufRead> Iterator for GameBatches<R> {
    type Item = io::Result<Batch>;

    fn next(&mut self) -> Option<io::Result<Batch>> {
        if let Some(e) = self.failed.take() {
            self.done = true;
            return Some(Err(e));
        }
        if self.done {
            return None;
        }
        loop {
            // The complete lines not looked at yet.
            while let Some(n) = memchr::memchr(b'\n', &self.buf[self.scanned..]) {
                let (start, end) = (self.scanned, self.scanned + n + 1);
                self.scanned = end;
                if let Some((len, games)) = self.line(start, end) {
                    return Some(Ok(self.cut(len, games)));
                }
            }
            let data = match self.reader.fill_buf() {
                Ok(data) => data,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    // The games before the last one are whole.
                    let (len, games) = (self.last_start, self.games_in_buf.saturating_sub(1));
                    self.done = true;
                    if len == 0 {
                        return Some(Err(e));
                    }
                    self.failed = Some(e);
                    return Some(Ok(self.cut(len, games)));
                }
            };
            if data.is_empty() {
                // The end: a last line without its newline, then the rest.
                if self.scanned < self.buf.len() {
                    let (start, end) = (self.scanned, self.buf.len());
                    self.scanned = end;
                    if let Some((len, games)) = self.line(start, end) {
                        return Some(Ok(self.cut(len, games)));
                    }
                }
                self.done = true;
                if self.buf.iter().all(u8::is_ascii_whitespace) {
                    return None;
                }
                let (len, games) = (self.buf.len(), self.games_in_buf.max(1));
                return Some(Ok(self.cut(len, games)));
            }
            let n = data.len().min(CHUNK);
            self.buf.extend_from_slice(&data[..n]);
            self.reader.consume(n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(i: usize) -> String {
        format!("[Event \"g{i}\"]\n[Site \"?\"]\n\n1. e4 {{a [comment]\n[not a tag] }} e5 2. Nf3 Nc6 1-0\n\n")
    }

    fn batches(text: &str, target: usize) -> Vec<Batch> {
        GameBatches::new(io::Cursor::new(text.as_bytes().to_vec()), target).map(|b| b.expect("reads")).collect()
    }

    #[test]
    fn batches_parse_to_the_same_games_as_the_whole_text() {
        let text: String = (1..=50).map(game).collect();
        let whole = parse_with(&text, ReadOptions::default());
        for target in [1, 100, 1000, 1 << 20] {
            let got: Vec<Game> =
                batches(&text, target).iter().flat_map(|b| b.parse(ReadOptions::default(), None)).collect();
            assert_eq!(got.len(), 50);
            for (i, (a, b)) in got.iter().zip(&whole).enumerate() {
                assert_eq!(a.tags, b.tags);
                assert_eq!(a.moves, b.moves);
                assert_eq!(a.source.index, i + 1, "games are numbered across batches");
            }
        }
    }

    #[test]
    fn batches_are_cut_between_games_near_the_target() {
        let text: String = (1..=20).map(game).collect();
        let bs = batches(&text, 200);
        assert!(bs.len() > 5);
        for b in &bs {
            assert!(b.text.starts_with("[Event"), "{:?}", &b.text[..20]);
        }
        let joined: String = bs.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(joined, text, "batches cover the text exactly");
        let mut offset = 0;
        for b in &bs {
            assert_eq!(b.offset, offset);
            offset += b.text.len() as u64;
        }
    }

    /// Lines are found in the buffer whatever pieces the reader hands over:
    /// one byte at a time, a few, or all, the batches are the same
    /// (multi-line comments with `[` lines, CRLF, no final newline).
    #[test]
    fn batches_do_not_depend_on_how_the_reader_delivers_the_text() {
        let mut text: String = (1..=40).map(game).collect();
        text.push_str(
            "[Event \"crlf\"]\r\n\r\n1. d4 ; [x\r\n{ open\n[Event \"no\"]\n} d5 *\r\n\n[Event \"last\"]\n\n1. c4",
        );
        for target in [1, 150, 1000, 1 << 20] {
            let want = batches(&text, target);
            assert!(want.iter().map(|b| b.text.as_str()).collect::<String>() == text);
            for capacity in [1, 7, 64, 1 << 16] {
                let reader = io::BufReader::with_capacity(capacity, text.as_bytes());
                let got: Vec<Batch> = GameBatches::new(reader, target).map(|b| b.expect("reads")).collect();
                assert_eq!(got, want, "target {target}, reader capacity {capacity}");
            }
        }
    }

    #[test]
    fn movetext_without_tags_and_tags_without_moves_are_games() {
        let text = "1. d4 d5 *\n\n[Event \"x\"]\n[White \"w\"]\n\n*\n[Event \"y\"]\n\n1. c4 *\n";
        let got: Vec<Game> = batches(text, 1).iter().flat_map(|b| b.parse(ReadOptions::default(), None)).collect();
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].moves, ["d4", "d5"]);
        assert_eq!(got[1].tag("White"), Some("w"));
        assert_eq!(got[2].moves, ["c4"]);
        assert_eq!(got.iter().map(|g| g.source.index).collect::<Vec<_>>(), [1, 2, 3]);
    }

    /// A reader that fails after `n` bytes, as a truncated stream does.
    struct FailAfter(io::Cursor<Vec<u8>>, usize);
    impl io::Read for FailAfter {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0.position() as usize >= self.1 {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "truncated"));
            }
            let room = (self.1 - self.0.position() as usize).min(buf.len());
            io::Read::read(&mut self.0, &mut buf[..room])
        }
    }

    #[test]
    fn a_failing_source_gives_the_complete_games_then_the_error() {
        let text: String = (1..=10).map(game).collect();
        let cut = text.len() - game(10).len() / 2;
        let reader = io::BufReader::with_capacity(64, FailAfter(io::Cursor::new(text.into_bytes()), cut));
        let items: Vec<io::Result<Batch>> = GameBatches::new(reader, 1 << 20).collect();
        assert_eq!(items.len(), 2);
        let games = items[0].as_ref().expect("complete games first").parse(ReadOptions::default(), None);
        assert_eq!(games.len(), 9);
        assert!(items[1].is_err());
    }
}
