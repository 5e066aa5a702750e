"""The web page's server side (docs/web.md), without a browser.

- What the page receives never holds a card its seat cannot see: every
  answer is compared with the seat's view and with the true state.
- Sessions have unguessable ids; the number held is capped and idle or
  finished ones are dropped.
- Bad settings, actions and records are refused with a one-line reason;
  the page's API keeps the bot API's size limit.
- A watched record gives ``slagwerk replay``'s trick winners and points.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from http import HTTPStatus
from types import SimpleNamespace
from urllib.parse import parse_qsl, quote, urlsplit

import pytest

from slagwerk.agents.match import play_match
from slagwerk.agents.protocol import Limits, handle
from slagwerk.agents.registry import make
from slagwerk.engine import GAMES, make_game
from slagwerk.engine.records import record_of, replay
from slagwerk.engine.state import PHASE_PLAY
from slagwerk.web.matches import MatchStore, WebError, WebMatch, card_order_json, check_settings
from slagwerk.web.server import COOKIE, PAGE_FILES, WebServer, page_file
from slagwerk.web.watch import RecordShelf, Watch

LIMITS = Limits(max_request_bytes=64 * 1024, max_time_ms=8000, max_iterations=20_000)
SETTINGS = {
    # game: human seat, the other seats' agents, options (short matches)
    "coins": (2, ["random", "heuristic"], {"target": 6}),
    "koetsieren": (0, ["heuristic", "random", "random"], {"players": 4}),
    "kozel": (1, ["random", "heuristic", "random"], {}),
    "aluette": (0, ["heuristic", "random", "random"], {}),
}
CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKAN][cdhsoeb])(?![A-Za-z0-9])")


def in_process(request: dict):
    """The bot server's answer, computed here (as a worker would)."""
    answer = handle(request, LIMITS)
    return (HTTPStatus.OK if "action" in answer else HTTPStatus.BAD_REQUEST), answer


def cards_in(value) -> set[str]:
    """Every card name in the strings of a JSON value."""
    if isinstance(value, str):
        return set(CARD.findall(value))
    if isinstance(value, dict):
        return set().union(*(cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value)) if value else set()
    return set()


def hidden_cards(match: WebMatch) -> set[str]:
    """The cards the human seat cannot see now, from the true state: every card of
    the deck but those in its view and in what it saw of this deal's actions."""
    state, seat, deck = match.state, match.seat, match.game.deck
    seen = cards_in(state.view(seat))
    if state.deals:
        seen |= cards_in([texts[seat] for texts in state.deals[-1].seen])
    return {deck.name(c) for c in range(deck.size)} - seen


def check_page(match: WebMatch, page: dict) -> int:
    """The page's JSON against the true state taken at the same moment: its view is
    the seat's view, each finished deal's actions are in full (counted: docs/rules.md
    §3.8 turns Kozel's discards up; the other games hide no action), and no other card
    in it is one the seat cannot see. Returns how many hidden cards there were (so
    that the check was not empty)."""
    state, seat = match.state, match.seat
    assert page["view"] == state.view(seat)
    finished = [log for log in state.deals if log.points is not None]
    assert len(page["deals"]) == len(finished)
    for shown, log in zip(page["deals"], finished):
        assert shown["history"] == [{"seat": s, "action": text} for s, text in zip(log.seats, log.texts)]
        if shown["tricks"] is not None:  # Kozel: the counted deal's tricks, every card turned up
            assert all("??" not in play["cards"] for trick in shown["tricks"] for play in trick["plays"])
            assert len(cards_in(shown["tricks"])) == match.game.deck.size  # a Kozel deal plays them all
        assert not cards_in({k: v for k, v in shown.items() if k not in ("history", "tricks")})
    hidden = hidden_cards(match)
    # Aluette's strength order names the whole deck: a rule, the same for every seat.
    assert page["card_order"] == card_order_json(match.game)
    rest = {k: v for k, v in page.items() if k not in ("view", "deals", "card_order")}
    leaked = cards_in(rest) & hidden
    assert not leaked, f"the page got hidden cards {sorted(leaked)}"
    return len(hidden)


def finish_in_process(match: WebMatch, chooser: random.Random, check=None) -> int:
    """Play the human's seat with random legal actions to the end; bots answer in process."""
    decisions = 0
    while not match.over:
        match.wait(-1, 0)
        with match.changed:
            ready = match.thinking is None and match.state.to_move == match.seat
            if ready and check is not None:
                check(match, match.page_json())
        if ready and not match.over:
            match.act(chooser.choice(match.state.legal_texts(match.seat)))
            decisions += 1
        else:
            with match.changed:
                match.changed.wait(0.05)
    return decisions


