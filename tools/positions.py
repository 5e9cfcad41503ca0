"""Random positions for the black-box tests and the benchmarks (python-chess):
tablebase positions of a given material, positions of every material in a
Syzygy directory, and positions along random lines of a Polyglot book. A
seed gives the same positions every time."""
import pathlib
import random

import chess
import chess.polyglot


def random_board(white, black, rng, clock=lambda rng: rng.randrange(60)):
    """A legal position with the pieces `white` and `black` (letters, `KQ`
    and `KR`), the side to move at random and the halfmove clock `clock(rng)`."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(chess.SQUARES, len(white) + len(black))
        ok = True
        for letters, color in ((white, chess.WHITE), (black, chess.BLACK)):
            for letter in letters:
                sq = squares.pop()
                piece = chess.Piece(chess.PIECE_SYMBOLS.index(letter.lower()), color)
                ok &= not (piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7))
                board.set_piece_at(sq, piece)
        board.turn = rng.choice([chess.WHITE, chess.BLACK])
        board.halfmove_clock = clock(rng)
        if ok and board.is_valid():
            return board


def material_names(syzygy):
    """The materials of the WDL tables in the directory `syzygy` (`KQvK`, …)."""
    return sorted(p.stem for p in pathlib.Path(syzygy).glob("*.rtbw"))


def material_positions(syzygy, count, seed, clock=None):
    """`count` positions with legal moves, each of a material of `syzygy`
    drawn at random and either colour; `clock(rng)`, when given, sets the
    halfmove clock after the position is drawn."""
    rng = random.Random(seed)
    names = material_names(syzygy)
    boards = []
    while len(boards) < count:
        white, black = rng.choice(names).split("v")
        if rng.random() < 0.5:
            white, black = black, white
        board = random_board(white, black, rng)
        if clock is not None:
            board.halfmove_clock = clock(rng)
        if board.legal_moves.count():
            boards.append(board)
    return boards


def book_positions(book, count, seed):
    """`count` positions along random lines of the Polyglot book `book`, up
    to 15 moves deep, one in five a random move further (often out of the
    book); none is over."""
    rng = random.Random(seed)
    out = []
    with chess.polyglot.open_reader(book) as reader:
        while len(out) < count:
            board = chess.Board()
            for _ in range(rng.randrange(0, 16)):
                entries = list(reader.find_all(board, minimum_weight=0))
                if not entries:
                    break
                board.push(rng.choice(entries).move)
            if rng.random() < 0.2 and any(board.legal_moves):
                board.push(rng.choice(list(board.legal_moves)))
            if not board.is_game_over():
                out.append(board)
    return out
