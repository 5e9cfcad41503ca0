#!/usr/bin/env python3
"""Gauntlet: one engine against a list of UCI opponents, with python-chess.

    gauntlet.py --engine ./archivist [--engine-option Hash=64 ...] \
        --opponent sf1500=/usr/games/stockfish,UCI_LimitStrength=true,UCI_Elo=1500 \
        --opponent glaurung=/usr/games/glaurung,Threads=1,OwnBook=false \
        --games 20 --tc 10+0.1 [--concurrency 1] [--openings FILE] [--pgn-out FILE]

Games are played in pairs: each opening twice, the colours swapped. The
runner keeps both clocks itself (Fischer: the time a move took, measured
around the engine call, comes off the mover's clock, then the increment is
added); a side whose clock goes below zero loses on time. Games end by the
rules as cutechess-cli ends them (`game_end`): mate, stalemate, insufficient
material, a position on the board for the third time, and 100 plies without
a capture or pawn move. A draw that could only be claimed by playing a
repeating move is not taken for the engine (python-chess's
`outcome(claim_draw=True)` does that: it turned some lost games into draws
and pulled this runner's results towards 50 % beside cutechess-cli).
`--adjudicate` adds resign and draw adjudication from the engines' scores. A crash, an illegal or missing best move, or a hang loses the game
for that side and the engine is restarted for the next game.

`--tc` is `BASE+INC` in seconds (`10+0.1`, `60`), or `st=SECONDS` for a fixed
time per move (`go movetime`), where a move that takes longer than that plus
`--timemargin` loses on time, or `nodes=N` for a fixed node count per move
(`go nodes N`; no clock, only the hang check). With `nodes=`, an engine spec
may carry its own count, `nodes=N` among its options (it is not sent as a UCI
option): `sf250k=/usr/games/stockfish,Threads=1,nodes=250000`. The Elo ladder
behind the YACB elo estimate (tools/elo_ladder.md) was played this way.

The module is also imported by the tests (engine-tests/test_uci.py,
engine-tests/test_gauntlet.py), which play their short games with
`play_game`.
"""
from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import dataclasses
import datetime
import math
import os
import queue
import random
import shlex
import subprocess
import sys
import threading
import time
from typing import Callable, Iterable, Optional

import chess
import chess.engine
import chess.pgn

# ---------------------------------------------------------------------------
# Openings