@pytest.mark.parametrize("game", list(SETTINGS))
def test_the_page_never_gets_a_hidden_card(game):
    """docs/web.md "What the page sees": at every decision of a whole match the page's
    JSON holds the seat's view exactly and no card the seat cannot see (Koetsieren:
    its own forehead; Kozel: the others' discards; every game: the others' hands)."""
    seat, agents, options = SETTINGS[game]
    store = MatchStore(in_process, LIMITS)
    settings = {"game": game, "options": options, "seat": seat, "agents": agents, "seed": 9}
    _, match = store.start(None, settings)
    counts = []
    finish_in_process(match, random.Random(1), lambda m, page: counts.append(check_page(m, page)))
    assert len(counts) > 3 and min(counts) > 0
    final = match.page_json()
    assert final["over"] and "match over" in final["status"]
    assert len(final["deals"]) == len(match.state.deals)


def test_the_hooked_bid_is_offered_greyed_out_with_its_reason():
    """docs/rules.md §2.4: when the person is the trump maker and the hook bars a bid, the
    page gets that bid as barred, with the rules' reason addressed to "you"; at every
    other decision nothing is barred."""
    barred_seen = []

    def check(match, page):
        state = match.state
        hooked = match.game.barred_actions(state)
        assert [b["action"] for b in page["barred"]] == hooked
        assert not set(hooked) & set(page["view"]["legal_actions"])
        for entry in page["barred"]:
            assert "barred by the hook" in entry["reason"] and "trump maker (you)" in entry["reason"]
            barred_seen.append(entry["action"])

    for seed in range(1, 8):
        store = MatchStore(in_process, LIMITS)
        settings = {"game": "koetsieren", "options": {"players": 2}, "seat": 0,
                    "agents": ["heuristic"], "seed": seed}
        _, match = store.start(None, settings)
        finish_in_process(match, random.Random(seed), check)
        if barred_seen:
            break
    assert barred_seen, "no match of seeds 1..7 had a hooked bid for the person"


def test_koetsieren_forehead_cards_are_backs():
    """docs/rules.md §2.2: the human's own forehead cards reach the page as '??' only."""
    store = MatchStore(in_process, LIMITS)
    _, match = store.start(None, {"game": "koetsieren", "options": {"players": 3}, "seat": 1,
                                  "agents": ["random", "random"], "seed": 3})
    page = match.page_json()
    assert page["view"]["hands"][1]["forehead"] == ["??", "??"]
    arr_view = match.state.view(2)["hands"][1]["forehead"]  # seat 2 sees seat 1's forehead
    assert not set(arr_view) & cards_in(page)
    match.close()



def test_what_the_person_may_type_never_depends_on_a_hidden_card():
    """docs/rules.md §2.2, §2.7: a Koetsieren player plays its forehead cards blind, by slot.
    The page's check of a typed action (``explain``) answers every card name and slot name
    the same whatever the hidden cards are (the true deal and deals rebuilt from the view),
    and a forehead card's name is never accepted as a play."""
    store = MatchStore(in_process, LIMITS)
    _, match = store.start(None, {"game": "koetsieren", "options": {"players": 2}, "seat": 1,
                                  "agents": ["random"], "seed": 5})
    with match.changed:
        while match.state.phase != PHASE_PLAY or match.state.to_move != 1:
            match.state.apply(match.state.legal_actions()[0])  # to the person's first play
        true_state = match.state
        game = match.game
        texts = [game.deck.name(c) for c in range(game.deck.size)] + ["T1", "T2", "F1", "F2", "H"]
        forehead = [game.action_text(true_state, slot, 0) for slot in (2, 3)]  # as seat 0 sees them
        assert {match.explain(card) for card in forehead} != {"legal"}
        answers = []
        for twin in [true_state] + [game.state_from_view(true_state.view(1), seed=s) for s in range(4)]:
            match.state = twin
            answers.append([match.explain(text) for text in texts])
        match.state = true_state
    assert all(a == answers[0] for a in answers[1:])
    accepted = {text for text, answer in zip(texts, answers[0]) if answer == "legal"}
    own = set(true_state.legal_texts(1))  # the table and hidden cards by name, the forehead as F1, F2
    assert own <= accepted and not (accepted - own) - {"T1", "T2", "H"}
    reason = r"is not a card in a slot of yours \(T1=\w\w T2=\w\w F1=\?\? F2=\?\? H=\w\w\)"
    with pytest.raises(WebError, match=reason):
        match.act(forehead[0])
    match.act("F1")
    assert match.state.deals[-1].seats[-1] == 1
    match.close()


