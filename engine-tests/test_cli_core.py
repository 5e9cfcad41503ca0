"""The chess-core tools, checked against python-chess and Stockfish's figures."""
import chess
import chess.polyglot

from conftest import SHARED, run


def test_perft_6_from_start(exe):
    out = run(exe, "perft", "6").stdout
    assert out.strip().endswith("Nodes searched: 119060324")
    lines = [l for l in out.splitlines() if ":" in l and not l.startswith("Nodes")]
    assert len(lines) == 20
    assert "e2e4: 9771632" in lines


def test_perft_chess960_uses_king_takes_rook(exe):
    fen = "rkqnrbbn/p2p1pp1/8/1pp1p2p/3P1P1P/6N1/PPP1P1P1/RKQNRBB1 w EAea - 0 5"
    out = run(exe, "perft", "4", "--fen", fen, "--chess960").stdout
    assert out.strip().endswith("Nodes searched: 567417")


def test_show_matches_python_chess_on_vector_positions(exe):
    rows = [l.split(";") for l in (SHARED / "vectors" / "keys.csv").read_text().splitlines()[1:200]]
    fens = [r[0] for r in rows] + ["not a fen", "8/8/8/8/8/8/8/K6K w - - 0 1"]
    out = run(exe, "show", stdin="\n".join(fens) + "\n").stdout
    blocks = out.strip().split("\nFen: ")
    assert len(blocks) == len(fens)
    for fen, row, block in zip(fens, rows, blocks):
        board = chess.Board(fen)
        assert f"Key: {row[1]}" in block
        assert f"Polyglot key: {chess.polyglot.zobrist_hash(board):016x}" in block
        assert f"Legal moves: {board.legal_moves.count()}" in block
    assert "Error:" in blocks[-2] and "Error:" in blocks[-1]


def test_train_measure_repeats_the_ledgers_held_out_loss(exe):
    """`train --measure` scores a committed checkpoint on a held-out file
    without training: the numbers its last leg wrote into the ledger."""
    import json
    from conftest import ROOT

    nets = ROOT / "nets"
    ledger = json.loads((nets / "gen0-hw64.nnue.ckpt.json").read_text())["legs"][-1]
    out = run(exe, "train", "--init", str(nets / "gen0-hw64.nnue.ckpt"), "--validation",
              str(nets / "heldout-4242.bin"), "--measure", "--wdl", "0")
    assert out.returncode == 0, out.stderr
    assert f"network {ledger['validation_loss']:.6f}" in out.stdout
    assert f"hand-written {ledger['hand_written_validation_loss']:.6f}" in out.stdout
    assert f"{ledger['leg']} leg(s)" in out.stdout
    # Without a held-out file there is nothing to measure: a usage error, not a panic.
    bad = run(exe, "train", "--init", str(nets / "gen0-hw64.nnue.ckpt"), "--measure")
    assert bad.returncode == 2 and "--validation" in bad.stderr


def test_train_measure_prints_the_yardstick_and_the_quantisation_error(exe):
    """With --yardstick, `train --measure` prints the yardstick loss of the
    hand-written evaluation and of the float and quantised network, and the
    quantised network's difference from the float one on the held-out file."""
    import re
    from conftest import ROOT

    nets = ROOT / "nets"
    args = ["train", "--init", str(nets / "gen0-hw64.nnue.ckpt"), "--validation", str(nets / "heldout-4243.bin"),
            "--measure", "--wdl", "0"]
    out = run(exe, *args, "--yardstick", str(nets / "yardstick.bin"))
    assert out.returncode == 0, out.stderr
    line = re.search(r"yardstick loss \(sigmoid\(eval / 140\), (\d+) positions\): hand-written ([0-9.]+), "
                     r"float network ([0-9.]+), quantised network ([0-9.]+)", out.stdout)
    assert line, out.stdout
    positions, hand, net, quant = int(line[1]), *map(float, line.groups()[1:])
    assert positions > 150_000 and 0.05 < hand < 0.1 and abs(net - quant) < 0.001
    quantisation = re.search(r"quantised - float on the held-out positions: mean ([-+0-9.]+) cp, "
                             r"mean absolute ([0-9.]+) cp", out.stdout)
    assert quantisation and float(quantisation[2]) < 1.0, out.stdout
    # A scale must be a number of centipawns (or `fit` when training): usage errors, not panics.
    for bad_scale in ["0", "-5", "nan", "huge"]:
        bad = run(exe, *args, f"--scale={bad_scale}")
        assert bad.returncode == 2 and "--scale" in bad.stderr, bad.stderr
    fit = run(exe, *args, "--scale", "fit")
    assert fit.returncode != 0 and "--scale" in fit.stderr, fit.stderr


def test_train_measure_judges_a_given_network_file(exe):
    """`train --measure --net FILE` judges that file against the checkpoint's
    float network (the committed gen4-hw64 file was rounded to nearest:
    1.25 cp); a network of another shape is refused, naming the file."""
    import re
    from conftest import ROOT

    nets = ROOT / "nets"
    args = ["train", "--init", str(nets / "gen4-hw64.nnue.ckpt"), "--validation", str(nets / "heldout-4243.bin"),
            "--measure", "--wdl", "0", "--net"]
    out = run(exe, *args, str(nets / "gen4-hw64.nnue"))
    assert out.returncode == 0, out.stderr
    line = re.search(r"mean ([-+0-9.]+) cp, mean absolute ([0-9.]+) cp", out.stdout)
    assert line and 1.2 < float(line[2]) < 1.3, out.stdout
    bad = run(exe, *args, str(nets / "gen0-h128.nnue"))
    assert bad.returncode == 1 and "gen0-h128.nnue" in bad.stderr and "hidden size 64" in bad.stderr, bad.stderr
    assert "panicked" not in bad.stderr
