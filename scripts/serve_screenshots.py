"""Screenshots of ``euchre serve`` with a hand in progress, for the docs (docs/img/serve_*.png).

Starts the server in-process, opens the page in headless Chromium (Selenium, as
tests/test_browser.py), starts a seeded game of each kind and clicks the first
highlighted move until a few tricks are done, then saves the window::

    python scripts/serve_screenshots.py            # writes docs/img/serve_four_handed.png, serve_five_handed.png
"""

from __future__ import annotations

import shutil
import sys
import threading
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from werkzeug.serving import make_server

from apps.serve import ServeConfig, create_app

ROOT = Path(__file__).resolve().parents[1]
SHOTS = [  # (file, variant, seat, seed, tricks to play before the picture)
    ("serve_four_handed.png", "four_handed", 0, 4, 2),
    ("serve_five_handed.png", "five_handed", 1, 3, 1),  # the partner still hidden: the belief panel
]


def _version(driver) -> str | None:
    return driver.execute_script("return document.getElementById('board').dataset.version || null;")


def _game(driver) -> str | None:
    return driver.execute_script("return document.getElementById('board').dataset.gameId || null;")


def shoot(driver, url: str, out: Path, variant: str, seat: int, seed: int, tricks: int) -> None:
    wait = WebDriverWait(driver, 30, poll_frequency=0.05)
    driver.get(url)
    wait.until(_game)
    first = _game(driver)
    Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
    Select(driver.find_element(By.ID, "seat")).select_by_value(str(seat))
    driver.find_element(By.ID, "seed").send_keys(str(seed))
    driver.find_element(By.ID, "start").click()
    wait.until(lambda d: _game(d) != first)
    while len(driver.find_elements(By.CSS_SELECTOR, "#trick-table tr[data-trick]")) < tricks:
        moves = driver.find_elements(By.CSS_SELECTOR, "#hand button.card.legal, #actions button")
        if not moves:
            raise RuntimeError(f"{variant}: the hand ended before {tricks} tricks; try another seed")
        version = _version(driver)
        moves[0].click()
        wait.until(lambda d, v=version: _version(d) != v)
    driver.save_screenshot(str(out))
    print(f"wrote {out}")


def main(argv: list[str]) -> int:
    folder = Path(argv[0]) if argv else ROOT / "docs" / "img"
    server = make_server("127.0.0.1", 0, create_app(ServeConfig()), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("google-chrome") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000"):
        options.add_argument(arg)
    driver = webdriver.Chrome(
        service=Service(shutil.which("chromedriver") or "chromedriver"), options=options
    )
    try:
        for name, variant, seat, seed, tricks in SHOTS:
            shoot(driver, f"http://127.0.0.1:{server.port}/", folder / name, variant, seat, seed, tricks)
    finally:
        driver.quit()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
