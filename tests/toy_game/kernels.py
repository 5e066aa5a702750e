"""Toy: numba kernels over the flat state (the engine contract, engine/contract.py).

Cards use :data:`toy_game.game.TOY_DECK`: ``index = suit * 4 + rank``, suits
``c d h`` and ranks ``J Q K A`` from the lowest, so within a suit a higher
index is a higher card. An action is the index of the card played.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from slagwerk.engine.bits import (
    ONE,
    ZERO,
    bit,
    lowest_bit,
    mask_to_indices,
    popcount,
    rand_below,
    random_card,
    select_bit,
)
from slagwerk.engine.common import (
    begin_deal,
    deal_hands,
    end_deal,
    end_match,
    end_trick,
    init_header,
    left_of,
    match_outcome_reward,
    play_card_to_trick,
    shuffle_all,
    start_play,
)
from slagwerk.engine.state import (
    DEAL_POINTS,
    DEALER,
    LEADER,
    OBJECTIVE_DEAL,
    OUTCOME,
    PHASE,
    PHASE_PLAY,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
    build_layout,
    card_play_fields,
)

from . import INFO

# The game's constants, and below its state's field offsets, are module-level names of its own
# kernels module: numba compiles a global as a constant into each kernel (no lookup, no division
# by a runtime value on the playout path), so every game declares its own, in the same shape.
GAME_ID = INFO.game_id
N_SEATS = 2
N_SUITS = 3
N_RANKS = 4
DECK_SIZE = N_SUITS * N_RANKS
HAND_SIZE = 3
TRICKS_PER_DEAL = HAND_SIZE
N_UNDEALT = DECK_SIZE - N_SEATS * HAND_SIZE
ALL_CARDS = np.uint64((1 << DECK_SIZE) - 1)
SUIT_RUN = np.uint64((1 << N_RANKS) - 1)

OPTION_NAMES = ("target", "first_dealer")
DEAL_SIZE = DECK_SIZE
"""A deal vector lists all 12 cards: seat 0's 3, seat 1's 3, then the 6 undealt."""
MAX_ACTIONS = HAND_SIZE

LAYOUT = build_layout(
    [
        ("target", 1),  # option: tricks that end the match
        ("hands", N_SEATS),  # card mask per seat
        *card_play_fields(N_SEATS),
        ("voids", N_SEATS),  # per seat, bit s: it did not follow suit s this deal (public)
    ]
)
STATE_SIZE = LAYOUT.size
TARGET = LAYOUT.offset["target"]
HANDS = LAYOUT.offset["hands"]
TRICK = LAYOUT.offset["trick"]
N_IN_TRICK = LAYOUT.offset["n_in_trick"]
GONE = LAYOUT.offset["gone"]
VOIDS = LAYOUT.offset["voids"]


@njit(cache=True, inline="always")
def suit_of(card):
    return card // N_RANKS


@njit(cache=True, inline="always")
def rank_of(card):
    return card % N_RANKS


@njit(cache=True, inline="always")
def suit_mask(suit):
    """The mask of every card of ``suit``."""
    return SUIT_RUN << np.uint64(suit * N_RANKS)


@njit(cache=True, inline="always")
def void_mask(voids):
    """The mask of every card of the suits whose bit is set in ``voids``."""
    m = ZERO
    for s in range(N_SUITS):
        if (voids >> s) & 1:
            m |= suit_mask(s)
    return m


@njit(cache=True, inline="always")
def legal_mask(state):
    """The mover's legal cards: those of the led suit if it has any, else its hand.

    Written without branches: a branch on the state here, inlined into the
    random playout loop (``random_action``), keeps numba from pruning the
    state's reference counting (tests/test_playout_codegen.py).
    """
    hand = np.uint64(state[HANDS + state[TO_MOVE]])
    follow = hand & suit_mask(suit_of(state[TRICK]))  # TRICK: the led card, once one is led
    must_follow = np.uint64(state[N_IN_TRICK] == 1) & np.uint64(follow != ZERO)  # 1 or 0
    keep = ZERO - must_follow  # every bit, or none
    return (follow & keep) | (hand & ~keep)


# ------------------------------------------------------------------ contract


@njit(cache=True)
def init_match(state, options):
    """Start a match: ``options`` is int64 ``[target, first_dealer]``."""
    init_header(state, GAME_ID, N_SEATS, options[1])
    state[TARGET] = options[0]


@njit(cache=True)
def random_deal(state, rng, out):
    """A uniformly random deal vector: the deck, shuffled (Fisher-Yates)."""
    shuffle_all(out, DECK_SIZE, rng)


@njit(cache=True)
def apply_deal(state, deal):
    """Give each seat its three cards; the seat left of the dealer leads."""
    begin_deal(state)
    deal_hands(state, deal, HANDS, N_SEATS, HAND_SIZE)
    for seat in range(N_SEATS):
        state[VOIDS + seat] = 0
    state[N_IN_TRICK] = 0
    state[GONE] = 0
    start_play(state, N_SEATS)


@njit(cache=True)
def legal_actions(state, out):
    """The legal cards (ascending) into ``out``; their count (0 when nobody moves)."""
    if state[PHASE] != PHASE_PLAY:
        return 0
    return mask_to_indices(legal_mask(state), out)


@njit(cache=True, inline="always")
def random_action(state, rng):
    """A uniformly random legal card (optional in the contract; playouts use it)."""
    return random_card(legal_mask(state), rng)


@njit(cache=True, inline="always")
def apply_action(state, action):
    """Play card ``action`` for the seat to move (unchecked)."""
    if state[N_IN_TRICK] == 1:
        led = suit_of(state[TRICK])
        if suit_of(action) != led:  # did not follow: everyone now knows it has no such card
            state[VOIDS + state[TO_MOVE]] |= 1 << led
    if play_card_to_trick(state, action, HANDS, GONE, TRICK, N_IN_TRICK, N_SEATS):
        _finish_trick(state)


@njit(cache=True, inline="always")
def _finish_trick(state):
    lead, reply = state[TRICK], state[TRICK + 1]
    beaten = np.int64(suit_of(reply) == suit_of(lead)) * np.int64(reply > lead)
    winner = (state[LEADER] + beaten) % N_SEATS  # the second card wins if it beat the lead
    state[DEAL_POINTS + winner] += 1
    state[TOTALS + winner] += 1
    end_trick(state, winner)
    t0, t1 = state[TOTALS], state[TOTALS + 1]
    if state[TRICKS_DONE] < TRICKS_PER_DEAL:
        state[TO_MOVE] = winner
    elif max(t0, t1) >= state[TARGET]:
        state[OUTCOME] = 1 + np.int64(t0 > t1) - np.int64(t0 < t1)  # 2 win, 1 draw, 0 loss
        state[OUTCOME + 1] = 2 - state[OUTCOME]
        end_match(state)
    else:
        end_deal(state, left_of(state[DEALER], N_SEATS))


@njit(cache=True)
def returns(state, objective, out):
    """Rewards in [0, 1]: the share of the deal's 3 tricks, or the match outcome."""
    if objective == OBJECTIVE_DEAL:
        for s in range(N_SEATS):
            out[s] = state[DEAL_POINTS + s] / TRICKS_PER_DEAL
    else:
        match_outcome_reward(state, out)


