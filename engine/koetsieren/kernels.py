"""Koetsieren: numba kernels over the flat state (docs/rules.md §2).

Cards use :data:`slagwerk.engine.cards.KOETSIEREN_DECK`: ``index = suit * 8 +
rank``, suits ``c d h s``, ranks ``7 8 9 T J Q K A`` as ``0 .. 7``, so a
higher index is a higher card of the same suit.

Each seat holds five *slots* ``T1 T2`` (table, seen by all), ``F1 F2``
(forehead, seen by everyone but the owner) and ``H`` (hidden, seen only by
the owner). Actions are int64:

- ``0 .. 4``: play the card of slot ``T1 T2 F1 F2 H`` of the seat to move.
  Naming the slot, not the card, makes an action mean the same thing in
  every world a seat considers possible (it does not know its forehead).
- ``TRUMP_BASE + suit``: the trump maker names trump.
- ``BID_BASE + tricks``: a bid of ``0 .. 5`` tricks.

A small variant (docs/rules.md §2.15: options ``ranks`` and ``hand``) plays with the
top ``ranks`` ranks of each suit and deals each seat only ``hand`` of its slots, in the
order ``F1 H T1 F2 T2``: the deck in play (``state[DECK]``) and the slots dealt
(``state[DEALT_HAND]``) are state fields set by :func:`init_match`, so the kernels read
them like any other field; the full game (``ranks=8, hand=5``) plays exactly as before.

Deal points and totals are penalty points ``|bid - tricks|`` (docs/rules.md §2.9).
Every kernel follows the engine contract of :mod:`slagwerk.engine.contract`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import (
    ONE,
    ZERO,
    bit,
    kth_bit,
    mask_to_indices,
    popcount,
    rand_below,
    random_bits32,
    scale_below,
    select_bit,
)
from ..common import (
    begin_deal,
    card_arithmetic,
    draw_front,
    end_deal,
    end_match,
    end_trick,
    init_header,
    left_of,
    match_outcome_reward,
    top_ranks_deck,
)
from ..state import (
    DEAL_POINTS,
    DEALER,
    LEADER,
    MAX_SEATS,
    N_PLAYERS,
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
N_SEATS = MAX_SEATS
"""Most players a match can have; ``state[N_PLAYERS]`` holds the actual number."""
MIN_PLAYERS = INFO.options["players"].low
DEFAULT_PLAYERS = INFO.options["players"].default
N_SUITS = 4
N_RANKS = 8
DECK_SIZE = N_SUITS * N_RANKS
ALL_CARDS = np.uint64((1 << DECK_SIZE) - 1)
SUIT_RUN = (1 << N_RANKS) - 1

SLOTS_PER_SEAT = 5
SLOT_T1, SLOT_T2, SLOT_F1, SLOT_F2, SLOT_H = 0, 1, 2, 3, 4
SLOT_NAMES = ("T1", "T2", "F1", "F2", "H")
EMPTY_SLOT = -1
"""Value of a slot whose card has been played (or of a seat not in the match)."""

TRICKS_PER_DEAL = SLOTS_PER_SEAT
"""Tricks of a deal of the full game; a small variant's deal has ``state[DEALT_HAND]``."""
MAX_BID = TRICKS_PER_DEAL
HOOK_SUM = TRICKS_PER_DEAL
"""The trump maker may not bring the sum of the bids to exactly this (in the full game;
to the tricks of the deal, ``state[DEALT_HAND]``, in a small variant)."""
DEAL_ORDER = (SLOT_F1, SLOT_H, SLOT_T1, SLOT_F2, SLOT_T2)
"""A small variant of ``hand`` slots deals the first ``hand`` of these (docs/rules.md §2.15)."""


def _dealt_slot_tables():
    slots = np.full((SLOTS_PER_SEAT + 1, SLOTS_PER_SEAT), -1, dtype=np.int64)
    masks = np.zeros(SLOTS_PER_SEAT + 1, dtype=np.int64)
    for hand in range(SLOTS_PER_SEAT + 1):
        dealt = sorted(DEAL_ORDER[:hand])
        slots[hand, :hand] = dealt
        masks[hand] = sum(1 << slot for slot in dealt)
    return slots, masks


DEALT_SLOTS, DEALT_MASKS = _dealt_slot_tables()
"""``DEALT_SLOTS[hand, k]``: the ``k``-th slot (in slot order) a seat is dealt when it gets
``hand`` cards; ``DEALT_MASKS[hand]``: those slots as a live mask (``ALL_SLOTS`` for 5)."""
SHARE_OF = np.array([[value / hand if hand else 0.0 for value in range(SLOTS_PER_SEAT + 1)]
                     for hand in range(SLOTS_PER_SEAT + 1)])
"""``SHARE_OF[hand, value]`` is ``value / hand`` (tricks or penalty points of a deal of
``hand`` tricks), looked up rather than divided by a state field in the kernels."""
LOSING_TOTAL = 10
"""The match ends after a deal in which some total reaches this."""
MAX_PENALTY = MAX_BID
NO_TRUMP = -1
NO_BID = -1

