"""A tuning run's settings: one model, from which ``slagwerk tune``'s flags, its ``config.json``
and its resume check come (pydantic and the standard library only: the tuner loads when a method
needs it)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ...settings import redefault, setting
from ..harness.config import MatchSettings, Spec, SprtTest
from ..harness.defaults import MAX_GROUPS, MAX_TUNING_GAMES, VERSION_KEY

METHODS = ("auto", "spsa", "gp")
"""``auto`` picks ``gp`` when every tuned parameter is an integer, else ``spsa``."""
SPSA_GROUPS = 4
"""Default duplicate groups per SPSA evaluation: many cheap, paired iterations beat few precise ones."""
GP_GROUPS = 8
"""Least duplicate groups per GP evaluation by default."""
DEFAULT_ELO1 = 20.0
"""Default SPRT alternative for the confirmation, in Elo."""
DEFAULT_MAX_GROUPS = 1000
"""Default most duplicate groups of the confirmation SPRT."""
GP_TARGET_EVALUATIONS = 60
"""The GP's default group count aims at about this many evaluations."""


@dataclass(frozen=True)
class Plan:
    """A checked run: ``evaluations`` of ``groups`` groups (``games`` games each) by ``method``."""

    method: str
    groups: int
    games: int
    evaluations: int
    space: Any
    """The tuned parameters (:class:`.space.Space`)."""

    def as_json(self) -> dict:
        return {"method": self.method, "groups": self.groups, "games_per_evaluation": self.games,
                "evaluations": self.evaluations, "space": self.space.describe()}


class TuneConfig(MatchSettings, SprtTest):
    """A tuning run's settings, stored in its results folder as ``config.json`` (the model's dump).

    ``params`` are ``--param`` texts (``c=0.1:3.0``, ``c=0.1:3.0:log``,
    ``iterations=500``); ``budget`` counts the games of the tuning itself (the
    confirmation plays up to ``max_groups`` further groups); ``groups``
    (duplicate groups per evaluation) defaults by method. The confirmation's
    SPRT settings are :class:`~..harness.config.SprtTest`'s.
    """

    KIND: ClassVar[str] = "tuning run"
    POSITIONAL: ClassVar[tuple[str, ...]] = ("game", "agent", "params", "opponents")
    STORED_EXTRA: ClassVar[tuple[str, ...]] = (VERSION_KEY, "bots")
    STORED_REQUIRED: ClassVar[tuple[str, ...]] = ("budget",)

    agent: Spec = setting(help="the agent to tune, e.g. ismcts")
    params: tuple[Spec, ...] = setting(
        help="a parameter to tune (c=0.1:3.0, c=0.05:5:log, iterations=100:2000) or to fix "
        "(iterations=500); repeatable", flag_name="--param", repeat=True, metavar="NAME=RANGE", min_length=1)
    opponents: tuple[Spec, ...] = setting(help="the opponent pool, e.g. heuristic ismcts:iterations=500",
                                          metavar="SPEC", min_length=1)
    budget: int = setting(help="games to play while tuning (not counting the SPRT)", ge=1,
                          le=MAX_TUNING_GAMES)
    method: Literal["auto", "spsa", "gp"] = setting(
        "auto", "spsa, gp, or auto: gp when every tuned parameter is an integer")
    groups: int | None = setting(
        None, "duplicate groups per evaluation", ge=1, le=MAX_GROUPS,
        default_text=f"{SPSA_GROUPS} for SPSA, at least {GP_GROUPS} for the GP search")
    confirm: bool = setting(True, "skip the SPRT against the defaults")
    move_time: float | None = redefault(MatchSettings, "move_time", None)
    elo1: float = redefault(SprtTest, "elo1", DEFAULT_ELO1)
    max_groups: int = redefault(SprtTest, "max_groups", DEFAULT_MAX_GROUPS)

    def space(self):
        from .space import parse_space

        return parse_space(self.agent, list(self.params))

    def default_spec(self) -> str:
        """The baseline: the agent with the fixed parameters and its defaults for the tuned ones."""
        return self.space().spec()

    def run_id(self) -> str:
        """The fingerprint (:func:`..results.run_id`) of the settings that decide the evaluations
        (all but the confirmation's), carried by each line of the log as ``run``."""
        from ..harness.results import run_id

        data = self.dump()
        for name in ("confirm", "elo0", "elo1", "alpha", "beta", "max_groups"):
            data.pop(name)
        return run_id(data)

    def dump(self) -> dict:
        """``config.json``: the settings (``game_time`` only where there is a clock, so that runs
        from before the clock keep their fingerprint) and the external bots' fingerprints."""
        from ...agents.external import fingerprints

        data = super().dump()
        if self.game_time is None:
            data.pop("game_time")
        bots = fingerprints([self.agent, *self.opponents])  # a name and a hash, never a command
        if bots:
            data["bots"] = bots
        return data

    def plan(self) -> Plan:
        """What the run will do: method, groups and games per evaluation, evaluations.

        Checks every setting, spec and range first.

        :raises SlagwerkError: (``SpecError``, ``OptionError``,
            ``ExperimentError``) naming the bad input, before any game runs.
        """
        from ..harness.runner import ExperimentError, GameSetup, game_info, validate_setup
        from ..harness.seating import schedule
        from ..harness.tournament import candidate_tables
        from .gp import MIN_EVALUATIONS as GP_MIN_EVALUATIONS
        from .spsa import MIN_ITERATIONS as SPSA_MIN_ITERATIONS

        space = self.space()
        setup = GameSetup(self.game, tuple(sorted(self.options.items())), (space.spec(), *self.opponents),
                          self.unit, int(self.seed), self.move_time, game_time=self.game_time)
        validate_setup(setup, unique_labels=False)
        method = self.method
        if method == "auto":
            method = "gp" if space.all_integer else "spsa"
        info = game_info(setup)
        tables = candidate_tables(info.n_players, info.team_game, info.team_of, len(self.opponents))
        games_per_group = len(schedule(tables, len(tables))) / len(tables)
        groups = self.groups
        if groups is None:
            if method == "spsa":
                groups = SPSA_GROUPS
            else:
                groups = max(GP_GROUPS, math.ceil(self.budget / games_per_group / GP_TARGET_EVALUATIONS))
        games = len(schedule(tables, groups))
        evaluations = self.budget // games
        needed = 2 * SPSA_MIN_ITERATIONS if method == "spsa" else GP_MIN_EVALUATIONS
        if evaluations < needed:
            what = (f"SPSA needs {needed} ({SPSA_MIN_ITERATIONS} iterations of 2)" if method == "spsa"
                    else f"the GP search needs {needed}")
            raise ExperimentError(
                f"--budget {self.budget} games allows {evaluations} evaluation"
                f"{'' if evaluations == 1 else 's'} of {groups} duplicate groups ({games} games each); "
                f"{what}: give --budget {needed * games} or more"
                + (", or fewer --groups" if groups > 1 else "")
            )
        if method == "spsa":
            evaluations -= evaluations % 2
        return Plan(method, groups, games, evaluations, space)
