"""Coins: one seat's observation for environments, and the action index (docs/envs.md).

The contract is :mod:`slagwerk.engine.encoding`'s. The action index is the
card index (48); everything here reads only what the seat sees: its hand,
the cards played, hand sizes and scores.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import popcount
from ..encoding import (
    card_step,
    identity_index_kernels,
    part_offsets,
    put_fraction,
    put_mask,
    put_one_hot,
    relative_seat,
)
from ..state import DEAL_POINTS, DEALER, LEADER, PHASE, PHASE_PLAY, TO_MOVE, TOTALS, TRICKS_DONE
from . import kernels as K

N = K.N_SEATS
C = K.DECK_SIZE
OBSERVATION_PARTS = (
    ("hand", C),  # the seat's cards
    ("played", C),  # cards played in earlier tricks of this deal
    ("trick", N * C),  # the current trick's cards, by relative seat
    ("hand_sizes", N),  # cards held / 16, by relative seat
    ("totals", N),  # match totals / target
    ("deal_points", N),  # coins taken this deal / 12
    ("target", 1),  # target / 1000
    ("tricks_done", 1),  # / 16
    ("dealer", N),  # one-hot relative seats
    ("leader", N),
    ("to_move", N),
)
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_PARTS)
NUM_ACTIONS = C
_AT = part_offsets(OBSERVATION_PARTS)
HAND, PLAYED, TRICK, SIZES, TOTALS_AT, POINTS_AT = (
    _AT["hand"], _AT["played"], _AT["trick"], _AT["hand_sizes"], _AT["totals"], _AT["deal_points"])
TARGET_AT, TRICKS_AT, DEALER_AT, LEADER_AT, MOVER_AT = (
    _AT["target"], _AT["tricks_done"], _AT["dealer"], _AT["leader"], _AT["to_move"])
DEAL_CHOICES = ()


def dealt_positions(options) -> int:
    """Every hand is drawn card by card, except that when the whole deck is dealt (the full
    game) the third hand is what is left. ``options`` is the kernels' option array."""
    ranks, hand = options[2], options[3]
    return K.N_SEATS * hand if K.N_SEATS * hand < K.N_SUITS * ranks else K.N_SUITS * ranks - hand


@njit(cache=True)
def observe(state, seat, out):
    out[:] = 0.0
    put_mask(out, HAND, state[K.HANDS + seat])
    n_trick = state[K.N_IN_TRICK] if state[PHASE] == PHASE_PLAY else 0
    in_trick = np.uint64(0)
    leader = state[LEADER]
    for k in range(n_trick):
        card = state[K.TRICK + k]
        in_trick |= np.uint64(1) << np.uint64(card)
        out[TRICK + relative_seat((leader + k) % N, seat, N) * C + card] = 1.0
    put_mask(out, PLAYED, np.uint64(state[K.GONE]) & ~in_trick)
    target = state[K.TARGET]
    for s in range(N):
        r = relative_seat(s, seat, N)
        put_fraction(out, SIZES + r, popcount(np.uint64(state[K.HANDS + s])), K.HAND_SIZE)
        put_fraction(out, TOTALS_AT + r, state[TOTALS + s], target)
        put_fraction(out, POINTS_AT + r, state[DEAL_POINTS + s], K.COINS_PER_DEAL)
    put_fraction(out, TARGET_AT, target, 1000.0)
    put_fraction(out, TRICKS_AT, state[TRICKS_DONE], K.TRICKS_PER_DEAL)
    put_one_hot(out, DEALER_AT, relative_seat(state[DEALER], seat, N))
    put_one_hot(out, LEADER_AT, relative_seat(leader, seat, N))
    put_one_hot(out, MOVER_AT, relative_seat(state[TO_MOVE], seat, N))


legal_indices, index_of = identity_index_kernels(K.legal_actions, K.MAX_ACTIONS)


STEP_PARTS = (("mover", N), ("card", C))  # relative seat, card played (docs/envs.md)
STEP_SIZE = sum(size for _, size in STEP_PARTS)


def max_deal_steps(options) -> int:
    """Every card dealt is played, one action each."""
    return K.N_SEATS * options[3]


@njit(cache=True)
def observe_step(before, after, seat, action, out):
    card_step(before, seat, action, N, out)
