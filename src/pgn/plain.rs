//! Which bytes of PGN text only extend a token ([`PLAIN`]), and where the
//! next bytes that do not are ([`stops`]): the tokenizer's inner loop
//! over movetext, a 64-byte mask at a time.

/// ASCII bytes that are neither whitespace nor a delimiter, nor `%` or
/// `[`: inside a token they only extend it.
pub(super) static PLAIN: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0x21;
    while c < 0x7F {
        t[c] = !matches!(c as u8, b'{' | b';' | b'(' | b')' | b'[' | b'%');
        c += 1;
    }
    t
};

/// Bit `k` set when byte `at + k` of `bytes` is not [`PLAIN`] or is past
/// the end. Sixteen bytes a step with SSE2 (part of every x86-64), byte
/// by byte elsewhere and in the last 64 bytes.
#[inline]
pub(super) fn stops(bytes: &[u8], at: usize) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if let Some(block) = bytes.get(at..at + 64) {
        return block.chunks_exact(16).enumerate().fold(0, |mask, (k, chunk)| mask | sse2::stops16(chunk) << (16 * k));
    }
    stops_by_bytes(bytes, at)
}

/// [`stops`], one byte at a time.
fn stops_by_bytes(bytes: &[u8], at: usize) -> u64 {
    (0..64).filter(|&k| !bytes.get(at + k).is_some_and(|&c| PLAIN[usize::from(c)])).fold(0, |m, k| m | 1 << k)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };

    /// The stops of 16 bytes (`chunk` holds at least 16).
    #[inline]
    pub(super) fn stops16(chunk: &[u8]) -> u64 {
        assert!(chunk.len() >= 16);
        // SAFETY: SSE2 is enabled on every x86-64 target; the unaligned
        // load reads the 16 bytes of `chunk` checked above.
        let stop = unsafe {
            let x = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            // Below 0x21 as signed bytes: controls, the space, and every
            // byte from 0x80 up.
            let mut stop = _mm_cmplt_epi8(x, _mm_set1_epi8(0x21));
            for c in [0x7F, b'{', b';', b'(', b')', b'[', b'%'] {
                stop = _mm_or_si128(stop, _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8)));
            }
            _mm_movemask_epi8(stop)
        };
        u64::from(stop as u16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mask agrees with the table for every byte value at every place
    /// of a block, and past the end of the text.
    #[test]
    fn stops_mark_exactly_the_bytes_that_are_not_plain() {
        for c in 0..=255u8 {
            for at in 0..64 {
                let mut text = vec![b'e'; 80];
                text[at] = c;
                let want = if PLAIN[usize::from(c)] { 0 } else { 1 << at };
                assert_eq!(stops(&text, 0), want, "byte {c:#x} at {at}");
                assert_eq!(stops_by_bytes(&text, 0), want);
            }
        }
        let text = b"1. e4 e5 2. Nf3 {x} 1-0";
        assert_eq!(stops(text, 0), stops_by_bytes(text, 0));
        assert_eq!(stops(text, 0) & 0x1FF, 0b1_0010_0100, "the spaces after `1.`, `e4` and `e5`");
        assert_eq!(stops(text, 20), !0 << 3, "the end of the text stops");
    }
}