# Actions.
TRUMP_BASE = SLOTS_PER_SEAT
BID_BASE = TRUMP_BASE + N_SUITS
N_ACTION_IDS = BID_BASE + MAX_BID + 1
MAX_ACTIONS = MAX_BID + 1
"""Most legal actions at once: the six bids."""

# Game-specific phases (the common PHASE_PLAY is the card play).
PHASE_TRUMP = PHASE_GAME_BASE
"""The trump maker (left of the dealer) names trump."""
PHASE_BID = PHASE_GAME_BASE + 1
"""Bidding, clockwise from the trump maker's left; the trump maker bids last."""

OPTION_NAMES = ("players", "first_dealer", "ranks", "hand")
DEAL_SIZE = DECK_SIZE
"""A deal vector: seat ``s``'s slots ``T1 T2 F1 F2 H`` at ``5s .. 5s+4`` for each
of the ``n`` players, then the ``32 - 5n`` undealt cards. In a small variant of ``h``
slots a seat, position ``h*s + k`` is seat ``s``'s ``k``-th dealt slot (slot order,
:data:`DEALT_SLOTS`), then come the deck's cards not dealt, then the cards out of it."""

LAYOUT = build_layout(
    [
        ("deck", 1),  # card mask of the deck in play: the top `ranks` of each suit (§2.15)
        ("hand_size", 1),  # option `hand`: slots dealt to each seat, and tricks per deal
        ("slots", N_SEATS * SLOTS_PER_SEAT),  # card per slot, EMPTY_SLOT once played
        ("played_from", N_SEATS * SLOTS_PER_SEAT),  # card played from each slot this deal (public)
        ("live", N_SEATS),  # per seat, bit k set while slot k still holds a card
        ("undealt", 1),  # mask of the cards not dealt this deal (nobody sees them)
        ("gone", 1),  # mask of every card played this deal (public)
        ("trump", 1),  # trump suit, or NO_TRUMP before it is named
        ("trump_maker", 1),  # left of the dealer: names trump, bids last, leads first
        ("bids", N_SEATS),  # bid per seat, NO_BID before it is made
        ("bid_sum", 1),  # sum of the bids made so far
        ("tricks_won", N_SEATS),  # tricks taken per seat this deal
        ("trick", N_SEATS),  # cards of the current trick, in play order
        ("n_in_trick", 1),  # cards played to the current trick
        ("trick_best", 1),  # position in the trick of the card winning it so far
    ]
)
STATE_SIZE = LAYOUT.size
DECK = LAYOUT.offset["deck"]
DEALT_HAND = LAYOUT.offset["hand_size"]
SLOTS = LAYOUT.offset["slots"]
PLAYED_FROM = LAYOUT.offset["played_from"]
LIVE = LAYOUT.offset["live"]
UNDEALT = LAYOUT.offset["undealt"]
GONE = LAYOUT.offset["gone"]
TRUMP = LAYOUT.offset["trump"]
TRUMP_MAKER = LAYOUT.offset["trump_maker"]
BIDS = LAYOUT.offset["bids"]
BID_SUM = LAYOUT.offset["bid_sum"]
TRICKS_WON = LAYOUT.offset["tricks_won"]
TRICK = LAYOUT.offset["trick"]
N_IN_TRICK = LAYOUT.offset["n_in_trick"]
TRICK_BEST = LAYOUT.offset["trick_best"]
ALL_SLOTS = (1 << SLOTS_PER_SEAT) - 1


suit_of, rank_of = card_arithmetic(N_RANKS)


@njit(cache=True)
def suit_mask(suit):
    """Mask of the eight cards of ``suit``."""
    return np.uint64(SUIT_RUN) << np.uint64(suit * N_RANKS)


@njit(cache=True)
def next_seat(seat, n):
    """The seat clockwise of ``seat``: ``left_of`` without a division (it runs
    after every card played)."""
    seat += 1
    return 0 if seat == n else seat


@njit(cache=True)
def is_forehead(slot):
    """True for the forehead slots ``F1`` and ``F2``."""
    return SLOT_F1 <= slot <= SLOT_F2


@njit(cache=True, inline="always")
def slot_card(state, seat, slot):
    """Card in ``slot`` of ``seat`` (``EMPTY_SLOT`` once played)."""
    return state[SLOTS + seat * SLOTS_PER_SEAT + slot]


@njit(cache=True)
def beats(card, best, trump):
    """True when ``card`` beats ``best``, the card winning the trick so far.

    ``best`` is a trump or of the suit led, so a card beats it only with a
    higher card of its suit or a trump against a non-trump; an off-suit
    card never wins.
    """
    if suit_of(card) == suit_of(best):
        return card > best
    return suit_of(card) == trump


