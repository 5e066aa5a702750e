"""Coins for people and tools: notation, records, views (docs/rules.md §1, docs/records.md)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from math import comb

import numpy as np

from ...errors import InvalidRecordError, InvalidViewError, OptionError
from ..cards import COINS_DECK
from ..game import Game, State
from ..state import PHASE_DEAL_PENDING, PHASE_MATCH_OVER, PHASE_PLAY
from ..views import (
    COMMON_KEYS,
    ViewParts,
    check_complete_tricks,
    check_trick_turn,
    common_view,
    deal_hidden,
    one_card_trick_hand_sizes,
    want_disjoint_cards,
    write_trick,
)
from . import INFO, replay
from . import kernels as K

VIEW_KEYS = COMMON_KEYS + ("hand", "trick", "played", "hand_sizes")


@dataclass(kw_only=True)
class _CoinsView(ViewParts):
    """A Coins view's cards (:meth:`Coins._read_view`), and cards held per seat."""

    hand: list[int]
    trick: list[int]
    played: list[int]
    sizes: list[int]


class Coins(Game):
    """Coins (Mark Steere): three players, cyclic suit dominance, coins score.

    >>> game = Coins(target=15)
    >>> state = game.new_match(seed=1)
    >>> state.apply("Ao" if "Ao" in state.legal_texts() else state.legal_texts()[0]) >= 0
    True
    """

    replay_rules = replay

    info = INFO
    kernels = K
    deck = COINS_DECK
    view_keys = VIEW_KEYS
    view_max_tricks = K.TRICKS_PER_DEAL
    deal_fields = ("hands", "undealt")

    def view_schema_properties(self) -> dict:
        """The shapes of the fields Coins adds to a view (:mod:`slagwerk.engine.view_schema`)."""
        from ..view_schema import cards, count, per_seat, seats

        return {"hand": cards(self.deck), "trick": cards(self.deck), "played": cards(self.deck),
                "hand_sizes": per_seat(count(self.deck.size), seats(self))}

    # ------------------------------------------------------------ notation
    def action_text(self, state: State, action: int, seat: int | None = None) -> str:
        return self.deck.name(action)

    # ---------------------------------------------------------------- deals
    def deal_to_json(self, vector: np.ndarray) -> dict:
        """The hands, and in a small variant that leaves cards of its deck unused, those as
        ``undealt`` (cards out of its deck are never listed)."""
        record = self.hands_to_json(vector, K.N_SEATS, self.options["hand"])
        unused = [name for name in record.pop("undealt", []) if self.in_play(self.deck.parse(name))]
        if unused:
            record["undealt"] = unused
        return record

    def deal_from_json(self, deal: dict) -> np.ndarray:
        deal = dict(deal)
        undealt = deal.pop("undealt", None)
        vector = self.hands_from_json(deal, K.N_SEATS, self.options["hand"])
        dealt = [int(c) for c in vector[: K.N_SEATS * self.options["hand"]]]
        outside = [c for c in dealt if not self.in_play(c)]
        if outside:
            raise InvalidRecordError(f"{self.deck.name(outside[0])} is not in the deck of {self!r} "
                                     f"(the top {self.options['ranks']} ranks of each suit)")
        if undealt is not None:
            rest = sorted(set(self.cards_in_play()) - set(dealt))
            if sorted(self.deck.parse_many(undealt, what="'undealt'")) != rest:
                raise InvalidRecordError(f"'undealt' must be the cards of the deck not dealt: "
                                         f"{' '.join(self.deck.name(c) for c in rest) or 'none'}")
        return vector

    # ---------------------------------------------------- small variants
    def _check_options(self):
        super()._check_options()
        ranks, hand = self.options["ranks"], self.options["hand"]
        if K.N_SEATS * hand > K.N_SUITS * ranks:
            raise OptionError(f"coins option hand={hand} is too many: a deck of {ranks} ranks has "
                              f"{K.N_SUITS * ranks} cards, {K.N_SUITS * ranks // K.N_SEATS} a player at most")

    def cards_in_play(self) -> list[int]:
        return [card for card in range(K.DECK_SIZE) if self.in_play(card)]

    def deal_count(self) -> int:
        cards, hand = len(self.cards_in_play()), self.options["hand"]
        return comb(cards, hand) * comb(cards - hand, hand) * comb(cards - 2 * hand, hand)

    def all_deals(self):
        """Every deal of the deck in play: the three hands as sets, seat by seat, each
        vector followed by the deck's unused cards and then the cards out of it."""
        cards, hand = self.cards_in_play(), self.options["hand"]
        out_of_play = [c for c in range(K.DECK_SIZE) if not self.in_play(c)]
        for first in combinations(cards, hand):
            rest = [c for c in cards if c not in first]
            for second in combinations(rest, hand):
                left = [c for c in rest if c not in second]
                for third in combinations(left, hand):
                    unused = [c for c in left if c not in third]
                    yield np.array([*first, *second, *third, *unused, *out_of_play], dtype=np.int64)

    def in_play(self, card: int) -> bool:
        """Whether ``card`` is in the deck of this game's options (§1.10)."""
        return K.rank_of(card) >= K.N_RANKS - self.options["ranks"]

    # ---------------------------------------------------------------- views
    def view(self, state: State, seat: int) -> dict:
        arr = state.array
        view = common_view(state, seat)
        n = int(arr[K.N_IN_TRICK])
        trick = [int(c) for c in arr[K.TRICK : K.TRICK + n]] if state.phase == PHASE_PLAY else []
        gone = self.deck.names(int(arr[K.GONE]))
        trick_names = [self.deck.name(c) for c in trick]
        view.update(
            hand=self.deck.names(int(arr[K.HANDS + seat])),
            trick=trick_names,
            played=[c for c in gone if c not in trick_names],
            hand_sizes=[bin(int(arr[K.HANDS + s])).count("1") for s in range(K.N_SEATS)],
        )
        return view

    def _read_view(self, view: dict) -> _CoinsView:
        hand, trick, played = want_disjoint_cards(view, ("hand", "trick", "played"), self.deck)
        outside = [c for c in hand + trick + played if not self.in_play(c)]
        if outside:
            raise InvalidViewError(f"{self.deck.name(outside[0])} is not in the deck of these options "
                                   f"(the top {self.options['ranks']} ranks of each suit)")
        to_move, tricks_done = view["to_move"], view["tricks_done"]
        check_complete_tricks(played, tricks_done, K.N_SEATS)
        check_trick_turn(view, trick, K.N_SEATS)
        sizes = one_card_trick_hand_sizes(view, hand, trick, self.options["hand"], K.N_SEATS)
        if sum(view["deal_points"]) != sum(
            1 for c in played if K.suit_of(c) == K.SUIT_COINS
        ):
            raise InvalidViewError("deal_points do not add up to the coins in the played tricks")
        target = self.options["target"]
        over = max(view["totals"]) >= target
        if to_move is not None and over:
            raise InvalidViewError(f"a seat already has the target {target}: the match is over")
        if to_move is not None:
            phase, outcome = PHASE_PLAY, None
        elif over:  # the seat that reached the target wins
            phase, outcome = PHASE_MATCH_OVER, [2 if t >= target else 0 for t in view["totals"]]
        else:
            phase, outcome = PHASE_DEAL_PENDING, None
        return _CoinsView(phase=phase, outcome=outcome, hand=hand, trick=trick, played=played,
                          sizes=sizes)

    def _write_view(self, array: np.ndarray, view: dict, parts: _CoinsView, seed: int) -> None:
        known = set(parts.hand) | set(parts.trick) | set(parts.played)
        known |= {c for c in range(K.DECK_SIZE) if not self.in_play(c)}  # never dealt: not hidden
        masks, _ = deal_hidden(view["seat"], parts.hand, known, K.DECK_SIZE, parts.sizes, seed)
        array[K.HANDS : K.HANDS + K.N_SEATS] = masks
        write_trick(array, parts.trick, parts.played, K.TRICK, K.N_IN_TRICK, K.GONE)

    # -------------------------------------------------------------- display
    def render(self, state: State, seat: int | None = None) -> str:
        arr = state.array
        lines = [
            f"Coins, deal {state.deal_number}, dealer {state.dealer}, "
            f"target {self.options['target']}, totals {state.totals}"
        ]
        for s in range(K.N_SEATS):
            cards = self.hand_text(int(arr[K.HANDS + s]), seat is None or s == seat)
            lines.append(f"  seat {s}: {cards}")
        n = int(arr[K.N_IN_TRICK])
        if n:
            cards = " ".join(self.deck.name(int(c)) for c in arr[K.TRICK : K.TRICK + n])
            lines.append(f"  trick: {cards}")
        return "\n".join(lines)

