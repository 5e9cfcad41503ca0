use super::checkpoint::{Checkpoint, CheckpointError};
use super::data::{game_samples, other_perspective, Filter, FilterCounts, Sample};
use super::grad::{self, predict, Gradient, Target, CHUNKS};
use super::optim::AdamW;
use super::*;
use crate::board::Board;
use crate::nnue::header::HeaderError;
use crate::nnue::{feature_index, Base, Quantisation};
use crate::pgn;
use crate::records::{score, GameRecorder, GameResult};
use crate::testdata::TempDir;
use crate::types::{Color, PieceType};

/// Material balance for the side to move, in centipawns.
fn material(b: &Board) -> i32 {
    let mut cp = 0;
    for sq in b.occupied() {
        let Some(p) = b.piece_on(sq) else { continue };
        let v = match p.kind() {
            PieceType::Pawn => 100,
            PieceType::Knight | PieceType::Bishop => 300,
            PieceType::Rook => 500,
            PieceType::Queen => 900,
            PieceType::King => 0,
        };
        cp += if p.color() == b.side_to_move() { v } else { -v };
    }
    cp
}

/// The committed self-play PGN as value-only records scored by material:
/// something a small network can learn in a few epochs.
fn material_records() -> Vec<u8> {
    let text = crate::testdata::read("pgn/stockfish-selfplay-200.pgn").expect("committed test PGN");
    let mut file = Vec::new();
    for g in pgn::parse(&text) {
        let Ok(start) = g.start_board() else { continue };
        let Ok(mut rec) = GameRecorder::new(&start) else { continue };
        let ok = g.replay_with(|b, m| {
            let _ = rec.push_visits(m, score::from_cp(material(b)), &[]);
        });
        let result = match g.result.as_deref() {
            Some("1-0") => GameResult::WhiteWin,
            Some("0-1") => GameResult::BlackWin,
            _ => GameResult::Draw,
        };
        if ok.is_ok() {
            file.extend_from_slice(&rec.finish(result));
        }
    }
    file
}

fn config(dir: &TempDir, data: PathBuf, threads: usize) -> TrainConfig {
    TrainConfig {
        data: vec![data],
        out: dir.file("net.nnue"),
        hidden: Some(16),
        epochs: 3,
        lr: 0.01,
        lr_end: 0.001,
        planned: None,
        wdl: 0.0,
        scale: Some(400.0),
        batch: 1024,
        buffer: 8192,
        threads,
        seed: Some(7),
        base: None,
        filter: Filter::default(),
        start: Start::Fresh,
        validation: Vec::new(),
        yardstick: Vec::new(),
        calibrate: 0,
    }
}

fn write_data(dir: &TempDir) -> PathBuf {
    let path = dir.file("data.bin");
    std::fs::write(&path, material_records()).unwrap();
    path
}

#[test]
fn other_perspective_is_the_feature_index_of_the_other_side() {
    let b = Board::from_fen("r3k2r/pp1n1ppp/2p1b3/q7/3PP3/2N2N2/PP3PPP/R2QKB1R b KQkq - 2 9", false).unwrap();
    for sq in b.occupied() {
        let p = b.piece_on(sq).unwrap();
        for c in [Color::White, Color::Black] {
            let ours = feature_index(c, p, sq) as u16;
            assert_eq!(other_perspective(ours), feature_index(!c, p, sq) as u16);
            assert_eq!(other_perspective(other_perspective(ours)), ours);
        }
    }
}

#[test]
fn sample_holds_the_side_to_move_features_score_and_result() {
    let b = Board::from_fen("4k3/8/8/8/8/8/4P3/4K2R b K - 0 1", false).unwrap();
    let s = Sample::new(&b, score::from_cp(-250), GameResult::WhiteWin);
    assert_eq!(s.count, 4);
    let mut want: Vec<u16> =
        b.occupied().into_iter().map(|sq| feature_index(Color::Black, b.piece_on(sq).unwrap(), sq) as u16).collect();
    let mut got = s.ours().to_vec();
    want.sort_unstable();
    got.sort_unstable();
    assert_eq!(got, want);
    assert_eq!(s.result, 0.0, "white won: black to move lost");
    assert!((s.score - score::expected_score(-250) as f32).abs() < 1e-4);
}

