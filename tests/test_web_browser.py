"""The web page in a real browser (docs/web.md): headless Chromium driven by Selenium.

Every game is played to the end against built-in agents by clicking the
page's ``data-action`` elements, with no JavaScript console error; a
recorded match is replayed step by step, with the trick winners and points
of ``slagwerk replay``. The screenshots in docs/images/web-<game>.png are
taken here: with ``SLAGWERK_SCREENSHOTS=docs`` they replace those files,
otherwise they go to a temporary folder (a test run leaves the checkout as
it was).

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs
them when missing) and the ``selenium`` package; without them the tests are
skipped, saying which is missing.
"""

from __future__ import annotations

import json
import os
import random
import sys
import threading
from urllib.parse import urlencode

import pytest

from paths import REPO
from slagwerk.agents.match import play_match
from slagwerk.agents.protocol import Limits, hello
from slagwerk.agents.registry import make
from slagwerk.engine import make_game
from slagwerk.engine.bits import derive_seed, make_rng
from slagwerk.engine.cards import RANK_NAMES, SUIT_NAMES
from slagwerk.engine.records import record_of, replay

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
DOCS_IMAGES = REPO / "docs" / "images"
WAIT_S = 600.0  # a bot move on a busy two-core machine, its first compilation included

webdriver = pytest.importorskip("selenium.webdriver",
                                reason="selenium is not installed (pip install -e '.[test]')")
if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
    pytest.skip(f"Chromium is not installed ({CHROMIUM}, {CHROMEDRIVER}: apt-get install chromium "
                f"chromium-driver)", allow_module_level=True)

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions as EC  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from slagwerk.web.matches import DEAL_SALT  # noqa: E402
from slagwerk.web.server import WebServer  # noqa: E402

MATCHES = {
    # game: (human seat, agents of the other seats in seat order, options, seed, screenshot at decision)
    "coins": (0, ["heuristic", "random"], {"target": 4}, 3, 2),
    "koetsieren": (1, ["random", "heuristic"], {"players": 3}, 4, 4),
    "kozel": (2, ["heuristic", "random", "random"], {}, 5, 2),
    "aluette": (3, ["random", "heuristic", "random"], {}, 6, 3),
}


@pytest.fixture(scope="module")
def records_folder(tmp_path_factory):
    """A results folder with one Kozel record, for the page's list of stored records."""
    folder = tmp_path_factory.mktemp("results")
    game = make_game("kozel")
    agents = [make("random", game, seed=s) for s in range(4)]
    state = play_match(game, agents, seed=11, max_deals=1)
    (folder / "kozel-match.json").write_text(json.dumps(record_of(state, players=["a", "b", "c", "d"])))
    return folder


@pytest.fixture(scope="module")
def server(records_folder):
    # The worker loads (or compiles) a game's kernels at its first request, not all at start;
    # the generous limit leaves room for that on a busy machine.
    worker = [sys.executable, "-m", "slagwerk", "bot", "--time-limit-ms", "0"]
    web = WebServer("127.0.0.1", 0, limits=Limits(max_time_ms=16_000), time_limit_ms=600_000, workers=1,
                    worker_argv=worker, results=[str(records_folder)])
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    yield web
    web.shutdown()
    web.close()
    thread.join(timeout=30)


@pytest.fixture(scope="module")
def browser():
    os.environ["SE_OFFLINE"] = "true"  # Selenium must not look for a driver on the network
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     "--disable-gpu", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def status(driver) -> str:
    return driver.find_element(By.ID, "status").text


def wait_for_turn(driver) -> str:
    """Wait until the human may act or the match is over; the status text."""
    def ready(d):
        text = status(d)
        if "match over" in text:
            return text
        if text == "your turn" and d.find_elements(By.CSS_SELECTOR, "[data-action]"):
            return text
        return False
    return WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(ready)


def click_and_wait(driver, element) -> None:
    """Click an element and wait until the page has drawn the answer (the table is redrawn)."""
    drawn = driver.find_element(By.CSS_SELECTOR, "#table > *")  # every drawing replaces these
    element.click()
    WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(EC.staleness_of(drawn))


