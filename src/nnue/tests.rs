//! NNUE inference tests: features, incremental updates against refreshes over
//! random games, colour symmetry, the integer forward pass against exact and
//! float references. The file format's tests are in `file/tests.rs`.

use super::*;
use crate::board::MoveList;
use crate::codec::SplitMix64 as SplitMix;
use crate::types::{Move, MoveKind, PieceType, Square};

/// Standard starts with castling, en passant and promotions close at hand.
const STANDARD_FENS: [&str; 5] = [
    Board::START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
];

/// Chess960 starts whose kings and rooks stand on unusual files (a king
/// castling onto its rook's square, a rook that does not move, …).
const CHESS960_FENS: [&str; 5] = [
    "rkqnrbbn/p2p1pp1/8/1pp1p2p/3P1P1P/6N1/PPP1P1P1/RKQNRBB1 w EAea - 0 5",
    "nrnkbrqb/pp1pp3/5p2/2p3pp/PPP5/1N6/3PPPPP/1RNKBRQB w FBfb - 0 5",
    "rknrbbqn/pppppppp/8/8/P7/8/1PPPPPPP/RKNRBBQN b DAda - 0 1",
    "bbrkrnnq/pppppppp/8/8/8/5N2/PPPPPPPP/BBRKRN1Q b ECec - 1 1",
    "qnrbbrkn/pppp1ppp/4p3/8/6P1/5P1P/PPPPP3/QNRBBKRN b GC - 0 3",
];

fn square(name: &str) -> Square {
    Square::parse(name).unwrap()
}

/// A random legal move, preferring castling, en passant and promotions
/// (half the time when there is one) so that the games exercise them.
fn pick_move(board: &Board, rng: &mut SplitMix) -> Option<Move> {
    let mut list = MoveList::new();
    board.generate_legal(&mut list);
    let moves = list.as_slice();
    if moves.is_empty() {
        return None;
    }
    let special: Vec<Move> = moves.iter().copied().filter(|m| m.kind() != MoveKind::Normal).collect();
    if !special.is_empty() && rng.below_usize(2) == 0 {
        return Some(special[rng.below_usize(special.len())]);
    }
    Some(moves[rng.below_usize(moves.len())])
}

/// Positions reached by random games from every start FEN (`games` games
/// each, up to `plies` plies), the starts included.
fn random_positions(games: usize, plies: usize, seed: u64) -> Vec<Board> {
    let mut rng = SplitMix(seed);
    let starts = STANDARD_FENS.iter().map(|f| (f, false)).chain(CHESS960_FENS.iter().map(|f| (f, true)));
    let mut out = Vec::new();
    for (fen, chess960) in starts {
        for _ in 0..games {
            let mut board = Board::from_fen(fen, chess960).unwrap();
            out.push(board.clone());
            for _ in 0..plies {
                let Some(m) = pick_move(&board, &mut rng) else { break };
                board.make_move(m);
                out.push(board.clone());
            }
        }
    }
    out
}

#[test]
fn feature_index_follows_the_documented_formula() {
    let white_pawn = Piece::new(Color::White, PieceType::Pawn);
    let black_king = Piece::new(Color::Black, PieceType::King);
    assert_eq!(feature_index(Color::White, white_pawn, square("e2")), 12);
    assert_eq!(feature_index(Color::Black, white_pawn, square("e2")), 384 + 52);
    assert_eq!(feature_index(Color::Black, black_king, square("e8")), 5 * 64 + 4);
    assert_eq!(feature_index(Color::White, black_king, square("e8")), 384 + 5 * 64 + 60);
    let mut seen = [false; 2 * INPUTS];
    for c in Color::ALL {
        for p in 0..12u8 {
            let piece =
                Piece::new(if p < 6 { Color::White } else { Color::Black }, PieceType::from_index(p as usize % 6));
            for sq in Square::all() {
                let index = feature_index(c, piece, sq);
                assert!(index < INPUTS);
                assert!(!std::mem::replace(&mut seen[c.index() * INPUTS + index], true), "{index} used twice");
            }
        }
    }
}

#[test]
fn incremental_update_equals_refresh_over_random_games() {
    // 64 runs the kernels unrolled for a fixed size, 48 over the run-time size.
    for hidden in [64, 48] {
        incremental_update_equals_refresh(hidden);
    }
}

