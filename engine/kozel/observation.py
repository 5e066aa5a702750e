"""Kozel: one seat's observation for environments, and the action index (docs/envs.md).

The contract is :mod:`slagwerk.engine.encoding`'s. Kozel's actions are sets
of cards, so the compact index names them by the seat's *hand slots*: the
cards of the hand in ascending card order (at most four), a set being a
4-bit subset ``1..15`` of the slots:

- ``0..14``: play subset ``i + 1`` face up (the lead, or a beat);
- ``15..29``: discard subset ``i - 14`` face down;
- ``30``: declare a molodka; ``31``: pass (docs/rules.md §3.11).

The observation's ``hand_slots`` part shows which card is in which slot.
Another seat's face-down discard shows only its number of cards (docs/rules.md
§3.8); the stock's order, the place of the shown trump card in it and the
others' hands are never read, except the cards everyone saw face up that
went back to a hand with a molodka.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..bits import ONE, ZERO, popcount
from ..encoding import part_offsets, put_fraction, put_mask, put_one_hot, relative_seat
from ..state import DEAL_NUMBER, DEAL_POINTS, DEALER, LEADER, PHASE, PHASE_PLAY, TO_MOVE, TOTALS, TRICKS_DONE
from . import kernels as K

N = K.N_SEATS
C = K.DECK_SIZE
H = K.HAND_SIZE
SUBSETS = (1 << H) - 1
FACE_UP_BASE = 0
DISCARD_BASE = SUBSETS
MOLODKA_INDEX = 2 * SUBSETS
PASS_INDEX = MOLODKA_INDEX + 1
NUM_ACTIONS = PASS_INDEX + 1
PLAY_WIDTH = C + 2
"""A play of the current trick: its face-up cards, its face-down card count / 4, played."""
OBSERVATION_PARTS = (
    ("hand", C),
    ("hand_slots", H * C),  # the k-th lowest card of the hand (the action index's slots)
    ("trump_card", C),
    ("face_up", C),  # every card shown face up this deal
    ("known_in_hands", (N - 1) * C),  # face-up cards back in another hand (molodka), relative seats 1..3
    ("own_discards", C),  # the seat's own face-down discards this deal
    ("trick", N * PLAY_WIDTH),  # the current trick's plays, by relative seat
    ("winning_seat", N),  # one-hot relative seat of the current winning set
    ("set_size", 1),  # cards per play in this trick / 4
    ("molodka_declared", 1),
    ("question", 1),  # 1 while a molodka question is pending
    ("stock_left", 1),  # / 20
    ("team_tricks", 2),  # own team, other team / 9
    ("pile_points", 2),  # card points of the face-up cards in each team's pile, own team first / 120
    ("totals", N),  # penalty totals / 12, by relative seat
    ("deal_points", N),  # card points of the last scored deal / 120
    ("dealer", N),  # one-hot relative seats
    ("leader", N),
    ("to_move", N),
    ("tricks_done", 1),  # / 9
)
OBSERVATION_SIZE = sum(size for _, size in OBSERVATION_PARTS)
ENCODING_VERSION = 2
"""This game's encoding version (:data:`slagwerk.engine.encoding.ENCODING_VERSION` for the others):
2 added ``pile_points``."""
_AT = part_offsets(OBSERVATION_PARTS)
HAND_AT, SLOTS_AT, TRUMP_AT, FACE_UP_AT, KNOWN_AT, DISCARDS_AT = (
    _AT["hand"], _AT["hand_slots"], _AT["trump_card"], _AT["face_up"], _AT["known_in_hands"],
    _AT["own_discards"])
TRICK_AT, WINNER_AT, SIZE_AT, MOLODKA_AT, QUESTION_AT, STOCK_AT, TEAMS_AT = (
    _AT["trick"], _AT["winning_seat"], _AT["set_size"], _AT["molodka_declared"], _AT["question"],
    _AT["stock_left"], _AT["team_tricks"])
PILE_POINTS_AT = _AT["pile_points"]
TOTALS_AT, POINTS_AT, DEALER_AT, LEADER_AT, MOVER_AT, TRICKS_AT = (
    _AT["totals"], _AT["deal_points"], _AT["dealer"], _AT["leader"], _AT["to_move"], _AT["tricks_done"])
DEAL_CHOICES = ((K.DEAL_TRUMP_POSITION, K.TRUMP_FIRST_PLACE, K.TRUMP_LAST_PLACE),)
"""The stock position of the shown trump card (docs/rules.md §3.5), in the full game
(:func:`deal_choices` for any options)."""


def deal_choices(options) -> tuple:
    """The stock position of the shown trump card among the middle ones of a stock of
    ``stock`` cards (docs/rules.md §3.5, §3.18); none without a stock, where the dealer's last
    card is shown (§3.19). ``options`` is the kernels' option array."""
    stock = options[3]
    return ((K.DEAL_TRUMP_POSITION, K.TRUMP_FIRST_PLACE, stock - 2),) if stock else ()


