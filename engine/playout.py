"""Generic playouts over the engine contract (random or heuristic policy).

Written once for every game through the dispatchers of
:mod:`slagwerk.engine.contract`; search uses them for simulations and
``slagwerk bench`` times them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import contract
from .state import GAME, OBJECTIVE_DEAL, PHASE, PHASE_MATCH_OVER, TO_MOVE

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1


@njit(cache=True)
def playout(state, objective, policy, rng, actions, deal_buffer):
    """Play ``state`` on (in place) until the deal ends (``OBJECTIVE_DEAL``) or the
    match ends (``OBJECTIVE_MATCH``, later deals dealt at random from ``rng``).

    ``actions`` (int64[MAX_ACTIONS]) and ``deal_buffer`` (int64[MAX_DEAL_SIZE])
    are work buffers. Returns the number of actions applied.
    """
    steps = 0
    while True:
        steps += play_deal(state, policy, rng, actions)
        if state[PHASE] == PHASE_MATCH_OVER or objective == OBJECTIVE_DEAL:
            return steps
        contract.random_deal(state, rng, deal_buffer)
        contract.apply_deal(state, deal_buffer)


@njit(cache=True)
def play_deal(state, policy, rng, actions):
    """Play the current deal to its end under ``policy`` (in place); return the
    number of actions."""
    if policy == POLICY_RANDOM:
        # One dispatch per deal rather than per action: each game's loop then
        # compiles to a tight loop over its own kernels (a per-action dispatch
        # over all games measurably slows every game's playouts).
        g = state[GAME]
        if g == contract.COINS:
            return _random_coins(state, rng)
        if g == contract.KOETSIEREN:
            return _random_koetsieren(state, rng)
        if g == contract.KOZEL:
            return _random_kozel(state, rng)
        return _random_aluette(state, rng)
    steps = 0
    while state[TO_MOVE] >= 0:
        contract.apply_action(state, contract.heuristic_action(state, rng))
        steps += 1
    return steps


# The random loops are what playouts spend their time in, one small function
# per game. Compiled on its own, each (Kozel's excepted, whose action kernels
# are calls) is free of reference counting on ``state`` and ``rng``
# (tests/test_playout_codegen.py); written inside ``play_deal``, the
# optimiser merges the games' paths and keeps an atomic increment and
# decrement of the state's reference count on every action. The loop test
# is one comparison written out: someone is to move exactly while a deal is
# in progress, and an inlined helper for it brought the counting back.


@njit(cache=True)
def _random_coins(state, rng):
    steps = 0
    while state[TO_MOVE] >= 0:
        contract.coins.apply_action(state, contract.coins.random_action(state, rng))
        steps += 1
    return steps


@njit(cache=True)
def _random_koetsieren(state, rng):
    steps = 0
    while state[TO_MOVE] >= 0:
        contract.koetsieren.apply_action(state, contract.koetsieren.random_action(state, rng))
        steps += 1
    return steps


@njit(cache=True)
def _random_kozel(state, rng):
    steps = 0
    while state[TO_MOVE] >= 0:
        contract.kozel.apply_action(state, contract.kozel.random_action(state, rng))
        steps += 1
    return steps


@njit(cache=True)
def _random_aluette(state, rng):
    steps = 0
    while state[TO_MOVE] >= 0:
        contract.aluette.apply_action(state, contract.aluette.random_action(state, rng))
        steps += 1
    return steps


@njit(cache=True)
def random_deal_playouts(start, count, rng):
    """Benchmark loop: ``count`` times, deal a random deal into a copy of
    ``start`` (a state waiting for a deal) and play it out uniformly at random.

    Returns the sum of actions applied (so the work cannot be optimised away).
    """
    actions = np.zeros(contract.MAX_ACTIONS, np.int64)
    deal = np.zeros(contract.MAX_DEAL_SIZE, np.int64)
    state = start.copy()
    total = 0
    for _ in range(count):
        state[:] = start
        contract.random_deal(state, rng, deal)
        contract.apply_deal(state, deal)
        total += play_deal(state, POLICY_RANDOM, rng, actions)
    return total
