"""Exact endgames: the rest of a deal solved in one world (perfect information), in numba.

Late in a deal few cards are left, and a world (a determinization, or the true
state) can be played out exhaustively instead of sampled, as bridge and Skat
programs solve each sampled world (GIB; Kupferschmid and Helmert 2006). The
solver here is **max-n** (Luckhardt and Irani 1986): every seat chooses the
action that maximises its own reward of the deal (``returns`` with
``OBJECTIVE_DEAL``), the first such action in the game's order on ties, and a
position's value is the vector of every seat's reward under that play. Partners
share a reward, so in the two-sided team games (Kozel, Aluette) this is exactly
minimax between the teams; where seats score apart (Coins, Koetsieren) it is
the usual max-n assumption that each plays for itself.

A transposition table keyed by a hash of the whole state keeps each position's
value once; a node budget bounds the work (a solve that would need more gives
up, and the caller falls back on its search). ``tests/test_endgame.py`` checks
the solver against plain exhaustive max-n in Python on random late positions of
every game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import dispatch
from ..engine.common import copy_into
from ..engine.state import GAME, MAX_SEATS, N_PLAYERS, OBJECTIVE_DEAL, TO_MOVE, TRICKS_DONE

MAX_DEPTH = 256
"""Most actions from a solved position to the deal's end (a deal of any game has fewer)."""
DEFAULT_TABLE_BITS = 16
"""The transposition table holds ``2 ** bits`` positions (replaced on collision)."""
DEFAULT_NODE_BUDGET = 200_000
"""Positions a solve may expand before it gives up."""


@njit(cache=True)
def state_hash(state):
    """A 64-bit FNV-1a hash of the whole state, never 0 (0 marks an empty table slot)."""
    h = np.uint64(14695981039346656037)
    for i in range(state.shape[0]):
        h ^= np.uint64(state[i])
        h *= np.uint64(1099511628211)
    return h | np.uint64(1)


class Solver:
    """Work buffers and transposition table of the endgame solver for one game."""

    def __init__(self, state_size: int, max_actions: int, table_bits: int = DEFAULT_TABLE_BITS,
                 depth: int = MAX_DEPTH):
        self.states = np.zeros((depth + 1, state_size), np.int64)
        self.actions = np.zeros((depth + 1, max_actions), np.int64)
        self.values = np.zeros((depth + 1, MAX_SEATS), np.float64)
        self.keys = np.zeros(1 << table_bits, np.uint64)
        self.table = np.zeros((1 << table_bits, MAX_SEATS), np.float64)
        self.counter = np.zeros(1, np.int64)
        self.frames = np.zeros((depth + 1, FRAME_FIELDS), np.int64)
        self.best = np.zeros(depth + 1, np.float64)
        self.bounds = np.zeros((depth + 1, 4), np.float64)

    @classmethod
    def unused(cls, state_size: int) -> Solver:
        """The smallest buffers, for a search that never solves (they are passed, never read)."""
        return cls(state_size, 1, table_bits=0, depth=0)

    def arguments(self) -> tuple:
        """The arrays :func:`solve_into` takes after ``out``."""
        return (self.states, self.actions, self.values, self.keys, self.table, self.counter, self.frames,
                self.best, self.bounds)


# Columns of the solver's ``frames`` (one row per depth of the line being searched).
ACTIONS_HERE = 0  # legal actions of the position
NEXT_ACTION = 1  # the next of them to try
KEY = 2  # the position's hash (as int64)
FRAME_FIELDS = 3


@njit(cache=True)
def _descend(g, depth, n, key, states, actions, frames, counter, budget):
    """Count the position at ``depth`` (with ``n`` actions and hash ``key``), open its frame and
    set up its first child; False if that goes past the budget or the stack."""
    counter[0] += 1
    if counter[0] > budget or depth + 1 >= states.shape[0]:
        return False
    frames[depth, ACTIONS_HERE] = n
    frames[depth, NEXT_ACTION] = 1
    frames[depth, KEY] = np.int64(key)
    copy_into(states[depth + 1], states[depth])
    dispatch.apply_action(g, states[depth + 1], actions[depth, 0])
    return True


@njit(cache=True)
def _next_sibling(g, depth, states, actions, frames):
    """Set up the parent's next child at ``depth``; False if it has tried every action."""
    parent = depth - 1
    i = frames[parent, NEXT_ACTION]
    if i >= frames[parent, ACTIONS_HERE]:
        return False
    frames[parent, NEXT_ACTION] = i + 1
    copy_into(states[depth], states[parent])
    dispatch.apply_action(g, states[depth], actions[parent, i])
    return True


@njit(cache=True)
def _pass_up(depth, mover, values, best):
    """Give the finished value of ``values[depth]`` to its parent, whose ``mover`` keeps it if
    it is better for that seat than what it has."""
    parent = depth - 1
    if values[depth, mover] > best[parent]:
        best[parent] = values[depth, mover]
        for s in range(MAX_SEATS):
            values[parent, s] = values[depth, s]


@njit(cache=True)
def _maxn(g, states, actions, values, keys, table, counter, budget, frames, best):
    """Solve ``states[0]`` into ``values[0]``; False if the budget ran out first.

    Depth first, with an explicit stack (numba's disk cache does not keep recursive functions).
    """
    mask = np.uint64(keys.shape[0] - 1)
    depth = 0
    entering = True
    while True:
        if entering:
            state = states[depth]
            n = dispatch.legal_actions(g, state, actions[depth])
            entering = False
            if n == 0:  # the deal is over
                dispatch.returns(g, state, OBJECTIVE_DEAL, values[depth])
            else:
                key = state_hash(state)
                slot = key & mask
                if keys[slot] == key:
                    for s in range(MAX_SEATS):
                        values[depth, s] = table[slot, s]
                else:
                    if not _descend(g, depth, n, key, states, actions, frames, counter, budget):
                        return False
                    best[depth] = -np.inf
                    depth += 1
                    entering = True
            continue
        if depth == 0:
            return True
        parent = depth - 1
        _pass_up(depth, states[parent, TO_MOVE], values, best)
        if _next_sibling(g, depth, states, actions, frames):
            entering = True
        else:  # the parent is solved
            key = np.uint64(frames[parent, KEY])
            slot = key & mask
            keys[slot] = key
            for s in range(MAX_SEATS):
                table[slot, s] = values[parent, s]
            depth = parent


