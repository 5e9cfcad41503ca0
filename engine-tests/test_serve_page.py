"""The page of `archivist serve` in a real browser (headless Chromium via
selenium), with every outside request blocked and counted: none allowed."""
import io
import json
import os
import pathlib
import shutil
import subprocess
import urllib.parse

import chess
import chess.pgn
import pytest

from conftest import ROOT, run
from test_serve import GNUCHESS, get, server
from test_tb_tools import SYZYGY

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


def chromium(tmp_path, logs=("performance",)):
    """Headless Chromium whose every name resolves nowhere but the loopback
    (the service), logging `logs` (the performance log counts requests)."""
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {log: "ALL" for log in logs})
    return webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))


@pytest.fixture
def browser(tmp_path):
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip("Debian's chromium and chromium-driver (make deps)")
    driver = chromium(tmp_path)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def outside_requests(driver, host):
    """The URLs of requests the page (or its workers) made anywhere but the
    service."""
    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Network.requestWillBeSent":
            continue
        url = message["params"]["request"]["url"]
        parts = urllib.parse.urlsplit(url)
        # The browser's own pages (chrome://) are not the network.
        if parts.scheme not in ("http", "https", "ws", "wss", "ftp") or parts.netloc == host:
            continue
        out.append(url)
    return out


def click_square(driver, square):
    # The topmost element of the square: its piece when it has one.
    driver.find_elements(By.CSS_SELECTOR, f'[data-square="{square}"]')[-1].click()


@pytest.mark.skipif(not os.path.exists(GNUCHESS), reason="Debian's gnuchess-book (make deps)")
def test_the_page_plays_from_the_book_shows_the_tablebase_and_runs_a_live_analysis(exe, browser, tmp_path):
    shots = tmp_path
    with server(exe, "--book", GNUCHESS, "--syzygy", str(SYZYGY), "--search-seconds", "20") as host:
        wait = WebDriverWait(browser, 20)
        browser.get_log("performance")  # the blank tab's own start, before the page
        browser.get(f"http://{host}/")
        wait.until(lambda d: "e4" in d.find_element(By.ID, "book").text)
        # No explorer index: no explorer panel.
        assert not browser.find_element(By.ID, "explorer-panel").is_displayed()
        # 1. e4 by clicking: the book panel then offers Black's replies.
        click_square(browser, "e2")
        click_square(browser, "e4")
        wait.until(lambda d: "1. e4" in d.find_element(By.ID, "moves").text)
        wait.until(lambda d: "c5" in d.find_element(By.ID, "book").text and "e5" in d.find_element(By.ID, "book").text)
        assert "4P3/8/PPPP1PPP" in browser.find_element(By.ID, "fen").get_attribute("value")
        # Too many pieces for the tables, and the panel says so.
        wait.until(lambda d: "(32 pieces; the tables hold up to 5)" in d.find_element(By.ID, "tb").text)
        browser.save_screenshot(str(shots / "after-e4.png"))
        # A 3-piece position: the tablebase verdict.
        fen_box = browser.find_element(By.ID, "fen")
        fen_box.clear()
        fen_box.send_keys("8/8/8/8/8/2k5/8/K2Q4 w - - 0 1")
        browser.find_element(By.ID, "setfen").click()
        wait.until(lambda d: "Position: win" in d.find_element(By.ID, "tb").text)
        browser.save_screenshot(str(shots / "tablebase.png"))
        # A live analysis started and stopped.
        browser.find_element(By.ID, "live-toggle").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#live table tr.move"))
        assert browser.find_element(By.ID, "live-toggle").text == "Stop"
        browser.save_screenshot(str(shots / "live.png"))
        browser.find_element(By.ID, "live-toggle").click()
        wait.until(lambda d: d.find_element(By.ID, "live-toggle").text == "Start")
        assert outside_requests(browser, host) == []
    target = os.environ.get("SERVE_SHOTS")
    if target:
        os.makedirs(target, exist_ok=True)
        for p in shots.glob("*.png"):
            shutil.copy(p, target)


START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def explorer_games_tool():
    """The seeded game generator (examples/explorer_games.rs): in
    $ARCHIVIST_EXAMPLES, else the newest of target/{release,debug}/examples."""
    folder = os.environ.get("ARCHIVIST_EXAMPLES")
    if folder:
        candidates = [pathlib.Path(folder) / "explorer_games"]
    else:
        candidates = [ROOT / "target" / kind / "examples" / "explorer_games" for kind in ("release", "debug")]
    found = [p for p in candidates if os.access(p, os.X_OK)]
    return max(found, key=lambda p: p.stat().st_mtime) if found else None


@pytest.fixture(scope="module")
def lichess_index(exe, tmp_path_factory):
    tool = explorer_games_tool()
    if tool is None:
        pytest.skip("build the examples first (cargo build --release --examples), or set ARCHIVIST_EXAMPLES")
    folder = tmp_path_factory.mktemp("explorer")
    pgn, index = folder / "games.pgn", folder / "games.idx"
    subprocess.run([str(tool), str(pgn), "2000", "7"], check=True, timeout=120)
    built = run(exe, "explorer", "build", "--pgn", str(pgn), "--out", str(index))
    assert built.returncode == 0, built.stderr
    return index


def explorer_rows(driver):
    """(SAN, games) of each move row of the explorer panel, and the totals row's games."""
    rows = [(r.get_attribute("data-san"), int(r.find_elements(By.TAG_NAME, "td")[1].text.replace(",", "")))
            for r in driver.find_elements(By.CSS_SELECTOR, "#explorer tr.move")]
    total = driver.find_elements(By.CSS_SELECTOR, "#explorer tr.total td")
    return rows, (int(total[1].text.replace(",", "")) if total else None)