# Short main lines of common openings (ECO), 4 to 8 plies, none of them
# decided: both colours keep their material and normal development.
BUILTIN_OPENINGS: list[tuple[str, str]] = [
    ("C60 Ruy Lopez", "e4 e5 Nf3 Nc6 Bb5 a6"),
    ("C65 Ruy Lopez, Berlin", "e4 e5 Nf3 Nc6 Bb5 Nf6"),
    ("C50 Italian, Giuoco Piano", "e4 e5 Nf3 Nc6 Bc4 Bc5"),
    ("C55 Two Knights", "e4 e5 Nf3 Nc6 Bc4 Nf6"),
    ("C45 Scotch", "e4 e5 Nf3 Nc6 d4 exd4 Nxd4"),
    ("C42 Petrov", "e4 e5 Nf3 Nf6 Nxe5 d6 Nf3 Nxe4"),
    ("C47 Four Knights", "e4 e5 Nf3 Nc6 Nc3 Nf6"),
    ("C25 Vienna", "e4 e5 Nc3 Nf6"),
    ("C41 Philidor", "e4 e5 Nf3 d6 d4 exd4"),
    ("B90 Sicilian, Najdorf", "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6"),
    ("B35 Sicilian, Accelerated Dragon", "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 g6"),
    ("B46 Sicilian, Taimanov", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 Nc6"),
    ("B42 Sicilian, Kan", "e4 c5 Nf3 e6 d4 cxd4 Nxd4 a6"),
    ("B33 Sicilian, Sveshnikov", "e4 c5 Nf3 Nc6 d4 cxd4 Nxd4 Nf6"),
    ("B31 Sicilian, Rossolimo", "e4 c5 Nf3 Nc6 Bb5 g6"),
    ("B52 Sicilian, Moscow", "e4 c5 Nf3 d6 Bb5+ Bd7"),
    ("B25 Sicilian, Closed", "e4 c5 Nc3 Nc6 g3 g6"),
    ("B22 Sicilian, Alapin", "e4 c5 c3 Nf6 e5 Nd5"),
    ("C15 French, Winawer", "e4 e6 d4 d5 Nc3 Bb4"),
    ("C11 French, Classical", "e4 e6 d4 d5 Nc3 Nf6"),
    ("C07 French, Tarrasch", "e4 e6 d4 d5 Nd2 c5"),
    ("C02 French, Advance", "e4 e6 d4 d5 e5 c5"),
    ("B18 Caro-Kann, Classical", "e4 c6 d4 d5 Nc3 dxe4 Nxe4 Bf5"),
    ("B12 Caro-Kann, Advance", "e4 c6 d4 d5 e5 Bf5"),
    ("B07 Pirc", "e4 d6 d4 Nf6 Nc3 g6"),
    ("B06 Modern", "e4 g6 d4 Bg7 Nc3 d6"),
    ("B01 Scandinavian", "e4 d5 exd5 Qxd5 Nc3 Qa5"),
    ("B04 Alekhine", "e4 Nf6 e5 Nd5 d4 d6"),
    ("D37 Queen's Gambit Declined", "d4 d5 c4 e6 Nc3 Nf6"),
    ("D38 QGD, Ragozin", "d4 d5 c4 e6 Nc3 Nf6 Nf3 Bb4"),
    ("D32 QGD, Tarrasch", "d4 d5 c4 e6 Nc3 c5"),
    ("D20 Queen's Gambit Accepted", "d4 d5 c4 dxc4 Nf3 Nf6"),
    ("D11 Slav", "d4 d5 c4 c6 Nf3 Nf6"),
    ("D10 Slav, Exchange", "d4 d5 c4 c6 cxd5 cxd5"),
    ("D43 Semi-Slav", "d4 d5 c4 c6 Nf3 Nf6 Nc3 e6"),
    ("E20 Nimzo-Indian", "d4 Nf6 c4 e6 Nc3 Bb4"),
    ("E12 Queen's Indian", "d4 Nf6 c4 e6 Nf3 b6"),
    ("E11 Bogo-Indian", "d4 Nf6 c4 e6 Nf3 Bb4+"),
    ("E01 Catalan", "d4 Nf6 c4 e6 g3 d5"),
    ("E70 King's Indian", "d4 Nf6 c4 g6 Nc3 Bg7 e4 d6"),
    ("D80 Grunfeld", "d4 Nf6 c4 g6 Nc3 d5"),
    ("A60 Modern Benoni", "d4 Nf6 c4 c5 d5 e6"),
    ("A57 Benko Gambit", "d4 Nf6 c4 c5 d5 b5"),
    ("A81 Dutch", "d4 f5 g3 Nf6 Bg2 e6"),
    ("D02 London System", "d4 d5 Nf3 Nf6 Bf4 e6"),
    ("A45 Trompowsky", "d4 Nf6 Bg5 e6"),
    ("D05 Colle", "d4 d5 Nf3 Nf6 e3 e6"),
    ("A36 English, Symmetrical", "c4 c5 Nc3 Nc6 g3 g6"),
    ("A22 English, Reversed Sicilian", "c4 e5 Nc3 Nf6 g3 d5"),
    ("A28 English, Four Knights", "c4 e5 Nc3 Nf6 Nf3 Nc6"),
    ("A13 Reti", "Nf3 d5 c4 e6"),
    ("A07 King's Indian Attack", "Nf3 d5 g3 Nf6 Bg2 c6"),
    ("A03 Bird", "f4 d5 Nf3 Nf6"),
    ("A01 Larsen", "b3 e5 Bb2 Nc6"),
]


@dataclasses.dataclass
class Opening:
    name: str
    fen: Optional[str]          # None: the standard start position
    moves: list[str]            # UCI moves played from there

    def board(self) -> chess.Board:
        board = chess.Board(self.fen) if self.fen else chess.Board()
        for uci in self.moves:
            board.push_uci(uci)
        return board


def _parse_move_line(start: chess.Board, text: str) -> list[str]:
    """Moves in SAN or UCI, move numbers and results allowed: `1. e4 e5 2. Nf3`."""
    board = start.copy()
    moves = []
    for token in text.replace("...", " ").split():
        token = token.rstrip(".")
        if not token or token.isdigit() or token in ("*", "1-0", "0-1", "1/2-1/2"):
            continue
        token = token.split(".")[-1]  # "1.e4"
        try:
            move = board.parse_uci(token)
        except ValueError:
            move = board.parse_san(token)
        moves.append(move.uci())
        board.push(move)
    return moves


def builtin_openings() -> list[Opening]:
    return [Opening(name, None, _parse_move_line(chess.Board(), san)) for name, san in BUILTIN_OPENINGS]


def load_openings(path: str) -> list[Opening]:
    """A PGN file (main lines, FEN tags honoured) or a text file with one
    opening a line: a FEN/EPD, or moves in SAN or UCI from the start position.
    Blank lines and lines starting with `#` are skipped."""
    openings = []
    if path.lower().endswith(".pgn"):
        with open(path, encoding="utf-8", errors="replace") as f:
            while (game := chess.pgn.read_game(f)) is not None:
                if game.errors:
                    raise ValueError(f"{path}: game {len(openings) + 1}: {game.errors[0]}")
                fen = game.headers.get("FEN")
                moves = [m.uci() for m in game.mainline_moves()]
                name = game.headers.get("Opening") or game.headers.get("ECO") or f"{os.path.basename(path)}#{len(openings) + 1}"
                openings.append(Opening(name, fen, moves))
    else:
        with open(path, encoding="utf-8", errors="replace") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                try:
                    if "/" in line:
                        try:
                            board, _ = chess.Board.from_epd(line)
                        except ValueError:
                            board = chess.Board(line)
                        openings.append(Opening(line, board.fen(), []))
                    else:
                        openings.append(Opening(line, None, _parse_move_line(chess.Board(), line)))
                except ValueError as e:
                    raise ValueError(f"{path}:{lineno}: {e}") from None
    if not openings:
        raise ValueError(f"{path}: no openings")
    for o in openings:
        if o.board().is_game_over(claim_draw=True):
            raise ValueError(f"opening {o.name!r} is already over")
    return openings


# ---------------------------------------------------------------------------
# Time controls and engine specs

@dataclasses.dataclass(frozen=True)
class TimeControl:
    base: float = 0.0              # seconds on each clock at the start
    inc: float = 0.0               # seconds added after each move
    movetime: Optional[float] = None  # fixed seconds per move instead of clocks
    nodes: Optional[int] = None        # fixed nodes per move instead of clocks

    @property
    def clocked(self) -> bool:
        return self.movetime is None and self.nodes is None

    @classmethod
    def parse(cls, text: str) -> "TimeControl":
        text = text.strip()
        try:
            if text.startswith("st="):
                mt = float(text[3:])
                if mt > 0:
                    return cls(movetime=mt)
            elif text.startswith("nodes="):
                n = int(text[6:])
                if n > 0:
                    return cls(nodes=n)
            else:
                base, _, inc = text.partition("+")
                tc = cls(float(base), float(inc or 0))
                if tc.base > 0 and tc.inc >= 0:
                    return tc
        except ValueError:
            pass
        raise ValueError(f"bad time control {text!r}: expected BASE+INC in seconds (10+0.1), st=SECONDS or nodes=N")

    def __str__(self) -> str:
        if self.movetime is not None:
            return f"st={self.movetime:g}"
        if self.nodes is not None:
            return f"nodes={self.nodes}"
        return f"{self.base:g}+{self.inc:g}"

    def pgn(self) -> str:
        if self.movetime is not None:
            return f"{self.movetime:g}/move"
        if self.nodes is not None:
            return "-"
        return f"{self.base:g}+{self.inc:g}"


@dataclasses.dataclass
class EngineSpec:
    name: str
    cmd: list[str]
    options: dict[str, str] = dataclasses.field(default_factory=dict)
    nodes: Optional[int] = None   # per-move node count under `--tc nodes=N`

    def __post_init__(self) -> None:
        if "nodes" in self.options:
            text = self.options.pop("nodes")
            try:
                self.nodes = int(text)
            except ValueError:
                self.nodes = 0
            if self.nodes <= 0:
                raise ValueError(f"{self.name}: nodes={text!r} is not a positive node count")

    @classmethod
    def parse(cls, text: str) -> "EngineSpec":
        """`name=cmd[,Option=Value...]`, or `cmd[,Option=Value...]` (named after cmd)."""
        head, sep, rest = text.partition("=")
        if sep and "," not in head and "/" not in head and " " not in head:
            name, body = head.strip(), rest
        else:
            name, body = "", text
        parts = body.split(",")
        cmd = shlex.split(parts[0])
        if not cmd:
            raise ValueError(f"no command in engine spec {text!r}")
        options = {}
        for part in parts[1:]:
            opt, sep, value = part.partition("=")
            if not sep or not opt.strip():
                raise ValueError(f"bad option {part!r} in engine spec {text!r}: expected Name=Value")
            options[opt.strip()] = value.strip()
        return cls(name or os.path.basename(cmd[0]), cmd, options)


def parse_option_pairs(pairs: Iterable[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        opt, sep, value = pair.partition("=")
        if not sep or not opt.strip():
            raise ValueError(f"bad engine option {pair!r}: expected Name=Value")
        options[opt.strip()] = value.strip()
    return options


class Player:
    """One engine process: started on first use, restarted after a fault."""

    def __init__(self, spec: EngineSpec, init_timeout: float = 30.0):
        self.spec = spec
        self.init_timeout = init_timeout
        self.engine: Optional[chess.engine.SimpleEngine] = None
        self.id_name = spec.name

    @property
    def name(self) -> str:
        return self.spec.name

    def start(self) -> None:
        if self.engine is not None:
            return
        # setpgrp: a Ctrl-C in the terminal must not kill the engines before
        # the runner has printed its summary.
        engine = chess.engine.SimpleEngine.popen_uci(self.spec.cmd, timeout=self.init_timeout, setpgrp=True)
        try:
            engine.configure(self._typed_options(engine))
            engine.ping()
        except BaseException:
            engine.close()
            raise
        self.id_name = engine.id.get("name", self.spec.name)
        # Games are announced by new_game() (ucinewgame + isready, off the
        # clock); without this python-chess would send an extra ucinewgame and
        # wait for readyok inside the first move it times.
        if hasattr(engine.protocol, "first_game"):
            engine.protocol.first_game = False
        self.engine = engine

    def _typed_options(self, engine: chess.engine.SimpleEngine) -> dict:
        config = {}
        for name, value in self.spec.options.items():
            opt = engine.options.get(name)
            if opt is None:
                raise ValueError(f"{self.name}: the engine has no option {name!r}")
            if opt.type == "check":
                low = value.lower()
                if low not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                    raise ValueError(f"{self.name}: option {name!r} wants true or false, got {value!r}")
                config[opt.name] = low in ("true", "1", "yes", "on")
            elif opt.type == "spin":
                config[opt.name] = int(value)
            else:
                config[opt.name] = value
        return config

    def new_game(self) -> None:
        self.start()
        assert self.engine is not None
        protocol = self.engine.protocol
        protocol.loop.call_soon_threadsafe(protocol.send_line, "ucinewgame")
        self.engine.ping()

    def play(self, board: chess.Board, limit: chess.engine.Limit, timeout: float) -> chess.engine.PlayResult:
        """The engine's move; TimeoutError if it gives none within `timeout` s."""
        self.start()
        assert self.engine is not None
        fut = asyncio.run_coroutine_threadsafe(
            self.engine.protocol.play(board, limit, info=chess.engine.INFO_BASIC | chess.engine.INFO_SCORE),
            self.engine.protocol.loop)
        try:
            return fut.result(timeout)
        except concurrent.futures.TimeoutError:
            fut.cancel()   # python-chess then sends `stop`
            raise TimeoutError(f"{self.name}: no move within {timeout:.1f}s") from None

    def close(self, quit_timeout: float = 2.0) -> None:
        """Quit politely; kill the process if it does not go."""
        engine, self.engine = self.engine, None
        if engine is None:
            return

        async def shutdown() -> None:
            protocol = engine.protocol
            try:
                await asyncio.wait_for(protocol.quit(), quit_timeout)
            except BaseException:  # noqa: BLE001 - hung or already dead: kill it
                try:
                    engine.transport.kill()
                except ProcessLookupError:
                    pass
                await asyncio.wait_for(asyncio.shield(protocol.returncode), 2)

        if not engine.returncode.done():   # not dead already
            coro = shutdown()
            try:
                fut = asyncio.run_coroutine_threadsafe(coro, engine.protocol.loop)
            except RuntimeError:   # its event loop is gone: nothing left to stop
                coro.close()
            else:
                try:
                    fut.result(quit_timeout + 4)
                except BaseException:  # noqa: BLE001
                    pass
        engine.close()


# ---------------------------------------------------------------------------
# One game

@dataclasses.dataclass
class Adjudication:
    resign_cp: Optional[int] = None     # None: no resign adjudication
    resign_plies: int = 6
    draw_cp: Optional[int] = None       # None: no draw adjudication
    draw_plies: int = 10
    draw_movenumber: int = 40


@dataclasses.dataclass
class MoveRecord:
    move: chess.Move
    elapsed: float = 0.0
    clock_after: Optional[float] = None  # mover's clock after the increment
    score: Optional[chess.engine.PovScore] = None
    depth: Optional[int] = None


@dataclasses.dataclass
class GameResult:
    white: str
    black: str
    opening: Opening
    tc: TimeControl
    result: str                   # "1-0", "0-1", "1/2-1/2"
    termination: str              # checkmate, stalemate, time forfeit, crash, ...
    board: chess.Board            # the final position with the whole move stack
    records: list[MoveRecord]     # the engines' moves (after the opening)
    fault: Optional[chess.Color] = None   # side that lost by a fault
    fault_kind: Optional[str] = None      # "time", "illegal", "crash", "hang"
    detail: str = ""
    max_elapsed: dict = dataclasses.field(default_factory=dict)   # color -> seconds
    min_clock: dict = dataclasses.field(default_factory=dict)     # color -> least clock left at a move, before the increment

    @property
    def plies(self) -> int:
        return len(self.board.move_stack)

    def pgn(self, event: str = "Archivist gauntlet", round_: str = "?") -> chess.pgn.Game:
        game = chess.pgn.Game()
        game.headers["Event"] = event
        game.headers["Site"] = os.uname().nodename if hasattr(os, "uname") else "?"
        game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
        game.headers["Round"] = round_
        game.headers["White"] = self.white
        game.headers["Black"] = self.black
        game.headers["Result"] = self.result
        game.headers["TimeControl"] = self.tc.pgn()
        game.headers["Opening"] = self.opening.name
        game.headers["Termination"] = {
            "time": "time forfeit", "hang": "time forfeit", "illegal": "rules infraction",
            "crash": "abandoned"}.get(self.fault_kind or "", "adjudication" if self.termination.startswith("adjudication") else "normal")
        game.headers["PlyCount"] = str(self.plies)
        root = self.board.root()
        if root.fen() != chess.STARTING_FEN:
            game.setup(root)
        node = game
        n_book = self.plies - len(self.records)
        for i, move in enumerate(self.board.move_stack):
            node = node.add_variation(move)
            if i < n_book:
                node.comment = "book"
                continue
            rec = self.records[i - n_book]
            parts = []
            if rec.score is not None:
                s = rec.score.relative  # the mover's point of view, as cutechess writes it
                parts.append(str(s) if s.is_mate() else f"{s.score() / 100:+.2f}")
                if rec.depth is not None:
                    parts[-1] += f"/{rec.depth}"
            parts.append(f"{rec.elapsed:.3f}s")
            node.comment = " ".join(parts)
        comment = self.termination + (f": {self.detail}" if self.detail else "")
        node.comment = (node.comment + "; " if node.comment else "") + comment
        return game


def game_end(board: chess.Board) -> Optional[tuple[str, str]]:
    """(result, termination) when the game is over on the board, as
    cutechess-cli decides it: mate, stalemate, insufficient material, the
    third occurrence of the position, or the fifty-move rule reached."""
    outcome = board.outcome(claim_draw=False)
    if outcome is not None:
        return outcome.result(), outcome.termination.name.lower().replace("_", " ")
    if board.is_repetition(3):
        return "1/2-1/2", "threefold repetition"
    if board.halfmove_clock >= 100:
        return "1/2-1/2", "fifty moves"
    return None


def play_game(white: Player, black: Player, opening: Opening, tc: TimeControl, *,
              adjudication: Adjudication = Adjudication(), timemargin: float = 0.0,
              max_plies: Optional[int] = None, hang_grace: float = 5.0,
              nodes_timeout: float = 120.0) -> GameResult:
    """Plays one game and reports how it ended. The players are left running
    unless they crashed; the caller restarts a player that had a fault."""
    board = opening.board()
    players = {chess.WHITE: white, chess.BLACK: black}
    clock = {chess.WHITE: tc.base, chess.BLACK: tc.base}
    records: list[MoveRecord] = []
    white_scores: list[Optional[int]] = []   # per engine move, white's point of view
    max_elapsed = {chess.WHITE: 0.0, chess.BLACK: 0.0}
    min_clock = {chess.WHITE: math.inf, chess.BLACK: math.inf}

    def done(result: str, termination: str, fault: Optional[chess.Color] = None,
             kind: Optional[str] = None, detail: str = "") -> GameResult:
        return GameResult(white.name, black.name, opening, tc, result, termination, board, records,
                          fault, kind, detail, max_elapsed, min_clock)

    def forfeit(side: chess.Color, kind: str, detail: str) -> GameResult:
        termination = {"time": "time forfeit", "hang": "time forfeit", "illegal": "illegal move",
                       "crash": "engine crash"}[kind]
        return done("0-1" if side == chess.WHITE else "1-0", termination, side, kind, detail)

    for side in (chess.WHITE, chess.BLACK):
        try:
            players[side].new_game()
        except chess.engine.EngineTerminatedError as e:
            return forfeit(side, "crash", f"at ucinewgame: {e}")
        except (chess.engine.EngineError, TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError) as e:
            return forfeit(side, "hang", f"at ucinewgame: {e!r}")

    while True:
        ending = game_end(board)
        if ending is not None:
            return done(*ending)
        if max_plies is not None and len(records) >= max_plies:
            return done("1/2-1/2", "adjudication: ply limit", detail=f"{max_plies} plies")

        side = board.turn
        player = players[side]
        if tc.nodes is not None:
            limit = chess.engine.Limit(nodes=player.spec.nodes or tc.nodes)
            allowed = math.inf
        elif tc.movetime is not None:
            limit = chess.engine.Limit(time=tc.movetime)
            allowed = tc.movetime + timemargin
        else:
            limit = chess.engine.Limit(white_clock=clock[chess.WHITE], black_clock=clock[chess.BLACK],
                                       white_inc=tc.inc, black_inc=tc.inc)
            allowed = clock[side] + timemargin
        t0 = time.perf_counter()
        try:
            res = player.play(board, limit, timeout=nodes_timeout if tc.nodes is not None else allowed + hang_grace)
        except chess.engine.EngineTerminatedError as e:
            return forfeit(side, "crash", f"{player.name} terminated at ply {board.ply() + 1}: {e}")
        except TimeoutError:
            return forfeit(side, "hang", f"{player.name} gave no move for {time.perf_counter() - t0:.1f}s")
        except chess.engine.EngineError as e:
            return forfeit(side, "illegal", f"{player.name}: {e}")
        elapsed = time.perf_counter() - t0
        max_elapsed[side] = max(max_elapsed[side], elapsed)
        if elapsed > allowed:
            left = (tc.movetime if tc.movetime is not None else clock[side]) - elapsed  # never under nodes=
            return forfeit(side, "time", f"{player.name} took {elapsed:.3f}s, {-left * 1000:.0f} ms over")
        if res.move is None or res.move not in board.legal_moves:
            return forfeit(side, "illegal", f"{player.name} played {res.move} in {board.fen()}")
        if tc.clocked:
            min_clock[side] = min(min_clock[side], clock[side] - elapsed)
            clock[side] += tc.inc - elapsed
        score = res.info.get("score")
        records.append(MoveRecord(res.move, elapsed, clock[side] if tc.clocked else None,
                                  score, res.info.get("depth")))
        white_scores.append(score.white().score(mate_score=100000) if score is not None else None)
        board.push(res.move)

        adj = _adjudicate(board, white_scores, adjudication)
        if adj is not None:
            return done(adj[0], adj[1], detail=adj[2])


def _adjudicate(board: chess.Board, scores: list[Optional[int]], adj: Adjudication):
    if adj.resign_cp is not None and len(scores) >= adj.resign_plies:
        last = scores[-adj.resign_plies:]
        if all(s is not None for s in last):
            if all(s > adj.resign_cp for s in last):
                return "1-0", "adjudication: resign", f"scores {last}"
            if all(s < -adj.resign_cp for s in last):
                return "0-1", "adjudication: resign", f"scores {last}"
    if adj.draw_cp is not None and len(scores) >= adj.draw_plies and board.fullmove_number > adj.draw_movenumber:
        last = scores[-adj.draw_plies:]
        if all(s is not None and abs(s) < adj.draw_cp for s in last):
            return "1/2-1/2", "adjudication: draw", f"scores {last}"
    return None


# ---------------------------------------------------------------------------
# Statistics

def elo_from_score(score: float) -> float:
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1) + 0.0  # no "-0.0"


@dataclasses.dataclass
class Tally:
    wins: int = 0
    draws: int = 0
    losses: int = 0
    faults: int = 0          # games the engine under test lost by a fault
    opp_faults: int = 0      # games the opponent lost by a fault

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def elo(self) -> tuple[float, float]:
        """Logistic Elo difference from the score, and its 95% margin from the
        variance of the per-game results (1, 1/2, 0) about the mean."""
        n = self.games
        if n == 0:
            return math.nan, math.nan
        s = self.score
        var = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s ** 2) / n
        half = 1.959964 * math.sqrt(var / n)
        lo, hi = s - half, s + half
        if lo <= 0 or hi >= 1:
            return elo_from_score(s), math.inf
        return elo_from_score(s), (elo_from_score(hi) - elo_from_score(lo)) / 2

    def los(self) -> float:
        """Likelihood of superiority (draws ignored), as a fraction."""
        if self.wins + self.losses == 0:
            return 0.5
        return 0.5 * (1 + math.erf((self.wins - self.losses) / math.sqrt(2 * (self.wins + self.losses))))

    def add(self, other: "Tally") -> None:
        self.wins += other.wins
        self.draws += other.draws
        self.losses += other.losses
        self.faults += other.faults
        self.opp_faults += other.opp_faults


def fmt_elo(x: float) -> str:
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.1f}"


