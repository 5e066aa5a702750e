"""Aluette (la Vache), the five-deal partnership match: numba kernels (docs/rules.md §4).

Cards use :data:`slagwerk.engine.cards.ALUETTE_DECK` (the Spanish deck):
``index = suit * 12 + rank`` with suits ``c o e b`` (cups, coins, swords,
clubs) and ranks ``2 3 4 5 6 7 8 9 J N K A`` as ``0 .. 11``. The card index
says nothing about Aluette strength: :data:`STRENGTH` maps every card to its
strength class, ``18`` for Monsieur (``3o``) down to ``0`` for ``3b 3e``
(class ``k`` of the rule book is strength ``19 - k``). An action is the
index of the card played.

Small variants (docs/rules.md §4.11) play with the first ``cards`` of
:data:`DECK_ORDER` and ``hand`` cards each: ``init_match`` keeps the deck's
card mask and the hand size in the state (``DECK``, ``DEALT_HAND``), and the
kernels read them there; the full game is ``cards=48, hand=9``.

Per deal the state keeps, for every seat, the tricks it won, the index of
its first and of its latest won trick. The latest one settles ties for the
most tricks (the seat that reached the number first won its latest trick
first) and the first one settles Mordienne (the deal winner won every trick
from its first onwards).

Every kernel follows the engine contract of :mod:`slagwerk.engine.contract`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..bits import ONE, ZERO, bit, kth_bit, mask_to_indices, popcount, rand_below
from ..common import (
    begin_deal,
    deal_hands,
    draw_front,
    end_deal,
    end_match,
    end_trick,
    free_play_kernels,
    init_header,
    left_of,
    match_outcome_reward,
    start_play,
    team_of,
)
from ..state import (
    DEAL_NUMBER,
    DEAL_POINTS,
    DEALER,
    LEADER,
    NOBODY,
    OBJECTIVE_DEAL,
    OUTCOME,
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
N_SEATS = 4
TWO_SIDED = True
"""Two teams whose deal rewards sum to 1 (``returns``): exact endgames are minimax between them
(:mod:`slagwerk.search.endgame`)."""
N_SUITS = 4
N_RANKS = 12
DECK_SIZE = N_SUITS * N_RANKS
HAND_SIZE = 9
TRICKS_PER_DEAL = HAND_SIZE
N_UNDEALT = DECK_SIZE - N_SEATS * HAND_SIZE
DEALS_PER_MATCH = 5
MORDIENNE_POINTS = 2
"""Match points of a deal won with Mordienne (otherwise 1)."""
MAX_DEAL_POINTS = MORDIENNE_POINTS
ALL_CARDS = np.uint64((1 << DECK_SIZE) - 1)

SUIT_CUPS, SUIT_COINS, SUIT_SWORDS, SUIT_CLUBS = 0, 1, 2, 3
RANK_2, RANK_3, RANK_9 = 0, 1, 7
RANK_J, RANK_N, RANK_K, RANK_A = 8, 9, 10, 11


def _card(rank: int, suit: int) -> int:
    return suit * N_RANKS + rank


def _strength_table() -> np.ndarray:
    """Strength of every card index (docs/rules.md §4.3): 18 strongest .. 0 weakest."""
    classes = [
        [_card(RANK_3, SUIT_COINS)],  # Monsieur
        [_card(RANK_3, SUIT_CUPS)],  # Madame
        [_card(RANK_2, SUIT_COINS)],  # le Borgne
        [_card(RANK_2, SUIT_CUPS)],  # la Vache
        [_card(RANK_9, SUIT_CUPS)],  # Grand-neuf
        [_card(RANK_9, SUIT_COINS)],  # Petit-neuf
        [_card(RANK_2, SUIT_CLUBS)],  # Deux de chêne
        [_card(RANK_2, SUIT_SWORDS)],  # Deux d'écrit
    ]
    for rank in (RANK_A, RANK_K, RANK_N, RANK_J):
        classes.append([_card(rank, s) for s in range(N_SUITS)])
    classes.append([_card(RANK_9, SUIT_CLUBS), _card(RANK_9, SUIT_SWORDS)])
    for rank in (6, 5, 4, 3, 2):  # 8 7 6 5 4
        classes.append([_card(rank, s) for s in range(N_SUITS)])
    classes.append([_card(RANK_3, SUIT_CLUBS), _card(RANK_3, SUIT_SWORDS)])
    table = np.full(DECK_SIZE, -1, dtype=np.int64)
    for k, cards in enumerate(classes):
        for c in cards:
            table[c] = len(classes) - 1 - k
    if len(classes) != 19 or (table < 0).any():
        raise RuntimeError("the Aluette strength table must place all 48 cards in 19 classes")
    return table


STRENGTH = _strength_table()
"""int64[48]: the Aluette strength of each card index, 18 (``3o``) .. 0 (``3b 3e``)."""
N_STRENGTHS = 19
TOP_STRENGTH = N_STRENGTHS - 1
STRENGTH_MASKS = np.array(
    [sum(1 << c for c in range(DECK_SIZE) if STRENGTH[c] == b) for b in range(N_STRENGTHS)],
    dtype=np.uint64,
)
"""uint64[19]: the cards of each strength (a class of the table)."""
STRONGER_MASKS = np.array(
    [sum(1 << c for c in range(DECK_SIZE) if STRENGTH[c] > b) for b in range(N_STRENGTHS)],
    dtype=np.uint64,
)
"""uint64[19]: the cards stronger than each strength."""



def _deck_order() -> np.ndarray:
    """The order small variants take their deck in (docs/rules.md §4.11): the eight unique
    cards of §4.3 in turn with the classes of equal cards, strongest first (Monsieur, the
    aces, Madame, the kings, ...), then the classes of equal cards left; suits within a
    class as §4.1 lists them. Every deck of four cards or more has a class of equal cards
    and a stronger unique card."""
    unique = [_card(RANK_3, SUIT_COINS), _card(RANK_3, SUIT_CUPS), _card(RANK_2, SUIT_COINS),
              _card(RANK_2, SUIT_CUPS), _card(RANK_9, SUIT_CUPS), _card(RANK_9, SUIT_COINS),
              _card(RANK_2, SUIT_CLUBS), _card(RANK_2, SUIT_SWORDS)]
    suits = (SUIT_COINS, SUIT_CUPS, SUIT_CLUBS, SUIT_SWORDS)
    shared = [[_card(rank, s) for s in suits] for rank in (RANK_A, RANK_K, RANK_N, RANK_J)]
    shared.append([_card(RANK_9, SUIT_CLUBS), _card(RANK_9, SUIT_SWORDS)])
    shared += [[_card(rank, s) for s in suits] for rank in (6, 5, 4, 3, 2)]  # 8 7 6 5 4
    shared.append([_card(RANK_3, SUIT_CLUBS), _card(RANK_3, SUIT_SWORDS)])
    order = []
    for k, cards in enumerate(shared):
        if k < len(unique):
            order.append(unique[k])
        order.extend(cards)
    if sorted(order) != list(range(DECK_SIZE)):
        raise RuntimeError("the Aluette deck order must list all 48 cards once")
    return np.array(order, dtype=np.int64)


DECK_ORDER = _deck_order()
"""int64[48]: every card, in the order a small variant's deck takes them (its first ``cards``)."""