@pytest.mark.parametrize("game", list(SETTINGS))
def test_reasons_address_the_person_as_you(game):
    """docs/web.md: the rules' reasons for refusing what the person typed or clicked speak to
    "you", never of the person's own seat by number, across every kind of action of the game."""
    seat, agents, options = SETTINGS[game]
    store = MatchStore(in_process, LIMITS)
    _, match = store.start(None, {"game": game, "options": options, "seat": seat, "agents": agents,
                                  "seed": 4})
    deck = [match.game.deck.name(c) for c in range(match.game.deck.size)]
    tries = [*deck, "bid:0", "bid:5", "trump:h", "T1", "F1", "H", "molodka", "pass", "lead:7h,7d",
             "beat:Ah", "discard:6c", "lead:Ah"]
    reasons = set()

    def check(match, page):
        for entry in page["barred"]:
            reasons.add(entry["reason"])
        for text in tries:
            reasons.add(match.explain(text))

    finish_in_process(match, random.Random(2), check)
    reasons.discard("legal")
    assert len(reasons) > 5
    named = [r for r in reasons if re.search(rf"\bseat {seat}\b", r)]
    assert not named, named[:3]


class Client:
    """The page's side of the HTTP API: a cookie jar of one session, and a log of
    every JSON answer it received."""

    def __init__(self, server, source: str | None = None):
        self.server = server
        self.cookie = None
        self.received: list[dict] = []
        self.source = None if source is None else (source, 0)  # the client's own address

    def call(self, method: str, path: str, body=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.server.port, timeout=300,
                                          source_address=self.source)
        sent = dict(headers or {})
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            sent.setdefault("Content-Type", "application/json")
        if self.cookie:
            sent["Cookie"] = f"{COOKIE}={self.cookie}"
        conn.request(method, path, body=data, headers=sent)
        response = conn.getresponse()
        raw = response.read()
        conn.close()
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";")[0].split("=", 1)[1]
        value = json.loads(raw) if raw else None
        if isinstance(value, dict):
            self.received.append(value)
        return response.status, value, response


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    worker = [sys.executable, "-m", "slagwerk", "bot", "--time-limit-ms", "0"]  # compiles only what it plays
    web = WebServer("127.0.0.1", 0, limits=LIMITS, time_limit_ms=60_000, workers=1, worker_argv=worker,
                    results=[str(folder)], max_matches=8)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    web.results_folder = folder
    yield web
    web.shutdown()
    web.close()
    thread.join(timeout=30)


def session_match(server, client) -> WebMatch:
    return server.store.get(client.cookie).match


@pytest.mark.parametrize("game", list(SETTINGS))
def test_network_traffic_holds_no_hidden_card(server, game, monkeypatch):
    """Every answer the page gets over HTTP in a deal, the bots' turns included, is
    checked against the true state at the moment the server builds it (its view is
    the seat's view, no card the seat cannot see), and is what the page receives."""
    checked: dict[int, str] = {}
    failures: list[str] = []
    build = WebMatch.page_json

    def checking(match):
        with match.changed:
            page = build(match)
            try:
                check_page(match, page)
            except AssertionError as err:
                failures.append(str(err))
            checked[page["version"]] = json.dumps(page, sort_keys=True)
        return page

    monkeypatch.setattr(WebMatch, "page_json", checking)
    seat, agents, options = SETTINGS[game]
    client = Client(server)
    status, page, _ = client.call("POST", "/web/api/match", {"game": game, "options": options, "seat": seat,
                                                             "agents": agents, "seed": 4})
    assert status == 200, page
    chooser = random.Random(2)
    while not page["over"] and page["view"]["deal_number"] == 1:
        if page["thinking"] is None and page["view"]["to_move"] == seat:
            action = chooser.choice(page["view"]["legal_actions"])
            status, page, _ = client.call("POST", "/web/api/act", {"action": action})
        else:
            status, page, _ = client.call("GET", f"/web/api/match?after={page['version']}")
        assert status == 200, page
    session_match(server, client).close()
    assert failures == []
    received = [answer for answer in client.received if answer.get("kind") == "match"]
    assert len(received) > 5
    for answer in received:
        assert json.dumps(answer, sort_keys=True) == checked[answer["version"]]


