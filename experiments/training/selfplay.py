"""The actors: deals played on the engines, as training samples.

Every decision of every seat becomes a sample of the seat's observation. What it
is trained towards depends on the run's ``teacher``:

- none (Deep Monte-Carlo, :func:`play_deals`): the actor chooses the legal action
  the network values most; the sample is the index of that action and the return
  its seat got when the deal ended (in [-1, 1], the environments' ``reward="deal"``);
- a search (expert iteration, :func:`play_taught_deals`): ISMCTS searches the
  decision from the seat's information, unguided or guided by the current
  network; the actor plays the search's choice, and every root action the search
  tried is a target: its mean reward, as a value ``2 * reward - 1``, weighted
  ``visits / (visits + 4)`` so that an action tried once counts little. The
  search's visit shares over the legal actions are kept too: the learner also
  fits the softmax of the values (the guide's prior) to them.

With probability ``epsilon`` an actor plays a uniformly random legal action
instead. A batch is a pure function of its arguments: the same seed gives the
same samples on any machine and in any worker.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...envs.encoded import EncodedMatch
from ...search.guide import Guide
from ...search.ismcts import ismcts
from ...search.network import best_index, forward

TEACHERS = ("none", "ismcts", "guided")
"""Where the targets come from: the deal's returns, or ISMCTS unguided or guided by the network."""
VISITS_HALF_WEIGHT = 4
"""A root action tried this often weighs half as much as one tried very often."""


@dataclass
class Samples:
    """Decisions and their returns: ``x`` (n, observation) float32, ``index`` (n,) int64,
    ``target`` (n,) float32, ``returns`` (n, seats) float32 (every seat's return, by relative
    seat: the deciding seat first, the targets of seat values); ``deals`` counts the deals played."""

    x: np.ndarray
    index: np.ndarray
    target: np.ndarray
    returns: np.ndarray
    deals: int

    @classmethod
    def join(cls, parts: list[Samples]) -> Samples:
        return cls(*(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("x", "index", "target", "returns")), sum(p.deals for p in parts))


def relative_returns(rewards: list[float], seat: int) -> list[float]:
    """The seats' ``rewards`` by their place clockwise from ``seat`` (``seat``'s first)."""
    n = len(rewards)
    return [rewards[(seat + r) % n] for r in range(n)]


def world_input(match: EncodedMatch, seat: int) -> np.ndarray:
    """Every seat's observation, by relative seat from ``seat`` (the input of a ``world`` network)."""
    return np.concatenate([match.observe((seat + r) % match.n_players) for r in range(match.n_players)])


def play_deals(game_name: str, options: dict, weights: tuple, epsilon: float, seed: int,
               deals: int, history: bool = False, world: bool = False) -> Samples:
    """Play ``deals`` deals of self-play with the network ``weights`` (see the module doc); with
    ``history`` the network reads the deal's history after the observation, with ``world`` every
    seat's observation (:func:`world_input`: it plays seeing every card)."""
    match = EncodedMatch(game_name, seed=seed, reward="deal", history=history, **options)
    explore = np.random.default_rng(seed)  # exploration draws apart from the deals' shuffles
    values = np.zeros(weights[-1].shape[0], dtype=np.float32)  # action values, then any seat values
    actions = match.module.NUM_ACTIONS
    xs, indices, seats, targets, returns = [], [], [], [], []
    pending = 0  # samples of the deal in progress, waiting for its returns
    played = 0
    while played < deals:
        seat = match.to_move
        x = world_input(match, seat) if world else match.observe(seat)
        mask = match.mask()
        if explore.random() < epsilon:
            index = int(explore.choice(np.flatnonzero(mask)))
        else:
            forward(x, *weights, values)
            index = int(best_index(values[:actions], mask))
        xs.append(x)
        indices.append(index)
        seats.append(seat)
        pending += 1
        rewards = match.step(index)
        if rewards is not None:  # the deal ended: its decisions get their seats' returns
            targets += [rewards[s] for s in seats[-pending:]]
            returns += [relative_returns(rewards, s) for s in seats[-pending:]]
            pending = 0
            played += 1
            if match.is_over:
                match.reset()
    return Samples(np.asarray(xs, dtype=np.float32), np.asarray(indices, dtype=np.int64),
                   np.asarray(targets, dtype=np.float32),
                   np.asarray(returns, dtype=np.float32).reshape(-1, match.n_players), played)


