"""The agent interface: ``agents.make(name, game, **params)`` and ``act(view)``.

An agent decides from a seat's JSON view only (docs/design.md §4, **Contract**): it
never sees the true state. Agents are stateless between decisions; every
random choice draws from a generator derived from the agent's seed and the
position in the view, so the same seed and view always give the same action.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from .. import json_check
from ..engine.bits import derive_seed, make_rng
from ..engine.game import Game, State
from ..errors import SpecError, brief
from .limits import CAPS


@dataclass(frozen=True)
class ParamSpec:
    """An agent parameter: its type, default, range (inclusive) and meaning.

    ``cap`` names the server limit (a field of
    :class:`~slagwerk.agents.protocol.Limits`, e.g. ``"max_iterations"``) that
    bounds this parameter in requests to ``slagwerk bot`` and ``slagwerk
    serve``: a parameter that sizes work or memory must name one.
    """

    kind: type
    default: Any
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()
    cap: str | None = None

    also: tuple = ()
    """Values allowed outside ``low``..``high`` (a weight's -1: "the game's own")."""
    names_file: bool = False
    """The value may be a file's path, which only a command line gives: a bot request or the
    web page gives the parameter's default only (:func:`~slagwerk.agents.registry.view_agent_class`)."""

    def __post_init__(self):
        if self.cap is not None and self.cap not in CAPS:  # an agent's own mistake: said at its import
            raise TypeError(f"a parameter's cap is one of {', '.join(CAPS)}, not {self.cap!r}")

    def schema(self) -> dict:
        """The values this parameter takes, as JSON Schema."""
        if self.choices:
            kind = {"enum": list(self.choices)}
        else:
            kind = {"type": _JSON_TYPES[self.kind]}
            kind.update({key: bound for key, bound in (("minimum", self.low), ("maximum", self.high))
                         if bound is not None})
        return {"anyOf": [*({"const": value} for value in self.also), kind]} if self.also else kind

    def convert(self, agent: str, name: str, value):
        """``value`` (text or Python) as this parameter's type; :class:`SpecError` naming the
        agent, the parameter, the value and the rule if it is not one of the parameter's values."""
        try:
            converted = _CONVERT[self.kind](value)
        except (TypeError, ValueError, OverflowError):
            converted = value  # as it was given: the check below names the type it should be
        try:
            json_check.check(converted, self.schema())
        except json_check.SchemaMismatch:
            raise SpecError(f"{agent} parameter {name}={value!r} must be {json_check.rule(self.schema())}"
                            ) from None
        return converted


def _to_bool(value) -> bool:
    if isinstance(value, str):
        return {"true": True, "false": False, "1": True, "0": False}[value.lower()]
    if isinstance(value, (bool, int)) and value in (0, 1):
        return bool(value)
    raise ValueError(value)


def _to_int(value) -> int:
    if isinstance(value, float) and not value.is_integer() or isinstance(value, bool):
        raise ValueError(value)
    return int(float(value)) if isinstance(value, str) and "e" in value.lower() else int(value)


def _to_float(value) -> float:
    number = float(value)
    if not math.isfinite(number) or isinstance(value, bool):  # nan would pass every range check
        raise ValueError(value)
    return number


_CONVERT = {bool: _to_bool, int: _to_int, float: _to_float, str: str}
_JSON_TYPES = {bool: "boolean", int: "integer", float: "number", str: "string"}


@dataclass
class Decision:
    """An agent's answer: the action in notation and optional search statistics."""

    action: str
    stats: dict = field(default_factory=dict)


class Agent:
    """Base class. Subclasses set ``name``, ``params`` and implement :meth:`decide`."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    params: ClassVar[dict[str, ParamSpec]] = {}
    cheating: ClassVar[bool] = False

    @classmethod
    def unavailable(cls, game_name: str) -> str | None:
        """Why this agent cannot play ``game_name`` with its defaults here (an optional library
        that is not installed, no shipped model), or ``None`` if it can."""
        return None

    def __init__(self, game: Game, seed: int = 0, **params):
        self.game = game
        self.seed = int(seed)
        self.config = {k: spec.default for k, spec in self.params.items()} | self.checked(params)

    @classmethod
    def checked(cls, params: dict) -> dict:
        """``params`` (text or Python values) converted to the parameters' types;
        :class:`SpecError` naming an unknown parameter or a bad value."""
        unknown = sorted(set(params) - set(cls.params))
        if unknown:
            valid = ", ".join(sorted(cls.params)) or "none"
            raise SpecError(f"unknown parameter {unknown[0]!r} for agent {cls.name!r} (parameters: {valid})")
        return {key: cls.params[key].convert(cls.name, key, value) for key, value in params.items()}

    def __repr__(self):
        opts = ",".join(f"{k}={v}" for k, v in self.config.items())
        return f"{self.name}({opts})" if opts else self.name

    def resource_use(self) -> list[tuple[str, Any, str]]:
        """What this agent's settings ask of a server: ``(what, amount, limit)`` for
        every parameter with a ``cap``, ``limit`` naming the
        :class:`~slagwerk.agents.protocol.Limits` field the amount may not exceed."""
        return [(key, self.config[key], spec.cap) for key, spec in self.params.items() if spec.cap]

    def act(self, view: dict) -> str:
        """The action (notation) this agent plays from ``view``.

        :raises TypeError: if :meth:`decide` (a plugin's, say) returned no :class:`Decision`.
        """
        decision = self.decide(view)
        if not isinstance(decision, Decision):
            raise TypeError(f"agent {self.name!r} returned {brief(decision)} from decide(), "
                            f"not a Decision: return Decision(action)")
        return decision.action

    def decide(self, view: dict) -> Decision:
        """The action and search statistics for ``view`` (subclasses implement)."""
        raise TypeError(f"agent {self.name!r} does not decide from views")

    def decide_true_state(self, state: State) -> Decision:
        """Only for ``cheating`` agents (measurement): decide from the true state."""
        raise TypeError(f"agent {self.name!r} is not a cheating agent; give it a view")

    # -- helpers for subclasses
    def decision_seed(self, view: dict) -> int:
        """A seed for this decision: the agent's seed and the position's place in the match."""
        return derive_seed(
            self.seed, view.get("deal_number", 0), len(view.get("history", [])), view.get("seat", 0)
        )

    def decision_rng(self, view: dict) -> np.ndarray:
        return make_rng(self.decision_seed(view))

    def state_for(self, view: dict) -> State:
        """A state consistent with ``view`` (hidden cards dealt at random)."""
        return self.game.state_from_view(view, seed=self.decision_seed(view))
