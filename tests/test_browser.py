"""``euchre serve`` in a real browser: headless Chromium (the system package) driven by Selenium.

The page is loaded from a live server, and whole hands of both games are
played by clicking, as a person would: a highlighted card of the hand or a
bid button, chosen at random among the legal moves the page offers. After
every click, what the page shows is compared with the engine state the
server holds: the cards in hand and which of them are highlighted, the bid
buttons, each seat's tricks and score, trump, the called card, the finished
tricks and their winners, and the end of the hand; no card hidden from the
player's seat appears anywhere on the page. A saved record file is then
replayed step by step with the page's buttons, every hand shown checked
against the engine's replay.

Needs Chromium and its driver (Debian: ``apt-get install chromium
chromium-driver``; ``.ci/run`` installs them) and Selenium (the ``dev``
extra). Set ``CHROMIUM`` / ``CHROMEDRIVER`` for other paths.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest
from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait
from werkzeug.serving import make_server

from apps.serve import ServeConfig, create_app
from euchre_env import actions, cards, engine
from euchre_env.records import HandRecord, save_records

DATA = Path(__file__).parent / "data"
CARD = re.compile(r"(?<![\w])(10|[89JQKA])([♣♦♥♠])")


def _binary(env: str, *names: str) -> str:
    path = os.environ.get(env) or next((p for p in map(shutil.which, names) if p), None)
    if not path:
        raise RuntimeError(
            f"the browser tests need {names[0]} (Debian: apt-get install chromium chromium-driver; "
            f"or set {env})"
        )
    return path


@pytest.fixture(scope="module")
def server():
    app = create_app(ServeConfig())
    srv = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield app, f"http://127.0.0.1:{srv.port}/"
    srv.shutdown()
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = _binary("CHROMIUM", "chromium", "chromium-browser", "google-chrome")
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(_binary("CHROMEDRIVER", "chromedriver")), options=options)
    yield driver
    driver.quit()


def wait_for(driver, condition, what: str, timeout: float = 30):
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.02).until(lambda d: condition(d))
    except TimeoutException:
        error = driver.find_element(By.ID, "error")
        shown = error.text if error.is_displayed() else ""
        raise AssertionError(f"the page did not show {what}; error box: {shown!r}") from None


def board(driver, key: str) -> str | None:
    return driver.execute_script(f"return document.getElementById('board').dataset.{key} || null;")


def start_game(driver, url: str, variant: str, seat: int, bots: str, seed: int) -> str:
    driver.get(url)
    wait_for(driver, lambda d: board(d, "gameId"), "the first game")
    first = board(driver, "gameId")
    Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
    Select(driver.find_element(By.ID, "seat")).select_by_value(str(seat))
    for select in driver.find_elements(By.CSS_SELECTOR, "select.bot"):
        Select(select).select_by_value(bots)
    seed_box = driver.find_element(By.ID, "seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    driver.find_element(By.ID, "start").click()
    return wait_for(driver, lambda d: board(d, "gameId") != first and board(d, "gameId"), "the new game")


# What the page shows, read in one call (each WebDriver call is a round trip).
SNAPSHOT = """
const cardsIn = (root, css) => Array.from(root.querySelectorAll(css)).map((e) => e.dataset.card);
const text = (id) => { const e = document.getElementById(id); return e ? e.textContent : null; };
return {
  version: document.getElementById("board").dataset.version || null,
  step: document.getElementById("board").dataset.step || null,
  hand: cardsIn(document, "#hand [data-card]"),
  legal: cardsIn(document, "#hand button.card.legal"),
  buttons: Array.from(document.querySelectorAll("#actions button")).map((e) => Number(e.dataset.action)),
  seats: Array.from(document.querySelectorAll("#seats .seat")).map((e) => ({
    seat: Number(e.dataset.seat), counts: e.querySelector(".counts").textContent,
    toAct: e.classList.contains("to-act"), badges: e.querySelector(".badges").textContent,
    mini: e.querySelector(".mini-hand") ? cardsIn(e, ".mini-hand [data-card]") : null,
  })),
  trump: text("trump"),
  called: cardsIn(document, "#called [data-card]"),
  tricks: Array.from(document.querySelectorAll("#trick-table tr[data-trick]")).map((r) => ({
    index: Number(r.dataset.trick), winner: r.querySelector(".trick-winner").textContent,
    cards: cardsIn(r, "[data-card]"),
  })),
  all: cardsIn(document, "[data-card]"),
  log: text("log"),
  status: text("status"),
  summary: text("summary"),
  stepText: text("replay-step"),
  belief: document.getElementById("belief-panel").hidden ? null
    : Array.from(document.querySelectorAll("#belief-bars .bar")).map((b) => b.textContent),
};
"""


def snapshot(driver) -> dict:
    return driver.execute_script(SNAPSHOT)


def hidden_from(s, seat: int) -> set[int]:
    hidden = set(cards.cards_of(int(s.kitty[0])))
    for other in range(s.hands.shape[1]):
        if other != seat:
            hidden |= set(cards.cards_of(int(s.hands[0, other])))
    if int(s.dealer[0]) != seat and int(s.discard[0]) >= 0:
        hidden.add(int(s.discard[0]))
    return hidden - {int(s.upcard[0]), int(s.called[0])}


def seat_label(seat: int, human: int) -> str:
    return f"player_{seat} (you)" if seat == human else f"player_{seat}"


def check_page(page: dict, game) -> None:
    """What the page shows (``snapshot``) against the engine state of the game."""
    s, rules, human = game.state, game.rules, game.human
    p = rules.num_players
    assert page["version"] == str(game.version)
    assert page["hand"] == [cards.name(c) for c in cards.cards_of(int(s.hands[0, human]))]
    turn = int(s.turn[0])
    legal = engine.expand(s.mask_base, s.mask_bits)[0].nonzero()[0].tolist() if turn == human else []
    assert page["legal"] == [cards.name(a % cards.NUM_CARDS) for a in legal if a < actions.CALL_BASE]
    assert page["buttons"] == [a for a in legal if a >= actions.CALL_BASE]
    assert [x["seat"] for x in page["seats"]] == list(range(p))
    for x, seat in enumerate(page["seats"]):
        assert seat["counts"] == f"tricks {int(s.tricks_won[0, x])} · score {int(s.scores[0, x])}"
        assert seat["toAct"] == (x == turn)
        assert ("dealer" in seat["badges"]) == (x == int(s.dealer[0]))
    if int(s.trump[0]) < cards.NUM_SUITS:
        assert page["trump"].startswith(f"trump {cards.SUIT_NAMES[int(s.trump[0])]}")
        assert page["trump"].endswith(f"maker {seat_label(int(s.maker[0]), human)}")
        if int(s.called[0]) >= 0:
            assert page["called"] == [cards.name(int(s.called[0]))]
    assert len(page["tricks"]) == int(s.tricks_won[0].sum())
    for row in page["tricks"]:
        k = row["index"]
        assert row["winner"] == seat_label(int(s.trick_winner[0, k]), human)
        assert set(row["cards"]) == {cards.name(int(c)) for c in s.trick_cards[0, k] if c >= 0}
    # the partner-belief panel (five-handed): the server's exact belief, in per cent
    belief = game.view()["belief"]
    if belief is None:
        assert page["belief"] is None
    else:
        rows = [
            (seat_label(r["seat"], human), r["p"]) for r in belief["seats"] if r["seat"] != int(s.maker[0])
        ]
        rows.append(("no partner", belief["no_partner"]))
        assert page["belief"] == [f"{label}{100 * q:.1f}%" for label, q in rows]
    # nothing hidden from the seat: no card element, no card in this hand's story
    hidden = {cards.name(c) for c in hidden_from(s, human)}
    assert not set(page["all"]) & hidden
    story = page["log"][page["log"].rfind("--- hand ") :]  # an earlier hand's cards are dealt anew
    named = {cards.name(cards.parse(r + su)) for r, su in CARD.findall(story)}
    assert not named & hidden, named & hidden


@pytest.mark.parametrize(("variant", "seat", "seed"), [("four_handed", 0, 31), ("five_handed", 2, 32)])
def test_whole_hands_played_by_clicking(server, browser, variant, seat, seed) -> None:
    app, url = server
    game_id = start_game(browser, url, variant, seat, "heuristic", seed)
    games = app.config["EUCHRE_GAMES"]
    rng = np.random.default_rng(seed)
    clicks, beliefs = 0, 0
    while True:
        game = games[game_id]
        page = snapshot(browser)
        check_page(page, game)
        status = page["status"]
        beliefs += page["belief"] is not None
        if engine.is_done(game.state)[0]:
            assert status == "Hand over."
            break
        assert status.startswith("Your turn")
        choices = browser.find_elements(By.CSS_SELECTOR, "#hand button.card.legal, #actions button")
        version = board(browser, "version")
        choices[rng.integers(len(choices))].click()
        clicks += 1
        wait_for(browser, lambda d, v=version: board(d, "version") != v, "the view after the click")
    s = games[game_id].state
    summary = page["summary"]
    points = " / ".join(str(int(x)) for x in s.last_points[0])
    assert summary.startswith("Hand over") and summary.endswith(f"points {points}"), summary
    assert clicks >= 5  # at least the five cards
    assert (beliefs > 0) == (variant == "five_handed")
    # the next hand is dealt with the page's button
    version = board(browser, "version")
    browser.find_element(By.ID, "next-hand").click()
    wait_for(browser, lambda d: board(d, "version") != version, "the next hand")
    check_page(snapshot(browser), games[game_id])
    assert browser.find_elements(By.CSS_SELECTOR, "#replay-records button")  # the hand just played


def test_an_illegal_or_stale_click_shows_the_error_and_keeps_the_game(server, browser) -> None:
    app, url = server
    game_id = start_game(browser, url, "four_handed", 0, "heuristic", 33)
    game = app.config["EUCHRE_GAMES"][game_id]
    before = game.state.copy(), game.version
    # a request the page did not make: an action for another seat, sent from the page itself
    result = browser.execute_async_script(
        """const done = arguments[arguments.length - 1];
        fetch(`/api/games/${arguments[0]}/move`, {method: "POST", headers: {"Content-Type": "application/json"},
              body: JSON.stringify({version: Number(arguments[1]), seat: 1, action: 84})})
          .then(r => r.json().then(j => done([r.status, j.error])));""",
        game_id,
        board(browser, "version"),
    )
    assert result[0] == 403 and "you play seat 0" in result[1]
    game = app.config["EUCHRE_GAMES"][game_id]
    assert game.state == before[0] and game.version == before[1]
    check_page(snapshot(browser), game)


def test_a_saved_record_replayed_step_by_step(server, browser, tmp_path) -> None:
    _, url = server
    four = HandRecord.from_dict(json.loads((DATA / "hand_record.json").read_text()))
    five = _five_handed_record()
    path = save_records(tmp_path / "two.jsonl", [four, five])
    save_records(tmp_path / "five.json", [five])
    browser.get(url)
    wait_for(browser, lambda d: board(d, "gameId"), "the first game")
    browser.find_element(By.ID, "tab-replay").click()
    for record, file in ((four, path), (five, tmp_path / "five.json")):
        states = record.states()
        steps = len(record.decisions)
        browser.find_element(By.ID, "record-file").send_keys(str(file))
        wait_for(
            browser, lambda d, n=steps: snapshot(d)["stepText"] == f"step 0 / {n}", "the record's first step"
        )
        if file == path:
            assert len(Select(browser.find_element(By.ID, "record-index")).options) == 2
        # every step of the first record with the next button; the second's last step with its button
        for k in range(steps + 1) if file == path else [steps]:
            if k:
                browser.find_element(By.ID, "replay-next" if file == path else "replay-last").click()
                wait_for(browser, lambda d, k=k: board(d, "step") == str(k), f"step {k}")
            page = snapshot(browser)
            assert page["stepText"] == f"step {k} / {steps}"
            hands = [[cards.name(c) for c in cards.cards_of(int(h))] for h in states[k].hands[0]]
            assert [x["mini"] for x in page["seats"]] == hands
        assert page["summary"].endswith("points " + " / ".join(map(str, record.points)))
        # back one step, and the view from one seat: only that seat's cards
        browser.find_element(By.ID, "replay-prev").click()
        wait_for(browser, lambda d, n=steps: board(d, "step") == str(n - 1), "the step before")
        Select(browser.find_element(By.ID, "replay-seat")).select_by_value("1")
        wait_for(browser, lambda d: snapshot(d)["seats"][0]["mini"] is None, "the view from seat 1")
        page, s = snapshot(browser), states[steps - 1]
        assert page["hand"] == [cards.name(c) for c in cards.cards_of(int(s.hands[0, 1]))]
        assert not set(page["all"]) & {cards.name(c) for c in hidden_from(s, 1)}
        Select(browser.find_element(By.ID, "replay-seat")).select_by_value("all")
    # a malformed file: the error is shown
    (tmp_path / "bad.json").write_text(json.dumps(dict(four.to_dict(), points=[9, 9, 9, 9])))
    browser.find_element(By.ID, "record-file").send_keys(str(tmp_path / "bad.json"))
    error = browser.find_element(By.ID, "error")
    wait_for(browser, lambda d: error.is_displayed(), "the error")
    assert "not a valid hand record: record points" in error.text


def _five_handed_record() -> HandRecord:
    from euchre_env.records import HandRecorder
    from euchre_env.rules import make_rules

    rules = make_rules("five_handed")
    rec = HandRecorder(rules)
    s = engine.init_state(rules, seeds=[8])
    rng = np.random.default_rng(8)
    while not engine.is_done(s)[0]:
        a = np.array([rng.choice(np.flatnonzero(engine.legal_action_mask(s, rules)[0]))])
        rec(s, a)
        s = engine.step(s, a, rules)
    return rec.finish(s)[0]
