"""The optional parts of the tree search, compiled only into the searches that use them.

A search's ``parts`` are flags, a compile-time constant of its kernel
(``dispatch.Constant``): the guide's :data:`~.guide.GUIDE_PRIOR`,
:data:`~.guide.GUIDE_LEAF` and :data:`~.guide.GUIDE_PLAYOUT`, and
:data:`SOLVE_ENDGAMES`. The kernel calls each part through a function below,
whose numba overload is the part itself when its flag is set and a trivial
stand-in when not. So the unguided search without ``solve`` compiles none of the
network's or the solver's code: a cold start compiles what it plays.
"""

from __future__ import annotations

import inspect

import numpy as np
from numba import njit, types
from numba.extending import overload

from ..engine import dispatch
from ..engine.common import copy_into
from .endgame import solve_into, tricks_left
from .guide import (
    GUIDE_LEAF,
    GUIDE_MIX,
    GUIDE_PLAYOUT,
    GUIDE_PRIOR,
    GUIDE_VALUE,
    GUIDE_WORLD,
    leaf_rewards,
    net_playout,
    net_values,
    value_rewards,
)

SOLVE_ENDGAMES = 8
"""The flag of the exact endgame solver (``solve=``, :mod:`slagwerk.search.endgame`)."""

NOT_CHOSEN = -1


def _python_call(name: str):
    raise TypeError(f"search.parts.{name} runs only inside numba kernels")


def _part(name: str, flag: int, off, on):
    """Register the overload of ``name`` (a Python stand-in): ``on`` for flags with ``flag``,
    ``off`` otherwise (``on`` when the flags are not a compile-time constant)."""
    stand_in = globals()[name]

    def choose(parts):
        if isinstance(parts, types.IntegerLiteral) and not parts.literal_value & flag:
            return off
        return on

    # numba matches an overload to its stand-in by the names of their parameters: written out
    params = ", ".join(inspect.signature(stand_in).parameters)
    namespace = {"choose": choose}
    exec(f"def typing({params}):\n    return choose(parts)\n", namespace)
    overload(stand_in, prefer_literal=True)(namespace["typing"])
    return stand_in


# ------------------------------------------------------------------ the guide's prior


def prior_pick(parts, g, state, choices, m, child_of, net, x, q, scores, temperature, prior):
    """The untried choice to expand by the network's prior, its probability into ``prior[0]``;
    :data:`NOT_CHOSEN` without a prior."""
    _python_call("prior_pick")


@njit(cache=True)
def _prior_choice(scores, m, child_of, temperature, prior):
    """The untried choice (``child_of[i] < 0``) with the highest network value; its probability
    under ``softmax(scores[:m] / temperature)`` into ``prior[0]``."""
    top = -np.inf
    pick = NOT_CHOSEN
    for i in range(m):
        top = max(top, scores[i])
        if child_of[i] < 0 and (pick < 0 or scores[i] > scores[pick]):
            pick = i
    total = 0.0
    for i in range(m):
        total += np.exp((scores[i] - top) / temperature)
    prior[0] = np.exp((scores[pick] - top) / temperature) / total
    return pick


def _pick_by_prior(parts, g, state, choices, m, child_of, net, x, q, scores, temperature, prior):
    net_values(g, state, choices, m, net, x, q, scores)
    return _prior_choice(scores, m, child_of, temperature, prior)


_part("prior_pick", GUIDE_PRIOR, lambda parts, g, state, choices, m, child_of, net, x, q, scores,
      temperature, prior: NOT_CHOSEN, _pick_by_prior)


def biased_child(parts, nodes, values, priors, child_of, n, c, weight, visits_column, available_column):
    """The child with the best UCB1 score plus the progressive bias ``weight * prior / (visits
    + 1)``; :data:`NOT_CHOSEN` without a prior (the caller then takes plain UCB1)."""
    _python_call("biased_child")


def _best_biased(parts, nodes, values, priors, child_of, n, c, weight, visits_column, available_column):
    best = NOT_CHOSEN
    best_score = -np.inf
    for i in range(n):
        child = child_of[i]
        visits = nodes[child, visits_column]
        inverse_visits = 1.0 / visits
        explore = c * np.sqrt(np.log(nodes[child, available_column]) * inverse_visits)
        score = values[child] * inverse_visits + explore + weight * priors[child] / (visits + 1.0)
        if score > best_score:
            best_score = score
            best = child
    return best


_part("biased_child", GUIDE_PRIOR, lambda parts, nodes, values, priors, child_of, n, c, weight,
      visits_column, available_column: NOT_CHOSEN, _best_biased)


# ------------------------------------------------------------------ leaves


