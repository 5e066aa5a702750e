"""The bot protocol: whole matches through ``slagwerk bot``, bad requests, no leaks, ``slagwerk view``."""

from __future__ import annotations

import io
import json
import os
import random
import re
import selectors
import subprocess
import sys
import time

import numpy as np
import pytest

from paths import REPO
from slagwerk.agents.protocol import Defaults, Limits, handle, hello, parse_request
from slagwerk.agents.stdio import serve_lines
from slagwerk.cli import main
from slagwerk.engine import GAME_NAMES, contract, make_game
from slagwerk.engine.bits import make_rng
from slagwerk.engine.records import record_of
from slagwerk.engine.replay import check_history

ANSWER_TIMEOUT_S = 300.0  # generous: a first search request may compile kernels
SEARCH = "ismcts"


class BotProcess:
    """``slagwerk bot`` as a subprocess, asked one line at a time with a timeout."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slagwerk", "bot", *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=dict(os.environ),
        )
        self.pending = b""

    def send(self, line: bytes) -> None:
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict:
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self.pending:
                if not selector.select(ANSWER_TIMEOUT_S):
                    raise AssertionError("the bot did not answer in time")
                chunk = os.read(fd, 1 << 16)
                assert chunk, f"the bot stopped; unfinished answer: {self.pending!r}"
                self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return json.loads(line)

    def ask(self, request: dict) -> dict:
        self.send(json.dumps(request).encode())
        return self.receive()

    def close(self) -> int:
        self.proc.stdin.close()
        code = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        return code


@pytest.fixture(scope="module")
def bot():
    process = BotProcess()
    yield process
    if process.proc.poll() is None:
        process.proc.kill()
        process.proc.wait()


def positions(game_name: str, count: int, seed: int, keep=None, **options):
    """``count`` states with a seat to move, reached by seeded random play (those for
    which ``keep(state)`` holds, or three in ten)."""
    rnd = random.Random(seed)
    game = make_game(game_name, **options)
    state = game.new_match(seed=seed)
    out = []
    while len(out) < count:
        if state.is_terminal:
            state = game.new_match(seed=rnd.randrange(1 << 30))
        if state.deal_pending:
            state.deal(rng=make_rng(rnd.randrange(1 << 30)))
            continue
        if keep(state) if keep else rnd.random() < 0.3:
            out.append(state.clone())
        state.apply(rnd.choice(state.legal_actions()))
    return out


def act_request(state, agent="heuristic", rid=1, **extra) -> dict:
    return {"id": rid, "type": "act", "game": state.game.name, "agent": agent,
            "view": state.view(state.to_move), **extra}


# ------------------------------------------------------------ whole matches


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_whole_match_through_the_bot_process_every_answer_legal(bot, game_name):
    game = make_game(game_name, **({"target": 4} if game_name == "coins" else {}))
    specs = ["heuristic", SEARCH, "random", "pimc:worlds=2,iterations_per_world=4"]
    state = game.new_match()
    rng = make_rng(11)
    asked = 0
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(rng=rng)
            continue
        seat = state.to_move
        spec = specs[seat % len(specs)]
        extra = {"seed": asked}
        if spec == SEARCH:
            extra.update(iterations=16, stats=True)
        answer = bot.ask(act_request(state, spec, rid=asked, **extra))
        assert answer["id"] == asked, answer
        assert "error" not in answer, answer
        assert answer["action"] in state.legal_texts(seat)
        if spec == SEARCH:
            assert answer["stats"]["iterations"] == 16
            assert answer["action"] in answer["stats"]["actions"]
        state.apply(answer["action"])
        asked += 1
    assert state.outcome is not None and asked > 0


def test_hello_lists_every_game_and_view_agent_and_quit_stops_the_bot():
    process = BotProcess("--max-time-ms", "5000")
    info = process.ask({"id": "h", "type": "hello"})
    assert info["id"] == "h" and info["protocol"] == "slagwerk-bot" and info["version"] == 1
    assert set(info["games"]) == set(GAME_NAMES)
    assert {"random", "heuristic", "ismcts", "pimc"} <= set(info["agents"])
    assert "cheat" not in info["agents"]  # it needs the true state, which a view never carries
    assert info["agents"]["ismcts"]["params"]["iterations"]["type"] == "int"
    assert info["agents"]["ismcts"]["budgets"] == ["iterations", "time_ms"]
    assert info["limits"]["max_time_ms"] == 5000
    assert info["time_limit_ms"] == 30_000  # the default hard limit: agents run in a worker
    assert process.ask({"id": 2, "type": "quit"}) == {"id": 2, "ok": True}
    assert process.proc.wait(timeout=60) == 0
    process.proc.stdin.close()
    process.proc.stdout.close()


def test_a_max_time_above_the_hard_limits_share_is_lowered_with_a_notice():
    """docs/protocol.md: time_ms budgets may use 80% of --time-limit-ms; a larger
    --max-time-ms is lowered, and the bot says so at start (on stderr: stdout is answers)."""
    requests = json.dumps({"id": 1, "type": "hello"}) + "\n" + json.dumps({"id": 2, "type": "quit"}) + "\n"
    done = subprocess.run([sys.executable, "-m", "slagwerk", "bot", "--max-time-ms", "5000",
                           "--time-limit-ms", "2000"], input=requests, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["limits"]["max_time_ms"] == 1600
    assert "--max-time-ms 5000 lowered to 1600, 80% of --time-limit-ms 2000" in done.stderr
    quiet = subprocess.run([sys.executable, "-m", "slagwerk", "bot", "--time-limit-ms", "2000"],
                           input=requests, capture_output=True, text=True, timeout=120)
    assert json.loads(quiet.stdout.splitlines()[0])["limits"]["max_time_ms"] == 1600
    assert "lowered" not in quiet.stderr  # the default is lowered silently: nothing was asked


def test_hello_describes_options_and_parameters():
    info = hello()
    assert info["games"]["coins"]["options"]["target"] == {
        "default": 10, "min": 1, "max": 1000, "doc": "coins that win the match"}
    assert info["agents"]["random"] == {
        "description": "uniformly random legal action", "params": {}, "budgets": []}


# ------------------------------------------------------------- bad requests

STATE = positions("coins", 1, seed=5)[0]
GOOD = act_request(STATE)


def _with(view_changes=None, drop=(), **request_changes):
    request = json.loads(json.dumps(GOOD))
    request.update(request_changes)
    if view_changes:
        request["view"].update(view_changes)
    for key in drop:
        request["view"].pop(key)
    return request


def _hand():
    return list(GOOD["view"]["hand"])


BAD_REQUESTS = [
    ([1, 2], None, "a request is a JSON object, not an array"),
    ({"id": 1}, 1, "needs the field 'type'"),
    ({"id": 1, "type": "bid"}, 1, "unknown request type 'bid'"),
    ({"id": [1], "type": "hello"}, None,
     "'id' must be an integer or a string of at most 200 characters or null, not [1]"),
    ({"id": 1, "type": "hello", "colour": "red"}, 1, "unknown field 'colour' in a 'hello' request"),
    (_with(game="chess"), 1, "unknown game 'chess'"),
    (_with(game=7), 1, "'game' must be a string, not 7"),
    (_with(agent="alphazero"), 1, "unknown agent 'alphazero'"),
    (_with(agent="random:depth=3"), 1, "unknown parameter 'depth'"),
    (_with(agent=None), 1, "'agent' must be a string, not null"),
    (_with(agent="cheat"), 1, "decides from the true state"),
    (_with(iterations=100), 1, "agent 'heuristic' takes no 'iterations' budget"),
    (_with(agent="ismcts", iterations=0), 1, "'iterations' must be a positive integer"),
    (_with(agent="ismcts", time_ms=5000), 1, "more than this server allows"),
    (_with(agent="ismcts:time_ms=5000"), 1, "more than this server allows"),
    (_with(stats="yes"), 1, "'stats' must be true or false"),
    (_with(seed=-1), 1, "'seed' must be an integer"),
    # JSON's words, not Python's:
    (_with(seed=None), 1, "'seed' must be an integer from 0 to 9223372036854775807, not null"),
    (_with(stats=None), 1, "'stats' must be true or false, not null"),
    (_with(view=[]), 1, "'view' must be an object, not []"),
    ({k: v for k, v in GOOD.items() if k != "view"}, 1, "needs the field 'view'"),
    (_with(drop=["hand"]), 1, "view of coins needs the field 'hand'"),
    (_with({"mood": "happy"}), 1, "unknown field 'mood' in a view of coins"),
    (_with({"hand": _hand()[:-1] + [_hand()[0]]}), 1, "list a card twice"),
    (_with({"hand": _hand()[:-1] + ["Zz"]}), 1, "unknown card 'Zz'"),
    (_with({"hand": _hand()[:-1]}), 1, "should hold"),
    (_with({"played": GOOD["view"]["played"] + [_hand()[0]]}), 1, "appears twice in the view"),
    (_with({"seat": 9}), 1, "'seat' must be an integer 0..2"),
    (_with({"totals": [0, 0]}), 1, "'totals' must be 3 integers"),
    (_with({"game": "kozel"}), 1, "view is for game 'kozel'"),
    (_with({"legal_actions": ["Ao"]}), 1, "are not the rules' legal actions"),
    (_with({"options": {"target": 0}}), 1, "out of range"),
    # Found by the HTTP fuzz test: a null history entry reached the belief's replay.
    (_with({"history": [None]}, agent="ismcts"), 1, "history entry 0 must be"),
    (_with({"history": [{"seat": 5, "action": "Ao"}]}, agent="ismcts"), 1, "history entry 0 must be"),
    (_with({"history": [{"seat": 0, "action": 3}]}), 1, "history entry 0 must be"),
    (_with({"history": "Ao"}), 1, "'history' must be a list"),
    ({"id": 1, "type": "warm"}, 1, "a 'warm' request needs the field 'game'"),
    ({"id": 1, "type": "warm", "game": "chess"}, 1, "unknown game 'chess'"),
    ({"id": 1, "type": "warm", "game": "coins", "agent": "x"}, 1, "unknown field 'agent' in a 'warm'"),
]


@pytest.mark.parametrize("game_name", [name for name in GAME_NAMES if name != "coins"])
def test_another_games_view_is_named_as_such(game_name):
    """Its fields differ too, but the game is what is wrong (the request's game, or the default)."""
    other = positions(game_name, 1, seed=5)[0]
    view = other.view(other.to_move)
    assert f"view is for game {game_name!r}, not 'coins'" in handle({**GOOD, "view": view})["error"]
    request = {"id": 1, "type": "act", "agent": "random", "view": view}
    assert f"view is for game {game_name!r}" in handle(request, defaults=Defaults(game="coins"))["error"]


# ----------------------------------------------------------- the history


def _views_with_history(game_name: str, count: int, seed: int, **options):
    found = positions(game_name, count, seed, keep=lambda state: bool(state.view(state.to_move)["history"]),
                      **options)
    return [state.view(state.to_move) for state in found]


def _slotless(view: dict) -> dict:
    """A Koetsieren view without the hands' ``played`` (the slots cards left)."""
    return dict(view, hands=[{k: v for k, v in h.items() if k != "played"} for h in view["hands"]])


@pytest.mark.parametrize("game_name, options", [
    ("coins", {}), ("koetsieren", {"players": 3}), ("koetsieren", {"players": 6}), ("kozel", {}),
    ("aluette", {}),
])
def test_the_history_of_every_real_view_passes_its_check(game_name, options):
    """Views of random matches, rebuilt from other seeds: never a false alarm (Koetsieren
    also without the slots cards were played from)."""
    for k, view in enumerate(_views_with_history(game_name, 300, seed=21, **options)):
        for shown in (view, _slotless(view)) if game_name == "koetsieren" else (view,):
            check_history(make_game(game_name).state_from_view(shown, seed=k), shown)


def _contradicted(game_name: str):
    """(view, what) pairs: views whose history contradicts the rest of them."""
    for view in _views_with_history(game_name, 40, seed=22):
        history = view["history"]
        if game_name == "coins":
            mine = next(i for i, item in enumerate(history) if item["seat"] == view["seat"]) \
                if any(item["seat"] == view["seat"] for item in history) else None
            if mine is not None:  # the seat played a card it still holds
                changed = [dict(item) for item in history]
                changed[mine]["action"] = view["hand"][0]
                yield dict(view, history=changed), "card still in hand"
            yield dict(view, dealer=(view["dealer"] + 1) % 3), "another dealer"
        elif game_name == "koetsieren" and view["trump"] is not None:
            other = next(suit for suit in "cdhs" if suit != view["trump"])
            yield dict(view, trump=other), "trump"
            if all(bid is not None for bid in view["bids"]):
                yield dict(view, bids=[(bid + 1) % 5 for bid in view["bids"]]), "bids"


@pytest.mark.parametrize("game_name", ["coins", "koetsieren"])
def test_a_history_that_contradicts_the_view_is_an_error(game_name):
    """docs/protocol.md: a view's history is replayed from the deal's start and must
    lead to the rest of the view (a played card the view shows in a hand, a trump or
    bids other than the history's, a dealer whose deal would have begun elsewhere)."""
    seen = set()
    for view, what in _contradicted(game_name):
        request = {"id": 3, "type": "act", "game": game_name, "agent": "random", "view": view}
        answer = handle(request)
        assert "error" in answer, (what, view)
        message = answer["error"]
        assert message.startswith("the view's history cannot have led to the rest of the view") or \
            "history" in message, (what, message)
        seen.add(what)
    assert len(seen) >= 2


def test_a_warm_request_loads_a_games_agents_before_any_act():
    answer = handle({"id": 7, "type": "warm", "game": "kozel"})
    assert answer["id"] == 7 and answer["warmed"] == "kozel" and answer["answered"] >= 4


@pytest.mark.parametrize("request_, rid, message", BAD_REQUESTS)
def test_a_bad_request_gets_an_error_naming_the_problem(request_, rid, message):
    answer = handle(request_, Limits(max_time_ms=1000))
    assert set(answer) == {"id", "error"}, answer
    assert answer["id"] == rid
    assert message in answer["error"]


def test_a_view_whose_seat_is_not_to_move_is_refused():
    state = STATE.clone()
    seat = (state.to_move + 1) % state.game.n_players
    request = {**GOOD, "view": state.view(seat)}
    assert f"seat {seat} is not to move" in handle(request)["error"]


def test_every_bad_line_is_answered_and_the_next_good_one_works():
    good = json.dumps(GOOD).encode()
    lines = [
        b"{not json",
        b'{"id": 3, "type": "hello", "type": "quit"}',
        b'{"id": 4, "type": "act", "seed": NaN}',
        b"\xff\xfe",
        b"[" * 3000,
        b"x" * 5000,  # longer than the limit below
        json.dumps({**GOOD, "id": 5, "agent": "nosuch"}).encode(),
        b"   ",  # blank: skipped, no answer
        good,
    ]
    out = io.StringIO()
    assert serve_lines(io.BytesIO(b"\n".join(lines) + b"\n"), out, Limits(max_request_bytes=4096)) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(answers) == len(lines) - 1
    errors = [a["error"] for a in answers[:-1]]
    assert "not JSON" in errors[0]
    assert "field 'type' appears twice" in errors[1]
    assert "NaN is not a JSON number" in errors[2]
    assert "not UTF-8" in errors[3]
    assert "nested too deeply" in errors[4]
    assert "longer than 4096 bytes" in errors[5]
    assert answers[6] == {"id": 5, "error": answers[6]["error"]} and "unknown agent" in errors[6]
    assert answers[-1]["id"] == 1 and answers[-1]["action"] in STATE.legal_texts()


def test_an_oversized_line_is_skipped_without_reading_it_whole():
    huge = b'{"id": 1, "type": "hello", "pad": "' + b"x" * (3 << 20) + b'"}'
    out = io.StringIO()
    serve_lines(io.BytesIO(huge + b"\n" + json.dumps(GOOD).encode() + b"\n"), out)
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first == {"id": None, "error": "the request line is longer than 1048576 bytes"}
    assert second["action"] in STATE.legal_texts()


def test_an_agent_that_crashes_is_an_error_answer_and_is_logged(monkeypatch, capsys):
    from slagwerk.agents.simple import HeuristicAgent

    def explode(self, view):
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(HeuristicAgent, "decide", explode)
    answer = handle(GOOD)
    assert answer == {"id": 1, "error": "internal error: ZeroDivisionError: boom"}
    assert "ZeroDivisionError" in capsys.readouterr().err


def test_an_illegal_agent_answer_is_caught(monkeypatch):
    from slagwerk.agents.base import Decision
    from slagwerk.agents.simple import RandomAgent

    monkeypatch.setattr(RandomAgent, "decide", lambda self, view: Decision("Zz"))
    assert "answered 'Zz', which is not legal here" in handle({**GOOD, "agent": "random"})["error"]


def test_defaults_fill_in_game_and_agent():
    request = {"id": 1, "type": "act", "view": GOOD["view"]}
    assert "needs the field 'agent'" in handle(request)["error"]
    answer = handle(request, defaults=Defaults(game="coins", agent="random"))
    assert answer["action"] in STATE.legal_texts()


def test_parse_request_is_strict():
    assert parse_request(b'{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}
    for text in (b"Infinity", b'{"a": 1, "a": 2}', b"1" * 5000, b"\xc3"):
        with pytest.raises(ValueError):
            parse_request(text)


# ----------------------------------------------------------------- no leaks


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_the_answer_does_not_change_when_hidden_cards_differ(game_name):
    """Redeal every card the seat cannot see (``determinize``): the view, and so
    the bot's answer, stays the same; the true state really changed."""
    changed = 0
    for k, state in enumerate(positions(game_name, 4, seed=20)):
        seat = state.to_move
        view = state.view(seat)
        answers = {spec: handle(act_request(state, spec, seed=3, **budget))
                   for spec, budget in (("heuristic", {}), ("random", {}), (SEARCH, {"iterations": 30}))}
        for world in range(3):
            other = state.clone()
            contract.determinize(other.array, seat, make_rng(100 * k + world))
            changed += not np.array_equal(other.array, state.array)
            assert other.view(seat) == view
            for spec, budget in (("heuristic", {}), ("random", {}), (SEARCH, {"iterations": 30})):
                assert handle(act_request(other, spec, seed=3, **budget)) == answers[spec]
    assert changed > 0, "determinize never changed a hidden card: the test would prove nothing"


# -------------------------------------------------------------- slagwerk view


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_view_command_prints_the_seats_view_of_a_record_that_stops_mid_deal(tmp_path, capsys, game_name):
    state = positions(game_name, 1, seed=8)[0]
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record_of(state)))
    seat = state.to_move
    for s in range(state.game.n_players):
        assert main(["view", "--seat", str(s), str(path)]) == 0
        assert json.loads(capsys.readouterr().out) == state.view(s)
    assert main(["view", "--seat", str(seat), "--request", "heuristic", str(path)]) == 0
    request = json.loads(capsys.readouterr().out)
    assert handle(request)["action"] in state.legal_texts(seat)


