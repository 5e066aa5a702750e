"""Aluette in plain, idiomatic Python: the reference ``slagwerk bench`` measures
the numba kernels against. It implements the same rules (docs/rules.md §4) with
its own simple encoding: a card is its text, like ``"3o"``, and its strength
comes from a dictionary built from the rule book's table."""

from __future__ import annotations

import random

SUITS = "ocbe"  # coins, cups, clubs, swords
RANKS = "A23456789JNK"
PLAYERS = 4
HAND_SIZE = 9

STRENGTH_CLASSES = (
    [["3o"], ["3c"], ["2o"], ["2c"], ["9c"], ["9o"], ["2b"], ["2e"]]  # the eight unique cards
    + [[rank + suit for suit in SUITS] for rank in "AKNJ"]
    + [["9b", "9e"]]
    + [[rank + suit for suit in SUITS] for rank in "87654"]
    + [["3b", "3e"]]
)
"""The rule book's strength table, strongest class first; cards in a class are equal."""

STRENGTH = {
    card: len(STRENGTH_CLASSES) - place
    for place, cards in enumerate(STRENGTH_CLASSES)
    for card in cards
}
"""Card text -> strength, 19 for Monsieur down to 1 for ``3b 3e``."""


def trick_winner(cards: list[str]) -> int | None:
    """Position of the single strongest card, or ``None`` if the top is tied (pourri)."""
    strengths = [STRENGTH[c] for c in cards]
    top = max(strengths)
    if strengths.count(top) > 1:
        return None
    return strengths.index(top)


def deal_score(winners: list[int | None]) -> tuple[int | None, int]:
    """The deal winner and its team's match points, from the nine trick winners."""
    counts = [0] * PLAYERS
    reached = [0] * PLAYERS  # trick at which a seat reached its current count
    for index, seat in enumerate(winners):
        if seat is not None:
            counts[seat] += 1
            reached[seat] = index
    if not any(counts):
        return None, 0
    most = max(counts)
    winner = min((s for s in range(PLAYERS) if counts[s] == most), key=lambda s: reached[s])
    first = winners.index(winner)
    run = all(w == winner for w in winners[first:])
    return winner, 2 if run and first <= len(winners) - 2 else 1


def random_playout(rng: random.Random, dealer: int = 0) -> dict:
    """Deal and play one deal with uniformly random cards.

    Returns the trick winners (``None`` for a spoiled trick) and the match
    points each seat's team scored.
    """
    deck = [rank + suit for suit in SUITS for rank in RANKS]
    rng.shuffle(deck)
    hands = [[] for _ in range(PLAYERS)]
    seat = (dealer + 1) % PLAYERS
    for _ in range(3):  # three batches of three, clockwise from the dealer's left
        for _ in range(PLAYERS):
            hands[seat].extend(deck[:3])
            del deck[:3]
            seat = (seat + 1) % PLAYERS
    # the twelve cards left in `deck` are not used
    leader = (dealer + 1) % PLAYERS
    winners: list[int | None] = []
    while hands[leader]:
        trick = []
        for k in range(PLAYERS):
            hand = hands[(leader + k) % PLAYERS]
            trick.append(hand.pop(rng.randrange(len(hand))))
        position = trick_winner(trick)
        if position is None:
            winners.append(None)  # pourri: the same leader leads again
        else:
            leader = (leader + position) % PLAYERS
            winners.append(leader)
    winner, points = deal_score(winners)
    team_points = [0] * PLAYERS
    if winner is not None:
        for s in range(PLAYERS):
            if s % 2 == winner % 2:
                team_points[s] = points
    return {"trick_winners": winners, "points": team_points}
