"""The opening explorer's answers (`/lichess`, `/masters`, `/player`)
computed with python-chess from the PGN itself: the independent reference
`engine-tests/test_explorer.py` holds `archivist explorer build` and
`archivist serve --lichess/--masters` to.

Nothing here comes from the Rust code; it follows the written rules, those
of lila-openingexplorer:

- indexed ("Lichess rules"): a game is skipped for the first of these that
  applies: its Result is not 1-0, 0-1 or 1/2-1/2; it has a FEN tag or a
  Variant other than standard; a WhiteTitle or BlackTitle is "BOT";
  WhiteElo or BlackElo is missing or unreadable ("?"); the first of UTCDate
  and Date that gives a year gives no month (a masters index needs only the
  year); for a masters index
  (--masters) also the floor of the mean rating is under 2200, or the date
  is after tomorrow (UTC; the known parts compared). Then a game with an
  illegal move is skipped, then one whose id an indexed game already has
  (the first copy wins). The id is the last 8 ASCII alphanumerics of Site
  after a "/"; other games get an id the service makes up, learned by the
  test (`hash_ids`);
- `--all-games` (the Stockfish self-play database: no ratings, no dates)
  skips none of the title, rating, month and masters rules: a missing
  rating takes the other's, both missing is 0 (group 0, no rating counted),
  no month is month 0 (left out as soon as since/until is given);
- speed from TimeControl: "-" correspondence; "B+I" or "B" (non-negative
  integers) by B + 40 * I: under 30 ultraBullet, 180 bullet, 480 blitz,
  1500 rapid, 21600 classical, else correspondence; "?", missing or
  unreadable: correspondence;
- the rating group of the floor of the mean: the largest of 0, 1000, 1200,
  1400, 1600, 1800, 2000, 2200, 2500 not above it, and 3200 from 2800 up;
  `ratings=` values name groups by the same rule and a game passes when
  min(its group, 2500) is named;
- the month (YYYY-MM) of UTCDate, else Date; the newest game is the one of
  the latest month, then the later in the input (shards in order);
- the positions before the first 50 plies, each counted once per game with
  the last move the game played from it (within those plies), identified
  by python-chess's EPD (pieces, side, castling, legal en passant);
- /lichess: top games from the highest rating groups the filter admits
  (3200 down to 2000, no gap), ranked by a per-speed score less the group,
  then newest; recent games the newest others, together at most 8; the
  `history` by month; /masters: the games of the largest rating sum (then
  the largest base-62 id); /player: every move, the 8 newest games.
"""
from __future__ import annotations

import csv
import datetime
import math
import pathlib
import re
from fractions import Fraction

import chess
import chess.pgn

MAX_PLY = 50
RESULTS = {"1-0": "white", "0-1": "black", "1/2-1/2": None}
STANDARD_VARIANTS = {"standard", "chess"}
# The groups a game can be stored in (2800 never is: a mean from 2800 up is in 3200).
GROUPS = (0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500, 3200)
# The groups top games come from, walked down until one the filter does not admit.
TOP_GROUPS = (3200, 2800, 2500, 2200, 2000)
# Lichess's "high score" per speed: top games are ranked by it less the game's group.
HIGH_SCORE = {"ultraBullet": 2644, "bullet": 3352, "blitz": 2974, "rapid": 2949, "classical": 2533,
              "correspondence": 4000}
TOP_GAMES, RECENT_AND_TOP = 4, 8
MASTERS_TOP_GAMES = 15
PLAYER_RECENT_GAMES = 8
MASTERS_MIN_MEAN = 2200
BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
LICHESS_ID = re.compile(r"/([A-Za-z0-9]{8})$", re.ASCII)
TIME_CONTROL = re.compile(r"([0-9]+)(?:\+([0-9]+))?", re.ASCII)
MONTH = re.compile(r"([0-9]{4})-([0-9]{2})", re.ASCII)

# The reasons a game is not indexed, in the order of `explorer build`'s summary line.
SKIP_REASONS = ("already indexed", "not 1-0/0-1/1/2-1/2", "variant or set-up", "illegal move", "BOT",
                "without both ratings", "without a month", "under 2200", "dated after tomorrow", "filtered out")