# A transposition-table entry of alpha-beta holds team 0's value and what it is.
EXACT, LOWER_BOUND, UPPER_BOUND = 0.0, 1.0, 2.0


@njit(cache=True)
def _alphabeta(g, states, actions, values, keys, table, counter, budget, frames, best, bounds):
    """Team 0's exact reward from ``states[0]`` into ``values[0, 0]``, by alpha-beta between the
    two teams (seats ``s % 2``); False if the budget ran out first.

    ``bounds[depth]`` holds (alpha, beta, alpha and beta on entering) of the line's positions.
    Depth first with an explicit stack, as :func:`_maxn`.
    """
    mask = np.uint64(keys.shape[0] - 1)
    depth = 0
    bounds[0, 0], bounds[0, 1] = -np.inf, np.inf
    entering = True
    while True:
        if entering:
            state = states[depth]
            n = dispatch.legal_actions(g, state, actions[depth])
            entering = False
            alpha, beta = bounds[depth, 0], bounds[depth, 1]
            if n == 0:  # the deal is over
                dispatch.returns(g, state, OBJECTIVE_DEAL, values[depth])
                best[depth] = values[depth, 0]
            else:
                key = state_hash(state)
                slot = key & mask
                kind, known = table[slot, 1], table[slot, 0]
                if keys[slot] == key and (kind == EXACT or (kind == LOWER_BOUND and known >= beta)
                                          or (kind == UPPER_BOUND and known <= alpha)):
                    best[depth] = known
                else:
                    if not _descend(g, depth, n, key, states, actions, frames, counter, budget):
                        return False
                    bounds[depth, 2], bounds[depth, 3] = alpha, beta
                    best[depth] = -np.inf if state[TO_MOVE] % 2 == 0 else np.inf
                    bounds[depth + 1, 0], bounds[depth + 1, 1] = alpha, beta
                    depth += 1
                    entering = True
            continue
        if depth == 0:
            values[0, 0] = best[0]
            return True
        parent = depth - 1
        value = best[depth]
        if states[parent, TO_MOVE] % 2 == 0:  # team 0 maximises its reward
            if value > best[parent]:
                best[parent] = value
            bounds[parent, 0] = max(bounds[parent, 0], value)
        else:
            if value < best[parent]:
                best[parent] = value
            bounds[parent, 1] = min(bounds[parent, 1], value)
        if bounds[parent, 0] < bounds[parent, 1] and _next_sibling(g, depth, states, actions, frames):
            bounds[depth, 0], bounds[depth, 1] = bounds[parent, 0], bounds[parent, 1]
            entering = True
        else:  # the parent is solved, or cut off
            result = best[parent]
            key = np.uint64(frames[parent, KEY])
            slot = key & mask
            keys[slot] = key
            table[slot, 0] = result
            if result <= bounds[parent, 2]:
                table[slot, 1] = UPPER_BOUND
            elif result >= bounds[parent, 3]:
                table[slot, 1] = LOWER_BOUND
            else:
                table[slot, 1] = EXACT
            depth = parent


@njit(cache=True)
def solve_into(g, state, out, states, actions, values, keys, table, counter, frames, best, bounds, budget):
    """Every seat's reward under max-n play from ``state`` to the deal's end, into ``out``
    (float64[MAX_SEATS]); False (``out`` unchanged) if it needs more than ``budget`` positions.

    The transposition table (``keys``, ``table``) may carry over between solves of the same
    world; ``counter[0]`` counts the positions expanded, and is reset here.
    """
    copy_into(states[0], state)
    counter[0] = 0
    if dispatch.two_sided(g):  # minimax between the teams: alpha-beta
        if not _alphabeta(g, states, actions, values, keys, table, counter, budget, frames, best, bounds):
            return False
        for s in range(MAX_SEATS):
            out[s] = 0.0
        for s in range(state[N_PLAYERS]):
            out[s] = values[0, 0] if s % 2 == 0 else 1.0 - values[0, 0]
        return True
    if not _maxn(g, states, actions, values, keys, table, counter, budget, frames, best):
        return False
    for s in range(MAX_SEATS):
        out[s] = values[0, s]
    return True


@njit(cache=True)
def tricks_left(g, state):
    """Tricks still to play in the current deal (at most; Kozel's may end sooner)."""
    return dispatch.tricks_per_deal(g) - state[TRICKS_DONE]


def solve(state, budget: int = DEFAULT_NODE_BUDGET, solver: Solver | None = None):
    """Every seat's reward (float64[MAX_SEATS]) under max-n play from ``state`` (a ``State`` or
    its array; a fixed world) to the end of its deal, or None if that needs more than ``budget``
    positions."""
    from ..engine.registry import kernels_by_id

    array = np.ascontiguousarray(getattr(state, "array", state), dtype=np.int64)
    game = int(array[GAME])
    kernels = kernels_by_id(game)
    solver = solver or Solver(array.shape[0], kernels.MAX_ACTIONS)
    out = np.zeros(MAX_SEATS, np.float64)
    solved = dispatch.call(solve_into, game, array, out, *solver.arguments(), int(budget))
    return out if solved else None