def test_sessions_are_unguessable_and_private(server):
    first, second = Client(server), Client(server)
    for client in (first, second):
        status, _, response = client.call("POST", "/web/api/match", {
            "game": "coins", "options": {"target": 2}, "seat": 1, "agents": ["random", "random"], "seed": 1})
        assert status == 200
        cookie = response.getheader("Set-Cookie")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert first.cookie != second.cookie
    assert len(first.cookie) >= 43 and re.fullmatch(r"[A-Za-z0-9_-]+", first.cookie)  # 256 random bits
    stranger = Client(server)
    assert stranger.call("GET", "/web/api/match")[1] == {"kind": "none"}
    stranger.cookie = first.cookie[:-1] + ("A" if first.cookie[-1] != "A" else "B")
    status, answer, _ = stranger.call("POST", "/web/api/act", {"action": "Ao"})
    assert status == 404 and "no match" in answer["error"]
    for client in (first, second):
        session_match(server, client).close()


def test_bad_requests_get_one_line_reasons(server):
    client = Client(server)
    bad = [
        ({"game": "chess", "seat": 0, "agents": []}, "unknown game 'chess'"),
        ({"game": "coins", "seat": 3, "agents": ["random", "random"]}, "'seat' must be a seat"),
        ({"game": "coins", "seat": 0, "agents": ["random"]}, "must list 2 agent specs"),
        ({"game": "coins", "seat": 0, "agents": ["cheat", "random"]}, "measuring stick"),
        ({"game": "coins", "seat": 0, "agents": ["ismcts:@best.json", "random"]}, "never files"),
        ({"game": "coins", "seat": 0, "agents": ["ismcts:iterations=900000", "random"]}, "max_iterations"),
        ({"game": "coins", "seat": 0, "agents": ["random", "random"], "options": {"target": 0}}, "target"),
        ({"game": "coins", "seat": 0, "agents": ["random", "random"], "path": "/etc"}, "unknown field"),
    ]
    for body, reason in bad:
        status, answer, _ = client.call("POST", "/web/api/match", body)
        assert status == 400 and reason in answer["error"] and "\n" not in answer["error"], (body, answer)
    assert client.cookie is None  # a refused match opens no session
    status, answer, _ = client.call("POST", "/web/api/match", b"x" * (LIMITS.max_request_bytes + 1))
    assert status == 413
    status, answer, _ = client.call("POST", "/web/api/match", b"{}", {"Content-Type": "text/plain"})
    assert status == 415
    status, answer, _ = client.call("POST", "/web/api/match", b'{"game": NaN}')
    assert status == 400
    status, answer, _ = client.call("GET", "/web/api/act")
    assert status == 405
    # an illegal action: the rules' reason; the record only once the match is over
    client.call("POST", "/web/api/match", {"game": "coins", "options": {"target": 2}, "seat": 1,
                                           "agents": ["random", "random"], "seed": 2})
    status, answer, _ = client.call("POST", "/web/api/act", {"action": "Zz"})
    assert status == 400 and "not legal" in answer["error"]
    status, answer, _ = client.call("POST", "/web/api/explain", {"action": "Zz"})
    assert status == 200 and "not legal" in answer["reason"]
    # a card the person does not hold: the reason speaks to the person, not to "seat 1"
    state = session_match(server, client).state
    theirs = next(card for card in state.view(0)["hand"] if card not in state.view(1)["hand"])
    for path in ("/web/api/act", "/web/api/explain"):
        status, answer, _ = client.call("POST", path, {"action": theirs})
        said = answer.get("error") or answer["reason"]
        assert f"'{theirs}' is not legal for you" in said and "seat 1" not in said, said
    status, answer, _ = client.call("GET", "/web/api/record")
    assert status == 409 and "once the match is over" in answer["error"]
    session_match(server, client).close()


def test_a_finished_match_downloads_as_a_record(server):
    client = Client(server)
    client.call("POST", "/web/api/match", {"game": "coins", "options": {"target": 2}, "seat": 0,
                                           "agents": ["random", "random"], "seed": 5})
    match = session_match(server, client)
    finish_in_process(match, random.Random(3))
    status, record, response = client.call("GET", "/web/api/record")
    assert status == 200 and "attachment" in response.getheader("Content-Disposition")
    assert record == record_of(match.state, players=match.players)
    assert replay(record)["outcome"] == match.state.outcome


