"""The training loop: rounds of self-play and learning, checkpointed into a results folder.

Reproducibility: a round's deals are split into chunks seeded by the run's seed, the round
and the chunk, and the learner runs on one thread, so the same settings give the same model
with any number of workers and on any machine with the same PyTorch; ``--minutes`` decides
only how many rounds are played (``--rounds`` fixes it).
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...agents.model import Model, load_model, model_meta, save_model
from ...engine import make_game
from ...engine.bits import derive_seed
from ...engine.history import replayable
from ...engine.registry import observation_module
from ...errors import SpecError
from ...safe_files import AppendLog, read_file, replace_file
from ...search.guide import DEFAULT_TEMPERATURE
from ..harness.defaults import default_results_folder
from ..harness.runner import ExperimentError, parallel_map
from .config import TrainConfig
from .curve import forget_snapshots, rate_snapshots, save_snapshot
from .folder import CHECKPOINT, MODEL, TRAINING_LOG, TrainingFolder
from .learner import Learner, require_torch
from .selfplay import Samples, TaughtSamples, play_deals, play_taught_deals

METHODS = {"none": "dmc", "ismcts": "expert-iteration:ismcts", "guided": "expert-iteration:guided"}
"""The ``method`` a model file records, by the run's teacher."""
LEARN_SEED = 0x1EA2
"""Mixed into a round's seed for the order in which the learner reads its samples."""


@dataclass
class TrainResult:
    """A finished run: its folder, its settings, every round's line and the learning curve's
    rows (None without a curve)."""

    folder: Path
    config: TrainConfig
    rounds: list[dict]
    curve: list[dict] | None = None

    @property
    def model_path(self) -> Path:
        return self.folder / MODEL


def default_folder(config: TrainConfig) -> Path:
    return default_results_folder(f"train-{config.game}")


def check_inputs(config: TrainConfig) -> None:
    """:class:`ExperimentError` for ``--teacher-playout`` without a teacher, for an ``--init`` model
    that does not fit the run, for ``--history`` where a model could not be played from views or
    the guided teacher would need the tree search to keep the history, and for ``--world`` beside
    another input or with a teacher."""
    if config.teacher == "none" and config.teacher_playout != "random":
        raise ExperimentError("--teacher-playout: only a teacher's search plays out (give --teacher "
                              "ismcts or guided)")
    if config.world and (config.history or config.teacher != "none"):
        raise ExperimentError("--world: a network of the whole deal is trained by Deep Monte-Carlo "
                              "alone (no --teacher) and reads no history")
    if config.init is not None:
        game = make_game(config.game, **config.options)
        starting_weights(config, game, fresh_model(config, game))
    if not config.history:
        return
    if not replayable(config.game):
        raise ExperimentError(f"--history: {config.game} agents cannot rebuild the deal's history from "
                              f"their views, so such a model could not play")
    if config.teacher == "guided":
        raise ExperimentError("--history: the guided teacher's search keeps no history for the network "
                              "to read: use --teacher ismcts or none")


def fresh_model(config: TrainConfig, game) -> Model:
    """The network the run trains, with the random weights of its seed."""
    return Model.initial(game, hidden=config.hidden, seed=config.seed, history=config.history,
                         seat_values=config.seat_values or config.world, world=config.world)


def starting_weights(config: TrainConfig, game, fresh: Model) -> tuple:
    """The weights of the model file ``config.init``, checked to be a model of ``game`` (by
    :func:`load_model`) with the layers of ``fresh``, the network the run trains (its input,
    hidden sizes and outputs); :class:`ExperimentError` otherwise."""
    try:
        start = load_model(config.init, game)
    except SpecError as err:
        raise ExperimentError(f"--init: {err}") from None
    shapes = [w.shape for w in start.weights]
    wanted = [w.shape for w in fresh.weights]
    if shapes != wanted:
        raise ExperimentError(f"--init: model file {config.init!r} has layers {_sizes(shapes)}, not the "
                              f"{_sizes(wanted)} this run trains (--hidden, --history, --seat-values, "
                              f"--world)")
    return start.weights


def _sizes(shapes: list) -> str:
    return "x".join(str(n) for n in (shapes[0][0], *(shape[1] for shape in shapes[::2])))


def chunks(deals: int, chunk: int) -> list[int]:
    """The deals of a round in chunks of ``chunk`` (the last one shorter)."""
    return [min(chunk, deals - start) for start in range(0, deals, chunk)]