OPTION_NAMES = ("first_dealer", "cards", "hand")
DEAL_SIZE = DECK_SIZE
"""A deal vector lists the 48 cards: seat 0's hand, seat 1's, seat 2's, seat 3's (nine each
in the full game), then the cards of the deck not dealt (twelve in the full game), then a
small variant's cards out of its deck (§4.11)."""
MAX_ACTIONS = HAND_SIZE

LAYOUT = build_layout(
    [
        ("deck", 1),  # card mask of the deck in play: the first `cards` of DECK_ORDER (§4.11)
        ("hand_size", 1),  # option `hand`: cards dealt to each seat, tricks per deal
        ("hands", N_SEATS),  # card mask per seat
        ("undealt", 1),  # mask of the deck's unused cards (twelve in the full game; nobody sees them)
        *card_play_fields(N_SEATS),
        ("tricks_won", N_SEATS),  # tricks each seat won this deal
        ("first_win", N_SEATS),  # index (0..8 in the full game) of the seat's first won trick, or -1
        ("last_win", N_SEATS),  # index of the seat's latest won trick, or -1
        ("spoiled", 1),  # spoiled (pourri) tricks this deal
    ]
)
STATE_SIZE = LAYOUT.size
DECK = LAYOUT.offset["deck"]
DEALT_HAND = LAYOUT.offset["hand_size"]
HANDS = LAYOUT.offset["hands"]
UNDEALT = LAYOUT.offset["undealt"]
TRICK = LAYOUT.offset["trick"]
N_IN_TRICK = LAYOUT.offset["n_in_trick"]
GONE = LAYOUT.offset["gone"]
TRICKS_WON = LAYOUT.offset["tricks_won"]
FIRST_WIN = LAYOUT.offset["first_win"]
LAST_WIN = LAYOUT.offset["last_win"]
SPOILED = LAYOUT.offset["spoiled"]


