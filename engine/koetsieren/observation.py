"""Koetsieren: one seat's observation for environments, and the action index (docs/envs.md).

The contract is :mod:`slagwerk.engine.encoding`'s. The action index is the
engine's action: ``0..4`` play slot ``T1 T2 F1 F2 H``, ``5..8`` name trump
``c d h s``, ``9..14`` bid ``0..5``. The encoding has room for six seats;
seats beyond the match's players stay zero. A slot the seat cannot see (its
own forehead cards, the others' hidden cards) shows only that it still holds
a card (docs/rules.md §2.2); an emptied slot shows the card played from it
(§2.7).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..encoding import (
    identity_index_kernels,
    part_offsets,
    put_fraction,
    put_mask,
    put_one_hot,
    relative_seat,
)
from ..state import (
    DEAL_POINTS,
    DEALER,
    LEADER,
    N_PLAYERS,
    PHASE,
    PHASE_PLAY,
    TO_MOVE,
    TOTALS,
)
from . import kernels as K

N = K.N_SEATS
C = K.DECK_SIZE
SLOTS = K.SLOTS_PER_SEAT
SLOT_WIDTH = C + 1
"""A slot: the card's one-hot (when the seat sees it, or once it is played: the card
played from it), then 1 while it holds a card."""
OBSERVATION_PARTS = (
    ("slots", N * SLOTS * SLOT_WIDTH),  # by relative seat, slots T1 T2 F1 F2 H
    ("present", N),  # 1 for the relative seats in the match
    ("trump", K.N_SUITS),
    ("bids", N * (K.MAX_BID + 2)),  # per relative seat: no bid yet, then bids 0..5
    ("tricks_won", N),  # / 5 (the deal's tricks)
    ("trick", N * C),  # the current trick's cards, by relative seat
    ("played", C),  # cards played in earlier tricks of this deal
    ("totals", N),  # penalty totals / 10
    ("deal_points", N),  # penalty points of the last scored deal / 5 (the deal's tricks)
    ("phase", 3),  # naming trump, bidding, playing
    ("trump_maker", N),  # one-hot relative seats
    ("dealer", N),
    ("leader", N),
    ("to_move", N),
)
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_PARTS)
NUM_ACTIONS = K.N_ACTION_IDS
_AT = part_offsets(OBSERVATION_PARTS)
SLOTS_AT, PRESENT_AT, TRUMP_AT, BIDS_AT, WON_AT = (
    _AT["slots"], _AT["present"], _AT["trump"], _AT["bids"], _AT["tricks_won"])
TRICK_AT, PLAYED_AT, TOTALS_AT, POINTS_AT, PHASE_AT = (
    _AT["trick"], _AT["played"], _AT["totals"], _AT["deal_points"], _AT["phase"])
MAKER_AT, DEALER_AT, LEADER_AT, MOVER_AT = _AT["trump_maker"], _AT["dealer"], _AT["leader"], _AT["to_move"]
BID_WIDTH = K.MAX_BID + 2
DEAL_CHOICES = ()


def dealt_positions(options) -> int:
    """Each player's dealt slots (five; ``hand`` in a small variant, docs/rules.md §2.15)
    are drawn card by card; the undealt cards follow. ``options`` is the kernels' option
    array."""
    return int(options[3]) * int(options[0])


@njit(cache=True)
def observe(state, seat, out):
    out[:] = 0.0
    n = state[N_PLAYERS]
    tricks = state[K.DEALT_HAND]  # of a deal: five, fewer in a small variant (a share, not a division)
    for t in range(n):
        r = relative_seat(t, seat, n)
        out[PRESENT_AT + r] = 1.0
        for slot in range(SLOTS):
            card = K.slot_card(state, t, slot)
            at = SLOTS_AT + (r * SLOTS + slot) * SLOT_WIDTH
            if card == K.EMPTY_SLOT:
                played = state[K.PLAYED_FROM + t * SLOTS + slot]  # seen by all (docs/rules.md §2.7)
                if played != K.EMPTY_SLOT:
                    out[at + played] = 1.0
                continue
            out[at + C] = 1.0
            if slot == K.SLOT_H:
                visible = t == seat
            elif K.is_forehead(slot):
                visible = t != seat
            else:
                visible = True
            if visible:
                out[at + card] = 1.0
        bid = state[K.BIDS + t]
        out[BIDS_AT + r * BID_WIDTH + (0 if bid == K.NO_BID else bid + 1)] = 1.0
        put_fraction(out, WON_AT + r, K.SHARE_OF[tricks, state[K.TRICKS_WON + t]], 1)
        put_fraction(out, TOTALS_AT + r, state[TOTALS + t], K.LOSING_TOTAL)
        put_fraction(out, POINTS_AT + r, K.SHARE_OF[tricks, state[DEAL_POINTS + t]], 1)
    put_one_hot(out, TRUMP_AT, state[K.TRUMP])
    phase = state[PHASE]
    leader = state[LEADER]
    in_trick = np.uint64(0)
    if phase == PHASE_PLAY:
        for k in range(state[K.N_IN_TRICK]):
            card = state[K.TRICK + k]
            in_trick |= np.uint64(1) << np.uint64(card)
            out[TRICK_AT + relative_seat((leader + k) % n, seat, n) * C + card] = 1.0
    put_mask(out, PLAYED_AT, np.uint64(state[K.GONE]) & ~in_trick)
    if phase == K.PHASE_TRUMP:
        out[PHASE_AT] = 1.0
    elif phase == K.PHASE_BID:
        out[PHASE_AT + 1] = 1.0
    elif phase == PHASE_PLAY:
        out[PHASE_AT + 2] = 1.0
    put_one_hot(out, MAKER_AT, relative_seat(state[K.TRUMP_MAKER], seat, n))
    put_one_hot(out, DEALER_AT, relative_seat(state[DEALER], seat, n))
    put_one_hot(out, LEADER_AT, relative_seat(leader, seat, n))
    put_one_hot(out, MOVER_AT, relative_seat(state[TO_MOVE], seat, n))


legal_indices, index_of = identity_index_kernels(K.legal_actions, K.MAX_ACTIONS)


STEP_PARTS = (
    ("mover", N),  # relative seat
    ("action", NUM_ACTIONS),  # the action index: slot played, trump named or bid (all public)
    ("card", C),  # the card a played slot held (shown to all once played, docs/rules.md §2.7)
)
STEP_SIZE = sum(size for _, size in STEP_PARTS)
_ACTION_AT, _CARD_AT = N, N + NUM_ACTIONS


def max_deal_steps(options) -> int:
    """Trump is named once, each player bids once and plays its five slots (its ``hand``
    dealt slots in a small variant)."""
    return 1 + (1 + int(options[3])) * int(options[0])


@njit(cache=True)
def observe_step(before, after, seat, action, out):
    mover = before[TO_MOVE]
    put_one_hot(out, 0, relative_seat(mover, seat, before[N_PLAYERS]))
    out[_ACTION_AT + action] = 1.0
    if action < K.TRUMP_BASE:
        out[_CARD_AT + after[K.PLAYED_FROM + mover * SLOTS + action]] = 1.0
