//! Generates the attack tables (leapers, magic sliders, between/line masks)
//! into `$OUT_DIR/attack_tables.rs`. Deterministic, no network, never writes
//! into `src/`.

use std::fmt::Write as _;
use std::path::PathBuf;

#[allow(dead_code)]
mod gen {
    include!("src/attacks/gen.rs");
}
use gen::*;

fn array(out: &mut String, name: &str, values: &[u64]) {
    writeln!(out, "pub static {name}: [u64; {}] = [", values.len()).unwrap();
    for chunk in values.chunks(8) {
        for v in chunk {
            write!(out, "{v:#x},").unwrap();
        }
        out.push('\n');
    }
    out.push_str("];\n");
}

fn main() {
    println!("cargo:rerun-if-changed=src/attacks/gen.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let mut out = String::new();
    let mut rng = GenRng(0x5EED_A5C1_1C4E_55E5);

    let knight: Vec<u64> = (0..64).map(|s| slow_leaper(s, &KNIGHT_DELTAS)).collect();
    let king: Vec<u64> = (0..64).map(|s| slow_leaper(s, &KING_DELTAS)).collect();
    let mut pawn = Vec::with_capacity(128);
    pawn.extend((0..64).map(|s| slow_leaper(s, &[(-1, 1), (1, 1)])));
    pawn.extend((0..64).map(|s| slow_leaper(s, &[(-1, -1), (1, -1)])));
    array(&mut out, "KNIGHT", &knight);
    array(&mut out, "KING", &king);
    array(&mut out, "PAWN", &pawn);

    // Magic entries: (mask, magic, shift, offset) for rook then bishop.
    let mut table = Vec::new();
    let mut entries = String::new();
    for (name, dirs) in [("ROOK_MAGICS", &ROOK_DIRS), ("BISHOP_MAGICS", &BISHOP_DIRS)] {
        writeln!(entries, "pub static {name}: [Magic; 64] = [").unwrap();
        for sq in 0..64 {
            let (magic, t) = find_magic(sq, dirs, &mut rng);
            let mask = slider_mask(sq, dirs);
            let shift = 64 - mask.count_ones();
            writeln!(
                entries,
                "Magic {{ mask: {mask:#x}, magic: {magic:#x}, shift: {shift}, offset: {} }},",
                table.len()
            )
            .unwrap();
            table.extend(t);
        }
        entries.push_str("];\n");
    }
    out.push_str(&entries);
    array(&mut out, "SLIDER_TABLE", &table);

    // between[a][b]: squares strictly between a and b on a line (else 0), plus b.
    // line[a][b]: the whole line through a and b (else 0).
    let mut between = vec![0u64; 64 * 64];
    let mut line = vec![0u64; 64 * 64];
    for a in 0..64 {
        for dirs in [&ROOK_DIRS, &BISHOP_DIRS] {
            let from_a = slow_slider(a, 0, dirs);
            for b in 0..64 {
                if a != b && from_a >> b & 1 != 0 {
                    let from_b = slow_slider(b, 0, dirs);
                    line[a * 64 + b] = (from_a & from_b) | (1 << a) | (1 << b);
                    between[a * 64 + b] = slow_slider(a, 1 << b, dirs) & slow_slider(b, 1 << a, dirs);
                }
            }
        }
        for b in 0..64 {
            between[a * 64 + b] |= 1 << b;
        }
    }
    array(&mut out, "BETWEEN", &between);
    array(&mut out, "LINE", &line);

    let path = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR set by cargo")).join("attack_tables.rs");
    std::fs::write(path, out).expect("write attack tables");
}
