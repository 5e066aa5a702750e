"""The agent registry: every agent by name, and ``name:key=value`` specs.

>>> from slagwerk.engine import make_game
>>> from slagwerk.agents import make, parse_spec
>>> parse_spec("ismcts:iterations=2000,c=0.7")
('ismcts', {'iterations': '2000', 'c': '0.7'}, 'ismcts:iterations=2000,c=0.7')
>>> make("random", make_game("coins"), seed=1).name
'random'
"""

from __future__ import annotations

import difflib
import re
import sys

from .. import json_check
from ..engine import strict_json
from ..engine.game import Game
from ..engine.strict_json import StrictJSONError
from ..errors import SpecError
from ..safe_files import read_text
from .base import Agent
from .cfr import CFRAgent
from .net import NetAgent
from .openspiel import OpenSpielISMCTSAgent, OpenSpielMCTSAgent
from .search_agents import CheatAgent, ISMCTSAgent, PIMCAgent
from .simple import HeuristicAgent, RandomAgent
from .spec import PARTNER_SPLIT, AgentSpec

AGENTS: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "ismcts": ISMCTSAgent,
    "pimc": PIMCAgent,
    "cheat": CheatAgent,
    "net": NetAgent,  # a trained model: slagwerk ships one per game, slagwerk train makes more
    "cfr": CFRAgent,  # a small variant's solved policy (slagwerk experiment exploitability writes one)
    "openspiel-ismcts": OpenSpielISMCTSAgent,  # needs OpenSpiel (extra [openspiel])
    "openspiel-mcts": OpenSpielMCTSAgent,
}
"""Every agent class by name."""


def register(cls: type[Agent]) -> type[Agent]:
    """Add an agent class to the registry (usable as a decorator)."""
    AGENTS[cls.name] = cls
    return cls


MAX_PARAMS_FILE_BYTES = 1 << 20
"""The largest parameter file ``@FILE`` or ``--params NAME=FILE`` reads."""
_PARAMETER_SET = re.compile(r"\s*(?P<name>[A-Za-z0-9_][A-Za-z0-9_.\-]*)\s*=(?P<path>.+)", re.DOTALL)
"""``--params NAME=FILE``."""


def parse_spec(spec: str | AgentSpec) -> tuple[str, dict, str]:
    """``(name, params, label)`` of a spec (:meth:`AgentSpec.parse
    <slagwerk.agents.spec.AgentSpec.parse>`): values stay text, which :func:`make`
    converts. A spec names values only: no file is ever opened here (``@FILE``
    is a command-line convenience that :func:`resolve_spec_files` turns into
    values where a command starts)."""
    parsed = AgentSpec.parse(spec)
    return canonical_name(parsed.name), parsed.values, parsed.label


def canonical_name(name: str) -> str:
    """The registered agent ``name`` names in any case (``Heuristic``: ``heuristic``), else ``name``."""
    if name in AGENTS:
        return name
    return next((known for known in AGENTS if known.lower() == name.lower()), name)


def resolve_spec_files(spec: str, game=None, warn=None) -> str:
    """``spec`` with its ``@FILE`` item replaced by the file's parameters, as plain
    ``key=value`` items: what a command does once, where it starts, with the
    specs of its command line (never with a request's).

    ``ismcts:@best.json,iterations=5000`` loads a tuning run's ``best.json``
    (``{"agent": ..., "params": {...}}``) or a plain JSON object of parameters;
    the spec's own ``key=value`` items override the file's. A tournament entry
    ``A+B`` has each part resolved. A spec without ``@`` comes back unchanged,
    and the result never contains ``@``:

    >>> resolve_spec_files("ismcts:iterations=2000")
    'ismcts:iterations=2000'

    Parameters tuned in one game may be used in another (they are only numbers),
    but rarely on purpose: when ``game`` (a game's name, or the names of the
    games a command plays) is given and the file records a different game,
    ``warn(text)`` is told (by default, a line on stderr).
    """
    if not isinstance(spec, str) or "@" not in spec:
        return spec
    return "+".join(_resolve_part(part, game, warn) for part in PARTNER_SPLIT.split(spec.strip()))


