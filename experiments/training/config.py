"""A training run's settings: one model, from which ``slagwerk train``'s flags, its ``config.json``
and its resume check come."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field

from ...engine.seeds import MAX_SEED, SEED_RANGE
from ...settings import Settings, setting
from ..harness.config import Spec
from ..harness.defaults import VERSION_KEY

MAX_ROUNDS = 1_000_000
MAX_MINUTES = 7 * 24 * 60


class TrainConfig(Settings):
    """A self-play training run (Deep Monte-Carlo, :mod:`slagwerk.experiments.training`).

    A round plays ``deals`` deals of self-play with the current network (split into
    chunks of ``chunk`` deals, each seeded by the run's seed, the round and the
    chunk, so that the same settings give the same samples with any number of
    workers), then trains the network on them. The run ends after ``rounds``
    rounds, or at the first round's end after ``minutes``.
    """

    KIND: ClassVar[str] = "training run"
    POSITIONAL: ClassVar[tuple[str, ...]] = ("game",)
    STORED_EXTRA: ClassVar[tuple[str, ...]] = (VERSION_KEY,)

    game: str = setting(help="the game", positional=True, min_length=1)
    options: dict[str, int] = setting({}, "the game's options", flag=False,
                                      given_as="--option (or a game option's own flag)")
    seed: int = setting(1, "seed of the network's first weights, the deals and the exploration", ge=0,
                        le=MAX_SEED, rule=SEED_RANGE)
    rounds: int | None = setting(None, "rounds of self-play and training (default: until --minutes)",
                                 ge=1, le=MAX_ROUNDS)
    minutes: float | None = setting(
        None, "stop at the end of the first round after this many minutes of training (default: 60 "
        "without --rounds)", gt=0, le=MAX_MINUTES, unit=" minutes", metavar="M")
    deals: int = setting(2000, "deals of self-play a round (a round is checkpointed as it ends)", ge=1,
                         le=1_000_000)
    chunk: int = setting(250, "deals a worker plays at once (seeded by round and chunk)", ge=1,
                         le=1_000_000)
    teacher: Literal["none", "ismcts", "guided"] = setting(
        "none", "what the network learns from: none, the deals' returns (Deep Monte-Carlo); ismcts, "
        "the values of an ISMCTS search of every decision; guided, the same search guided by the "
        "network (expert iteration)")
    teacher_iterations: int = setting(200, "iterations of the teacher's search per decision", ge=1,
                                      le=100_000)
    teacher_playout: Literal["random", "heuristic"] = setting(
        "random", "playout policy of the teacher's search: random, or the game's heuristic (slower a "
        "playout; in Kozel a much stronger teacher)")
    policy_weight: float = setting(
        1.0, "with a teacher: weight of the cross-entropy from the search's visit shares to the softmax "
        "of the network's values (the guide's prior), beside their squared error", ge=0, le=100)
    history: bool = setting(False, "the network reads the deal's history too (who played what, "
                            "in order: the environments' history=True), not only the observation")
    seat_values: bool = setting(False, "the network also values the deal for every seat (one output "
                                "each, regressed on the seats' returns): a guided search's leaf then "
                                "costs one evaluation (ismcts:guide=net,leaf=value)")
    world: bool = setting(False, "the network reads every seat's observation (the whole deal) and values "
                          "it for every seat: it cannot play alone, only value a guided search's leaves, "
                          "which are whole determinized worlds (ismcts:guide=net,leaf=value,prior=0)")
    init: str | None = setting(None, "start from this model file's network instead of random weights (a "
                               "model of the same game, options, input and layer sizes)", metavar="FILE",
                               min_length=1)
    epsilon: float = setting(0.05, "chance that an actor explores: a random legal action", ge=0, le=1)
    hidden: tuple[Annotated[int, Field(ge=1, le=4096)], ...] = setting(
        (256, 256), "sizes of the network's two hidden layers", metavar="N", min_length=2, max_length=2)
    learning_rate: float = setting(1e-3, "Adam's learning rate", gt=0, le=1)
    batch_size: int = setting(256, "samples per update", ge=1, le=1_000_000)
    epochs: int = setting(1, "passes over a round's samples", ge=1, le=100)
    snapshot_every: int = setting(25, "keep the network every this many rounds (snapshots/, for the "
                                  "learning curve)", ge=1, le=MAX_ROUNDS)
    curve_points: int = setting(8, "snapshots rated for the learning curve when the training ends "
                                "(evenly spread, always the last); 0: no curve", ge=0, le=50)
    curve_groups: int = setting(400, "duplicate groups of the learning curve's tournament", ge=1,
                                le=100_000)
    curve_opponents: tuple[Spec, ...] = setting(
        ("heuristic",), "fixed opponents of the learning curve's tournament (agent specs)",
        metavar="SPEC", min_length=1, max_length=8)

    def stops_after(self) -> tuple[int | None, float | None]:
        """``(rounds, seconds)``: the run ends at the first of them (60 minutes by default)."""
        minutes = self.minutes if self.minutes is not None or self.rounds is not None else 60.0
        return self.rounds, None if minutes is None else minutes * 60.0
