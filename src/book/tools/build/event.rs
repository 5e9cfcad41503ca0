//! The counting event of `book build` and its two encodings: one counted
//! fact (a position's key and a move, or a YACB visit), held in memory as
//! an [`Event`], and on disk or in a held batch (both [`crate::spill`]'s)
//! as 12 or 9 bytes ([`Layout`]).
//!
//! The events go through the one spill-and-sort of this program
//! ([`crate::spill`]): [`Layout`] is their [`Encoding`], and [`Buckets`],
//! [`Spilled`] and [`Grouped`] are the spill types holding them.
//!
//! A full event (12 bytes, little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | position key (Polyglot or engine) |
//! | 8 | 2 | move (Polyglot or engine move; [`HEAD`], 0xFFFF: a YACB visit) |
//! | 10 | 2 | `info`: bits 0–12 the game's mean rating (0: unrated), bits 13–14 points 0, 1 or 2 (for the mover; for white in a visit), bit 15 white moved |
//!
//! A compact event (9 bytes) is one little-endian 72-bit number, for
//! events with no rating and a move below 0x8000 (Polyglot counting's):
//!
//! | bits | field |
//! |---|---|
//! | 0–51 | the key's 52 bits outside its bucket (the bucket's 12 come from where the event is stored): the bits above it, then the bits below it ([`squeeze`]) |
//! | 52–66 | Polyglot move |
//! | 67–68 | points 0, 1 or 2 (for the mover) |
//! | 69 | white moved |
//! | 70–71 | 0 |
//!
//! Buckets are [`crate::spill`]'s: at level `L` a key's bucket is its 12
//! bits below the top `12·L` ([`bucket_of`]).
//!
//! Decoding checks what it can: points at most 2, spare bits clear, and
//! (full events) the key in the bucket it was stored under.

use crate::spill::Encoding;
pub use crate::spill::{bucket_of, BUCKETS, BUCKET_BITS, MAX_LEVEL};

/// The events held by bucket, in a [`Layout`].
pub type Buckets = crate::spill::Buckets<Layout>;
/// The events of a pass, read back by bucket.
pub type Spilled = crate::spill::Spilled<Layout>;
/// A batch's events grouped by level-0 bucket.
pub type Grouped = crate::spill::Grouped<Layout>;

/// The move field of a YACB visit (no Polyglot or engine move is 0xFFFF).
pub const HEAD: u16 = 0xFFFF;
/// Key bits outside a bucket.
const REST_BITS: u32 = 64 - BUCKET_BITS;

/// What the events count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counting {
    /// (Polyglot key, Polyglot move) pairs.
    Polyglot,
    /// Engine-key positions and their engine moves.
    Yacb,
}

impl Counting {
    /// How its events are held and spilled: Polyglot counting's have no
    /// rating and 15-bit moves, so they pack into 9 bytes.
    pub fn layout(self) -> Layout {
        match self {
            Counting::Polyglot => Layout::Compact,
            Counting::Yacb => Layout::Full,
        }
    }
}

/// One counted fact, 12 bytes: the position's key (in two halves, so that
/// events pack without padding), the move ([`HEAD`] for a YACB visit) and
/// `info` (see the module's table). Its place in the input is its place in
/// the held batches and spill files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Event {
    key_lo: u32,
    key_hi: u32,
    pub mv: u16,
    info: u16,
}

impl Event {
    /// Ratings are capped here (13 bits).
    pub const MAX_RATING: u16 = 0x1FFF;

    /// An event; `points` is 0, 1 or 2.
    #[inline]
    pub fn new(key: u64, mv: u16, rating: u16, points: u8, white: bool) -> Event {
        debug_assert!(points <= 2, "points {points}");
        let info = rating.min(Self::MAX_RATING) | (points as u16 & 3) << 13 | (white as u16) << 15;
        Event::unchecked(key, mv, info)
    }

    #[inline]
    pub fn key(&self) -> u64 {
        (self.key_hi as u64) << 32 | self.key_lo as u64
    }

    #[inline]
    pub fn rating(&self) -> u16 {
        self.info & Self::MAX_RATING
    }

    #[inline]
    pub fn points(&self) -> u8 {
        (self.info >> 13 & 3) as u8
    }

    #[inline]
    pub fn white(&self) -> bool {
        self.info >> 15 != 0
    }

    /// An event from its key, move and packed `info`; `None` when the
    /// points are out of range.
    #[inline]
    fn from_parts(key: u64, mv: u16, info: u16) -> Option<Event> {
        let e = Event::unchecked(key, mv, info);
        (e.points() <= 2).then_some(e)
    }

    /// An event from its key, move and packed `info`, unchecked (for
    /// events this program packed itself).
    #[inline]
    fn unchecked(key: u64, mv: u16, info: u16) -> Event {
        Event { key_lo: key as u32, key_hi: (key >> 32) as u32, mv, info }
    }
}