fn incremental_update_equals_refresh(hidden: usize) {
    let net = Network::random(hidden, 1);
    let mut rng = SplitMix(2);
    let (mut positions, mut castles, mut en_passant, mut promotions, mut pops) = (0, 0, 0, 0, 0);
    let starts = STANDARD_FENS.iter().map(|f| (f, false)).chain(CHESS960_FENS.iter().map(|f| (f, true)));
    for (fen, chess960) in starts {
        for _ in 0..8 {
            let mut board = Board::from_fen(fen, chess960).unwrap();
            let mut stack = AccumulatorStack::new(&board, &net, 8);
            for _ in 0..80 {
                // Now and then take a few moves back: the stack must return
                // to the parents' accumulators.
                if rng.below_usize(8) == 0 && stack.len() > 3 {
                    for _ in 0..2 {
                        board.unmake_move();
                        stack.pop();
                        pops += 1;
                    }
                }
                let Some(m) = pick_move(&board, &mut rng) else { break };
                match m.kind() {
                    MoveKind::Castling => castles += 1,
                    MoveKind::EnPassant => en_passant += 1,
                    MoveKind::Promotion => promotions += 1,
                    MoveKind::Normal => {}
                }
                stack.push(&board, m, &net);
                board.make_move(m);
                positions += 1;
                let fresh = Accumulator::from_board(&board, &net);
                assert_eq!(stack.current(), &fresh, "after {m:?} in {}", fen);
                assert_eq!(evaluate(stack.current(), board.side_to_move(), &net), net.evaluate_board(&board));
            }
        }
    }
    assert!(positions > 3000, "{positions} positions");
    assert!(castles > 20 && en_passant > 5 && promotions > 20, "{castles} {en_passant} {promotions}");
    assert!(pops > 100, "{pops} pops");
}

#[test]
fn null_move_copies_the_accumulator() {
    let net = Network::random(16, 3);
    let board = Board::from_fen(STANDARD_FENS[1], false).unwrap();
    let parent = Accumulator::from_board(&board, &net);
    let mut child = Accumulator::new(&net);
    child.update_from(&parent, &board, Move::NULL, &net);
    assert_eq!(child, parent);
}

#[test]
fn colour_flipped_position_has_the_same_score() {
    let net = Network::random(32, 4);
    let float = FloatNetwork::random(32, 4);
    let positions = random_positions(2, 60, 5);
    let mut nonzero = 0;
    for board in &positions {
        let flipped = board.color_flipped();
        let score = net.evaluate_board(board);
        assert_eq!(score, net.evaluate_board(&flipped), "{board:?}");
        assert!((float.evaluate(board) - float.evaluate(&flipped)).abs() < 1e-9);
        nonzero += usize::from(score != 0);
    }
    assert!(nonzero > positions.len() / 2, "a network scoring everything 0 proves nothing");
}

/// The float network whose weights are exactly `net`'s, scaled back.
fn dequantised(net: &Network) -> FloatNetwork {
    let q = net.quantisation();
    let (qa, qb) = (f32::from(q.qa), f32::from(q.qb));
    let mut float = FloatNetwork::zeros(net.hidden(), q).unwrap();
    let copy =
        |to: &mut [f32], from: &[i16], by: f32| to.iter_mut().zip(from).for_each(|(t, &f)| *t = f32::from(f) / by);
    copy(float.feature_weights_mut(), net.feature_weights(), qa);
    copy(float.feature_bias_mut(), net.feature_bias(), qa);
    copy(float.output_weights_mut(), net.output_weights(), qb);
    float.set_output_bias(net.output_bias() as f32 / (qa * qb));
    float
}

#[test]
fn integer_pass_equals_the_exact_real_pass_up_to_its_two_truncations() {
    // Each integer division truncates by less than one unit: S / QA by less
    // than SCALE / (QA·QB) centipawns, the final division by less than one.
    let net = Network::random(32, 6);
    let exact = dequantised(&net);
    let q = net.quantisation();
    let bound = 1.0 + f64::from(q.scale) / (f64::from(q.qa) * f64::from(q.qb)) + 1e-6;
    for board in random_positions(2, 60, 7) {
        let diff = (f64::from(net.evaluate_board(&board)) - exact.evaluate(&board)).abs();
        assert!(diff < bound, "{diff} ≥ {bound} for {board:?}");
    }
}