def expected_rows(answer):
    games = lambda s: s["white"] + s["draws"] + s["black"]  # noqa: E731
    return [(m["san"], games(m)) for m in answer["moves"]], games(answer)


def shown_after(wait, query_part):
    """Waits until the explorer panel shows the answer to a query containing `query_part`."""
    wait.until(lambda d: query_part in (d.find_element(By.ID, "explorer").get_attribute("data-query") or "")
               and "loading" not in d.find_element(By.ID, "explorer").get_attribute("class"))


def test_explorer_panel_plays_a_move_filters_by_rating_and_opens_a_top_game(exe, browser, lichess_index):
    book = ROOT / "books" / "default.yacb"
    # The same index as both databases: the page then offers the switch.
    with server(exe, "--lichess", str(lichess_index), "--masters", str(lichess_index), "--book", str(book)) as host:
        # The panel redraws while it is read: a row gone stale is read again.
        wait = WebDriverWait(browser, 20, ignored_exceptions=(StaleElementReferenceException,))
        browser.get_log("performance")  # the blank tab's own start, before the page
        browser.get(f"http://{host}/")
        # The start position: every move the index has, its games, and the position's total.
        status, start = get(host, "/lichess", fen=START)
        assert status == 200 and start["moves"], start
        wait.until(lambda d: d.find_element(By.ID, "explorer-panel").is_displayed()
                   and d.find_elements(By.CSS_SELECTOR, "#explorer tr.move"))
        assert explorer_rows(browser) == expected_rows(start)
        # Both databases loaded: the switch, Lichess first.
        assert [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#explorer-db button.on")] == ["Lichess"]
        status, info = get(host, "/api/info")
        assert browser.find_element(By.ID, "explorer-size").text == f"{info['explorer']['lichess']['games']:,} games"
        # The YACB book's stored elo, worded as the rating it encodes.
        status, book_answer = get(host, "/api/book", fen=START)
        elo = next(m["entry"]["elo"] for m in book_answer["books"][0]["moves"] if m["entry"])
        assert isinstance(elo, int) and elo < 0, elo
        wait.until(lambda d: f"analysis \u2212{-elo} Elo vs baseline (Stockfish, 1 thread, 1M nodes)"
                   in d.find_element(By.ID, "book").text)
        assert f"elo {elo}" not in browser.find_element(By.ID, "book").text
        # 1. e4 from the panel: the board, the move list and the panel follow.
        browser.find_element(By.CSS_SELECTOR, '#explorer tr.move[data-san="e4"]').click()
        wait.until(lambda d: d.find_element(By.ID, "moves").text.strip() == "1. e4")
        e4 = browser.find_element(By.ID, "fen").get_attribute("value")
        assert e4.startswith("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq")
        status, after = get(host, "/lichess", fen=e4)
        assert status == 200 and after["opening"] == {"eco": "B00", "name": "King's Pawn Game"}
        wait.until(lambda d: explorer_rows(d) == expected_rows(after))
        assert browser.find_element(By.ID, "explorer-opening").text == "B00 King's Pawn Game"
        # A rating filter: the groups under 1400 off; the counts are the service's for that filter.
        for rating in (0, 1000, 1200):
            browser.find_element(By.CSS_SELECTOR, f'#explorer-ratings button[data-rating="{rating}"]').click()
        ratings = "1400,1600,1800,2000,2200,2500"
        shown_after(wait, urllib.parse.urlencode({"ratings": ratings}))
        status, filtered = get(host, "/lichess", fen=e4, ratings=ratings, topGames=4, recentGames=4)
        assert status == 200 and filtered["moves"], filtered
        assert explorer_rows(browser) == expected_rows(filtered)
        assert expected_rows(filtered)[1] < expected_rows(after)[1], "the filter left every game in"
        on = browser.find_elements(By.CSS_SELECTOR, "#explorer-ratings button.on")
        assert [b.get_attribute("data-rating") for b in on] == ratings.split(",")
        # Its first top game into the move list, the board still on 1. e4.
        game = filtered["topGames"][0]
        status, pgn = get(host, f"/game/export/{game['id']}")
        assert status == 200
        moves = chess.pgn.read_game(io.StringIO(pgn.decode()))
        expected = chess.Board().variation_san(list(moves.mainline_moves()))
        browser.find_element(By.CSS_SELECTOR, f'#explorer tr.game[data-id="{game["id"]}"]').click()
        wait.until(lambda d: " ".join(d.find_element(By.ID, "moves").text.split()) == expected)
        assert browser.find_element(By.CSS_SELECTOR, "#moves span.current").text == "e4"
        assert browser.find_element(By.ID, "fen").get_attribute("value") == e4
        info = browser.find_element(By.ID, "game-info").text
        assert game["white"]["name"] in info and game["black"]["name"] in info
        # Forward walks the game.
        browser.find_element(By.ID, "fwd").click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, "#moves span.current").get_attribute("data-index") == "2")
        after_e5 = browser.find_element(By.ID, "fen").get_attribute("value")
        shown_after(wait, urllib.parse.urlencode({"play": ",".join(m.uci() for m in list(moves.mainline_moves())[:2])}))
        # Masters: years instead of speeds and ratings, the masters answer.
        browser.find_element(By.CSS_SELECTOR, '#explorer-db button[data-db="masters"]').click()
        shown_after(wait, "masters?")
        status, masters = get(host, "/masters", fen=after_e5)
        assert status == 200 and explorer_rows(browser) == expected_rows(masters)
        assert not browser.find_element(By.ID, "explorer-speeds").is_displayed()
        assert browser.find_element(By.ID, "explorer-since-year").is_displayed()
        assert outside_requests(browser, host) == []
