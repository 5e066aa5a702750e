"""Generic playouts over the engine contract (random or heuristic policy).

Written once for every game: each kernel takes the game id ``g`` first and
reaches the game's kernels through :mod:`slagwerk.engine.dispatch`, so it is
compiled for one game at a time (``dispatch.specialize``). Search uses them
for simulations and ``slagwerk bench`` times them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from . import dispatch
from .common import copy_into
from .state import GAME, OBJECTIVE_DEAL, PHASE, PHASE_MATCH_OVER, TO_MOVE

POLICY_RANDOM = 0
POLICY_HEURISTIC = 1


@njit(cache=True)
def playout(g, state, objective, policy, rng, actions, deal_buffer):
    """Play ``state`` of game ``g`` on (in place) until the deal ends
    (``OBJECTIVE_DEAL``) or the match ends (``OBJECTIVE_MATCH``, later deals
    dealt at random from ``rng``).

    ``actions`` (room for the game's legal actions) and ``deal_buffer`` (its
    deal vector) are work buffers. Returns the number of actions applied.
    """
    steps = 0
    while True:
        steps += play_deal(g, state, policy, rng, actions)
        if state[PHASE] == PHASE_MATCH_OVER or objective == OBJECTIVE_DEAL:
            return steps
        dispatch.random_deal(g, state, rng, deal_buffer)
        dispatch.apply_deal(g, state, deal_buffer)


@njit(cache=True)
def play_deal(g, state, policy, rng, actions):
    """Play the current deal to its end under ``policy`` (in place); return the
    number of actions."""
    return _policy_loop(g, policy, state, rng, actions)


@njit(cache=True)
def heuristic_loop(g, state, rng, actions):
    """Play the current deal to its end with the game's heuristic; return the actions."""
    steps = 0
    while state[TO_MOVE] >= 0:
        dispatch.apply_action(g, state, dispatch.heuristic_action(g, state, rng))
        steps += 1
    return steps


def _policy_loop(g, policy, state, rng, actions):
    """The loop of ``policy``: chosen while compiling when ``policy`` is a
    compile-time constant (``dispatch.Constant``), so a search with random
    playouts never compiles the game's heuristic; else at run time."""
    raise TypeError("playout._policy_loop runs only inside numba kernels")


@overload(_policy_loop, prefer_literal=True)
def _choose_policy_loop(g, policy, state, rng, actions):
    if isinstance(policy, types.IntegerLiteral):
        loop = random_loop if policy.literal_value == POLICY_RANDOM else heuristic_loop
        return lambda g, policy, state, rng, actions: loop(g, state, rng, actions)

    def either(g, policy, state, rng, actions):
        if policy == POLICY_RANDOM:
            return random_loop(g, state, rng, actions)
        return heuristic_loop(g, state, rng, actions)

    return either


# The random loop is what playouts spend their time in. Compiled for one game
# it counts references on ``state`` and ``rng`` once per call, never per
# action, for every game whose action kernels inline into their dispatch
# function (tests/test_playout_codegen.py): a kernel on the path that
# allocates, calls a non-inlined kernel that branches over the state or
# divides by a runtime value brings an atomic increment and decrement of the
# state's reference count into every action. The loop test is one comparison
# written out: someone is to move exactly while a deal is in progress, and an
# inlined helper for it brought the counting back.


@njit(cache=True)
def random_loop(g, state, rng, actions):
    """Play the current deal to its end uniformly at random; return the actions."""
    steps = 0
    while state[TO_MOVE] >= 0:
        dispatch.apply_action_inlined(g, state, dispatch.random_action_inlined(g, state, rng, actions))
        steps += 1
    return steps


@njit(cache=True)
def random_deal_playouts(g, start, count, rng):
    """Benchmark loop: ``count`` times, deal a random deal into a copy of
    ``start`` (a state of game ``g`` waiting for a deal) and play it out
    uniformly at random.

    Returns the sum of actions applied (so the work cannot be optimised away).
    """
    actions = np.zeros(dispatch.max_actions(g), np.int64)
    deal = np.zeros(dispatch.deal_size(g), np.int64)
    state = start.copy()
    total = 0
    for _ in range(count):
        copy_into(state, start)
        dispatch.random_deal(g, state, rng, deal)
        dispatch.apply_deal(g, state, deal)
        total += play_deal(g, state, POLICY_RANDOM, rng, actions)
    return total


def random_playouts(start: np.ndarray, count: int, rng: np.ndarray) -> int:
    """:func:`random_deal_playouts` for the game of ``start``, called from Python."""
    return dispatch.call(random_deal_playouts, int(start[GAME]), start, count, rng)