def try_kozel_selection(driver) -> bool:
    """Build an illegal lead of two suits by selecting cards: the page explains why.
    Returns whether it could be tried (the hand must hold two suits)."""
    cards = driver.find_elements(By.CSS_SELECTOR, ".seat.me .card-button")
    names = [c.find_element(By.CSS_SELECTOR, "svg").get_attribute("data-card") for c in cards]
    pair = next(((i, j) for i in range(len(names)) for j in range(i + 1, len(names))
                 if names[i][1] != names[j][1]), None)
    lead = driver.find_elements(By.CSS_SELECTOR, "button.build-action[data-kind='lead']")
    if pair is None or not lead:
        return False
    for index in pair:
        click_and_wait(driver, driver.find_elements(By.CSS_SELECTOR, ".seat.me .card-button")[index])
    driver.find_element(By.CSS_SELECTOR, "button.build-action[data-kind='lead']").click()
    explain = WebDriverWait(driver, WAIT_S).until(
        lambda d: d.find_element(By.ID, "explain").text or False)
    assert "one suit" in explain, explain
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "button.build-clear"))
    return True


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    """Where the screenshots go: docs/images when asked for, else a temporary folder."""
    if os.environ.get("SLAGWERK_SCREENSHOTS") == "docs":
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        return DOCS_IMAGES
    return tmp_path_factory.mktemp("screenshots")


@pytest.mark.parametrize("game", list(MATCHES))
def test_a_whole_match_by_clicking(server, browser, game, images):
    """A whole match through the page: clicking data-action elements only, to 'match over'."""
    seat, agents, options, seed, shot_at = MATCHES[game]
    query = [("game", game), ("seat", seat), *(("agent", a) for a in agents), ("seed", seed),
             *((f"opt.{k}", v) for k, v in options.items())]
    browser.get(f"http://127.0.0.1:{server.port}/?{urlencode(query)}")
    chooser = random.Random(seed)
    decisions = 0
    tried_selection = game != "kozel"
    deals_drawn, announced = 0, 0
    while "match over" not in wait_for_turn(browser):
        finished = len(browser.find_elements(By.CSS_SELECTOR, ".deal-result"))
        if finished > deals_drawn:  # a deal ended since the last move: the page says so
            banner = browser.find_element(By.ID, "deal-over")
            assert banner.is_displayed() and f"Deal {finished} is over" in banner.text, banner.text
            announced += 1
        deals_drawn = finished
        if decisions == 1 and game == "coins":  # a reload resumes the match
            hand = browser.find_element(By.CSS_SELECTOR, ".seat.me .hand").get_attribute("innerHTML")
            browser.refresh()
            wait_for_turn(browser)
            assert browser.current_url.endswith("/")
            assert browser.find_element(By.CSS_SELECTOR, ".seat.me .hand").get_attribute("innerHTML") == hand
        if decisions == shot_at:
            browser.save_screenshot(str(images / f"web-{game}.png"))
        lead = browser.find_elements(By.CSS_SELECTOR, "button.build-action[data-kind='lead']")
        if not tried_selection and lead:
            tried_selection = try_kozel_selection(browser)
            continue
        actions = browser.find_elements(By.CSS_SELECTOR, "[data-action]")
        legal = browser.execute_script(
            "return [...document.querySelectorAll('[data-action]')].map(e => e.dataset.action)")
        assert len(legal) == len(actions) and len(set(legal)) == len(legal), legal
        match = server.store.get(browser.get_cookie("slagwerk_session")["value"]).match
        assert sorted(legal) == sorted(match.state.legal_texts(seat))  # one element per legal action
        for move in browser.find_elements(By.CSS_SELECTOR, "#actions .moves button[data-action]"):
            # Kozel's list of moves: the kind and a picture of each card (its own face, not text)
            kind, cards = move.get_attribute("data-action").split(":")
            pictures = [c.get_attribute("data-card") for c in move.find_elements(By.CSS_SELECTOR, "svg.card")]
            assert move.text.split()[0] == kind and pictures == cards.split(",")
        try:
            click_and_wait(browser, chooser.choice(actions))
        except StaleElementReferenceException:
            continue
        decisions += 1
    assert decisions > 3
    assert tried_selection, "the human never led in Kozel: no selection was tried"
    assert announced or deals_drawn == 0
    assert "match over" in status(browser)
    if game == "coins":  # the seats' trick counts are the last deal's, also when the match ends mid-deal
        match = server.store.get(browser.get_cookie("slagwerk_session")["value"]).match
        winners = match.state.deals[-1].trick_winners
        facts = [browser.find_element(By.CSS_SELECTOR, f".seat[data-seat='{s}'] .facts").text
                 for s in range(3)]
        assert [f.split(" · ")[0] for f in facts] == [f"tricks {winners.count(s)}" for s in range(3)], facts
    score = browser.find_element(By.ID, "score").text
    assert "Score" in score
    assert browser.find_element(By.ID, "download").is_displayed()
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-action]")
    assert console_errors(browser) == []


