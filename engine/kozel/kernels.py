"""Kozel (4-card version): numba kernels over the flat state (docs/rules.md §3).

Cards use :data:`slagwerk.engine.cards.KOZEL_DECK`: ``index = suit * 9 +
rank``, suits ``c d h s``, ranks ``6 7 8 9 J Q K T A`` as ``0 .. 8`` (so a
higher index in a suit is a higher card). Seats ``0, 2`` are team 0 and
seats ``1, 3`` team 1.

An action is an int64 ``kind << KIND_SHIFT | card_mask``: ``KIND_LEAD``,
``KIND_BEAT`` and ``KIND_DISCARD`` name the set of cards they play;
:data:`MOLODKA` and :data:`PASS` (the answers to a molodka question) carry
no cards. Legal sets are enumerated from the masks (a hand holds at most
four cards, so there are at most 15 of them).

**Molodka sequencing** (the ruling of docs/rules.md §3.11): at every *question point* of a
trick in which nobody has declared yet (before the lead and after each
play), the seats that have not played and hold four cards of one suit are
asked in priority order from the trick's original leader; while a question
is pending (``PHASE_QUESTION``) only :data:`MOLODKA` and :data:`PASS` are
legal. Declaring returns the cards already played to their owners and is
the lead of the four cards; nobody is asked again in that trick.

**Hidden information.** Every card ever shown face up this deal is in the
public mask ``face_up`` (it stays there when a molodka returns it to a
hand, so everyone keeps knowing where it is). Face-down discards are kept
per trick and seat in ``played``/``play_kind`` (the row of the trick in
progress is ``tricks_done``); only their owner knows them. Card points of
the piles are counted into ``deal_points`` only when the deal is over, so
that the header never reveals face-down cards.

Every kernel follows the engine contract of :mod:`slagwerk.engine.contract`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import ONE, ZERO, bit, lowest_bit, mask_to_indices, popcount, rand_below, random_card
from ..common import (
    begin_deal,
    card_arithmetic,
    deal_hands,
    end_deal,
    end_match,
    end_trick,
    init_header,
    left_of,
    match_outcome_reward,
    shuffle_all,
    top_ranks_deck,
)
from ..state import (
    DEAL_NUMBER,
    DEAL_POINTS,
    DEALER,
    LAST_TRICK_WINNER,
    LEADER,
    OBJECTIVE_DEAL,
    OUTCOME,
    PHASE,
    PHASE_GAME_BASE,
    PHASE_PLAY,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
    build_layout,
)
from . import INFO

# The game's constants, and below its state's field offsets, are module-level names of its own
# kernels module: numba compiles a global as a constant into each kernel (no lookup, no division
# by a runtime value on the playout path), so every game declares its own, in the same shape.
GAME_ID = INFO.game_id
N_SEATS = 4
N_TEAMS = 2
TWO_SIDED = True
"""Two teams whose deal rewards sum to 1 (``returns``): exact endgames are minimax between them
(:mod:`slagwerk.search.endgame`)."""
N_SUITS = 4
N_RANKS = 9
DECK_SIZE = N_SUITS * N_RANKS
HAND_SIZE = 4
STOCK_SIZE = DECK_SIZE - N_SEATS * HAND_SIZE
MAX_TRICKS = DECK_SIZE // N_SEATS
"""Nine tricks when every trick is played with single cards."""
TRICKS_PER_DEAL = MAX_TRICKS  # at most: sets of several cards end a deal sooner
ALL_CARDS = np.uint64((1 << DECK_SIZE) - 1)
SUIT_RUN = np.uint64((1 << N_RANKS) - 1)
RANK_RUN = np.uint64(sum(1 << (s * N_RANKS) for s in range(N_SUITS)))
"""Mask of the rank-0 card of every suit; shifted left by ``r`` it is rank ``r``."""

RANK_POINTS = (0, 0, 0, 0, 2, 3, 4, 10, 11)
"""Card points by rank ``6 7 8 9 J Q K T A``; 120 in the deck."""
DECK_POINTS = 120
WIN_POINTS = 61
"""A team with this many card points wins the deal."""
SMALL_LOSS_POINTS = 31
"""A losing team with at least this many card points takes the small penalty."""
PENALTY_SMALL, PENALTY_LARGE, PENALTY_NO_TRICK = 2, 4, 6
LOSING_PENALTY = 12
"""Penalty points at which a team loses the match."""

# Actions: kind in the high bits, the card mask below.
KIND_SHIFT = 40
CARD_FIELD = (1 << KIND_SHIFT) - 1
KIND_LEAD, KIND_BEAT, KIND_DISCARD, KIND_MOLODKA, KIND_PASS = 1, 2, 3, 4, 5
MOLODKA = KIND_MOLODKA << KIND_SHIFT
"""Declare a molodka: lead the four cards of the hand (answer to a question)."""
PASS = KIND_PASS << KIND_SHIFT
"""Decline to declare a molodka (answer to a question)."""
KIND_UNSEEN_DISCARD = 6
"""Not an action: what the other seats see of a face-down discard (its size)."""

PHASE_QUESTION = PHASE_GAME_BASE
"""``TO_MOVE`` is asked whether to declare its molodka (``MOLODKA`` or ``PASS``)."""

OPTION_NAMES = ("first_dealer", "ranks", "hand", "stock")
DEAL_SIZE = N_SEATS * HAND_SIZE + STOCK_SIZE + 1
"""A deal vector: the 16 hand cards (seat 0's four, then seat 1's, ...), the 20
stock cards top first, then the position (0..19) in the stock of the shown trump card
(random deals show a middle card; a record may name any position).

