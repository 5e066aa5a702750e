"""Coins (Mark Steere, 2022): numba kernels over the flat state (docs/rules.md §1).

Cards use :data:`slagwerk.engine.cards.COINS_DECK`: ``index = suit * 12 +
rank``, suits ``c o e b`` (cups, coins, swords, clubs) numbered so that suit
``s`` beats suit ``(s + 1) % 4``, ranks ``2 .. A`` as ``0 .. 11``. An action
is the index of the card played.

Every kernel follows the engine contract of :mod:`slagwerk.engine.contract`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import ONE, ZERO, bit, mask_to_indices, popcount, rand_below, select_bit
from ..common import (
    begin_deal,
    card_arithmetic,
    deal_hands,
    draw_front,
    end_deal,
    end_match,
    end_trick,
    free_play_kernels,
    init_header,
    match_outcome_reward,
    right_of,
    start_play,
    top_ranks_deck,
)
from ..state import (
    DEAL_POINTS,
    LEADER,
    OBJECTIVE_DEAL,
    OUTCOME,
    TO_MOVE,
    TOTALS,
    build_layout,
    card_play_fields,
)
from . import INFO

# The game's constants, and below its state's field offsets, are module-level names of its own
# kernels module: numba compiles a global as a constant into each kernel (no lookup, no division
# by a runtime value on the playout path), so every game declares its own, in the same shape.
GAME_ID = INFO.game_id
N_SEATS = 3
N_SUITS = 4
N_RANKS = 12
DECK_SIZE = N_SUITS * N_RANKS
HAND_SIZE = DECK_SIZE // N_SEATS
TRICKS_PER_DEAL = HAND_SIZE
SUIT_CUPS, SUIT_COINS, SUIT_SWORDS, SUIT_CLUBS = 0, 1, 2, 3
COINS_PER_DEAL = N_RANKS
COINS_MASK = np.uint64(((1 << N_RANKS) - 1) << (SUIT_COINS * N_RANKS))
ALL_CARDS = np.uint64((1 << DECK_SIZE) - 1)

DEFAULT_TARGET = INFO.options["target"].default
OPTION_NAMES = ("target", "first_dealer", "ranks", "hand")
DEAL_SIZE = DECK_SIZE
"""A deal vector lists the 48 cards: seat 0's hand, then seat 1's, then seat 2's (16 each in
the full game), then the cards left unused (a small variant's, §1.10)."""
MAX_ACTIONS = HAND_SIZE

LAYOUT = build_layout(
    [
        ("target", 1),  # option: points that win the match
        ("deck", 1),  # card mask of the deck in play: the top `ranks` of each suit (§1.10)
        ("hand_size", 1),  # option `hand`: cards dealt to each seat
        ("hands", N_SEATS),  # card mask per seat
        *card_play_fields(N_SEATS),
    ]
)
STATE_SIZE = LAYOUT.size
TARGET = LAYOUT.offset["target"]
DECK = LAYOUT.offset["deck"]
DEALT_HAND = LAYOUT.offset["hand_size"]
HANDS = LAYOUT.offset["hands"]
TRICK = LAYOUT.offset["trick"]
N_IN_TRICK = LAYOUT.offset["n_in_trick"]
GONE = LAYOUT.offset["gone"]


suit_of, rank_of = card_arithmetic(N_RANKS)


@njit(cache=True)
def trick_winner_position(c0, c1, c2):
    """Position (0, 1, 2 in play order) of the card that wins the trick.

    Three suits: the missing suit ``m`` beats suit ``(m + 1) % 4``, whose
    card wins. Two of a suit: the higher of those two (the odd card never
    wins). One suit: the highest.
    """
    s0, s1, s2 = suit_of(c0), suit_of(c1), suit_of(c2)
    if s0 == s1 and s1 == s2:
        if c0 > c1:
            return 0 if c0 > c2 else 2
        return 1 if c1 > c2 else 2
    if s0 == s1:
        return 0 if c0 > c1 else 1
    if s0 == s2:
        return 0 if c0 > c2 else 2
    if s1 == s2:
        return 1 if c1 > c2 else 2
    missing = 6 - s0 - s1 - s2
    winning_suit = (missing + 1) % N_SUITS
    if s0 == winning_suit:
        return 0
    return 1 if s1 == winning_suit else 2


@njit(cache=True)
def _winner_table():
    table = np.zeros((DECK_SIZE, DECK_SIZE, DECK_SIZE), dtype=np.int8)
    for c0 in range(DECK_SIZE):
        for c1 in range(DECK_SIZE):
            for c2 in range(DECK_SIZE):
                table[c0, c1, c2] = trick_winner_position(c0, c1, c2)
    return table


TRICK_WINNER = _winner_table()
"""``TRICK_WINNER[c0, c1, c2]``: :func:`trick_winner_position` for every trick
(110 KB). Playouts look the winner up: random tricks make the rule's
branches unpredictable, which costs more than the memory access."""


@njit(cache=True)
def coins_in(c0, c1, c2):
    """Number of coins-suit cards among three cards."""
    return popcount((bit(c0) | bit(c1) | bit(c2)) & COINS_MASK)


# ------------------------------------------------------------------ contract


@njit(cache=True)
def init_match(state, options):
    """Start a match in ``state`` (int64[STATE_SIZE], in place).

    ``options`` is int64 ``[target, first_dealer, ranks, hand]``. The state then waits for
    its first deal (``PHASE_DEAL_PENDING``).
    """
    init_header(state, GAME_ID, N_SEATS, options[1])
    state[TARGET] = options[0]
    state[DECK] = np.int64(top_ranks_deck(N_SUITS, N_RANKS, options[2]))
    state[DEALT_HAND] = options[3]


@njit(cache=True)
def random_deal(state, rng, out):
    """Write a uniformly random deal vector for the pending deal into ``out``.

    A partial Fisher-Yates shuffle of the deck in play: the hands are drawn card by
    card, except that when the whole deck is dealt (the full game) the last hand is the
    cards left (order within a hand is irrelevant). Cards out of play follow, unshuffled.
    """
    deck = np.uint64(state[DECK])
    hand = state[DEALT_HAND]
    in_play = mask_to_indices(deck, out)  # the deck in play first (all 48 in order in the full game)
    mask_to_indices(ALL_CARDS & ~deck, out[in_play:])
    draw_front(out, in_play, N_SEATS * hand if N_SEATS * hand < in_play else in_play - hand, rng)


@njit(cache=True)
def apply_deal(state, deal):
    """Deal the cards of ``deal`` (int64[DEAL_SIZE]) and start play (in place).

    The dealer is already in ``state[DEALER]``; the player to its left leads.
    """
    begin_deal(state)
    deal_hands(state, deal, HANDS, N_SEATS, state[DEALT_HAND])
    state[N_IN_TRICK] = 0
    state[GONE] = 0
    start_play(state, N_SEATS)


@njit(cache=True, inline="always")
def _finish_trick(state):
    c0, c1, c2 = state[TRICK], state[TRICK + 1], state[TRICK + 2]
    winner = (state[LEADER] + TRICK_WINNER[c0, c1, c2]) % N_SEATS
    coins = coins_in(c0, c1, c2)
    state[DEAL_POINTS + winner] += coins
    state[TOTALS + winner] += coins
    end_trick(state, winner)
    if state[TOTALS + winner] >= state[TARGET]:
        for s in range(N_SEATS):
            state[OUTCOME + s] = 2 if s == winner else 0
        end_match(state)
    elif np.uint64(state[HANDS + winner]) == ZERO:
        end_deal(state, right_of(winner, N_SEATS))
    else:
        state[TO_MOVE] = winner


# Any card in hand may be played (no obligation to follow suit).
legal_actions, random_action, apply_action = free_play_kernels(HANDS, GONE, TRICK, N_IN_TRICK, N_SEATS,
                                                               _finish_trick)


@njit(cache=True)
def returns(state, objective, out):
    """Per-seat rewards in [0, 1] into ``out`` (float64[n]).

    ``OBJECTIVE_DEAL``: the share of the deck's coins each seat took (12 in the full game;
    a small variant's deck holds one per rank, dealt or not).
    ``OBJECTIVE_MATCH``: the match outcome (call only on a finished match).
    """
    if objective == OBJECTIVE_DEAL:
        coins = popcount(np.uint64(state[DECK]) & COINS_MASK)
        for s in range(N_SEATS):
            out[s] = state[DEAL_POINTS + s] / coins
    else:
        match_outcome_reward(state, out)


@njit(cache=True)
def determinize(state, observer, rng):
    """Redeal every card ``observer`` cannot see, uniformly (in place).

    The observer sees its own hand and every played card; the cards of the deck in play
    it has not seen (the other two hands, and a small variant's unused cards) are pooled
    and dealt back to the other hands with their sizes kept. No suit-following rule
    exists, so play reveals nothing more about who holds what.
    """
    pool = np.uint64(state[DECK]) & ~np.uint64(state[HANDS + observer]) & ~np.uint64(state[GONE])
    left = popcount(pool)
    for s in range(N_SEATS):
        if s == observer:
            continue
        need = popcount(np.uint64(state[HANDS + s]))
        hand = ZERO
        for _ in range(need):
            card = select_bit(pool, rand_below(rng, left))
            hand |= bit(card)
            pool &= ~bit(card)
            left -= 1
        state[HANDS + s] = np.int64(hand)


# ------------------------------------------------------------ heuristic policy

RANK_COST = 0.04
"""Coins of value charged per rank step of the card spent (keep high cards)."""
COINS_GIVEN_WEIGHT = 0.5
"""How much a coin taken by an opponent counts against the mover."""
SUIT_MASK_LOW = np.uint64((1 << N_RANKS) - 1)


@njit(cache=True, inline="always")
def _is_coins(suit):
    return 1.0 if suit == SUIT_COINS else 0.0


@njit(cache=True, inline="always")
def _outcome(won, coins):
    """The mover's balance of a trick holding ``coins`` coins: taken, or given away."""
    return coins if won else -COINS_GIVEN_WEIGHT * coins


@njit(cache=True, inline="always")
def _in_suit(mask, suit):
    return popcount((np.uint64(mask) >> np.uint64(suit * N_RANKS)) & SUIT_MASK_LOW)


@njit(cache=True, inline="always")
def _suit_counts(mask):
    """Cards of ``mask`` per suit, as a tuple."""
    return (_in_suit(mask, 0), _in_suit(mask, 1), _in_suit(mask, 2), _in_suit(mask, 3))


@njit(cache=True, inline="always")
def _third_suit_wins(suit, other, third):
    """With three suits in a trick, whether ``suit``'s card wins (the missing suit
    beats the one after it)."""
    return suit == (6 - suit - other - third + 1) % N_SUITS


@njit(cache=True)
def _suit_terms(c0, trick_size, s, beats_lead, counts):
    """``(q, l, k)``: the sum of the mover's balance over every unseen reply
    (second hand: each third card; lead: each ordered pair of replies) of a
    card of suit ``s`` is ``q * b * (b - 1) + l * b + k``, ``b`` the unseen
    cards of its suit below it, ``counts`` the unseen cards per suit
    (:func:`_suit_counts`). The rule's cases (:func:`trick_winner_position`)
    are counted per suit, so a card costs a few operations, not a loop over
    the unseen cards. ``c0`` is the lead (second hand) and ``beats_lead``
    whether the card is above it (it matters only in the lead's suit).
    """
    w1 = 1.0 + COINS_GIVEN_WEIGHT
    mine = _is_coins(s)
    n_s = counts[s]
    if trick_size == 1:
        s0 = suit_of(c0)
        if s == s0:
            # A third card of the suit: the highest of the three wins.
            q, l, k = 0.0, 0.0, _outcome(False, 3.0 * mine) * n_s
            if beats_lead:
                l, k = 3.0 * mine * w1, -COINS_GIVEN_WEIGHT * 3.0 * mine * n_s
            for t in range(N_SUITS):  # two of a suit: the higher of the two
                if t != s:
                    k += counts[t] * _outcome(beats_lead, 2.0 * mine + _is_coins(t))
            return q, l, k
        # The lead's suit again: the odd card (the mover's) never wins.
        k = counts[s0] * _outcome(False, 2.0 * _is_coins(s0) + mine)
        # The mover's suit again: the higher of the mover's card and the third.
        pair = _is_coins(s0) + 2.0 * mine
        k -= COINS_GIVEN_WEIGHT * pair * n_s
        for t in range(N_SUITS):
            if t != s and t != s0:  # three suits
                k += counts[t] * _outcome(_third_suit_wins(s, s0, t), _is_coins(s0) + mine + _is_coins(t))
        return 0.0, pair * w1, k
    # Lead. Both replies of its suit: the leader wins when both are lower.
    q = 3.0 * mine * w1
    k = -COINS_GIVEN_WEIGHT * 3.0 * mine * n_s * (n_s - 1)
    one_of_suit = 0.0
    for t in range(N_SUITS):
        if t == s:
            continue
        n_t = counts[t]
        # One reply of the lead's suit (either order): the higher of those two wins.
        one_of_suit += 2.0 * n_t * (2.0 * mine + _is_coins(t))
        # Both of another suit: the leader's card is the odd one and loses.
        k += n_t * (n_t - 1) * _outcome(False, mine + 2.0 * _is_coins(t))
        for u in range(N_SUITS):
            if u != s and u != t:  # three suits
                k += n_t * counts[u] * _outcome(_third_suit_wins(s, t, u), mine + _is_coins(t) + _is_coins(u))
    return q, one_of_suit * w1, k - COINS_GIVEN_WEIGHT * one_of_suit * n_s


@njit(cache=True)
def _card_values(state, cards, n, out):
    """The heuristic's value of playing each of ``cards[:n]`` now into ``out[:n]``:
    the expected coin balance of the trick (coins taken less
    :data:`COINS_GIVEN_WEIGHT` per coin handed to an opponent) for the seat to
    move, the cards it cannot see taken as spread uniformly, less
    :data:`RANK_COST` per rank. Cards in suit order share their suit's terms."""
    seat = state[TO_MOVE]
    unseen = np.uint64(state[DECK]) & ~np.uint64(state[HANDS + seat]) & ~np.uint64(state[GONE])
    counts = _suit_counts(unseen)
    n_unseen = popcount(unseen)
    trick_size = state[N_IN_TRICK]
    c0 = state[TRICK]
    replies = float(n_unseen if trick_size == 1 else n_unseen * (n_unseen - 1))
    key = -1
    q, l, k = 0.0, 0.0, 0.0
    for i in range(n):
        card = cards[i]
        value = 0.0
        if trick_size == 2:
            c1 = state[TRICK + 1]
            value = _outcome(TRICK_WINNER[c0, c1, card] == 2, float(coins_in(c0, c1, card)))
        elif replies > 0:
            s = suit_of(card)
            beats_lead = trick_size == 1 and card > c0
            if s * 2 + beats_lead != key:
                key = s * 2 + beats_lead
                q, l, k = _suit_terms(c0, trick_size, s, beats_lead, counts)
            b = _in_suit(unseen & (bit(card) - ONE), s)
            value = (q * b * (b - 1) + l * b + k) / replies
        out[i] = value - RANK_COST * rank_of(card)


@njit(cache=True)
def heuristic_action(state, rng):
    """The heuristic player's card for the seat to move: the first (lowest) card
    of best :func:`_card_values`.

    Reads only what that seat can see: its own hand, the cards played this
    deal and the trick on the table. For each card it counts the coin
    balance of the trick (coins it takes minus half the coins it hands to an
    opponent), assuming the unseen cards are spread uniformly: exactly, over
    every possible third card when second and every pair of replies when
    leading (counted per suit, not card by card). The suit cycle is exploited
    through the trick rule itself. A small charge per rank keeps high cards
    for later, so among equally good cards the cheapest is played: it wins
    coin tricks with the cheapest winner and sheds useless low cards
    otherwise. ``rng`` is not used.
    """
    cards = np.empty(HAND_SIZE, np.int64)
    values = np.empty(HAND_SIZE)
    n = legal_actions(state, cards)
    _card_values(state, cards, n, values)
    best = 0
    for i in range(1, n):
        if values[i] > values[best]:
            best = i
    return cards[best] if n > 0 else np.int64(-1)


@njit(cache=True)
def action_scores(state, rng, actions, n, out):
    """The heuristic's value of each of the legal ``actions[:n]`` (cards) into
    ``out[:n]`` (:func:`_card_values`, coins); :func:`heuristic_action` plays
    the first best. The opponent model of ``belief=inferred`` is a softmax
    over these. ``rng`` is not used."""
    _card_values(state, actions, n, out)


# ------------------------------------------------------------ belief replay


@njit(cache=True)
def deal_from_world(world, template, rng, out):
    """The deal vector that dealt ``world`` (int64[DEAL_SIZE] into ``out``), for
    replaying the deal's history in it (:mod:`slagwerk.search.belief`).

    ``template`` is a deal vector with every card already played this deal in
    its player's block and -1 elsewhere; the -1 places of a seat's block take
    the cards it holds in ``world`` (hidden cards never move in Coins, so they
    were dealt where the world has them). Returns False if the counts
    disagree. ``rng`` is not used.
    """
    for i in range(DEAL_SIZE):
        out[i] = template[i]
    dealt = world[DEALT_HAND]
    for seat in range(N_SEATS):
        hand = np.uint64(world[HANDS + seat])
        for k in range(dealt):
            at = seat * dealt + k
            if out[at] < 0:
                if hand == ZERO:
                    return False
                card = popcount((hand & (~hand + ONE)) - ONE)
                hand &= hand - ONE
                out[at] = card
        if hand != ZERO:
            return False
    return True