def fmt_margin(x: float) -> str:
    if math.isnan(x):
        return "-"
    return "inf" if math.isinf(x) else f"{x:.1f}"


def summary_table(engine_name: str, tallies: dict[str, Tally]) -> str:
    rows = [("opponent", "games", "W", "D", "L", "score", "elo", "+/-95%", "LOS", "faults")]
    total = Tally()
    for name, t in tallies.items():
        total.add(t)
        rows.append(_row(name, t))
    if len(tallies) > 1:
        rows.append(_row("total", total))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [f"Summary: {engine_name} against {len(tallies)} opponent(s); elo is {engine_name}'s, "
             f"faults = time losses/crashes/illegal moves of {engine_name} (of the opponent)"]
    for i, r in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))))
        if i == 0 or (len(tallies) > 1 and i == len(rows) - 2):
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _row(name: str, t: Tally) -> tuple:
    elo, margin = t.elo()
    return (name, str(t.games), str(t.wins), str(t.draws), str(t.losses),
            f"{100 * t.score:.1f}%" if t.games else "-", fmt_elo(elo), fmt_margin(margin),
            f"{100 * t.los():.0f}%", f"{t.faults} ({t.opp_faults})")


# ---------------------------------------------------------------------------
# The match

@dataclasses.dataclass
class Job:
    number: int          # 1-based game number
    opponent: EngineSpec
    opening_index: int
    engine_white: bool


