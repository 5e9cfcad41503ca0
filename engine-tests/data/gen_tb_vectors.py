#!/usr/bin/env python3
"""Generate tb_vectors.csv: random legal positions over every table in
../shared/syzygy with python-chess's WDL and DTZ answers.

    .venv/bin/python engine-tests/data/gen_tb_vectors.py [SYZYGY_DIR] [OUT]

Each line is `fen;wdl;dtz` (after a header line). For every table the
positions come in both colour orientations (the table's stronger side as
white and as black) and with either side to move; pawn tables get extra
positions with an en-passant square (legal, illegal because of a pin, and
positions where en passant is the only legal move), and the 50-move counter
is random so that it is seen not to matter to WDL/DTZ. The seed is fixed, so
the file is reproducible with the same python-chess version (1.11.2).
"""
import os
import pathlib
import random
import sys

import chess
import chess.syzygy

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_TB = HERE.parent.parent.parent / "shared" / "syzygy"

PER_TABLE = 560
EXTRA_5 = 1500  # more positions for each 5-piece table
EP_POSITIONS = 1500


def place(board: chess.Board, white: str, black: str, rng: random.Random) -> bool:
    squares = rng.sample(chess.SQUARES, len(white) + len(black))
    for letters, color in ((white, chess.WHITE), (black, chess.BLACK)):
        for letter in letters:
            sq = squares.pop()
            piece = chess.Piece(chess.PIECE_SYMBOLS.index(letter.lower()), color)
            if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
                return False
            board.set_piece_at(sq, piece)
    return True


def random_position(white: str, black: str, rng: random.Random) -> chess.Board:
    while True:
        board = chess.Board(None)
        if not place(board, white, black, rng):
            continue
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        board.halfmove_clock = rng.choice([0, 0, rng.randrange(100)])
        board.fullmove_number = rng.randrange(1, 120)
        if board.is_valid():
            return board


def ep_position(white: str, black: str, rng: random.Random) -> chess.Board:
    """A position right after a double pawn push next to an enemy pawn."""
    while True:
        board = chess.Board(None)
        turn = rng.choice([chess.WHITE, chess.BLACK])
        mover = not turn  # the side that just pushed
        file = rng.randrange(8)
        side = rng.choice([-1, 1])
        if not 0 <= file + side < 8:
            continue
        rank = 3 if mover == chess.WHITE else 4  # pushed pawn's rank
        pushed = chess.square(file, rank)
        capturer = chess.square(file + side, rank)
        board.set_piece_at(pushed, chess.Piece(chess.PAWN, mover))
        board.set_piece_at(capturer, chess.Piece(chess.PAWN, turn))
        pieces = {chess.WHITE: list(white), chess.BLACK: list(black)}
        pieces[mover].remove("P")
        pieces[turn].remove("P")
        rest = [(l, chess.WHITE) for l in pieces[chess.WHITE]] + [(l, chess.BLACK) for l in pieces[chess.BLACK]]
        free = [s for s in chess.SQUARES if board.piece_at(s) is None]
        squares = rng.sample(free, len(rest))
        ok = True
        for (letter, color), sq in zip(rest, squares):
            piece = chess.Piece(chess.PIECE_SYMBOLS.index(letter.lower()), color)
            if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7):
                ok = False
            board.set_piece_at(sq, piece)
        if not ok:
            continue
        board.turn = turn
        board.ep_square = chess.square(file, 2 if mover == chess.WHITE else 5)
        board.halfmove_clock = 0
        if board.is_valid():
            return board


def main() -> None:
    tbdir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_TB
    out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "tb_vectors.csv"
    rng = random.Random(20240605)
    names = sorted(p.stem for p in tbdir.glob("*.rtbw"))
    rows = []
    with chess.syzygy.open_tablebase(str(tbdir)) as tb:

        def add(board: chess.Board) -> None:
            fen = board.fen(en_passant="fen")
            rows.append((fen, tb.probe_wdl(board), tb.probe_dtz(board)))

        for name in names:
            white, black = name.split("v")
            count = PER_TABLE + (EXTRA_5 if len(name) == 6 else 0)
            for i in range(count):
                w, b = (white, black) if i % 2 == 0 else (black, white)
                add(random_position(w, b, rng))
        pawn_pairs = [n.split("v") for n in names if "P" in n.split("v")[0] and "P" in n.split("v")[1]]
        only_ep = 0
        for i in range(EP_POSITIONS):
            white, black = pawn_pairs[i % len(pawn_pairs)]
            if i % 2:
                white, black = black, white
            board = ep_position(white, black, rng)
            legal = list(board.legal_moves)
            if legal and all(board.is_en_passant(m) for m in legal):
                only_ep += 1
            add(board)
        # Positions where en passant is the only legal move are rare (maybe
        # impossible with this little material): look a while for some.
        for _ in range(20_000):
            if only_ep >= 20:
                break
            white, black = rng.choice(pawn_pairs)
            board = ep_position(white, black, rng)
            legal = list(board.legal_moves)
            if legal and all(board.is_en_passant(m) for m in legal):
                only_ep += 1
                add(board)
    with open(out, "w") as f:
        f.write("fen;wdl;dtz\n")
        for fen, wdl, dtz in rows:
            f.write(f"{fen};{wdl};{dtz}\n")
    print(f"{len(rows)} positions over {len(names)} tables ({only_ep} with only en passant) -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