def solved_leaf(parts, g, state, rewards, solve_tricks, budget, endgame):
    """Whether the leaf ``state`` was solved exactly (its rewards into ``rewards``): with the
    solver, at most ``solve_tricks`` tricks left and within ``budget`` positions."""
    _python_call("solved_leaf")


def _solve_leaf(parts, g, state, rewards, solve_tricks, budget, endgame):
    return tricks_left(g, state) <= solve_tricks and solve_into(
        g, state, rewards, endgame[0], endgame[1], endgame[2], endgame[3], endgame[4], endgame[5],
        endgame[6], endgame[7], endgame[8], budget)


_part("solved_leaf", SOLVE_ENDGAMES,
      lambda parts, g, state, rewards, solve_tricks, budget, endgame: False, _solve_leaf)


def valued_leaf(parts, g, state, net, x, q, actions, scores, rewards):
    """Whether the network valued the leaf ``state`` (every seat's reward into ``rewards``)."""
    _python_call("valued_leaf")


def _value_leaf(parts, g, state, net, x, q, actions, scores, rewards):
    leaf_rewards(g, state, net, x, q, actions, scores, rewards)
    return True


def _no_value(parts, g, state, net, x, q, actions, scores, rewards):
    return False


def _seat_values_leaf(world: bool, mixed: bool):
    """The leaf valued by the network's seat values (read from every seat's observation with
    ``world``); ``mixed``: into ``scores``, the leaf then played out too (:func:`mix_leaf`)."""
    def leaf(parts, g, state, net, x, q, actions, scores, rewards):
        value_rewards(g, state, net, x, q, actions, scores if mixed else rewards, world)
        return not mixed
    return leaf


@overload(valued_leaf, prefer_literal=True)
def _choose_leaf(parts, g, state, net, x, q, actions, scores, rewards):
    """The seat values (:data:`GUIDE_VALUE`), else the network's play-on (:data:`GUIDE_LEAF`).
    Mixed with a playout (:data:`GUIDE_MIX`), the values go into ``scores`` and the leaf is not
    valued yet (False): :func:`mix_leaf` blends them with the playout's rewards."""
    if isinstance(parts, types.IntegerLiteral):
        if parts.literal_value & GUIDE_VALUE:
            return _seat_values_leaf(bool(parts.literal_value & GUIDE_WORLD),
                                     bool(parts.literal_value & GUIDE_MIX))
        if not parts.literal_value & GUIDE_LEAF:
            return _no_value
    return _value_leaf


def mix_leaf(parts, scores, rewards, players, weight):
    """With :data:`GUIDE_MIX`: each seat's reward becomes ``weight * value + (1 - weight) *
    playout``, the values being in ``scores`` (written by :func:`valued_leaf`)."""
    _python_call("mix_leaf")


def _mix(parts, scores, rewards, players, weight):
    for seat in range(players):
        rewards[seat] = weight * scores[seat] + (1.0 - weight) * rewards[seat]


_part("mix_leaf", GUIDE_MIX, lambda parts, scores, rewards, players, weight: None, _mix)


def net_deal(parts, g, state, net, x, q, actions, scores):
    """With the network's playouts, play the current deal of ``state`` out by the network."""
    _python_call("net_deal")


def _play_deal(parts, g, state, net, x, q, actions, scores):
    net_playout(g, state, net, x, q, actions, scores)


_part("net_deal", GUIDE_PLAYOUT, lambda parts, g, state, net, x, q, actions, scores: None, _play_deal)


# ------------------------------------------------------------------ PIMC's solved worlds


def solved_world(parts, g, world, seat, root_actions, n_root, visits, values, rewards, after,
                 solve_tricks, budget, endgame):
    """Whether ``world`` was solved whole: each root action's exact value for ``seat`` into
    ``values`` (one visit each), with the solver and at most ``solve_tricks`` tricks left."""
    _python_call("solved_world")


def _solve_world(parts, g, world, seat, root_actions, n_root, visits, values, rewards, after,
                 solve_tricks, budget, endgame):
    if tricks_left(g, world) > solve_tricks:
        return False
    for i in range(n_root):
        copy_into(after, world)
        dispatch.apply_action(g, after, root_actions[i])
        if not solve_into(g, after, rewards, endgame[0], endgame[1], endgame[2], endgame[3], endgame[4],
                          endgame[5], endgame[6], endgame[7], endgame[8], budget):
            return False
        visits[i] = 1
        values[i] = rewards[seat]
    return True


_part("solved_world", SOLVE_ENDGAMES,
      lambda parts, g, world, seat, root_actions, n_root, visits, values, rewards, after, solve_tricks,
      budget, endgame: False, _solve_world)