@njit(cache=True)
def trick_winner_position(trick, n_cards, trump):
    """Position (in play order) of the winning card of ``trick[:n_cards]``.

    The highest trump if any trump was played, else the highest card of the
    suit led. ``trick`` is an int64 array of card indices.
    """
    best_pos = 0
    for k in range(1, n_cards):
        if beats(trick[k], trick[best_pos], trump):
            best_pos = k
    return best_pos


# ------------------------------------------------------------------ contract


@njit(cache=True)
def init_match(state, options):
    """Start a match in ``state`` (int64[STATE_SIZE], in place).

    ``options`` is int64 ``[players, first_dealer, ranks, hand]``. The state then
    waits for its first deal (``PHASE_DEAL_PENDING``).
    """
    init_header(state, GAME_ID, options[0], options[1])
    state[DECK] = np.int64(top_ranks_deck(N_SUITS, N_RANKS, options[2]))
    state[DEALT_HAND] = options[3]
    for i in range(N_SEATS * SLOTS_PER_SEAT):
        state[SLOTS + i] = EMPTY_SLOT
        state[PLAYED_FROM + i] = EMPTY_SLOT
    state[TRUMP] = NO_TRUMP
    for s in range(N_SEATS):
        state[BIDS + s] = NO_BID


@njit(cache=True)
def random_deal(state, rng, out):
    """Write a uniformly random deal vector into ``out`` (int64[DEAL_SIZE]).

    Only the ``hand * n`` dealt positions (``5n`` in the full game) are drawn from the
    deck in play (a partial Fisher-Yates shuffle); its undealt cards follow in no
    particular order, which is all the rules need: nobody ever sees them. Cards out of
    a small variant's deck come last, unshuffled.
    """
    deck = np.uint64(state[DECK])
    in_play = mask_to_indices(deck, out)  # the deck in play first (all 32 in order in the full game)
    mask_to_indices(ALL_CARDS & ~deck, out[in_play:])
    draw_front(out, in_play, state[N_PLAYERS] * state[DEALT_HAND], rng)


@njit(cache=True)
def apply_deal(state, deal):
    """Deal the slots of ``deal`` (int64[DEAL_SIZE]) and start the deal (in place).

    The dealer is already in ``state[DEALER]``; the player to its left is the
    trump maker, who names trump first and leads the first trick.
    """
    n = state[N_PLAYERS]
    hand = state[DEALT_HAND]
    begin_deal(state)
    for i in range(N_SEATS * SLOTS_PER_SEAT):
        state[SLOTS + i] = EMPTY_SLOT
        state[PLAYED_FROM + i] = EMPTY_SLOT
    dealt = ZERO
    for s in range(n):  # slots never dealt (a small variant's) stay empty
        for k in range(hand):
            card = deal[s * hand + k]
            state[SLOTS + s * SLOTS_PER_SEAT + DEALT_SLOTS[hand, k]] = card
            dealt |= bit(card)
    state[UNDEALT] = np.int64(np.uint64(state[DECK]) & ~dealt)
    for s in range(N_SEATS):
        state[LIVE + s] = DEALT_MASKS[hand] if s < n else 0
    state[GONE] = 0
    state[TRUMP] = NO_TRUMP
    state[BID_SUM] = 0
    for s in range(N_SEATS):
        state[BIDS + s] = NO_BID
        state[TRICKS_WON + s] = 0
    state[N_IN_TRICK] = 0
    state[TRICK_BEST] = 0
    maker = left_of(state[DEALER], n)
    state[TRUMP_MAKER] = maker
    state[LEADER] = maker
    state[TO_MOVE] = maker
    state[PHASE] = PHASE_TRUMP


@njit(cache=True)
def barred_bid(state):
    """The bid the hook forbids the seat to move, or -1 if none is barred.

    Only the trump maker, who bids last, is barred: from the bid that would
    bring the sum of all bids to exactly the deal's tricks (five; ``hand`` in a
    small variant).
    """
    if state[PHASE] != PHASE_BID or state[TO_MOVE] != state[TRUMP_MAKER]:
        return -1
    barred = state[DEALT_HAND] - state[BID_SUM]
    return barred if barred >= 0 else -1


@njit(cache=True)
def legal_actions(state, out):
    """Write the legal actions (ascending) into ``out`` (int64); return their count.

    Trump: the four suits. Bids: ``0 .. 5`` (``0 .. hand``) except the hook's barred bid.
    Play: every slot of the mover that still holds a card (no obligation
    to follow suit or to trump).
    """
    phase = state[PHASE]
    n = 0
    if phase == PHASE_PLAY:
        live = state[LIVE + state[TO_MOVE]]
        for slot in range(SLOTS_PER_SEAT):
            if (live >> slot) & 1:
                out[n] = slot
                n += 1
    elif phase == PHASE_BID:
        barred = barred_bid(state)
        for b in range(state[DEALT_HAND] + 1):
            if b != barred:
                out[n] = BID_BASE + b
                n += 1
    elif phase == PHASE_TRUMP:
        for s in range(N_SUITS):
            out[n] = TRUMP_BASE + s
            n += 1
    return n