#[test]
fn quantised_and_float_passes_agree_within_the_stated_bound() {
    // The stated bound, for this network (N = 32, QA = 255, QB = 64,
    // SCALE = 400) over 1188 random-game positions: every position within
    // 25 cp and 5 cp on average (measured: 20 and 3.5). Rounding moves each
    // accumulator by up to ±0.5/QA per active input and each output weight
    // by up to ±0.5/QB (±0.0078, the larger share); summed over 2N units and
    // times SCALE that is a few centipawns, more where many units saturate.
    // The arithmetic itself is checked exactly by the test above.
    let float = FloatNetwork::random(32, 8);
    let net = float.quantise();
    let positions = random_positions(2, 60, 9);
    let (mut worst, mut total, mut spread) = (0f64, 0f64, 0f64);
    for board in &positions {
        let reference = float.evaluate(board);
        let diff = (f64::from(net.evaluate_board(board)) - reference).abs();
        worst = worst.max(diff);
        total += diff;
        spread += reference.abs();
    }
    let n = positions.len() as f64;
    assert!(worst <= 25.0, "worst {worst} cp");
    assert!(total / n <= 5.0, "mean {} cp", total / n);
    assert!(spread / n > 50.0, "the float scores must not be trivially small ({} cp)", spread / n);
}

#[test]
fn fitted_quantisation_takes_the_largest_qb_that_clamps_no_output_weight() {
    let mut float = FloatNetwork::random(32, 8);
    // Largest |w| 0.3 (the random range): QB = ⌊128 / 0.3⌋ = 426 for QA = 255.
    let largest = float.output_weights().iter().fold(0f32, |m, w| m.max(w.abs()));
    let net = float.quantise_fitted();
    let q = net.quantisation();
    assert_eq!((q.qa, q.scale), (255, 400));
    assert_eq!(q.qb, (128.0 / f64::from(largest)).floor() as u16);
    assert!(net.output_weights().iter().any(|&w| w.abs() >= 127), "the largest weight uses the range");
    assert!(net.output_weights().iter().all(|&w| w.abs() <= 128));
    // Its output is closer to the float network's than at QB = 64.
    let positions = random_positions(2, 60, 9);
    let error = |n: &Network| -> f64 {
        positions.iter().map(|b| (f64::from(n.evaluate_board(b)) - float.evaluate(b)).abs()).sum::<f64>()
    };
    assert!(error(&net) < 0.6 * error(&float.quantise()), "{} vs {}", error(&net), error(&float.quantise()));
    // Weights past ±2 get a QB below 64 rather than a clamp; none at all keep 64.
    float.output_weights_mut()[3] = 5.0;
    assert_eq!(float.quantise_fitted().quantisation().qb, 25);
    float.output_weights_mut().fill(0.0);
    assert_eq!(float.quantise_fitted().quantisation().qb, 64);
}

#[test]
fn calibrated_rounding_lowers_the_calibration_error_and_moves_each_weight_at_most_to_its_other_rounding() {
    let float = FloatNetwork::random(32, 12);
    let positions = random_positions(20, 60, 13);
    let (nearest, calibrated) = (float.quantise_fitted(), float.quantise_calibrated(&positions));
    assert_eq!(calibrated.quantisation(), nearest.quantisation());
    // The objective is the squared error before the final truncation, aimed
    // half a centipawn off so that the truncation lands on the nearest
    // integer: so measure the same thing here.
    let squared = |n: &Network| -> f64 {
        positions.iter().map(|b| (f64::from(n.evaluate_board(b)) - float.evaluate(b).round()).powi(2)).sum::<f64>()
    };
    assert!(squared(&calibrated) < squared(&nearest), "{} vs {}", squared(&calibrated), squared(&nearest));
    let qa = f64::from(nearest.quantisation().qa);
    let mut moved = 0;
    for (&w, (&q, &n)) in
        float.feature_weights().iter().zip(calibrated.feature_weights().iter().zip(nearest.feature_weights()))
    {
        let exact = f64::from(w) * qa;
        assert!(f64::from(q) == exact.floor() || f64::from(q) == exact.ceil(), "{q} for {exact}");
        moved += usize::from(q != n);
    }
    assert!(moved > 0, "no weight was rounded the other way");
    for (&q, &n) in calibrated.feature_bias().iter().zip(nearest.feature_bias()) {
        assert!((i32::from(q) - i32::from(n)).abs() <= crate::nnue::rounding::BIAS_REACH);
    }
    // It is a network like any other: the file reader takes it back unchanged.
    assert_eq!(Network::from_bytes(&calibrated.to_bytes()).unwrap(), calibrated);
    // No positions: nearest rounding.
    assert_eq!(float.quantise_calibrated(&[]), nearest);
}