# FIDE rating regulations, table 8.1.1: dp for p = 1.00, 0.99 ... 0.50.
FIDE_DP = (800, 677, 589, 538, 501, 470, 444, 422, 401, 383, 366, 351, 336, 322, 309, 296, 284, 273, 262, 251,
           240, 230, 220, 211, 202, 193, 184, 175, 166, 158, 149, 141, 133, 125, 117, 110, 102, 95, 87, 80,
           72, 65, 57, 50, 43, 36, 29, 21, 14, 7, 0)


def speed_of(time_control: str | None) -> str:
    """Lichess's speed of a TimeControl tag: "-" (and "?", none or anything unreadable) is
    correspondence; "B+I" or "B" is classed by B + 40 * I."""
    m = TIME_CONTROL.fullmatch(time_control or "")
    if not m:
        return "correspondence"
    t = int(m[1]) + 40 * int(m[2] or 0)
    for limit, name in ((30, "ultraBullet"), (180, "bullet"), (480, "blitz"), (1500, "rapid"), (21600, "classical")):
        if t < limit:
            return name
    return "correspondence"


def group_of(rating: int) -> int:
    """The rating group a mean rating falls in (and the group a `ratings=` value names): 2800 and
    up is 3200, else the largest of 0, 1000, ..., 2200, 2500 not above it."""
    if rating >= 2800:
        return 3200
    return max(g for g in GROUPS if g <= rating)


def groups_named(values) -> set[int]:
    """The groups `ratings=` values name, one each."""
    return {group_of(v) for v in values}


def group_passes(group: int, named: set[int] | None) -> bool:
    """A stored group passes the `ratings=` filter when min(group, 2500) is named (so 2500 admits
    2500 and 3200, and a value naming 3200 admits nothing)."""
    return named is None or min(group, 2500) in named


def top_group(named: set[int] | None) -> int | None:
    """The lowest group top games come from: 3200, 2800, 2500, 2200, 2000 walked down while each
    passes the filter (every one without a filter); None when 3200 does not."""
    lowest = None
    for g in TOP_GROUPS:
        if not group_passes(g, named):
            break
        lowest = g
    return lowest


def id_value(gid: str) -> int:
    """Lichess's number of a game id: base 62 (0-9, A-Z, a-z), the first character the least
    significant digit."""
    return sum(BASE62.index(c) * 62 ** i for i, c in enumerate(gid))


def elo(value: str | None) -> int | None:
    return int(value) if value is not None and value.isascii() and value.isdigit() else None


def parse_date(value: str | None) -> tuple[int | None, int | None, int | None]:
    """(year, month, day) of a PGN date "YYYY.MM.DD"; None for a missing part (a part after a
    missing one is missing too)."""
    parts = (value or "").split(".")
    y = parts[0]
    if not (y.isascii() and y.isdigit() and 1 <= int(y) <= 9999):
        return None, None, None
    m = parts[1] if len(parts) > 1 else ""
    if not (m.isascii() and m.isdigit() and 1 <= int(m) <= 12):
        return int(y), None, None
    d = parts[2] if len(parts) > 2 else ""
    return int(y), int(m), int(d) if d.isascii() and d.isdigit() and 1 <= int(d) <= 31 else None


def date_of(headers) -> tuple[int | None, int | None, int | None]:
    """The game's date: the first of UTCDate and Date that gives a year (as Lichess's dumps write
    UTCDate after Date, and lila's importer keeps the last), its month and day where readable."""
    for tag in ("UTCDate", "Date"):
        d = parse_date(headers.get(tag))
        if d[0] is not None:
            return d
    return None, None, None


def after(date, day: datetime.date) -> bool:
    """Whether a date (year, month or None, day or None) is after the day, comparing the known parts
    only (2099.??.?? is after; this year's month unknown is not)."""
    known = [p for p in date if p is not None]
    return tuple(known) > (day.year, day.month, day.day)[:len(known)]


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


def month_text(month_key: int) -> str:
    return f"{month_key // 100:04d}-{month_key % 100:02d}"


def next_month(month_key: int) -> int:
    y, m = divmod(month_key, 100)
    return (y + 1) * 100 + 1 if m == 12 else month_key + 1