A small variant (docs/rules.md §3.18) deals ``hand`` cards each and a stock of ``stock``:
its vector lists the ``4 * hand`` hand cards, then the stock top first, then the cards of
its deck left unused, then the cards out of its deck (36 in all), then the trump position:
in the stock as above, or, without a stock, the vector index of the dealer's last hand card
(the card shown, §3.19; the kernels take that card whatever the position says)."""
DEAL_STOCK = N_SEATS * HAND_SIZE
DEAL_TRUMP_POSITION = DEAL_SIZE - 1
TRUMP_FIRST_PLACE = 1
TRUMP_LAST_PLACE = STOCK_SIZE - 2
"""The dealer shows a card from the middle of the stock: a position from
``TRUMP_FIRST_PLACE`` to ``TRUMP_LAST_PLACE`` (0 is the top), uniformly; never
the top or the bottom card (docs/rules.md §3.5). A small variant's stock of ``s``
cards: ``1 .. s - 2``."""
MAX_ACTIONS = 15
"""A lead from four cards of one suit: 4 + 6 + 4 + 1 sets (responses: at most 12)."""

LAYOUT = build_layout(
    [
        ("next_leader", 1),  # leads the first trick of the next deal (last trick winner)
        ("hands", N_SEATS),  # card mask per seat
        ("stock", STOCK_SIZE),  # card indices, top first
        ("stock_next", 1),  # position in `stock` of the next card to draw
        ("trump_card", 1),  # the shown card (its position in the stock is hidden)
        ("trump_suit", 1),
        ("original_leader", 1),  # leader of the trick before any molodka (question priority)
        ("set_size", 1),  # cards per play in the current trick; 0 before the lead
        ("n_played", 1),  # plays made to the current trick
        ("winning_set", 1),  # mask of the current winning set (face up)
        ("winning_seat", 1),
        ("molodka_declared", 1),  # 1 once a molodka was declared in the current trick
        ("asked", 1),  # mask of seats asked about their molodka in the current trick
        ("question_pos", 1),  # priority position (0..3 from the original leader) being asked
        ("face_up", 1),  # every card shown face up this deal (public)
        ("played", MAX_TRICKS * N_SEATS),  # cards of seat p in trick t at t*4+p
        ("play_kind", MAX_TRICKS * N_SEATS),  # KIND_* of that play; 0 = not played (yet)
        ("trick_leaders", MAX_TRICKS),
        ("trick_winners", MAX_TRICKS),
        ("piles", N_TEAMS),  # cards taken per team (face-down ones included)
        ("team_tricks", N_TEAMS),  # tricks taken per team this deal
        # small variants (docs/rules.md §3.18), set by init_match from the options:
        ("deck", 1),  # card mask of the deck in play: the top `ranks` ranks of each suit
        ("hand_size", 1),  # option `hand`: cards dealt to each seat (a full hand)
        ("stock_size", 1),  # option `stock`: cards in the stock when dealt
        ("undealt", 1),  # cards of the deck in play this deal left unused (hidden from all)
    ]
)
STATE_SIZE = LAYOUT.size
NEXT_LEADER = LAYOUT.offset["next_leader"]
HANDS = LAYOUT.offset["hands"]
STOCK = LAYOUT.offset["stock"]
STOCK_NEXT = LAYOUT.offset["stock_next"]
TRUMP_CARD = LAYOUT.offset["trump_card"]
TRUMP_SUIT = LAYOUT.offset["trump_suit"]
ORIGINAL_LEADER = LAYOUT.offset["original_leader"]
SET_SIZE = LAYOUT.offset["set_size"]
N_PLAYED = LAYOUT.offset["n_played"]
WINNING_SET = LAYOUT.offset["winning_set"]
WINNING_SEAT = LAYOUT.offset["winning_seat"]
MOLODKA_DECLARED = LAYOUT.offset["molodka_declared"]
ASKED = LAYOUT.offset["asked"]
QUESTION_POS = LAYOUT.offset["question_pos"]
FACE_UP = LAYOUT.offset["face_up"]
PLAYED = LAYOUT.offset["played"]
PLAY_KIND = LAYOUT.offset["play_kind"]
TRICK_LEADERS = LAYOUT.offset["trick_leaders"]
TRICK_WINNERS = LAYOUT.offset["trick_winners"]
PILES = LAYOUT.offset["piles"]
TEAM_TRICKS = LAYOUT.offset["team_tricks"]
DECK = LAYOUT.offset["deck"]
DEALT_HAND = LAYOUT.offset["hand_size"]
STOCK_LEN = LAYOUT.offset["stock_size"]
UNDEALT = LAYOUT.offset["undealt"]


# ------------------------------------------------------------------ cards


suit_of, rank_of = card_arithmetic(N_RANKS)


@njit(cache=True)
def suit_mask(suit):
    """The mask of the nine cards of ``suit``."""
    return SUIT_RUN << np.uint64(suit * N_RANKS)


@njit(cache=True)
def card_points(mask):
    """Card points (``A`` 11, ``T`` 10, ``K`` 4, ``Q`` 3, ``J`` 2) of the cards in ``mask``."""
    m = np.uint64(mask)
    total = 0
    for r in range(N_RANKS):
        if RANK_POINTS[r] > 0:
            total += RANK_POINTS[r] * popcount(m & (RANK_RUN << np.uint64(r)))
    return total


@njit(cache=True)
def beaters_of(card, trump_suit):
    """Mask of the cards that beat ``card``: higher ones of its suit, and every
    trump when ``card`` is not a trump."""
    suit = suit_of(card)
    higher = suit_mask(suit) & ~((bit(card) << ONE) - ONE)
    if suit != trump_suit:
        higher |= suit_mask(trump_suit)
    return higher


@njit(cache=True)
def beats_set(cards, winning, trump_suit):
    """True when ``cards`` can be paired one-to-one with ``winning`` (a set of
    the same size) so that each card beats its partner.

    A plain (non-trump) card can only beat a lower card of its own suit, so
    per plain suit the cards must fit over the lowest winning cards of that
    suit (pairing the i-th lowest with the i-th lowest is optimal). The trumps
    must beat every winning trump (each, from the lowest up, with the lowest
    trump above it) and, with the ones left over, the winning plain cards
    nobody else beat; the sizes make those counts equal. A set that beats
    only some of the winning cards fails: it is a discard.
    """
    c_all = np.uint64(cards)
    w_all = np.uint64(winning)
    if c_all & (c_all - ONE) == ZERO:  # one card against one card
        c = lowest_bit(c_all)
        w = lowest_bit(w_all)
        if suit_of(c) == suit_of(w):
            return c > w
        return suit_of(c) == trump_suit
    trumps = suit_mask(trump_suit)
    plain = c_all & ~trumps
    while plain != ZERO:
        in_suit = suit_mask(suit_of(lowest_bit(plain)))
        c = plain & in_suit
        w = w_all & in_suit
        plain &= ~in_suit
        if popcount(c) > popcount(w):
            return False
        while c != ZERO:
            if lowest_bit(c) < lowest_bit(w):
                return False
            c &= c - ONE
            w &= w - ONE
    c = c_all & trumps
    w = w_all & trumps
    if popcount(c) < popcount(w):
        return False
    while w != ZERO:
        above = c & ~((bit(lowest_bit(w)) << ONE) - ONE)
        if above == ZERO:
            return False
        c &= ~bit(lowest_bit(above))
        w &= w - ONE
    return True


@njit(cache=True)
def holds_molodka(hand, size=HAND_SIZE):
    """True when ``hand`` is ``size`` cards of one suit: four, or a small variant's full hand
    (docs/rules.md §3.21)."""
    h = np.uint64(hand)
    if popcount(h) != size:
        return False
    return h & suit_mask(suit_of(lowest_bit(h))) == h


@njit(cache=True)
def points_in_play(state):
    """The card points of the cards dealt this deal (hands and stock): 120 in the full game, a
    small variant's deck less its unused cards (docs/rules.md §3.20)."""
    return card_points(np.uint64(state[DECK]) & ~np.uint64(state[UNDEALT]))


@njit(cache=True)
def action_kind(action):
    return action >> KIND_SHIFT


@njit(cache=True)
def action_cards(action):
    return np.uint64(action & CARD_FIELD)


@njit(cache=True)
def observed_actions(state, actions, n, observer, keys):
    """What ``observer`` sees of each legal action of the seat to move.

    Writes into ``keys[:n]`` the action itself, except that another seat's
    face-down discard shows only its number of cards (``KIND_UNSEEN_DISCARD``
    with the count), as in a view (``discard:2``). Returns True when some
    action is partly hidden so (then two actions may share a key).
    """
    hidden = False
    others = state[TO_MOVE] != observer
    for i in range(n):
        action = actions[i]
        if others and action_kind(action) == KIND_DISCARD:
            action = np.int64(KIND_UNSEEN_DISCARD << KIND_SHIFT) | popcount(action_cards(action))
            hidden = True
        keys[i] = action
    return hidden


@njit(cache=True)
def team_of(seat):
    return seat & 1


# ------------------------------------------------------------------ contract


@njit(cache=True)
def init_match(state, options):
    """Start a match in ``state`` (int64[STATE_SIZE], in place).

    ``options`` is int64 ``[first_dealer, ranks, hand, stock]``. The state then waits for
    its first deal (``PHASE_DEAL_PENDING``).
    """
    init_header(state, GAME_ID, N_SEATS, options[0])
    state[NEXT_LEADER] = left_of(options[0], N_SEATS)
    state[DECK] = np.int64(top_ranks_deck(N_SUITS, N_RANKS, options[1]))
    state[DEALT_HAND] = options[2]
    state[STOCK_LEN] = options[3]


@njit(cache=True)
def random_deal(state, rng, out):
    """Write a uniformly random deal vector (int64[DEAL_SIZE]) into ``out``:
    a shuffled deck (hands, then the stock top first) and the stock position
    of the card the dealer shows, uniform over the middle positions
    ``TRUMP_FIRST_PLACE .. TRUMP_LAST_PLACE`` (docs/rules.md §3.5).

    A small variant (§3.18) then takes the cards of its deck in play first (:func:`_small_deal`),
    and shows a middle card of its stock, or with no stock the dealer's last card (§3.19)."""
    shuffle_all(out, DECK_SIZE, rng)
    out[DEAL_TRUMP_POSITION] = TRUMP_FIRST_PLACE + rand_below(
        rng, TRUMP_LAST_PLACE - TRUMP_FIRST_PLACE + 1
    )
    if state[DEALT_HAND] != HAND_SIZE or state[STOCK_LEN] != STOCK_SIZE:
        _small_deal(state, rng, out)


