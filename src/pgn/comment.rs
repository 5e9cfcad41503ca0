//! Move comments and the scores they carry.
//!
//! Two score forms are read:
//! * the `[%eval …]` command (lichess, chess.com, python-chess): `[%eval 0.35]`,
//!   `[%eval -1.2,18]` (pawns, an optional depth after the comma), `[%eval #-3]`
//!   (mate); the score is from white's point of view;
//! * an engine score leading the comment, as cutechess and other match
//!   tools write it: `{+0.35/12 0.8s}`, `{-1.20/15}`, `{+M5/20 0.1s}`, `{-M3/9}`
//!   (pawns or mate in moves, a slash and the depth); the score is the
//!   engine's, i.e. from the point of view of the side that moved.
//!
//! `{book}` marks a move from an opening book ([`Comment::is_book`]).

/// A score read from a comment, as the writer gave it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns (pawns × 100, rounded).
    Cp(i32),
    /// Mate in this many moves; negative: getting mated.
    Mate(i32),
}

/// The text between `{` and `}` (or after `;`), verbatim.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comment(pub String);

impl Comment {
    pub fn text(&self) -> &str {
        &self.0
    }

    /// The score of an `[%eval …]` command, else of a leading engine score.
    pub fn eval(&self) -> Option<Eval> {
        match self.eval_command() {
            Some(body) => parse_eval(body.split(',').next().unwrap_or(body)),
            None => {
                let (score, _) = self.engine_score()?;
                let mate = score.trim_start_matches(['+', '-']).strip_prefix('M');
                match mate {
                    Some(n) => {
                        let n: i32 = n.parse().ok()?;
                        Some(Eval::Mate(if score.starts_with('-') { -n } else { n }))
                    }
                    None => pawns(score).map(Eval::Cp),
                }
            }
        }
    }

    /// The search depth given with the score (`/12`, or `[%eval 0.3,12]`).
    pub fn depth(&self) -> Option<u32> {
        match self.eval_command() {
            Some(body) => body.split_once(',')?.1.trim().parse().ok(),
            None => self.engine_score()?.1.parse().ok(),
        }
    }

    /// Whether the comment says the move came from a book (`{book}`).
    pub fn is_book(&self) -> bool {
        self.0.trim().eq_ignore_ascii_case("book")
    }

    /// The operand of `[%eval …]`, trimmed.
    fn eval_command(&self) -> Option<&str> {
        let start = self.0.find("[%eval")? + "[%eval".len();
        let rest = self.0.get(start..)?;
        let end = rest.find(']')?;
        Some(rest.get(..end)?.trim())
    }

    /// A leading `score/depth` token: (score, depth), both still text.
    fn engine_score(&self) -> Option<(&str, &str)> {
        let first = self.0.split_whitespace().next()?;
        let (score, depth) = first.split_once('/')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(depth) {
            return None;
        }
        let body = score.trim_start_matches(['+', '-']);
        let numeric = body
            .strip_prefix('M')
            .map_or_else(|| body.split_once('.').map_or(digits(body), |(i, f)| digits(i) && digits(f)), digits);
        // A sign, a decimal point or a mate: not a fraction such as `1/2`.
        let marked = body.len() < score.len() || body.contains('.') || body.starts_with('M');
        (numeric && marked).then_some((score, depth))
    }
}

/// `0.35`, `-1.2` (pawns) or `#-3` (mate).
fn parse_eval(text: &str) -> Option<Eval> {
    let text = text.trim();
    match text.strip_prefix('#') {
        Some(n) => n.trim_start_matches('+').parse().ok().map(Eval::Mate),
        None => pawns(text).map(Eval::Cp),
    }
}

/// Pawns as text to centipawns.
fn pawns(text: &str) -> Option<i32> {
    let v: f64 = text.trim_start_matches('+').parse().ok()?;
    let cp = (v * 100.0).round();
    (v.is_finite() && cp.abs() < 1e9).then_some(cp as i32)
}
