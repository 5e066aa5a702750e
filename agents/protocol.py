"""The bot protocol (docs/protocol.md, **Contract**): requests and answers as JSON objects.

Both transports use this module: ``slagwerk bot`` reads one request per line
on standard input (:mod:`slagwerk.agents.stdio`) and ``slagwerk serve`` takes
the same requests as HTTP bodies (:mod:`slagwerk.agents.http`). Here a
request is handled as a pure function from the parsed object to the answer
object, so both transports answer every request identically.

Requests have a ``type``:

- ``hello``: the protocol version, the games with their options, the agents
  with their parameters, and the server's limits;
- ``act``: ``game``, ``agent`` (a spec such as ``ismcts:iterations=2000``),
  ``view`` (the seat's JSON view), optional ``seed``, ``stats`` and the
  budgets ``iterations`` / ``time_ms``; the answer carries ``action``;
- ``quit``: the stdio bot answers and stops.

Every answer carries the request's ``id``; a failure is ``{"id": ..., "error":
"..."}`` with ``"id": null`` when the request had no readable id. The bot
keeps no state between requests: the view carries everything the seat knows.

>>> from slagwerk.engine import make_game
>>> state = make_game("coins").new_match(seed=1)
>>> request = {"id": 7, "type": "act", "game": "coins", "agent": "heuristic",
...            "view": state.view(state.to_move)}
>>> answer = handle(request)
>>> answer["id"], answer["action"] in state.legal_texts()
(7, True)
>>> bad = {"id": 8, "type": "act", "game": "chess", "agent": "random", "view": {}}
>>> handle(bad)["error"]  # doctest: +ELLIPSIS
"unknown game 'chess' (games: coins, ...)"
"""

from __future__ import annotations

import functools
import json
import math
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__, json_check
from ..engine import GAMES, make_game, strict_json
from ..engine.cards import RANK_NAMES, SUIT_NAMES
from ..engine.registry import game_info
from ..engine.replay import check_history
from ..engine.strict_json import StrictJSONError
from ..errors import IllegalActionError, InvalidViewError, SlagwerkError, SpecError, brief
from .limits import Limits
from .registry import AGENTS, make, view_agent_class
from .warmup import ensure_compiled

PROTOCOL = "slagwerk-bot"
PROTOCOL_VERSION = 1
"""Raised only for incompatible changes; new optional fields keep the version."""

REQUEST_TYPES = ("hello", "act", "warm", "quit")
SCHEMA_FILE = Path(__file__).with_name("protocol.schema.json")

BUDGET_FIELDS = ("iterations", "time_ms")
"""Per-request budgets; each sets the agent parameter of the same name."""

MAX_ID_CHARS = 200
"""The longest text ``id`` an answer carries back (agents/messages.py's ``RequestId``)."""


class ProtocolError(SlagwerkError):
    """A request is malformed: not JSON, not an object, a missing, unknown or bad field."""


@dataclass(frozen=True)
class Defaults:
    """Values used when an ``act`` request leaves out ``game`` or ``agent``
    (``slagwerk bot --game G --agent SPEC``), and the server's parameter sets
    (``--params NAME=FILE``, loaded at start by
    :func:`~slagwerk.agents.registry.load_parameter_sets`) that a spec names
    as ``params=NAME``."""

    game: str | None = None
    agent: str | None = None
    parameter_sets: Mapping[str, tuple] = field(default_factory=dict)


DEFAULT_LIMITS = Limits()
NO_DEFAULTS = Defaults()


# ---------------------------------------------------------------- parsing


def parse_request(text: str | bytes):
    """The JSON value of one request text; :class:`ProtocolError` if it is not JSON.

    Stricter than :func:`json.loads`: ``NaN`` and ``Infinity`` and an object
    that repeats a key are errors, so every accepted request means one thing.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ProtocolError(f"the request is not UTF-8 text: {err.reason} at byte {err.start}") from None
    try:
        return strict_json.loads(text)
    except StrictJSONError as err:
        reason = str(err)
        if reason.startswith("not JSON"):
            raise ProtocolError(f"the request is {reason}") from None
        raise ProtocolError(f"the request is not JSON this bot accepts: {reason}") from None


def request_id(request):
    """The request's ``id`` if it is readable (an integer or short text), else ``None``."""
    if not isinstance(request, dict):
        return None
    rid = request.get("id")
    if isinstance(rid, bool):
        return None
    if isinstance(rid, int) or (isinstance(rid, str) and len(rid) <= MAX_ID_CHARS):
        return rid
    return None


def error_answer(rid, message: str) -> dict:
    return {"id": rid, "error": str(message)}


# --------------------------------------------------------------- handling


