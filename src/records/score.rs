//! The one conversion between a record's score and centipawns.
//!
//! A record stores `s = round(65535 · p)`, where `p` is the side to move's
//! expected score (win 1, draw ½, loss 0), as `selfplay` computes it from a
//! search value `cp`:
//!
//! ```text
//! p  = 1 / (1 + e^(−cp/400))               (selfplay, records import)
//! cp = round(400 · ln(s / (65535 − s)))    (records export), |cp| ≤ 4436
//! ```
//!
//! Mates (and tablebase wins) are stored as exactly 1 or 0 (`s` = 65535 or
//! 0); they export as ±[`DECISIVE_CP`]. Every other stored value exports
//! within ±4436 cp, and importing a centipawn score and exporting it again
//! gives it back to within 1 cp for |cp| ≤ 1000 (the u16 step is finer than
//! a centipawn there), less precisely beyond.

/// The centipawn score a decided position (a stored 0 or 65535: mate or a
/// tablebase result) exports as, from the winner's side: +32000 / −32000.
pub const DECISIVE_CP: i32 = 32000;

/// The scale of the logistic ([`crate::types::LOGISTIC_SCALE`]).
pub const SCALE: f64 = crate::types::LOGISTIC_SCALE;

/// The side to move's expected score of a centipawn value.
pub fn expected_score(cp: i32) -> f64 {
    crate::types::expected_score(cp as f64)
}

/// The stored score of a centipawn value (side to move's view).
pub fn from_cp(cp: i32) -> u16 {
    super::score_to_u16(expected_score(cp))
}

/// The stored score of a mate: in `moves` > 0 the side to move mates (1.0),
/// < 0 it is mated (0.0). `None` for 0, which says neither.
pub fn from_mate(moves: i32) -> Option<u16> {
    match moves.signum() {
        1 => Some(u16::MAX),
        -1 => Some(0),
        _ => None,
    }
}

/// Centipawns (side to move's view) of a stored score.
pub fn to_cp(s: u16) -> i32 {
    match s {
        0 => -DECISIVE_CP,
        u16::MAX => DECISIVE_CP,
        _ => {
            let s = f64::from(s);
            (SCALE * (s / (65535.0 - s)).ln()).round() as i32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centipawns_survive_the_round_trip_within_a_centipawn() {
        for cp in -1000..=1000 {
            let back = to_cp(from_cp(cp));
            assert!((back - cp).abs() <= 1, "{cp} -> {back}");
        }
    }

    #[test]
    fn even_is_zero_and_the_ends_are_decisive() {
        assert_eq!(from_cp(0), 32768);
        assert_eq!(to_cp(32768), 0);
        assert_eq!(to_cp(0), -DECISIVE_CP);
        assert_eq!(to_cp(u16::MAX), DECISIVE_CP);
        assert_eq!(to_cp(65534), 4436);
        assert_eq!(to_cp(1), -4436);
    }

    #[test]
    fn conversion_is_antisymmetric_and_monotonic() {
        let mut last = i32::MIN;
        for s in 0..=u16::MAX {
            let cp = to_cp(s);
            assert!(cp >= last, "{s}");
            last = cp;
            assert_eq!(to_cp(u16::MAX - s), -cp, "{s}");
        }
    }

    #[test]
    fn mates_are_certain_and_mate_zero_says_nothing() {
        assert_eq!(from_mate(3), Some(u16::MAX));
        assert_eq!(from_mate(-1), Some(0));
        assert_eq!(from_mate(0), None);
    }
}