def run_training(config: TrainConfig | None = None, results=None, *, resume: bool = False,
                 force: bool = False, jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
                 on_round=None, on_curve=None) -> TrainResult:
    """Train (or, with ``resume``, go on training) into the folder ``results``, then rate its
    snapshots for the learning curve (:mod:`.curve`).

    ``on_round(line)`` is told of every finished round, ``on_curve(config)`` when the curve's
    tournament begins (a progress bar is then shown). Ctrl-C or a kill at any moment loses at
    most the round in progress (see :mod:`.folder`), or the curve's game in progress.
    """
    torch = require_torch()  # before anything is written
    if not resume:
        check_inputs(config)
    stored = None
    if resume:
        folder = TrainingFolder.open(results)
        config = TrainConfig.load(folder.config(), folder.config_path)
        stored = read_file(folder.path, CHECKPOINT)
    game = make_game(config.game, **config.options)
    first = fresh_model(config, game)
    if config.init is not None and stored is None:  # read before a new run's folder is made
        first = Model(starting_weights(config, game, first), first.meta)
    if not resume:
        folder = TrainingFolder.create(results or default_folder(config), config.dump(), force=force)
        forget_snapshots(folder.path)  # an earlier run's, in a folder taken with --force
    learner = Learner(first.weights, config.learning_rate, config.seed, first.seat_values)
    rounds: list[dict] = []
    if stored is not None:
        try:
            state = torch.load(io.BytesIO(stored), weights_only=True)
            learner.load_state(state["learner"])
            rounds = [json.loads(line) for line in state["rounds"]]
        except Exception as err:  # a checkpoint written whole cannot fail; anything else is damage
            raise ExperimentError(f"{folder.path / CHECKPOINT}: not a checkpoint of this run "
                                  f"({type(err).__name__}: {str(err)[:120]})") from None
    replace_file(folder.path, TRAINING_LOG, b"".join(json.dumps(line).encode() + b"\n" for line in rounds))
    most_rounds, most_seconds = config.stops_after()
    spent = rounds[-1]["total_seconds"] if rounds else 0.0
    module = observation_module(config.game)

    def more() -> bool:
        rounds_left = most_rounds is None or len(rounds) < most_rounds
        return rounds_left and (most_seconds is None or spent < most_seconds)

    with AppendLog(folder.path, TRAINING_LOG) as log:
        while more():
            start = time.perf_counter()
            number = len(rounds)
            weights = learner.weights()
            tasks = [(config.game, dict(config.options), weights, config.epsilon,
                      derive_seed(config.seed, number, index), size)
                     for index, size in enumerate(chunks(config.deals, config.chunk))]
            learn_seed = derive_seed(config.seed, number, LEARN_SEED)
            if config.teacher == "none":
                tasks = [(*task, config.history, config.world) for task in tasks]
                samples = Samples.join(parallel_map(play_deals, tasks, jobs, backend, scheduler))
                loss = learner.update(samples, config.batch_size, config.epochs, learn_seed)
                mean = {"mean_return": float(np.mean(samples.target))}
            else:
                tasks = [(*task, config.teacher, config.teacher_iterations, config.history,
                          config.teacher_playout) for task in tasks]
                samples = TaughtSamples.join(parallel_map(play_taught_deals, tasks, jobs, backend, scheduler))
                loss = learner.update_taught(samples, config.batch_size, config.epochs, learn_seed,
                                             config.policy_weight, DEFAULT_TEMPERATURE)
                mean = {"mean_target": float((samples.target * samples.weight).sum() / samples.weight.sum())}
            seconds = time.perf_counter() - start
            spent += seconds
            line = {"round": number, "deals": samples.deals, "samples": len(samples.x),
                    "loss": round(loss, 6), **{k: round(v, 6) for k, v in mean.items()},
                    "seconds": round(seconds, 3), "total_seconds": round(spent, 3)}
            rounds.append(line)
            state = io.BytesIO()
            torch.save({"learner": learner.state_bytes(), "rounds": [json.dumps(r) for r in rounds]}, state)
            replace_file(folder.path, CHECKPOINT, state.getvalue())
            meta = model_meta(game, module, METHODS[config.teacher], config.history, first.seat_values,
                              config.world, rounds=len(rounds), seed=config.seed,
                              deals=sum(r["deals"] for r in rounds), seconds=round(spent, 1))
            save_model(Model(learner.weights(), meta), folder.path / MODEL)
            if len(rounds) % config.snapshot_every == 0:
                save_snapshot(folder.path, len(rounds), Model(learner.weights(), meta))
            log.append(json.dumps(line).encode() + b"\n")
            spent += time.perf_counter() - start - seconds  # --minutes counts the checkpoints' time too
            if on_round is not None:
                on_round(line)
    if config.world:  # it cannot play alone: nothing to rate
        return TrainResult(folder.path, config, rounds, None)
    if config.curve_points and on_curve is not None:
        on_curve(config)
    curve = rate_snapshots(folder.path, config, rounds, jobs=jobs, backend=backend, scheduler=scheduler,
                           progress=on_curve is not None)
    return TrainResult(folder.path, config, rounds, curve)

