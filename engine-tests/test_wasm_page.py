"""The browser build's page (web/site/ in the site `make wasm` assembles in
target/web/) in a real browser (headless Chromium via selenium), served by
`archivist serve --web`, with every outside request blocked and counted:
none allowed. Books are chosen through the page's file input, conversions
saved as downloads and compared byte for byte with `archivist book
convert`, and the engine searches in the page's worker.

The site is `$ARCHIVIST_WEB`, else target/web. Without the site or
Chromium the browser tests skip, except under CI_BUILD=1, where they fail.
The checks of `serve --web` itself (content types, what is refused) need
neither."""
import http.client
import json
import os
import pathlib
import shutil
import time

import chess
import chess.polyglot
import pytest

from conftest import ROOT, SHARED, run
from test_serve import GNUCHESS, server
from test_serve_page import outside_requests

CI = os.environ.get("CI_BUILD") == "1"
SITE = pathlib.Path(os.environ.get("ARCHIVIST_WEB") or ROOT / "target" / "web")
SITE_FILES = ("index.html", "page.js", "worker.js", "archivist.js", "archivist.wasm")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
LASKER = SHARED / "books" / "lasker-trap.bin"
START = chess.STARTING_FEN


def missing(reason):
    """Skips, or under CI_BUILD=1 fails: CI must run what it claims to."""
    if CI:
        pytest.fail(f"CI_BUILD=1: {reason}")
    pytest.skip(reason)


def http_get(host, path):
    """(status, content type, body) of GET path, sent as written (no normalising)."""
    conn = http.client.HTTPConnection(host, timeout=30)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.getheader("content-type", ""), r.read()
    finally:
        conn.close()


# ----- serve --web, without a browser ----------------------------------------
def test_serve_web_answers_the_folder_with_content_types_and_nothing_outside_it(exe, tmp_path):
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    files = {"index.html": b"<p>site</p>", "page.js": b"export {};", "a.mjs": b"export {};",
             "archivist.wasm": b"\0asm\1\0\0\0", "package.json": b'{"type": "module"}', "style.css": b"p {}",
             "sub/index.html": b"<p>sub</p>", "book.bin": b"\1\2\3"}
    for name, data in files.items():
        (site / name).write_bytes(data)
    (tmp_path / "secret.txt").write_text("secret")
    (site / "out.txt").symlink_to(tmp_path / "secret.txt")
    # Only --web: no book, no tables, no saved table needed.
    with server(exe, "--web", str(site)) as host:
        kinds = {"index.html": "text/html", "page.js": "text/javascript", "a.mjs": "text/javascript",
                 "archivist.wasm": "application/wasm", "package.json": "application/json", "style.css": "text/css",
                 "sub/index.html": "text/html", "book.bin": "application/octet-stream"}
        for name, kind in kinds.items():
            status, content_type, body = http_get(host, f"/web/{name}")
            assert (status, content_type.split(";")[0], body) == (200, kind, files[name]), name
        assert http_get(host, "/web/")[::2] == (200, files["index.html"])
        assert http_get(host, "/web/sub/")[::2] == (200, files["sub/index.html"])
        conn = http.client.HTTPConnection(host, timeout=30)
        conn.request("GET", "/web")
        r = conn.getresponse()
        assert (r.status, r.getheader("location")) == (308, "/web/")
        conn.close()
        for bad in ("/web/missing.js", "/web/sub", "/web/../secret.txt", "/web/%2e%2e/secret.txt",
                    "/web/sub/..%2f..%2fsecret.txt", "/web/..%5csecret.txt", f"/web/{tmp_path}/secret.txt",
                    f"/web//{tmp_path}/secret.txt", "/web/out.txt", "/web/.hidden", "/web/%00"):
            status, _, body = http_get(host, bad)
            assert status == 404 and b"secret" not in body, (bad, status, body)
        # The explorer's routes are still there.
        assert http_get(host, "/api/info")[0] == 200
    # Not a directory: a clear error at start.
    for bad in (site / "index.html", tmp_path / "missing"):
        r = run(exe, "serve", "--listen", "127.0.0.1:0", "--web", str(bad), timeout=30)
        assert r.returncode != 0 and f"--web {bad}" in r.stderr, r.stderr
    assert "--web <DIR>" in run(exe, "serve", "--help").stdout


