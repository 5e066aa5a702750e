"""The protocol's messages: models, their shipped JSON Schemas, and the bot's fast check of them.

agents/messages.py describes every request and answer once; the package ships the
JSON Schemas it makes; the bot checks requests with slagwerk.json_check (which must
agree with the jsonschema library), and slagwerk's own answers fit the answer schemas.
"""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from slagwerk import json_check
from slagwerk.agents import messages
from slagwerk.agents.limits import Limits
from slagwerk.agents.protocol import handle, schemas
from slagwerk.engine import GAME_NAMES, make_game


def test_the_shipped_schemas_are_what_the_models_make():
    shipped = json.loads(messages.SCHEMA_FILE.read_text(encoding="utf-8"))
    assert shipped == messages.schemas(), (
        "agents/protocol.schema.json is out of date: python -m slagwerk.agents.messages")


def test_every_schema_is_valid_and_uses_only_what_the_fast_check_understands():
    for group in ("requests", "answers"):
        for kind, schema in schemas()[group].items():
            jsonschema.Draft202012Validator.check_schema(schema)
            assert json_check.unsupported(schema) == [], (group, kind)


def _view(game_name: str = "coins") -> dict:
    state = make_game(game_name).new_match(seed=3)
    return state.view(state.to_move)


GOOD_REQUESTS = [
    {"id": 1, "type": "hello"},
    {"type": "quit"},
    {"id": "w", "type": "warm", "game": "coins"},
    {"id": 2, "type": "act", "game": "coins", "agent": "heuristic", "view": _view(), "seed": 5,
     "stats": True},
    {"id": None, "type": "act", "agent": "ismcts", "view": _view(), "iterations": 10, "time_ms": 20},
]

_json_leaf = st.none() | st.booleans() | st.integers(-2**64, 2**64) | st.floats(allow_nan=False) | st.text(
    max_size=5) | st.just("x" * 201)
_json = st.recursive(_json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(max_size=4), inner, max_size=3), max_leaves=6)
_fields = st.sampled_from(["id", "type", "game", "agent", "view", "seed", "stats", "iterations", "time_ms",
                           "colour"])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(GOOD_REQUESTS))), st.lists(st.tuples(_fields, _json | st.just(None)),
                                                             max_size=3), st.lists(_fields, max_size=2))
def test_the_fast_check_agrees_with_jsonschema(index, changes, removed):
    """Good requests with fields changed, added and removed: the fast check accepts exactly
    what the jsonschema library accepts (except an integer written as a float, which it refuses)."""
    request = dict(GOOD_REQUESTS[index])
    for key, value in changes:
        request[key] = value
    for key in removed:
        request.pop(key, None)
    schema = schemas()["requests"][GOOD_REQUESTS[index]["type"]]
    library = jsonschema.Draft202012Validator(schema).is_valid(request)
    try:
        json_check.check(request, schema)
        ours = True
    except json_check.SchemaMismatch as err:
        ours = False
        assert "\n" not in str(err) and str(err)
    integral_floats = any(isinstance(v, float) and v.is_integer() for v in request.values())
    assert ours == library or (integral_floats and library and not ours), request


@pytest.mark.parametrize("request_", GOOD_REQUESTS)
def test_good_requests_fit_their_schema(request_):
    json_check.check(request_, schemas()["requests"][request_["type"]])


def _fits(kind: str, answer: dict) -> None:
    schema = schemas()["answers"][kind]
    jsonschema.validate(answer, schema)
    json_check.check(answer, schema)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_slagwerk_answers_fit_the_answer_schemas(game_name):
    limits = Limits(max_time_ms=1000)
    _fits("hello", handle({"id": 1, "type": "hello"}, limits))
    _fits("quit", handle({"id": 1, "type": "quit"}, limits))
    act = handle({"id": 1, "type": "act", "game": game_name, "agent": "ismcts", "iterations": 20,
                  "stats": True, "view": _view(game_name)}, limits)
    _fits("act", act)
    error = handle({"id": 1, "type": "act", "game": game_name, "agent": "nobody", "view": {}}, limits)
    _fits("error", error)


def test_a_rule_reads_as_words():
    assert json_check.rule({"type": "integer", "exclusiveMinimum": 0}) == "a positive integer"
    assert json_check.rule({"type": "number", "minimum": 0, "maximum": 1}) == "a number from 0 to 1"
    assert json_check.rule({"type": "string", "maxLength": 3}) == "a string of at most 3 characters"
    assert json_check.rule({"enum": ["a", "b"]}) == "one of 'a', 'b'"


def test_a_broken_answer_names_its_field():
    with pytest.raises(json_check.SchemaMismatch,
                       match="'limits.max_nodes' must be an integer of at least 2"):
        hello = handle({"id": 1, "type": "hello"})
        hello["limits"]["max_nodes"] = 1
        json_check.check(hello, schemas()["answers"]["hello"], what="its hello answer")
    with pytest.raises(json_check.SchemaMismatch, match="its hello answer needs the field 'games'"):
        json_check.check({"protocol": "slagwerk-bot", "version": 1}, schemas()["answers"]["hello"],
                         what="its hello answer")


def test_a_bot_checks_requests_without_loading_pydantic_or_jsonschema():
    """Each costs about 0.1 s of a warm bot's first answer (docs/design.md §8)."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from slagwerk.cli import main\n"
            "main(['bot', '--time-limit-ms', '0'])\n"
            "print([m for m in ('pydantic', 'jsonschema') if m in sys.modules], file=sys.stderr)\n")
    lines = [{"id": 1, "type": "act", "game": "coins", "agent": "heuristic", "view": _view()},
             {"id": 2, "type": "act"}]
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                          input="".join(json.dumps(line) + "\n" for line in lines))
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert "action" in answers[0] and "needs the field 'view'" in answers[1]["error"], done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr
