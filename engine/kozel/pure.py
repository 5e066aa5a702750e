"""Kozel in plain, idiomatic Python: the reference ``slagwerk bench`` measures
the numba kernels against. It implements the same rules (docs/rules.md §3) with
its own simple encoding: a card is a ``(rank, suit)`` tuple, ranks ``0 .. 8``
for ``6 7 8 9 J Q K T A``; hands are lists and a beat is found by trying
every pairing of the two sets."""

from __future__ import annotations

import random
from itertools import combinations, permutations

SUITS = "cdhs"
RANKS = "6789JQKTA"
POINTS = (0, 0, 0, 0, 2, 3, 4, 10, 11)
PLAYERS = 4
HAND_SIZE = 4


def beats(card, other, trump: str) -> bool:
    """A higher card of the same suit, or a trump against a non-trump."""
    if card[1] == other[1]:
        return card[0] > other[0]
    return card[1] == trump


def beats_set(cards, winning, trump: str) -> bool:
    """Whether the cards can be paired one-to-one with the winning set so that
    each beats its partner (tries every pairing)."""
    return any(
        all(beats(c, w, trump) for c, w in zip(cards, order))
        for order in permutations(winning)
    )


def is_molodka(hand) -> bool:
    return len(hand) == HAND_SIZE and len({suit for _, suit in hand}) == 1


def lead_options(hand):
    """Every non-empty set of cards of one suit."""
    options = []
    for suit in SUITS:
        cards = [c for c in hand if c[1] == suit]
        for size in range(1, len(cards) + 1):
            options += [("lead", combo) for combo in combinations(cards, size)]
    return options


def response_options(hand, size: int, winning, trump: str):
    """Every ``size`` cards as a face-down discard, and as a beat when they beat."""
    options = []
    for combo in combinations(hand, size):
        options.append(("discard", combo))
        if beats_set(combo, winning, trump):
            options.append(("beat", combo))
    return options


def play_trick(rng: random.Random, hands, leader: int, trump: str):
    """Play one trick with uniformly random decisions; return (winner, cards, size)."""
    original = leader
    plays = []  # (seat, kind, cards) in play order
    declared = False

    def question_point():
        # holders who have not played are asked in priority from the original leader
        played = {seat for seat, _, _ in plays}
        for i in range(PLAYERS):
            seat = (original + i) % PLAYERS
            if seat not in played and is_molodka(hands[seat]) and rng.randrange(2) == 0:
                return seat  # declared (the other choice, a pass, asks the next holder)
        return None

    holder = question_point()
    while True:
        if holder is not None:
            for seat, _, cards in plays:  # cards already played go back to their owners
                hands[seat].extend(cards)
            plays = [(holder, "molodka", tuple(hands[holder]))]
            hands[holder] = []
            leader = holder
            declared = True
        if len(plays) == PLAYERS:
            break
        seat = (leader + len(plays)) % PLAYERS
        if plays:
            face_up = [cards for _, kind, cards in plays if kind != "discard"]
            options = response_options(hands[seat], len(plays[0][2]), face_up[-1], trump)
        else:
            options = lead_options(hands[seat])
        kind, cards = rng.choice(options)
        for card in cards:
            hands[seat].remove(card)
        plays.append((seat, kind, cards))
        holder = None if declared or len(plays) == PLAYERS else question_point()
    winner = [seat for seat, kind, _ in plays if kind != "discard"][-1]
    taken = [card for _, _, cards in plays for card in cards]
    return winner, taken, len(plays[0][2])


def deal_penalty(points: int, tricks: int) -> int:
    if points >= 31:
        return 2
    return 4 if tricks else 6


def random_playout(rng: random.Random, dealer: int = 0) -> dict:
    """Deal and play one deal with uniformly random legal decisions.

    Returns the trick winners, each seat's team card points and each seat's
    team penalty points for the deal.
    """
    deck = [(rank, suit) for suit in SUITS for rank in range(len(RANKS))]
    rng.shuffle(deck)
    hands = [deck[HAND_SIZE * s : HAND_SIZE * (s + 1)] for s in range(PLAYERS)]
    stock = deck[HAND_SIZE * PLAYERS :]
    trump = rng.choice(stock[1:-1])[1]  # a middle card, back to its place (docs/rules.md §3.5)
    piles = [[], []]
    tricks = [0, 0]
    winners = []
    leader = (dealer + 1) % PLAYERS
    while hands[leader]:
        winner, taken, size = play_trick(rng, hands, leader, trump)
        winners.append(winner)
        piles[winner % 2] += taken
        tricks[winner % 2] += 1
        for _ in range(size):  # one card at a time, clockwise from the winner
            if not stock:
                break
            for i in range(PLAYERS):
                hands[(winner + i) % PLAYERS].append(stock.pop(0))
        leader = winner
    points = [sum(POINTS[rank] for rank, _ in pile) for pile in piles]
    penalty = [0, 0]
    if points[0] != points[1]:
        loser = 0 if points[0] < points[1] else 1
        penalty[loser] = deal_penalty(points[loser], tricks[loser])
    return {
        "trick_winners": winners,
        "points": [points[s % 2] for s in range(PLAYERS)],
        "penalties": [penalty[s % 2] for s in range(PLAYERS)],
    }