@njit(cache=True)
def _small_deal(state, rng, out):
    """Make the shuffled deck ``out`` a deal of a small variant (docs/rules.md §3.18): the cards
    of its deck in play first, then the cards out of it (swapped forward in place: the order of
    the cards in play stays uniformly random, a fixed rearrangement given where they lay); and
    the trump position of its stock, or without one the dealer's last card (§3.19)."""
    hand = state[DEALT_HAND]
    stock = state[STOCK_LEN]
    deck = np.uint64(state[DECK])
    n = 0
    for i in range(DECK_SIZE):
        card = out[i]
        if (deck >> np.uint64(card)) & ONE:
            out[i] = out[n]
            out[n] = card
            n += 1
    if stock > 0:
        out[DEAL_TRUMP_POSITION] = TRUMP_FIRST_PLACE + rand_below(rng, stock - 2)
    else:
        out[DEAL_TRUMP_POSITION] = state[DEALER] * hand + hand - 1


@njit(cache=True)
def apply_deal(state, deal):
    """Deal ``deal`` (int64[DEAL_SIZE]) and start the first trick (in place).

    The dealer is already in ``state[DEALER]``. The first deal of a match is
    led by the dealer's left neighbour, later deals by the winner of the
    previous deal's last trick.
    """
    begin_deal(state)
    hand = state[DEALT_HAND]
    stock = state[STOCK_LEN]
    if hand == HAND_SIZE and stock == STOCK_SIZE:  # the full game: the whole deck is dealt
        deal_hands(state, deal, HANDS, N_SEATS, HAND_SIZE)
        for i in range(STOCK_SIZE):
            state[STOCK + i] = deal[DEAL_STOCK + i]
        state[UNDEALT] = 0
        trump = deal[DEAL_STOCK + deal[DEAL_TRUMP_POSITION]]
    else:  # a small variant (docs/rules.md §3.18)
        deal_hands(state, deal, HANDS, N_SEATS, hand)
        first = N_SEATS * hand  # the stock's top card in the deal vector
        dealt = ZERO
        for seat in range(N_SEATS):
            dealt |= np.uint64(state[HANDS + seat])
        for i in range(stock):
            card = deal[first + i]
            state[STOCK + i] = card
            dealt |= bit(card)
        state[UNDEALT] = np.int64(np.uint64(state[DECK]) & ~dealt)
        if stock > 0:
            trump = deal[first + deal[DEAL_TRUMP_POSITION]]
        else:  # no stock: the dealer shows its last card (§3.19)
            trump = deal[state[DEALER] * hand + hand - 1]
    state[STOCK_NEXT] = 0
    state[TRUMP_CARD] = trump
    state[TRUMP_SUIT] = suit_of(trump)
    state[FACE_UP] = 0
    for i in range(MAX_TRICKS * N_SEATS):
        state[PLAYED + i] = 0
        state[PLAY_KIND + i] = 0
    for t in range(MAX_TRICKS):
        state[TRICK_LEADERS + t] = -1
        state[TRICK_WINNERS + t] = -1
    for team in range(N_TEAMS):
        state[PILES + team] = 0
        state[TEAM_TRICKS + team] = 0
    if state[DEAL_NUMBER] == 1:
        leader = left_of(state[DEALER], N_SEATS)
    else:
        leader = state[NEXT_LEADER]
    _start_trick(state, leader)


@njit(cache=True)
def _start_trick(state, leader):
    """Open a new trick led by ``leader`` and ask its first molodka question."""
    state[LEADER] = leader
    state[ORIGINAL_LEADER] = leader
    state[TRICK_LEADERS + state[TRICKS_DONE]] = leader
    state[SET_SIZE] = 0
    state[N_PLAYED] = 0
    state[WINNING_SET] = 0
    state[WINNING_SEAT] = -1
    state[MOLODKA_DECLARED] = 0
    state[ASKED] = 0
    _ask_from(state, 0)


@njit(cache=True)
def _ask_from(state, position):
    """Continue a question point from priority ``position`` (0..3 clockwise from
    the original leader): ask the next seat that has not played and holds a
    molodka, or, if there is none, hand the move to the next player."""
    row = PLAY_KIND + state[TRICKS_DONE] * N_SEATS
    if state[MOLODKA_DECLARED] == 0:
        first = state[ORIGINAL_LEADER]
        full = state[DEALT_HAND]
        for pos in range(position, N_SEATS):
            seat = (first + pos) % N_SEATS
            if state[row + seat] != 0:
                continue
            # a full hand: four cards (a constant: measured 1% faster), or a small variant's (§3.21)
            hand = state[HANDS + seat]
            if holds_molodka(hand) if full == HAND_SIZE else holds_molodka(hand, full):
                state[PHASE] = PHASE_QUESTION
                state[TO_MOVE] = seat
                state[QUESTION_POS] = pos
                state[ASKED] |= 1 << seat
                return
    state[PHASE] = PHASE_PLAY
    state[TO_MOVE] = (state[LEADER] + state[N_PLAYED]) % N_SEATS


@njit(cache=True)
def _enumerate_actions(state, out, pick):
    """Walk the legal actions in a fixed order.

    With an int64 array ``out`` (room for ``MAX_ACTIONS``) they are written
    into it and their count is returned. With ``out=None`` nothing is
    written: the ``pick``-th action is returned, or the count when ``pick``
    is negative or too large (numba prunes the unused branch per call type).
    """
    phase = state[PHASE]
    n = 0
    if phase == PHASE_QUESTION:
        for action in (MOLODKA, PASS):
            if out is not None:
                out[n] = action
            elif n == pick:
                return action
            n += 1
        return n
    if phase != PHASE_PLAY:
        return 0
    hand = np.uint64(state[HANDS + state[TO_MOVE]])
    if state[N_PLAYED] == 0:
        lead = np.int64(KIND_LEAD << KIND_SHIFT)
        for s in range(N_SUITS):
            in_suit = hand & suit_mask(s)
            sub = in_suit
            while sub != ZERO:
                action = lead | np.int64(sub)
                if out is not None:
                    out[n] = action
                elif n == pick:
                    return action
                n += 1
                sub = (sub - ONE) & in_suit
        return n
    size = state[SET_SIZE]
    winning = np.uint64(state[WINNING_SET])
    trump = state[TRUMP_SUIT]
    discard = np.int64(KIND_DISCARD << KIND_SHIFT)
    beat = np.int64(KIND_BEAT << KIND_SHIFT)
    if size == 1:  # single cards: the beaters are one mask, no pairing to check
        beaters = beaters_of(lowest_bit(winning), trump) & hand
        m = hand
        while m != ZERO:
            card = m & (~m + ONE)
            m ^= card
            action = discard | np.int64(card)
            if out is not None:
                out[n] = action
            elif n == pick:
                return action
            n += 1
            if beaters & card != ZERO:
                action = beat | np.int64(card)
                if out is not None:
                    out[n] = action
                elif n == pick:
                    return action
                n += 1
        return n
    sub = hand
    while sub != ZERO:
        if popcount(sub) == size:
            action = discard | np.int64(sub)
            if out is not None:
                out[n] = action
            elif n == pick:
                return action
            n += 1
            if beats_set(sub, winning, trump):
                action = beat | np.int64(sub)
                if out is not None:
                    out[n] = action
                elif n == pick:
                    return action
                n += 1
        sub = (sub - ONE) & hand
    return n


@njit(cache=True)
def legal_actions(state, out):
    """Write the legal actions into ``out`` (int64[MAX_ACTIONS]); return their count.

    A question: ``MOLODKA``, ``PASS``. A lead: every non-empty set of cards of
    one suit. A response to a ``k``-card set: every ``k`` cards of the hand as
    a face-down discard, and those that beat the winning set also as a beat.
    """
    return _enumerate_actions(state, out, -1)


