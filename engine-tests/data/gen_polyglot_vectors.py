#!/usr/bin/env python3
"""Polyglot cross-check vectors: what python-chess's `chess.polyglot` reads.

For each book, positions are collected breadth-first from the start position
through book moves and through any legal move into a position the book knows
(one-sided books, moves a book dropped), up to a per-book budget, then by seeded random playouts
that follow book moves while they exist and random legal moves afterwards, so
positions just outside the book (no entry) are covered too. For every position
one line is written:

    book;fen;key;moves

`book` is the file name, `key` python-chess's Polyglot key in 16 hex digits,
`moves` a space-separated list of `uci/weight/learn` for every entry that
`find_all(board, minimum_weight=0)` yields (file order; castling in standard
notation), empty when the book has nothing for the position.

Usage: gen_polyglot_vectors.py OUT.txt.gz BOOK[:BUDGET] ...
"""
import collections
import gzip
import random
import sys

import chess
import chess.polyglot


def entries(reader, board):
    return [f"{e.move.uci()}/{e.weight}/{e.learn}" for e in reader.find_all(board, minimum_weight=0)]


def _after(board, move):
    child = board.copy(stack=False)
    child.push(move)
    return child


def collect(path, budget, rng):
    out = collections.OrderedDict()
    with chess.polyglot.open_reader(path) as reader:
        queue = collections.deque([chess.Board()])
        seen = set()
        bfs_budget = budget * 3 // 4
        while queue and len(out) < bfs_budget:
            board = queue.popleft()
            key = chess.polyglot.zobrist_hash(board)
            if key in seen:
                continue
            seen.add(key)
            found = list(reader.find_all(board, minimum_weight=0))
            out[key] = (board.fen(), entries(reader, board))
            # Book moves, and legal moves into positions the book knows.
            book_moves = {e.move for e in found}
            moves = [
                m for m in board.legal_moves
                if m in book_moves or next(reader.find_all(_after(board, m), minimum_weight=0), None)
            ]
            for move in moves:
                queue.append(_after(board, move))
        attempts = 0
        while len(out) < budget and attempts < budget * 20:
            attempts += 1
            board = chess.Board()
            for _ in range(rng.randint(1, 40)):
                book_moves = [e.move for e in reader.find_all(board, minimum_weight=0)]
                legal = list(board.legal_moves)
                if not legal:
                    break
                board.push(rng.choice(book_moves) if book_moves and rng.random() < 0.9 else rng.choice(legal))
                key = chess.polyglot.zobrist_hash(board)
                if key not in out:
                    out[key] = (board.fen(), entries(reader, board))
    return [(fen, key, moves) for key, (fen, moves) in out.items()]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rng = random.Random(20240607)
    lines = []
    for arg in sys.argv[2:]:
        path, _, budget = arg.partition(":")
        rows = collect(path, int(budget or 1000000), rng)
        name = path.rsplit("/", 1)[-1]
        with_moves = sum(1 for r in rows if r[2])
        print(f"{path}: {len(rows)} positions, {with_moves} with entries", file=sys.stderr)
        lines += [f"{name};{fen};{key:016x};{' '.join(moves)}" for fen, key, moves in rows]
    with gzip.open(sys.argv[1], "wt", compresslevel=9) as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