def dealt_positions(options) -> int:
    """Hands and stock card by card (the stock's order is part of the deal); when the whole
    deck is dealt (the full game) the last card is what is left. ``options`` is the kernels'
    option array (a small variant's, docs/rules.md §3.18)."""
    ranks, hand, stock = options[1], options[2], options[3]
    dealt = K.N_SEATS * hand + stock
    return dealt - 1 if dealt == K.N_SUITS * ranks else dealt


def learnt_events(game, before, after, seat, action) -> str:
    """What ``seat`` learns from ``action`` besides its text: the four cards a
    molodka shows face up (written ``=cards``: the action is only ``molodka``)
    and the cards the seat drew from the stock or took back (``+cards``)."""
    text = ""
    if int(action) >> K.KIND_SHIFT == K.KIND_MOLODKA:
        mover = int(before[TO_MOVE])
        shown = int(after[K.PLAYED + int(after[TRICKS_DONE]) * K.N_SEATS + mover])
        text += " =" + ",".join(game.names_of(shown))
    gained = int(np.uint64(after[K.HANDS + seat]) & ~np.uint64(before[K.HANDS + seat]))
    return text + (" +" + ",".join(game.deck.names(gained)) if gained else "")


@njit(cache=True)
def observe(state, seat, out):
    out[:] = 0.0
    hand = np.uint64(state[K.HANDS + seat])
    put_mask(out, HAND_AT, hand)
    k = 0
    m = hand
    while m != ZERO:
        low = m & (~m + ONE)
        out[SLOTS_AT + k * C + popcount(low - ONE)] = 1.0
        m ^= low
        k += 1
    if state[DEAL_NUMBER] > 0:
        put_one_hot(out, TRUMP_AT, state[K.TRUMP_CARD])
    face_up = np.uint64(state[K.FACE_UP])
    put_mask(out, FACE_UP_AT, face_up)
    for q in range(N):
        r = relative_seat(q, seat, N)
        if r > 0:
            put_mask(out, KNOWN_AT + (r - 1) * C, face_up & np.uint64(state[K.HANDS + q]))
    own = ZERO
    rows = state[TRICKS_DONE] + (1 if state[TRICKS_DONE] < K.MAX_TRICKS else 0)
    for t in range(rows):
        cell = t * N + seat
        if state[K.PLAY_KIND + cell] == K.KIND_DISCARD:
            own |= np.uint64(state[K.PLAYED + cell])
    put_mask(out, DISCARDS_AT, own)
    phase = state[PHASE]
    if (phase == PHASE_PLAY or phase == K.PHASE_QUESTION) and state[TRICKS_DONE] < K.MAX_TRICKS:
        row = state[TRICKS_DONE] * N
        for q in range(N):
            kind = state[K.PLAY_KIND + row + q]
            if kind == 0:
                continue
            at = TRICK_AT + relative_seat(q, seat, N) * PLAY_WIDTH
            cards = np.uint64(state[K.PLAYED + row + q])
            if kind == K.KIND_DISCARD:
                put_fraction(out, at + C, popcount(cards), H)
            else:
                put_mask(out, at, cards)
            out[at + C + 1] = 1.0
        put_one_hot(out, WINNER_AT, relative_seat(state[K.WINNING_SEAT], seat, N))
        put_fraction(out, SIZE_AT, state[K.SET_SIZE], H)
        out[MOLODKA_AT] = 1.0 if state[K.MOLODKA_DECLARED] else 0.0
        out[QUESTION_AT] = 1.0 if phase == K.PHASE_QUESTION else 0.0
    put_fraction(out, STOCK_AT, state[K.STOCK_LEN] - state[K.STOCK_NEXT], K.STOCK_SIZE)
    team = seat & 1
    put_fraction(out, TEAMS_AT, state[K.TEAM_TRICKS + team], K.MAX_TRICKS)
    put_fraction(out, TEAMS_AT + 1, state[K.TEAM_TRICKS + 1 - team], K.MAX_TRICKS)
    # Everyone saw which team won each face-up card; face-down discards in the piles stay unseen.
    put_fraction(out, PILE_POINTS_AT, K.card_points(np.uint64(state[K.PILES + team]) & face_up),
                 K.DECK_POINTS)
    put_fraction(out, PILE_POINTS_AT + 1,
                 K.card_points(np.uint64(state[K.PILES + 1 - team]) & face_up), K.DECK_POINTS)
    for s in range(N):
        r = relative_seat(s, seat, N)
        put_fraction(out, TOTALS_AT + r, state[TOTALS + s], K.LOSING_PENALTY)
        put_fraction(out, POINTS_AT + r, state[DEAL_POINTS + s], K.DECK_POINTS)
    put_one_hot(out, DEALER_AT, relative_seat(state[DEALER], seat, N))
    put_one_hot(out, LEADER_AT, relative_seat(state[LEADER], seat, N))
    put_one_hot(out, MOVER_AT, relative_seat(state[TO_MOVE], seat, N))
    put_fraction(out, TRICKS_AT, state[TRICKS_DONE], K.MAX_TRICKS)