@njit(cache=True, inline="always")
def random_action(state, rng):
    """A uniformly random legal action, drawn without listing them all.

    Every decision takes exactly one draw from ``rng``, made before the
    phase decides its range; the slot is then picked in constant time.
    """
    phase = state[PHASE]
    bits = random_bits32(rng)
    if phase == PHASE_PLAY:
        live = np.uint64(state[LIVE + state[TO_MOVE]])
        return select_bit(live, scale_below(bits, popcount(live)))
    if phase == PHASE_BID:
        barred = barred_bid(state)
        most = state[DEALT_HAND]
        if barred < 0:
            return np.int64(BID_BASE + scale_below(bits, most + 1))
        b = scale_below(bits, most)
        return np.int64(BID_BASE + (b + 1 if b >= barred else b))
    if phase == PHASE_TRUMP:
        return np.int64(TRUMP_BASE + scale_below(bits, N_SUITS))
    return np.int64(-1)


@njit(cache=True, inline="always")
def apply_action(state, action):
    """Apply ``action`` for the seat to move (in place). Assumes it is legal."""
    seat = state[TO_MOVE]
    n = state[N_PLAYERS]
    if action < TRUMP_BASE:
        _play_slot(state, seat, action, n)
    elif action < BID_BASE:
        state[TRUMP] = action - TRUMP_BASE
        state[PHASE] = PHASE_BID
        state[TO_MOVE] = next_seat(seat, n)
    else:
        b = action - BID_BASE
        state[BIDS + seat] = b
        state[BID_SUM] += b
        if seat == state[TRUMP_MAKER]:
            state[PHASE] = PHASE_PLAY
            state[TO_MOVE] = state[LEADER]
        else:
            state[TO_MOVE] = next_seat(seat, n)


@njit(cache=True, inline="always")
def _play_slot(state, seat, slot, n):
    at = SLOTS + seat * SLOTS_PER_SEAT + slot
    card = state[at]
    state[at] = EMPTY_SLOT
    state[PLAYED_FROM + seat * SLOTS_PER_SEAT + slot] = card
    state[LIVE + seat] &= ~(1 << slot)
    state[GONE] = np.int64(np.uint64(state[GONE]) | bit(card))
    k = state[N_IN_TRICK]
    state[TRICK + k] = card
    if k == 0:
        state[TRICK_BEST] = 0
    elif beats(card, state[TRICK + state[TRICK_BEST]], state[TRUMP]):
        state[TRICK_BEST] = k
    k += 1
    state[N_IN_TRICK] = k
    if k < n:
        state[TO_MOVE] = next_seat(seat, n)
    else:
        _finish_trick(state, n)


@njit(cache=True, inline="always")
def _finish_trick(state, n):
    winner = state[LEADER] + state[TRICK_BEST]
    if winner >= n:
        winner -= n
    state[TRICKS_WON + winner] += 1
    state[N_IN_TRICK] = 0
    end_trick(state, winner)
    if state[TRICKS_DONE] < state[DEALT_HAND]:
        state[TO_MOVE] = winner
    else:
        _finish_deal(state, n)


@njit(cache=True, inline="always")
def _finish_deal(state, n):
    """Score ``|bid - tricks|`` per seat; end the match or pass the deal left.

    Inlined and free of divisions (``next_seat``, not ``left_of``): a call
    that branches over the state, or a division by the runtime ``n`` with its
    zero-division exit, keeps numba's reference counting of ``state`` in the
    playout loop (see ``common.end_match``).
    """
    highest = 0
    for s in range(n):
        penalty = abs(state[BIDS + s] - state[TRICKS_WON + s])
        state[DEAL_POINTS + s] = penalty
        state[TOTALS + s] += penalty
        highest = max(highest, state[TOTALS + s])
    if highest >= LOSING_TOTAL:
        # Ruling: every seat sharing the highest total loses.
        for s in range(n):
            state[OUTCOME + s] = 0 if state[TOTALS + s] == highest else 2
        end_match(state)
    else:
        end_deal(state, next_seat(state[DEALER], n))


@njit(cache=True)
def returns(state, objective, out):
    """Per-seat rewards in [0, 1] into ``out`` (float64[n]).

    ``OBJECTIVE_DEAL``: ``1 - penalty / 5`` for the deal just scored (fewer
    penalty points is better; 5, the deal's tricks, is the most a deal can cost;
    ``hand`` in a small variant).
    ``OBJECTIVE_MATCH``: the match outcome (call only on a finished match).
    """
    if objective == OBJECTIVE_DEAL:
        most = state[DEALT_HAND]
        for s in range(state[N_PLAYERS]):
            out[s] = 1.0 - SHARE_OF[most, state[DEAL_POINTS + s]]
    else:
        match_outcome_reward(state, out)


