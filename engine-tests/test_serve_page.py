"""The page of `archivist serve` in a real browser (headless Chromium via
selenium), with every outside request blocked and counted: none allowed."""
import json
import os
import shutil
import urllib.parse

import pytest

from test_serve import GNUCHESS, server
from test_tb_tools import SYZYGY

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture
def browser(tmp_path):
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.skip("Debian's chromium and chromium-driver (make deps)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                "--disable-background-networking", "--disable-component-update", "--no-first-run",
                # Every name resolves nowhere but the loopback the service is on.
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=DRIVER))
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def outside_requests(driver, host):
    """The URLs of requests the page made anywhere but the service."""
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