def _resolve_part(spec: str, game, warn) -> str:
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    items = rest.split(",") if rest else []
    files = [item.strip()[1:] for item in items if item.strip().startswith("@")]
    if not files:
        parse_spec(spec)  # a stray '@' (not an item @FILE): the parser's one-line error
        return spec
    own = ",".join(item for item in items if not item.strip().startswith("@"))
    _, params, label = parse_spec(f"{name}:{own}" if own else name)
    resolved = {}
    for path in files:  # a later file overrides an earlier one, and the spec's own items all files
        resolved.update(load_params_file(path, name, game, warn)[1])
    resolved.update(params)
    # The files' schema (PARAMS_SCHEMA) keeps every name and value writable as a spec's item.
    text = ",".join(f"{key}={value}" for key, value in resolved.items())
    out = f"{name}:{text}" if text else name
    if label != (f"{name}:{own}" if own else name):
        out += f",label={label}" if text else f":label={label}"
    return out


PARAMS_SCHEMA = {
    "type": "object",
    "propertyNames": {"pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "x-rule": "a parameter's name"},
    "additionalProperties": {"anyOf": [
        {"type": "string", "pattern": "^(?:[^,@+=]|\\+(?![A-Za-z]))*$"}, {"type": ["number", "boolean"]}],
        "x-rule": "a number, true or false, or a text without ',', '@', '=' or '+' before a letter "
                  "(what a spec's key=value item can hold)"},
}
"""A parameter file: an object of parameter values, each one a spec's item could hold."""
BEST_FILE_SCHEMA = {"type": "object", "required": ["params"], "properties": {
    "agent": {"type": ["string", "null"]}, "params": PARAMS_SCHEMA}}
"""A tuning run's ``best.json``, read as a parameter file (its other fields are not read)."""

_WARNED: set[str] = set()
"""The parameter-file warnings this process has printed."""


def load_params_file(path: str, agent: str | None = None, game=None, warn=None,
                     schema: dict | None = None) -> tuple[str | None, dict[str, str]]:
    """``(agent, parameters)`` stored in JSON file ``path``, the values as text.

    The file is a tuning run's ``best.json`` (``{"agent": ..., "params":
    {...}}``; ``agent`` must then match ``agent`` when given) or a plain object
    of parameter values (its agent is ``None``). A ``best.json`` also records
    its game: when ``game`` (a name or several) names another, ``warn(text)`` is told
    (default: ``slagwerk: warning: ...`` on stderr). ``schema`` (JSON Schema) is
    what the parameters must also be, if given. For command lines only: a
    request never names a file.
    """
    where = f"parameter file {path!r}"
    try:
        data = strict_json.loads(read_text(path, MAX_PARAMS_FILE_BYTES, SpecError, kind="parameters as JSON"))
        best = isinstance(data, dict) and "params" in data
        json_check.check(data, BEST_FILE_SCHEMA if best else PARAMS_SCHEMA, what="the file")
        if schema is not None:
            json_check.check(data["params"] if best else data, schema, what="the file")
    except (StrictJSONError, json_check.SchemaMismatch) as err:
        raise SpecError(f"{where}: {err}") from None
    stored = None
    if best:
        stored = data.get("agent")
        if agent is not None and stored is not None and stored != agent:
            raise SpecError(f"{where} holds parameters of {stored!r}, not {agent!r}")
        tuned_in = data.get("game")
        used_in = [game] if isinstance(game, str) else list(game or ())
        others = [name for name in used_in if str(name).lower() != str(tuned_in).lower()]
        text = (f"{where} was tuned in {tuned_in[:40]!r}; it is used here in "
                f"{', '.join(repr(name) for name in others)}") if isinstance(tuned_in, str) and others else ""
        if text and warn is not None:
            warn(text)
        elif text and text not in _WARNED:  # once a process (one file may fill every seat)
            _WARNED.add(text)
            print(f"slagwerk: warning: {text}", file=sys.stderr)
        data = data["params"]
    return stored, {str(k): str(v) for k, v in data.items()}


def load_parameter_sets(items) -> dict[str, tuple[str | None, dict[str, str]]]:
    """The parameter sets of ``--params NAME=FILE`` options, each file read once:
    NAME maps to ``(agent, parameters)`` (see :func:`load_params_file`).
    Requests use one as ``AGENT:params=NAME``. A set that names its agent has
    its parameters checked now, so that a bad file stops the server from
    starting rather than failing requests."""
    sets: dict[str, tuple[str | None, dict[str, str]]] = {}
    for item in items or ():
        match = _PARAMETER_SET.fullmatch(str(item))
        if match is None:
            raise SpecError(f"--params {item!r} is not NAME=FILE (NAME: letters, digits and _.- only)")
        name, path = match["name"], match["path"]
        if name in sets:
            raise SpecError(f"--params names the parameter set {name!r} twice")
        agent, params = load_params_file(path)
        if agent is not None:
            try:
                agent_class(agent).checked(params)
            except SpecError as err:
                raise SpecError(f"--params {name}: {err}") from None
        sets[name] = (agent, params)
    return sets


def spec_params(spec: str | AgentSpec, parameter_sets=None) -> tuple[str, dict, str]:
    """:func:`parse_spec`, with ``params=NAME`` replaced by the parameters of the
    server's parameter set NAME (``parameter_sets`` as from
    :func:`load_parameter_sets`); the spec's other items override the set's."""
    name, params, label = parse_spec(spec)
    if "params" in params and parameter_sets is not None:
        set_name = params.pop("params")
        agent, values = parameter_sets.get(set_name, (name, None))
        if values is None or agent not in (None, name):
            have = ", ".join(f"{key} (for {owner or 'any agent'})"
                             for key, (owner, _) in sorted(parameter_sets.items())) or "none"
            raise SpecError(f"this server has no parameter set {set_name[:40]!r} for agent {name!r} "
                            f"(sets: {have})")
        params = {**values, **params}
    return name, params, label


def agent_class(name: str) -> type[Agent]:
    try:
        return AGENTS[name]
    except KeyError:
        close = difflib.get_close_matches(name.lower(), sorted(AGENTS), n=1, cutoff=0.6)
        hint = f": did you mean {close[0]!r}?" if close else ""
        raise SpecError(f"unknown agent {name!r}{hint} (agents: {', '.join(sorted(AGENTS))})") from None


def view_agent_class(spec: str | AgentSpec) -> type[Agent]:
    """The class of the agent ``spec`` names, if it decides from a seat's view (what a bot
    request or the web page may ask for); :class:`SpecError` for one that needs the true
    state (``cheat``), which no view carries."""
    name, values, _ = parse_spec(spec)
    cls = agent_class(name)
    files = [key for key, value in values.items()
             if key in cls.params and cls.params[key].names_file and value != cls.params[key].default]
    if cls.cheating or files:
        why = (f"a request never names a file ({files[0]}= takes {cls.params[files[0]].default!r} here)"
               if files else "it decides from the true state, which a view does not carry (a measuring "
               "stick, not an opponent)")
        raise SpecError(f"agent {name!r} cannot answer here: {why}")
    return cls


def make(spec: str | AgentSpec, game: Game, seed: int = 0, *, parameter_sets=None, **params) -> Agent:
    """Build an agent from a name or spec, for ``game``, seeded with ``seed``.

    Keyword ``params`` override the spec's; ``parameter_sets`` (a server's,
    see :func:`spec_params`) gives ``params=NAME`` its meaning. Errors name
    the agent, the parameter and the valid choices.
    """
    name, values, label = spec_params(spec, parameter_sets)
    values.update(params)
    cls = agent_class(name)
    cls.checked(values)  # before the call: a key like 'seed' or 'game' would collide with its arguments
    agent = cls(game, seed=seed, **values)
    agent.label = label
    return agent
