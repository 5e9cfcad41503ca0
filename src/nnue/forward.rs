//! The quantised forward pass.
//!
//! With `a` the side to move's accumulator half, `t` the other half, `w` the
//! output weights (`[2N]`, side to move's half first) and `v(x) =
//! clamp(x, 0, QA)`:
//!
//! ```text
//! S    = Σᵢ v(aᵢ)²·wᵢ + Σᵢ v(tᵢ)²·w_{N+i}
//! eval = (S / QA + b_out) · SCALE / (QA · QB)       (integer division, truncating)
//! ```
//!
//! saturated to the `i32` range. This is the float network's
//! `(Σ clamp(acc, 0, 1)²·w + b_out)·SCALE` with every factor scaled (the
//! accumulator by QA, `w` by QB, `b_out` by QA·QB), so the two agree up to
//! the weights' rounding and the two truncations.
//!
//! Integer widths (the limits are the reader's invariants: `QA ≤ 255`,
//! `|wᵢ| ≤ ⌊32767 / QA⌋`, `N ≤ 4096`):
//!
//! | value | bound | type |
//! | --- | --- | --- |
//! | `v(x)` | `0..=QA ≤ 255` | i16 |
//! | `v·w` | `≤ 32767` (by the weight limit) | i16, exact |
//! | `(v·w)·v` | `≤ 32767 · 255 = 8 355 585 < 2²³` | i32 |
//! | partial sum of a block of 256 terms | `≤ 2 139 029 760 < 2³¹ − 1` | i32 |
//! | `S` (2N ≤ 8192 terms) | `≤ 6.9·10¹⁰ < 2³⁷` | i64 |
//! | `S / QA + b_out` | `< 2²⁸ + 2³¹ < 2³²` | i64 |
//! | `· SCALE` (`< 2¹⁶`) | `< 2⁴⁸` | i64 |
//!
//! Two kernels compute `S`, with the same blocks and therefore the same
//! result: a portable one over plain slices ([`evaluate_scalar`]), and, on
//! x86-64 CPUs with AVX2 (detected at run time; at compile time with
//! `-C target-cpu=x86-64-v3`), one with `std::arch` intrinsics: 16 units per
//! step, `vpmullw` for `v·w` and `vpmaddwd` for `(v·w)·v` summed in pairs
//! into `i32` lanes. The compiler does not find `vpmaddwd` in the portable
//! loop (it widens to `i32` and multiplies with `vpmulld`), which is why the
//! explicit kernel exists; `make nnue-bench` prints both.

use super::{Accumulator, Network};
use crate::types::Color;

/// Terms summed in `i32` before widening (see the module doc's table).
const BLOCK: usize = 256;