@njit(cache=True)
def random_action(state, rng):
    """A uniformly random legal action (without allocating); -1 if none.

    A lead is drawn directly: a suit with probability proportional to its
    number of non-empty sets, then one of those sets. Otherwise the legal
    actions are counted, and the chosen one is found by enumerating again.
    """
    if state[PHASE] == PHASE_PLAY and state[N_PLAYED] == 0:
        hand = np.uint64(state[HANDS + state[TO_MOVE]])
        total = 0
        for s in range(N_SUITS):
            total += (1 << popcount(hand & suit_mask(s))) - 1
        r = rand_below(rng, total)
        for s in range(N_SUITS):
            in_suit = hand & suit_mask(s)
            count = (1 << popcount(in_suit)) - 1
            if r < count:
                sub = in_suit
                for _ in range(r):
                    sub = (sub - ONE) & in_suit
                return np.int64(KIND_LEAD << KIND_SHIFT) | np.int64(sub)
            r -= count
    n = _enumerate_actions(state, None, -1)
    if n == 0:
        return np.int64(-1)
    return _enumerate_actions(state, None, rand_below(rng, n))


@njit(cache=True)
def apply_action(state, action):
    """Apply a legal ``action`` for the seat to move (in place). Unchecked."""
    seat = state[TO_MOVE]
    kind = action_kind(action)
    if kind == KIND_PASS:
        _ask_from(state, state[QUESTION_POS] + 1)
        return
    if kind == KIND_MOLODKA:
        _declare_molodka(state, seat)
        return
    cards = action_cards(action)
    cell = state[TRICKS_DONE] * N_SEATS + seat
    state[HANDS + seat] = np.int64(np.uint64(state[HANDS + seat]) & ~cards)
    state[PLAYED + cell] = np.int64(cards)
    state[PLAY_KIND + cell] = kind
    if kind != KIND_DISCARD:
        state[FACE_UP] = np.int64(np.uint64(state[FACE_UP]) | cards)
        state[WINNING_SET] = np.int64(cards)
        state[WINNING_SEAT] = seat
    if kind == KIND_LEAD:
        state[SET_SIZE] = popcount(cards)
    state[N_PLAYED] += 1
    if state[N_PLAYED] == N_SEATS:
        _finish_trick(state)
    else:
        _ask_from(state, 0)


@njit(cache=True)
def _declare_molodka(state, seat):
    """``seat`` declares: the cards played so far go back to their owners and
    ``seat`` leads its four cards; the trick goes on from it."""
    row = state[TRICKS_DONE] * N_SEATS
    for p in range(N_SEATS):
        if state[PLAY_KIND + row + p] != 0:
            state[HANDS + p] |= state[PLAYED + row + p]
            state[PLAYED + row + p] = 0
            state[PLAY_KIND + row + p] = 0
    cards = np.uint64(state[HANDS + seat])
    state[HANDS + seat] = 0
    state[PLAYED + row + seat] = np.int64(cards)
    state[PLAY_KIND + row + seat] = KIND_MOLODKA
    state[FACE_UP] = np.int64(np.uint64(state[FACE_UP]) | cards)
    state[WINNING_SET] = np.int64(cards)
    state[WINNING_SEAT] = seat
    state[SET_SIZE] = popcount(cards)
    state[N_PLAYED] = 1
    state[MOLODKA_DECLARED] = 1
    state[LEADER] = seat
    state[TRICK_LEADERS + state[TRICKS_DONE]] = seat
    state[PHASE] = PHASE_PLAY
    state[TO_MOVE] = left_of(seat, N_SEATS)


@njit(cache=True)
def _finish_trick(state):
    """The last beater (or the leader) takes the trick; then draw, and start the
    next trick or score the deal."""
    winner = state[WINNING_SEAT]
    t = state[TRICKS_DONE]
    taken = ZERO
    for p in range(N_SEATS):
        taken |= np.uint64(state[PLAYED + t * N_SEATS + p])
    team = team_of(winner)
    state[PILES + team] = np.int64(np.uint64(state[PILES + team]) | taken)
    state[TEAM_TRICKS + team] += 1
    state[TRICK_WINNERS + t] = winner
    end_trick(state, winner)
    _draw(state, winner, state[SET_SIZE])
    if state[HANDS + winner] == 0:
        _score_deal(state)
    else:
        _start_trick(state, winner)


@njit(cache=True)
def _draw(state, first, count):
    """Refill the hands from the top of the stock, one card at a time clockwise
    from ``first``, ``count`` rounds or until the stock runs out (its size is a
    multiple of four, so hands stay of equal size)."""
    for _ in range(count):
        if state[STOCK_NEXT] >= state[STOCK_LEN]:
            return
        for i in range(N_SEATS):
            seat = (first + i) % N_SEATS
            card = state[STOCK + state[STOCK_NEXT]]
            state[STOCK_NEXT] += 1
            state[HANDS + seat] = np.int64(np.uint64(state[HANDS + seat]) | bit(card))


@njit(cache=True)
def deal_penalty(points, tricks, total=DECK_POINTS):
    """Penalty of a team that lost a deal with ``points`` card points and ``tricks``
    tricks: 2 for 31..59, 4 for 30 or fewer with a trick, 6 without a trick. Out of
    ``total`` points in play (a small variant's, docs/rules.md §3.20): 2 for more than a
    quarter of them (31 of 120)."""
    if 4 * points > total:
        return PENALTY_SMALL
    if tricks > 0:
        return PENALTY_LARGE
    return PENALTY_NO_TRICK


@njit(cache=True)
def _score_deal(state):
    """Count the piles, charge the losing team (none at 60-60, eggs), and end
    the deal, or the match once a team has 12 penalty points."""
    points0 = card_points(state[PILES])
    points1 = card_points(state[PILES + 1])
    for s in range(N_SEATS):
        state[DEAL_POINTS + s] = points0 if team_of(s) == 0 else points1
    # Every card dealt lies in a pile: a team with more than half of them (61 of 120) has more
    # than the other (docs/rules.md §3.15, §3.20).
    if points0 != points1:
        loser = 1 if points0 > points1 else 0
        penalty = deal_penalty(min(points0, points1), state[TEAM_TRICKS + loser], points0 + points1)
        for s in range(N_SEATS):
            if team_of(s) == loser:
                state[TOTALS + s] += penalty
    state[NEXT_LEADER] = state[LAST_TRICK_WINNER]
    for team in range(N_TEAMS):
        if state[TOTALS + team] >= LOSING_PENALTY:  # seat `team` is on team `team`
            for s in range(N_SEATS):
                state[OUTCOME + s] = 0 if team_of(s) == team else 2
            end_match(state)
            return
    end_deal(state, left_of(state[DEALER], N_SEATS))


@njit(cache=True)
def returns(state, objective, out):
    """Per-seat rewards in [0, 1] into ``out`` (float64[4]).

    ``OBJECTIVE_DEAL``: the share of the deal's 120 card points in the seat's
    team pile (partners equal; mid-deal, the points taken so far); in a small variant,
    of the points dealt, and a half each when no card dealt has points (docs/rules.md §3.20).
    ``OBJECTIVE_MATCH``: the match outcome (call only on a finished match).
    """
    if objective == OBJECTIVE_DEAL:
        full = np.uint64(state[DECK]) == ALL_CARDS and state[UNDEALT] == 0  # the whole deck dealt
        total = DECK_POINTS if full else points_in_play(state)
        for s in range(N_SEATS):
            out[s] = card_points(state[PILES + team_of(s)]) / total if total > 0 else 0.5
    else:
        match_outcome_reward(state, out)


# ------------------------------------------------------------ determinization

DETERMINIZE_TRIES = 20
"""Whole redeals tried when a seat known to hold no molodka cannot be dealt a
hand without one after the molodka and trump cards were placed (never seen in
the consistency tests; the last redeal is then kept)."""
MOLODKA_REDRAWS = 64
"""Redraws of one seat's hidden hand cards until it holds no molodka (a
random hand is a molodka about one time in a hundred)."""

# Slots of hidden cards, for determinize: hands, then played[t*4+p], then the stock, then a
# small variant's unused cards (docs/rules.md §3.18).
SLOT_HANDS = 0
SLOT_PLAYED = N_SEATS
SLOT_STOCK = SLOT_PLAYED + MAX_TRICKS * N_SEATS
SLOT_UNDEALT = SLOT_STOCK + 1
N_SLOTS = SLOT_UNDEALT + 1


