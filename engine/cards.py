"""Decks and card notation (docs/rules.md §0.7).

A deck numbers its cards ``suit * n_ranks + rank`` with ranks counted from
the lowest in that game's order, so within a suit a higher index is a
higher card and each suit occupies a contiguous run of bits. Kernels use the
indices; people and records use text like ``Th`` or ``3o``.

>>> from slagwerk.engine.cards import COINS_DECK
>>> COINS_DECK.parse("Ao"), COINS_DECK.name(COINS_DECK.parse("Ao"))
(23, 'Ao')
>>> try:
...     COINS_DECK.parse("Zo")
... except ValueError as err:
...     print(err)
unknown card 'Zo' in the Spanish 48-card deck: rank 'Z' is not one of A K N J 9 8 7 6 5 4 3 2
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import CardError, brief

UNKNOWN_CARD = "??"


SUIT_NAMES = {
    "french": {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"},
    "spanish": {"o": "coins", "c": "cups", "e": "swords", "b": "clubs"},
}
"""What each suit letter means, by the deck's family (the web page uses the same words)."""
RANK_NAMES = {
    "french": {"6": "six", "7": "seven", "8": "eight", "9": "nine", "T": "ten", "J": "jack",
               "Q": "queen", "K": "king", "A": "ace"},
    "spanish": {"2": "two", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
                "8": "eight", "9": "nine", "J": "jack (sota)", "N": "knight (caballo)",
                "K": "king (rey)", "A": "ace (as)"},
}
"""What each rank letter means, by the deck's family."""


@dataclass(frozen=True)
class Deck:
    """A deck: suit letters and rank letters, ranks from lowest to highest.

    ``index = suit * n_ranks + rank``. Masks of whole suits and ranks are
    precomputed (``suit_masks[s]``, ``rank_masks[r]``) as Python ints.
    """

    title: str
    suits: str
    ranks: str  # lowest first
    family: str = "french"
    """``french`` (suits c d h s) or ``spanish`` (o c e b): how the web page draws the cards."""
    _index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        index = {}
        for s, suit in enumerate(self.suits):
            for r, rank in enumerate(self.ranks):
                index[rank + suit] = s * len(self.ranks) + r
        object.__setattr__(self, "_index", index)

    @property
    def size(self) -> int:
        return len(self.suits) * len(self.ranks)

    @property
    def n_ranks(self) -> int:
        return len(self.ranks)

    @property
    def all_mask(self) -> int:
        return (1 << self.size) - 1

    @property
    def suit_masks(self) -> list[int]:
        run = (1 << self.n_ranks) - 1
        return [run << (s * self.n_ranks) for s in range(len(self.suits))]

    def suit_of(self, index: int) -> int:
        return index // self.n_ranks

    def rank_of(self, index: int) -> int:
        return index % self.n_ranks

    def legend(self) -> list[str]:
        """What the card codes mean, for people at a terminal: the lines of a short key.

        >>> print("\\n".join(COINS_DECK.legend()))
        a card is its rank then its suit: Ac is the ace (as) of cups
        ranks, low to high: 2 3 4 5 6 7 8 9 J=jack (sota) N=knight (caballo) K=king (rey) A=ace (as)
        suits: c=cups o=coins e=swords b=clubs
        """
        ranks, suits = RANK_NAMES[self.family], SUIT_NAMES[self.family]
        top = self.ranks[-1] + self.suits[0]
        shown = " ".join(r if r.isdigit() else f"{r}={ranks[r]}" for r in self.ranks)
        return [f"a card is its rank then its suit: {top} is the {ranks[top[0]]} of {suits[top[1]]}",
                f"ranks, low to high: {shown}",
                "suits: " + " ".join(f"{s}={suits[s]}" for s in self.suits)]

    def name(self, index: int) -> str:
        """Text of card ``index`` (``23`` -> ``'Ao'`` in the Spanish deck)."""
        index = int(index)
        if not 0 <= index < self.size:
            raise CardError(f"card index {index!r} is outside the {self.title} (0..{self.size - 1})")
        return self.ranks[index % self.n_ranks] + self.suits[index // self.n_ranks]

    def parse(self, text: str) -> int:
        """Index of the card written ``text``; :class:`CardError` if it is not a card."""
        if not isinstance(text, str):
            raise CardError(f"a card is written as text like {self.name(self.size - 1)!r}, not {brief(text)}")
        try:
            return self._index[text]
        except KeyError:
            raise CardError(self._explain(text)) from None

    def _explain(self, text: str) -> str:
        head = f"unknown card {brief(text)} in the {self.title}"
        if len(text) != 2:
            return f"{head}: a card is a rank and a suit letter, like {self.name(self.size - 1)!r}"
        rank, suit = text
        if rank not in self.ranks:
            return f"{head}: rank {rank!r} is not one of {' '.join(reversed(self.ranks))}"
        return f"{head}: suit {suit!r} is not one of {' '.join(self.suits)}"

    def parse_many(self, texts, *, what: str = "cards") -> list[int]:
        """Indices of a list (or tuple) of card texts; duplicates are an error."""
        if not isinstance(texts, (list, tuple)):
            raise CardError(f"{what} must be a list of cards, not {brief(texts)}")
        out = [self.parse(t) for t in texts]
        if len(set(out)) != len(out):
            dup = sorted({t for t in texts if texts.count(t) > 1})
            raise CardError(f"{what} list a card twice: {', '.join(dup)}")
        return out

    def mask(self, texts) -> int:
        """Mask (Python int) of a list of card texts."""
        m = 0
        for i in self.parse_many(texts):
            m |= 1 << i
        return m

    def names(self, mask) -> list[str]:
        """Card texts of a mask, highest suit-run first within the deck order."""
        m = int(mask)
        out = []
        while m:
            low = m & -m
            out.append(self.name(low.bit_length() - 1))
            m ^= low
        return out

    def order(self) -> np.ndarray:
        """All card indices as an int64 array (a fresh, unshuffled deck)."""
        return np.arange(self.size, dtype=np.int64)


SPANISH_SUITS = "coeb"  # cups, coins, swords, clubs: each beats the next in Coins
SPANISH_RANKS = "23456789JNKA"

COINS_DECK = Deck("Spanish 48-card deck", SPANISH_SUITS, SPANISH_RANKS, family="spanish")
"""Coins and Aluette: suits cups c, coins o, swords e, clubs b (the Coins
cycle order: each suit beats the next, clubs beat cups)."""
ALUETTE_DECK = COINS_DECK

KOETSIEREN_DECK = Deck("French 32-card piquet deck", "cdhs", "789TJQKA")
KOZEL_DECK = Deck("French 36-card deck", "cdhs", "6789JQKTA")
