"""The parameter space of a tuning run: ``--param`` texts checked against an agent.

Each tuned parameter is a :class:`Dimension` mapped onto ``[0, 1]`` (linearly
or, with ``:log``, logarithmically); the optimisers only ever see unit
coordinates. Fixed parameters (``name=value``) are played as given.

>>> space = parse_space("heuristic", [])
Traceback (most recent call last):
...
slagwerk.errors.SpecError: nothing to tune: give at least one range like --param c=0.1:3.0
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ...agents.base import ParamSpec
from ...agents.registry import agent_class
from ...errors import SpecError

_PARAM = re.compile(r"\s*(?P<name>[^=\s]+)\s*=\s*(?P<value>[^:\s]+)\s*"
                    r"(?::\s*(?P<high>[^:\s]+)\s*(?::\s*(?P<log>log)\s*)?)?", re.IGNORECASE)
"""``--param name=value``, ``name=lo:hi`` or ``name=lo:hi:log``."""

SIGNIFICANT_DIGITS = 4
"""Floats are played (and logged) rounded to this many significant digits."""


@dataclass(frozen=True)
class Dimension:
    """One tuned parameter: its inclusive range, type and scale.

    >>> d = Dimension("c", 0.1, 3.0, integer=False, log=True)
    >>> d.from_unit(0.0), d.from_unit(1.0), round(d.to_unit(d.from_unit(0.5)), 3)
    (0.1, 3.0, 0.5)
    >>> Dimension("iterations", 10, 20, integer=True).from_unit(0.52)
    15
    """

    name: str
    low: float
    high: float
    integer: bool = False
    log: bool = False

    def to_unit(self, value) -> float:
        """``value``'s place in ``[0, 1]`` (clipped to the range)."""
        value = min(max(float(value), self.low), self.high)
        if self.log:
            return (math.log(value) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        return (value - self.low) / (self.high - self.low)

    def from_unit(self, u: float):
        """The parameter value at unit coordinate ``u`` (clipped), as played."""
        u = min(max(float(u), 0.0), 1.0)
        if self.log:
            value = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        else:
            value = self.low + u * (self.high - self.low)
        if self.integer:
            return int(min(max(round(value), self.low), self.high))
        return float(min(max(float(f"{value:.{SIGNIFICANT_DIGITS}g}"), self.low), self.high))

    @property
    def n_values(self) -> int | None:
        """How many values an integer dimension has (``None`` for a float one)."""
        return int(self.high - self.low) + 1 if self.integer else None

    def unit_values(self, max_values: int = 64) -> np.ndarray:
        """Unit coordinates of the distinct values a discrete search may try.

        Every integer of an integer range when there are at most ``max_values``
        of them, otherwise (and for floats) ``max_values`` evenly spaced points
        (duplicates after rounding removed).
        """
        if self.integer and self.n_values <= max_values:
            values = range(int(self.low), int(self.high) + 1)
        else:
            values = [self.from_unit(u) for u in np.linspace(0.0, 1.0, max_values)]
        return np.array(sorted({self.to_unit(v) for v in values}))

    def describe(self) -> str:
        kind = "int" if self.integer else "float"
        return f"{self.name}={_fmt(self.low)}:{_fmt(self.high)}{':log' if self.log else ''} ({kind})"


@dataclass(frozen=True)
class Space:
    """The tuned dimensions and the fixed parameters of one agent."""

    agent: str
    dims: tuple[Dimension, ...]
    fixed: dict = field(default_factory=dict)
    defaults: dict = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dims)

    @property
    def all_integer(self) -> bool:
        return all(d.integer for d in self.dims)

    def params(self, unit) -> dict:
        """The tuned parameters' values at unit point ``unit``."""
        return {d.name: d.from_unit(u) for d, u in zip(self.dims, np.asarray(unit, dtype=float))}

    def unit(self, params: dict) -> np.ndarray:
        """The unit point of tuned parameter values ``params``."""
        return np.array([d.to_unit(params[d.name]) for d in self.dims], dtype=float)

    def start(self) -> np.ndarray:
        """The agent's defaults as a unit point (the range's middle where a default lies outside)."""
        point = []
        for d in self.dims:
            default = self.defaults[d.name]
            point.append(d.to_unit(default) if d.low <= default <= d.high else 0.5)
        return np.array(point, dtype=float)

    def spec(self, tuned: dict | None = None) -> str:
        """The agent spec text with the fixed and the ``tuned`` parameters.

        With ``tuned=None`` the tuned parameters keep the agent's defaults: the
        baseline a tuned setting must beat.
        """
        params = dict(self.fixed)
        params.update(tuned or {})
        if not params:
            return self.agent
        return self.agent + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in params.items())

    def describe(self) -> str:
        parts = [d.describe() for d in self.dims]
        parts += [f"{k}={_fmt(v)} (fixed)" for k, v in self.fixed.items()]
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {
            "agent": self.agent,
            "dims": [
                {"name": d.name, "low": d.low, "high": d.high, "integer": d.integer, "log": d.log}
                for d in self.dims
            ],
            "fixed": dict(self.fixed),
        }


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.{SIGNIFICANT_DIGITS + 2}g}"
    return str(value)


def parse_space(agent: str, param_texts: list[str]) -> Space:
    """The space of ``--param`` texts for ``agent``, checked against its :class:`ParamSpec`.

    ``name=lo:hi`` tunes a float or integer parameter over ``[lo, hi]``,
    ``name=lo:hi:log`` on a logarithmic scale; ``name=value`` fixes it.

    :raises SpecError: for an unknown agent or parameter, a parameter given
        twice, a bad value or range (``lo >= hi``, outside the parameter's own
        range, ``log`` with ``lo <= 0``, a range on a non-numeric parameter),
        or when nothing is tuned.
    """
    cls = agent_class(agent)
    specs: dict[str, ParamSpec] = cls.params
    dims: list[Dimension] = []
    fixed: dict = {}
    seen: set[str] = set()
    for text in param_texts:
        match = _PARAM.fullmatch(str(text))
        if match is None:
            raise SpecError(f"--param {text!r} is not name=lo:hi, name=lo:hi:log or name=value")
        name, value = match["name"], match["value"]
        cls.checked({name: value})  # an unknown parameter, or a bad value or low end
        if name in seen:
            raise SpecError(f"--param {name!r} is given twice")
        seen.add(name)
        if match["high"] is None:
            fixed[name] = specs[name].convert(agent, name, value)
        else:
            dims.append(_range(agent, name, match, specs[name]))
    if not dims:
        raise SpecError("nothing to tune: give at least one range like --param c=0.1:3.0")
    defaults = {d.name: specs[d.name].default for d in dims}
    return Space(agent, tuple(dims), fixed, defaults)


def _range(agent: str, name: str, match, spec: ParamSpec) -> Dimension:
    if spec.kind not in (int, float) or spec.choices:
        raise SpecError(
            f"{agent} parameter {name!r} is a {spec.kind.__name__}"
            f"{' with choices' if spec.choices else ''}; only numbers can be tuned over a range"
        )
    low, high = (spec.convert(agent, name, end) for end in (match["value"], match["high"]))
    log = match["log"] is not None
    if not low < high or (log and low <= 0):
        raise SpecError(f"--param {match.group(0).strip()!r}: a range's low end must be below its high end, "
                        f"and a log range's above 0")
    return Dimension(name, low, high, integer=spec.kind is int, log=log)
