"""Koetsieren in plain, idiomatic Python: the reference ``slagwerk bench``
measures the numba kernels against. It implements the same rules (docs/rules.md
§2) for one deal with its own simple encoding: a card is a ``(rank, suit)``
tuple, a hand a list of five slots (``None`` once played)."""

from __future__ import annotations

import random
from dataclasses import dataclass

SUITS = "cdhs"
RANKS = range(8)  # 7 8 9 T J Q K A: higher wins
SLOTS = 5  # T1 T2 F1 F2 H
TRICKS = 5
HOOK_SUM = 5  # the trump maker may not bring the bids to this sum


@dataclass
class DealResult:
    """One scored deal: trump, bids, tricks taken and penalty points per seat."""

    trump: str
    bids: list[int]
    tricks: list[int]
    penalties: list[int]
    trick_winners: list[int]


def beats(card: tuple[int, str], best: tuple[int, str], trump: str) -> bool:
    """Whether ``card`` beats ``best``, the card winning the trick so far."""
    if card[1] == best[1]:
        return card[0] > best[0]
    return card[1] == trump


def trick_winner(cards: list[tuple[int, str]], trump: str) -> int:
    """Position in play order of the highest trump, else the highest of the suit led."""
    best = 0
    for position in range(1, len(cards)):
        if beats(cards[position], cards[best], trump):
            best = position
    return best


def random_playout(rng: random.Random, players: int = 4, dealer: int = 0) -> DealResult:
    """Deal and play one deal with every decision uniformly random among the legal
    ones: trump, bids (the hook bars the trump maker's bid that makes the sum 5),
    and a card from any slot still holding one."""
    deck = [(rank, suit) for suit in SUITS for rank in RANKS]
    rng.shuffle(deck)
    hands: list[list[tuple[int, str] | None]] = [
        deck[SLOTS * seat : SLOTS * (seat + 1)] for seat in range(players)
    ]
    trump_maker = (dealer + 1) % players
    trump = rng.choice(SUITS)

    bids = [0] * players
    bid_sum = 0
    for k in range(1, players + 1):  # from the trump maker's left; the maker bids last
        seat = (trump_maker + k) % players
        choices = [b for b in range(TRICKS + 1) if seat != trump_maker or bid_sum + b != HOOK_SUM]
        bids[seat] = rng.choice(choices)
        bid_sum += bids[seat]

    tricks = [0] * players
    winners = []
    leader = trump_maker
    for _ in range(TRICKS):
        trick = []
        for k in range(players):
            hand = hands[(leader + k) % players]
            slot = rng.choice([i for i, card in enumerate(hand) if card is not None])
            trick.append(hand[slot])
            hand[slot] = None
        leader = (leader + trick_winner(trick, trump)) % players
        tricks[leader] += 1
        winners.append(leader)

    penalties = [abs(bid - taken) for bid, taken in zip(bids, tricks)]
    return DealResult(trump, bids, tricks, penalties, winners)