def test_watch_a_record(server, browser, tmp_path, images):
    """An uploaded record replays deal by deal, every hand face up, with replay's trick winners and points."""
    game = make_game("coins", target=5)
    agents = [make("heuristic", game, seed=s) for s in range(3)]
    record = record_of(play_match(game, agents, seed=8), players=["ann", "bob", "cy"])
    expected = replay(record)
    path = tmp_path / "coins-match.json"
    path.write_text(json.dumps(record))
    browser.get(f"http://127.0.0.1:{server.port}/")
    browser.find_element(By.ID, "tab-watch").click()
    browser.find_element(By.ID, "watch-file").send_keys(str(path))
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element(By.ID, "watch-controls").is_displayed())
    for _ in range(7):
        click_and_wait(browser, browser.find_element(By.ID, "watch-next"))
    # All hands face up: no card back anywhere on the table.
    assert browser.find_elements(By.CSS_SELECTOR, "#table .hand svg.card")
    assert not browser.find_elements(By.CSS_SELECTOR, "#table svg.back")
    assert "ann" in browser.find_element(By.ID, "table").text
    browser.save_screenshot(str(images / "web-watch.png"))
    for _ in range(4 * len(expected["deals"]) + 2):
        if "match over" in status(browser):
            break
        click_and_wait(browser, browser.find_element(By.ID, "watch-next-deal"))
    assert "match over" in status(browser)
    shown = browser.find_elements(By.CSS_SELECTOR, ".deal-result")
    assert len(shown) == len(expected["deals"])
    for element, deal in zip(shown, expected["deals"]):
        assert json.loads(element.get_attribute("data-trick-winners")) == deal["trick_winners"]
        assert json.loads(element.get_attribute("data-points")) == deal["points"]
    assert console_errors(browser) == []


def test_watch_a_stored_kozel_record(server, browser):
    """A record from the server's results folder, chosen by id: Kozel's discards are face up too."""
    browser.get(f"http://127.0.0.1:{server.port}/")
    browser.find_element(By.ID, "tab-watch").click()
    entry = WebDriverWait(browser, WAIT_S).until(
        lambda d: d.find_elements(By.CSS_SELECTOR, "button.shelf-record"))[0]
    assert "kozel-match.json" in entry.text
    entry.click()
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element(By.ID, "watch-controls").is_displayed())
    for _ in range(12):  # three tricks: leads, beats and face-down discards
        click_and_wait(browser, browser.find_element(By.ID, "watch-next"))
        assert not browser.find_elements(By.CSS_SELECTOR, "#table .hand svg.back, #table .trick svg.back")
    assert console_errors(browser) == []