@njit(cache=True, inline="always")
def trick_winner_position(cards, start, n):
    """Position (in play order) of the single strongest card of ``cards[start:start + n]``.

    Parameters
    ----------
    cards : int64 array
        Card indices in play order from ``start`` (a state and ``TRICK``, or
        a plain array and 0: no slice is made, slices cost reference counts).
    start, n : int
        Offset of the first card and number of cards to judge.

    Returns
    -------
    int64
        The position of the winning card, or -1 when two or more cards tie
        for strongest (the trick is *pourri*).
    """
    best = np.int64(-1)
    count = 0
    pos = np.int64(-1)
    for k in range(n):
        s = STRENGTH[cards[start + k]]
        if s > best:
            best = s
            count = 1
            pos = k
        elif s == best:
            count += 1
    return pos if count == 1 else np.int64(-1)


@njit(cache=True, inline="always")
def deal_winner(state, tricks_done):
    """The deal winner and its match points after ``tricks_done`` tricks.

    Parameters
    ----------
    state : int64[STATE_SIZE]
        Reads per seat ``TRICKS_WON``, ``FIRST_WIN`` and ``LAST_WIN`` (tricks
        won, index of the first and of the latest won trick, -1 when none).
    tricks_done : int
        Tricks played (``hand`` at the end of a deal: 9 in the full game).

    Returns
    -------
    (int64, int64)
        The seat with the most tricks, ties going to the seat that reached
        that number first (its latest win came earliest), or ``NOBODY``; and
        the points: 2 for Mordienne (the winner won every trick from its
        first win through the last one played, at least two of them), 1
        otherwise, 0 when every trick was spoiled.
    """
    # Every field is read in the loop: the state is not touched after it, so
    # numba can drop its reference counting here (see ``common.end_match``).
    best = np.int64(NOBODY)
    best_won = np.int64(0)
    best_last = np.int64(0)
    best_first = np.int64(0)
    for s in range(N_SEATS):
        won = state[TRICKS_WON + s]
        last = state[LAST_WIN + s]
        first = state[FIRST_WIN + s]
        if won > best_won or (won > 0 and won == best_won and last < best_last):
            best, best_won, best_last, best_first = s, won, last, first
    points = np.int64(0)
    if best != NOBODY:
        mordienne = best_won >= 2 and best_won == tricks_done - best_first
        points = MORDIENNE_POINTS if mordienne else 1
    return best, points


# ------------------------------------------------------------------ contract


@njit(cache=True)
def init_match(state, options):
    """Start a match in ``state`` (int64[STATE_SIZE], in place).

    ``options`` is int64 ``[first_dealer, cards, hand]``. The state then waits for its
    first deal (``PHASE_DEAL_PENDING``).
    """
    init_header(state, GAME_ID, N_SEATS, options[0])
    deck = ZERO
    for k in range(options[1]):
        deck |= bit(DECK_ORDER[k])
    state[DECK] = np.int64(deck)
    state[DEALT_HAND] = options[2]


