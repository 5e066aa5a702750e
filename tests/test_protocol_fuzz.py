"""Fuzzing the stdio bot: thousands of random and mutated requests, each answered, none fatal.

The strategies here are shared with ``test_http.py``, which sends the same
kinds of requests to the HTTP server.
"""

from __future__ import annotations

import copy
import io
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slagwerk.agents.protocol import Limits, parse_request, request_id
from slagwerk.agents.stdio import serve_lines
from slagwerk.engine import GAME_NAMES, SlagwerkError, make_game
from slagwerk.engine.bits import make_rng

FUZZ_LIMITS = Limits(max_request_bytes=64 * 1024, max_time_ms=200)
AGENT_SPECS = ["random", "heuristic", "ismcts:iterations=2", "pimc:worlds=1,iterations_per_world=2",
               "nosuch", "random:x=1", "ismcts:iterations=-5", "", ":", "cheat", "heuristic:label=h"]


def _positions_per_game(per_game: int = 3, seed: int = 77) -> list:
    rnd = random.Random(seed)
    out = []
    for name in GAME_NAMES:
        game = make_game(name)
        state = game.new_match(seed=seed)
        found = 0
        while found < per_game:
            if state.is_terminal:
                state = game.new_match(seed=rnd.randrange(1 << 30))
            if state.deal_pending:
                state.deal(rng=make_rng(rnd.randrange(1 << 30)))
                continue
            if rnd.random() < 0.15:
                out.append(state.clone())
                found += 1
            state.apply(rnd.choice(state.legal_actions()))
    return out


POSITIONS = _positions_per_game()
BASE_REQUESTS = [
    {"id": i, "type": "act", "game": s.game.name, "agent": "random", "view": s.view(s.to_move)}
    for i, s in enumerate(POSITIONS)
]
CARD_TEXTS = sorted({c for s in POSITIONS for c in s.game.deck.names(s.game.deck.all_mask)}) + ["??"]

json_leaves = (
    # integers stay small (a valid budget of 10**8 iterations would only be slow) or are out of range
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.sampled_from([2**63, -(2**63), 10**30])
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12)
    | st.sampled_from(CARD_TEXTS)
)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


@st.composite
def mutated_requests(draw) -> dict:
    """A real request (any game) with a few random changes: most become invalid."""
    request = copy.deepcopy(draw(st.sampled_from(BASE_REQUESTS)))
    request["id"] = draw(st.integers(0, 10**6) | st.text(max_size=6) | json_values)
    request["agent"] = draw(st.sampled_from(AGENT_SPECS))
    view = request["view"]
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.integers(0, 7))
        view_keys = sorted(view)
        if kind == 0:
            request.pop(draw(st.sampled_from(sorted(request))), None)
        elif kind == 1:
            key = draw(st.sampled_from(["game", "agent", "seed", "stats", "iterations", "time_ms", "type",
                                        "junk"]))
            request[key] = draw(json_values | st.integers(0, 50))
        elif kind == 2 and view_keys:
            view.pop(draw(st.sampled_from(view_keys)))
        elif kind == 3 and view_keys:
            view[draw(st.sampled_from(view_keys + ["junk"]))] = draw(json_values)
        elif kind in (4, 5) and view_keys:
            _mutate_list(draw, view, kind)
        elif kind == 6 and view_keys:
            key = draw(st.sampled_from(view_keys))
            if isinstance(view[key], int) and not isinstance(view[key], bool):
                view[key] += draw(st.integers(-3, 3))
        elif kind == 7 and len(view_keys) > 1:
            a, b = draw(st.lists(st.sampled_from(view_keys), min_size=2, max_size=2, unique=True))
            view[a], view[b] = view[b], view[a]
    return request


def _mutate_list(draw, view: dict, kind: int) -> None:
    """Change one element of a (possibly nested) list in the view: a card, a count, a bid."""
    containers = []

    def collect(value):
        if isinstance(value, list):
            containers.append(value)
            for item in value:
                collect(item)
        elif isinstance(value, dict):
            for item in value.values():
                collect(item)

    collect(view)
    target = draw(st.sampled_from(containers)) if containers else None
    if target is None:
        return
    if kind == 4 and target:
        index = draw(st.integers(0, len(target) - 1))
        target[index] = draw(st.sampled_from(CARD_TEXTS) | st.sampled_from(target) | json_leaves)
    elif kind == 5:
        if target and draw(st.booleans()):
            target.pop(draw(st.integers(0, len(target) - 1)))
        else:
            target.append(draw(st.sampled_from(CARD_TEXTS) | st.integers(-1, 7)))


def _encode(request) -> bytes:
    return json.dumps(request).encode()


request_lines = st.one_of(
    mutated_requests().map(_encode),
    st.sampled_from(BASE_REQUESTS).map(_encode),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.binary(max_size=60).filter(lambda b: b"\n" not in b and b"\r" not in b),
    st.tuples(st.sampled_from(BASE_REQUESTS).map(_encode), st.floats(0, 1)).map(
        lambda pair: pair[0][: int(len(pair[0]) * pair[1])]),
    st.sampled_from([b'{"id": 1, "type": "hello"}', b'{"type": "hello", "type": "act"}',
                     b'{"id": 2, "type": "act", "seed": Infinity}', b"[" * 5000]),
)
"""Request lines: mutated and intact real requests, arbitrary JSON, bytes, cut-off JSON."""


def expected_id(line: bytes):
    try:
        return request_id(parse_request(line))
    except SlagwerkError:
        return None


def check_answer(line: bytes, answer: dict) -> None:
    """One answer to one request line: the right id, one outcome, a legal action."""
    assert isinstance(answer, dict) and "id" in answer, answer
    assert answer["id"] == expected_id(line), (line[:200], answer)
    if "error" in answer:
        assert isinstance(answer["error"], str) and answer["error"], answer
        assert not answer["error"].startswith("internal error"), (line[:2000], answer)
        assert set(answer) == {"id", "error"}
        return
    request = parse_request(line)
    if request.get("type") == "act":
        assert set(answer) - {"stats"} == {"id", "action"}, answer
        view = request["view"]
        state = make_game(view["game"]).state_from_view(view)
        assert answer["action"] in state.legal_texts(view["seat"]), (request, answer)
    elif request.get("type") == "hello":
        assert answer["version"] == 1
    else:
        assert answer == {"id": answer["id"], "ok": True}


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(request_lines, min_size=1, max_size=8))
def test_fuzzed_lines_each_get_one_answer_and_the_bot_keeps_going(lines):
    lines = [line for line in lines if line.strip() and parse_type(line) != "quit"]
    good = BASE_REQUESTS[0]
    stream = b"".join(line + b"\n" for line in lines) + _encode(good) + b"\n"
    out = io.StringIO()
    assert serve_lines(io.BytesIO(stream), out, FUZZ_LIMITS) == 0
    answers = [json.loads(text) for text in out.getvalue().splitlines()]
    assert len(answers) == len(lines) + 1
    for line, answer in zip(lines, answers):
        check_answer(line, answer)
    assert answers[-1]["id"] == good["id"] and "action" in answers[-1]


def parse_type(line: bytes):
    try:
        request = parse_request(line)
    except SlagwerkError:
        return None
    return request.get("type") if isinstance(request, dict) else None