def test_the_last_trick_after_a_molodka_shows_what_was_played(server, browser, tmp_path):
    """docs/rules.md §3.10: a molodka sends the trick's cards back and leads four; the
    page's last trick shows the declarer's four cards, labelled, and not the cards sent
    back (it read them from the history, where a molodka is one word)."""
    game = make_game("kozel")
    state = play_match(game, [make("random", game, seed=27 * 4 + s) for s in range(4)], seed=27, max_deals=1)
    record = record_of(state)
    actions = record["deals"][0]["actions"]
    declared = actions.index("molodka")
    assert actions[declared - 1].split(":")[0] in ("lead", "beat", "discard")  # cards went back
    path = tmp_path / "kozel-molodka.json"
    path.write_text(json.dumps(record))
    replayed = game.new_match()
    deal = record["deals"][0]
    replayed.deal(game.deal_from_json({k: deal[k] for k in game.deal_fields if k in deal}))
    for text in actions[: declared + 4]:
        replayed.apply(text)
    trick = replayed.tricks_done - 1
    played = {s: set(game.names_of(int(replayed.array[game.kernels.PLAYED + trick * 4 + s])))
              for s in range(4)}
    browser.get(f"http://127.0.0.1:{server.port}/")
    browser.find_element(By.ID, "tab-watch").click()
    browser.find_element(By.ID, "watch-file").send_keys(str(path))
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element(By.ID, "watch-controls").is_displayed())
    browser.execute_script(f"showFrame(1, {declared + 4})")
    WebDriverWait(browser, WAIT_S).until(
        lambda d: d.find_element(By.ID, "watch-position").text.startswith(f"deal 1 · {declared + 4}/"))
    plays = browser.find_elements(By.CSS_SELECTOR, "#last-trick .play")
    shown = {int(p.get_attribute("data-seat")): {c.get_attribute("data-card")
                                                 for c in p.find_elements(By.CSS_SELECTOR, "svg.card")}
             for p in plays}
    assert len(plays) == 4 and shown == played
    declarer = replayed.deals[-1].seats[declared]
    label = next(p.text for p in plays if int(p.get_attribute("data-seat")) == declarer)
    assert "molodka" in label
    assert console_errors(browser) == []


def test_a_second_tab_follows_the_match(server, browser):
    """A match played in another tab of the same browser: the first tab, waiting for the
    person's move, redraws with the match as it now is instead of offering stale moves."""
    query = [("game", "coins"), ("seat", 0), ("agent", "random"), ("agent", "random"), ("seed", 12),
             ("opt.target", 5)]
    browser.get(f"http://127.0.0.1:{server.port}/?{urlencode(query)}")
    wait_for_turn(browser)
    first = browser.current_window_handle
    before = len(browser.find_elements(By.CSS_SELECTOR, ".seat.me .hand svg.card"))
    browser.switch_to.new_window("tab")
    browser.get(f"http://127.0.0.1:{server.port}/")
    wait_for_turn(browser)
    click_and_wait(browser, browser.find_elements(By.CSS_SELECTOR, ".seat.me [data-action]")[0])
    browser.close()
    browser.switch_to.window(first)
    WebDriverWait(browser, WAIT_S, poll_frequency=0.05).until(
        lambda d: len(d.find_elements(By.CSS_SELECTOR, ".seat.me .hand svg.card")) == before - 1)
    assert console_errors(browser) == []


def test_the_hooked_bid_stands_greyed_out_and_says_why(server, browser):
    """docs/rules.md §2.4: with two players the trump maker's last bid is always hooked;
    the page shows that bid greyed out in its place among the bids (not as an action),
    and clicking it gives the hook's reason."""
    query = [("game", "koetsieren"), ("seat", 0), ("agent", "heuristic"), ("seed", 3), ("opt.players", 2)]
    browser.get(f"http://127.0.0.1:{server.port}/?{urlencode(query)}")
    for _ in range(40):
        assert "match over" not in wait_for_turn(browser)
        barred = browser.find_elements(By.CSS_SELECTOR, "button[data-barred]")
        if barred:
            break
        click_and_wait(browser, browser.find_elements(By.CSS_SELECTOR, "[data-action]")[0])
    else:
        pytest.fail("the person was never the trump maker at a hooked bid in 40 moves")
    words = browser.execute_script(
        "return [...document.querySelectorAll('.word-actions button')]"
        ".map(b => b.dataset.action || 'barred ' + b.dataset.barred)")
    hooked = barred[0].get_attribute("data-barred")
    assert words == [f"barred {hooked}" if w == hooked else w for w in (f"bid:{b}" for b in range(6))]
    assert barred[0].get_attribute("aria-disabled") == "true"
    barred[0].click()
    explain = WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element(By.ID, "explain").text or False)
    assert "barred by the hook" in explain and "(you)" in explain, explain
    assert "your turn" in status(browser)  # nothing was played
    assert console_errors(browser) == []