/// `evaluate` written the plain way: every product in `i64`.
fn reference_eval(acc: &Accumulator, us: Color, net: &Network) -> i64 {
    let q = net.quantisation();
    let qa = i64::from(q.qa);
    let (w_us, w_them) = net.output_weights().split_at(net.hidden());
    let mut sum = 0i64;
    for (half, weights) in [(acc.perspective(us), w_us), (acc.perspective(!us), w_them)] {
        for (&a, &w) in half.iter().zip(weights) {
            let v = i64::from(a).clamp(0, qa);
            sum += v * v * i64::from(w);
        }
    }
    (sum / qa + i64::from(net.output_bias())) * i64::from(q.scale) / (qa * i64::from(q.qb))
}

#[test]
fn forward_pass_matches_the_plain_i64_formula() {
    for (hidden, seed) in [(16, 10), (272, 11), (512, 12)] {
        let net = Network::random(hidden, seed);
        for board in random_positions(1, 20, seed) {
            let acc = Accumulator::from_board(&board, &net);
            for us in Color::ALL {
                assert_eq!(i64::from(evaluate(&acc, us, &net)), reference_eval(&acc, us, &net));
                assert_eq!(evaluate_scalar(&acc, us, &net), evaluate(&acc, us, &net));
            }
        }
    }
}

#[test]
fn forward_pass_does_not_overflow_at_the_format_limits() {
    // N = 4096, every activation saturated at QA, every output weight at
    // ±⌊32767 / QA⌋, output bias at the i32 extremes: the sum reaches about
    // 6.8·10¹⁰, and the result saturates to the i32 range when SCALE is large.
    let board = Board::startpos();
    for (sign, qb, scale) in [(1i16, 1, 65535), (-1, 1, 65535), (1, 64, 400), (-1, 64, 400)] {
        let quant = Quantisation { qa: 255, qb, scale };
        let mut net = FloatNetwork::zeros(MAX_HIDDEN, quant).unwrap().quantise();
        net.feature_bias.fill(i16::MAX);
        net.output_weights.fill(sign * quant.max_output_weight());
        net.output_bias = if sign > 0 { i32::MAX } else { i32::MIN };
        let acc = Accumulator::from_board(&board, &net);
        let expected = reference_eval(&acc, Color::White, &net).clamp(i32::MIN.into(), i32::MAX.into());
        assert_eq!(i64::from(evaluate(&acc, Color::White, &net)), expected);
        assert_eq!(i64::from(evaluate_scalar(&acc, Color::White, &net)), expected);
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_and_portable_kernels_agree_on_any_values() {
    if !is_x86_feature_detected!("avx2") {
        return;
    }
    // Any accumulator values, output weights anywhere within the limit, and
    // lengths with and without a tail shorter than one 16-unit step.
    let mut rng = SplitMix(13);
    for len in [0, 5, 16, 32, 64, 128, 250, 256, 272, 1000, 8192] {
        let acc: Vec<i16> = (0..len).map(|_| rng.next_u64() as i16).collect();
        for qa in [1i16, 181, 255] {
            let limit = 32767 / i32::from(qa);
            let weights: Vec<i16> =
                (0..len).map(|_| (rng.below_usize(2 * limit as usize + 1) as i32 - limit) as i16).collect();
            // SAFETY: the CPU has AVX2, checked above.
            let fast = unsafe { forward::avx2::screlu_dot_sized(&acc, &weights, qa) };
            // SAFETY: as above.
            let generic = unsafe { forward::avx2::screlu_dot::<0>(&acc, &weights, qa) };
            assert_eq!(fast, generic, "len {len}, QA {qa}");
            assert_eq!(fast, forward::screlu_dot_scalar(&acc, &weights, qa), "len {len}, QA {qa}");
        }
    }
}
