"""The opening explorer's answers (`/lichess`, `/masters`, `/player`)
computed with python-chess from the PGN itself: the independent reference
`engine-tests/test_explorer.py` holds `archivist explorer build` and
`archivist serve --lichess/--masters` to.

Nothing here comes from the Rust code; it follows the written rules:

- indexed: games with Result 1-0, 0-1 or 1/2-1/2, no FEN tag, a standard
  Variant tag (or none), every move legal, and an id not indexed before
  (the id is the last 8 ASCII alphanumerics of Site after a "/"; other
  games get an id the service makes up, learned by the test: `hash_ids`);
- speed from TimeControl (base + 40 * increment), ratings from
  WhiteElo/BlackElo (a missing one takes the other's, both missing is 0),
  the rating group of the mean, the month from UTCDate (else Date);
- the positions before the first 50 plies, each counted once per game with
  the last move the game played from it (within those plies), identified
  by python-chess's EPD (pieces, side, castling, legal en passant).
"""
from __future__ import annotations

import csv
import math
import pathlib
import re
from fractions import Fraction

import chess
import chess.pgn

MAX_PLY = 50
RESULTS = {"1-0": "white", "0-1": "black", "1/2-1/2": None}
STANDARD_VARIANTS = {"standard", "chess"}
GROUPS = (0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500, 2800, 3200)
LICHESS_ID = re.compile(r"/([A-Za-z0-9]{8})$", re.ASCII)
TIME_CONTROL = re.compile(r"([0-9]+)\+([0-9]+)", re.ASCII)
MONTH = re.compile(r"([0-9]{4})-([0-9]{2})", re.ASCII)

# FIDE rating regulations, table 8.1.1: dp for p = 1.00, 0.99 ... 0.50.
FIDE_DP = (800, 677, 589, 538, 501, 470, 444, 422, 401, 383, 366, 351, 336, 322, 309, 296, 284, 273, 262, 251,
           240, 230, 220, 211, 202, 193, 184, 175, 166, 158, 149, 141, 133, 125, 117, 110, 102, 95, 87, 80,
           72, 65, 57, 50, 43, 36, 29, 21, 14, 7, 0)


def speed_of(time_control: str | None) -> str:
    m = TIME_CONTROL.fullmatch(time_control or "")
    if not m:
        return "correspondence"
    t = int(m[1]) + 40 * int(m[2])
    for limit, name in ((30, "ultraBullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid"), (21600, "classical")):
        if t < limit:
            return name
    return "correspondence"


def group_of(rating: int) -> int:
    """The rating group a rating (or a mean of two) falls in."""
    return max(g for g in GROUPS if g <= rating) if rating >= GROUPS[1] else 0


def groups_named(value: int) -> set[int]:
    """The groups one `ratings=` value admits: its own, and from 2500 up every group above it too."""
    g = group_of(value)
    return {h for h in GROUPS if h >= g} if g >= 2500 else {g}


def elo(value: str | None) -> int | None:
    return int(value) if value is not None and value.isascii() and value.isdigit() else None


def parse_date(value: str | None) -> tuple[int | None, int | None]:
    """(year, month) of a PGN date "YYYY.MM.DD"; None for a missing part."""
    parts = (value or "").split(".")
    y = parts[0]
    if not (y.isascii() and y.isdigit() and 1 <= int(y) <= 9999):
        return None, None
    m = parts[1] if len(parts) > 1 else ""
    return int(y), int(m) if m.isascii() and m.isdigit() and 1 <= int(m) <= 12 else None


def round_half_away(x: Fraction) -> int:
    return int(math.floor(abs(x) + Fraction(1, 2))) * (1 if x >= 0 else -1)


def dp(percent: Fraction) -> Fraction:
    """FIDE's dp at a score percentage, linear between whole percentages; dp(100 - x) = -dp(x)."""
    def whole(k: int) -> int:
        return FIDE_DP[100 - k] if k >= 50 else -FIDE_DP[k]
    lo = math.floor(percent)
    if lo >= 100:
        return Fraction(whole(100))
    return whole(lo) + (percent - lo) * (whole(lo + 1) - whole(lo))


def king_takes_rook(board: chess.Board, move: chess.Move) -> str:
    """The move's UCI, castling written as the king taking its rook (e1h1)."""
    if board.is_castling(move):
        rank = chess.square_rank(move.from_square)
        rook_file = 7 if chess.square_file(move.to_square) > chess.square_file(move.from_square) else 0
        return chess.square_name(move.from_square) + chess.square_name(chess.square(rook_file, rank))
    return move.uci()