def test_the_page_is_served_offline(server):
    """The page and its files come from this server, with a policy forbidding anything else."""
    def get(path):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", path)
        response = conn.getresponse()
        return response, response.read()

    response, body = get("/?game=coins&seat=0")
    assert response.status == 200 and b"/static/app.js" in body
    assert "default-src 'self'" in response.getheader("Content-Security-Policy")
    for name in PAGE_FILES:
        text = page_file(name).decode()
        urls = set(re.findall(r"(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s\"')]*", text))
        assert urls <= {"http://www.w3.org/2000/svg"}, (name, urls)  # an XML namespace, never fetched
        response, body = get(f"/static/{name}")
        assert response.status == 200 and body == page_file(name)
    assert get("/static/../pyproject.toml")[0].status == 404
    assert get("/static/matches.py")[0].status == 404


@pytest.mark.parametrize("method", ["HEAD", "PUT", "DELETE", "OPTIONS"])
@pytest.mark.parametrize("path, allow", [("/", "GET"), ("/static/app.js", "GET"), ("/web/api/act", "POST"),
                                         ("/web/api/match", "GET, POST"), ("/v1/info", "GET")])
def test_other_methods_on_the_page_get_405_and_allow(server, method, path, allow):
    status, answer, response = Client(server).call(method, path, b"{}" if method == "PUT" else None)
    assert status == 405 and response.getheader("Allow") == allow
    assert answer is None if method == "HEAD" else f"use {allow} for {path}" in answer["error"]


def test_an_unknown_path_names_the_pages_paths_too(server):
    status, answer, _ = Client(server).call("GET", "/nope")
    assert status == 404 and "the page at GET /" in answer["error"] and "POST /v1/act" in answer["error"]


def test_store_caps_and_expiry():
    """At most max_sessions at once: a full store pushes out a finished match, refuses
    when every match is in play, and drops idle and finished sessions after a while."""
    now = [0.0]
    store = MatchStore(in_process, LIMITS, max_sessions=2, idle_s=100, finished_s=10, clock=lambda: now[0])
    settings = {"game": "coins", "options": {"target": 1}, "seat": 1, "agents": ["random", "random"]}
    first, match1 = store.start(None, settings)  # seat 1 leads: no bot moves until the human does
    second, _ = store.start(None, settings)
    with pytest.raises(WebError) as refused:
        store.start(None, settings)
    assert refused.value.status == 503 and "2 matches in play" in str(refused.value)
    finish_in_process(match1, random.Random(0))
    now[0] += 5
    third, _ = store.start(None, settings)  # pushes out the finished first match
    assert store.get(first) is None and store.get(second) is not None and len(store) == 2
    now[0] += 101
    assert store.get(second) is None and store.get(third) is None and len(store) == 0
    fourth, match4 = store.start(None, settings)
    finish_in_process(match4, random.Random(1))
    now[0] += 11
    assert store.get(fourth) is None  # finished, and nobody asked for 11 s
    assert match4.closed


def test_settings_are_checked_against_the_limits():
    small = Limits(max_iterations=100)
    with pytest.raises(Exception, match="max_iterations"):
        check_settings({"game": "kozel", "seat": 0, "agents": ["ismcts:iterations=200"] * 3}, small)
    settings = check_settings({"game": "kozel", "seat": 0, "agents": ["ismcts:iterations=50"] * 3}, small)
    assert settings.agents == ("ismcts:iterations=50",) * 3


@pytest.mark.parametrize("game", list(GAMES))
def test_watching_gives_replays_trick_winners_and_every_view(game):
    options = {"target": 3} if game == "coins" else {}
    game_obj = make_game(game, **options)
    agents = [make("random", game_obj, seed=s) for s in range(game_obj.n_players)]
    state = play_match(game_obj, agents, seed=21, max_deals=2)
    record = record_of(state)
    watch = Watch(json.loads(json.dumps(record)))
    summary = watch.summary()
    expected = replay(record)
    assert [d["trick_winners"] for d in summary["deals"]] == [d["trick_winners"] for d in expected["deals"]]
    assert [d["points"] for d in summary["deals"]] == [d["points"] for d in expected["deals"]]
    assert summary["card_order"] == card_order_json(game_obj)
    assert (summary["card_order"] is None) == (game != "aluette")
    step = len(state.deals[0].actions) // 2
    frame = watch.frame(1, step)
    again = game_obj.new_match()
    again.deal(state.deals[0].vector)
    for action in state.deals[0].actions[:step]:
        again.apply(action)
    assert frame["views"] == [again.view(s) for s in range(game_obj.n_players)]
    with pytest.raises(WebError, match="steps 0.."):
        watch.frame(1, 10**6)