#[test]
fn filters_leave_out_opening_check_tactical_and_extreme_positions() {
    let text = "[Result \"1-0\"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n";
    let g = &pgn::parse(text)[0];
    let mut rec = GameRecorder::new(&g.start_board().unwrap()).unwrap();
    let mut ply = 0;
    g.replay_with(|_, m| {
        // Ply 5 (3... Nf6) gets a decided score.
        let s = if ply == 5 { score::from_cp(5000) } else { score::from_cp(20) };
        rec.push_visits(m, s, &[]).unwrap();
        ply += 1;
    })
    .unwrap();
    let game = crate::records::parse(&rec.finish(GameResult::WhiteWin)).unwrap().remove(0);
    let mut counts = FilterCounts::default();
    let mut out = Vec::new();
    game_samples(&game, &Filter { skip_plies: 2, max_cp: 2000 }, Base::Zero, &mut counts, &mut out);
    assert_eq!(
        counts,
        FilterCounts { seen: 7, kept: 3, opening: 2, in_check: 0, tactical: 1, extreme: 1 },
        "plies 3, 4, 5 kept; 4. Qxf7# is a capture"
    );
    assert_eq!(out.len(), 3);
}

#[test]
fn analytic_gradient_matches_finite_differences() {
    for base in [Base::Zero, Base::HandWritten] {
        for scale in [400.0, 140.0] {
            gradient_matches_finite_differences(base, scale);
        }
    }
}

fn gradient_matches_finite_differences(base: Base, scale: f32) {
    let net = FloatNetwork::random(16, 3);
    let b = Board::from_fen("r1bqk1nr/pppp1ppp/2n5/2b1p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", false).unwrap();
    let sample = Sample::with_base(&b, score::from_cp(35), GameResult::Draw, base);
    assert_eq!(i32::from(sample.base), if base == Base::Zero { 0 } else { crate::eval::evaluate(&b) });
    // Output units straight to logistic units (logit scale 1), so that the
    // random network's outputs span the logistic.
    let target = Target::new(0.3, scale, scale);
    let score = 1.0 / (1.0 + (-35.0f32 / scale).exp());
    assert!((sample.score_at(scale) - score).abs() < 1e-4, "{} vs {score}", sample.score_at(scale));
    let loss = |net: &FloatNetwork| -> f64 {
        let t = 0.3 * sample.result + 0.7 * score;
        f64::from((predict(net, &sample, &target) - t).powi(2))
    };
    let mut grads: Vec<Gradient> = (0..CHUNKS).map(|_| Gradient::zeros(16)).collect();
    grad::batch_gradient(&net, std::slice::from_ref(&sample), &target, 1, &mut grads);
    let g = &grads[0];
    let f = usize::from(sample.ours()[3]);
    let theirs = usize::from(other_perspective(sample.ours()[5]));
    let checks: Vec<(&str, usize, f32)> = vec![
        ("feature weight", f * 16 + 2, g.feature_weights[f * 16 + 2]),
        ("their feature weight", theirs * 16 + 9, g.feature_weights[theirs * 16 + 9]),
        ("feature bias", 5, g.feature_bias[5]),
        ("output weight", 20, g.output_weights[20]),
    ];
    let h = 1e-3f32;
    for (what, i, analytic) in checks {
        let mut plus = net.clone();
        let mut minus = net.clone();
        let (p, m) = match what {
            "feature bias" => (&mut plus.feature_bias_mut()[i], &mut minus.feature_bias_mut()[i]),
            "output weight" => (&mut plus.output_weights_mut()[i], &mut minus.output_weights_mut()[i]),
            _ => (&mut plus.feature_weights_mut()[i], &mut minus.feature_weights_mut()[i]),
        };
        *p += h;
        *m -= h;
        let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(h));
        let err = (numeric - f64::from(analytic)).abs();
        assert!(err <= 1e-3 * numeric.abs().max(1e-3) + 2e-5, "{what}: analytic {analytic}, numeric {numeric}");
    }
    let mut plus = net.clone();
    plus.set_output_bias(net.output_bias() + h);
    let mut minus = net.clone();
    minus.set_output_bias(net.output_bias() - h);
    let numeric = (loss(&plus) - loss(&minus)) / (2.0 * f64::from(h));
    assert!((numeric - f64::from(g.output_bias)).abs() <= 1e-3 * numeric.abs() + 2e-5, "output bias");
}