def handle(request, limits: Limits = DEFAULT_LIMITS, defaults: Defaults = NO_DEFAULTS) -> dict:
    """The answer to one parsed request; never raises for bad input.

    Input errors become ``{"id": ..., "error": ...}``. An unexpected exception
    (a bug, in an agent or elsewhere) is logged to standard error with its
    traceback and also answered as an error, so the server keeps running.
    """
    rid = request_id(request)
    try:
        kind = _check_request(request)
        if kind == "hello":
            return {"id": rid, **hello(limits, defaults)}
        if kind == "quit":
            return {"id": rid, "ok": True}
        if kind == "warm":
            return {"id": rid, **warm(request, limits, defaults)}
        return {"id": rid, **act(request, limits, defaults)}
    except SlagwerkError as err:
        return error_answer(rid, str(err))
    except Exception as err:  # a bug must not take the server down
        print(f"slagwerk bot: internal error on request id {rid!r}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return error_answer(rid, f"internal error: {type(err).__name__}: {err}")
    except SystemExit as err:  # nor a plugin agent that calls exit()
        print(f"slagwerk bot: an agent called exit() on request id {rid!r}:", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return error_answer(rid, f"internal error: the agent called exit({brief(err.code)})")


def _check_request(request) -> str:
    """The request's type, once it is checked against its schema (agents/messages.py)."""
    if not isinstance(request, dict):
        raise ProtocolError(f"a request is a JSON object, not {json_type(request)}")
    if "type" not in request:
        raise ProtocolError(f"a request needs the field 'type' (one of: {', '.join(REQUEST_TYPES)})")
    kind = request["type"]
    if not isinstance(kind, str) or kind not in REQUEST_TYPES:
        raise ProtocolError(f"unknown request type {short_repr(kind)} (types: {', '.join(REQUEST_TYPES)})")
    json_check.check(request, schemas()["requests"][kind], what=f"a {kind!r} request", error=ProtocolError)
    return kind


@functools.cache
def schemas() -> dict:
    """The protocol's JSON Schemas (made from agents/messages.py's models; a file of the package)."""
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def hello(limits: Limits = DEFAULT_LIMITS, defaults: Defaults = NO_DEFAULTS) -> dict:
    """The ``hello`` answer (without ``id``): version, games, agents, parameter sets, limits."""
    games = {}
    for name, cls in GAMES.items():
        game = make_game(name)
        info = game_info(name)
        games[name] = {
            "title": info.title,
            "summary": info.summary,
            "rules": info.rules,
            "players": game.n_players,
            "team_game": info.team_game,
            "deck": {"family": game.deck.family, "suits": game.deck.suits, "ranks": game.deck.ranks,
                     "suit_names": SUIT_NAMES[game.deck.family], "rank_names": RANK_NAMES[game.deck.family]},
            "totals": info.totals,
            "suit_cycle": info.suit_cycle,
            "options": {
                key: {"default": spec.default, "min": spec.low, "max": spec.high, "doc": spec.doc}
                for key, spec in cls.option_specs.items()
            },
        }
    agents = {}
    for name, cls in sorted(AGENTS.items()):
        if cls.cheating:  # sees the true state: it cannot play from a view
            continue
        agents[name] = {
            "description": cls.description,
            "params": {key: _param_json(spec) for key, spec in cls.params.items()},
            "budgets": [b for b in BUDGET_FIELDS if b in cls.params],
        }
    return {
        "protocol": PROTOCOL,
        "version": PROTOCOL_VERSION,
        "slagwerk": __version__,
        "games": games,
        "agents": agents,
        "parameter_sets": {name: {"agent": agent}
                           for name, (agent, _) in sorted(defaults.parameter_sets.items())},
        "limits": limits.describe(),
    }


def _param_json(spec) -> dict:
    out = {"type": spec.kind.__name__, "default": _jsonable(spec.default), "doc": spec.doc}
    if spec.low is not None:
        out["min"] = _jsonable(spec.low)
    if spec.high is not None:
        out["max"] = _jsonable(spec.high)
    if spec.choices:
        out["choices"] = [_jsonable(c) for c in spec.choices]
    return out


def act(request: dict, limits: Limits = DEFAULT_LIMITS, defaults: Defaults = NO_DEFAULTS) -> dict:
    """The ``act`` answer (without ``id``): ``action`` and, if asked, ``stats``.

    The view is checked by the game (``state_from_view``), and so is its
    history against the rest of it (``check_history``); its legal actions,
    when given, must be the rules' legal actions for that seat. The agent's
    answer is checked to be legal before it is returned.
    """
    view = request["view"]  # the request's schema has checked every field's type and range
    # An absent game or agent falls back to the server's default (and the game to the view's).
    game_name = request.get("game", defaults.game or view.get("game"))
    if not isinstance(game_name, str):
        raise ProtocolError("an 'act' request needs the field 'game'")
    spec = request.get("agent", defaults.agent)
    if spec is None:
        raise ProtocolError("an 'act' request needs the field 'agent'")
    seed = request.get("seed", 0)
    want_stats = request.get("stats", False)

    game = make_game(game_name)
    compiled(game.name)
    state = game.state_from_view(view, seed=0)
    game = state.game  # built with the view's options
    seat = view["seat"]
    if view["to_move"] != seat:
        mover = "nobody" if view["to_move"] is None else f"seat {view['to_move']}"
        raise InvalidViewError(f"seat {seat} is not to move in this view ({mover} is)")
    check_history(state, view)
    legal = state.legal_texts(seat)
    if not legal:
        raise InvalidViewError(f"seat {seat} has no legal action in this view")
    if "legal_actions" in view and not _same_actions(view["legal_actions"], legal):
        raise InvalidViewError(
            f"the view's legal_actions {short_repr(view['legal_actions'])} are not the rules' "
            f"legal actions for seat {seat}: {legal}"
        )

    agent = _make_agent(spec, game, seed, request, limits, defaults)
    decision = agent.decide({**view, "legal_actions": legal})
    action = _legal_answer(agent, state, seat, decision.action, legal)
    answer = {"action": action}
    if want_stats:
        answer["stats"] = _jsonable(decision.stats)
    return answer


def _make_agent(spec: str, game, seed: int, request: dict, limits: Limits, defaults: Defaults):
    cls = view_agent_class(spec)
    name = cls.name
    budgets = {key: request[key] for key in BUDGET_FIELDS if key in request}
    for key in budgets:
        if key not in cls.params:
            have = ", ".join(b for b in BUDGET_FIELDS if b in cls.params) or "none"
            raise SpecError(f"agent {name!r} takes no {key!r} budget (its budgets: {have})")
    agent = make(spec, game, seed=seed, parameter_sets=defaults.parameter_sets, **budgets)
    limits.check(agent)  # every cap, before any work starts
    return agent


def _legal_answer(agent, state, seat: int, text, legal: list[str]) -> str:
    """The agent's action in the seat's own notation; an error if it is not legal."""
    if text in legal:
        return text
    try:
        action = state.game.parse_action(state, text)
    except SlagwerkError:
        raise IllegalActionError(
            f"agent {agent.name!r} answered {short_repr(text)}, which is not legal here (legal: {legal})"
        ) from None
    # A record-style text may name a card the seat cannot see; answer in its notation.
    return state.game.action_text(state, action, seat)


def _same_actions(given, legal: list[str]) -> bool:
    if not isinstance(given, list) or not all(isinstance(a, str) for a in given):
        return False
    return sorted(given) == sorted(legal)


def json_type(value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def short_repr(value, limit: int = 80) -> str:
    """``repr`` of a (possibly huge or deeply nested) input value, cut to ``limit`` characters."""
    return brief(value, limit)


def _jsonable(value):
    """``value`` with numpy scalars and arrays turned into plain JSON values."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_jsonable(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def encode(answer: dict) -> str:
    """One answer as a single line of JSON (no newline)."""
    return json.dumps(answer, separators=(", ", ": "), allow_nan=False)


def check_settings(limits: Limits, defaults: Defaults = NO_DEFAULTS) -> None:
    """:class:`SpecError` if a server's own settings break its limits: the default
    agent and every parameter set that names its agent are built and checked
    at start, so that a bad command line fails there and not in requests."""
    game = make_game(defaults.game if defaults.game in GAMES else next(iter(GAMES)))
    specs = [f"{agent}:params={name}" for name, (agent, _) in defaults.parameter_sets.items() if agent]
    if defaults.agent:
        specs.append(defaults.agent)
    for spec in specs:
        limits.check(make(spec, game, parameter_sets=defaults.parameter_sets))


def warm(request: dict, limits: Limits = DEFAULT_LIMITS, defaults: Defaults = NO_DEFAULTS) -> dict:
    """The ``warm`` answer (without ``id``): the game's agents have each answered
    one small request, so its compiled code is loaded (or compiled) now rather
    than in the first ``act`` request's time."""
    game_name = request.get("game", defaults.game)
    if game_name is None:
        raise ProtocolError("a 'warm' request needs the field 'game'")
    if game_name not in GAMES:
        raise ProtocolError(f"unknown game {short_repr(game_name)} (games: {', '.join(GAMES)})")
    compiled(game_name)
    return {"warmed": game_name, "answered": warm_up(limits, [game_name])}


_COMPILED: set[str] = set()


def compiled(game_name: str) -> None:
    """Before this process first answers for ``game_name``: compile its kernels if the
    cache lacks them, saying so on standard error (a bot's answers own standard output)."""
    if game_name not in _COMPILED:
        ensure_compiled([game_name])
        _COMPILED.add(game_name)


def warm_up(limits: Limits = DEFAULT_LIMITS, games=None) -> int:
    """Answer one ``act`` request per game (of ``games``; ``None``: every game) and
    agent, so that the compiled kernels are loaded before the first real request
    (and its time limit) arrives.

    Agents with a budget get the smallest one. Returns the number of requests
    answered without error.
    """
    answered = 0
    for game_name in games or GAMES:
        state = make_game(game_name).new_match(seed=0)
        view = state.view(state.to_move)
        for agent_name, cls in AGENTS.items():
            if cls.cheating or cls.unavailable(game_name):
                continue
            request = {"type": "act", "game": game_name, "agent": agent_name, "view": view}
            for key in BUDGET_FIELDS:
                spec = cls.params.get(key)
                if spec is not None:
                    request[key] = max(1, int(spec.low or 1))
                    break
            if "action" in handle(request, limits):
                answered += 1
    return answered