def test_a_bad_record_is_refused_with_its_reason():
    with pytest.raises(WebError, match="upload: deal 1, action 0"):
        Watch({"game": "coins", "deals": [{"hands": make_game("coins").deal_to_json(
            make_game("coins").new_match(seed=1).deals[0].vector)["hands"], "actions": ["Zz"]}]}, "upload")


def test_the_shelf_lists_records_by_id_and_never_follows_links(tmp_path):
    game = make_game("coins", target=2)
    state = play_match(game, [make("random", game, seed=s) for s in range(3)], seed=2)
    record = record_of(state)
    run = tmp_path / "coins-run"
    run.mkdir()
    (run / "match.json").write_text(json.dumps(record))
    (run / "games.jsonl").write_text(json.dumps({"index": 0, "record": record}) + "\n" + "torn li")
    # not records: a tournament's settings name a game and a number of deals
    (run / "config.json").write_text(json.dumps({"game": "coins", "agents": ["random"], "deals": 2}))
    (run / "summary.json").write_text(json.dumps({"game": "coins", "deals": [{"dealer": 0}]}))
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(record))
    os.symlink(outside, run / "linked.json")
    shelf = RecordShelf([tmp_path])
    titles = [entry["title"] for entry in shelf.entries()]
    assert len(titles) == 3, titles  # outside.json, match.json, games.jsonl line 1
    assert not any("linked" in t for t in titles)
    for entry in shelf.entries():
        assert "/" not in entry["id"] and shelf.open(entry["id"]).summary()["totals"] == state.totals
    with pytest.raises(WebError, match="no record"):
        shelf.open("../../etc/passwd")