def test_view_request_is_checked_as_the_bot_would_before_it_is_printed(tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record_of(STATE)))
    other = (STATE.to_move + 1) % STATE.game.n_players
    for argv, message in (
            (["--seat", str(other), "--request", "heuristic"], f"seat {other} is not to move"),
            (["--seat", str(STATE.to_move), "--request", "nope"], "unknown agent 'nope'"),
            (["--seat", str(STATE.to_move), "--request", "ismcts:iterations=abc"], "iterations"),
            (["--seat", str(STATE.to_move), "--request", "cheat"], "decides from the true state")):
        assert main(["view", *argv, str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1


def test_view_command_rejects_a_seat_that_does_not_exist(tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record_of(STATE)))
    assert main(["view", "--seat", "3", str(path)]) == 2
    assert "--seat 3 is not a seat of this coins match (0..2)" in capsys.readouterr().err


def test_pipelined_requests_are_answered_in_order(bot):
    requests = [act_request(STATE, "random", rid=f"r{i}", seed=i) for i in range(20)]
    for request in requests:
        bot.send(json.dumps(request).encode())
    answers = [bot.receive() for _ in requests]
    assert [a["id"] for a in answers] == [r["id"] for r in requests]
    assert all(a["action"] in STATE.legal_texts() for a in answers)


def test_the_documented_example_client_plays_a_match_through_the_bot():
    client = REPO / "docs" / "example_client.py"
    run = subprocess.run([sys.executable, str(client), "--target", "2", "--agent", "random"],
                         capture_output=True, text=True, timeout=ANSWER_TIMEOUT_S)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("slagwerk-bot v1: games coins")
    assert "seat 1 plays" in run.stdout and "outcome [" in run.stdout


# ------------------------------------------------------------ hard time limit

BOT_TIME_LIMIT_MS = 3000


def test_bot_with_a_time_limit_stops_an_overrunning_request_and_recovers():
    # Agents run in a worker process; one that overruns is killed and replaced.
    process = BotProcess("--time-limit-ms", str(BOT_TIME_LIMIT_MS), "--max-iterations", str(10**9))
    try:
        info = process.ask({"id": 1, "type": "hello"})
        assert info["time_limit_ms"] == BOT_TIME_LIMIT_MS
        assert info["limits"]["max_time_ms"] == BOT_TIME_LIMIT_MS * 4 // 5
        state = positions("coins", 1, seed=4)[0]
        legal = state.legal_texts(state.to_move)
        # loading coins in the worker is not held to the limit: leave it out of the stopwatch
        assert process.ask({"id": 9, "type": "warm", "game": "coins"})["id"] == 9
        started = time.monotonic()
        answer = process.ask(act_request(state, SEARCH, rid=2, iterations=10**9))
        assert answer["id"] == 2 and "ran out of time" in answer["error"]
        assert time.monotonic() - started < BOT_TIME_LIMIT_MS / 1000 + 5
        too_long = process.ask(act_request(state, SEARCH, rid=3, time_ms=BOT_TIME_LIMIT_MS))
        assert too_long["id"] == 3 and "time_ms" in too_long["error"]
        # the next request waits for the replacement worker, then is answered
        answer = process.ask(act_request(state, "heuristic", rid=4))
        assert answer["id"] == 4 and answer["action"] in legal
        assert process.ask({"id": 5, "type": "quit"}) == {"id": 5, "ok": True}
        assert process.close() == 0
    finally:
        if process.proc.poll() is None:
            process.proc.kill()
            process.proc.wait()


# ------------------------------------------------------- the documented examples

VARYING_STATS = ("seconds", "belief_seconds")  # measured times: the machine's, not the protocol's


def _documented_exchanges():
    """(request, answer) of each example exchange in docs/protocol.md."""
    text = (REPO / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("<!-- examples:start -->")[1].split("<!-- examples:end -->")[0]
    blocks = [json.loads(b.split("```")[0]) for b in section.split("```json\n")[1:]]
    return list(zip(blocks[0::2], blocks[1::2]))


def test_the_documented_example_exchanges_are_what_the_bot_answers():
    """docs/protocol.md, "Example exchanges": each answer, as printed there, is the
    bot's answer to the request printed with it (times aside), so the examples
    cannot go stale (`python docs/make_protocol_examples.py` rewrites them)."""
    exchanges = _documented_exchanges()
    assert {request["game"] for request, _ in exchanges} == set(GAME_NAMES)
    for request, documented in exchanges:
        answer = json.loads(json.dumps(handle(request)))
        for stats in (answer["stats"], documented["stats"]):
            for key in VARYING_STATS:
                stats.pop(key, None)
        assert answer == documented, request["game"]


def test_the_node_size_of_the_limits_is_the_search_trees():
    from slagwerk.agents.limits import NODE_BYTES, PRIOR_BYTES
    from slagwerk.agents.protocol import DEFAULT_LIMITS
    from slagwerk.search.tree import NODE_FIELDS, Tree

    assert NODE_BYTES == (NODE_FIELDS + 1) * 8
    tree, guided = Tree(64), Tree(64, guided=True)
    node_bytes = (tree.nodes.nbytes + tree.values.nbytes) // 64
    assert node_bytes == NODE_BYTES
    guided_bytes = guided.nodes.nbytes + guided.values.nbytes + guided.priors.nbytes
    assert guided_bytes // 64 == NODE_BYTES + PRIOR_BYTES
    assert hello()["limits"]["max_tree_bytes"] == DEFAULT_LIMITS.max_nodes * (NODE_BYTES + PRIOR_BYTES)


def test_hello_gives_each_games_facts_the_web_page_draws_with():
    """The page names no game: deck, seats, teams and the totals' word come from hello."""
    from slagwerk.engine.cards import RANK_NAMES, SUIT_NAMES
    from slagwerk.engine.registry import game_info

    facts = hello()["games"]
    for name in GAME_NAMES:
        game, info = make_game(name), game_info(name)
        assert facts[name]["deck"] == {"family": game.deck.family, "suits": game.deck.suits,
                                       "ranks": game.deck.ranks,
                                       "suit_names": SUIT_NAMES[game.deck.family],
                                       "rank_names": RANK_NAMES[game.deck.family]}
        assert set(facts[name]["deck"]["suit_names"]) == set(game.deck.suits)
        assert set(facts[name]["deck"]["rank_names"]) >= set(game.deck.ranks)  # the family's names
        assert (facts[name]["players"], facts[name]["team_game"]) == (game.n_players, info.team_game)
        assert facts[name]["totals"] == info.totals and facts[name]["title"] == info.title
        assert facts[name]["suit_cycle"] == info.suit_cycle
    assert facts["coins"]["deck"]["family"] == "spanish" and facts["kozel"]["deck"]["family"] == "french"
    assert facts["coins"]["suit_cycle"] == "coeb" and facts["kozel"]["suit_cycle"] == ""
    page = (REPO / "web" / "static" / "app.js").read_text()
    assert not re.search(r"game [!=]== \"", page)  # no rule keyed to a game's name
    assert not [name for name in ("koetsieren", "kozel", "aluette") if f'"{name}"' in page]
