//! One way to read and write the integers of a binary format: [`Reader`],
//! a bounds-checked cursor over a byte slice whose one error is
//! [`Truncated`], and [`Put`] / [`WriteBytes`], which append the same values
//! to a `Vec<u8>` or any [`std::io::Write`].

use thiserror::Error;

/// A read ran past the end of the data: `needed` bytes at `offset`, in data
/// of `len` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("truncated: {needed} bytes needed at offset {offset}, the data ends at offset {len}")]
pub struct Truncated {
    /// Where the read started (from the start of the data).
    pub offset: u64,
    /// How many bytes the read needed.
    pub needed: u64,
    /// The length of the data.
    pub len: u64,
}

/// A bounds-checked cursor over `bytes`. Every read either returns the
/// value and moves past it, or fails with [`Truncated`] and stays put.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// How a file of self-delimiting items (games, for example) decodes one of
/// them: reads it from the cursor, validating as it goes; `index` counts
/// the items before it (for the error).
pub trait Decode {
    type Item;
    type Error;
    fn decode(cur: &mut Reader<'_>, index: u64) -> Result<Self::Item, Self::Error>;
}

/// The items of `bytes`, one after another, each validated by `D`; the
/// iteration stops after the first error, which it yields.
#[derive(Clone, Debug)]
pub struct Items<'a, D> {
    cur: Reader<'a>,
    index: u64,
    failed: bool,
    decode: std::marker::PhantomData<D>,
}

impl<'a, D: Decode> Items<'a, D> {
    pub fn new(bytes: &'a [u8]) -> Items<'a, D> {
        Items { cur: Reader::new(bytes), index: 0, failed: false, decode: std::marker::PhantomData }
    }

    /// Byte offset of the next item.
    pub fn offset(&self) -> u64 {
        self.cur.offset() as u64
    }
}

impl<D: Decode> Iterator for Items<'_, D> {
    type Item = Result<D::Item, D::Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.cur.is_empty() {
            return None;
        }
        let r = D::decode(&mut self.cur, self.index);
        match r {
            Ok(_) => self.index += 1,
            Err(_) => self.failed = true,
        }
        Some(r)
    }
}

macro_rules! read_ints {
    ($($name:ident: $t:ty = $from:ident;)*) => {$(
        #[doc = concat!("A `", stringify!($t), "` (`", stringify!($from), "`).")]
        #[inline]
        pub fn $name(&mut self) -> Result<$t, Truncated> {
            Ok(<$t>::$from(self.array()?))
        }
    )*};
}

impl<'a> Reader<'a> {
    /// A cursor at the start of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }

    /// A cursor at `offset` into `bytes` (offsets are still counted from
    /// the start of `bytes`); past the end, every read is [`Truncated`].
    pub fn at(bytes: &'a [u8], offset: usize) -> Reader<'a> {
        Reader { bytes, pos: offset }
    }

    /// Where the next read starts.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Bytes left to read.
    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or_default()
    }

    /// The error a read of `needed` bytes here gives.
    pub fn truncated(&self, needed: usize) -> Truncated {
        Truncated { offset: self.pos as u64, needed: needed as u64, len: self.bytes.len() as u64 }
    }

    /// The next `n` bytes.
    #[inline]
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], Truncated> {
        let b = self.pos.checked_add(n).and_then(|end| self.bytes.get(self.pos..end)).ok_or(self.truncated(n))?;
        self.pos += n;
        Ok(b)
    }

    /// The next `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], Truncated> {
        let mut a = [0u8; N];
        a.copy_from_slice(self.bytes(N)?);
        Ok(a)
    }

    /// Moves past `n` bytes (which must be there).
    pub fn skip(&mut self, n: usize) -> Result<(), Truncated> {
        self.bytes(n).map(|_| ())
    }

    /// [`Reader::skip`] of a 64-bit length: the same answer on every
    /// target (a length past a 32-bit `usize` is truncation, named in full).
    pub fn skip_u64(&mut self, n: u64) -> Result<(), Truncated> {
        match usize::try_from(n) {
            Ok(n) => self.skip(n),
            Err(_) => Err(Truncated { offset: self.pos as u64, needed: n, len: self.bytes.len() as u64 }),
        }
    }

    /// An unsigned LEB128 varint of at most 10 bytes: 7 bits a byte, low
    /// groups first, the high bit set on every byte but the last. A value
    /// that does not end within 10 bytes, or does not fit in 64 bits, reads
    /// as [`Truncated`] at its start with the bytes it would have needed.
    #[inline]
    pub fn varint(&mut self) -> Result<u64, Truncated> {
        // One byte: most of them.
        if let Some(&b) = self.bytes.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        let (start, mut value) = (self.pos, 0u64);
        for i in 0..10 {
            let Some(&b) = self.bytes.get(self.pos + i) else {
                return Err(Truncated { offset: start as u64, needed: i as u64 + 1, len: self.bytes.len() as u64 });
            };
            let group = u64::from(b & 0x7f);
            if i == 9 && group > 1 {
                break;
            }
            value |= group << (7 * i);
            if b & 0x80 == 0 {
                self.pos += i + 1;
                return Ok(value);
            }
        }
        Err(Truncated { offset: start as u64, needed: 11, len: self.bytes.len() as u64 })
    }

    read_ints! {
        u8: u8 = from_le_bytes;
        i8: i8 = from_le_bytes;
        u16_le: u16 = from_le_bytes;
        i16_le: i16 = from_le_bytes;
        u32_le: u32 = from_le_bytes;
        i32_le: i32 = from_le_bytes;
        u64_le: u64 = from_le_bytes;
        i64_le: i64 = from_le_bytes;
        f32_le: f32 = from_le_bytes;
        u16_be: u16 = from_be_bytes;
        u32_be: u32 = from_be_bytes;
        u64_be: u64 = from_be_bytes;
    }
}