#[test]
fn loss_falls_on_a_small_fixed_data_set() {
    let dir = TempDir::new("train-loss");
    let mut cfg = config(&dir, write_data(&dir), 2);
    cfg.epochs = 6;
    let reports = train(&cfg, |_| {}).unwrap();
    assert_eq!(reports.len(), 6);
    assert!(reports[0].counts.kept > 5_000, "{:?}", reports[0].counts);
    let losses: Vec<f64> = reports.iter().map(|r| r.loss).collect();
    assert!(losses.windows(2).all(|w| w[1] < w[0]), "loss per epoch: {losses:?}");
    assert!(losses[5] < 0.1 * losses[0], "loss per epoch: {losses:?}");
    // The shipped, quantised network has learned the material scores: on the
    // positions it was trained on its error is a fraction of what a network
    // that knows nothing (always ½) makes.
    let net = crate::nnue::Network::load(&cfg.out).unwrap();
    let games = crate::records::parse(&std::fs::read(&cfg.data[0]).unwrap()).unwrap();
    let (mut error, mut baseline, mut n) = (0.0, 0.0, 0.0);
    for g in &games {
        crate::records::export::positions(g, |p| {
            if p.board.in_check() || p.cp.abs() > 2000 {
                return;
            }
            let predicted = score::expected_score(net.evaluate_board(p.board));
            let wanted = score::expected_score(p.cp);
            error += (predicted - wanted).abs();
            baseline += (0.5 - wanted).abs();
            n += 1.0;
        });
    }
    assert!(error < 0.4 * baseline, "mean error {:.4} against {:.4} for a constant ½", error / n, baseline / n);
}

#[test]
fn training_gives_the_same_network_on_one_and_two_threads() {
    let dir = TempDir::new("train-threads");
    let data = write_data(&dir);
    let one = config(&dir, data.clone(), 1);
    let mut two = config(&dir, data, 2);
    two.out = dir.file("two.nnue");
    train(&one, |_| {}).unwrap();
    train(&two, |_| {}).unwrap();
    assert_eq!(std::fs::read(&one.out).unwrap(), std::fs::read(&two.out).unwrap());
    assert_eq!(std::fs::read(one.checkpoint_path()).unwrap(), std::fs::read(two.checkpoint_path()).unwrap());
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let dir = TempDir::new("train-resume");
    let data = write_data(&dir);
    let mut whole = config(&dir, data.clone(), 2);
    whole.planned = Some(50_000);
    train(&whole, |_| {}).unwrap();
    let mut part = whole.clone();
    part.out = dir.file("part.nnue");
    part.epochs = 1;
    assert_eq!(train(&part, |_| {}).unwrap().len(), 1);
    part.epochs = 3;
    part.start = Start::Resume;
    let mut resumed_at = None;
    let reports = train(&part, |e| {
        if let Event::Continued { legs, .. } = e {
            resumed_at = Some(legs);
        }
    })
    .unwrap();
    assert_eq!(resumed_at, Some(1));
    assert_eq!(reports.iter().map(|r| r.leg).collect::<Vec<_>>(), vec![2, 3]);
    assert_eq!(std::fs::read(&whole.out).unwrap(), std::fs::read(&part.out).unwrap());
}

#[test]
fn resume_refuses_a_checkpoint_of_another_run() {
    let dir = TempDir::new("train-mismatch");
    let data = write_data(&dir);
    let mut cfg = config(&dir, data, 1);
    cfg.epochs = 1;
    train(&cfg, |_| {}).unwrap();
    cfg.start = Start::Resume;
    cfg.epochs = 2;
    cfg.seed = Some(8);
    assert!(matches!(train(&cfg, |_| {}), Err(TrainError::ResumeMismatch { .. })));
    cfg.seed = Some(7);
    cfg.hidden = Some(32);
    assert!(matches!(train(&cfg, |_| {}), Err(TrainError::ResumeMismatch { .. })));
    cfg.hidden = Some(16);
    cfg.base = Some(Base::HandWritten);
    assert!(matches!(train(&cfg, |_| {}), Err(TrainError::ResumeMismatch { .. })));
}