@njit(cache=True)
def _binomial(n, k):
    """``n`` choose ``k`` as float64 (small arguments)."""
    if k < 0 or k > n:
        return 0.0
    value = 1.0
    for i in range(k):
        value = value * (n - i) / (i + 1)
    return value


@njit(cache=True)
def _take_random(pool, count, rng):
    """``count`` cards drawn uniformly from the mask ``pool``, as a mask."""
    taken = ZERO
    rest = np.uint64(pool)
    for _ in range(count):
        card = random_card(rest, rng)
        taken |= bit(card)
        rest &= ~bit(card)
    return taken


@njit(cache=True)
def _before_play(state, seat):
    """The cards ``seat`` played face up (a lead or a beat) in the current trick;
    none for a face-down discard (redealt apart from the hand) or no play."""
    cell = state[TRICKS_DONE] * N_SEATS + seat
    kind = state[PLAY_KIND + cell]
    if kind in (KIND_LEAD, KIND_BEAT):
        return np.uint64(state[PLAYED + cell])
    return ZERO


@njit(cache=True)
def _molodka_constraints(state, observer):
    """Seats (masks) other than ``observer`` that are known to hold a molodka
    now, and seats known to hold none, from the current trick's questions.

    While nobody has declared and hands are full, a seat that has not played
    was asked at the latest question point exactly when it held a molodka,
    and its hand has not changed since. Only at the first point of a trick
    (before the lead) are the seats after the one being asked still unknown.
    A seat that played face up without being asked held none before it
    played: its hand and those cards (:func:`_before_play`) hold none.
    """
    must = 0
    must_not = 0
    if state[MOLODKA_DECLARED] != 0 or state[PHASE] not in (PHASE_PLAY, PHASE_QUESTION):
        return must, must_not
    full = state[DEALT_HAND]
    row = PLAY_KIND + state[TRICKS_DONE] * N_SEATS
    first = state[ORIGINAL_LEADER]
    for pos in range(N_SEATS):
        seat = (first + pos) % N_SEATS
        if seat == observer:
            continue
        if state[row + seat] != 0:
            played = _before_play(state, seat)
            if played != ZERO and state[ASKED] & (1 << seat) == 0 and popcount(
                    np.uint64(state[HANDS + seat]) | played) == full:
                must_not |= 1 << seat
            continue
        if popcount(np.uint64(state[HANDS + seat])) != full:
            continue
        if state[ASKED] & (1 << seat):
            must |= 1 << seat
        elif not (state[PHASE] == PHASE_QUESTION and state[N_PLAYED] == 0
                  and pos > state[QUESTION_POS]):
            must_not |= 1 << seat
    return must, must_not


@njit(cache=True)
def _middle_draws(state, middle, since):
    """Replay the draws after the finished tricks: into ``middle[seat]`` the
    number of cards ``seat`` drew from the middle positions of the stock (those
    that may have held the shown trump card), into ``since[seat]`` the first
    trick played after its first such draw (``MAX_TRICKS`` if none); both
    int64[N_SEATS], in place.

    After trick ``t`` its winner draws first, one card at a time clockwise, as
    many rounds as the trick had cards per play (:func:`_draw`).

    Without a stock (a small variant, docs/rules.md §3.19) the dealer was dealt the shown
    card: it counts as one middle card the dealer had from the start.
    """
    for seat in range(N_SEATS):
        middle[seat] = 0
        since[seat] = MAX_TRICKS
    stock = state[STOCK_LEN]
    if stock == 0:
        middle[state[DEALER]] = 1
        since[state[DEALER]] = 0
        return
    last = stock - 2  # the last middle position (TRUMP_LAST_PLACE in the full game)
    place = 0
    for t in range(min(state[TRICKS_DONE], MAX_TRICKS)):
        first = state[TRICK_WINNERS + t]
        rounds = popcount(np.uint64(state[PLAYED + t * N_SEATS + first]))
        for _ in range(rounds):
            if place >= stock:
                return
            for i in range(N_SEATS):
                seat = (first + i) % N_SEATS
                if TRUMP_FIRST_PLACE <= place <= last:
                    middle[seat] += 1
                    since[seat] = min(since[seat], t + 1)
                place += 1


@njit(cache=True, inline="always")
def _trump_stock_places(state):
    """The first position of the stock where the shown trump card may lie now,
    and how many there are (0 when it can no longer be in the stock).

    Draws take cards from the top, so once ``k`` cards are drawn the stock
    holds positions ``k .. STOCK_SIZE - 1`` of the deal. The card's position
    was in the middle, ``TRUMP_FIRST_PLACE .. TRUMP_LAST_PLACE``: while it
    is in the stock it is never the bottom card (the bottom stays the
    bottom), and never the top card before the first draw; after a draw the
    top card of what is left (position ``k >= 4``) may well be it. A small variant's stock
    of ``s`` cards has the middle ``1 .. s - 2``, none without a stock (docs/rules.md §3.18).
    """
    first = max(state[STOCK_NEXT], TRUMP_FIRST_PLACE)
    return first, max(state[STOCK_LEN] - 2 - first + 1, 0)


@njit(cache=True)
def _slot_seat(slot):
    """The seat whose hand (or discard) a determinize slot below ``SLOT_STOCK`` is."""
    if slot < SLOT_PLAYED:
        return slot - SLOT_HANDS
    return (slot - SLOT_PLAYED) % N_SEATS


@njit(cache=True)
def _trump_slot(left, eligible, middle, stock_places, rng):
    """The slot that gets the hidden trump card in a redeal; -1 if none can.

    Every middle position of the stock that the observer has not seen hold
    another card is equally likely to have held it: the stock weighs the
    ``stock_places`` it still has, a seat the ``middle[seat]`` middle cards it
    drew (if it still has a hidden card that may be the trump card: an
    ``eligible`` slot with room ``left``). Within a seat every such hidden
    card is alike. Approximate in one way: the face-up cards a seat played
    after its draws do not lower its weight (each could have been the card
    it drew in the middle), and which hidden card arrived when is not used.
    """
    room = np.zeros(N_SEATS, np.int64)
    for i in range(SLOT_STOCK):
        if eligible[i]:
            room[_slot_seat(i)] += left[i]
    total = stock_places
    for p in range(N_SEATS):
        if room[p] > 0:
            total += middle[p]
    if total == 0:
        return -1
    r = rand_below(rng, total)
    if r < stock_places:
        return SLOT_STOCK
    r -= stock_places
    for p in range(N_SEATS):
        if room[p] == 0:
            continue
        if r < middle[p]:
            k = rand_below(rng, room[p])
            for i in range(SLOT_STOCK):
                if eligible[i] and _slot_seat(i) == p:
                    if k < left[i]:
                        return i
                    k -= left[i]
        r -= middle[p]
    return -1