@dataclass
class TaughtSamples:
    """Decisions and the search's values of their actions: ``x`` (n, observation) float32,
    ``target``, ``weight`` and ``share`` (n, actions) float32 (weight 0 where the search tried
    nothing; share: of the search's visits), ``legal`` (n, actions) bool, ``returns`` as
    :class:`Samples`'; ``deals`` counts the deals played."""

    x: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    share: np.ndarray
    legal: np.ndarray
    returns: np.ndarray
    deals: int

    @classmethod
    def join(cls, parts: list[TaughtSamples]) -> TaughtSamples:
        return cls(*(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("x", "target", "weight", "share", "legal", "returns")),
                   sum(p.deals for p in parts))


def search_targets(array: np.ndarray, seat: int, index_of: dict, num_actions: int, iterations: int,
                   seed: int, guide: Guide | None, playout: str = "random",
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The teacher's targets for ``seat`` to move in the state ``array``: the value ``2 * reward - 1``,
    the weight and the share of the visits of every action index its search tried (see the
    module doc), and the index it chose. ``index_of`` maps each legal engine action to its index;
    ``playout`` is the search's playout policy.
    The search reads the seat's information only: each iteration deals the cards hidden from the
    seat anew."""
    found = ismcts(array, seat, iterations=iterations, seed=seed, guide=guide, playout=playout)
    target = np.zeros(num_actions, np.float32)
    weight = np.zeros(num_actions, np.float32)
    share = np.zeros(num_actions, np.float32)
    total = max(int(found.visits.sum()), 1)
    for action, visits, value in zip(found.actions, found.visits, found.values):
        if visits > 0:
            index = index_of[int(action)]
            target[index] = 2.0 * value - 1.0
            weight[index] = visits / (visits + VISITS_HALF_WEIGHT)
            share[index] = visits / total
    return target, weight, share, index_of[int(found.action)]


def play_taught_deals(game_name: str, options: dict, weights: tuple, epsilon: float, seed: int,
                      deals: int, teacher: str, iterations: int, history: bool = False,
                      playout: str = "random") -> TaughtSamples:
    """Play ``deals`` deals in which ``teacher`` (``"ismcts"`` or ``"guided"``, by the network
    ``weights``) searches every decision with ``iterations`` iterations and ``playout`` playouts
    (see the module doc); with ``history`` the samples' input holds the deal's history after the
    observation."""
    match = EncodedMatch(game_name, seed=seed, reward="deal", history=history, **options)
    explore = np.random.default_rng(seed)
    guide = Guide(weights) if teacher == "guided" else None
    xs, targets, weights_out, shares, legals, seats, returns = [], [], [], [], [], [], []
    played = 0
    while played < deals:
        seat = match.to_move
        seats.append(seat)
        xs.append(match.observe(seat))
        mask = match.mask()
        legal = np.flatnonzero(mask)
        index_of = {int(a): int(i) for i, a in zip(legal, match.legal_actions()[legal])}
        target, weight, share, chosen = search_targets(match.array, seat, index_of, match.module.NUM_ACTIONS,
                                                       iterations, int(explore.integers(1 << 62)), guide,
                                                       playout)
        targets.append(target)
        weights_out.append(weight)
        shares.append(share)
        legals.append(mask != 0)
        index = int(explore.choice(legal)) if explore.random() < epsilon else chosen
        rewards = match.step(index)
        if rewards is not None:  # the deal ended: its decisions get every seat's return
            returns += [relative_returns(rewards, s) for s in seats[len(returns):]]
            played += 1
            if match.is_over:
                match.reset()
    return TaughtSamples(np.asarray(xs, dtype=np.float32), np.asarray(targets), np.asarray(weights_out),
                         np.asarray(shares), np.asarray(legals),
                         np.asarray(returns, dtype=np.float32).reshape(-1, match.n_players), played)
