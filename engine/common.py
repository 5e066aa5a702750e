"""Kernels every game shares: deal bookkeeping, match end, seat arithmetic.

Game modules call these instead of writing the common header by hand, so
the meaning of the shared fields (``engine.state``) stays the same in every
game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import ZERO, bit, mask_to_indices, rand_below, random_card
from .state import (
    CHANCE,
    DEAL_COMPLETE,
    DEAL_NUMBER,
    DEAL_POINTS,
    DEALER,
    LAST_TRICK_WINNER,
    LEADER,
    MAX_SEATS,
    N_PLAYERS,
    NOBODY,
    OUTCOME,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    PHASE_PLAY,
    TERMINAL,
    TO_MOVE,
    TRICKS_DONE,
)


@njit(cache=True)
def init_header(state, game_id, n_players, first_dealer):
    """Start a match: zero ``state`` and wait for the first deal (in place)."""
    state[:] = 0
    state[0] = game_id  # GAME is the first field
    state[N_PLAYERS] = n_players
    state[PHASE] = PHASE_DEAL_PENDING
    state[TO_MOVE] = CHANCE
    state[DEALER] = first_dealer
    state[LAST_TRICK_WINNER] = NOBODY


@njit(cache=True)
def begin_deal(state):
    """Reset the per-deal header fields at the start of a deal (in place)."""
    state[DEAL_NUMBER] += 1
    state[DEAL_COMPLETE] = 0
    state[TRICKS_DONE] = 0
    state[LAST_TRICK_WINNER] = NOBODY
    for s in range(MAX_SEATS):
        state[DEAL_POINTS + s] = 0


@njit(cache=True)
def copy_into(target, source):
    """``target[:] = source`` for two equal-length int64 state arrays, as a plain
    loop: numba's slice assignment compiles a shape-mismatch error path with
    string formatting that costs seconds of every cold start."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@njit(cache=True, inline="always")
def end_trick(state, winner):
    """Count a completed trick won by ``winner`` (or NOBODY) (in place)."""
    state[TRICKS_DONE] += 1
    state[LAST_TRICK_WINNER] = winner
    if winner >= 0:
        state[LEADER] = winner


@njit(cache=True, inline="always")
def end_deal(state, next_dealer):
    """Mark the deal scored and wait for the next one, dealt by ``next_dealer``."""
    state[DEAL_COMPLETE] = 1
    state[DEALER] = next_dealer
    state[PHASE] = PHASE_DEAL_PENDING
    state[TO_MOVE] = CHANCE


@njit(cache=True, inline="always")
def end_match(state):
    """End the match. The game has written ``OUTCOME`` for every seat: 2 (win),
    1 (draw) or 0 (loss).

    Nothing here allocates: a kernel on the playout path that allocates, or
    calls one that does, keeps numba from pruning the reference counting of
    the state array, and the atomic increments then cost every action.
    """
    state[DEAL_COMPLETE] = 1
    state[PHASE] = PHASE_MATCH_OVER
    state[TO_MOVE] = TERMINAL


@njit(cache=True, inline="always")
def play_card_to_trick(state, card, hands, gone, trick, n_in_trick, n_seats):
    """Move ``card`` from the mover's hand to the trick (in place).

    For games where each seat plays one card per trick. ``hands`` (per-seat
    masks), ``gone`` (mask of played cards), ``trick`` (cards in play order)
    and ``n_in_trick`` are the game's field offsets. Passes the turn on and
    returns False while the trick is incomplete; returns True (turn not
    passed) when the last card of the trick was played.
    """
    seat = state[TO_MOVE]
    card_bit = bit(card)
    state[hands + seat] = np.int64(np.uint64(state[hands + seat]) & ~card_bit)
    state[gone] = np.int64(np.uint64(state[gone]) | card_bit)
    n = state[n_in_trick]
    state[trick + n] = card
    if n + 1 < n_seats:
        state[n_in_trick] = n + 1
        state[TO_MOVE] = left_of(seat, n_seats)
        return False
    state[n_in_trick] = 0
    return True


@njit(cache=True)
def hand_actions(state, hands, out):
    """Legal actions of a free-play game: every card in the mover's hand.

    Writes the card indices (ascending) into ``out`` and returns their count;
    0 when nobody is to move.
    """
    if state[PHASE] != PHASE_PLAY:
        return 0
    return mask_to_indices(np.uint64(state[hands + state[TO_MOVE]]), out)


@njit(cache=True)
def left_of(seat, n):
    """The next seat clockwise."""
    return (seat + 1) % n


@njit(cache=True)
def right_of(seat, n):
    """The previous seat clockwise."""
    return (seat + n - 1) % n


