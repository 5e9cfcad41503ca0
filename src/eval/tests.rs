//! Evaluation tests: colour symmetry over outside vectors and random games,
//! and one test per behaviour the terms are meant to reward or punish.

use super::*;

fn board(fen: &str) -> Board {
    Board::from_fen(fen, false).unwrap_or_else(|e| panic!("bad test FEN {fen}: {e:?}"))
}

fn terms(fen: &str) -> Terms {
    super::terms(&board(fen))
}

/// White's and black's totals of one row.
fn row(fen: &str, r: Row) -> [S; 2] {
    terms(fen).rows[r as usize]
}

/// Small deterministic generator for random games.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn vector_fens() -> Vec<String> {
    let text = crate::testdata::read("vectors/keys.csv").expect("committed key vectors");
    text.lines()
        .skip(1)
        .filter_map(|l| l.split(';').next())
        .filter(|f| !f.trim().is_empty())
        .map(String::from)
        .collect()
}

fn assert_symmetric(b: &Board) {
    let flipped = b.color_flipped();
    let (score, flipped_score) = (evaluate(b), evaluate(&flipped));
    assert_eq!(score, flipped_score, "{} vs flipped {}", b.fen(), flipped.fen());
    assert!(score.abs() <= MAX_EVAL);
}

#[test]
fn eval_of_color_flipped_position_is_identical_for_side_to_move() {
    let fens = vector_fens();
    assert!(fens.len() >= 1000, "expected the shared key vectors, got {} FENs", fens.len());
    for fen in &fens {
        assert_symmetric(&board(fen));
    }
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for _ in 0..120 {
        let mut b = Board::startpos();
        for _ in 0..160 {
            let moves = b.legal_moves();
            if moves.is_empty() {
                break;
            }
            b.make_move(moves.as_slice()[rng.below(moves.len())]);
            assert_symmetric(&b);
            checked += 1;
        }
    }
    assert!(checked > 5000, "only {checked} random positions");
}