def test_koetsieren_shows_each_played_card_in_the_slot_it_left(server, browser):
    """docs/rules.md §2.7: the whole table sees which slot a card is played from; the
    page shows every played card, faded, in the slot it left (the view's ``played``),
    the person's own blind forehead plays included, and nothing in a slot not yet played."""
    query = [("game", "koetsieren"), ("seat", 0), ("agent", "heuristic"), ("agent", "heuristic"), ("seed", 7),
             ("opt.players", 3)]
    browser.get(f"http://127.0.0.1:{server.port}/?{urlencode(query)}")
    chooser = random.Random(7)
    for _ in range(40):
        assert "match over" not in wait_for_turn(browser)
        match = server.store.get(browser.get_cookie("slagwerk_session")["value"]).match
        view = match.state.view(0)
        played = {(seat, slot): card for seat, hand in enumerate(view["hands"])
                  for slot, card in hand.get("played", {}).items()}
        if len({seat for seat, _ in played}) == 3 and any(s == 0 and slot[0] == "F" for s, slot in played):
            break
        click_and_wait(browser, chooser.choice(browser.find_elements(By.CSS_SELECTOR, "[data-action]")))
    else:
        pytest.fail("no position in 40 moves where every seat had played and the person had played blind")
    shown = {(int(node.get_attribute("data-seat")), slot.get_attribute("class").split("slot-")[1]):
             slot.find_element(By.CSS_SELECTOR, "svg.card").get_attribute("data-card")
             for node in browser.find_elements(By.CSS_SELECTOR, "#table .seat")
             for slot in node.find_elements(By.CSS_SELECTOR, ".slot")
             if slot.find_elements(By.CSS_SELECTOR, ".card-slot.played")}
    assert shown == played
    assert console_errors(browser) == []


def test_a_small_koetsieren_draws_only_the_slots_it_deals(server, browser):
    """docs/rules.md §2.15: with hand=2 each seat is dealt F1 and H only; the page draws those two
    slots for every seat and no empty slot that would look played."""
    query = [("game", "koetsieren"), ("seat", 0), ("agent", "heuristic"), ("seed", 3),
             ("opt.players", 2), ("opt.ranks", 2), ("opt.hand", 2)]
    browser.get(f"http://127.0.0.1:{server.port}/?{urlencode(query)}")
    assert "match over" not in wait_for_turn(browser)
    seats = browser.find_elements(By.CSS_SELECTOR, "#table .seat")
    assert len(seats) == 2
    for node in seats:
        slots = node.find_elements(By.CSS_SELECTOR, ".slot")
        assert sorted(slot.get_attribute("class").split("slot-")[1] for slot in slots) == ["F1", "H"]
    assert not browser.find_elements(By.CSS_SELECTOR, "#table .card-slot.empty")
    assert console_errors(browser) == []


def test_aluette_shows_the_strength_of_every_card(server, browser):
    """docs/rules.md §4.3: Aluette's cards rank by a table, not by suit and rank; the page
    numbers each card by its class and lists the nineteen classes, strongest first."""
    query = [("game", "aluette"), ("seat", 0), *(("agent", "random") for _ in range(3)), ("seed", 4)]
    browser.get(f"http://127.0.0.1:{server.port}/?{urlencode(query)}")
    wait_for_turn(browser)
    rows = browser.find_elements(By.CSS_SELECTOR, "#card-order li")
    assert [int(r.get_attribute("data-rank")) for r in rows] == list(range(1, 20))
    legend = [[c.get_attribute("data-card") for c in r.find_elements(By.CSS_SELECTOR, "svg.card")]
              for r in rows]
    assert legend == make_game("aluette").card_order()[0]
    browser.find_element(By.CSS_SELECTOR, "#card-order summary").click()
    assert "Monsieur" in rows[0].text
    click_and_wait(browser, browser.find_elements(By.CSS_SELECTOR, "[data-action]")[0])
    wait_for_turn(browser)
    assert "Monsieur" in browser.find_element(By.CSS_SELECTOR, "#card-order li").text  # still open
    rank = {card: i + 1 for i, cards in enumerate(legend) for card in cards}
    hand = browser.find_elements(By.CSS_SELECTOR, ".seat.me .hand svg.card")
    assert len(hand) == 8  # nine dealt, one played
    for card in hand:
        name = card.get_attribute("data-card")
        assert f"strength {rank[name]} of 19" in card.get_attribute("aria-label")
        # a screen reader hears the card's words (engine/cards.py), not its letters
        assert card.get_attribute("aria-label").startswith(
            f"{RANK_NAMES['spanish'][name[0]]} of {SUIT_NAMES['spanish'][name[1]]}")
    browser.get(f"http://127.0.0.1:{server.port}/?game=coins&seat=0&agent=random&agent=random&seed=4")
    wait_for_turn(browser)
    assert not browser.find_element(By.ID, "card-order").is_displayed()  # suits and ranks suffice
    assert console_errors(browser) == []


