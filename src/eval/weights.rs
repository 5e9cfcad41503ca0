//! The evaluation's weights, one `S` (middlegame, endgame) per feature, in
//! the order of [`super::layout`]. Written by `archivist tune` (see
//! [`super::tune`]); edit by hand only to seed a new feature with a guess.
//! MATERIAL and PSQT started as PeSTO's values (Ronald Friederich's
//! Rofchade, as published on the Chess Programming Wiki); nets/README.md
//! names the run that made this table and the groups it left frozen.

use super::S;

#[rustfmt::skip]
pub(super) static WEIGHTS: [S; super::layout::COUNT] = [
    // MATERIAL
    S::new(94, 79), S::new(348, 291), S::new(369, 307), S::new(482, 529), S::new(1175, 868), S::new(0, 0),
    // PSQT
    S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0),
    S::new(-24, 22), S::new(0, 23), S::new(-17, 26), S::new(-17, 25), S::new(-11, 30), S::new(29, 20), S::new(43, 12), S::new(-11, 2),
    S::new(-23, 16), S::new(-13, 20), S::new(-10, 16), S::new(-16, 19), S::new(-2, 20), S::new(4, 15), S::new(32, 4), S::new(-14, 4),
    S::new(-19, 22), S::new(-7, 21), S::new(-2, 9), S::new(8, 4), S::new(13, 8), S::new(11, 9), S::new(13, 3), S::new(-18, 8),
    S::new(-12, 35), S::new(2, 31), S::new(-2, 24), S::new(13, 10), S::new(6, 16), S::new(6, 8), S::new(-1, 18), S::new(-14, 16),
    S::new(7, 60), S::new(8, 58), S::new(18, 55), S::new(31, 48), S::new(28, 40), S::new(16, 48), S::new(-10, 48), S::new(10, 38),
    S::new(282, 103), S::new(225, 127), S::new(111, 164), S::new(113, 174), S::new(127, 160), S::new(25, 201), S::new(-55, 200), S::new(173, 92),
    S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(0, 0),
    S::new(-51, -71), S::new(-12, -46), S::new(-3, -44), S::new(-25, -9), S::new(9, -36), S::new(-19, -31), S::new(-11, -32), S::new(8, -126),
    S::new(-14, -37), S::new(-13, -26), S::new(-6, -25), S::new(10, -19), S::new(13, -23), S::new(9, -31), S::new(-8, -24), S::new(-1, -31),
    S::new(-21, -12), S::new(9, -24), S::new(7, -5), S::new(11, -3), S::new(24, 1), S::new(17, -18), S::new(24, -30), S::new(-12, -17),
    S::new(5, 0), S::new(-2, -4), S::new(20, 7), S::new(19, 12), S::new(34, 7), S::new(19, 6), S::new(29, -8), S::new(-2, -11),
    S::new(22, -13), S::new(20, -3), S::new(29, 16), S::new(37, 15), S::new(30, 16), S::new(39, 16), S::new(20, 0), S::new(26, -21),
    S::new(19, -13), S::new(36, -21), S::new(50, 2), S::new(46, 23), S::new(75, -5), S::new(61, -13), S::new(20, -14), S::new(0, -4),
    S::new(-42, 0), S::new(-25, 4), S::new(29, -16), S::new(42, -15), S::new(28, -1), S::new(14, -11), S::new(-8, -39), S::new(-15, -5),
    S::new(-266, -3), S::new(70, -27), S::new(-39, 12), S::new(-85, 12), S::new(15, -9), S::new(-77, -5), S::new(35, 5), S::new(-212, -38),
    S::new(-12, -29), S::new(13, -19), S::new(-5, -17), S::new(-10, -12), S::new(-10, -12), S::new(-6, -12), S::new(-25, -10), S::new(8, -24),
    S::new(2, -1), S::new(14, -24), S::new(7, -6), S::new(3, -8), S::new(16, -8), S::new(21, -14), S::new(32, -19), S::new(1, -17),
    S::new(-5, -9), S::new(20, 1), S::new(15, 6), S::new(17, 0), S::new(18, 6), S::new(25, -1), S::new(24, -3), S::new(12, -8),
    S::new(-6, -1), S::new(16, 4), S::new(14, 8), S::new(32, 11), S::new(42, 1), S::new(7, 10), S::new(12, -3), S::new(8, -6),
    S::new(1, -4), S::new(8, 3), S::new(23, 8), S::new(47, 2), S::new(28, 10), S::new(23, -2), S::new(2, 19), S::new(11, -5),
    S::new(-26, 0), S::new(24, 3), S::new(9, 12), S::new(37, 0), S::new(42, -5), S::new(46, 4), S::new(21, -5), S::new(15, -16),
    S::new(-27, 5), S::new(-11, 2), S::new(1, 12), S::new(-22, 3), S::new(-35, 12), S::new(15, -2), S::new(-14, 11), S::new(-14, -15),
    S::new(-7, 1), S::new(-24, 5), S::new(-60, 0), S::new(-24, -2), S::new(49, -11), S::new(-77, 8), S::new(-48, 4), S::new(-65, 24),
    S::new(-11, -12), S::new(-8, -7), S::new(0, -6), S::new(9, -13), S::new(11, -18), S::new(2, -19), S::new(-43, 2), S::new(-16, -22),
    S::new(-27, -9), S::new(-17, -4), S::new(-22, -4), S::new(-5, -19), S::new(-7, -18), S::new(3, -13), S::new(-10, -12), S::new(-46, -18),
    S::new(-36, 5), S::new(-21, 3), S::new(-41, 15), S::new(-38, 7), S::new(-6, -10), S::new(-9, 1), S::new(-30, 5), S::new(-24, -12),
    S::new(-26, 12), S::new(-17, 12), S::new(-11, 12), S::new(-8, 11), S::new(-2, 0), S::new(-18, 8), S::new(2, 4), S::new(-12, 8),
    S::new(-16, 18), S::new(12, 10), S::new(-3, 24), S::new(17, 10), S::new(1, 17), S::new(44, 2), S::new(13, 14), S::new(10, 9),
    S::new(-10, 23), S::new(34, 8), S::new(14, 22), S::new(26, 14), S::new(30, 10), S::new(50, 13), S::new(71, 4), S::new(-17, 19),
    S::new(12, 21), S::new(19, 22), S::new(52, 20), S::new(59, 16), S::new(57, 13), S::new(39, 14), S::new(20, 22), S::new(49, 4),
    S::new(53, 11), S::new(45, 18), S::new(20, 32), S::new(11, 24), S::new(31, 23), S::new(67, 13), S::new(21, 22), S::new(54, 13),
    S::new(2, -42), S::new(1, -43), S::new(8, -51), S::new(13, -42), S::new(1, -21), S::new(-12, -45), S::new(2, -52), S::new(-36, -42),
    S::new(-19, -8), S::new(4, -42), S::new(15, -40), S::new(11, -29), S::new(14, -36), S::new(26, -37), S::new(12, -48), S::new(-5, -47),
    S::new(-8, -19), S::new(8, -19), S::new(4, 1), S::new(4, -4), S::new(-1, 6), S::new(9, 9), S::new(19, -4), S::new(9, -31),
    S::new(2, -38), S::new(-21, 48), S::new(-8, 24), S::new(-2, 48), S::new(1, 48), S::new(1, 21), S::new(7, 12), S::new(12, -22),
    S::new(-6, 20), S::new(-2, -1), S::new(-3, 47), S::new(-14, 83), S::new(2, 67), S::new(18, 21), S::new(16, 17), S::new(22, -4),
    S::new(-27, 37), S::new(-2, 28), S::new(-2, 61), S::new(39, 29), S::new(33, 53), S::new(41, 63), S::new(84, -14), S::new(46, -7),
    S::new(-36, 10), S::new(-36, 32), S::new(-16, 60), S::new(3, 57), S::new(34, 50), S::new(47, 35), S::new(32, 26), S::new(65, -26),
    S::new(-26, 14), S::new(35, -12), S::new(1, 31), S::new(21, 8), S::new(93, -18), S::new(46, 10), S::new(0, 19), S::new(50, 0),
    S::new(-52, -2), S::new(20, -35), S::new(8, -31), S::new(-67, -20), S::new(-10, -36), S::new(-39, -14), S::new(18, -31), S::new(7, -32),
    S::new(-13, -15), S::new(4, -16), S::new(-9, -7), S::new(-42, -2), S::new(-37, 3), S::new(-27, 2), S::new(-3, -4), S::new(8, -22),
    S::new(29, -46), S::new(8, -13), S::new(-58, 9), S::new(-46, 17), S::new(-32, 13), S::new(-41, 15), S::new(-16, 3), S::new(-44, -3),
    S::new(-25, -9), S::new(-40, 15), S::new(-46, 25), S::new(-82, 28), S::new(-78, 36), S::new(-78, 35), S::new(-44, 23), S::new(-65, -5),
    S::new(-4, -2), S::new(-17, 30), S::new(-44, 37), S::new(-93, 39), S::new(-127, 51), S::new(-107, 53), S::new(-39, 31), S::new(-25, 15),
    S::new(89, -1), S::new(105, 15), S::new(10, 34), S::new(-78, 32), S::new(-84, 46), S::new(-134, 64), S::new(-141, 68), S::new(-72, 38),
    S::new(268, -85), S::new(96, 27), S::new(101, 23), S::new(4, 20), S::new(101, -4), S::new(-193, 61), S::new(9, 52), S::new(-44, 16),
    S::new(29, -124), S::new(189, -14), S::new(251, -61), S::new(55, -54), S::new(176, -24), S::new(173, -3), S::new(-133, 70), S::new(35, -84),
    // MOBILITY_KNIGHT
    S::new(-5, -13), S::new(17, -9), S::new(25, 12), S::new(29, 22), S::new(33, 32), S::new(36, 40), S::new(40, 39), S::new(46, 37),
    S::new(43, 24),
    // MOBILITY_BISHOP
    S::new(-4, -9), S::new(6, -8), S::new(12, 5), S::new(18, 17), S::new(23, 24), S::new(28, 28), S::new(29, 30), S::new(32, 35),
    S::new(35, 31), S::new(30, 37), S::new(46, 24), S::new(-6, 51), S::new(103, 5), S::new(-103, 78),
    // MOBILITY_ROOK
    S::new(35, -19), S::new(53, -9), S::new(54, -3), S::new(59, 2), S::new(61, 6), S::new(63, 16), S::new(66, 15), S::new(68, 19),
    S::new(71, 24), S::new(76, 29), S::new(76, 30), S::new(75, 34), S::new(80, 31), S::new(95, 25), S::new(109, 18),
    // MOBILITY_QUEEN
    S::new(72, -144), S::new(78, -76), S::new(77, -55), S::new(72, -6), S::new(75, -17), S::new(78, -6), S::new(80, 14), S::new(81, 22),
    S::new(81, 32), S::new(83, 35), S::new(87, 40), S::new(88, 41), S::new(89, 48), S::new(88, 53), S::new(89, 53), S::new(94, 49),
    S::new(96, 53), S::new(120, 31), S::new(108, 28), S::new(130, 11), S::new(188, -47), S::new(330, -164), S::new(335, -149), S::new(567, -337),
    S::new(448, -233), S::new(649, -402), S::new(268, -164), S::new(489, -403),
    // DOUBLED
    S::new(-15, -11),
    // ISOLATED
    S::new(-4, -13),
    // CONNECTED
    S::new(0, 0), S::new(1, 1), S::new(11, 3), S::new(10, 7), S::new(21, 4), S::new(59, 9), S::new(82, 109), S::new(0, 0),
    // PASSED
    S::new(0, 0), S::new(-10, 21), S::new(-4, 20), S::new(5, 30), S::new(105, 34), S::new(208, 15), S::new(479, -128), S::new(0, 0),
    // PASSED_BLOCKED
    S::new(0, 0), S::new(14, 6), S::new(6, 15), S::new(0, 15), S::new(110, 0), S::new(193, -26), S::new(396, -181), S::new(0, 0),
    // PASSED_ENEMY_KING
    S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(-7, 16), S::new(-2, 21), S::new(-5, 37), S::new(-28, 50), S::new(0, 20),
    // PASSED_OWN_KING
    S::new(0, 0), S::new(0, 0), S::new(0, 0), S::new(7, -12), S::new(-17, -8), S::new(-26, -10), S::new(-51, -5), S::new(0, -10),
    // BISHOP_PAIR
    S::new(28, 44),
    // ROOK_OPEN_FILE
    S::new(30, -3),
    // ROOK_HALF_OPEN_FILE
    S::new(13, 12),
    // SHIELD_CLOSE
    S::new(7, -4),
    // SHIELD_FAR
    S::new(3, -4),
    // SHIELD_MISSING
    S::new(-9, 4),
    // SHIELD_OPEN_FILE
    S::new(-16, -6),
    // KING_DANGER
    S::new(0, 0), S::new(0, 0), S::new(-25, 8), S::new(-9, 5), S::new(-1, 3), S::new(-17, 3), S::new(-6, 4), S::new(-14, 7),
    S::new(-35, 21), S::new(-9, -23), S::new(-34, 15), S::new(-13, -38), S::new(-4, -53), S::new(-36, -21), S::new(-7, -42), S::new(-13, -181),
    S::new(15, -122), S::new(-38, -26), S::new(-46, -38), S::new(-32, -58), S::new(-147, 144), S::new(-83, -50), S::new(-146, 20), S::new(-152, 3),
    S::new(-144, -30), S::new(-84, -59), S::new(-104, -10), S::new(-59, -112), S::new(-186, -12), S::new(-176, 11), S::new(-215, -49), S::new(-268, -66),
    S::new(-542, -384), S::new(-280, -132), S::new(-227, -186), S::new(-263, -40), S::new(-207, 7), S::new(-855, -563), S::new(-275, -12), S::new(-253, 0),
    S::new(-267, 0), S::new(-280, 0), S::new(-294, 0), S::new(-308, 0), S::new(-322, 0), S::new(-337, 0), S::new(-352, 0), S::new(-368, 0),
    S::new(-384, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0),
    S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0), S::new(-400, 0),
    // THREAT_BY_PAWN
    S::new(0, 0), S::new(-45, -40), S::new(-48, -56), S::new(-61, -30), S::new(-40, -15), S::new(0, 0),
    // THREAT_BY_MINOR
    S::new(0, 0), S::new(-11, -24), S::new(-26, -30), S::new(-60, -22), S::new(-39, -24), S::new(0, 0),
    // THREAT_BY_ROOK
    S::new(0, 0), S::new(-2, -18), S::new(-13, -7), S::new(60, -57), S::new(-44, -49), S::new(0, 0),
];
