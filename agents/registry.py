"""The agent registry: every agent by name, and ``name:key=value`` specs.

>>> from slagwerk.engine import make_game
>>> from slagwerk.agents import make, parse_spec
>>> parse_spec("ismcts:iterations=2000,c=0.7")
('ismcts', {'iterations': '2000', 'c': '0.7'}, 'ismcts:iterations=2000,c=0.7')
>>> make("random", make_game("coins"), seed=1).name
'random'
"""

from __future__ import annotations

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
    which otherwise is the spec text itself.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SpecError(f"an agent spec is text like 'ismcts:iterations=2000', not {spec!r}")
    spec = spec.strip()
    name, _, rest = spec.partition(":")
    params: dict[str, str] = {}
    label = spec
    if rest:
        for item in rest.split(","):
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
    return name.strip(), params, label


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