@njit(cache=True)
def determinize(state, observer, rng):
    """Redeal every card ``observer`` cannot see (in place).

    Hidden from the observer: the other seats' hand cards and face-down
    discards (except cards everyone saw face up: a card a molodka returned
    stays known wherever it goes), and the whole remaining stock (order
    included). The redeal keeps every slot's size and every card the
    observer saw, and respects what it knows:

    - the shown trump card lay at a middle position of the stock
      (docs/rules.md §3.5, §3.6): until the first draw it is in the stock,
      never its top or bottom card; later it is still in the stock (never at
      the bottom; the top of what is left may be it: see
      :func:`_trump_stock_places`), or it is a hidden card of a seat that drew
      a middle card: in its hand, or in a discard made after that draw
      (:func:`_trump_slot` weighs the places);
    - seats asked about a molodka in the current trick that have not played
      hold four cards of one suit (dealt one), and seats that were not asked
      hold none (their hidden cards are redrawn until they hold none);
    - each face-down discard stays in its trick, so the piles are recounted;
    - a small variant's unused cards (docs/rules.md §3.18) are hidden like the
      others and are dealt back among them (the same number stays unused); a
      small variant places the shown card before completing the molodkas seats
      must hold, and redeals (as for a seat that must hold none) when either
      cannot be placed; without a stock the shown card lay with the dealer
      from the start (§3.19).

    What past questions revealed about earlier hands is not used here: the
    beliefs (:mod:`slagwerk.search.belief`; in this game ``uniform`` too, see
    ``determinize_uses_whole_history``) replay the deal's history in each
    world and drop those that disagree with it.
    """
    face_up = np.uint64(state[FACE_UP])
    tricks = state[TRICKS_DONE]
    trump_bit = bit(state[TRUMP_CARD])
    rows = tricks + 1 if tricks < MAX_TRICKS else MAX_TRICKS
    need = np.zeros(N_SLOTS, np.int64)
    eligible = np.zeros(N_SLOTS, np.bool_)  # a seat's slot that may hold the trump card
    middle = np.zeros(N_SEATS, np.int64)
    since = np.zeros(N_SEATS, np.int64)
    _middle_draws(state, middle, since)
    pool = ZERO
    for p in range(N_SEATS):
        if p == observer:
            continue
        hidden = np.uint64(state[HANDS + p]) & ~face_up
        need[SLOT_HANDS + p] = popcount(hidden)
        eligible[SLOT_HANDS + p] = middle[p] > 0
        pool |= hidden
        for t in range(rows):
            cell = t * N_SEATS + p
            if state[PLAY_KIND + cell] == KIND_DISCARD:
                hidden = np.uint64(state[PLAYED + cell]) & ~face_up
                need[SLOT_PLAYED + cell] = popcount(hidden)
                eligible[SLOT_PLAYED + cell] = t >= since[p]
                pool |= hidden
    stock_size = state[STOCK_LEN]
    for i in range(state[STOCK_NEXT], stock_size):
        pool |= bit(state[STOCK + i])
    need[SLOT_STOCK] = stock_size - state[STOCK_NEXT]
    undealt = np.uint64(state[UNDEALT])
    pool |= undealt
    need[SLOT_UNDEALT] = popcount(undealt)
    stock_places = _trump_stock_places(state)[1]
    must, must_not = _molodka_constraints(state, observer)
    full = state[DEALT_HAND]
    small = full != HAND_SIZE or stock_size != STOCK_SIZE

    dealt = np.zeros(N_SLOTS, np.uint64)
    left = np.zeros(N_SLOTS, np.int64)
    for _ in range(DETERMINIZE_TRIES):
        for i in range(N_SLOTS):
            dealt[i] = ZERO
            left[i] = need[i]
        rest = pool
        clash = False
        if small and rest & trump_bit != ZERO:
            # A small variant (docs/rules.md §3.18) places the shown card first, so that a molodka
            # a seat must hold is completed around it (its full hand is often the only place the
            # card can be; without a stock, §3.19, it is among the dealer's hidden cards).
            slot = _trump_slot(left, eligible, middle, stock_places, rng)
            clash = slot < 0
            if slot >= 0:
                dealt[slot] |= trump_bit
                left[slot] -= 1
                rest &= ~trump_bit
        for p in range(N_SEATS):
            if must & (1 << p):
                cards = _deal_molodka(state, p, rest, left[SLOT_HANDS + p], middle[p] > 0,
                                      dealt[SLOT_HANDS + p], rng)
                clash = clash or (small and popcount(cards) != left[SLOT_HANDS + p])
                dealt[SLOT_HANDS + p] |= cards
                left[SLOT_HANDS + p] -= popcount(cards)
                rest &= ~cards
        if rest & trump_bit != ZERO:
            slot = _trump_slot(left, eligible, middle, stock_places, rng)
            if slot >= 0:  # (-1 only in an inconsistent state: it is then dealt freely)
                dealt[slot] |= trump_bit
                left[slot] -= 1
                rest &= ~trump_bit
        # Seats known to hold no molodka are dealt first, each redrawn until it
        # holds none (constructive: no world is kept that breaks the questions).
        for p in range(N_SEATS):
            if must_not & (1 << p) and left[SLOT_HANDS + p] > 0:
                known = ((np.uint64(state[HANDS + p]) & face_up) | dealt[SLOT_HANDS + p]
                         | _before_play(state, p))
                cards = _take_random(rest, left[SLOT_HANDS + p], rng)
                for _ in range(MOLODKA_REDRAWS):
                    if not holds_molodka(known | cards, full):
                        break
                    cards = _take_random(rest, left[SLOT_HANDS + p], rng)
                clash = clash or holds_molodka(known | cards, full)
                dealt[SLOT_HANDS + p] |= cards
                left[SLOT_HANDS + p] = 0
                rest &= ~cards
        for i in range(N_SLOTS):
            if left[i] > 0:
                cards = _take_random(rest, left[i], rng)
                dealt[i] |= cards
                rest &= ~cards
        if not clash:
            break
    _write_world(state, observer, dealt, face_up, rows, rng)


@njit(cache=True)
def _deal_molodka(state, seat, pool, count, trump_allowed, placed, rng):
    """``count`` cards from ``pool`` completing ``seat``'s known cards (and the cards
    ``placed`` in its hand already) to a full hand of one suit (suit chosen in proportion to
    its number of completions)."""
    known = (np.uint64(state[HANDS + seat]) & np.uint64(state[FACE_UP])) | np.uint64(placed)
    weights = np.zeros(N_SUITS)
    total = 0.0
    for s in range(N_SUITS):
        if known & ~suit_mask(s) != ZERO:
            continue
        avail = pool & suit_mask(s)
        if not trump_allowed:
            avail &= ~bit(state[TRUMP_CARD])
        weights[s] = _binomial(popcount(avail), count)
        total += weights[s]
    if total == 0.0:  # cannot happen in a consistent state; deal freely instead
        return ZERO
    r = (rand_below(rng, 1 << 30) / (1 << 30)) * total
    suit = N_SUITS - 1
    for s in range(N_SUITS):
        if weights[s] > 0.0 and r < weights[s]:
            suit = s
            break
        r -= weights[s]
    while weights[suit] == 0.0:  # guard against rounding at the top end
        suit -= 1
    avail = pool & suit_mask(suit)
    if not trump_allowed:
        avail &= ~bit(state[TRUMP_CARD])
    return _take_random(avail, count, rng)


@njit(cache=True)
def _write_world(state, observer, dealt, face_up, rows, rng):
    """Write a redealt world into ``state`` and recount the piles."""
    for p in range(N_SEATS):
        if p == observer:
            continue
        hand = np.uint64(state[HANDS + p]) & face_up
        state[HANDS + p] = np.int64(hand | dealt[SLOT_HANDS + p])
        for t in range(rows):
            cell = t * N_SEATS + p
            if state[PLAY_KIND + cell] == KIND_DISCARD:
                kept = np.uint64(state[PLAYED + cell]) & face_up
                state[PLAYED + cell] = np.int64(kept | dealt[SLOT_PLAYED + cell])
    stock = dealt[SLOT_STOCK]
    trump = state[TRUMP_CARD]
    place = -1
    if stock & bit(trump) != ZERO:  # at a middle position the stock still has
        first, count = _trump_stock_places(state)
        place = first + rand_below(rng, count)
        state[STOCK + place] = trump
        stock &= ~bit(trump)
    for i in range(state[STOCK_NEXT], state[STOCK_LEN]):
        if i != place:
            card = random_card(stock, rng)
            state[STOCK + i] = card
            stock &= ~bit(card)
    state[UNDEALT] = np.int64(dealt[SLOT_UNDEALT])
    tricks = state[TRICKS_DONE]
    for team in range(N_TEAMS):
        state[PILES + team] = np.int64(np.uint64(state[PILES + team]) & face_up)
    for t in range(min(tricks, MAX_TRICKS)):
        team = team_of(state[TRICK_WINNERS + t])
        for p in range(N_SEATS):
            state[PILES + team] |= state[PLAYED + t * N_SEATS + p]


# ------------------------------------------------------------ heuristic policy