class Game:
    __slots__ = ("index", "id", "headers", "moves", "white", "black", "white_elo", "black_elo", "eff_white",
                 "eff_black", "mean", "speed", "mode", "group", "year", "month", "month_key", "winner", "result", "visits")

    def __init__(self, index, gid, headers, moves, visits):
        self.index, self.id, self.headers, self.moves, self.visits = index, gid, headers, moves, visits
        self.white, self.black = headers.get("White"), headers.get("Black")
        self.white_elo, self.black_elo = elo(headers.get("WhiteElo")), elo(headers.get("BlackElo"))
        w, b = self.white_elo, self.black_elo
        self.eff_white = w if w is not None else b if b is not None else 0
        self.eff_black = b if b is not None else w if w is not None else 0
        self.mean = (self.eff_white + self.eff_black) // 2
        self.group = group_of(self.mean)
        self.speed = speed_of(headers.get("TimeControl"))
        # Lichess's mode: "casual" when the Event says so ("Casual Blitz game"), else "rated".
        self.mode = "casual" if "casual" in headers.get("Event", "").lower() else "rated"
        year, month = parse_date(headers.get("UTCDate"))
        if year is None:
            year, month = parse_date(headers.get("Date"))
        self.year, self.month = year, month
        self.month_key = year * 100 + month if month is not None else 0
        self.result = headers["Result"]
        self.winner = RESULTS[self.result]


def key(board: chess.Board):
    """A position's identity: python-chess's transposition key, the same as its EPD (pieces, side to
    move, castling rights, en passant only when legal; no move counters), and quicker to make."""
    return board._transposition_key()


class _Reader(chess.pgn.BaseVisitor):
    """One game's tags, mainline and the (position key, UCI) of its first plies; python-chess checks
    every move. `where` gets, for each new position, (the mainline, ply) that first reached it."""

    def __init__(self, where):
        self.where = where

    def begin_game(self):
        self.headers, self.moves, self.visits = {}, [], []
        self.skip, self.illegal = None, False

    def visit_header(self, tagname, tagvalue):
        self.headers.setdefault(tagname, tagvalue)

    def end_headers(self):
        h = self.headers
        if h.get("Result") not in RESULTS:
            self.skip = "result"
        elif "FEN" in h or h.get("Variant", "Standard").lower() not in STANDARD_VARIANTS:
            self.skip = "variant or set-up"
        return chess.pgn.SKIP if self.skip else None

    def begin_variation(self):
        return chess.pgn.SKIP

    def visit_move(self, board, move):
        ply = len(self.moves)
        if ply < MAX_PLY:
            k = key(board)
            if k not in self.where:
                self.where[k] = (self.moves, ply)
            self.visits.append((k, king_takes_rook(board, move)))
        self.moves.append(move)

    def handle_error(self, error):
        self.illegal = True

    def result(self):
        return self


