"""Coins in plain, idiomatic Python: the reference ``slagwerk bench`` measures
the numba kernels against. It implements the same rules (docs/rules.md §1) with
its own simple encoding: a card is a ``(suit, rank)`` tuple."""

from __future__ import annotations

import random

SUITS = ("cups", "coins", "swords", "clubs")  # each beats the next; clubs beat cups
RANKS = range(12)  # 2 .. A, higher wins
PLAYERS = 3


def trick_winner(cards: list[tuple[str, int]]) -> int:
    """Position in play order of the card that wins a three-card trick."""
    suits = [suit for suit, _ in cards]
    distinct = set(suits)
    if len(distinct) == 3:
        missing = next(s for s in SUITS if s not in distinct)
        winning_suit = SUITS[(SUITS.index(missing) + 1) % 4]
        return suits.index(winning_suit)
    if len(distinct) == 2:
        shared = next(s for s in distinct if suits.count(s) == 2)
        pair = [i for i, s in enumerate(suits) if s == shared]
        return max(pair, key=lambda i: cards[i][1])
    return max(range(3), key=lambda i: cards[i][1])


def random_playout(rng: random.Random, dealer: int = 0) -> list[int]:
    """Deal and play one deal with uniformly random cards; return coins per seat."""
    deck = [(suit, rank) for suit in SUITS for rank in RANKS]
    rng.shuffle(deck)
    hands = [deck[seat::PLAYERS] for seat in range(PLAYERS)]
    coins = [0] * PLAYERS
    leader = (dealer + 1) % PLAYERS
    while hands[leader]:
        trick = []
        for k in range(PLAYERS):
            hand = hands[(leader + k) % PLAYERS]
            trick.append(hand.pop(rng.randrange(len(hand))))
        winner = (leader + trick_winner(trick)) % PLAYERS
        coins[winner] += sum(1 for suit, _ in trick if suit == "coins")
        leader = winner
    return coins
