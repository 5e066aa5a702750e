"""Shared pieces of the games' observation encodings (``engine/<game>/observation.py``).

Environments (:mod:`slagwerk.envs`) give a learning program one seat's view
as a flat ``float32`` vector and its legal moves as a mask over a compact
action index. Each game declares its encoding in its own package (the module
named by its :class:`~slagwerk.engine.spec.GameInfo` ``observation``), as
numba kernels that read the state array but only what that seat can see.
An observation module provides

``OBSERVATION_PARTS``
    ``(name, size)`` of each part of the vector, in order (docs/envs.md).
``OBSERVATION_SIZE``, ``NUM_ACTIONS``
    The vector's length and the size of the compact action index.
``observe(state, seat, out)``
    Write ``seat``'s observation into ``out`` (float32[OBSERVATION_SIZE],
    every entry in ``[0, 1]``).
``legal_indices(state, mask, actions) -> int``
    Set ``mask`` (int8[NUM_ACTIONS]) to the legal indices of the seat to
    move and ``actions[i]`` (int64) to the engine action of index ``i``;
    return their count (0 when nobody is to move).
``index_of(state, action) -> int``
    The compact index of a legal engine action.
``dealt_positions(options) -> int`` and ``DEAL_CHOICES``
    How a deal is drawn as chance events (OpenSpiel): the first positions
    of the deal vector one card at a time, the rest of the cards after them
    in ascending order (their order does not matter to the rules), and each
    ``(position, low, high)`` of ``DEAL_CHOICES`` a uniform integer (or of
    ``deal_choices(options)``, where a module has it: choices that depend
    on the options).
``learnt_events(game, before, after, seat, action) -> str`` (optional)
    What ``seat`` learns from ``action`` (taking ``before`` to ``after``)
    besides the action's text (Kozel: the cards it draws, the cards a
    molodka shows), for perfect-recall information states.
``STEP_PARTS``, ``STEP_SIZE``, ``max_deal_steps(options)``, ``observe_step(before, after, seat, action, out)``
    One player action of the deal as ``seat`` saw it, for OpenSpiel's
    perfect-recall information-state tensor (the observation, then every
    action of the deal so far, one block each): ``observe_step`` writes the
    block (float32[STEP_SIZE], zeroed, every entry in ``[0, 1]``) of
    ``action``, made by ``before[TO_MOVE]`` and taking ``before`` to
    ``after``: the same facts as the action's part of the information-state
    string (its ``seen_text`` and ``learnt_events``), nothing ``seat`` did
    not see. ``max_deal_steps`` bounds the player actions of one deal.
``HISTORY_FROM_VIEW`` (optional, True by default)
    False where a seat's view does not hold everything its blocks show
    (Kozel: which card it drew after which trick), so that an agent cannot
    rebuild them from its view (:mod:`slagwerk.engine.history`) and no
    model reading the history is trained or played for the game.

Seats in an encoding are *relative*: position 0 is the observing seat, then
clockwise, so one learned policy plays every seat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ONE, ZERO, popcount
from .state import TO_MOVE

ENCODING_VERSION = 1
"""The version of a game's observation, unless its module sets its own ``ENCODING_VERSION``
(raised when the observation changes its meaning): a model trained on another version reads
other numbers (a model file records the version it was trained on, :func:`version_of`)."""


def version_of(module) -> int:
    """The encoding version of the observation ``module`` (``engine/<game>/observation.py``)."""
    return getattr(module, "ENCODING_VERSION", ENCODING_VERSION)


def part_offsets(parts) -> dict[str, int]:
    """Where each ``(name, size)`` part starts in the vector."""
    offsets, at = {}, 0
    for name, size in parts:
        offsets[name] = at
        at += size
    return offsets


@njit(cache=True, inline="always")
def put_mask(out, at, mask):
    """Set ``out[at + c] = 1`` for every card ``c`` of ``mask``."""
    m = np.uint64(mask)
    while m != ZERO:
        low = m & (~m + ONE)
        out[at + popcount(low - ONE)] = 1.0
        m ^= low


@njit(cache=True, inline="always")
def put_one_hot(out, at, index):
    """Set ``out[at + index] = 1``; nothing for a negative ``index``."""
    if index >= 0:
        out[at + index] = 1.0


@njit(cache=True, inline="always")
def put_fraction(out, at, value, scale):
    """``out[at] = value / scale``, clipped to ``[0, 1]``."""
    x = value / scale
    out[at] = 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


@njit(cache=True, inline="always")
def relative_seat(seat, observer, n):
    """``seat``'s position clockwise from ``observer`` (0 = the observer); -1 for no seat."""
    if seat < 0:
        return -1
    return (seat - observer + n) % n


@njit(cache=True, inline="always")
def card_step(before, seat, action, n, out):
    """``observe_step`` of a game whose every action is a card played face up:
    the mover's relative seat (one-hot, ``n``), then the card (one-hot)."""
    put_one_hot(out, 0, relative_seat(before[TO_MOVE], seat, n))
    out[n + action] = 1.0


def identity_index_kernels(legal_actions, max_actions: int):
    """``legal_indices`` and ``index_of`` of a game whose engine actions already are the
    compact index (a card or a slot): its ``legal_actions`` kernel and its most actions."""

    @njit(cache=True)
    def legal_indices(state, mask, actions):
        found = np.empty(max_actions, dtype=np.int64)
        return identity_indices(found, legal_actions(state, found), mask, actions)

    @njit(cache=True)
    def index_of(state, action):
        return action

    return legal_indices, index_of


@njit(cache=True, inline="always")
def identity_indices(actions_found, n, mask, actions):
    """``legal_indices`` of a game whose engine actions already are the compact
    index (``actions_found[:n]`` from its ``legal_actions``)."""
    mask[:] = 0
    for i in range(n):
        a = actions_found[i]
        mask[a] = 1
        actions[a] = a
    return n
