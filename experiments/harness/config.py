"""A tournament's settings: one model, from which its flags, its ``config.json`` and its resume check come.

This module imports pydantic and the standard library only (the harness's
modules load when a method needs them), so that ``slagwerk tournament --help``
and a mistyped flag answer without loading numpy, numba and the agents.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, field_validator, model_validator

from ...engine.seeds import MAX_SEED, SEED_RANGE
from ...settings import Settings, SettingsError, setting
from .defaults import (
    DEFAULT_BOOTSTRAP,
    DEFAULT_MOVE_TIME,
    MAX_BOOTSTRAP,
    MAX_ELO,
    MAX_GROUPS,
    MAX_SECONDS,
    MIN_BOOTSTRAP,
    VERSION_KEY,
)

Spec = Annotated[str, Field(min_length=1)]
"""An agent spec as written (``ismcts:iterations=2000,c=0.7``), checked when the run is set up."""


class MatchSettings(Settings):
    """What every run of games shares: the game, its options, the seed, what a game is, and the
    time limits."""

    game: str = setting(help="the game", flag=False, given_as="--game", min_length=1)
    options: dict[str, int] = setting({}, "the game's options", flag=False,
                                      given_as="--option (or a game option's own flag)")
    seed: int = setting(1, "seed", ge=0, le=MAX_SEED, rule=SEED_RANGE)
    unit: Literal["deal", "match"] = setting(
        "deal", "a game is one deal scored by its normalised deal score, or a whole match "
        "scored by its outcome")
    move_time: float | None = setting(
        DEFAULT_MOVE_TIME, "per-move time limit; slower moves forfeit; 0: no limit", gt=0, le=MAX_SECONDS,
        zero_is_none=True, unit=" seconds", metavar="SECONDS")
    game_time: float | None = setting(
        None, "each seat's total thinking time for a game (a deal, or a match with --unit match), like "
        "a chess clock; a seat whose clock runs out forfeits (default: no clock; --move-time still "
        "bounds each move)", gt=0, le=MAX_SECONDS, unit=" seconds", metavar="SECONDS")

    @field_validator("options", mode="before")
    @classmethod
    def _options_from_pairs(cls, value):
        return dict(value) if isinstance(value, tuple) else value


class SprtTest(Settings):
    """The sequential test's own settings: its hypotheses, error rates and patience."""

    elo0: float = setting(0.0, "H0: A is at most this stronger", ge=-MAX_ELO, le=MAX_ELO, unit=" Elo")
    elo1: float = setting(50.0, "H1: A is at least this stronger", ge=-MAX_ELO, le=MAX_ELO, unit=" Elo")
    alpha: float = setting(0.05, "chance of accepting H1 when H0 holds", gt=0, lt=0.5)
    beta: float = setting(0.05, "chance of accepting H0 when H1 holds", gt=0, lt=0.5)
    max_groups: int = setting(2000, "give up (inconclusive) after this many groups", ge=1, le=MAX_GROUPS)

    @model_validator(mode="after")
    def _hypotheses_in_order(self):
        if not self.elo0 < self.elo1:
            raise SettingsError(f"--elo0 must be below --elo1, not --elo0 {self.elo0!r} and --elo1 "
                                f"{self.elo1!r}")
        return self


class SprtConfig(MatchSettings, SprtTest):
    """``slagwerk sprt``: A against B on duplicate groups until the test decides."""

    KIND: ClassVar[str] = "sprt"

    a: Spec = setting(help="agent spec of the challenger, e.g. ismcts:iterations=2000", positional=True,
                      metavar="A")
    b: Spec = setting(help="agent spec of the reference, e.g. heuristic", positional=True, metavar="B")


class RunSettings(MatchSettings):
    """A run of games rated together (a tournament, a curve experiment): its size and intervals."""

    deals: int = setting(100, "duplicate groups per game, each deal played in all its rotations",
                         ge=1, le=MAX_GROUPS)
    bootstrap: int = setting(DEFAULT_BOOTSTRAP, "bootstrap resamples for the score intervals",
                             ge=MIN_BOOTSTRAP, le=MAX_BOOTSTRAP)