# ----- the page in Chromium ------------------------------------------------------
@pytest.fixture
def site():
    absent = [f for f in SITE_FILES if not (SITE / f).is_file()]
    if absent:
        missing(f"the browser build's site {SITE} lacks {', '.join(absent)} (make wasm, or set ARCHIVIST_WEB)")
    return SITE


@pytest.fixture
def browser(tmp_path):
    try:
        from selenium import webdriver
    except ImportError:
        missing("selenium (make deps)")
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        missing("Debian's chromium and chromium-driver (make deps)")
    from test_serve_page import chromium
    driver = chromium(tmp_path, ("performance", "browser"))
    driver.set_page_load_timeout(30)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.downloads = downloads
    yield driver
    driver.quit()


def by(css):
    from selenium.webdriver.common.by import By
    return By.CSS_SELECTOR, css


def text(driver, css):
    return driver.find_element(*by(css)).text


def click_square(driver, square):
    # The topmost element of the square: its piece when it has one.
    driver.find_elements(*by(f'[data-square="{square}"]'))[-1].click()


def book_rows(driver):
    """(SAN, UCI or None, weight) of each row of the book panel."""
    rows = []
    for r in driver.find_elements(*by("#book tr.move, #book tr.unplayable")):
        cells = r.find_elements(*by("td"))
        rows.append((cells[0].text, r.get_attribute("data-uci"), int(cells[1].text)))
    return rows


def choose_book(driver, wait, path, format_):
    driver.find_element(*by("#book-file")).send_keys(str(path))
    wait.until(lambda d: d.find_elements(*by("#book-format")) and text(d, "#book-format") == format_
               and path.name in text(d, "#book-info"))


def downloaded(driver, wait, name):
    """A finished download called `name`, moved out of the download folder
    (so that the next one of the same name keeps it) into a folder of its own."""
    path = driver.downloads / name
    wait.until(lambda d: path.exists() and not any(driver.downloads.glob("*.crdownload")))
    assert sorted(p.name for p in driver.downloads.iterdir()) == [name]
    driver.saved = getattr(driver, "saved", 0) + 1
    keep = driver.downloads.parent / f"saved-{driver.saved}" / name
    keep.parent.mkdir()
    return path.rename(keep)


def convert_and_compare(driver, wait, exe, tmp_path, source, button, out_name, to):
    """Clicks a conversion and checks the download and the report against `book convert`."""
    driver.find_element(*by(button)).click()
    saved = downloaded(driver, wait, out_name)
    native = tmp_path / f"native-{out_name}"
    r = run(exe, "book", "convert", str(source), str(native), "--to", to)
    assert r.returncode == 0, r.stderr
    assert saved.read_bytes() == native.read_bytes(), out_name
    wait.until(lambda d: "->" in text(d, "#convert-report"))
    # `IN (from) -> OUT (to): counts` natively, `from -> to: counts` in the page.
    assert text(driver, "#convert-report").split(": ", 1)[1] == r.stdout.strip().split("): ", 1)[1]
    return saved


def set_fen(driver, fen):
    box = driver.find_element(*by("#fen"))
    box.clear()
    box.send_keys(fen)
    driver.find_element(*by("#setfen")).click()


def fen_shown(driver):
    return driver.find_element(*by("#fen")).get_attribute("value")