/// How events are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// 12 bytes: any event.
    Full,
    /// 9 bytes: events with no rating and a move below 0x8000 (Polyglot
    /// counting's), a quarter less to write and read back.
    Compact,
}

impl Layout {
    /// Bytes an event takes.
    #[inline]
    pub const fn event_len(self) -> usize {
        match self {
            Layout::Full => 12,
            Layout::Compact => 9,
        }
    }
}

impl Encoding for Layout {
    type Item = Event;

    #[inline]
    fn item_len(self) -> usize {
        self.event_len()
    }

    #[inline]
    fn key(e: &Event) -> u64 {
        e.key()
    }

    #[inline]
    fn encode(self, e: &Event, level: u8, out: &mut [u8]) {
        match self {
            Layout::Full => encode_full(e, out),
            Layout::Compact => encode_compact(e, level, out),
        }
    }

    /// Encodes `events`, all of one bucket of `level`, onto `out` (the
    /// layout chosen once, not per event).
    fn append(self, events: &[Event], level: u8, out: &mut Vec<u8>) {
        let len = self.event_len();
        let at = out.len();
        out.resize(at + events.len() * len, 0);
        let slots = out[at..].chunks_exact_mut(len);
        match self {
            Layout::Full => events.iter().zip(slots).for_each(|(e, b)| encode_full(e, b)),
            Layout::Compact => events.iter().zip(slots).for_each(|(e, b)| encode_compact(e, level, b)),
        }
    }

    fn decode(self, bytes: &[u8], bucket: usize, level: u8, out: &mut Vec<Event>) -> Result<(), usize> {
        let len = self.event_len();
        out.reserve(bytes.len() / len);
        match self {
            Layout::Full => {
                for (i, b) in bytes.chunks_exact(len).enumerate() {
                    out.push(decode_full(b).filter(|e| bucket_of(e.key(), level) == bucket).ok_or(i)?);
                }
            }
            Layout::Compact => {
                for (i, b) in bytes.chunks_exact(len).enumerate() {
                    out.push(decode_compact(b, bucket, level).ok_or(i)?);
                }
            }
        }
        Ok(())
    }

    /// The spread of a held batch with the layout chosen once and the
    /// event length a constant (the hot loop of the workers).
    fn spread(self, events: &[Event], at: &mut [u32; BUCKETS], out: &mut [u8]) {
        fn each<const LEN: usize>(
            events: &[Event],
            at: &mut [u32; BUCKETS],
            out: &mut [u8],
            put: impl Fn(&Event, &mut [u8]),
        ) {
            for e in events {
                let b = bucket_of(e.key(), 0);
                let i = at[b] as usize * LEN;
                put(e, &mut out[i..i + LEN]);
                at[b] += 1;
            }
        }
        match self {
            Layout::Full => each::<12>(events, at, out, encode_full),
            Layout::Compact => each::<9>(events, at, out, |e, slot| encode_compact(e, 0, slot)),
        }
    }

    /// Compact events are held packed: a quarter less to spread and keep.
    fn holds_encoded(self) -> bool {
        self == Layout::Compact
    }

    fn decode_held(self, bytes: &[u8], bucket: usize, out: &mut Vec<Event>) {
        match self {
            Layout::Compact => unpack_compact(bytes, bucket, out),
            Layout::Full => {
                let _ = self.decode(bytes, bucket, 0, out);
            }
        }
    }
}

#[inline]
fn encode_full(e: &Event, out: &mut [u8]) {
    out[0..8].copy_from_slice(&e.key().to_le_bytes());
    out[8..10].copy_from_slice(&e.mv.to_le_bytes());
    out[10..12].copy_from_slice(&e.info.to_le_bytes());
}

/// One full event, or `None` when a field is out of range.
#[inline]
fn decode_full(b: &[u8]) -> Option<Event> {
    let key = u64::from_le_bytes(b.get(0..8)?.try_into().ok()?);
    let mv = u16::from_le_bytes(b.get(8..10)?.try_into().ok()?);
    let info = u16::from_le_bytes(b.get(10..12)?.try_into().ok()?);
    Event::from_parts(key, mv, info)
}

/// The key bits below the bucket of `level` (the bits above it are its top `12·level`).
#[inline]
fn below_bits(level: u8) -> u32 {
    REST_BITS - BUCKET_BITS * level as u32
}

/// The 52 bits of `key` outside its bucket of `level`, the bits above
/// the bucket over the bits below it.
#[inline]
fn squeeze(key: u64, level: u8) -> u64 {
    let below = below_bits(level);
    let above = ((key as u128) >> (below + BUCKET_BITS)) as u64;
    above << below | key & ((1u64 << below) - 1)
}

/// The key whose bits outside `bucket` of `level` are `rest` ([`squeeze`]'s inverse).
#[inline]
fn unsqueeze(rest: u64, bucket: usize, level: u8) -> u64 {
    let below = below_bits(level);
    let above = (((rest >> below) as u128) << (below + BUCKET_BITS)) as u64;
    above | (bucket as u64) << below | rest & ((1u64 << below) - 1)
}