def open_setup(driver, port: int) -> None:
    """The page's setup form (a match of this session in progress is left with New match…)."""
    driver.get(f"http://127.0.0.1:{port}/")

    def shown(d):
        if d.find_element(By.ID, "setup").is_displayed():
            return True
        leave = d.find_element(By.ID, "leave-match")
        again = d.find_element(By.ID, "new-match")
        for button in (leave, again):
            if button.is_displayed():
                button.click()
        return False
    WebDriverWait(driver, WAIT_S, poll_frequency=0.1).until(shown)


def test_a_refused_start_keeps_the_form_as_it_was(server, browser):
    """A start the server refuses (a bad agent parameter) says why and leaves the
    person's choices in the form: game, seat, agents, their parameters and the seed."""
    open_setup(browser, server.port)
    browser.execute_script("""
        const game = document.getElementById('setup-game');
        game.value = 'kozel'; game.dispatchEvent(new Event('change'));
        const seat = document.getElementById('setup-seat');
        seat.value = '2'; seat.dispatchEvent(new Event('change'));
        const rows = document.querySelectorAll('#setup-agents .agent-row');
        rows[0].querySelector('select').value = 'random';
        rows[1].querySelector('select').value = 'ismcts';
        rows[1].querySelector('input').value = 'iterations=lots';
        document.getElementById('setup-seed').value = '17';""")
    assert "First dealer" in browser.find_element(By.ID, "setup-options").text
    browser.find_element(By.ID, "setup-start").click()
    error = WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element(By.ID, "error").text or False)
    assert "iterations" in error and "lots" in error, error
    assert browser.find_element(By.ID, "setup").is_displayed()
    form = browser.execute_script("""
        return [document.getElementById('setup-game').value, document.getElementById('setup-seat').value,
                document.getElementById('setup-seed').value,
                [...document.querySelectorAll('#setup-agents .agent-row')].map(
                    r => [r.querySelector('select').value, r.querySelector('input').value])]""")
    assert form == ["kozel", "2", "17", [["random", ""], ["ismcts", "iterations=lots"], ["heuristic", ""]]]
    # the browser logs the refused request itself; nothing else may go wrong
    assert [e for e in console_errors(browser) if "/web/api/match" not in e or "400" not in e] == []



@pytest.mark.parametrize("seed", [2**53 + 1, 2**63 - 1])
def test_a_link_deals_exactly_its_seed_beyond_javascripts_integers(server, browser, seed):
    """docs/web.md: a link's seed deals the cards `slagwerk play --seed` deals, for every seed
    0..2**63-1 (a JavaScript number holds integers exactly only up to 2**53)."""
    browser.get(f"http://127.0.0.1:{server.port}/?game=coins&seat=0&agent=random&agent=random&seed={seed}")
    wait_for_turn(browser)
    match = server.store.get(browser.get_cookie("slagwerk_session")["value"]).match
    assert match.settings.seed == seed
    again = make_game("coins").new_match()
    again.deal(rng=make_rng(derive_seed(seed, DEAL_SALT)))
    assert match.state.deals[0].vector.tolist() == again.deals[0].vector.tolist()


def test_a_bad_seed_or_option_is_named_as_typed(server, browser):
    """What the person typed comes back in the refusal (not as 'null')."""
    for query, said in (("seed=abc", "not 'abc'"), ("seed=7&opt.target=lots", "'lots'")):
        browser.get(f"http://127.0.0.1:{server.port}/?game=coins&seat=0&agent=random&agent=random&{query}")
        error = WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element(By.ID, "error").text or False)
        assert said in error and "null" not in error, error
    # the browser logs each refused request itself; nothing else may go wrong
    assert [e for e in console_errors(browser) if "/web/api/match" not in e or "400" not in e] == []