TRUMP_KEEP = 16.0
"""Value of holding any trump for later captures, beyond its points and rank:
spending one pays only for a trick worth about 8 points or more (its aces and
tens). Measured in heuristic-against-heuristic matches on the same deals:
4 lost about two matches in three against 12 or 16."""
TRUMP_RANK_KEEP = 0.5
"""Extra keep value per rank step of a trump."""
FUTURE_SHARE = 0.8
"""Share of the average unseen card's points expected per card still to come."""
MOLODKA_DECLARE_CHANCE = 0.5
"""Declare a molodka when the four cards win the trick at least this likely."""
PARTNER_BEATS_SHARE = 0.9
"""How often a partner still to play who can beat an opponent's set is
expected to do so (0.3 and 0.6 measured weaker)."""


@njit(cache=True)
def _chance_holds_one(beaters, unseen, hand_size):
    """Chance that ``hand_size`` cards drawn from ``unseen`` cards include at
    least one of ``beaters`` of them (hypergeometric)."""
    if beaters <= 0 or hand_size <= 0:
        return 0.0
    miss = 1.0
    for j in range(hand_size):
        if unseen - j <= 0:
            return 1.0
        miss *= max(unseen - beaters - j, 0) / (unseen - j)
    return 1.0 - miss


@njit(cache=True)
def _chance_beaten(cards, unseen, hand_size, trump_suit):
    """Rough chance that one other player, holding ``hand_size`` cards from the
    mask ``unseen``, can beat the set ``cards``: a product over the cards,
    each needing its own beater from a hand one card smaller."""
    n_unseen = popcount(unseen)
    chance = 1.0
    m = np.uint64(cards)
    i = 0
    while m != ZERO:
        card = lowest_bit(m)
        m &= m - ONE
        b = popcount(beaters_of(card, trump_suit) & unseen)
        chance *= _chance_holds_one(b, n_unseen - i, hand_size - i)
        i += 1
    return chance


@njit(cache=True)
def _keep_value(cards, trump_suit, weight):
    """What holding ``cards`` is worth for later tricks, times ``weight``.

    A trump is kept for its points (it will take them home later anyway) and
    for the aces and tens it can still capture. A plain card has no keep
    value: its points are at stake wherever it goes, and holding it back
    measured worse than spending it (its points count in the trick's stake).
    """
    value = 0.0
    m = np.uint64(cards) & suit_mask(trump_suit)
    while m != ZERO:
        rank = rank_of(lowest_bit(m))
        m &= m - ONE
        value += RANK_POINTS[rank] + TRUMP_KEEP + TRUMP_RANK_KEEP * rank
    return value * weight


@njit(cache=True)
def _unseen_by(state, seat):
    """Cards of the deck in play ``seat`` has not seen: not in its hand, not its own discards,
    never face up (a small variant's unused cards among them, docs/rules.md §3.18)."""
    seen = np.uint64(state[HANDS + seat]) | np.uint64(state[FACE_UP])
    for t in range(min(state[TRICKS_DONE] + 1, MAX_TRICKS)):
        seen |= np.uint64(state[PLAYED + t * N_SEATS + seat])
    return np.uint64(state[DECK]) & ~seen


@njit(cache=True)
def _win_chance(state, seat, action, unseen, hand_size):
    """Chance that ``seat``'s team takes the current trick after ``action``.

    A lead or beat wins unless a later opponent beats it; after a discard the
    current winner keeps the trick unless someone beats it later: a later
    opponent if the winner is the partner, the partner (sometimes) otherwise.
    """
    trump = state[TRUMP_SUIT]
    kind = action_kind(action)
    if kind == KIND_DISCARD:
        target = np.uint64(state[WINNING_SET])
        ours = team_of(state[WINNING_SEAT]) == team_of(seat)
    else:
        target = action_cards(action)
        ours = True
    q = _chance_beaten(target, unseen, hand_size, trump)
    later = N_SEATS - 1 - state[N_PLAYED]
    if ours:
        chance = 1.0
        for i in range(1, later + 1):
            if team_of((seat + i) % N_SEATS) != team_of(seat):
                chance *= 1.0 - q
        return chance
    if later >= 2:  # the partner (two seats on) still plays
        chance = PARTNER_BEATS_SHARE * q
        if later == 3:
            chance *= 1.0 - q
        return chance
    return 0.0


@njit(cache=True)
def _action_value(state, seat, action, unseen, hand_size, pot, average):
    """Expected point swing of ``action`` for ``seat``'s team, less the keep value
    of the cards it spends (weighted by how many cards are still to be held)."""
    cards = action_cards(action)
    size = popcount(cards)
    later = N_SEATS - 1 - state[N_PLAYED]
    stake = pot + card_points(cards) + later * size * average * FUTURE_SHARE
    chance = _win_chance(state, seat, action, unseen, hand_size)
    still_held = hand_size - size + (state[STOCK_LEN] - state[STOCK_NEXT]) / N_SEATS
    weight = min(1.0, still_held / state[DEALT_HAND])
    return (2.0 * chance - 1.0) * stake - _keep_value(cards, state[TRUMP_SUIT], weight)


@njit(cache=True)
def _molodka_margin(state, seat, unseen):
    """How much likelier than ``MOLODKA_DECLARE_CHANCE`` the four cards are to
    hold the trick against both opponents (four beaters each are needed, so
    nearly always); the heuristic declares when it is not negative."""
    hand = np.uint64(state[HANDS + seat])
    q = _chance_beaten(hand, unseen, state[DEALT_HAND], state[TRUMP_SUIT])
    return (1.0 - q) * (1.0 - q) - MOLODKA_DECLARE_CHANCE


@njit(cache=True)
def heuristic_action(state, rng):
    """The rule-based player's action for the seat to move.

    It reads only what that seat can see: its hand and own discards, the
    face-up cards of the deal, the trick on the table (face-down discards of
    others only as counts), the stock size and the trump. Rules:

    - **Molodka**: declares when the four cards are unlikely to be beaten by
      either opponent (each would need four beaters), which is almost always.
    - Every other action gets an expected point swing: the trick's stake
      (face-up points, face-down cards at the average unseen value, the
      action's own points, and a share for the cards still to come) times
      ``2 * P(our team takes the trick) - 1``, minus the keep value of the
      cards it spends. The win chance counts the opponents still to play and
      how likely one can beat the set (hypergeometric per card over the
      unseen cards). The best action is played (the first on ties).
    - So it **beats rich tricks cheaply**: with plain cards rather than
      trumps, and with its lowest trump that holds rather than a high one;
      **keeps trumps for aces and tens** (a trump's keep value is its points
      plus ``TRUMP_KEEP``, so trumping pays only for a trick worth about 8
      points); **discards low cards** face down when the opponents take the
      trick; **smears points** (plain aces and tens) onto a trick its team
      is sure to take (when it takes a safe trick itself it beats with its
      richest plain card, which banks those points the same way); **does not
      overbeat its partner** with trumps (that costs keep value and gains
      nothing); and **leads sets unlikely to be beaten** (more cards need
      more beaters, high cards and trumps fewer).
    - Keep values fade as the deal runs out of cards to play later.

    ``rng`` is not used: the policy is deterministic.
    """
    seat = state[TO_MOVE]
    unseen = _unseen_by(state, seat)
    if state[PHASE] == PHASE_QUESTION:
        return MOLODKA if _molodka_margin(state, seat, unseen) >= 0.0 else PASS
    actions = np.empty(MAX_ACTIONS, np.int64)
    n = legal_actions(state, actions)
    if n == 0:
        return np.int64(-1)
    hand_size, pot, average = _play_context(state, seat, unseen)
    best = actions[0]
    best_value = -1e18
    for i in range(n):
        value = _action_value(state, seat, actions[i], unseen, hand_size, pot, average)
        if value > best_value:
            best_value = value
            best = actions[i]
    return best


@njit(cache=True)
def _play_context(state, seat, unseen):
    """What :func:`_action_value` needs of the trick: the mover's hand size, the
    points already in the trick (face-down discards of others at the average
    unseen card's points) and that average."""
    hand_size = popcount(np.uint64(state[HANDS + seat]))
    n_unseen = popcount(unseen)
    average = card_points(unseen) / n_unseen if n_unseen > 0 else 0.0
    pot = 0.0
    row = state[TRICKS_DONE] * N_SEATS
    size = state[SET_SIZE]
    for p in range(N_SEATS):
        kind = state[PLAY_KIND + row + p]
        if kind == 0:
            continue
        if kind != KIND_DISCARD or p == seat:
            pot += card_points(state[PLAYED + row + p])
        else:
            pot += size * average
    return hand_size, pot, average