class Database:
    """The indexed games of PGN files read in order, and what the explorer answers over them."""

    def __init__(self, paths):
        self.games: list[Game] = []
        self.positions: dict[tuple, dict[int, str]] = {}  # key -> {game index: UCI of its move there}
        self.where: dict[tuple, tuple] = {}  # key -> (a mainline, ply) reaching it
        self.skipped = {"result": 0, "variant or set-up": 0, "illegal move": 0, "already indexed": 0}
        self.hash_ids: dict[int, str] = {}  # game index -> the id the service gave a game without one
        self._admitted_cache: dict = {}
        self._san_cache: dict = {}
        self._position_cache: dict = {}
        seen = set()
        for path in paths:
            with open(path, encoding="utf-8-sig", errors="replace") as f:
                while (r := chess.pgn.read_game(f, Visitor=lambda: _Reader(self.where))) is not None:
                    if r.skip or r.illegal:
                        self.skipped[r.skip or "illegal move"] += 1
                        continue
                    m = LICHESS_ID.search(r.headers.get("Site", ""))
                    gid = m[1] if m else None
                    if gid is not None:
                        if gid in seen:
                            self.skipped["already indexed"] += 1
                            continue
                        seen.add(gid)
                    game = Game(len(self.games), gid, r.headers, r.moves, r.visits)
                    self.games.append(game)
                    for k, uci in r.visits:
                        self.positions.setdefault(k, {})[game.index] = uci

    # -- filters ----------------------------------------------------------

    def admitted(self, speeds=None, groups=None, since=None, until=None, years=False, player=None):
        """A bytearray over the games: 1 where the game passes the filters.

        since/until are month keys (YYYYMM) or, with years, years; either one
        given excludes the games without a month."""
        cache_key = (speeds and frozenset(speeds), groups and frozenset(groups), since, until, years, player)
        if cache_key not in self._admitted_cache:
            out = bytearray(len(self.games))
            for g in self.games:
                if speeds is not None and g.speed not in speeds:
                    continue
                if groups is not None and g.group not in groups:
                    continue
                if since is not None or until is not None:
                    if g.month_key == 0:
                        continue
                    v = g.year if years else g.month_key
                    if (since is not None and v < since) or (until is not None and v > until):
                        continue
                if player is not None:
                    name, color = player
                    who = g.white if color == "white" else g.black
                    if who is None or who.lower() != name.lower():
                        continue
                out[g.index] = 1
            self._admitted_cache[cache_key] = out
        return self._admitted_cache[cache_key]

    # -- answers ----------------------------------------------------------

    def game_json(self, g: Game, masters=False, uci=None):
        d = {} if uci is None else {"uci": uci}
        d["id"] = g.id if g.id is not None else self.hash_ids.get(g.index, f"<made-up id of game #{g.index}>")
        d["winner"] = g.winner
        if not masters:
            d["speed"] = g.speed
            d["mode"] = g.mode
        d["white"] = {"name": g.white, "rating": g.white_elo}
        d["black"] = {"name": g.black, "rating": g.black_elo}
        d["year"] = g.year
        d["month"] = f"{g.year:04d}-{g.month:02d}" if g.month is not None else None
        return d

    def board(self, k) -> chess.Board:
        """A board of a reached position (by its key): replayed from the game that reached it first."""
        moves, ply = self.where[k]
        board = chess.Board()
        for m in moves[:ply]:
            board.push(m)
        return board

    def san_and_opening(self, board, k, uci):
        """The move's SAN at the board and the opening that names the position after it."""
        if (k, uci) not in self._san_cache:
            board = board.copy(stack=False)
            move = board.parse_uci(uci)
            san = board.san(move)
            board.push(move)
            self._san_cache[k, uci] = san, opening_of(board)
        return self._san_cache[k, uci]

    def _cells(self, k, admitted):
        """{uci: [game indices in input order]} of the admitted games at the position."""
        moves = {}
        for gi, uci in self.positions.get(k, {}).items():
            if admitted[gi]:
                moves.setdefault(uci, []).append(gi)
        for v in moves.values():
            v.sort()
        return moves

    def _move(self, board, k, uci, games):
        gs = [self.games[i] for i in games]
        san, opening = self.san_and_opening(board, k, uci)
        d = {"uci": uci, "san": san, "opening": opening}
        d["white"] = sum(g.winner == "white" for g in gs)
        d["draws"] = sum(g.winner is None for g in gs)
        d["black"] = sum(g.winner == "black" for g in gs)
        return d, gs

    def _ordered(self, moves):
        return sorted(moves.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    def explorer(self, board: chess.Board, openings_along, admitted, moves=12, top_games=4, recent_games=4,
                 masters=False):
        """The /lichess (or, with masters, /masters) answer at the board's position."""
        k = key(board)
        cells = self._cells(k, admitted)
        white_to_move = board.turn == chess.WHITE
        out_moves, totals = [], [0, 0, 0]
        show_game = masters or top_games > 0 or recent_games > 0
        for uci, games in self._ordered(cells):
            d, gs = self._move(board, k, uci, games)
            totals[0] += d["white"]
            totals[1] += d["draws"]
            totals[2] += d["black"]
            rated = [g.eff_white if white_to_move else g.eff_black for g in gs]
            rated = [r for r in rated if r]
            d["averageRating"] = (2 * sum(rated) + len(rated)) // (2 * len(rated)) if rated else 0
            d["game"] = self.game_json(gs[0], masters) if len(gs) == 1 and show_game else None
            out_moves.append(d)
        at = [(gi, uci) for uci, games in cells.items() for gi in games]
        top = sorted(at, key=lambda t: (-self.games[t[0]].mean, -t[0]))[:top_games]
        answer = {"white": totals[0], "draws": totals[1], "black": totals[2], "moves": out_moves[:moves]}
        if not masters:
            recent = sorted(at, key=lambda t: (-self.games[t[0]].month_key, -t[0]))[:recent_games]
            answer["recentGames"] = [self.game_json(self.games[gi], masters, uci) for gi, uci in recent]
        answer["topGames"] = [self.game_json(self.games[gi], masters, uci) for gi, uci in top]
        answer["opening"] = openings_along
        return answer

    def player(self, board: chess.Board, openings_along, admitted, color, moves=None, recent_games=8):
        """The /player answer at the board's position over the admitted games (the player's, by colour)."""
        k = key(board)
        cells = self._cells(k, admitted)
        out_moves, totals = [], [0, 0, 0]
        for uci, games in self._ordered(cells):
            d, gs = self._move(board, k, uci, games)
            totals[0] += d["white"]
            totals[1] += d["draws"]
            totals[2] += d["black"]
            opp = [g.black_elo if color == "white" else g.white_elo for g in gs]
            opp = [r for r in opp if r is not None]
            # No known opponent rating: both fields left out, as Lichess leaves them out.
            if opp:
                avg = Fraction(sum(opp), len(opp))
                score2 = 2 * d[color] + d["draws"]
                d["averageOpponentRating"] = round_half_away(avg)
                d["performance"] = round_half_away(avg + dp(Fraction(50 * score2, len(gs))))
            # Not in the written rules: a single game's move has its game whatever recentGames is
            # (as on /masters), as the service does.
            d["game"] = self.game_json(gs[0]) if len(gs) == 1 else None
            out_moves.append(d)
        at = [(gi, uci) for uci, games in cells.items() for gi in games]
        recent = sorted(at, key=lambda t: -t[0])[:recent_games]
        return {"white": totals[0], "draws": totals[1], "black": totals[2],
                "moves": out_moves if moves is None else out_moves[:moves],
                "recentGames": [self.game_json(self.games[gi], False, uci) for gi, uci in recent],
                "opening": openings_along, "queuePosition": 0}

    # -- a request's parameters, read by the rules --------------------------

    def position(self, fen: str | None, play: str | None):
        """(board, the opening along) of the fen and play parameters (the board is shared: not to be changed)."""
        if (fen, play) not in self._position_cache:
            board = chess.Board(fen.replace("_", " ")) if fen else chess.Board()
            opening = opening_of(board)
            for u in filter(None, (play or "").split(",")):
                board.push(board.parse_uci(u))
                opening = opening_of(board) or opening
            self._position_cache[fen, play] = board, opening
        return self._position_cache[fen, play]

    def answer(self, path: str, params: dict):
        """The answer to GET path?params (path /lichess, /masters or /player)."""
        board, opening = self.position(params.get("fen"), params.get("play"))

        def ints(name, default, cap=None):
            v = int(params[name]) if name in params else default
            return min(v, cap) if cap is not None else v

        speeds = set(params["speeds"].split(",")) if params.get("speeds") else None
        if path == "/masters":
            since = int(params["since"]) if "since" in params else None
            until = int(params["until"]) if "until" in params else None
            adm = self.admitted(since=since, until=until, years=True)
            return self.explorer(board, opening, adm, ints("moves", 12), ints("topGames", 15, 15), 0, masters=True)
        months = [None, None]
        for i, name in enumerate(("since", "until")):
            if name in params:
                m = MONTH.fullmatch(params[name])
                months[i] = int(m[1]) * 100 + int(m[2])
        if path == "/player":
            color = params["color"]
            adm = self.admitted(speeds=speeds, since=months[0], until=months[1], player=(params["player"], color))
            return self.player(board, opening, adm, color, ints("moves", None), ints("recentGames", 8, 8))
        groups = None
        if params.get("ratings"):
            groups = set().union(*(groups_named(int(v)) for v in params["ratings"].split(",")))
        adm = self.admitted(speeds=speeds, groups=groups, since=months[0], until=months[1])
        return self.explorer(board, opening, adm, ints("moves", 12), ints("topGames", 4, 4),
                             ints("recentGames", 4, 4))


# -- opening names -------------------------------------------------------------

_OPENINGS: dict[tuple, dict] | None = None
OPENINGS_DIR = pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "openings"


def openings() -> dict[tuple, dict]:
    """Position key -> {eco, name}: each line of a.tsv ... e.tsv names the position its moves reach;
    the first line wins."""
    global _OPENINGS
    if _OPENINGS is None:
        table, boards = {}, {(): chess.Board()}
        for letter in "abcde":
            with open(OPENINGS_DIR / f"{letter}.tsv", encoding="utf-8") as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    sans = [t for t in row["pgn"].split() if not t[0].isdigit()]
                    k = len(sans)
                    while tuple(sans[:k]) not in boards:
                        k -= 1
                    board = boards[tuple(sans[:k])]
                    for i in range(k, len(sans)):
                        board = board.copy(stack=False)
                        board.push_san(sans[i])
                        boards[tuple(sans[:i + 1])] = board
                    table.setdefault(key(board), {"eco": row["eco"], "name": row["name"]})
        _OPENINGS = table
    return _OPENINGS


def opening_of(board: chess.Board):
    return openings().get(key(board))