/// `Σ v(aᵢ)²·wᵢ` over one half, exactly (requires `|v·w| ≤ 32767`).
pub(super) fn screlu_dot_scalar(acc: &[i16], weights: &[i16], qa: i16) -> i64 {
    let mut total = 0i64;
    for (a_block, w_block) in acc.chunks(BLOCK).zip(weights.chunks(BLOCK)) {
        let mut partial = 0i32;
        for (&a, &w) in a_block.iter().zip(w_block) {
            let v = a.clamp(0, qa);
            partial += i32::from(v.wrapping_mul(w)) * i32::from(v);
        }
        total += i64::from(partial);
    }
    total
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use super::BLOCK;
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_max_epi16, _mm256_min_epi16,
        _mm256_mullo_epi16, _mm256_set1_epi16, _mm256_setzero_si256, _mm256_storeu_si256,
    };

    /// [`super::screlu_dot_scalar`] with AVX2: the same blocks of 256, each
    /// summed in eight `i32` lanes (32 terms a lane, `< 2²⁹`), then in `i64`.
    /// `N` is the length as a constant, so that the compiler unrolls the
    /// loop for it; 0 takes the slices' length.
    #[target_feature(enable = "avx2")]
    pub(in crate::nnue) fn screlu_dot<const N: usize>(acc: &[i16], weights: &[i16], qa: i16) -> i64 {
        let (acc, weights) = if N == 0 { (acc, weights) } else { (&acc[..N], &weights[..N]) };
        let (zero, max) = (_mm256_setzero_si256(), _mm256_set1_epi16(qa));
        let load = |chunk: &[i16]| -> __m256i {
            // SAFETY: `chunk` comes from `chunks_exact(16)`: 16 `i16`, the
            // 32 bytes an unaligned 256-bit load reads.
            unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) }
        };
        let mut total = 0i64;
        for (a_block, w_block) in acc.chunks(BLOCK).zip(weights.chunks(BLOCK)) {
            let (a_chunks, w_chunks) = (a_block.chunks_exact(16), w_block.chunks_exact(16));
            total += super::screlu_dot_scalar(a_chunks.remainder(), w_chunks.remainder(), qa);
            let mut sum = zero;
            for (a, w) in a_chunks.zip(w_chunks) {
                let v = _mm256_min_epi16(_mm256_max_epi16(load(a), zero), max);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_mullo_epi16(v, load(w)), v));
            }
            let mut lanes = [0i32; 8];
            // SAFETY: `lanes` is 32 bytes, the width of an unaligned 256-bit store.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sum) };
            total += lanes.iter().map(|&l| i64::from(l)).sum::<i64>();
        }
        total
    }

    /// [`screlu_dot`] unrolled for the hidden sizes networks use (a fixed
    /// length only when both slices have it), else over the slices' length.
    #[target_feature(enable = "avx2")]
    pub(in crate::nnue) fn screlu_dot_sized(acc: &[i16], weights: &[i16], qa: i16) -> i64 {
        match (acc.len(), weights.len()) {
            (32, 32) => screlu_dot::<32>(acc, weights, qa),
            (64, 64) => screlu_dot::<64>(acc, weights, qa),
            (128, 128) => screlu_dot::<128>(acc, weights, qa),
            (256, 256) => screlu_dot::<256>(acc, weights, qa),
            _ => screlu_dot::<0>(acc, weights, qa),
        }
    }
}

/// The kernel for this CPU.
#[inline]
fn screlu_dot(acc: &[i16], weights: &[i16], qa: i16) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2::screlu_dot_sized(acc, weights, qa) };
    }
    screlu_dot_scalar(acc, weights, qa)
}

/// The formula of the module doc with the kernel `dot`.
#[inline]
fn output(acc: &Accumulator, side_to_move: Color, net: &Network, dot: impl Fn(&[i16], &[i16], i16) -> i64) -> i32 {
    debug_assert_eq!(acc.hidden(), net.hidden(), "accumulator built for another network");
    let q = net.quantisation();
    let qa = i64::from(q.qa);
    // QA ≤ 255 is a network invariant, so the conversion never saturates.
    let qa16 = i16::try_from(q.qa).unwrap_or(i16::MAX);
    let (w_us, w_them) = net.output_weights().split_at(net.hidden());
    let sum = dot(acc.perspective(side_to_move), w_us, qa16) + dot(acc.perspective(!side_to_move), w_them, qa16);
    let y = sum / qa + i64::from(net.output_bias());
    let cp = y * i64::from(q.scale) / (qa * i64::from(q.qb));
    cp.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// The score in centipawns for `side_to_move` of the position whose
/// accumulator is `acc` (formula in the module doc), with the fastest kernel
/// the CPU has. `acc` must have been computed with `net`.
pub fn evaluate(acc: &Accumulator, side_to_move: Color, net: &Network) -> i32 {
    output(acc, side_to_move, net, screlu_dot)
}

/// [`evaluate`] with the portable kernel only (same result).
pub fn evaluate_scalar(acc: &Accumulator, side_to_move: Color, net: &Network) -> i32 {
    output(acc, side_to_move, net, screlu_dot_scalar)
}
