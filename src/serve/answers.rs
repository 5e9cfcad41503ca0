//! Answers kept, encoded, so that a question asked again is answered
//! without looking it up or encoding it again ([`AnswerCache`], by any
//! [`CacheKey`]): `/standard`'s by position ([`AnswerKey`]), the
//! explorer's by typed query ([`super::explorer`]).
//!
//! `/standard`'s key is the FEN as asked, its fields (spaces or underscores between
//! them, as [`super::lenient`] reads them) joined by single spaces, without
//! the fullmove number, which no answer depends on (the halfmove clock
//! does, through the categories), and the encoding (JSON or CBOR). A FEN
//! whose fullmove field is not a number, or that has fields after it, has
//! no key (it is refused, and must not find an answer). The key is made
//! from the text alone, so a position asked again is answered without even
//! reading its FEN; two texts of one position (another en-passant square
//! that no pawn can take, say) are kept apart.
//!
//! Answers are kept within a byte budget (`serve --tb-cache-mb`,
//! `--explorer-cache-mb`; 0 keeps none), split over shards that each forget
//! their oldest answer first; an answer larger than a shard's budget is not
//! kept. Only answers are kept, never errors.

use super::ApiError;
use axum::body::Bytes;
use axum::http::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use serde::Serialize;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};

/// How an answer is encoded, from the request's `Accept`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    Json,
    Cbor,
}

impl Format {
    /// The encoding `Accept` asks for: the supported type with the highest
    /// `q` (`*/*` means JSON), JSON without the header, `None` when it
    /// names neither.
    pub fn negotiate(headers: &HeaderMap) -> Option<Format> {
        let Some(accept) = headers.get(ACCEPT) else { return Some(Format::Json) };
        let accept = accept.to_str().ok()?;
        let mut best: Option<(Format, f32)> = None;
        for item in accept.split(',') {
            let mut parts = item.split(';').map(str::trim);
            let format = match parts.next().unwrap_or("") {
                "application/json" | "*/*" => Format::Json,
                "application/cbor" => Format::Cbor,
                _ => continue,
            };
            let q = parts.find_map(|p| p.strip_prefix("q=")).map_or(1.0, |q| q.parse::<f32>().unwrap_or(0.0));
            if best.map_or(true, |(_, b)| q > b) {
                best = Some((format, q));
            }
        }
        best.map(|(f, _)| f)
    }

    /// `value` encoded.
    pub fn encode<T: Serialize>(self, value: &T) -> Result<Vec<u8>, ApiError> {
        let encoded = match self {
            Format::Json => serde_json::to_vec(value).map_err(|e| e.to_string()),
            Format::Cbor => {
                let mut bytes = Vec::new();
                ciborium::into_writer(value, &mut bytes).map(|()| bytes).map_err(|e| e.to_string())
            }
        };
        encoded.map_err(ApiError::Encoding)
    }

    /// The answer `body` (encoded in this format) with its content type.
    pub fn reply(self, body: impl Into<axum::body::Body>) -> Response {
        let content_type = match self {
            Format::Json => "application/json",
            Format::Cbor => "application/cbor",
        };
        ([(CONTENT_TYPE, HeaderValue::from_static(content_type))], body.into()).into_response()
    }

    /// `value` encoded, with its content type.
    pub fn respond<T: Serialize>(self, value: &T) -> Response {
        match self.encode(value) {
            Ok(body) => self.reply(body),
            Err(e) => e.into_response(),
        }
    }
}

/// Shards of the cache (requests on different shards never wait for
/// each other).
const SHARDS: usize = 16;

/// What an answer is kept by: compared, hashed, and weighed against the
/// budget.
pub trait CacheKey: Clone + Eq + Hash {
    /// Bytes the key holds, counted with its answer's.
    fn bytes(&self) -> usize;

    /// Its shard of the cache.
    fn shard(&self) -> usize {
        let mut h = DefaultHasher::new();
        self.hash(&mut h);
        (h.finish() % SHARDS as u64) as usize
    }
}

/// What a `/standard` answer is kept by.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AnswerKey {
    position: Box<str>,
    format: Format,
}

impl AnswerKey {
    /// The key of the answer to `fen` in `format`, if it may have one.
    pub fn new(fen: &str, format: Format) -> Option<AnswerKey> {
        let mut fields = fen.split([' ', '_']).filter(|f| !f.is_empty());
        let mut position = String::with_capacity(fen.len());
        for field in fields.by_ref().take(5) {
            if !position.is_empty() {
                position.push(' ');
            }
            position.push_str(field);
        }
        let fullmoves_ok = fields.next().map_or(true, |f| f.bytes().all(|b| b.is_ascii_digit()));
        (fullmoves_ok && fields.next().is_none()).then(|| AnswerKey { position: position.into(), format })
    }
}