#[test]
fn a_network_on_the_hand_written_base_starts_as_it_and_learns_a_correction() {
    let dir = TempDir::new("train-base");
    let data = write_data(&dir);
    let schedule = Schedule { lr: 0.01, lr_end: 0.001, planned: 1000 };
    let fresh = fresh_state(16, 7, Base::HandWritten, schedule).net.quantise();
    let b = Board::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3", false).unwrap();
    assert_eq!(fresh.evaluate_board(&b), 0, "the untrained correction is zero");
    assert_eq!(crate::search::with_base(&b, &fresh, 0), crate::eval::evaluate(&b));

    // The records are scored by material alone: the correction moves the
    // hand-written evaluation towards it, so the loss falls below the
    // hand-written evaluation's own.
    let mut cfg = config(&dir, data.clone(), 2);
    cfg.base = Some(Base::HandWritten);
    cfg.validation = vec![data.clone()];
    let mut hand_written = None;
    let reports = train(&cfg, |e| {
        if let Event::HandWritten { validation_loss } = e {
            hand_written = Some(validation_loss);
        }
    })
    .unwrap();
    let hand_written = hand_written.expect("the hand-written loss is reported");
    let last = reports.last().unwrap();
    assert_eq!(last.hand_written_validation_loss, Some(hand_written));
    assert!(last.validation_loss.unwrap() < hand_written, "{:?} vs {hand_written}", last.validation_loss);

    // The base is in both files, and a checkpoint continues on it.
    let net = crate::nnue::Network::load(&cfg.out).unwrap();
    assert_eq!(net.base(), Base::HandWritten);
    assert_eq!(Checkpoint::load(&cfg.checkpoint_path()).unwrap().net.base(), Base::HandWritten);
    let mut next = cfg.clone();
    next.start = Start::Init(cfg.checkpoint_path());
    (next.base, next.out, next.epochs) = (None, dir.file("next.nnue"), 1);
    train(&next, |_| {}).unwrap();
    assert_eq!(crate::nnue::Network::load(&next.out).unwrap().base(), Base::HandWritten);
}

#[test]
fn damaged_data_is_an_error_naming_the_file_and_nothing_is_written() {
    let dir = TempDir::new("train-damaged");
    let data = write_data(&dir);
    let mut bytes = std::fs::read(&data).unwrap();
    bytes.truncate(bytes.len() - 3);
    std::fs::write(&data, &bytes).unwrap();
    let cfg = config(&dir, data.clone(), 1);
    match train(&cfg, |_| {}) {
        Err(TrainError::Records { path, .. }) => assert_eq!(path, data),
        other => panic!("expected a records error, got {other:?}"),
    }
    assert!(!cfg.out.exists());
    assert!(!cfg.checkpoint_path().exists());
}

#[test]
fn invalid_settings_are_refused() {
    let dir = TempDir::new("train-config");
    let base = config(&dir, dir.file("none.bin"), 1);
    for change in [
        |c: &mut TrainConfig| c.hidden = Some(20),
        |c: &mut TrainConfig| c.planned = Some(0),
        |c: &mut TrainConfig| c.epochs = 0,
        |c: &mut TrainConfig| c.wdl = 1.5,
        |c: &mut TrainConfig| c.batch = 0,
        |c: &mut TrainConfig| c.buffer = 10,
        |c: &mut TrainConfig| c.lr = f32::NAN,
    ] {
        let mut c = base.clone();
        change(&mut c);
        assert!(matches!(train(&c, |_| {}), Err(TrainError::Config(_))), "{c:?}");
    }
}

#[test]
fn learning_rate_falls_by_a_cosine_over_the_planned_positions() {
    let s = Schedule { lr: 0.01, lr_end: 0.0001, planned: 1000 };
    assert_eq!(s.rate(0), 0.01);
    assert!((s.rate(500) - 0.00505).abs() < 1e-6);
    assert!((s.rate(1000) - 0.0001).abs() < 1e-7);
    assert!((s.rate(5000) - 0.0001).abs() < 1e-7, "after the plan the rate stays at lr_end");
    assert!(s.rate(250) > s.rate(251));
}

fn sample_checkpoint() -> Checkpoint {
    let mut optimiser = AdamW::new(16);
    optimiser.m.iter_mut().enumerate().for_each(|(i, m)| *m = i as f32 * 1e-6);
    optimiser.v.iter_mut().enumerate().for_each(|(i, v)| *v = i as f32 * 1e-9);
    optimiser.steps = 12345;
    Checkpoint {
        net: FloatNetwork::random(16, 9),
        optimiser,
        legs: 4,
        seed: 77,
        trained: 987_654,
        schedule: Schedule { lr: 0.002, lr_end: 0.00002, planned: 30_000_000 },
    }
}

#[test]
fn checkpoint_round_trips() {
    let c = sample_checkpoint();
    let bytes = c.to_bytes();
    assert_eq!(bytes.len(), checkpoint::file_len(16));
    assert_eq!(Checkpoint::from_bytes(&bytes).unwrap(), c);
}