@njit(cache=True)
def visible_mask(state, seat):
    """Mask of the unplayed cards in slots that ``seat`` can see.

    Everyone's table cards, the other seats' forehead cards and its own
    hidden card. (Played cards are public too: they are in ``GONE``.)
    """
    n = state[N_PLAYERS]
    seen = ZERO
    for t in range(n):
        for slot in range(SLOTS_PER_SEAT):
            if slot == SLOT_H:
                visible = t == seat
            elif is_forehead(slot):
                visible = t != seat
            else:
                visible = True
            card = slot_card(state, t, slot)
            if visible and card != EMPTY_SLOT:
                seen |= bit(card)
    return seen


@njit(cache=True)
def unseen_mask(state, seat):
    """Mask of the cards ``seat`` cannot see: its own unplayed forehead cards,
    the others' unplayed hidden cards and the undealt cards (of the deck in play:
    a small variant's cards out of it are never dealt, docs/rules.md §2.15)."""
    return np.uint64(state[DECK]) & ~np.uint64(state[GONE]) & ~visible_mask(state, seat)


@njit(cache=True)
def determinize(state, observer, rng):
    """Redeal every card ``observer`` cannot see, uniformly (in place).

    The unseen cards (its own unplayed forehead cards, the other seats'
    unplayed hidden cards, the undealt cards) are dealt back to those same
    places at random. Everything the observer sees stays, and so do the
    played cards. No rule constrains a play (no obligation to follow suit),
    so play reveals nothing more about where the unseen cards are.
    """
    n = state[N_PLAYERS]
    pool = unseen_mask(state, observer)
    for t in range(n):
        for slot in range(SLOTS_PER_SEAT):
            if t == observer:
                unknown = is_forehead(slot)
            else:
                unknown = slot == SLOT_H
            at = SLOTS + t * SLOTS_PER_SEAT + slot
            if unknown and state[at] != EMPTY_SLOT:
                card = kth_bit(pool, rand_below(rng, popcount(pool)))
                state[at] = card
                pool &= ~bit(card)
    state[UNDEALT] = np.int64(pool)


# ------------------------------------------------------------ heuristic policy

TRUMP_BID_WEIGHT = 1.0
"""A trump's trick chance counts this much in a bid."""
NONTRUMP_BID_WEIGHTS = np.array([0.0, 0.0, 0.62, 0.55, 0.5, 0.35, 0.25])
"""By number of players: how much a non-trump's trick chance counts in a
bid. It wins only in a trick of its own suit (usually one it leads), and
the more players, the likelier someone trumps it. Fitted by least squares
to the tricks the heuristic took against random players and against
itself (docs/rules.md gives no such numbers)."""
SPEND_WEIGHT = 0.1
"""Short of the bid: the cost of spending a card by its strength (so the
cheapest adequate winner is played, strong cards are kept)."""
SHED_WEIGHT = 0.1
"""On the bid: the value of shedding a strong card while it loses safely."""
TRUMP_COUNT_WEIGHT = N_RANKS
"""Trump choice: one more known card of a suit outweighs any rank difference."""


@njit(cache=True, inline="always")
def _threats(card, trump):
    """Mask of the cards that beat ``card``, a trump or a card of the suit led."""
    s = suit_of(card)
    above = suit_mask(s) & ~((bit(card) << ONE) - ONE)
    if s != trump and trump >= 0:  # a non-trump (of the suit led) loses to any trump
        above |= suit_mask(trump)
    return above


@njit(cache=True)
def _trick_best(state):
    """The card winning the current (non-empty) trick so far."""
    return state[TRICK + state[TRICK_BEST]]


@njit(cache=True, inline="always")
def _live_count(state, seat):
    return popcount(np.uint64(state[LIVE + seat]))


@njit(cache=True)
def shown_cards(state, out):
    """Per seat, the mask of its cards that every other seat sees (``T1 T2 F1 F2``)
    into ``out[seat]``: what :func:`win_chance` counts, gathered once per judgement."""
    for t in range(state[N_PLAYERS]):
        shown = ZERO
        for slot in range(SLOT_H):
            c = slot_card(state, t, slot)
            if c != EMPTY_SLOT:
                shown |= bit(c)
        out[t] = shown


@njit(cache=True)
def win_chance(state, seat, card, unseen, as_lead, shown):
    """Estimated chance that ``card`` wins the trick if ``seat`` plays it now.

    Reads only what ``seat`` sees (``shown``: :func:`shown_cards`). ``as_lead``
    judges it as the lead of a fresh trick (its strength for later); otherwise
    the current trick counts: a card that cannot beat the cards already played
    scores 0. Each seat still to play is taken to play one of its cards at
    random, so it beats ``card`` with chance ``(its cards that would) / (its
    cards)``, the seats independently; a seat's hidden card counts as such a
    card with the chance that a uniformly drawn unseen card is one (``card``
    itself excluded when it is unseen: a blind forehead card being judged).
    """
    lead, now = _win_chances(state, seat, card, unseen, shown, as_lead or state[N_IN_TRICK] == 0)
    return lead if as_lead else now


