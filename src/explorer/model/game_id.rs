//! A game's id ([`GameId`]): Lichess's 8 letters and digits, or 8 made
//! from a hash of a game that has none.

use std::fmt;
use std::str::FromStr;

/// The base-62 digits, in the order of their values.
const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A game's id: 8 ASCII letters and digits, kept as its bytes (as the
/// index stores it, 8 bytes). Ordered by its bytes (the order of the
/// index's id table); Lichess's order of ids is [`GameId::value`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GameId([u8; 8]);

impl GameId {
    /// The id of these bytes, when they are 8 letters and digits.
    pub fn new(bytes: [u8; 8]) -> Result<GameId, BadGameId> {
        if bytes.iter().all(u8::is_ascii_alphanumeric) {
            Ok(GameId(bytes))
        } else {
            Err(BadGameId(String::from_utf8_lossy(&bytes).into_owned()))
        }
    }

    pub const fn as_bytes(&self) -> &[u8; 8] {
        &self.0
    }

    /// 8 base-62 digits of `h` (`0`–`9`, `A`–`Z`, `a`–`z`), the most
    /// significant first: the id of a game without Lichess's.
    pub fn from_hash(mut h: u64) -> GameId {
        let mut id = [0u8; 8];
        for d in id.iter_mut().rev() {
            *d = DIGITS[(h % 62) as usize];
            h /= 62;
        }
        GameId(id)
    }

    /// Lichess's id in a `Site` tag: the 8 letters and digits after its
    /// last `/` (a trailing `/` left out).
    pub fn of_site(site: &str) -> Option<GameId> {
        let last = site.trim().trim_end_matches('/').rsplit('/').next().unwrap_or("");
        if !site.contains('/') {
            return None;
        }
        GameId::new(last.as_bytes().try_into().ok()?).ok()
    }

    /// The id's place in Lichess's order of ids: its 8 characters as a
    /// base-62 number, the first character the least significant digit.
    pub fn value(self) -> u64 {
        self.0.iter().rev().fold(0u64, |n, &c| {
            let digit = DIGITS.iter().position(|&d| d == c).unwrap_or(0) as u64;
            n * 62 + digit
        })
    }
}

impl Default for GameId {
    /// `00000000`.
    fn default() -> GameId {
        GameId([b'0'; 8])
    }
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The bytes are ASCII letters and digits.
        f.write_str(std::str::from_utf8(&self.0).map_err(|_| fmt::Error)?)
    }
}

/// A game id that is not 8 ASCII letters and digits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad game id '{0}' (8 letters and digits)")]
pub struct BadGameId(pub String);

impl FromStr for GameId {
    type Err = BadGameId;

    fn from_str(s: &str) -> Result<GameId, BadGameId> {
        let bytes: [u8; 8] = s.as_bytes().try_into().map_err(|_| BadGameId(s.to_string()))?;
        GameId::new(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn game_ids_round_trip_through_text_and_serde() {
        for h in [0, 1, 61, 62, u64::MAX, 0x1234_5678_9abc_def0] {
            let id = GameId::from_hash(h);
            let text = id.to_string();
            assert_eq!(text.parse::<GameId>(), Ok(id));
            let json = serde_json::to_string(&id).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<GameId>(&json).unwrap(), id);
        }
        assert_eq!(GameId::from_hash(61).to_string(), "0000000z");
        assert_eq!(GameId::of_site("https://lichess.org/abcdEFGH/"), "abcdEFGH".parse().ok());
        assert_eq!(GameId::of_site("abcdEFGH"), None, "a site without a /");
    }

    #[test]
    fn bad_game_ids_are_refused_with_their_text() {
        for bad in ["abcdEFG", "abcdEFGHI", "abcd-FGH", "abcdEFG\u{e9}", ""] {
            assert_eq!(bad.parse::<GameId>(), Err(BadGameId(bad.to_string())), "{bad}");
        }
        assert!(GameId::new(*b"abc\0EFGH").is_err());
        assert!(serde_json::from_str::<GameId>("\"abc\"").is_err());
    }

    #[test]
    fn the_value_is_base_62_with_the_first_character_least_significant() {
        let value = |s: &str| s.parse::<GameId>().unwrap().value();
        assert_eq!((value("00000000"), value("10000000"), value("01000000")), (0, 1, 62));
        assert_eq!((value("A0000000"), value("a0000000"), value("z0000000")), (10, 36, 61));
        assert_eq!(value("0000000z"), 61 * 62u64.pow(7));
        assert!(value("z0000000") < value("01000000") && value("01000000") < value("00000001"));
    }
}