def test_an_out_of_range_player_count_draws_the_nearest_allowed_rows(server, browser):
    """docs/rules.md §2.1: Koetsieren is for 2 to 6 players; the form draws at most five
    other seats (and at least one) whatever is typed."""
    open_setup(browser, server.port)
    rows = browser.execute_script("""
        const game = document.getElementById('setup-game');
        game.value = 'koetsieren'; game.dispatchEvent(new Event('change'));
        const players = document.getElementById('opt-players');
        const counts = [];
        for (const typed of ['9', '1', '4']) {
            players.value = typed; players.dispatchEvent(new Event('change'));
            counts.push(document.querySelectorAll('#setup-agents .agent-row').length);
        }
        return counts;""")
    assert rows == [5, 1, 3]

def test_the_molodka_button_names_its_suit(server, browser):
    """docs/rules.md §3.10: a molodka is the whole hand, four cards of one suit; the
    question's button says which suit it would lead."""
    browser.get(f"http://127.0.0.1:{server.port}/")
    WebDriverWait(browser, WAIT_S).until(lambda d: d.execute_script("return page.info !== null"))
    labels = browser.execute_script("""
        const model = { view: { hand: ['7h', '9h', 'Qh', 'Ah'] }, legal: ['molodka', 'pass'] };
        return [actionLabel('molodka', model).textContent, actionLabel('pass', model)];""")
    assert labels[0] == "declare the molodka: lead all four  hearts"
    assert labels[1].startswith("pass (")


def test_six_seats_on_a_phone_keep_the_hand_in_sight(server, browser):
    """On a phone-sized window, six-player Koetsieren shows the person's own cards
    without scrolling: the other seats sit two to a row, small."""
    query = [("game", "koetsieren"), ("seat", 0), *(("agent", "random") for _ in range(5)), ("seed", 2),
             ("opt.players", 6)]
    browser.set_window_size(390, 844)
    try:
        browser.get(f"http://127.0.0.1:{server.port}/?{urlencode(query)}")
        wait_for_turn(browser)
        bottom = browser.execute_script(
            "const r = document.querySelector('.seat.me .hand').getBoundingClientRect(); return r.bottom")
        height = browser.execute_script("return window.innerHeight")
        assert bottom <= height, f"the hand ends at {bottom}px, below the window's {height}px"
    finally:
        browser.set_window_size(1280, 1000)
    assert console_errors(browser) == []


def test_the_form_says_what_each_game_and_agent_is_and_where_the_rules_are(server, browser):
    """Each game in a line with its rules' section, each agent row with its description; the
    start button says 'starting…' while a match is made, and the note goes once it has begun."""
    open_setup(browser, server.port)
    facts = hello()
    for name, game in facts["games"].items():
        browser.execute_script(f"""
            const game = document.getElementById('setup-game');
            game.value = '{name}'; game.dispatchEvent(new Event('change'));""")
        about = browser.find_element(By.ID, "setup-game-about")
        assert game["summary"] in about.text and f"Rules: {game['rules']}" in about.text, about.text
        link = about.find_element(By.TAG_NAME, "a").get_attribute("href")
        assert link.endswith("/static/rules.md")
    rules = browser.execute_script("return fetch('/static/rules.md').then(r => r.text())")
    assert rules == (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    rows = browser.find_elements(By.CSS_SELECTOR, "#setup-agents .agent-row")
    for row in rows:
        chosen = row.find_element(By.TAG_NAME, "select").get_attribute("value")
        assert facts["agents"][chosen]["description"] in row.find_element(By.CLASS_NAME, "agent-about").text
    assert not browser.find_element(By.ID, "setup-starting").is_displayed()
    browser.execute_script("""
        const button = document.getElementById('setup-start');
        button.click();
        window.startingShown = !document.getElementById('setup-starting').hidden && button.disabled;""")
    assert browser.execute_script("return window.startingShown")
    wait_for_turn(browser)
    assert browser.find_element(By.ID, "setup-starting").get_attribute("hidden") is not None