def schedule(opponents: list[EngineSpec], games: int, n_openings: int) -> list[Job]:
    """Pairs interleaved over opponents: pair k of every opponent, then pair
    k + 1; a pair is one opening with the engine white, then black."""
    jobs = []
    for k in range((games + 1) // 2):
        for opp in opponents:
            for g in range(2):
                if 2 * k + g < games:
                    jobs.append(Job(0, opp, k % n_openings, g == 0))
    for i, job in enumerate(jobs, 1):
        job.number = i
    return jobs


def run_match(engine: EngineSpec, opponents: list[EngineSpec], games: int, tc: TimeControl,
              openings: list[Opening], *, concurrency: int = 1, pgn_out: Optional[str] = None,
              adjudication: Adjudication = Adjudication(), timemargin: float = 0.0,
              max_plies: Optional[int] = None, out: Callable[[str], None] = print) -> dict[str, Tally]:
    jobs = schedule(opponents, games, len(openings))
    tallies = {opp.name: Tally() for opp in opponents}
    lock = threading.Lock()
    todo: "queue.Queue[Job]" = queue.Queue()
    for job in jobs:
        todo.put(job)
    stop = threading.Event()
    errors: list[BaseException] = []
    all_players: list[Player] = []

    def worker() -> None:
        # Each worker has its own engine processes: one per engine spec.
        players: dict[int, Player] = {}

        def player(spec: EngineSpec) -> Player:
            if id(spec) not in players:
                players[id(spec)] = Player(spec)
                with lock:
                    all_players.append(players[id(spec)])
            return players[id(spec)]

        try:
            while not stop.is_set():
                try:
                    job = todo.get_nowait()
                except queue.Empty:
                    return
                me, opp = player(engine), player(job.opponent)
                white, black = (me, opp) if job.engine_white else (opp, me)
                game = play_game(white, black, openings[job.opening_index], tc, adjudication=adjudication,
                                 timemargin=timemargin, max_plies=max_plies)
                if stop.is_set():
                    return  # interrupted: the game may have been cut short
                if game.fault is not None:
                    (white if game.fault == chess.WHITE else black).close()
                with lock:
                    _record(job, game, tallies[job.opponent.name], len(jobs), out)
                    if pgn_out:
                        with open(pgn_out, "a", encoding="utf-8") as f:
                            print(game.pgn(round_=str(job.number)), file=f, end="\n\n")
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            errors.append(e)
            stop.set()
        finally:
            for p in players.values():
                p.close()

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(max(1, concurrency))]
    for t in threads:
        t.start()
    try:
        for t in threads:
            while t.is_alive():
                t.join(0.2)
    except KeyboardInterrupt:
        stop.set()
        out("interrupted: the games in progress are discarded")
        with lock:
            for p in all_players:
                p.close(quit_timeout=0.5)
        for t in threads:
            t.join(5)
    if errors:
        raise errors[0]
    return tallies