class Game:
    __slots__ = ("index", "id", "headers", "moves", "white", "black", "white_elo", "black_elo", "eff_white",
                 "eff_black", "mean", "speed", "mode", "group", "year", "month", "day", "month_key", "winner",
                 "result", "visits")

    def __init__(self, index, gid, headers, moves, visits):
        self.index, self.id, self.headers, self.moves, self.visits = index, gid, headers, moves, visits
        self.white, self.black = headers.get("White"), headers.get("Black")
        self.white_elo, self.black_elo = elo(headers.get("WhiteElo")), elo(headers.get("BlackElo"))
        w, b = self.white_elo, self.black_elo
        # Both known under Lichess rules; with --all-games a missing one takes the other's.
        self.eff_white = w if w is not None else b if b is not None else 0
        self.eff_black = b if b is not None else w if w is not None else 0
        self.mean = (self.eff_white + self.eff_black) // 2
        self.group = group_of(self.mean)
        self.speed = speed_of(headers.get("TimeControl"))
        # Lichess's mode: "casual" when the Event says so ("Casual Blitz game"), else "rated".
        self.mode = "casual" if "casual" in headers.get("Event", "").lower() else "rated"
        self.year, self.month, self.day = date_of(headers)
        self.month_key = self.year * 100 + self.month if self.month is not None else 0
        self.result = headers["Result"]
        self.winner = RESULTS[self.result]

    def newest(self):
        """The sort key of "newest first" (descending): the month, then the place in the input."""
        return self.month_key, self.index


def key(board: chess.Board):
    """A position's identity: python-chess's transposition key, the same as its EPD (pieces, side to
    move, castling rights, en passant only when legal; no move counters), and quicker to make."""
    return board._transposition_key()


def header_skip(h, masters=False, all_games=False, today: datetime.date | None = None) -> str | None:
    """The first rule of the tags that keeps a game out (a SKIP_REASONS name), or None."""
    if h.get("Result") not in RESULTS:
        return "not 1-0/0-1/1/2-1/2"
    if "FEN" in h or h.get("Variant", "Standard").lower() not in STANDARD_VARIANTS:
        return "variant or set-up"
    if all_games:
        return None
    if h.get("WhiteTitle") == "BOT" or h.get("BlackTitle") == "BOT":
        return "BOT"
    w, b = elo(h.get("WhiteElo")), elo(h.get("BlackElo"))
    if w is None or b is None:
        return "without both ratings"
    date = date_of(h)
    if date[0] is None or (date[1] is None and not masters):
        return "without a month"
    if masters:
        if (w + b) // 2 < MASTERS_MIN_MEAN:
            return "under 2200"
        today = today or datetime.datetime.now(datetime.timezone.utc).date()
        if after(date, today + datetime.timedelta(days=1)):
            return "dated after tomorrow"
    return None