@njit(cache=True)
def random_deal(state, rng, out):
    """Write a uniformly random deal vector (int64[DEAL_SIZE]) into ``out``.

    ``rng`` is a ``uint64[1]`` generator. Dealing in batches of three from
    the dealer's left gives every seat a uniformly random nine, so a shuffle
    read seat by seat is the same distribution. The shuffle is a partial
    Fisher-Yates of the deck in play: the dealt cards are drawn one by one
    (36 in the full game) and the cards left over are the unused ones (order
    within a group is irrelevant); when a small variant deals its whole deck,
    the last hand is the cards left. Cards out of its deck follow, unshuffled.
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
    undealt = np.uint64(state[DECK])  # the deck's cards in no hand
    for seat in range(N_SEATS):
        undealt &= ~np.uint64(state[HANDS + seat])
        state[TRICKS_WON + seat] = 0
        state[FIRST_WIN + seat] = -1
        state[LAST_WIN + seat] = -1
    state[UNDEALT] = np.int64(undealt)
    state[N_IN_TRICK] = 0
    state[GONE] = 0
    state[SPOILED] = 0
    start_play(state, N_SEATS)


@njit(cache=True, inline="always")
def _finish_trick(state):
    """Settle a complete trick: winner or pourri, then the next lead or the deal end."""
    index = state[TRICKS_DONE]
    pos = trick_winner_position(state, TRICK, N_SEATS)
    if pos < 0:
        winner = np.int64(NOBODY)
        state[SPOILED] += 1
    else:
        winner = (state[LEADER] + pos) % N_SEATS
        state[TRICKS_WON + winner] += 1
        if state[FIRST_WIN + winner] < 0:
            state[FIRST_WIN + winner] = index
        state[LAST_WIN + winner] = index
    end_trick(state, winner)  # a spoiled trick keeps the same leader
    if state[TRICKS_DONE] < state[DEALT_HAND]:  # a deal is `hand` tricks, spoiled ones included
        state[TO_MOVE] = state[LEADER]
        return
    _score_deal(state)


# Any card in hand may be played (no obligation to follow suit).
legal_actions, random_action, apply_action = free_play_kernels(HANDS, GONE, TRICK, N_IN_TRICK, N_SEATS,
                                                               _finish_trick)


@njit(cache=True, inline="always")
def _score_deal(state):
    """Score a finished deal: the winner's team takes its points; rotate or end."""
    winner, points = deal_winner(state, state[TRICKS_DONE])
    if winner != NOBODY:
        for s in range(N_SEATS):
            if team_of(s) == team_of(winner):
                state[DEAL_POINTS + s] = points
                state[TOTALS + s] += points
    if state[DEAL_NUMBER] < DEALS_PER_MATCH:
        end_deal(state, left_of(state[DEALER], N_SEATS))
        return
    for s in range(N_SEATS):
        mine = state[TOTALS + s]
        theirs = state[TOTALS + left_of(s, N_SEATS)]
        state[OUTCOME + s] = 2 if mine > theirs else (1 if mine == theirs else 0)
    end_match(state)


@njit(cache=True)
def returns(state, objective, out):
    """Per-seat rewards in [0, 1] into ``out`` (float64[4]).

    ``OBJECTIVE_DEAL``: the deal's match-point margin of the seat's team,
    ``(own - opponents' + 2) / 4``: 1 for a Mordienne, 0.75 for a plain
    win, 0.5 when nobody scores (or the deal is unfinished), partners equal.
    ``OBJECTIVE_MATCH``: the match outcome (call only on a finished match).
    """
    if objective == OBJECTIVE_DEAL:
        for s in range(N_SEATS):
            margin = state[DEAL_POINTS + s] - state[DEAL_POINTS + left_of(s, N_SEATS)]
            out[s] = (margin + MAX_DEAL_POINTS) / (2.0 * MAX_DEAL_POINTS)
    else:
        match_outcome_reward(state, out)


@njit(cache=True)
def determinize(state, observer, rng):
    """Redeal every card ``observer`` cannot see, uniformly (in place).

    ``observer`` sees its own hand and every played card. The other three
    hands and the deck's unused cards (twelve in the full game; never cards
    out of a small variant's deck) are pooled and dealt back with their
    sizes kept. Play is free, so it reveals nothing about who holds what.
    ``rng`` is a ``uint64[1]`` generator.
    """
    pool = np.uint64(state[UNDEALT])
    for s in range(N_SEATS):
        if s != observer:
            pool |= np.uint64(state[HANDS + s])
    for s in range(N_SEATS):
        if s == observer:
            continue
        need = popcount(np.uint64(state[HANDS + s]))
        hand = ZERO
        for _ in range(need):
            card = kth_bit(pool, rand_below(rng, popcount(pool)))
            hand |= bit(card)
            pool &= ~bit(card)
        state[HANDS + s] = np.int64(hand)
    state[UNDEALT] = np.int64(pool)


