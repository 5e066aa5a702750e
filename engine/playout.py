"""Generic playouts over the engine contract (random or heuristic policy).

Written once for every game through the dispatchers of
:mod:`slagwerk.engine.contract`; search uses them for simulations and
``slagwerk bench`` times them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import contract
from .bits import rand_below
from .state import OBJECTIVE_DEAL, PHASE, PHASE_DEAL_PENDING, PHASE_MATCH_OVER

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1


@njit(cache=True)
def policy_action(state, policy, rng, actions):
    """One action for the seat to move under ``policy`` (POLICY_RANDOM/HEURISTIC).

    ``actions`` is an int64 work buffer of ``contract.MAX_ACTIONS``.
    """
    if policy == POLICY_HEURISTIC:
        return contract.heuristic_action(state, rng)
    n = contract.legal_actions(state, actions)
    return actions[rand_below(rng, n)]


@njit(cache=True)
def playout(state, objective, policy, rng, actions, deal_buffer):
    """Play ``state`` on (in place) until the deal ends (``OBJECTIVE_DEAL``) or the
    match ends (``OBJECTIVE_MATCH``, later deals dealt at random from ``rng``).

    ``actions`` (int64[MAX_ACTIONS]) and ``deal_buffer`` (int64[MAX_DEAL_SIZE])
    are work buffers. Returns the number of actions applied.
    """
    steps = 0
    while True:
        phase = state[PHASE]
        if phase == PHASE_MATCH_OVER:
            return steps
        if phase == PHASE_DEAL_PENDING:
            if objective == OBJECTIVE_DEAL:
                return steps
            contract.random_deal(state, rng, deal_buffer)
            contract.apply_deal(state, deal_buffer)
            continue
        contract.apply_action(state, policy_action(state, policy, rng, actions))
        steps += 1


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
        total += playout(state, OBJECTIVE_DEAL, POLICY_RANDOM, rng, actions, deal)
    return total