def _record(job: Job, game: GameResult, tally: Tally, n_jobs: int, out: Callable[[str], None]) -> None:
    engine_color = chess.WHITE if job.engine_white else chess.BLACK
    if game.result == "1/2-1/2":
        tally.draws += 1
    elif (game.result == "1-0") == (engine_color == chess.WHITE):
        tally.wins += 1
    else:
        tally.losses += 1
    if game.fault is not None:
        if game.fault == engine_color:
            tally.faults += 1
        else:
            tally.opp_faults += 1
    clocks = ""
    if game.tc.clocked:
        clocks = "  min clock w {:.2f}s b {:.2f}s".format(
            *(game.min_clock[c] if math.isfinite(game.min_clock[c]) else game.tc.base
              for c in (chess.WHITE, chess.BLACK)))
    else:
        clocks = "  max move w {:.3f}s b {:.3f}s".format(game.max_elapsed[chess.WHITE], game.max_elapsed[chess.BLACK])
    detail = f" ({game.detail})" if game.detail and game.fault is not None else ""
    out(f"Game {job.number}/{n_jobs}: {game.white} vs {game.black}, {game.opening.name}: "
        f"{game.result} {game.termination}{detail}, {game.plies} plies{clocks}")
    elo, margin = tally.elo()
    out(f"  {job.opponent.name}: W {tally.wins} D {tally.draws} L {tally.losses} "
        f"[{100 * tally.score:.1f}%] elo {fmt_elo(elo)} +/- {fmt_margin(margin)}")