# Inlined: the heuristic judges every unseen card (about 20) per decision, and
# the belief's replays judge every move of another seat in hundreds of worlds.
@njit(cache=True, inline="always")
def _win_chances(state, seat, card, unseen, shown, leading):
    """:func:`win_chance` both ways at once: (as a lead, now in the current
    trick; both the chance as a lead when ``leading``). The seats still to
    play in the trick come first in the seats after ``seat``, so the chance
    now is a partial product of the chance as a lead: both come from one
    pass, with the same arithmetic as judging them apart."""
    n = state[N_PLAYERS]
    trump = state[TRUMP]
    threats = _threats(card, trump)
    pool = unseen & ~bit(card)
    n_pool = popcount(pool)
    hidden_threat = popcount(threats & pool) / n_pool if n_pool > 0 else 0.0
    # Seats still to play after ``seat`` when ``card`` can win the trick now
    # (``beats``: the best card is of the suit led or a trump, so an off-suit
    # card never beats it); -1 when leading (the chance now is the whole
    # product) or when it cannot win (the chance now stays 0).
    now_seats = -1
    if not leading and beats(card, _trick_best(state), trump):
        now_seats = n - state[N_IN_TRICK] - 1
    now = 0.0
    chance = 1.0
    t = seat
    for k in range(n - 1):
        if k == now_seats:
            now = chance
        t = next_seat(t, n)
        held = _live_count(state, t)
        if held == 0:
            continue
        expected_threats = float(popcount(threats & np.uint64(shown[t])))
        if slot_card(state, t, SLOT_H) != EMPTY_SLOT:
            expected_threats += hidden_threat
        chance *= 1.0 - expected_threats / held
    if leading:
        now = chance
    return chance, now


@njit(cache=True)
def expected_tricks(state, seat):
    """The heuristic's estimate of the tricks ``seat`` will take this deal.

    Each card counts its chance to win as a lead (:func:`win_chance`), in
    full for a trump, weighted by :data:`NONTRUMP_BID_WEIGHTS` otherwise. Its
    table and hidden cards count at their value; each of its forehead cards
    (unknown to it) at the average value of the cards it cannot see.
    """
    n = state[N_PLAYERS]
    unseen = unseen_mask(state, seat)
    # What a lead's chance reads of each seat after ``seat``, in turn, gathered
    # once (the belief's replays judge each bid in hundreds of worlds): the
    # cards it shows, how many it holds, whether one is hidden.
    others = np.empty(3 * N_SEATS, np.int64)
    t = seat
    for k in range(n - 1):
        t = next_seat(t, n)
        shown = ZERO
        for slot in range(SLOT_H):
            c = slot_card(state, t, slot)
            if c != EMPTY_SLOT:
                shown |= bit(c)
        others[3 * k] = np.int64(shown)
        others[3 * k + 1] = _live_count(state, t)
        others[3 * k + 2] = slot_card(state, t, SLOT_H) != EMPTY_SLOT
    n_unseen = popcount(unseen)
    blind_value = 0.0
    m = unseen
    while m != ZERO:
        low = m & (~m + ONE)
        blind_value += _bid_value(state, popcount(low - ONE), unseen, others)
        m ^= low
    if n_unseen > 0:
        blind_value /= n_unseen
    total = 0.0
    for slot in range(SLOTS_PER_SEAT):
        card = slot_card(state, seat, slot)
        if card == EMPTY_SLOT:
            continue
        if is_forehead(slot):
            total += blind_value
        else:
            total += _bid_value(state, card, unseen, others)
    return total


@njit(cache=True, inline="always")
def _bid_value(state, card, unseen, others):
    """Expected tricks from ``card`` at bidding time: its chance as a lead (the
    arithmetic of :func:`_win_chances`, over ``others`` as
    :func:`expected_tricks` gathers them), weighted."""
    trump = state[TRUMP]
    threats = _threats(card, trump)
    pool = unseen & ~bit(card)
    n_pool = popcount(pool)
    hidden_threat = popcount(threats & pool) / n_pool if n_pool > 0 else 0.0
    chance = 1.0
    for k in range(state[N_PLAYERS] - 1):
        held = others[3 * k + 1]
        if held == 0:
            continue
        expected_threats = float(popcount(threats & np.uint64(others[3 * k])))
        if others[3 * k + 2]:
            expected_threats += hidden_threat
        chance *= 1.0 - expected_threats / held
    if suit_of(card) == trump:
        return chance * TRUMP_BID_WEIGHT
    return chance * NONTRUMP_BID_WEIGHTS[state[N_PLAYERS]]


@njit(cache=True)
def _trump_score(state, seat, suit):
    """Strength of ``suit`` among the maker's known cards (``T1 T2 H``): each
    adds ``TRUMP_COUNT_WEIGHT + rank``."""
    score = 0
    for slot in (SLOT_T1, SLOT_T2, SLOT_H):
        card = slot_card(state, seat, slot)
        if card != EMPTY_SLOT and suit_of(card) == suit:
            score += TRUMP_COUNT_WEIGHT + rank_of(card)
    return score