@njit(cache=True)
def determinize(state, observer, rng):
    """Redeal the cards ``observer`` cannot see (in place).

    The observer sees its own hand and the played cards; the opponent's hand
    and the undealt cards are pooled, and the opponent gets back as many
    cards as it holds, drawn uniformly from the pool without the suits it
    has shown it lacks. The undealt cards are the rest (implicit).
    """
    other = left_of(observer, N_SEATS)
    pool = ALL_CARDS & ~np.uint64(state[HANDS + observer]) & ~np.uint64(state[GONE])
    pool &= ~void_mask(state[VOIDS + other])
    left = popcount(pool)
    hand = ZERO
    for _ in range(popcount(np.uint64(state[HANDS + other]))):
        card = select_bit(pool, rand_below(rng, left))
        hand |= bit(card)
        pool &= ~bit(card)
        left -= 1
    state[HANDS + other] = np.int64(hand)


@njit(cache=True, inline="always")
def _lowest_rank(mask):
    """The card of lowest rank in a non-empty ``mask``."""
    best = lowest_bit(mask)
    m = mask
    while m != ZERO:
        card = lowest_bit(m)
        m &= m - ONE
        if rank_of(card) < rank_of(best):
            best = card
    return best


@njit(cache=True, inline="always")
def _highest_rank(mask):
    """The card of highest rank in a non-empty ``mask``."""
    best = lowest_bit(mask)
    m = mask
    while m != ZERO:
        card = lowest_bit(m)
        m &= m - ONE
        if rank_of(card) > rank_of(best):
            best = card
    return best


@njit(cache=True)
def heuristic_action(state, rng):
    """Lead the highest card; second, win with the cheapest card that wins,
    else throw the lowest card. Reads only the mover's hand and the trick."""
    legal = legal_mask(state)
    if state[N_IN_TRICK] == 0:
        return _highest_rank(legal)
    lead = state[TRICK]
    winners = legal & suit_mask(suit_of(lead)) & ~(bit(lead + 1) - ONE)
    if winners != ZERO:
        return lowest_bit(winners)
    return _lowest_rank(legal)