#[test]
fn rejects_damaged_checkpoints_with_offsets() {
    let good = sample_checkpoint().to_bytes();
    let len = good.len();
    let reject = |bytes: &[u8]| Checkpoint::from_bytes(bytes).unwrap_err();
    let mut b = good.clone();
    b[0] = b'X';
    assert!(matches!(reject(&b), CheckpointError::Header(HeaderError::BadMagic { .. })));
    assert_eq!(reject(&b).to_string(), "bad magic at offset 0: expected \"ARCK\"");
    let mut b = good.clone();
    b[4] = 1;
    assert!(matches!(reject(&b), CheckpointError::Header(HeaderError::UnsupportedVersion { version: 1, .. })));
    assert_eq!(reject(&b).to_string(), "unsupported checkpoint version 1 at offset 4 (expected 2)");
    let mut b = good.clone();
    b[8] = 17;
    assert_eq!(reject(&b).offset(), Some(8));
    let mut b = good.clone();
    b[12..14].copy_from_slice(&0u16.to_le_bytes());
    // The field that is wrong and its own offset, as the network file says it.
    assert!(matches!(reject(&b), CheckpointError::Header(HeaderError::BadQuantisation { field: "QA", value: 0, .. })));
    assert_eq!(reject(&b).to_string(), "QA = 0 at offset 12: must be in 1..=255");
    let mut b = good.clone();
    b[16..18].copy_from_slice(&0u16.to_le_bytes());
    assert_eq!(reject(&b).offset(), Some(16));
    let mut b = good.clone();
    b[18] = 2;
    assert_eq!(reject(&b).offset(), Some(18));
    assert!(matches!(reject(&b), CheckpointError::Header(HeaderError::UnknownFlags { value: 2, .. })));
    assert!(matches!(reject(&good[..len - 1]), CheckpointError::Truncated(t) if t.offset + t.needed == len as u64));
    let mut b = good.clone();
    b.push(0);
    assert!(matches!(reject(&b), CheckpointError::TrailingBytes { offset, extra: 1 } if offset == len));
    let mut b = good.clone();
    b[100] ^= 1;
    assert!(matches!(reject(&b), CheckpointError::ChecksumMismatch { offset, .. } if offset == len - 8));
    // A NaN parameter with a matching checksum is still refused, at its offset.
    let mut b = good.clone();
    b[68..72].copy_from_slice(&f32::NAN.to_le_bytes());
    let sum = crate::codec::fnv1a64(&b[..len - 8]);
    b[len - 8..].copy_from_slice(&sum.to_le_bytes());
    assert!(matches!(reject(&b), CheckpointError::BadValue { offset: 68, .. }));
    // A schedule with no planned positions is refused at its offset.
    let mut b = good.clone();
    b[48..56].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(reject(&b).offset(), Some(48));
    for cut in (0..len).step_by(997) {
        assert!(Checkpoint::from_bytes(&good[..cut]).is_err());
    }
}

#[test]
fn checkpoint_keeps_the_quantisation_constants() {
    let mut c = sample_checkpoint();
    let mut net = FloatNetwork::zeros(16, Quantisation { qa: 181, qb: 32, scale: 350 }).unwrap();
    net.feature_weights_mut().copy_from_slice(c.net.feature_weights());
    c.net = net;
    let back = Checkpoint::from_bytes(&c.to_bytes()).unwrap();
    assert_eq!(back.net.quantisation(), Quantisation { qa: 181, qb: 32, scale: 350 });
}

#[test]
fn validation_loss_is_measured_after_every_leg() {
    let dir = TempDir::new("train-validation");
    let data = write_data(&dir);
    let mut cfg = config(&dir, data.clone(), 2);
    let plain = train(&cfg, |_| {}).unwrap();
    assert!(plain.iter().all(|r| r.validation_loss.is_none()));
    cfg.out = dir.file("validated.nnue");
    cfg.validation = vec![data];
    let reports = train(&cfg, |_| {}).unwrap();
    let losses: Vec<f64> = reports.iter().map(|r| r.validation_loss.unwrap()).collect();
    assert!(losses.windows(2).all(|w| w[1] < w[0]), "{losses:?}");
    // Measuring does not change the training.
    assert_eq!(std::fs::read(dir.file("net.nnue")).unwrap(), std::fs::read(&cfg.out).unwrap());
}

