// Slow, obviously-correct attack generation and the magic-number search.
//
// This file is `include!`d by `build.rs` (which emits the tables the engine
// uses) and by the `attacks` unit tests (which check those tables against it),
// so it depends on nothing but `core`/`std` and works on plain `u64`s.

/// Directions as (file delta, rank delta).
pub const ROOK_DIRS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
pub const BISHOP_DIRS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// The squares from `sq` (excluded) in direction `(df, dr)` to the board's edge.
fn ray(sq: usize, (df, dr): (i8, i8)) -> impl Iterator<Item = usize> {
    let (f0, r0) = ((sq % 8) as i8, (sq / 8) as i8);
    (1..8)
        .map(move |i| (f0 + i * df, r0 + i * dr))
        .take_while(|(f, r)| (0..8).contains(f) && (0..8).contains(r))
        .map(|(f, r)| (r * 8 + f) as usize)
}

/// Squares a slider on `sq` attacks along `dirs` given `occupied`: each ray
/// up to and including its first occupied square.
pub fn slow_slider(sq: usize, occupied: u64, dirs: &[(i8, i8); 4]) -> u64 {
    let mut out = 0u64;
    for &dir in dirs {
        for s in ray(sq, dir) {
            out |= 1 << s;
            if occupied >> s & 1 != 0 {
                break;
            }
        }
    }
    out
}

/// Squares reached by single steps `deltas` from `sq`.
pub fn slow_leaper(sq: usize, deltas: &[(i8, i8)]) -> u64 {
    let mut out = 0u64;
    for &(df, dr) in deltas {
        let (f, r) = ((sq % 8) as i8 + df, (sq / 8) as i8 + dr);
        if (0..8).contains(&f) && (0..8).contains(&r) {
            out |= 1 << (r * 8 + f);
        }
    }
    out
}

pub const KNIGHT_DELTAS: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
pub const KING_DELTAS: [(i8, i8); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];

/// Relevant occupancy mask: the rays without their last square.
pub fn slider_mask(sq: usize, dirs: &[(i8, i8); 4]) -> u64 {
    let mut out = 0u64;
    for &dir in dirs {
        let squares: Vec<usize> = ray(sq, dir).collect();
        for &s in &squares[..squares.len().saturating_sub(1)] {
            out |= 1 << s;
        }
    }
    out
}

/// xorshift64* generator (deterministic magic search).
pub struct GenRng(pub u64);

impl GenRng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(2685821657736338717)
    }

    pub fn sparse(&mut self) -> u64 {
        self.next() & self.next() & self.next()
    }
}

/// Finds a magic for `sq` whose index `(occ & mask) * magic >> (64 - bits)`
/// maps every subset of `mask` to a slot with no conflicting attack set.
/// Returns (magic, attacks table of size 1 << bits).
pub fn find_magic(sq: usize, dirs: &[(i8, i8); 4], rng: &mut GenRng) -> (u64, Vec<u64>) {
    let mask = slider_mask(sq, dirs);
    let bits = mask.count_ones();
    let size = 1usize << bits;
    let mut occs = Vec::with_capacity(size);
    let mut atts = Vec::with_capacity(size);
    let mut sub = 0u64;
    loop {
        occs.push(sub);
        atts.push(slow_slider(sq, sub, dirs));
        sub = sub.wrapping_sub(mask) & mask;
        if sub == 0 {
            break;
        }
    }
    let mut table = vec![0u64; size];
    let mut stamp = vec![0u32; size];
    let mut attempt = 0u32;
    loop {
        let magic = rng.sparse();
        if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
            continue;
        }
        attempt += 1;
        let mut ok = true;
        for (occ, att) in occs.iter().zip(&atts) {
            let idx = ((occ.wrapping_mul(magic)) >> (64 - bits)) as usize;
            if stamp[idx] != attempt {
                stamp[idx] = attempt;
                table[idx] = *att;
            } else if table[idx] != *att {
                ok = false;
                break;
            }
        }
        if ok {
            return (magic, table);
        }
    }
}