@njit(cache=True)
def index_of(state, action):
    kind = K.action_kind(action)
    if kind == K.KIND_MOLODKA:
        return MOLODKA_INDEX
    if kind == K.KIND_PASS:
        return PASS_INDEX
    cards = K.action_cards(action)
    hand = np.uint64(state[K.HANDS + state[TO_MOVE]])
    subset = 0
    k = 0
    m = hand
    while m != ZERO:
        low = m & (~m + ONE)
        if cards & low != ZERO:
            subset |= 1 << k
        m ^= low
        k += 1
    base = DISCARD_BASE if kind == K.KIND_DISCARD else FACE_UP_BASE
    return base + subset - 1


@njit(cache=True)
def legal_indices(state, mask, actions):
    found = np.empty(K.MAX_ACTIONS, dtype=np.int64)
    n = K.legal_actions(state, found)
    mask[:] = 0
    for i in range(n):
        index = index_of(state, found[i])
        mask[index] = 1
        actions[index] = found[i]
    return n



N_KINDS = K.KIND_PASS
STEP_PARTS = (
    ("mover", N),  # relative seat
    ("kind", N_KINDS),  # lead, beat, discard, molodka, pass
    ("cards", C),  # a face-up set, the seat's own discard, or the four cards a molodka shows
    ("hidden_cards", 1),  # another seat's face-down discard: its number of cards / 4 (§3.8)
    ("gained", C),  # cards the seat drew or took back with this action
)
STEP_SIZE = sum(size for _, size in STEP_PARTS)
HISTORY_FROM_VIEW = False
"""A view shows the seat's hand, not which of its cards it drew after which trick (the
blocks' ``gained``): an agent cannot rebuild its history blocks (:mod:`slagwerk.engine.history`)."""
_KIND_AT, _CARDS_AT = N, N + N_KINDS
_HIDDEN_AT = _CARDS_AT + C
_GAINED_AT = _HIDDEN_AT + 1


TRICK_STEPS_BOUND = 2 * N - 1 + N * (N + 1) // 2
"""At most ``N - 1`` plays that a molodka sends back, the molodka and the ``N -
1`` plays that answer it (or ``N`` plays without one), and at most ``N (N +
1) / 2`` answers ``pass``: at the question points (before the lead and after
each play, §3.11) only the players who have not played yet are asked."""


def max_deal_steps(options) -> int:
    """A trick takes at least one card of each hand, so a deal has at most
    ``MAX_TRICKS`` tricks (a small variant's ``hand + stock / 4``, docs/rules.md §3.18),
    each of at most :data:`TRICK_STEPS_BOUND` actions."""
    return (options[2] + options[3] // K.N_SEATS) * TRICK_STEPS_BOUND


@njit(cache=True)
def observe_step(before, after, seat, action, out):
    mover = before[TO_MOVE]
    put_one_hot(out, 0, relative_seat(mover, seat, N))
    kind = K.action_kind(action)
    out[_KIND_AT + kind - 1] = 1.0
    if kind == K.KIND_MOLODKA:
        put_mask(out, _CARDS_AT, after[K.PLAYED + after[TRICKS_DONE] * N + mover])
    elif kind == K.KIND_DISCARD and mover != seat:
        put_fraction(out, _HIDDEN_AT, popcount(K.action_cards(action)), H)
    elif kind != K.KIND_PASS:
        put_mask(out, _CARDS_AT, K.action_cards(action))
    put_mask(out, _GAINED_AT, np.uint64(after[K.HANDS + seat]) & ~np.uint64(before[K.HANDS + seat]))
