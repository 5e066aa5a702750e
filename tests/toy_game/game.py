"""Toy for people and tools: notation, deal records, views (docs/adding-a-game.md)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from slagwerk.engine.cards import Deck
from slagwerk.engine.game import Game, State
from slagwerk.engine.state import PHASE_DEAL_PENDING, PHASE_MATCH_OVER, PHASE_PLAY
from slagwerk.engine.views import (
    COMMON_KEYS,
    ViewParts,
    check_complete_tricks,
    check_trick_turn,
    common_view,
    one_card_trick_hand_sizes,
    want_disjoint_cards,
    write_trick,
)
from slagwerk.errors import InvalidViewError

from . import INFO
from . import kernels as K

TOY_DECK = Deck("toy 12-card deck", "cdh", "JQKA")
"""Clubs, diamonds, hearts; jack (lowest) to ace."""

VIEW_KEYS = COMMON_KEYS + ("hand", "trick", "played", "hand_sizes", "voids")


@dataclass(kw_only=True)
class _ToyView(ViewParts):
    """What :meth:`Toy._read_view` read from a view, for :meth:`Toy._write_view`."""

    hand: list[int]
    trick: list[int]
    played: list[int]
    voids: list[int]  # per seat, bit s: no card of suit s
    allowed: list[int]  # cards the opponent may hold
    other_size: int  # cards the opponent holds


class Toy(Game):
    """Toy: two players, three cards each, follow suit, a point per trick."""

    info = INFO
    kernels = K
    deck = TOY_DECK
    deal_fields = ("hands", "undealt")
    view_keys = VIEW_KEYS
    view_max_tricks = K.TRICKS_PER_DEAL

    # ------------------------------------------------------------ notation
    def action_text(self, state: State, action: int, seat: int | None = None) -> str:
        return self.deck.name(action)  # every card is played face up

    # ---------------------------------------------------------------- deals
    def deal_to_json(self, vector: np.ndarray) -> dict:
        return self.hands_to_json(vector, K.N_SEATS, K.HAND_SIZE)

    def deal_from_json(self, deal: dict) -> np.ndarray:
        return self.hands_from_json(deal, K.N_SEATS, K.HAND_SIZE)

    # ---------------------------------------------------------------- views
    def view(self, state: State, seat: int) -> dict:
        """What ``seat`` knows: its hand, the trick, the played cards and who
        has shown a void (failed to follow a suit) this deal."""
        arr = state.array
        view = common_view(state, seat)
        n = int(arr[K.N_IN_TRICK]) if state.phase == PHASE_PLAY else 0
        trick = [self.deck.name(c) for c in arr[K.TRICK : K.TRICK + n]]
        view.update(
            hand=self.deck.names(int(arr[K.HANDS + seat])),
            trick=trick,
            played=[c for c in self.deck.names(int(arr[K.GONE])) if c not in trick],
            hand_sizes=[bin(int(arr[K.HANDS + s])).count("1") for s in range(K.N_SEATS)],
            voids=[[self.deck.suits[i] for i in range(K.N_SUITS) if int(arr[K.VOIDS + s]) >> i & 1]
                   for s in range(K.N_SEATS)],
        )
        return view

    def _read_view(self, view: dict) -> _ToyView:
        """Read and check the view's cards (``state_from_view`` has checked its
        fields, options and common header)."""
        hand, trick, played = want_disjoint_cards(view, ("hand", "trick", "played"), self.deck)
        voids = self._read_voids(view)
        seat, to_move, tricks_done = view["seat"], view["to_move"], view["tricks_done"]
        check_complete_tricks(played, tricks_done, K.N_SEATS)
        check_trick_turn(view, trick, K.N_SEATS)
        if to_move is None and (trick or tricks_done != K.TRICKS_PER_DEAL):
            raise InvalidViewError("nobody is to move, yet the deal is not over")
        sizes = one_card_trick_hand_sizes(view, hand, trick, K.HAND_SIZE, K.N_SEATS)
        if sum(view["deal_points"]) != tricks_done:
            raise InvalidViewError(f"deal_points {view['deal_points']} do not add up to {tricks_done} tricks")
        if any(d > t for d, t in zip(view["deal_points"], view["totals"])):
            raise InvalidViewError("a seat has more deal_points than totals")
        if any(voids[seat] >> K.suit_of(c) & 1 for c in hand):
            raise InvalidViewError(f"seat {seat} holds a card of a suit it showed it lacks")
        other = 1 - seat  # the opponent's cards: unseen, of the suits it may still hold
        allowed = [c for c in range(K.DECK_SIZE)
                   if c not in hand + trick + played and not voids[other] >> K.suit_of(c) & 1]
        if len(allowed) < sizes[other]:
            raise InvalidViewError(f"seat {other} cannot hold {sizes[other]} cards without the suits "
                                   f"it showed it lacks")
        target, (t0, t1) = self.options["target"], view["totals"]
        if max(t - d for t, d in zip(view["totals"], view["deal_points"])) >= target:
            raise InvalidViewError(f"a seat had the target {target} before this deal: the match is over")
        if to_move is not None:
            phase, outcome = PHASE_PLAY, None
        elif max(t0, t1) >= target:
            phase = PHASE_MATCH_OVER
            outcome = [1 + (t0 > t1) - (t0 < t1), 1 + (t1 > t0) - (t1 < t0)]
        else:
            phase, outcome = PHASE_DEAL_PENDING, None
        return _ToyView(phase=phase, outcome=outcome, hand=hand, trick=trick, played=played,
                        voids=voids, allowed=allowed, other_size=sizes[other])

    def _write_view(self, array: np.ndarray, view: dict, parts: _ToyView, seed: int) -> None:
        """Write the cards: the opponent's drawn at random from ``seed``."""
        seat = view["seat"]
        allowed = list(parts.allowed)
        random.Random(seed).shuffle(allowed)
        array[K.HANDS + seat] = sum(1 << c for c in parts.hand)
        array[K.HANDS + 1 - seat] = sum(1 << c for c in allowed[: parts.other_size])
        write_trick(array, parts.trick, parts.played, K.TRICK, K.N_IN_TRICK, K.GONE)
        array[K.VOIDS : K.VOIDS + K.N_SEATS] = parts.voids

    def _read_voids(self, view: dict) -> list[int]:
        value = view["voids"]
        if not isinstance(value, list) or len(value) != K.N_SEATS or not all(
                isinstance(v, list) and all(isinstance(s, str) and len(s) == 1 and s in self.deck.suits
                                            for s in v) for v in value):
            raise InvalidViewError(f"view field 'voids' must be {K.N_SEATS} lists of suit letters "
                                   f"({' '.join(self.deck.suits)}), not {value!r}")
        return [sum(1 << self.deck.suits.index(s) for s in v) for v in value]

    # -------------------------------------------------------------- display
    def render(self, state: State, seat: int | None = None) -> str:
        arr = state.array
        lines = [f"Toy, deal {state.deal_number}, dealer {state.dealer}, "
                 f"target {self.options['target']}, totals {state.totals}"]
        for s in range(K.N_SEATS):
            cards = self.hand_text(int(arr[K.HANDS + s]), seat is None or s == seat)
            lines.append(f"  seat {s}: {cards}")
        n = int(arr[K.N_IN_TRICK])
        if n and state.phase == PHASE_PLAY:
            lines.append("  trick: " + " ".join(self.deck.name(int(c)) for c in arr[K.TRICK : K.TRICK + n]))
        return "\n".join(lines)