macro_rules! put_ints {
    ($($name:ident: $t:ty = $to:ident;)*) => {$(
        #[doc = concat!("Appends a `", stringify!($t), "` (`", stringify!($to), "`).")]
        #[inline]
        fn $name(&mut self, v: $t) {
            self.put(&v.$to());
        }
    )*};
}

macro_rules! write_ints {
    ($($name:ident: $t:ty = $to:ident;)*) => {$(
        #[doc = concat!("Writes a `", stringify!($t), "` (`", stringify!($to), "`).")]
        #[inline]
        fn $name(&mut self, v: $t) -> std::io::Result<()> {
            self.write_all(&v.$to())
        }
    )*};
}

/// Appending values to a growing buffer, which cannot fail.
pub trait Put {
    /// Appends `bytes`.
    fn put(&mut self, bytes: &[u8]);

    /// Appends `v` as an unsigned LEB128 varint ([`Reader::varint`]).
    fn put_varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.put(&[(v as u8 & 0x7f) | 0x80]);
            v >>= 7;
        }
        self.put(&[v as u8]);
    }

    put_ints! {
        put_u8: u8 = to_le_bytes;
        put_i8: i8 = to_le_bytes;
        put_u16_le: u16 = to_le_bytes;
        put_i16_le: i16 = to_le_bytes;
        put_u32_le: u32 = to_le_bytes;
        put_i32_le: i32 = to_le_bytes;
        put_u64_le: u64 = to_le_bytes;
        put_i64_le: i64 = to_le_bytes;
        put_f32_le: f32 = to_le_bytes;
        put_u16_be: u16 = to_be_bytes;
        put_u32_be: u32 = to_be_bytes;
        put_u64_be: u64 = to_be_bytes;
    }
}

impl Put for Vec<u8> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A fixed-size record filled through [`Put`] (entries of a known length):
/// bytes past `N` are dropped, bytes not written stay 0.
#[derive(Clone, Debug)]
pub struct Fixed<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Default for Fixed<N> {
    fn default() -> Fixed<N> {
        Fixed::new()
    }
}

impl<const N: usize> Fixed<N> {
    pub fn new() -> Fixed<N> {
        Fixed { bytes: [0; N], len: 0 }
    }

    /// Leaves zeros up to `offset` (no effect at or past it).
    pub fn skip_to(&mut self, offset: usize) {
        self.len = self.len.max(offset);
    }

    /// The record (zero-padded if less than `N` bytes were put).
    pub fn into_array(self) -> [u8; N] {
        debug_assert!(self.len <= N, "{} bytes put into a {N}-byte record", self.len);
        self.bytes
    }
}

impl<const N: usize> Put for Fixed<N> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        let end = self.len.saturating_add(bytes.len());
        if let (Some(dst), Some(src)) = (self.bytes.get_mut(self.len..end), bytes.get(..)) {
            dst.copy_from_slice(src);
        }
        self.len = end;
    }
}

/// The same values written to any [`std::io::Write`].
pub trait WriteBytes: std::io::Write {
    write_ints! {
        write_u8: u8 = to_le_bytes;
        write_i8: i8 = to_le_bytes;
        write_u16_le: u16 = to_le_bytes;
        write_i16_le: i16 = to_le_bytes;
        write_u32_le: u32 = to_le_bytes;
        write_i32_le: i32 = to_le_bytes;
        write_u64_le: u64 = to_le_bytes;
        write_i64_le: i64 = to_le_bytes;
        write_f32_le: f32 = to_le_bytes;
        write_u16_be: u16 = to_be_bytes;
        write_u32_be: u32 = to_be_bytes;
        write_u64_be: u64 = to_be_bytes;
    }
}

