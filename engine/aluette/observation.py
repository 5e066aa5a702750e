"""Aluette: one seat's observation for environments, and the action index (docs/envs.md).

The contract is :mod:`slagwerk.engine.encoding`'s. The action index is the
card index (48). The seat sees its hand, the cards played and who won which
trick; the partner's hand and the undealt cards are never read
(docs/rules.md §4.2, §4.11).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..encoding import (
    card_step,
    identity_index_kernels,
    part_offsets,
    put_fraction,
    put_mask,
    put_one_hot,
    relative_seat,
)
from ..state import (
    DEAL_NUMBER,
    DEAL_POINTS,
    DEALER,
    LEADER,
    PHASE,
    PHASE_PLAY,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
)
from . import kernels as K

N = K.N_SEATS
C = K.DECK_SIZE
T = K.TRICKS_PER_DEAL
OBSERVATION_PARTS = (
    ("hand", C),
    ("played", C),  # cards played in earlier tricks of this deal
    ("trick", N * C),  # the current trick's cards, by relative seat
    ("tricks_won", N),  # / 9, by relative seat
    ("first_win", N),  # (index of the seat's first won trick + 1) / 9; 0 for none
    ("last_win", N),  # (index of its latest won trick + 1) / 9
    ("spoiled", 1),  # spoiled (pourri) tricks / 9
    ("totals", N),  # match points / 10
    ("deal_points", N),  # match points of the last scored deal / 2
    ("deal_number", K.DEALS_PER_MATCH),  # one-hot: deal 1..5
    ("dealer", N),  # one-hot relative seats
    ("leader", N),
    ("to_move", N),
    ("tricks_done", 1),  # / 9
)
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_PARTS)
NUM_ACTIONS = C
_AT = part_offsets(OBSERVATION_PARTS)
HAND_AT, PLAYED_AT, TRICK_AT, WON_AT, FIRST_AT, LAST_AT, SPOILED_AT = (
    _AT["hand"], _AT["played"], _AT["trick"], _AT["tricks_won"], _AT["first_win"], _AT["last_win"],
    _AT["spoiled"])
TOTALS_AT, POINTS_AT, DEAL_AT, DEALER_AT, LEADER_AT, MOVER_AT, TRICKS_AT = (
    _AT["totals"], _AT["deal_points"], _AT["deal_number"], _AT["dealer"], _AT["leader"], _AT["to_move"],
    _AT["tricks_done"])
DEAL_CHOICES = ()


def dealt_positions(options) -> int:
    """The four hands card by card; the deck's undealt cards follow (twelve in the full game),
    then a small variant's cards out of its deck (docs/rules.md §4.11). When a small variant
    deals its whole deck, the last hand is what is left. ``options`` is the kernels' option
    array ``[first_dealer, cards, hand]``."""
    cards, hand = options[1], options[2]
    return N * hand if N * hand < cards else cards - hand


@njit(cache=True)
def observe(state, seat, out):
    out[:] = 0.0
    put_mask(out, HAND_AT, state[K.HANDS + seat])
    leader = state[LEADER]
    in_trick = np.uint64(0)
    if state[PHASE] == PHASE_PLAY:
        for k in range(state[K.N_IN_TRICK]):
            card = state[K.TRICK + k]
            in_trick |= np.uint64(1) << np.uint64(card)
            out[TRICK_AT + relative_seat((leader + k) % N, seat, N) * C + card] = 1.0
    put_mask(out, PLAYED_AT, np.uint64(state[K.GONE]) & ~in_trick)
    for s in range(N):
        r = relative_seat(s, seat, N)
        put_fraction(out, WON_AT + r, state[K.TRICKS_WON + s], T)
        put_fraction(out, FIRST_AT + r, state[K.FIRST_WIN + s] + 1, T)
        put_fraction(out, LAST_AT + r, state[K.LAST_WIN + s] + 1, T)
        put_fraction(out, TOTALS_AT + r, state[TOTALS + s], 2 * K.DEALS_PER_MATCH)
        put_fraction(out, POINTS_AT + r, state[DEAL_POINTS + s], K.MAX_DEAL_POINTS)
    put_fraction(out, SPOILED_AT, state[K.SPOILED], T)
    deal = state[DEAL_NUMBER]
    if 1 <= deal <= K.DEALS_PER_MATCH:
        out[DEAL_AT + deal - 1] = 1.0
    put_one_hot(out, DEALER_AT, relative_seat(state[DEALER], seat, N))
    put_one_hot(out, LEADER_AT, relative_seat(leader, seat, N))
    put_one_hot(out, MOVER_AT, relative_seat(state[TO_MOVE], seat, N))
    put_fraction(out, TRICKS_AT, state[TRICKS_DONE], T)


legal_indices, index_of = identity_index_kernels(K.legal_actions, K.MAX_ACTIONS)


STEP_PARTS = (("mover", N), ("card", C))  # relative seat, card played (docs/envs.md)
STEP_SIZE = sum(size for _, size in STEP_PARTS)


def max_deal_steps(options) -> int:
    """Every dealt card is played, one action each."""
    return N * options[2]


@njit(cache=True)
def observe_step(before, after, seat, action, out):
    card_step(before, seat, action, N, out)