@njit(cache=True)
def _heuristic_trump(state, seat):
    """Trump by suit strength among the maker's known cards (:func:`_trump_score`):
    the longest known suit wins and its ranks break ties; a suit with no known
    card is never preferred to one with a card."""
    best = 0
    best_score = -1
    for s in range(N_SUITS):
        score = _trump_score(state, seat, s)
        if score > best_score:
            best_score = score
            best = s
    return np.int64(TRUMP_BASE + best)


@njit(cache=True)
def _bid_distance(bid, estimate):
    """How far a bid is from the trick estimate: the heuristic bids the nearest."""
    return abs(bid - estimate)


@njit(cache=True)
def _heuristic_bid(state, seat):
    """Round the trick estimate; the trump maker takes the nearest allowed bid."""
    estimate = expected_tricks(state, seat)
    barred = barred_bid(state)
    best = 0
    best_gap = 1e18
    for b in range(state[DEALT_HAND] + 1):
        gap = _bid_distance(b, estimate)
        if b != barred and gap < best_gap:
            best_gap = gap
            best = b
    return np.int64(BID_BASE + best)


@njit(cache=True)
def _heuristic_play(state, seat):
    """The slot with the best :func:`_slot_scores` (the lowest on ties)."""
    scores = np.empty(SLOTS_PER_SEAT)
    _slot_scores(state, seat, scores)
    best = np.int64(-1)
    best_score = -1e18
    for slot in range(SLOTS_PER_SEAT):
        if slot_card(state, seat, slot) != EMPTY_SLOT and scores[slot] > best_score:
            best_score = scores[slot]
            best = slot
    return best


@njit(cache=True)
def _slot_scores(state, seat, out):
    """Score each slot of ``seat`` holding a card into ``out[slot]`` by (chance to
    win now, strength kept for later) and the bid (other entries untouched)."""
    unseen = unseen_mask(state, seat)
    shown = np.empty(N_SEATS, np.uint64)
    shown_cards(state, shown)
    need = state[BIDS + seat] - state[TRICKS_WON + seat]
    left = state[DEALT_HAND] - state[TRICKS_DONE]
    leading = state[N_IN_TRICK] == 0  # then a card's chance now is its chance as a lead
    # A forehead card is unknown to its owner: judge it by the average over
    # the cards the seat cannot see (the same for F1 and F2).
    blind_now = 0.0
    blind_later = 0.0
    n_unseen = popcount(unseen)
    if slot_card(state, seat, SLOT_F1) != EMPTY_SLOT or slot_card(state, seat, SLOT_F2) != EMPTY_SLOT:
        m = unseen
        while m != ZERO:
            low = m & (~m + ONE)
            card = popcount(low - ONE)
            m ^= low
            later, now = _win_chances(state, seat, card, unseen, shown, leading)
            blind_later += later
            blind_now += now
        if n_unseen > 0:
            blind_later /= n_unseen
            blind_now = blind_later if leading else blind_now / n_unseen
    for slot in range(SLOTS_PER_SEAT):
        card = slot_card(state, seat, slot)
        if card == EMPTY_SLOT:
            continue
        if is_forehead(slot):
            now, later = blind_now, blind_later
        else:
            later, now = _win_chances(state, seat, card, unseen, shown, leading)
        if need >= left:
            score = now  # every remaining trick is needed
        elif need > 0:
            score = now - SPEND_WEIGHT * later  # win with the cheapest card
        else:
            score = -now + SHED_WEIGHT * later  # duck; shed strength safely
        out[slot] = score


@njit(cache=True)
def heuristic_action(state, rng):
    """The heuristic player's action for the seat to move.

    Reads only what that seat can see (its table and hidden cards, the
    others' table and forehead cards, played cards, trump, bids, tricks).

    - **Trump**: the suit with the most of the maker's known cards (table
      and hidden), ties broken by their ranks.
    - **Bid**: the estimated tricks (:func:`expected_tricks`), rounded: each
      known card counts its chance to win a trick it leads
      (:func:`win_chance`, which counts the visible cards of other seats
      that beat it, including their forehead cards, and the unseen cards
      that might be hidden in their hands), times ``TRUMP_BID_WEIGHT`` for
      a trump and ``NONTRUMP_BID_WEIGHTS[n]`` for another card; each of its own
      forehead cards (which the others see, but it does not) counts the
      average of that over the cards it cannot see. The trump maker takes
      the allowed bid nearest the estimate (the hook bars one).
    - **Play**, to land exactly on the bid: when it still needs every
      remaining trick, the card most likely to win now; when short, the card
      most likely to win now, the cheapest such (strength for later costs
      ``SPEND_WEIGHT``); when its bid is reached (or passed), the card least
      likely to win now, preferring to shed a strong card while it loses
      safely (``SHED_WEIGHT``). Forehead cards are judged by the average of
      the unseen cards. Ties go to the lowest slot; ``rng`` is not used.
    """
    seat = state[TO_MOVE]
    phase = state[PHASE]
    if phase == PHASE_PLAY:
        return _heuristic_play(state, seat)
    if phase == PHASE_BID:
        return _heuristic_bid(state, seat)
    if phase == PHASE_TRUMP:
        return _heuristic_trump(state, seat)
    return np.int64(-1)


