"""A curve experiment's own settings (``config.json``'s ``experiment``; the rest are its tournament's).

pydantic and the standard library only: ``slagwerk experiment --help`` builds its flags from here.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from ...settings import Settings, SettingsError, setting
from ..harness.config import Spec

KINDS = ("budget", "information")
"""The curve experiments; each writes ``<kind>.csv``, ``.json``, ``.md``, ``.png`` and ``.svg``."""
BY = ("iterations", "time")
"""What a budget counts: search iterations per decision, or milliseconds per decision."""

Budget = Annotated[int | float, Field(gt=0, allow_inf_nan=False)]


class CurveSettings(Settings):
    """What a curve experiment adds to a tournament: whose curves, at which budgets, against whom.

    ``agents``: the specs whose curves are drawn (``information``: the one
    search that sees its view); ``cheat``: the search that sees the true deal
    (``information`` only); ``opponents``: fixed entries that anchor the scale.
    """

    KIND: ClassVar[str] = "curve experiment"

    kind: Literal["budget", "information"] = setting(help="the experiment", flag=False)
    agents: tuple[Spec, ...] = setting(help="the agents whose curves are drawn", flag=False,
                                       given_as="--agent", min_length=1)
    budgets: tuple[Budget, ...] = setting(help="budgets per decision", flag=False, given_as="--budgets",
                                          min_length=1, rule="a list of numbers above 0")
    by: Literal["iterations", "time"] = setting(
        "iterations", "budgets count search iterations or milliseconds per decision")
    opponents: tuple[Spec, ...] = setting(
        ("heuristic",), "fixed entries that anchor the scale (none: only the curves' entries)",
        metavar="SPEC")
    cheat: Spec | None = setting(None, "the search that sees the true deal", flag=False,
                                 given_as="--cheat")

    @model_validator(mode="after")
    def _whole_iterations(self):
        if self.by == "iterations" and not all(float(b).is_integer() for b in self.budgets):
            shown = [int(b) if float(b).is_integer() else b for b in self.budgets]
            raise SettingsError(f"'budgets' must be whole numbers of iterations, not {shown!r}")
        return self