# ------------------------------------------------------------ heuristic policy

RACE_WEIGHT = 1.0
"""Weight of the deal's projected match-point margin, scaled by urgency."""
TRICK_WEIGHT = 0.2
"""Value of a trick taken by the team (lost to the opponents: minus), early in a deal."""
STRENGTH_COST = 0.7
"""Cost of spending the strongest card early in a deal (cheaper cards cost less)."""
PARTNER_HELP = 0.5
"""Chance credited to a following partner who holds a stronger card actually taking the trick."""


LOG_FACTORIAL = np.array([math.lgamma(k + 1.0) for k in range(DECK_SIZE + 1)])
"""``log(k!)`` for every count of cards."""


MAX_DRAWN = 2 * HAND_SIZE
"""Most cards the heuristic takes as drawn at once: two opponents' hands."""


def _miss_chance_table():
    """The probability that ``drawn`` cards taken at random from ``pool`` miss all
    ``marked`` ones, ``(pool - marked)! (pool - drawn)! / ((pool - marked - drawn)!
    pool!)``, from logarithms (one ``exp``, not a product of ``drawn`` quotients;
    ``math.exp`` is the C library's, as in numba): row ``pool * (pool + 1) // 2 +
    marked`` (never more marked cards than the pool holds), column ``drawn``."""
    pool, marked = (column[:, None] for column in np.tril_indices(DECK_SIZE + 1))
    drawn = np.arange(MAX_DRAWN + 1)[None, :]
    shape = (pool.shape[0], MAX_DRAWN + 1)
    table = np.broadcast_to(((marked == 0) | (drawn == 0)).astype(np.float64), shape).copy()
    row, d = np.nonzero((marked > 0) & (drawn > 0) & (pool - marked >= drawn))
    p, m = pool[row, 0], marked[row, 0]
    logs = LOG_FACTORIAL[p - m] + LOG_FACTORIAL[p - d] - LOG_FACTORIAL[p - m - d] - LOG_FACTORIAL[p]
    table[row, d] = [math.exp(x) for x in logs.tolist()]
    return table


MISS_CHANCE = _miss_chance_table()
"""A lookup table rather than an ``exp`` per call: the belief's replays judge
thousands of moves a decision (0.19 MB, built in a few milliseconds)."""