#[test]
fn start_position_scores_only_a_small_tempo_bonus() {
    let white = evaluate(&Board::startpos());
    let black = evaluate(&board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"));
    assert!(white.abs() < 50, "start position scores {white}");
    assert_eq!(white, black, "the start position is symmetric, only tempo counts");
    assert_eq!(white, TEMPO);
}

#[test]
fn side_up_a_queen_scores_far_ahead() {
    let w = evaluate(&board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
    let b = evaluate(&board("rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"));
    assert!(w > 700, "white to move, up a queen: {w}");
    assert!(b < -700, "black to move, down a queen: {b}");
}

#[test]
fn far_advanced_passed_pawn_outscores_the_same_pawn_on_its_start_rank() {
    let advanced = evaluate(&board("k7/8/3P4/8/8/8/8/4K3 w - - 0 1"));
    let home = evaluate(&board("k7/8/8/8/8/8/3P4/4K3 w - - 0 1"));
    assert!(advanced > home + 50, "d6 pawn {advanced} vs d2 pawn {home}");
    let advanced = row("k7/8/3P4/8/8/8/8/4K3 w - - 0 1", Row::Passed)[0];
    let home = row("k7/8/8/8/8/8/3P4/4K3 w - - 0 1", Row::Passed)[0];
    assert!(advanced.mg > home.mg && advanced.eg > home.eg);
}

#[test]
fn blocked_passed_pawn_is_worth_less_than_a_free_one() {
    let free = row("k7/8/3P4/8/8/8/8/3NK3 w - - 0 1", Row::Passed)[0];
    let blocked = row("k7/3n4/3P4/8/8/8/8/4K3 w - - 0 1", Row::Passed)[0];
    assert!(free.eg > blocked.eg, "free {free:?} vs blocked {blocked:?}");
}

#[test]
fn pawn_with_an_enemy_pawn_ahead_on_a_neighbour_file_is_not_passed() {
    assert_eq!(row("k7/4p3/8/8/3P4/8/8/4K3 w - - 0 1", Row::Passed)[0], S::ZERO);
    assert_ne!(row("k7/5p2/8/8/3P4/8/8/4K3 w - - 0 1", Row::Passed)[0], S::ZERO);
}

#[test]
fn doubled_and_isolated_pawns_are_penalised() {
    // d2 and e2 side by side: connected, neither doubled nor isolated.
    let healthy = row("4k3/8/8/8/8/8/3PP3/4K3 w - - 0 1", Row::Pawns)[0];
    let doubled = row("4k3/8/8/8/8/3P4/3P4/4K3 w - - 0 1", Row::Pawns)[0];
    assert_eq!(healthy, WEIGHTS[layout::CONNECTED + 1] * 2);
    assert_eq!(doubled, WEIGHTS[layout::DOUBLED] + WEIGHTS[layout::ISOLATED] * 2);
}

#[test]
fn king_with_intact_shield_scores_better_than_bare_king_under_attack() {
    // Same material and black pieces; white's pawns either shield g1 or sit on the queen side.
    let shielded = "6k1/5ppp/8/8/6nq/8/5PPP/3R2K1 w - - 0 1";
    let bare = "6k1/5ppp/8/8/6nq/8/PPP5/3R2K1 w - - 0 1";
    assert!(evaluate(&board(shielded)) > evaluate(&board(bare)));
    let (s, b) = (row(shielded, Row::King)[0], row(bare, Row::King)[0]);
    assert!(s.mg > b.mg + 50, "shielded king {s:?} vs bare king {b:?}");
}

#[test]
fn more_attackers_on_the_king_zone_cost_more() {
    let one = row("6k1/5ppp/8/8/7q/8/5PPP/6K1 w - - 0 1", Row::King)[0];
    let two = row("6k1/5ppp/8/8/6nq/8/5PPP/6K1 w - - 0 1", Row::King)[0];
    assert!(two.mg < one.mg, "queen and knight {two:?} vs queen alone {one:?}");
}

/// The mobility entry (safe squares) a lone white knight's features use.
fn knight_mobility(fen: &str) -> usize {
    let f = tune::features(&board(fen));
    let knight = layout::MOBILITY[0]..layout::MOBILITY[0] + layout::MOBILITY_LEN[0];
    let entries: Vec<usize> = f.counts.iter().map(|&(w, _)| usize::from(w)).filter(|w| knight.contains(w)).collect();
    assert_eq!(entries.len(), 1, "{fen}: {entries:?}");
    entries[0] - layout::MOBILITY[0]
}

#[test]
fn centralised_knight_is_more_mobile_than_one_on_the_rim() {
    assert_eq!(knight_mobility("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1"), 8);
    assert_eq!(knight_mobility("4k3/8/8/8/N7/8/8/4K3 w - - 0 1"), 4);
}

#[test]
fn squares_attacked_by_enemy_pawns_do_not_count_as_mobility() {
    // The c6 pawn guards b5 (and d5, which the knight does not reach); c6 itself may be taken.
    assert_eq!(knight_mobility("4k3/8/2p5/8/3N4/8/8/4K3 w - - 0 1"), 7);
    // Own pieces block: the king on e2 takes one square.
    assert_eq!(knight_mobility("4k3/8/8/8/3N4/8/4K3/8 w - - 0 1"), 7);
}

#[test]
fn bishop_pair_and_rook_on_open_file_are_rewarded() {
    assert_eq!(row("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1", Row::Pieces)[0], WEIGHTS[layout::BISHOP_PAIR]);
    assert_eq!(row("4k3/8/8/8/8/8/8/2N1KB2 w - - 0 1", Row::Pieces)[0], S::ZERO);
    assert_eq!(row("4k3/p7/8/8/8/8/P7/R3K3 w - - 0 1", Row::Pieces)[0], S::ZERO);
    assert_eq!(row("4k3/p7/8/8/8/8/8/R3K3 w - - 0 1", Row::Pieces)[0], WEIGHTS[layout::ROOK_HALF_OPEN_FILE]);
    assert_eq!(row("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", Row::Pieces)[0], WEIGHTS[layout::ROOK_OPEN_FILE]);
}

#[test]
fn phase_runs_from_full_at_the_start_to_zero_with_only_pawns() {
    assert_eq!(super::terms(&Board::startpos()).phase, MAX_PHASE);
    assert_eq!(terms("4k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1").phase, 0);
    assert_eq!(terms("3qk3/8/8/8/8/8/8/R3K3 w - - 0 1").phase, 6);
}

#[test]
fn lone_minor_piece_without_pawns_scores_as_a_draw() {
    let minor = evaluate(&board("8/8/8/4k3/8/8/8/2B1K3 w - - 0 1"));
    let rook = evaluate(&board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1"));
    assert!(minor.abs() < 60, "K+B v K scores {minor}");
    assert!(rook > 400, "K+R v K scores {rook}");
}

#[test]
fn trace_reports_the_score_evaluate_returns() {
    let b = board("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3");
    let score = evaluate(&b);
    let text = trace(&b);
    assert!(text.contains(&format!("{score:+} (side to move)")), "{text}");
    assert!(text.contains(&format!("{:+} (white's view)", -score)), "{text}");
    for term in ["Material", "Mobility", "Passed pawns", "King safety", "Phase"] {
        assert!(text.contains(term), "{term} missing from\n{text}");
    }
}

#[test]
fn piece_values_rank_pieces_as_usual() {
    let v: Vec<i32> = PieceType::ALL.iter().map(|&pt| piece_value(pt)).collect();
    assert_eq!(v, vec![100, 320, 330, 500, 950, 0]);
}