class _Reader(chess.pgn.BaseVisitor):
    """One game's tags, mainline and the (position key, UCI) of its first plies; python-chess checks
    every move. `where` gets, for each new position, (the mainline, ply) that first reached it."""

    def __init__(self, where, rules):
        self.where, self.rules = where, rules

    def begin_game(self):
        self.headers, self.moves, self.visits = {}, [], []
        self.skip, self.illegal = None, False

    def visit_header(self, tagname, tagvalue):
        self.headers.setdefault(tagname, tagvalue)

    def end_headers(self):
        self.skip = header_skip(self.headers, **self.rules)
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
    """The indexed games of PGN files read in order, and what the explorer answers over them.

    masters: the rules of `explorer build --masters`; all_games: those of `--all-games`; today: the
    UTC day "tomorrow" is counted from (now's by default)."""

    def __init__(self, paths, masters=False, all_games=False, today: datetime.date | None = None):
        self.is_masters, self.all_games = masters, all_games
        self.games: list[Game] = []
        self.positions: dict[tuple, dict[int, str]] = {}  # key -> {game index: UCI of its move there}
        self.where: dict[tuple, tuple] = {}  # key -> (a mainline, ply) reaching it
        self.skipped = dict.fromkeys(SKIP_REASONS, 0)
        self.hash_ids: dict[int, str] = {}  # game index -> the id the service gave a game without one
        self._admitted_cache: dict = {}
        self._san_cache: dict = {}
        self._position_cache: dict = {}
        rules = {"masters": masters, "all_games": all_games, "today": today}
        seen = set()
        for path in paths:
            with open(path, encoding="utf-8-sig", errors="replace") as f:
                while (r := chess.pgn.read_game(f, Visitor=lambda: _Reader(self.where, rules))) is not None:
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

    def games_read(self) -> int:
        return len(self.games) + sum(self.skipped.values())

    # -- filters ----------------------------------------------------------

    def admitted(self, speeds=None, groups=None, since=None, until=None, years=False, player=None, modes=None):
        """A bytearray over the games: 1 where the game passes the filters.

        groups: the groups `ratings=` named; since/until are month keys (YYYYMM) or, with years,
        years; either one given excludes the games without a month (with years, a year)."""
        cache_key = (speeds and frozenset(speeds), groups and frozenset(groups), since, until, years, player,
                     modes and frozenset(modes))
        if cache_key not in self._admitted_cache:
            out = bytearray(len(self.games))
            for g in self.games:
                if speeds is not None and g.speed not in speeds:
                    continue
                if not group_passes(g.group, groups):
                    continue
                if modes is not None and g.mode not in modes:
                    continue
                if since is not None or until is not None:
                    if (g.year is None) if years else g.month_key == 0:
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

    def game_id(self, g: Game) -> str:
        return g.id if g.id is not None else self.hash_ids.get(g.index, f"<made-up id of game #{g.index}>")

    def game_json(self, g: Game, masters=False, uci=None):
        d = {} if uci is None else {"uci": uci}
        d["id"] = self.game_id(g)
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

    def _moves_and_totals(self, board, k, cells, with_game, masters=False):
        """The moves (by games, then UCI), each with its averageRating and, when with_game and it has
        one game, that game; and the totals."""
        white_to_move = board.turn == chess.WHITE
        out_moves, totals = [], [0, 0, 0]
        for uci, games in self._ordered(cells):
            d, gs = self._move(board, k, uci, games)
            totals[0] += d["white"]
            totals[1] += d["draws"]
            totals[2] += d["black"]
            rated = [g.eff_white if white_to_move else g.eff_black for g in gs]
            rated = [r for r in rated if r]
            d["averageRating"] = (2 * sum(rated) + len(rated)) // (2 * len(rated)) if rated else 0
            d["game"] = self.game_json(gs[0], masters) if len(gs) == 1 and with_game else None
            out_moves.append(d)
        return out_moves, totals

    def top_and_recent(self, at, named, top_games=None, recent_games=None):
        """/lichess's (top, recent) of the admitted (game index, uci) pairs at a position: the 4 top
        games of the groups from top_group(named) up, by HIGH_SCORE[speed] - group, then newest; the
        newest of the others, at most recent_games and 8 with the 4 top ones; top then cut to
        top_games. None is no limit."""
        lowest = top_group(named)
        candidates = [t for t in at if lowest is not None and self.games[t[0]].group >= lowest]

        def rank(t):
            g = self.games[t[0]]
            month, index = g.newest()
            return HIGH_SCORE[g.speed] - g.group, -month, -index

        top = sorted(candidates, key=rank)[:TOP_GAMES]
        top_ids = {self.game_id(self.games[gi]) for gi, _ in top}
        others = [t for t in at if self.game_id(self.games[t[0]]) not in top_ids]
        others.sort(key=lambda t: self.games[t[0]].newest(), reverse=True)
        room = RECENT_AND_TOP - len(top)
        recent = others[:room if recent_games is None else min(recent_games, room)]
        return top if top_games is None else top[:top_games], recent

    def history(self, k, admitted, since=None, until=None):
        """/lichess's history at the position: each month (within since..until) in which any indexed
        game reached it, ascending, with the admitted games' results; the months between them (and
        from since) as zeros; without until, the last month left out."""
        months = {}
        for gi in self.positions.get(k, {}):
            g = self.games[gi]
            if g.month_key == 0 or (since is not None and g.month_key < since) or \
                    (until is not None and g.month_key > until):
                continue
            cell = months.setdefault(g.month_key, [0, 0, 0])
            if admitted[gi]:
                cell[0 if g.winner == "white" else 2 if g.winner == "black" else 1] += 1
        out, last = [], since
        for month in sorted(months):
            while last is not None and last < month:
                out.append({"month": month_text(last), "white": 0, "draws": 0, "black": 0})
                last = next_month(last)
            w, d, b = months[month]
            out.append({"month": month_text(month), "white": w, "draws": d, "black": b})
            last = next_month(month)
        if until is None and out:
            out.pop()
        return out

    def explorer(self, board: chess.Board, openings_along, admitted, named=None, moves=12, top_games=None,
                 recent_games=None, history=None):
        """The /lichess answer at the board's position over the admitted games (named: the groups
        `ratings=` named; history: None, or (since, until) to add the history)."""
        k = key(board)
        cells = self._cells(k, admitted)
        wanted = not (top_games == 0 and recent_games == 0)
        out_moves, totals = self._moves_and_totals(board, k, cells, wanted)
        at = [(gi, uci) for uci, games in cells.items() for gi in games]
        top, recent = self.top_and_recent(at, named, top_games, recent_games) if wanted else ([], [])
        answer = {"white": totals[0], "draws": totals[1], "black": totals[2], "moves": out_moves[:moves],
                  "recentGames": [self.game_json(self.games[gi], False, uci) for gi, uci in recent],
                  "topGames": [self.game_json(self.games[gi], False, uci) for gi, uci in top],
                  "opening": openings_along}
        if history is not None:
            answer["history"] = self.history(k, admitted, *history)
        return answer

    def masters_top(self, at, top_games=MASTERS_TOP_GAMES):
        """/masters's top games of the admitted (game index, uci) pairs at a position: the largest
        rating sum, then the largest id value (per year 15, merged: the same as 15 of all)."""
        def rank(t):
            g = self.games[t[0]]
            return g.eff_white + g.eff_black, id_value(self.game_id(g))
        return sorted(at, key=rank, reverse=True)[:min(top_games, MASTERS_TOP_GAMES)]

    def masters(self, board: chess.Board, openings_along, admitted, moves=12, top_games=MASTERS_TOP_GAMES):
        """The /masters answer at the board's position over the admitted games."""
        k = key(board)
        cells = self._cells(k, admitted)
        out_moves, totals = self._moves_and_totals(board, k, cells, True, masters=True)
        at = [(gi, uci) for uci, games in cells.items() for gi in games]
        top = self.masters_top(at, top_games)
        return {"white": totals[0], "draws": totals[1], "black": totals[2], "moves": out_moves[:moves],
                "topGames": [self.game_json(self.games[gi], True, uci) for gi, uci in top],
                "opening": openings_along}

    def player(self, board: chess.Board, openings_along, admitted, color, moves=None,
               recent_games=PLAYER_RECENT_GAMES):
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
            # A single game's move has its game whatever the limits.
            d["game"] = self.game_json(gs[0]) if len(gs) == 1 else None
            out_moves.append(d)
        at = [(gi, uci) for uci, games in cells.items() for gi in games]
        recent = sorted(at, key=lambda t: self.games[t[0]].newest(), reverse=True)
        recent = recent[:min(recent_games, PLAYER_RECENT_GAMES)]
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

        def count(name, default=None):
            return int(params[name]) if name in params else default

        def listed(name):
            """A list parameter's items; an empty list admits nothing; absent, None (all)."""
            return set(params[name].split(",")) if name in params else None

        speeds = listed("speeds")
        if path == "/masters":
            since = int(params["since"]) if "since" in params else None
            until = int(params["until"]) if "until" in params else None
            adm = self.admitted(since=since, until=until, years=True)
            return self.masters(board, opening, adm, count("moves", 12), count("topGames", MASTERS_TOP_GAMES))
        months = [None, None]
        for i, name in enumerate(("since", "until")):
            if name in params:
                m = MONTH.fullmatch(params[name])
                months[i] = int(m[1]) * 100 + int(m[2])
        if path == "/player":
            color = params["color"]
            adm = self.admitted(speeds=speeds, since=months[0], until=months[1], player=(params["player"], color),
                                modes=listed("modes"))
            return self.player(board, opening, adm, color, count("moves"), count("recentGames", PLAYER_RECENT_GAMES))
        named = None
        if "ratings" in params:
            named = groups_named(int(v) for v in params["ratings"].split(",") if v != "")
        adm = self.admitted(speeds=speeds, groups=named, since=months[0], until=months[1])
        history = tuple(months) if params.get("history") == "true" else None
        return self.explorer(board, opening, adm, named, count("moves", 12), count("topGames"),
                             count("recentGames"), history)


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