@njit(cache=True)
def action_scores(state, rng, actions, n, out):
    """The heuristic's score of each of the legal ``actions[:n]`` into ``out[:n]``;
    :func:`heuristic_action` plays the first best. Plays: :func:`_slot_scores`
    (chances, about -1 to 1); bids: minus the distance from the trick
    estimate; trumps: :func:`_trump_score` in units of one known card. The
    opponent model of ``belief=inferred`` is a softmax over these. ``rng``
    is not used."""
    seat = state[TO_MOVE]
    phase = state[PHASE]
    if phase == PHASE_PLAY:
        scores = np.empty(SLOTS_PER_SEAT)
        _slot_scores(state, seat, scores)
        for i in range(n):
            out[i] = scores[actions[i]]
    elif phase == PHASE_BID:
        estimate = expected_tricks(state, seat)
        for i in range(n):
            out[i] = -_bid_distance(actions[i] - BID_BASE, estimate)
    else:
        for i in range(n):
            out[i] = _trump_score(state, seat, actions[i] - TRUMP_BASE) / TRUMP_COUNT_WEIGHT


# ------------------------------------------------------------ belief replay

CARD_KEY = 64
"""A replayed play is written ``CARD_KEY + card`` (:func:`history_action`): a view's
history names the card another seat played; the slot it came from is in the
seat's ``played`` (the state's ``PLAYED_FROM``)."""


@njit(cache=True)
def history_action(world, state, key):
    """The action of ``state``'s seat to move that a history entry ``key`` names:
    ``CARD_KEY + card`` is the slot holding that card (-1 if none), any other
    key is the action itself (``world`` is not needed)."""
    if key < CARD_KEY:
        return key
    seat = state[TO_MOVE]
    for slot in range(SLOTS_PER_SEAT):
        if state[SLOTS + seat * SLOTS_PER_SEAT + slot] == key - CARD_KEY:
            return np.int64(slot)
    return np.int64(-1)


@njit(cache=True)
def deal_from_world(world, template, rng, out):
    """A deal vector that dealt ``world`` (int64[DEAL_SIZE] into ``out``), for
    replaying the deal's history in it (:mod:`slagwerk.search.belief`).

    ``template`` is int64[2 * N_SEATS * SLOTS_PER_SEAT]: first, per slot of the
    deal, -1 for a slot that still holds its card (taken from ``world``) and
    -2 for a played one; then, per seat, the cards it has played (-1 after
    them). A played card goes back to the slot ``world`` says it was played
    from (public, docs/rules.md §2.7); where ``world`` does not say (a view
    that leaves out a hand's ``played``), a seat's remaining played cards go
    to its remaining played slots in a random order. Only the slots dealt are
    read (a small variant's others are never dealt, §2.15); the deck's other
    cards follow them, then the cards out of the deck. False if the counts
    disagree.
    """
    n = world[N_PLAYERS]
    hand = world[DEALT_HAND]
    size = N_SEATS * SLOTS_PER_SEAT
    dealt = ZERO
    played = np.empty(SLOTS_PER_SEAT, np.int64)
    for seat in range(n):
        count = 0
        for k in range(SLOTS_PER_SEAT):
            card = template[size + seat * SLOTS_PER_SEAT + k]
            if card >= 0:
                played[count] = card
                count += 1
        unplaced = 0
        for k in range(hand):
            at = seat * SLOTS_PER_SEAT + DEALT_SLOTS[hand, k]
            place = seat * hand + k
            if template[at] != -2:
                out[place] = world[SLOTS + at]
                if out[place] == EMPTY_SLOT:
                    return False
                continue
            card = world[PLAYED_FROM + at]
            out[place] = card
            if card == EMPTY_SLOT:
                unplaced += 1
                continue
            j = 0
            while j < count and played[j] != card:
                j += 1
            if j == count:
                return False
            count -= 1
            played[j] = played[count]
        if unplaced != count:
            return False
        for k in range(count - 1, 0, -1):  # shuffle the played cards of unknown slots
            j = rand_below(rng, k + 1)
            tmp = played[k]
            played[k] = played[j]
            played[j] = tmp
        used = 0
        for k in range(hand):
            place = seat * hand + k
            if out[place] == EMPTY_SLOT:
                out[place] = played[used]
                used += 1
            dealt |= bit(out[place])
    deck = np.uint64(world[DECK])
    rest = deck & ~dealt
    if popcount(rest) != popcount(deck) - n * hand:  # a card dealt twice, or from out of the deck
        return False
    at = n * hand + mask_to_indices(rest, out[n * hand:])
    mask_to_indices(ALL_CARDS & ~deck, out[at:])
    return True