MOLODKA_STAKE = 40.0
"""Points a molodka question's answer is scored at in :func:`action_scores`
(declaring is worth ``MOLODKA_STAKE`` times the margin of its win chance over
``MOLODKA_DECLARE_CHANCE``; passing 0)."""


@njit(cache=True)
def action_scores(state, rng, actions, n, out):
    """The heuristic's value of each of the legal ``actions[:n]`` into ``out[:n]``
    (expected point swing, :func:`_action_value`); :func:`heuristic_action`
    plays the first best. The opponent model of ``belief=inferred`` is a
    softmax over these. ``rng`` is not used."""
    seat = state[TO_MOVE]
    unseen = _unseen_by(state, seat)
    if state[PHASE] == PHASE_QUESTION:
        margin = _molodka_margin(state, seat, unseen)
        for i in range(n):
            out[i] = MOLODKA_STAKE * margin if actions[i] == MOLODKA else 0.0
        return
    hand_size, pot, average = _play_context(state, seat, unseen)
    for i in range(n):
        out[i] = _action_value(state, seat, actions[i], unseen, hand_size, pot, average)


# ------------------------------------------------------------ belief replay

@njit(cache=True)
def history_action(world, state, key):
    """The action a replayed history entry ``key`` names in ``state``, replaying the
    deal of ``world``: another seat's face-down discard, seen only as its size,
    is the discard that seat made in ``world`` (its cards in the trick being
    replayed); any other key is the action itself.

    A discard that a molodka sent back (docs/rules.md §3.10) is not in
    ``world``'s trick: its cards went back to the hand unseen, or the seat
    discarded again after the molodka. Which cards it was then changes nothing
    that follows, so it is the seat's first legal discard of that size."""
    if action_kind(key) == KIND_UNSEEN_DISCARD:
        seat = state[TO_MOVE]
        cards = np.uint64(world[PLAYED + state[TRICKS_DONE] * N_SEATS + seat])
        size = key & CARD_FIELD
        hand = np.uint64(state[HANDS + seat])
        if popcount(cards) != size or cards & hand != cards:
            actions = np.empty(MAX_ACTIONS, np.int64)
            n = legal_actions(state, actions)
            for i in range(n):
                if action_kind(actions[i]) == KIND_DISCARD and popcount(action_cards(actions[i])) == size:
                    return actions[i]
        return np.int64(KIND_DISCARD << KIND_SHIFT) | np.int64(cards)
    return key


NOT_PLAYED = MAX_TRICKS + 1
"""The trick in which a card still in a hand is needed (never, so far)."""


@njit(cache=True)
def deal_from_world(world, template, rng, out):
    """A deal vector that dealt ``world`` (int64[DEAL_SIZE] into ``out``), for
    replaying the deal's history in it (:mod:`slagwerk.search.belief`).

    The draws after each finished trick are public (its winner first, as many
    rounds as the trick had cards per play), so every stock position already
    drawn belongs to a known seat and trick. Each seat's cards (its hand and
    its plays in ``world``) are spread over its four dealt places and its
    draws at random, a card played in trick ``t`` only to a place it had
    before trick ``t``, taking the latest draws first (the sets of cards
    allowed are nested, so this never fails when some spread exists). The
    shown trump card goes first, to a middle position (docs/rules.md §3.5):
    where it lies in the stock, or one of its owner's middle draws. The
    rest of the stock is the world's. False when no spread exists (a card a
    molodka gave back and that was played again may need an earlier place
    than its last play says). ``template`` is not used.

    A small variant (§3.18) has ``hand`` dealt places a seat and its own stock; its unused
    cards (the world's) follow the stock, then the cards out of its deck. Without a stock the
    trump card is the dealer's last dealt place (§3.19), and False if the dealer does not
    hold or play it in ``world``.
    """
    hand = world[DEALT_HAND]
    stock = world[STOCK_LEN]
    base = N_SEATS * hand  # the stock's top card in the vector
    last_middle = stock - 2
    owner = np.full(STOCK_SIZE, -1, np.int64)
    when = np.full(STOCK_SIZE, -1, np.int64)
    place = 0
    tricks = min(world[TRICKS_DONE], MAX_TRICKS)
    for t in range(tricks):
        first = world[TRICK_WINNERS + t]
        rounds = popcount(np.uint64(world[PLAYED + t * N_SEATS + first]))
        for _ in range(rounds):
            for i in range(N_SEATS):
                if place < stock:
                    owner[place] = (first + i) % N_SEATS
                    when[place] = t
                    place += 1
    if place != world[STOCK_NEXT]:
        return False
    rows = tricks + 1 if tricks < MAX_TRICKS else MAX_TRICKS
    need = np.full(DECK_SIZE, NOT_PLAYED, np.int64)  # trick in which the card is first needed
    holder = np.full(DECK_SIZE, -1, np.int64)
    for p in range(N_SEATS):
        m = np.uint64(world[HANDS + p])
        while m != ZERO:
            holder[lowest_bit(m)] = p
            m &= m - ONE
        for t in range(rows):
            m = np.uint64(world[PLAYED + t * N_SEATS + p])
            while m != ZERO:
                card = lowest_bit(m)
                holder[card] = p
                need[card] = min(need[card], t)
                m &= m - ONE
    trump = world[TRUMP_CARD]
    trump_place = -1
    for i in range(world[STOCK_NEXT], stock):
        out[base + i] = world[STOCK + i]
        if world[STOCK + i] == trump:
            trump_place = i
    taken = np.zeros(STOCK_SIZE, np.bool_)
    dealer_last = -1  # without a stock: the dealer's last dealt place holds the trump card
    if stock == 0:
        dealer = world[DEALER]
        if holder[trump] != dealer:
            return False
        dealer_last = dealer * hand + hand - 1
        out[dealer_last] = trump
        out[DEAL_TRUMP_POSITION] = dealer_last
    else:
        if trump_place < 0:  # drawn: one of its holder's middle draws before it was needed
            p = holder[trump]
            count = 0
            for i in range(TRUMP_FIRST_PLACE, min(last_middle + 1, place)):
                if owner[i] == p and when[i] < need[trump]:
                    count += 1
            if p < 0 or count == 0:
                return False
            k = rand_below(rng, count)
            for i in range(TRUMP_FIRST_PLACE, min(last_middle + 1, place)):
                if owner[i] == p and when[i] < need[trump]:
                    if k == 0:
                        trump_place = i
                        break
                    k -= 1
            out[base + trump_place] = trump
            taken[trump_place] = True
        elif trump_place < TRUMP_FIRST_PLACE:
            return False
        out[DEAL_TRUMP_POSITION] = trump_place
    for p in range(N_SEATS):
        cards = ZERO
        for c in range(DECK_SIZE):
            if holder[c] == p and c != trump:
                cards |= bit(c)
        # the seat's draws, latest first, then its dealt places
        for i in range(place - 1, -1 - hand, -1):
            if i >= 0:
                if owner[i] != p or taken[i]:
                    continue
                after = when[i]
            else:
                if p * hand + (-1 - i) == dealer_last:
                    continue
                after = -1
            allowed = ZERO
            m = cards
            while m != ZERO:
                card = lowest_bit(m)
                m &= m - ONE
                if need[card] > after:
                    allowed |= bit(card)
            if allowed == ZERO:
                return False
            card = random_card(allowed, rng)
            cards &= ~bit(card)
            if i >= 0:
                out[base + i] = card
            else:
                out[p * hand + (-1 - i)] = card
        if cards != ZERO:
            return False
    at = base + stock  # the unused cards of the deck in play, then the cards out of it
    at += mask_to_indices(np.uint64(world[UNDEALT]), out[at:])
    mask_to_indices(ALL_CARDS & ~np.uint64(world[DECK]), out[at:])
    return True