@pytest.mark.skipif(not os.path.exists(GNUCHESS) and not CI, reason="Debian's gnuchess-book (make deps)")
def test_the_page_plays_from_a_book_converts_it_and_searches_in_a_worker(exe, site, browser, tmp_path):
    from selenium.webdriver.support.ui import Select, WebDriverWait
    started = time.monotonic()
    with server(exe, "--web", str(site)) as host:
        wait = WebDriverWait(browser, 60)
        browser.get_log("performance")  # the blank tab's own start, before the page
        browser.get(f"http://{host}/web/")
        wait.until(lambda d: d.find_elements(*by('[data-square="e2"][data-piece="P"]')))
        assert not browser.find_elements(*by("#boot")), "the file:// warning stayed: the scripts did not run"

        # Debian's Polyglot book: the start position's moves, as python-chess reads them.
        choose_book(browser, wait, pathlib.Path(GNUCHESS), "polyglot")
        with chess.polyglot.open_reader(GNUCHESS) as reader:
            def expected(board):
                return [(board.san(e.move), e.move.uci(), e.weight) for e in reader.find_all(board, minimum_weight=0)]
            start = chess.Board()
            wait.until(lambda d: book_rows(d))
            assert book_rows(browser) == expected(start)
            # 1. e4 by clicking: the board, the move list and the panel follow.
            click_square(browser, "e2")
            click_square(browser, "e4")
            wait.until(lambda d: "1. e4" in text(d, "#moves"))
            start.push_uci("e2e4")
            assert fen_shown(browser) == start.fen()
            wait.until(lambda d: book_rows(d) == expected(start))
            browser.save_screenshot(str(tmp_path / "book-after-e4.png"))
            # A book move by clicking its row, then back.
            browser.find_element(*by('#book tr.move[data-uci="c7c5"]')).click()
            wait.until(lambda d: "1. e4 c5" in text(d, "#moves"))
            browser.find_element(*by("#back")).click()
            wait.until(lambda d: fen_shown(d) == start.fen())
            browser.find_element(*by("#startpos")).click()
            wait.until(lambda d: fen_shown(d) == START)
        # Only Polyglot's conversions apply to a Polyglot book.
        enabled = [b.get_attribute("data-from") for b in browser.find_elements(*by("#convert-buttons button"))
                   if b.is_enabled()]
        assert enabled == ["polyglot"]
        book_shown = time.monotonic()

        # Polyglot -> SBOB of a small book, saved, and the bytes `book convert` writes.
        choose_book(browser, wait, LASKER, "polyglot")
        sbob = convert_and_compare(browser, wait, exe, tmp_path, LASKER,
                                   '#convert-buttons button[data-from="polyglot"]', "lasker-trap.sbob", "sbob")
        # The saved SBOB book opened again: its [row, col] moves shown as the legal moves they are.
        choose_book(browser, wait, sbob, "sbob")
        enabled = [b.get_attribute("data-from") for b in browser.find_elements(*by("#convert-buttons button"))
                   if b.is_enabled()]
        assert enabled == ["sbob"]
        click_square(browser, "d2")
        click_square(browser, "d4")
        wait.until(lambda d: book_rows(d) == [("d5", "d7d5", 2)])
        # The knight promotion of the trap, as SAN and UCI.
        trap = chess.Board()
        for san in "d4 d5 c4 e5 dxe5 d4 e3 Bb4+ Bd2 dxe3 Bxb4 exf2+ Ke2".split():
            trap.push_san(san)
        set_fen(browser, trap.fen())
        wait.until(lambda d: book_rows(d) == [("fxg1=N+", "f2g1n", 2)])
        browser.save_screenshot(str(tmp_path / "sbob-promotion.png"))
        browser.find_element(*by('#book tr.move[data-uci="f2g1n"]')).click()
        trap.push_uci("f2g1n")
        wait.until(lambda d: fen_shown(d) == trap.fen())
        # SBOB -> JSON, saved, and the bytes `book convert` writes.
        saved_json = convert_and_compare(browser, wait, exe, tmp_path, sbob,
                            '#convert-buttons button[data-from="sbob"]', "lasker-trap.json", "json")
        # JSON -> SBOB through the list of targets: the SBOB book again.
        choose_book(browser, wait, saved_json, "json")
        Select(browser.find_element(*by("#convert-to"))).select_by_value("sbob")
        browser.find_element(*by("#convert-go")).click()
        assert downloaded(browser, wait, "lasker-trap.sbob").read_bytes() == sbob.read_bytes()
        # The old openingBook.json (shogi) to the new JSON form, saved under a name of its own.
        old = tmp_path / "openingBook.json"
        old.write_text(json.dumps([{"name": "Aggressive Rook", "moves": {
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1": [{"from": "27", "to": "26"}]}}]))
        choose_book(browser, wait, old, "legacy-json")
        assert text(browser, "#book") == "not in this book"
        convert_and_compare(browser, wait, exe, tmp_path, old, '#convert-buttons button[data-from="legacy-json"]',
                            "openingBook-converted.json", "json")
        converted = time.monotonic()

        # A search to a fixed depth in the worker: a legal best move, its line, its score.
        browser.find_element(*by("#startpos")).click()
        wait.until(lambda d: fen_shown(d) == START)
        Select(browser.find_element(*by("#engine-limit"))).select_by_value("depth")
        value = browser.find_element(*by("#engine-value"))
        value.clear()
        value.send_keys("6")
        wait.until(lambda d: d.find_element(*by("#engine-go")).is_enabled())
        browser.find_element(*by("#engine-go")).click()
        wait.until(lambda d: d.find_element(*by("#engine")).get_attribute("data-state") == "ready"
                   and text(d, "#engine-status").startswith("done"))
        best = browser.find_element(*by("#engine-bestmove")).get_attribute("data-uci")
        assert chess.Move.from_uci(best) in chess.Board().legal_moves, best
        line = browser.find_element(*by("#engine-line")).get_attribute("data-uci").split()
        assert line[0] == best
        assert text(browser, "#engine-depth").startswith("6 ")
        assert text(browser, "#engine-score")
        searched = time.monotonic()

        # A long search stopped: the last completed iteration's move is kept, and a new worker searches next.
        Select(browser.find_element(*by("#engine-limit"))).select_by_value("movetime")
        value.clear()
        value.send_keys("60000")
        browser.find_element(*by("#engine-go")).click()
        wait.until(lambda d: d.find_element(*by("#engine-bestmove")).get_attribute("data-uci"))
        browser.find_element(*by("#engine-stop")).click()
        assert text(browser, "#engine-status").startswith("stopped: best move from depth")
        browser.save_screenshot(str(tmp_path / "stopped.png"))
        kept = browser.find_element(*by("#engine-bestmove")).get_attribute("data-uci")
        assert chess.Move.from_uci(kept) in chess.Board().legal_moves, kept
        assert not browser.find_element(*by("#engine-stop")).is_enabled()
        wait.until(lambda d: d.find_element(*by("#engine")).get_attribute("data-state") == "ready")
        assert browser.find_element(*by("#engine-bestmove")).get_attribute("data-uci") == kept
        # The kept move plays by a click.
        browser.find_element(*by("#engine-bestmove")).click()
        after = chess.Board()
        after.push_uci(kept)
        wait.until(lambda d: fen_shown(d) == after.fen())
        Select(browser.find_element(*by("#engine-limit"))).select_by_value("nodes")
        value.clear()
        value.send_keys("2000")
        browser.find_element(*by("#engine-go")).click()
        wait.until(lambda d: text(d, "#engine-status").startswith("done"))
        assert chess.Move.from_uci(browser.find_element(*by("#engine-bestmove")).get_attribute("data-uci")) in after.legal_moves

        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
        assert outside_requests(browser, host) == []
    target = os.environ.get("WEB_SHOTS")
    if target:
        os.makedirs(target, exist_ok=True)
        for p in tmp_path.glob("*.png"):
            shutil.copy(p, target)
    print(f"book {book_shown - started:.1f} s, conversions {converted - book_shown:.1f} s, "
          f"search {searched - converted:.1f} s, stop {time.monotonic() - searched:.1f} s")