#[test]
fn measuring_a_checkpoint_gives_the_loss_its_last_leg_printed() {
    let dir = TempDir::new("train-measure");
    let data = write_data(&dir);
    let mut cfg = config(&dir, data.clone(), 2);
    cfg.validation = vec![data.clone()];
    let reports = train(&cfg, |_| {}).unwrap();
    let last = reports.last().unwrap();
    let m =
        measure(&cfg.checkpoint_path(), std::slice::from_ref(&data), &[], &cfg.filter, cfg.wdl, 400.0, None).unwrap();
    assert_eq!((m.legs, m.trained), (3, last.trained.1));
    assert_eq!(Some(m.network), last.validation_loss);
    assert_eq!(Some(m.hand_written), last.hand_written_validation_loss);
    assert!(m.positions > 0);
    // A filter that keeps nothing is a typed error, not a loss of NaN.
    let none = Filter { skip_plies: 10_000, ..Filter::default() };
    assert!(matches!(
        measure(&cfg.checkpoint_path(), &[data], &[], &none, 0.0, 400.0, None),
        Err(TrainError::NothingHeldOut)
    ));
}

#[test]
fn a_calibrated_run_writes_its_last_network_rounded_to_the_data_and_measure_judges_that_file() {
    let dir = TempDir::new("train-calibrate");
    let data = write_data(&dir);
    let mut cfg = config(&dir, data.clone(), 2);
    cfg.validation = vec![data.clone()];
    cfg.calibrate = 400;
    let reports = train(&cfg, |_| {}).unwrap();
    let ckpt = Checkpoint::load(&cfg.checkpoint_path()).unwrap();
    let set = Dataset::open(std::slice::from_ref(&data)).unwrap();
    let boards = set.spread_positions(&cfg.filter, 400, reports[0].counts.kept).unwrap();
    assert_eq!(boards.len(), 400);
    // Asking for more than the data holds gives all of it (and reserves no more).
    let all = set.spread_positions(&cfg.filter, usize::MAX, reports[0].counts.kept).unwrap();
    assert_eq!(all.len() as u64, reports[0].counts.kept);
    let written = Network::load(&cfg.out).unwrap();
    assert_eq!(written, ckpt.net.quantise_calibrated(&boards));
    assert_ne!(written, ckpt.net.quantise_fitted());
    // --measure --net judges the file the run wrote: the run's own figure.
    let measured = |net: Option<&Path>| {
        measure(&cfg.checkpoint_path(), std::slice::from_ref(&data), &[], &cfg.filter, 0.0, 400.0, net)
    };
    let of_file = measured(Some(&cfg.out)).unwrap().quantisation;
    assert_eq!(Some(of_file), reports.last().unwrap().quantisation);
    assert_ne!(of_file, measured(None).unwrap().quantisation);
    // A network of another shape is refused, naming the file.
    let other = dir.file("other.nnue");
    Network::random(32, 1).write(&other).unwrap();
    let err = measured(Some(&other)).unwrap_err();
    assert!(matches!(&err, TrainError::Config(m) if m.contains("other.nnue")), "{err}");
}

