"""The agent registry: every agent by name, and ``name:key=value`` specs.

>>> from slagwerk.engine import make_game
>>> from slagwerk.agents import make, parse_spec
>>> parse_spec("ismcts:iterations=2000,c=0.7")
('ismcts', {'iterations': '2000', 'c': '0.7'}, 'ismcts:iterations=2000,c=0.7')
>>> make("random", make_game("coins"), seed=1).name
'random'
"""

from __future__ import annotations

import json

from ..engine.errors import SpecError
from ..engine.game import Game
from .base import Agent
from .search_agents import CheatAgent, ISMCTSAgent, PIMCAgent
from .simple import HeuristicAgent, RandomAgent

AGENTS: dict[str, type[Agent]] = {
    "random": RandomAgent,
    "heuristic": HeuristicAgent,
    "ismcts": ISMCTSAgent,
    "pimc": PIMCAgent,
    "cheat": CheatAgent,
}
"""Every agent class by name."""


def register(cls: type[Agent]) -> type[Agent]:
    """Add an agent class to the registry (usable as a decorator)."""
    AGENTS[cls.name] = cls
    return cls


def parse_spec(spec: str) -> tuple[str, dict, str]:
    """Split ``name`` or ``name:key=value,key=value`` into (name, params, label).

    Values stay text; :func:`make` converts them. ``label=...`` sets the label,
    which otherwise is the spec text itself. An item ``@FILE`` loads parameters
    from a JSON file: a tuning run's ``best.json`` (``{"agent": ..., "params":
    {...}}``) or a plain object of parameters; ``key=value`` items override them
    (``ismcts:@best.json,iterations=5000``).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"an agent spec is text like 'ismcts:iterations=2000', not {spec!r}")
    spec = spec.strip()
    name, _, rest = spec.partition(":")
    params: dict[str, str] = {}
    label = spec
    if rest:
        loaded: dict[str, str] = {}
        for item in rest.split(","):
            if item.strip().startswith("@"):
                if loaded:
                    raise SpecError(f"agent spec {spec!r} loads parameters from two files")
                loaded = _params_from_file(spec, name.strip(), item.strip()[1:])
                continue
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise SpecError(f"agent spec {spec!r}: {item!r} is not key=value")
            key = key.strip()
            if key in params or (key == "label" and label != spec):
                raise SpecError(f"agent spec {spec!r} sets {key!r} twice")
            if key == "label":
                label = value.strip()
            else:
                params[key] = value.strip()
        params = {**loaded, **params}
    return name.strip(), params, label


def _params_from_file(spec: str, agent: str, path: str) -> dict[str, str]:
    """The parameters stored in JSON file ``path`` (see :func:`parse_spec`), as text."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise SpecError(f"agent spec {spec!r}: cannot read {path!r}: {err.strerror or err}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise SpecError(f"agent spec {spec!r}: {path!r} is not JSON: {err}") from None
    if isinstance(data, dict) and "params" in data:
        if data.get("agent", agent) != agent:
            raise SpecError(f"agent spec {spec!r}: {path!r} holds parameters of {data['agent']!r}, "
                            f"not {agent!r}")
        data = data["params"]
    if not isinstance(data, dict) or not all(
            isinstance(v, (str, int, float, bool)) for v in data.values()):
        raise SpecError(f"agent spec {spec!r}: {path!r} must hold an object of parameter values "
                        f"(or a tuning run's best.json)")
    return {str(k): str(v) for k, v in data.items()}


def agent_class(name: str) -> type[Agent]:
    try:
        return AGENTS[name]
    except KeyError:
        raise SpecError(f"unknown agent {name!r} (agents: {', '.join(sorted(AGENTS))})") from None


def make(spec: str, game: Game, seed: int = 0, **params) -> Agent:
    """Build an agent from a name or spec, for ``game``, seeded with ``seed``.

    Keyword ``params`` override the spec's. Errors name the agent, the
    parameter and the valid choices.
    """
    name, spec_params, label = parse_spec(spec)
    spec_params.update(params)
    agent = agent_class(name)(game, seed=seed, **spec_params)
    agent.label = label
    return agent