/// A compact event (see the module's doc) of `level`.
#[inline]
fn encode_compact(e: &Event, level: u8, out: &mut [u8]) {
    debug_assert!(e.rating() == 0 && e.mv < 0x8000, "not a compact event: {e:?}");
    let v = squeeze(e.key(), level) as u128 | (e.mv as u128 & 0x7FFF) << 52 | ((e.info >> 13) as u128) << 67;
    out[..9].copy_from_slice(&v.to_le_bytes()[..9]);
}

/// The 72-bit number of a compact event.
#[inline]
fn compact_value(b: &[u8]) -> u128 {
    let mut bytes = [0u8; 16];
    bytes[..9].copy_from_slice(&b[..9]);
    u128::from_le_bytes(bytes)
}

/// The key, move and `info` of a compact event's number (its spare bits
/// and points unchecked).
#[inline]
fn compact_parts(v: u128, bucket: usize, level: u8) -> (u64, u16, u16) {
    let key = unsqueeze(v as u64 & ((1u64 << REST_BITS) - 1), bucket, level);
    (key, (v >> 52) as u16 & 0x7FFF, ((v >> 67) as u16 & 7) << 13)
}

/// A compact event of `bucket` of `level`, or `None` when a field is out of range.
#[inline]
fn decode_compact(b: &[u8], bucket: usize, level: u8) -> Option<Event> {
    let v = compact_value(b.get(..9)?);
    if v >> 70 != 0 {
        return None;
    }
    let (key, mv, info) = compact_parts(v, bucket, level);
    Event::from_parts(key, mv, info)
}

/// Unpacks compact events of `bucket` of level 0 that this program
/// packed into a held batch (its own bytes, unchecked), onto `out`.
fn unpack_compact(packed: &[u8], bucket: usize, out: &mut Vec<Event>) {
    out.reserve(packed.len() / Layout::Compact.event_len());
    for b in packed.chunks_exact(Layout::Compact.event_len()) {
        let (key, mv, info) = compact_parts(compact_value(b), bucket, 0);
        out.push(Event::unchecked(key, mv, info));
    }
}

/// Events of `positions` keys spread over the key space, each key met
/// `n` times with moves `0..moves`, in a scrambled order (for tests).
#[cfg(test)]
pub fn scrambled(positions: u64, n: u64, moves: u64) -> Vec<Event> {
    let mut out = Vec::new();
    for i in 0..positions * n {
        let k = (i * 7919) % positions;
        let key = k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        out.push(Event::new(key, (i % moves) as u16, 0, (i % 3) as u8, k % 2 == 0));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_round_trip_every_key_bit_at_every_level() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for level in 0..=MAX_LEVEL {
            for i in 0..3000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let key = [x, !x & 0xFFF0_0000_0000_000F, x | 0xFFFF_0000_0000_FFFF][(i % 3) as usize];
                let e = Event::new(key, (x >> 40) as u16 & 0x7FFF, 0, (i % 3) as u8, i % 2 == 0);
                let bucket = bucket_of(key, level);
                for layout in [Layout::Full, Layout::Compact] {
                    let mut bytes = Vec::new();
                    layout.append(&[e], level, &mut bytes);
                    assert_eq!(bytes.len(), layout.event_len());
                    let mut out = Vec::new();
                    layout.decode(&bytes, bucket, level, &mut out).unwrap();
                    assert_eq!(out, [e], "{layout:?}, level {level}");
                }
            }
        }
    }

    #[test]
    fn packed_events_unpack_as_they_were() {
        let e = Event::new(0xABCD_EF01_2345_6789, 0x7ABC, 0, 2, true);
        let mut b = [0u8; 9];
        Layout::Compact.encode(&e, 0, &mut b);
        let mut out = Vec::new();
        unpack_compact(&b, bucket_of(e.key(), 0), &mut out);
        assert_eq!(out, [e]);
    }

    #[test]
    fn decoding_rejects_bad_points_spare_bits_and_a_key_in_the_wrong_bucket() {
        let e = Event::new(7 << 52 | 5, 3, 2000, 1, true);
        let mut full = Vec::new();
        Layout::Full.append(&[e, e], 0, &mut full);
        let mut out = Vec::new();
        assert_eq!(Layout::Full.decode(&full, 6, 0, &mut out), Err(0), "wrong bucket");
        full[12 + 11] |= 0x60; // the second event's points: 3
        assert_eq!(Layout::Full.decode(&full, 7, 0, &mut out), Err(1));
        let c = Event::new(7 << 52 | 5, 3, 0, 1, true);
        for spare in [0x18u8, 0x40, 0x80] {
            let mut compact = Vec::new();
            Layout::Compact.append(&[c], 0, &mut compact);
            compact[8] |= spare;
            assert_eq!(Layout::Compact.decode(&compact, 7, 0, &mut Vec::new()), Err(0), "bits {spare:#x}");
        }
    }
}