impl<W: std::io::Write + ?Sized> WriteBytes for W {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_refuse_overlong_or_cut_values() {
        let values = [0u64, 1, 127, 128, 300, 16_383, 16_384, u64::from(u32::MAX), u64::MAX - 1, u64::MAX];
        let mut bytes = Vec::new();
        for v in values {
            bytes.put_varint(v);
        }
        assert_eq!(&bytes[..4], &[0, 1, 127, 0x80]);
        let mut r = Reader::new(&bytes);
        assert_eq!(values.map(|_| r.varint().unwrap()), values);
        assert!(r.is_empty());
        // Cut short: an error at the value's start, the cursor unmoved.
        let mut cut = Reader::new(&[0x80, 0x80]);
        assert_eq!(cut.varint(), Err(Truncated { offset: 0, needed: 3, len: 2 }));
        assert_eq!(cut.offset(), 0);
        // Eleven bytes, or a tenth byte beyond bit 63: refused.
        assert!(Reader::new(&[0xff; 11]).varint().is_err());
        assert!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]).varint().is_err());
    }

    #[test]
    fn reader_reports_offset_and_needed_bytes_on_truncation() {
        let mut r = Reader::new(&[1, 2, 3, 4, 5, 6]);
        assert_eq!(r.u16_le(), Ok(0x0201));
        assert_eq!(r.u64_le(), Err(Truncated { offset: 2, needed: 8, len: 6 }));
        assert_eq!(r.offset(), 2, "a failed read does not move the cursor");
        assert_eq!(r.bytes(5), Err(Truncated { offset: 2, needed: 5, len: 6 }));
        assert_eq!(r.u32_be(), Ok(0x0304_0506));
        assert!(r.is_empty());
        assert_eq!(r.u8(), Err(Truncated { offset: 6, needed: 1, len: 6 }));
        let msg = Reader::at(&[0; 3], 1).u32_le().unwrap_err().to_string();
        assert!(msg.contains("offset 1") && msg.contains("4 bytes") && msg.contains('3'), "{msg}");
    }

    #[test]
    fn reader_at_an_offset_past_the_end_reads_nothing() {
        let mut r = Reader::at(&[1, 2], 5);
        assert_eq!(r.remaining(), 0);
        assert_eq!(r.rest(), &[] as &[u8]);
        assert_eq!(r.u8(), Err(Truncated { offset: 5, needed: 1, len: 2 }));
        assert_eq!(
            Reader::new(&[1]).bytes(usize::MAX),
            Err(Truncated { offset: 0, needed: usize::MAX as u64, len: 1 })
        );
    }

    #[test]
    fn little_and_big_endian_round_trip() {
        let mut v = Vec::new();
        v.put_u16_le(0x1234);
        v.put_u16_be(0x1234);
        v.put_u32_le(0xdead_beef);
        v.put_u32_be(0xdead_beef);
        v.put_u64_le(0x0102_0304_0506_0708);
        v.put_u64_be(0x0102_0304_0506_0708);
        assert_eq!(&v[..4], &[0x34, 0x12, 0x12, 0x34]);
        assert_eq!(&v[4..12], &[0xef, 0xbe, 0xad, 0xde, 0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(&v[12..20], &[8, 7, 6, 5, 4, 3, 2, 1]);
        let mut r = Reader::new(&v);
        assert_eq!(r.u16_le(), Ok(0x1234));
        assert_eq!(r.u16_be(), Ok(0x1234));
        assert_eq!(r.u32_le(), Ok(0xdead_beef));
        assert_eq!(r.u32_be(), Ok(0xdead_beef));
        assert_eq!(r.u64_le(), Ok(0x0102_0304_0506_0708));
        assert_eq!(r.u64_be(), Ok(0x0102_0304_0506_0708));
        assert!(r.is_empty());
    }

    #[test]
    fn writer_and_vec_put_write_what_the_reader_reads() {
        let mut w = std::io::Cursor::new(Vec::new());
        w.write_u8(7).unwrap();
        w.write_i8(-2).unwrap();
        w.write_i16_le(-300).unwrap();
        w.write_i32_le(-70_000).unwrap();
        w.write_i64_le(-1).unwrap();
        w.write_f32_le(1.5).unwrap();
        w.write_u64_be(42).unwrap();
        let bytes = w.into_inner();
        let mut v = Vec::new();
        v.put_u8(7);
        v.put_i8(-2);
        v.put_i16_le(-300);
        v.put_i32_le(-70_000);
        v.put_i64_le(-1);
        v.put_f32_le(1.5);
        v.put_u64_be(42);
        assert_eq!(bytes, v);
        let mut r = Reader::new(&bytes);
        assert_eq!((r.u8(), r.i8(), r.i16_le(), r.i32_le()), (Ok(7), Ok(-2), Ok(-300), Ok(-70_000)));
        assert_eq!((r.i64_le(), r.f32_le(), r.u64_be()), (Ok(-1), Ok(1.5), Ok(42)));
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn fixed_records_are_zero_padded() {
        let mut f = Fixed::<6>::new();
        f.put_u16_be(0x0102);
        f.put_u8(3);
        f.skip_to(4);
        f.put_u8(5);
        assert_eq!(f.into_array(), [1, 2, 3, 0, 5, 0]);
    }

    #[test]
    fn arrays_skips_and_rest_move_the_cursor() {
        let data = [9u8, 8, 7, 6, 5];
        let mut r = Reader::new(&data);
        assert_eq!(r.array::<2>(), Ok([9, 8]));
        r.skip(1).unwrap();
        assert_eq!((r.offset(), r.remaining(), r.rest()), (3, 2, &data[3..]));
        assert_eq!(r.skip(3), Err(Truncated { offset: 3, needed: 3, len: 5 }));
    }
}