def test_play_web_opens_the_match_url():
    """`slagwerk play GAME --web` serves the page and names the contract URL of the match."""
    env = {**os.environ, "BROWSER": "true"}  # webbrowser runs `true` instead of a browser
    proc = subprocess.Popen(
        [sys.executable, "-m", "slagwerk", "play", "coins", "--web", "--human", "1", "--agents", "random",
         "heuristic", "--seed", "7", "--target", "4"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    try:
        lines = []
        for line in proc.stderr:  # the worker starts (and loads every game's kernels) first
            lines.append(line)
            if "your match is at" in line:
                break
        url = urlsplit(lines[-1].split("your match is at ", 1)[1].strip())
        assert url.hostname == "127.0.0.1"
        assert parse_qsl(url.query) == [("game", "coins"), ("seat", "1"), ("agent", "random"),
                                        ("agent", "heuristic"), ("seed", "7"), ("opt.target", "4"),
                                        ("opt.first_dealer", "0"), ("opt.ranks", "12"), ("opt.hand", "16")]
        # keep reading what it says, so that a full pipe never blocks it (a cold
        # cache compiles in the worker while the page is already served)
        threading.Thread(target=proc.stderr.read, daemon=True).start()
        conn = http.client.HTTPConnection("127.0.0.1", url.port, timeout=120)
        conn.request("GET", f"/?{url.query}")
        assert conn.getresponse().status == 200
    finally:
        # Killed, not interrupted (the next test is about Ctrl-C); the worker dies with it
        # (parent-death signal).
        proc.kill()
        proc.wait(timeout=60)


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as fh:
        return [int(child) for child in fh.read().split()]


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/task/{os.getpid()}/children"),
                    reason="reads a process's children from /proc (Linux)")
def test_ctrl_c_while_the_worker_compiles_ends_the_worker_too(tmp_path):
    """Ctrl-C of `play --web` while its worker still compiles (an empty kernel cache) ends
    both at once; the worker used to compile on, alone, for the rest of its half minute."""
    env = {**os.environ, "BROWSER": "true", "SLAGWERK_CACHE_DIR": str(tmp_path / "cache")}
    # SIGINT as a terminal leaves it: a suite run as a background job inherits it ignored.
    proc = subprocess.Popen([sys.executable, "-m", "slagwerk", "play", "coins", "--web"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    workers: list[int] = []
    try:
        assert "starting the bot worker" in proc.stderr.readline()
        for _ in range(200):  # the worker is started right after that line
            workers = _children(proc.pid)
            if workers:
                break
            time.sleep(0.05)
        assert workers, "no worker process was started"
        time.sleep(1.0)  # well inside its compilation
        assert proc.poll() is None, "play --web ended before the worker was ready"
        proc.send_signal(signal.SIGINT)  # to the harness alone, as a terminal's Ctrl-C reaches it first
        assert proc.wait(timeout=60) == 130
        for _ in range(100):
            if not any(_alive(pid) for pid in workers):
                break
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in workers), "the worker outlived play --web"
    finally:
        proc.kill()
        proc.wait()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_serve_web_options_are_checked(tmp_path, capsys):
    from slagwerk.cli import main

    for argv, reason in ((["--max-matches", "0"], "argument --max-matches: must be an integer from 1"),
                         (["--match-expiry", "0"], "argument --match-expiry: must be a number above 0")):
        with pytest.raises(SystemExit):
            main(["serve", "--port", "0", *argv])
        err = capsys.readouterr().err
        assert reason in err and err.count("\n") == 1
    assert main(["serve", "--port", "0", "--results", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "is not a folder" in err and err.count("\n") == 1


_LEAVING = threading.Event()
"""Set when the bots' thread has just seen that the bots' turn is over."""


class _SlowToLeave(threading.Condition):
    """A condition that the bots' thread leaves slowly after it has seen that
    the bots' turn is over: the moment in which an old bots' thread could still
    look registered to ``act()``."""

    def __exit__(self, *exc):
        result = super().__exit__(*exc)
        if threading.current_thread().name == "slagwerk-web-bots" and _LEAVING.is_set():
            _LEAVING.clear()
            time.sleep(0.05)
        return result


def test_a_human_who_answers_at_once_never_stalls_the_bots(monkeypatch):
    """The bots' thread gives up its turn under the same lock as its last look at
    the match, so an action the human sends the instant it may never finds the
    old thread still registered, which would leave the next bot without a thread
    (a stall the fresh-clone suite once met). Every match must end."""
    import slagwerk.web.matches as matches

    human_or_over = WebMatch._human_or_over

    def looked(self):
        over = human_or_over(self)
        if over and threading.current_thread().name == "slagwerk-web-bots":
            _LEAVING.set()
        return over

    monkeypatch.setattr(WebMatch, "_human_or_over", looked)
    monkeypatch.setattr(matches, "threading", SimpleNamespace(
        Condition=_SlowToLeave, Thread=threading.Thread, Lock=threading.Lock,
        current_thread=threading.current_thread))
    for k in range(3):
        store = MatchStore(in_process, LIMITS)
        settings = {"game": "coins", "options": {"target": 2}, "seat": k % 3,
                    "agents": ["random", "random"], "seed": k}
        _, match = store.start(None, settings)
        chooser, stalled_since, last = random.Random(k), None, -1
        while not match.over:
            with match.changed:
                ready = match.thinking is None and match.state.to_move == match.seat
                version = match.version
            if ready:
                match.act(chooser.choice(match.state.legal_texts(match.seat)))
                continue
            match.wait(version, 0.05)
            if match.version == last:
                stalled_since = stalled_since or time.monotonic()
                assert time.monotonic() - stalled_since < 5, f"match {k} stalled: no bot is moving"
            else:
                stalled_since, last = None, match.version


QUERY_FUZZ = ["after=%C2%B2", "after=" + "9" * 5000, "after=-1", "after=1e3", "after=", "after",
              "after=1&after=2", "deal=1", "after=%00", "after=%FF", "x=1", "after=1&", "&", "after=+1",
              "after=١٢", "after=²"]


TAKES = {"/web/api/match": {"after"}, "/web/api/frame": {"deal", "step"}}


@pytest.mark.parametrize("path", ["/web/api/match", "/web/api/frame", "/web/api/shelf", "/web/api/watch",
                                  "/web/api/record"])
def test_every_query_parameter_is_parsed_strictly_with_one_line_refusals(server, path):
    """Issue #59: ``after=²`` (a digit to str.isdigit, not to int) and 5,000 nines used to drop the
    connection with a traceback. Every GET of the page's API answers a bad query with one 400 line."""
    client = Client(server)
    rng = random.Random(path)
    queries = QUERY_FUZZ + ["".join(rng.choice("a=&%0129²x+;") for _ in range(rng.randint(1, 12)))
                            for _ in range(40)]
    for query in queries:
        status, answer, _ = client.call("GET", f"{path}?{quote(query, safe='=&%+;')}")
        if status != 400:  # a query the endpoint takes: only numbers, each once, of the names it knows
            pairs = [part.split("=") for part in query.split("&")]
            names = [pair[0] for pair in pairs]
            assert set(names) <= TAKES.get(path, set()) and len(set(names)) == len(names), query
            assert all(len(pair) == 2 and re.fullmatch(r"[0-9]{1,10}", pair[1]) for pair in pairs), query
            continue
        assert "\n" not in answer["error"] and len(answer["error"]) < 300, (query, answer)
    status, answer, _ = client.call("GET", "/web/api/match?after=%C2%B2")
    assert status == 400 and "after must be a whole number" in answer["error"]
    status, answer, _ = client.call("GET", "/web/api/shelf?x=1")
    assert status == 400 and "takes no query parameters" in answer["error"]


def test_a_client_over_its_share_gets_429_and_nobody_elses_match_is_touched():
    """Issue #59: one client used to take every session of the server with cookie-less POSTs.
    On a public server one remote address holds at most its share; the next is 429 with
    Retry-After, while another address still starts a match."""
    web = WebServer("127.0.0.1", 0, limits=LIMITS, time_limit_ms=60_000, workers=1, public=True,
                    worker_argv=[sys.executable, "-m", "slagwerk", "bot", "--time-limit-ms", "0"],
                    max_matches=8, matches_per_client=2)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    body = {"game": "coins", "seat": 0, "agents": ["random", "random"], "seed": 1}
    try:
        greedy = [Client(web, "127.0.0.1") for _ in range(3)]
        assert [c.call("POST", "/web/api/match", body)[0] for c in greedy[:2]] == [200, 200]
        status, answer, response = greedy[2].call("POST", "/web/api/match", body)
        assert status == 429 and "you already hold 2 matches" in answer["error"]
        assert response.getheader("Retry-After") == "60"
        other = Client(web, "127.0.0.2")
        assert other.call("POST", "/web/api/match", body)[0] == 200
        assert all(c.call("GET", "/web/api/match")[1]["kind"] != "none" for c in greedy[:2])
        session = web.store.get(greedy[0].cookie)  # a session without a match in play makes room
        session.match.close()
        session.match = None
        assert greedy[2].call("POST", "/web/api/match", body)[0] == 200
    finally:
        web.shutdown()
        web.close()
        thread.join(timeout=30)


def test_the_store_counts_sessions_per_client():
    store = MatchStore(lambda request: None, LIMITS, max_sessions=4, per_client=2, clock=lambda: 0.0)
    in_play = SimpleNamespace(over=False, close=lambda: None)
    for _ in range(2):
        store.open(None, "a")[1].match = in_play
    with pytest.raises(WebError) as refused:
        store.open(None, "a")
    assert refused.value.status == 429 and refused.value.headers == {"Retry-After": "60"}
    store.open(None, "b")
    store.open(None)  # a loopback server's sessions count towards nobody
    assert len(store) == 4
    finished = next(s for s in store._sessions.values() if s.client == "a")
    finished.match = None  # nothing in play: the client's own session gives way
    store.open(None, "a")
    assert sum(s.client == "a" for s in store._sessions.values()) == 2 and len(store) == 4


def test_fuzzed_page_paths_and_cookies_each_get_one_json_line_under_500(server):
    """Issue #59: paths and headers of the page's API are fuzzed as bodies are."""
    rng = random.Random(59)
    alphabet = "abcdefghijklmnopqrstuvwxyz/%?=&.~_-0123456789²"
    for _ in range(150):
        client = Client(server)
        path = "/web/api/" + "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        client.cookie = "".join(rng.choice(alphabet + ";, \"") for _ in range(rng.randint(0, 60)))
        status, answer, _ = client.call(rng.choice(["GET", "POST"]), quote(path, safe="/%?=&"),
                                        body=rng.choice([None, {}, b"[]"]))
        assert 200 <= status < 500, (path, status, answer)
        if isinstance(answer, dict) and "error" in answer:
            assert "\n" not in answer["error"], answer
