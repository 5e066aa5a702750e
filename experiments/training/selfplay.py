"""The actors: deals played by the current network on the engines, as training samples.

Every decision of every seat becomes a sample: the seat's observation, the index
of the action chosen, and the seat's return when the deal ended (in [-1, 1], the
environments' ``reward="deal"``). An actor chooses the legal action the network
values most, or with probability ``epsilon`` a uniformly random legal one. A
batch is a pure function of its arguments: the same seed gives the same samples
on any machine and in any worker.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...envs.encoded import EncodedMatch
from ...search.network import best_index, forward


@dataclass
class Samples:
    """Decisions and their returns: ``x`` (n, observation) float32, ``index`` (n,) int64,
    ``target`` (n,) float32; ``deals`` counts the deals played."""

    x: np.ndarray
    index: np.ndarray
    target: np.ndarray
    deals: int

    @classmethod
    def join(cls, parts: list[Samples]) -> Samples:
        return cls(np.concatenate([p.x for p in parts]), np.concatenate([p.index for p in parts]),
                   np.concatenate([p.target for p in parts]), sum(p.deals for p in parts))


def play_deals(game_name: str, options: dict, weights: tuple, epsilon: float, seed: int,
               deals: int) -> Samples:
    """Play ``deals`` deals of self-play with the network ``weights`` (see the module doc)."""
    match = EncodedMatch(game_name, seed=seed, reward="deal", **options)
    explore = np.random.default_rng(seed)  # exploration draws apart from the deals' shuffles
    values = np.zeros(match.module.NUM_ACTIONS, dtype=np.float32)
    xs, indices, seats, targets = [], [], [], []
    pending = 0  # samples of the deal in progress, waiting for its returns
    played = 0
    while played < deals:
        seat = match.to_move
        x = match.observe(seat)
        mask = match.mask()
        if explore.random() < epsilon:
            index = int(explore.choice(np.flatnonzero(mask)))
        else:
            forward(x, *weights, values)
            index = int(best_index(values, mask))
        xs.append(x)
        indices.append(index)
        seats.append(seat)
        pending += 1
        rewards = match.step(index)
        if rewards is not None:  # the deal ended: its decisions get their seats' returns
            targets += [rewards[s] for s in seats[-pending:]]
            pending = 0
            played += 1
            if match.is_over:
                match.reset()
    return Samples(np.asarray(xs, dtype=np.float32), np.asarray(indices, dtype=np.int64),
                   np.asarray(targets, dtype=np.float32), played)