/// The committed records split in two files of alternate games: a leg on
/// the first never reads the second.
fn write_two_halves(dir: &TempDir) -> (PathBuf, PathBuf) {
    let games = crate::records::parse(&material_records()).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for (i, g) in games.iter().enumerate() {
        let mut rec = GameRecorder::new(&g.start).unwrap();
        for p in &g.plies {
            rec.push_visits(p.mv, p.score, &p.visits).unwrap();
        }
        let bytes = rec.finish(g.result);
        if i % 2 == 0 { &mut a } else { &mut b }.extend_from_slice(&bytes);
    }
    let (pa, pb) = (dir.file("first.bin"), dir.file("second.bin"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    (pa, pb)
}

#[test]
fn two_legs_through_a_checkpoint_equal_one_process_training_both() {
    let dir = TempDir::new("train-legs");
    let (first, second) = write_two_halves(&dir);
    let filter = Filter::default();
    let kept = |p: &PathBuf| data::Dataset::open(std::slice::from_ref(p)).unwrap().count(&filter).unwrap().kept;
    // The plan covers both files: the boundary falls in the middle of the cosine.
    let planned = kept(&first) + kept(&second);
    let settings = LegSettings { wdl: 0.25, scale: 400.0, batch: 1000, buffer: 4096, threads: 2, filter };
    let schedule = Schedule { lr: 0.01, lr_end: 0.0001, planned };

    // One process: the first leg's files, then the second's.
    let mut one = fresh_state(16, 7, Base::Zero, schedule);
    let set = |p: &PathBuf| data::Dataset::open(std::slice::from_ref(p)).unwrap();
    let r1 = train_leg(&mut one, &set(&first), &settings, &mut |_| {}).unwrap();
    assert!(r1.lr.1 < 0.009 && r1.lr.1 > 0.001, "the leg ends mid-schedule: {:?}", r1.lr);
    train_leg(&mut one, &set(&second), &settings, &mut |_| {}).unwrap();
    assert_eq!((one.legs, one.trained), (2, planned));

    // Two legs, two runs, the state carried by the checkpoint file.
    let mut cfg = config(&dir, first, 2);
    cfg.epochs = 1;
    cfg.wdl = 0.25;
    cfg.batch = 1000;
    cfg.buffer = 4096;
    cfg.lr = 0.01;
    cfg.lr_end = 0.0001;
    cfg.planned = Some(planned);
    cfg.out = dir.file("leg1.nnue");
    train(&cfg, |_| {}).unwrap();
    let leg1 = cfg.checkpoint_path();
    let mut next = cfg.clone();
    next.data = vec![second];
    next.out = dir.file("leg2.nnue");
    next.start = Start::Init(leg1);
    (next.hidden, next.seed, next.planned) = (None, None, None);
    let reports = train(&next, |_| {}).unwrap();
    assert_eq!(reports[0].leg, 2);
    assert_eq!(reports[0].trained, (r1.trained.1, planned));

    assert_eq!(std::fs::read(next.checkpoint_path()).unwrap(), one.to_bytes(), "checkpoints differ");
    assert_eq!(std::fs::read(&next.out).unwrap(), one.net.quantise_fitted().to_bytes(), "networks differ");
}

#[test]
fn a_leg_reads_every_kept_position_once_whatever_the_buffer() {
    let dir = TempDir::new("train-leg-stream");
    let (first, second) = write_two_halves(&dir);
    let set = data::Dataset::open(&[first, second]).unwrap();
    let filter = Filter::default();
    let mut all = Vec::new();
    let counts = set.in_order(&filter, Base::Zero, &mut all).unwrap();
    let key = |s: &Sample| (s.features, s.count, s.score.to_bits(), s.result.to_bits());
    let mut want: Vec<_> = all.iter().map(key).collect();
    want.sort_unstable();
    for (buffer, batch) in [(1, 1), (1000, 7), (4096, 1000), (1 << 20, 4096)] {
        let mut got = Vec::new();
        let mut sizes = Vec::new();
        let leg_counts = set
            .leg(3, buffer, batch, &filter, Base::Zero, |b| {
                sizes.push(b.len());
                got.extend(b.iter().map(key));
                Ok(())
            })
            .unwrap();
        assert_eq!(leg_counts, counts);
        assert!(sizes[..sizes.len() - 1].iter().all(|&n| n == batch), "only the last batch is short");
        let in_order: Vec<_> = all.iter().map(key).collect();
        if buffer > 1 {
            assert_ne!(got, in_order, "buffer {buffer}: shuffled");
        }
        got.sort_unstable();
        assert_eq!(got, want, "buffer {buffer}, batch {batch}");
    }
}

/// The committed checkpoint of the shipped network and the committed
/// held-out file of its engine's games.
fn committed(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("nets").join(name)
}

#[test]
fn trainer_forward_pass_equals_the_engine_evaluation_on_real_positions() {
    let ckpt = Checkpoint::load(&committed("gen0-hw64.nnue.ckpt")).unwrap();
    let (net, quantised) = (&ckpt.net, ckpt.net.quantise_fitted());
    let data = Dataset::open(&[committed("heldout-4243.bin")]).unwrap();
    let (mut n, mut worst_float, mut quant_abs, mut worst_quant) = (0u32, 0f64, 0f64, 0f64);
    data.for_each_game(|game, counts| {
        data::kept_positions(game, &Filter::default(), counts, |board, stored| {
            // The trainer: its own forward pass over the sample's features, plus the sample's base.
            let sample = Sample::with_base(board, stored, game.result, net.base());
            let trainer =
                f64::from(grad::output(net, &sample)) * f64::from(net.quantisation().scale) + f64::from(sample.base);
            // The engine: the reference float pass over the board, plus the hand-written evaluation.
            let (float, quant) = yardstick::network_evaluations(net, &quantised, board);
            assert_eq!(float, net.evaluate(board) + f64::from(crate::eval::evaluate(board)));
            worst_float = worst_float.max((trainer - float).abs());
            quant_abs += (f64::from(quant) - float).abs();
            worst_quant = worst_quant.max((f64::from(quant) - float).abs());
            n += 1;
        });
    })
    .unwrap();
    assert!(n >= 1000, "{n} positions");
    assert!(worst_float <= 0.01, "trainer and engine float evaluations differ by up to {worst_float} cp");
    // The quantised network at its fitted QB: within 1 cp on average, 8 cp at
    // worst (measured: 0.93 and 6.9 over 28,809 positions).
    let mean = quant_abs / f64::from(n);
    assert!(mean <= 1.0 && worst_quant <= 8.0, "quantised - float: mean |d| {mean:.3} cp, worst {worst_quant:.3} cp");
}

#[test]
fn calibrated_rounding_brings_gen4_within_a_centipawn_on_positions_it_was_not_calibrated_on() {
    // gen4-hw64's rounding to nearest is 1.25 cp from its float network on
    // heldout-4243; rounded to 60,000 yardstick positions, 0.95.
    let ckpt = Checkpoint::load(&committed("gen4-hw64.nnue.ckpt")).unwrap();
    let calibration = Dataset::open(&[committed("yardstick.bin")]).unwrap();
    let kept =
        calibration.for_each_game(|game, counts| data::kept_positions(game, &Filter::default(), counts, |_, _| {}));
    let boards = calibration.spread_positions(&Filter::default(), 60_000, kept.unwrap().kept).unwrap();
    assert_eq!(boards.len(), 60_000);
    let calibrated = ckpt.net.quantise_calibrated(&boards);
    let held = Dataset::open(&[committed("heldout-4243.bin")]).unwrap();
    let error = |q: &Network| {
        yardstick::judge_quantised(&held, &Filter::default(), Some((&ckpt.net, q))).unwrap().network.unwrap()
    };
    let (nearest, calibrated) = (error(&ckpt.net.quantise_fitted()), error(&calibrated));
    assert!(nearest.mean_absolute_difference > 1.2, "{nearest:?}");
    assert!(calibrated.mean_absolute_difference < 1.0, "{calibrated:?}");
    assert!(calibrated.mean_difference.abs() < 0.2, "{calibrated:?}");
}

#[test]
fn fitted_scale_recovers_the_scale_results_were_drawn_at() {
    // Results drawn from σ(cp / 150) for evenly spread scores: the fit finds 150.
    let mut rng = crate::codec::SplitMix64::new(9);
    let pairs: Vec<(f32, f32)> = (0..200_000)
        .map(|i| {
            let cp = (i % 1201) as f32 - 600.0;
            let p = 1.0 / (1.0 + (-f64::from(cp) / 150.0).exp());
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let r = if u < p { 1.0 } else { 0.0 };
            (cp, r)
        })
        .collect();
    let fitted = yardstick::fit_pairs(&pairs);
    assert!((fitted - 150.0).abs() < 6.0, "fitted {fitted}");
}

#[test]
fn yardstick_of_the_hand_written_evaluation_repeats_its_definition() {
    let data = Dataset::open(&[committed("heldout-4243.bin")]).unwrap();
    let judged = yardstick::judge(&data, &Filter::default(), None).unwrap();
    assert!(judged.network.is_none());
    let (mut total, mut n) = (0.0, 0u64);
    data.for_each_game(|game, counts| {
        data::kept_positions(game, &Filter::default(), counts, |board, _| {
            let r = game.result.score_for(board.side_to_move());
            let eval = f64::from(crate::eval::evaluate(board));
            total += (1.0 / (1.0 + (-eval / 140.0).exp()) - r).powi(2);
            n += 1;
        });
    })
    .unwrap();
    assert_eq!(judged.positions, n);
    assert!((judged.hand_written - total / n as f64).abs() < 1e-12);
    // A fresh correction scores exactly its base: the same loss, no quantisation error.
    let fresh = fresh_state(16, 1, Base::HandWritten, Schedule { lr: 0.001, lr_end: 0.0, planned: 1 }).net;
    let with_net = yardstick::judge(&data, &Filter::default(), Some(&fresh)).unwrap();
    let net = with_net.network.unwrap();
    assert_eq!(
        (net.float, net.quantised, net.mean_absolute_difference),
        (judged.hand_written, judged.hand_written, 0.0)
    );
}