impl CacheKey for AnswerKey {
    fn bytes(&self) -> usize {
        self.position.len()
    }
}

struct Shard<K> {
    answers: HashMap<K, Bytes>,
    oldest_first: VecDeque<K>,
    bytes: usize,
}

impl<K> Default for Shard<K> {
    fn default() -> Shard<K> {
        Shard { answers: HashMap::new(), oldest_first: VecDeque::new(), bytes: 0 }
    }
}

/// Encoded answers by key, at most a byte budget of them.
pub struct AnswerCache<K> {
    shards: Vec<Mutex<Shard<K>>>,
    shard_budget: usize,
}

impl<K: CacheKey> AnswerCache<K> {
    /// A cache holding at most `budget` bytes of answers (0: none).
    pub fn new(budget: usize) -> AnswerCache<K> {
        AnswerCache { shards: (0..SHARDS).map(|_| Mutex::default()).collect(), shard_budget: budget / SHARDS }
    }

    /// The answer kept for `key`, if any.
    pub fn get(&self, key: &K) -> Option<Bytes> {
        if self.shard_budget == 0 {
            return None;
        }
        self.shards.get(key.shard())?.lock().answers.get(key).cloned()
    }

    /// Keeps `answer` for `key`, forgetting the oldest answers of its shard
    /// as the budget requires.
    pub fn insert(&self, key: K, answer: Bytes) {
        let cost = answer.len() + key.bytes();
        let Some(shard) = self.shards.get(key.shard()) else { return };
        if cost > self.shard_budget {
            return;
        }
        let mut shard = shard.lock();
        while shard.bytes + cost > self.shard_budget {
            let Some(old) = shard.oldest_first.pop_front() else { break };
            if let Some(gone) = shard.answers.remove(&old) {
                shard.bytes -= gone.len() + old.bytes();
            }
        }
        if shard.answers.insert(key.clone(), answer).is_none() {
            shard.oldest_first.push_back(key);
            shard.bytes += cost;
        }
    }

    /// How many answers are kept.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().answers.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(fen: &str) -> AnswerKey {
        AnswerKey::new(fen, Format::Json).unwrap()
    }

    #[test]
    fn the_fullmove_number_is_not_part_of_the_key_but_the_clock_is() {
        assert_eq!(key("8/8/8/8/8/2k5/8/K2R4 w - - 3 10"), key("8/8/8/8/8/2k5/8/K2R4_w_-_-_3_70"));
        assert_eq!(key("8/8/8/8/8/2k5/8/K2R4 w - - 3"), key(" 8/8/8/8/8/2k5/8/K2R4  w - - 3 1 "));
        assert_ne!(key("8/8/8/8/8/2k5/8/K2R4 w - - 3 10"), key("8/8/8/8/8/2k5/8/K2R4 w - - 4 10"));
        let fen = "8/8/8/8/8/2k5/8/K2R4 w - - 3 10";
        assert_ne!(AnswerKey::new(fen, Format::Json), AnswerKey::new(fen, Format::Cbor));
        // What the FEN reader refuses has no key.
        assert_eq!(AnswerKey::new("8/8/8/8/8/2k5/8/K2R4 w - - 3 x", Format::Json), None);
        assert_eq!(AnswerKey::new("8/8/8/8/8/2k5/8/K2R4 w - - 3 1 extra", Format::Json), None);
    }

    #[test]
    fn the_oldest_answers_go_first_when_the_budget_is_spent() {
        let cache = AnswerCache::new(SHARDS * 300);
        let fens: Vec<String> = (1..=60).map(|n| format!("8/8/8/8/8/2k5/8/K2R4 w - - {n} 1")).collect();
        for fen in &fens {
            cache.insert(key(fen), Bytes::from(vec![b'x'; 100]));
        }
        let kept = fens.iter().filter(|f| cache.get(&key(f)).is_some()).count();
        assert!(kept > 0 && kept <= SHARDS * 2, "{kept} kept");
        assert!(cache.get(&key(&fens[59])).is_some(), "the newest answer is kept");
        assert!(cache.shards.iter().all(|s| s.lock().bytes <= 300));
        let off = AnswerCache::new(0);
        off.insert(key(&fens[0]), Bytes::from_static(b"{}"));
        assert_eq!(off.get(&key(&fens[0])), None);
    }
}