@njit(cache=True, inline="always")
def _none_drawn(pool, marked, drawn):
    """Probability that ``drawn`` random cards of ``pool`` miss all ``marked`` ones
    (:data:`MISS_CHANCE`). At most two opponents' hands are drawn; a raw state
    whose mover is not the trick's next seat could ask for more, and is held
    inside the table (numba checks no bounds)."""
    return MISS_CHANCE[pool * (pool + 1) // 2 + marked, min(drawn, MAX_DRAWN)]


SPOILED_INDEX = N_SEATS
"""Where :func:`_outcome_values` puts the value of a spoiled trick."""
MOVER_NO_RUN_INDEX = N_SEATS + 1
"""Where :func:`_outcome_values` puts the value of the mover taking the trick
without its Mordienne counting."""


@njit(cache=True, inline="always")
def _ahead(won, last, other_won, other_last):
    """Whether a seat with ``won`` tricks, the latest at ``last``, leads the deal
    before one with ``other_won`` and ``other_last``: more tricks, or as many with
    the latest taken earlier."""
    return won > other_won or (won == other_won and last < other_last)


@njit(cache=True, inline="always")
def _race_value(team, urgency, leader, won, first, index, run_seat):
    """``RACE_WEIGHT * urgency`` times the match-point margin of ``team`` if the deal
    ended once trick ``index`` is decided, with ``leader`` (``NOBODY``: no tricks
    yet) ahead on ``won`` tricks, the first at ``first``. Mordienne counts unless
    ``leader`` is ``run_seat`` (a seat known unable to win every trick left)."""
    margin = 0.0
    if leader != NOBODY:
        points = 1.0
        if won >= 2 and won == index + 1 - first and leader != run_seat:
            points = float(MORDIENNE_POINTS)
        margin = points if team_of(leader) == team else -points
    return RACE_WEIGHT * urgency * margin


@njit(cache=True, inline="always")
def _taken_value(state, taker, lead, team, urgency, trick_weight, run_seat):
    """Value for ``team`` of the current trick going to ``taker``: the race
    (:func:`_race_value`) plus ``trick_weight``, won or lost. ``lead`` leads the
    deal as it stands (:func:`_outcome_values`)."""
    index = state[TRICKS_DONE]
    won = state[TRICKS_WON + taker] + 1
    first = state[FIRST_WIN + taker]
    if first < 0:
        first = index
    taker_leads = True  # the first trick of the deal, or the leader taking one more
    if lead != NOBODY and lead != taker:
        lead_won = state[TRICKS_WON + lead]
        lead_last = state[LAST_WIN + lead]
        # Equal standings go to the earlier seat, as a pass over the seats finds them.
        if taker < lead:
            taker_leads = not _ahead(lead_won, lead_last, won, index)
        else:
            taker_leads = _ahead(won, index, lead_won, lead_last)
    if taker_leads:
        value = _race_value(team, urgency, taker, won, first, index, run_seat)
    else:
        value = _race_value(team, urgency, lead, state[TRICKS_WON + lead], state[FIRST_WIN + lead], index,
                            run_seat)
    value += trick_weight if team_of(taker) == team else -trick_weight
    return value


@njit(cache=True)
def _outcome_values(state, team, urgency, trick_weight, mover):
    """Value for ``team`` of the current trick going to each seat (items 0 to 3),
    of it being spoiled (:data:`SPOILED_INDEX`) and of ``mover`` taking it without its
    Mordienne counting (:data:`MOVER_NO_RUN_INDEX`: a mover known unable to win every
    trick left), as a tuple: the race, ``RACE_WEIGHT * urgency`` times the
    match-point margin if the deal ended after this trick (most tricks, ties to
    whoever got there first, Mordienne counting 2), plus ``trick_weight`` for a
    trick of the team's and minus it for the opponents'.

    One pass finds the deal's leader as it stands (the earlier seat among equal
    standings); a trick changes only its taker's standing, so each value
    compares the taker with that leader (a pass over the seats for each value,
    as before, took about half of :func:`card_scores`' time).
    """
    lead = np.int64(NOBODY)
    for s in range(N_SEATS):
        won = state[TRICKS_WON + s]
        if won > 0 and (lead == NOBODY or _ahead(won, state[LAST_WIN + s], state[TRICKS_WON + lead],
                                                 state[LAST_WIN + lead])):
            lead = s
    spoiled = 0.0  # no tricks yet: no margin
    if lead != NOBODY:
        spoiled = _race_value(team, urgency, lead, state[TRICKS_WON + lead], state[FIRST_WIN + lead],
                              state[TRICKS_DONE], NOBODY)
    return (_taken_value(state, 0, lead, team, urgency, trick_weight, NOBODY),
            _taken_value(state, 1, lead, team, urgency, trick_weight, NOBODY),
            _taken_value(state, 2, lead, team, urgency, trick_weight, NOBODY),
            _taken_value(state, 3, lead, team, urgency, trick_weight, NOBODY),
            spoiled,
            _taken_value(state, mover, lead, team, urgency, trick_weight, mover))


@njit(cache=True)
def heuristic_action(state, rng):
    """The heuristic partner's card for the seat to move (int64 card index).

    Reads only what that seat sees: its own hand, the cards played (the
    trick on the table included), the tricks each seat has won this deal
    and when. ``rng`` is accepted for the contract; the policy is
    deterministic.

    Every card in hand is scored and the best one played:

    1. **Trick outcome.** After the card, the trick is held by the mover's
       team (the mover or its partner), by an opponent, or is spoiled (tied
       at the top). Opponents still to play are assumed to beat the trick
       whenever they hold a stronger card and to spoil it with an equal one;
       the chance that they hold one follows from the unseen cards (other
       hands and the deck's unused cards, uniformly spread). A partner still
       to play who holds a stronger card is credited half a chance to rescue
       a trick the mover cannot take.
    2. **Outcome values.** A trick for the team is worth a little, one for
       the opponents costs as much, a spoiled trick nothing; this fades to
       zero by the last trick. On top comes the *race*: the match-point
       margin if the deal ended after this trick (most individual tricks,
       ties to who got there first, Mordienne counting 2), weighted by
       urgency ``1 / (tricks left + 1)``, so it decides the last trick
       alone. The mover's own Mordienne counts only when the rest of its
       hand is stronger than every unseen card, trick for trick. This makes
       the player concentrate tricks in the team's leader, spoil an
       opponent's trick with an equal card when losing it would hurt (the
       spoiler cannot win it), pursue or break a Mordienne run at the end of
       the deal, and leave a trick its partner safely holds alone
       (overtaking gains nothing and costs a card).
    3. **Card cost.** Spending a strong card costs in proportion to its
       strength and to the tricks still to come, so the player takes tricks
       with its cheapest sufficient card and throws its weakest card when
       the trick is lost or already safe. Exact ties go to the weaker card.
    """
    scores = np.empty(DECK_SIZE)
    card_scores(state, scores)
    choice = np.int64(-1)
    choice_score = -1e18
    choice_strength = N_STRENGTHS
    m = np.uint64(state[HANDS + state[TO_MOVE]])
    while m != ZERO:
        low = m & (~m + ONE)
        card = popcount(low - ONE)
        m ^= low
        score = scores[card]
        strength = STRENGTH[card]
        if score > choice_score + 1e-12 or (
            score > choice_score - 1e-12 and strength < choice_strength
        ):
            choice, choice_score, choice_strength = card, score, strength
    return choice


@njit(cache=True)
def card_scores(state, scores):
    """The heuristic's score of each card in the mover's hand into ``scores[card]``
    (float64[DECK_SIZE]; other entries untouched): see :func:`heuristic_action`."""
    _score_hand(state, scores, True)


@njit(cache=True)
def _score_hand(state, out, by_card):
    """:func:`card_scores` into ``out[card]`` (``by_card``) or, in the hand's order
    (ascending cards, as :func:`legal_actions` lists them), into ``out[k]`` for
    its ``k``-th card."""
    seat = state[TO_MOVE]
    team = team_of(seat)
    partner = (seat + 2) % N_SEATS
    hand = np.uint64(state[HANDS + seat])
    unseen = np.uint64(state[DECK]) & ~hand & ~np.uint64(state[GONE])
    n_unseen = popcount(unseen)
    top_unseen = np.int64(TOP_STRENGTH)
    while top_unseen >= 0 and unseen & STRENGTH_MASKS[top_unseen] == ZERO:
        top_unseen -= 1
    # cards in hand stronger than any card the mover cannot see
    sure_cards = popcount(hand & STRONGER_MASKS[top_unseen]) if top_unseen >= 0 else popcount(hand)

    index = state[TRICKS_DONE]
    tricks = state[DEALT_HAND]  # tricks per deal: 9 in the full game
    left = tricks - 1 - index  # tricks after this one
    urgency = 1.0 / (left + 1.0)
    fading = max(tricks - 1.0, 1.0)  # a one-trick deal (hand=1) has nothing to fade
    trick_weight = TRICK_WEIGHT * left / fading
    card_cost = STRENGTH_COST * left / (fading * TOP_STRENGTH)

    # The trick so far and who still plays after the mover.
    leader = state[LEADER]
    n = state[N_IN_TRICK]
    best = np.int64(-1)
    best_count = 0
    best_seat = np.int64(NOBODY)
    for k in range(n):
        s = STRENGTH[state[TRICK + k]]
        if s > best:
            best, best_count, best_seat = s, 1, (leader + k) % N_SEATS
        elif s == best:
            best_count += 1
    follower_hand = tricks - index  # cards held by a seat yet to play
    opponents_after = 0
    partner_after = False
    opponent_value = 0.0
    values = _outcome_values(state, team, urgency, trick_weight, seat)
    for k in range(n + 1, N_SEATS):
        s = (leader + k) % N_SEATS
        if s == partner:
            partner_after = True
        else:
            opponents_after += 1
            opponent_value += values[s]
    opponents_hand = opponents_after * follower_hand
    if opponents_after > 0:
        opponent_value /= opponents_after
    value_me = values[seat]
    # The mover's own run is only worth 2 if its hand can take every trick left.
    value_me_no_run = values[MOVER_NO_RUN_INDEX]
    value_partner = values[partner]
    value_spoiled = values[SPOILED_INDEX]
    value_holder = 0.0
    if best_seat != NOBODY and best_count == 1:
        value_holder = values[best_seat]

    m = hand
    k = 0
    while m != ZERO:
        low = m & (~m + ONE)
        card = popcount(low - ONE)
        m ^= low
        strength = STRENGTH[card]
        top = strength if strength > best else best
        above = popcount(unseen & STRONGER_MASKS[top])  # unseen cards that beat it
        equal = popcount(unseen & STRENGTH_MASKS[top])  # unseen cards that tie it
        beats_none = _none_drawn(n_unseen, above, opponents_hand)
        ties_none = _none_drawn(n_unseen, above + equal, opponents_hand)
        help_ = 0.0
        if partner_after:
            help_ = PARTNER_HELP * (1.0 - _none_drawn(n_unseen, above, follower_hand))
        if strength > best or (
            strength < best and best_count == 1 and team_of(best_seat) == team
        ):
            # Our trick: the mover's new top card, or the partner's left alone.
            ours = value_partner
            if strength > best:
                sure_left = sure_cards - (1 if strength > top_unseen else 0)
                ours = value_me if sure_left >= left else value_me_no_run
            score = (
                ties_none * ours
                + (beats_none - ties_none) * value_spoiled
                + (1.0 - beats_none) * opponent_value
            )
        elif strength == best or best_count > 1:
            # Spoiled so far (or by this card): so it stays unless someone follows higher.
            score = (
                beats_none * ((1.0 - help_) * value_spoiled + help_ * value_partner)
                + (1.0 - beats_none) * opponent_value
            )
        else:
            # An opponent holds it and the mover's card does not reach it.
            score = help_ * value_partner + (1.0 - help_) * value_holder
        out[card if by_card else k] = score - card_cost * strength
        k += 1


@njit(cache=True)
def action_scores(state, rng, actions, n, out):
    """The heuristic's score of each of the legal ``actions[:n]`` (cards) into
    ``out[:n]`` (:func:`card_scores`); :func:`heuristic_action` plays the best
    (the weaker card on exact ties). The opponent model of ``belief=inferred``
    is a softmax over these. ``rng`` is not used."""
    if _lists_hand(np.uint64(state[HANDS + state[TO_MOVE]]), actions, n):
        _score_hand(state, out, False)  # no buffer to allocate (the belief scores thousands of moves)
        return
    scores = np.empty(DECK_SIZE)
    card_scores(state, scores)
    for i in range(n):
        out[i] = scores[actions[i]]


@njit(cache=True, inline="always")
def _lists_hand(hand, actions, n):
    """Whether ``actions[:n]`` are the cards of ``hand``, ascending."""
    m = hand
    for i in range(n):
        if m == ZERO or actions[i] != popcount((m & (~m + ONE)) - ONE):
            return False
        m &= m - ONE
    return m == ZERO


# ------------------------------------------------------------ belief replay


@njit(cache=True)
def deal_from_world(world, template, rng, out):
    """The deal vector that dealt ``world`` (int64[DEAL_SIZE] into ``out``), for
    replaying the deal's history in it (:mod:`slagwerk.search.belief`).

    ``template`` is a deal vector with every card already played this deal in
    its player's block and -1 elsewhere; the -1 places of a seat's block take
    the cards it holds in ``world``, the undealt places the world's unused
    cards (hidden cards never move in Aluette), and a small variant's last
    places the cards out of its deck. False if the counts disagree.
    ``rng`` is not used.
    """
    for i in range(DEAL_SIZE):
        out[i] = template[i]
    hand = world[DEALT_HAND]
    deck = np.uint64(world[DECK])
    in_play = popcount(deck)
    for seat in range(N_SEATS + 2):
        if seat < N_SEATS:
            cards = np.uint64(world[HANDS + seat])
            start, size = seat * hand, hand
        elif seat == N_SEATS:
            cards = np.uint64(world[UNDEALT])
            start, size = N_SEATS * hand, in_play - N_SEATS * hand
        else:  # cards out of the deck (none in the full game)
            cards = ALL_CARDS & ~deck
            start, size = in_play, DECK_SIZE - in_play
        for k in range(size):
            if out[start + k] < 0:
                if cards == ZERO:
                    return False
                out[start + k] = popcount((cards & (~cards + ONE)) - ONE)
                cards &= cards - ONE
        if cards != ZERO:
            return False
    return True