class TournamentConfig(RunSettings):
    """A tournament's settings, stored in its results folder as ``config.json`` (the model's dump).

    >>> config = TournamentConfig("coins", ("random", "heuristic"), deals=4)
    >>> config.deals, config.seed, config.move_time
    (4, 1, 60.0)
    >>> TournamentConfig("coins", ("random", "heuristic"), deals=0)
    Traceback (most recent call last):
    ...
    slagwerk.settings.SettingsError: 'deals' must be an integer from 1 to 100000, not 0
    """

    KIND: ClassVar[str] = "tournament"
    POSITIONAL: ClassVar[tuple[str, ...]] = ("game", "agents")
    STORED_EXTRA: ClassVar[tuple[str, ...]] = (VERSION_KEY,)
    STORED_REQUIRED: ClassVar[tuple[str, ...]] = ("deals", "seed")

    agents: tuple[Spec, ...] = setting(
        help="agent specs, e.g. random heuristic ismcts:iterations=2000,c=0.7 (label=... names one); "
        "in Kozel and Aluette an agent plays as two partnered copies, or write A+B for a partnership "
        "of two different agents", metavar="SPEC", default_text="the built-in agents", min_length=2)
    records: bool = setting(False, "keep every game's full record (docs/records.md) in the results")
    bots: dict[str, str] | None = setting(None, flag=False)
    """``name -> fingerprint`` of the external bots as a results folder recorded them
    (``None`` for a new run: they come from the bots registered with ``--bot``)."""
    experiment: dict[str, Any] | None = setting(None, flag=False)
    """A curve experiment's own settings (:mod:`~slagwerk.experiments.studies.budget` reads them)."""

    @classmethod
    def load(cls, data, where: str) -> TournamentConfig:
        config = super().load(data, where)
        # a folder that recorded no external bots has none (not the ones registered now)
        return config if config.bots is not None else config.model_copy(update={"bots": {}})

    def dump(self) -> dict[str, Any]:
        """``config.json``: the settings, the external bots' fingerprints (never a command to run)
        where there are any, a curve experiment's settings where it is one."""
        data = super().dump()
        bots = self.bot_fingerprints()
        del data["bots"]
        if data["experiment"] is None:
            del data["experiment"]
        return {**({"bots": bots} if bots else {}), **data}

    def setup(self):
        from .runner import GameSetup

        return GameSetup(self.game, tuple(sorted(self.options.items())), tuple(self.agents), self.unit,
                         self.seed, self.move_time, self.records, game_time=self.game_time)

    def validate(self) -> None:
        """:raises SlagwerkError: for any bad setting, naming it."""
        from .runner import ExperimentError, validate_setup

        validate_setup(self.setup())
        tables = self.tables()
        # Group g plays tables[g % len(tables)]: an agent first seated late needs that many groups.
        needed = [min(t for t, table in enumerate(tables) if agent in table) + 1
                  for agent in range(len(self.agents))]
        if self.deals < max(needed):
            idle = [label for label, need in zip(self.setup().labels, needed) if need > self.deals]
            raise ExperimentError(
                f"with --deals {self.deals}, {', '.join(idle)} would play no game (the agents sit at "
                f"{len(tables)} different tables, one per duplicate group): give --deals {max(needed)} "
                f"or more"
            )

    def unbalanced_note(self) -> str | None:
        """A note when ``deals`` is not a multiple of the number of tables (some seatings
        are then played more often than others), else ``None``."""
        tables = len(self.tables())
        if self.deals % tables == 0:
            return None
        return (f"note: the entries sit at {tables} different tables, played in turn one per group; "
                f"--deals {self.deals} is not a multiple of {tables}, so some seatings are played more "
                f"often than others")

    def tables(self) -> list[tuple[int, ...]]:
        from .runner import game_info
        from .seating import tables_for

        info = game_info(self.setup())
        return tables_for(len(self.agents), info.n_players, info.team_game, info.team_of)

    def bot_fingerprints(self) -> dict[str, str]:
        """Name -> fingerprint of the external bots: as the results folder recorded them, or
        for a new run from the bots registered with ``--bot`` (a folder is rated again by
        ``slagwerk report`` without them)."""
        from ...agents.external import fingerprints

        return dict(self.bots) if self.bots is not None else fingerprints(self.agents)

    def run_id(self) -> str:
        """The fingerprint (:func:`.results.run_id`) of the settings that decide every game's
        result, carried by each line of the log as ``run``."""
        from .results import run_id

        bots = self.bot_fingerprints()  # only runs with external bots carry them
        return run_id({"game": self.game, "options": dict(self.options), "agents": list(self.agents),
                       "seed": self.seed, "unit": self.unit, "move_time": self.move_time,
                       **({"bots": bots} if bots else {}),
                       **({"game_time": self.game_time} if self.game_time is not None else {})})

    def expected_lines(self, slots) -> dict[int, dict]:
        """What the log line of each scheduled game must hold (see ``ResultsFolder.load_games``)."""
        from ...engine.bits import derive_seed

        labels = self.setup().labels
        run = self.run_id()
        return {
            slot.index: {"agents": [labels[a] for a in slot.seats], "table": list(slot.seats),
                         "group": slot.group, "rotation": slot.rotation,
                         "seed": derive_seed(self.seed, slot.group), "run": run}
            for slot in slots
        }