@njit(cache=True)
def match_outcome_reward(state, out):
    """Per-seat reward of a finished match: outcome 1 / 0.5 / 0 into ``out``."""
    n = state[N_PLAYERS]
    for s in range(n):
        out[s] = state[OUTCOME + s] * 0.5


@njit(cache=True)
def team_of(seat):
    """Team of a seat in the partnership games: seats 0, 2 -> 0; 1, 3 -> 1."""
    return seat & 1


@njit(cache=True)
def top_ranks_deck(n_suits, n_ranks, ranks):
    """The card mask of a small variant's deck: the top ``ranks`` of the ``n_ranks`` ranks of
    every suit (cards as ``suit * n_ranks + rank``, higher ranks higher)."""
    deck = ZERO
    for suit in range(n_suits):
        for rank in range(n_ranks - ranks, n_ranks):
            deck |= bit(suit * n_ranks + rank)
    return deck


@njit(cache=True, inline="always")
def draw_front(out, size, count, rng):
    """Make the first ``count`` of ``out[:size]`` a uniform random draw from them, in place (a
    partial Fisher-Yates shuffle from the front; the rest keep no particular order)."""
    for i in range(count):
        j = i + rand_below(rng, size - i)
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp


@njit(cache=True, inline="always")
def shuffle_first(out, deck_size, count, rng):
    """``out[:deck_size]``: the cards ``0..deck_size-1`` in an order whose first ``count`` are a
    uniform random draw (:func:`draw_front`)."""
    for i in range(deck_size):
        out[i] = i
    draw_front(out, deck_size, count, rng)


@njit(cache=True, inline="always")
def shuffle_all(out, deck_size, rng):
    """``out[:deck_size]``: the cards ``0..deck_size-1`` in a uniform random order (Fisher-Yates
    from the back)."""
    for i in range(deck_size):
        out[i] = i
    for i in range(deck_size - 1, 0, -1):
        j = rand_below(rng, i + 1)
        tmp = out[i]
        out[i] = out[j]
        out[j] = tmp


@njit(cache=True, inline="always")
def deal_hands(state, deal, hands, n_seats, hand_size):
    """Each seat's hand from ``deal``: seat ``s`` gets ``deal[s * hand_size:(s + 1) * hand_size]``,
    as a card mask in ``state[hands + s]``."""
    for seat in range(n_seats):
        hand = ZERO
        for k in range(hand_size):
            hand |= bit(deal[seat * hand_size + k])
        state[hands + seat] = np.int64(hand)


@njit(cache=True, inline="always")
def start_play(state, n_seats):
    """The first trick of a deal begins: the seat left of the dealer leads it."""
    leader = left_of(state[DEALER], n_seats)
    state[LEADER] = leader
    state[TO_MOVE] = leader
    state[PHASE] = PHASE_PLAY


# ------------------------------------------------------------------ kernels made per game
#
# A game's kernels are module-level functions of its own kernels module (the dispatch finds them
# there), but some are the same code over the game's own constants. These factories write that
# code once: numba reads the arguments as compile-time constants (as it reads a module's globals)
# and caches each game's functions apart (its cache index tells closures by their values).


def card_arithmetic(n_ranks: int):
    """``suit_of(card)`` and ``rank_of(card)`` for a deck of ``n_ranks`` ranks a suit, cards
    numbered suit by suit."""

    @njit(cache=True)
    def suit_of(card):
        return card // n_ranks

    @njit(cache=True)
    def rank_of(card):
        return card % n_ranks

    return suit_of, rank_of


def free_play_kernels(hands: int, gone: int, trick: int, n_in_trick: int, n_seats: int, finish_trick):
    """``legal_actions``, ``random_action`` and ``apply_action`` of a game in which each seat plays
    one card to a trick and any card in hand may be played (Coins, Aluette): the state's fields at
    these offsets, ``finish_trick(state)`` settling a complete trick."""

    @njit(cache=True)
    def legal_actions(state, out):
        """Write the legal actions (card indices, ascending) into ``out``; return count: every
        card in hand."""
        return hand_actions(state, hands, out)

    @njit(cache=True, inline="always")
    def random_action(state, rng):
        """A uniformly random legal action: a random card of the mover's hand."""
        return random_card(np.uint64(state[hands + state[TO_MOVE]]), rng)

    @njit(cache=True, inline="always")
    def apply_action(state, action):
        """Play card ``action`` for the seat to move (in place). Assumes it is legal."""
        if play_card_to_trick(state, action, hands, gone, trick, n_in_trick, n_seats):
            finish_trick(state)

    return legal_actions, random_action, apply_action