# ---------------------------------------------------------------------------
# Command line

def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Example:\n  " + __doc__.split("\n\n")[1].strip())
    ap.add_argument("--engine", required=True, help="the engine under test (a command)")
    ap.add_argument("--engine-name", help="its name in the output (default: the command's basename)")
    ap.add_argument("--engine-option", action="append", default=[], metavar="NAME=VALUE",
                    help="a UCI option for the engine under test (repeatable)")
    ap.add_argument("--opponent", action="append", required=True, metavar="NAME=CMD[,OPT=VAL...]",
                    help="an opponent (repeatable), e.g. sf1500=/usr/games/stockfish,UCI_LimitStrength=true,UCI_Elo=1500")
    ap.add_argument("--games", type=int, default=2, help="games against each opponent (default 2; even numbers make whole pairs)")
    ap.add_argument("--tc", default="10+0.1", help="BASE+INC seconds (default 10+0.1), st=SECONDS per move or nodes=N per move")
    ap.add_argument("--concurrency", type=int, default=1, help="games played at once (default 1)")
    ap.add_argument("--openings", help="PGN, or text with one FEN/EPD or SAN/UCI move line per opening (default: built-in list)")
    ap.add_argument("--seed", type=int, default=1, help="shuffles the opening order (default 1; the same order every run)")
    ap.add_argument("--order", choices=["random", "sequential"], default="random",
                    help="openings shuffled by --seed, or in file order (as cutechess-cli's order=sequential)")
    ap.add_argument("--pgn-out", help="append the games to this PGN file")
    ap.add_argument("--timemargin", type=float, default=None, metavar="MS",
                    help="ms a move may exceed the clock before it loses (default 0; 50 with st=)")
    ap.add_argument("--adjudicate", action="store_true",
                    help="resign when both engines see |score| > --resign-score for --resign-plies plies; "
                         "draw when |score| < --draw-score for --draw-plies plies after move --draw-movenumber")
    ap.add_argument("--resign-score", type=int, default=1000)
    ap.add_argument("--resign-plies", type=int, default=6)
    ap.add_argument("--draw-score", type=int, default=10)
    ap.add_argument("--draw-plies", type=int, default=10)
    ap.add_argument("--draw-movenumber", type=int, default=40)
    ap.add_argument("--max-plies", type=int, help="adjudicate a draw after this many engine plies")
    args = ap.parse_args(argv)

    try:
        tc = TimeControl.parse(args.tc)
        cmd = shlex.split(args.engine)
        engine = EngineSpec(args.engine_name or os.path.basename(cmd[0]), cmd, parse_option_pairs(args.engine_option))
        opponents = [EngineSpec.parse(o) for o in args.opponent]
        openings = load_openings(args.openings) if args.openings else builtin_openings()
    except (ValueError, OSError) as e:
        ap.error(str(e))
    names = [engine.name] + [o.name for o in opponents]
    if len(set(names)) != len(names):
        ap.error(f"engine and opponent names must differ: {names}")
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.order == "random":
        random.Random(args.seed).shuffle(openings)
    margin_ms = args.timemargin if args.timemargin is not None else (50.0 if tc.movetime is not None else 0.0)
    adjudication = Adjudication()
    if args.adjudicate:
        adjudication = Adjudication(args.resign_score, args.resign_plies, args.draw_score,
                                    args.draw_plies, args.draw_movenumber)

    def out(line: str) -> None:
        print(line, flush=True)

    # Start every engine once: a wrong path or option fails here, not mid-match.
    for spec in [engine, *opponents]:
        p = Player(spec)
        try:
            p.start()
        except (chess.engine.EngineError, chess.engine.EngineTerminatedError, ValueError, OSError,
                TimeoutError, asyncio.TimeoutError, concurrent.futures.TimeoutError) as e:
            print(f"gauntlet: cannot start {spec.name} ({' '.join(spec.cmd)}): {e!r}", file=sys.stderr)
            return 2
        finally:
            p.close()
        out(f"{spec.name}: {p.id_name}" + (f" ({', '.join(f'{k}={v}' for k, v in spec.options.items())})" if spec.options else ""))

    out(f"Gauntlet: {engine.name} ({' '.join(engine.cmd)}) vs {', '.join(o.name for o in opponents)}; "
        f"{args.games} games each at {tc}, {len(openings)} openings (seed {args.seed}), "
        f"concurrency {args.concurrency}, time margin {margin_ms:g} ms"
        + (", adjudication on" if args.adjudicate else ""))
    started = time.monotonic()
    try:
        tallies = run_match(engine, opponents, args.games, tc, openings, concurrency=args.concurrency,
                            pgn_out=args.pgn_out, adjudication=adjudication, timemargin=margin_ms / 1000,
                            max_plies=args.max_plies, out=out)
    except (chess.engine.EngineError, chess.engine.EngineTerminatedError, ValueError, OSError) as e:
        print(f"gauntlet: {e}", file=sys.stderr)
        return 2
    out("")
    out(summary_table(engine.name, tallies))
    out(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
