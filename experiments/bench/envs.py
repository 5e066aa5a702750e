"""``slagwerk bench``'s environment rows: PettingZoo steps per second.

A random policy (a uniform legal index from the action mask) steps the
wrapped AEC environment of :mod:`slagwerk.envs.pettingzoo` as a learner
would: ``agent_iter``, ``last``, ``step``, resetting when the match ends.
Steps are counted per CPU second (:func:`.timing.timed_rate`) and reported
against the goal of :data:`TARGET_STEPS` (``over_target`` is the ratio).
Without PettingZoo the rows are skipped with a note.
"""

from __future__ import annotations

import sys

import numpy as np

from .timing import timed_rate

TARGET_STEPS = 10_000
"""Environment steps per second per game that the PettingZoo wrapper should reach."""



def stepper(game: str, seed: int = 1):
    """``step(n)``: ``n`` steps of a random policy through the wrapped environment."""
    from ...engine.registry import game_info
    from ...envs.pettingzoo import env

    wrapped = env(game, **game_info(game).bench_options)  # the game's own benchmark options
    wrapped.reset(seed=seed)
    rng = np.random.default_rng(seed)
    iterator = iter(wrapped.agent_iter())

    def step(n: int) -> None:
        nonlocal iterator
        for _ in range(n):
            try:
                next(iterator)
            except StopIteration:
                wrapped.reset()
                iterator = iter(wrapped.agent_iter())
                next(iterator)
            observation, _, terminated, truncated, _ = wrapped.last()
            if terminated or truncated:
                wrapped.step(None)
                continue
            legal = np.flatnonzero(observation["action_mask"])
            wrapped.step(int(legal[rng.integers(len(legal))]))

    return step


def env_rows(games, seconds: float) -> list[dict]:
    """One row per game: PettingZoo AEC steps per CPU second under a random policy."""
    from ...envs.encoded import MissingDependency

    rows = []
    for game in games:
        try:
            step = stepper(game)
        except MissingDependency as err:
            print(f"note: {err}; skipping the environment rows", file=sys.stderr)
            return rows
        step(100)  # compile (or load) the kernels outside the clock
        rate = timed_rate(step, seconds)
        rows.append({"game": game, "benchmark": "pettingzoo_env_step", "implementation": "random policy",
                     "per_second": round(rate, 1), "over_target": round(rate / TARGET_STEPS, 2)})
    return rows
