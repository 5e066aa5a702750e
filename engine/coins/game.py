"""Coins for people and tools: notation, records, views (docs/rules.md §1, docs/records.md)."""

from __future__ import annotations

import numpy as np

from ..cards import COINS_DECK
from ..errors import InvalidRecordError, InvalidViewError, brief
from ..game import Game, OptionSpec, State
from ..state import PHASE, PHASE_MATCH_OVER, PHASE_PLAY
from ..views import (
    COMMON_KEYS,
    check_keys,
    common_view,
    deal_hidden,
    disjoint,
    one_card_trick_hand_sizes,
    read_common,
    read_options,
    want_cards,
    write_common,
)
from . import kernels as K

VIEW_KEYS = COMMON_KEYS + ("hand", "trick", "played", "hand_sizes")


class Coins(Game):
    """Coins (Mark Steere): three players, cyclic suit dominance, coins score.

    >>> game = Coins(target=15)
    >>> state = game.new_match(seed=1)
    >>> state.apply("Ao" if "Ao" in state.legal_texts() else state.legal_texts()[0]) >= 0
    True
    """

    name = "coins"
    kernels = K
    deck = COINS_DECK
    deal_fields = ("hands",)
    option_specs = {
        "target": OptionSpec(K.DEFAULT_TARGET, 1, 1000, "coins that win the match"),
        "first_dealer": OptionSpec(0, 0, K.N_SEATS - 1, "dealer of the first deal"),
    }

    # ------------------------------------------------------------ notation
    def action_text(self, state: State, action: int, seat: int | None = None) -> str:
        return self.deck.name(action)

    # ---------------------------------------------------------------- deals
    def deal_to_json(self, vector: np.ndarray) -> dict:
        hands = [
            [self.deck.name(c) for c in vector[s * K.HAND_SIZE : (s + 1) * K.HAND_SIZE]]
            for s in range(K.N_SEATS)
        ]
        return {"hands": hands}

    def deal_from_json(self, deal: dict) -> np.ndarray:
        hands = deal.get("hands")
        if not isinstance(hands, list) or len(hands) != K.N_SEATS:
            raise InvalidRecordError(f"'hands' must list {K.N_SEATS} hands, not {brief(hands)}")
        cards = []
        for seat, hand in enumerate(hands):
            parsed = self.deck.parse_many(hand, what=f"hand of seat {seat}")
            if len(parsed) != K.HAND_SIZE:
                raise InvalidRecordError(
                    f"hand of seat {seat} has {len(parsed)} cards, not {K.HAND_SIZE}"
                )
            cards.extend(parsed)
        if len(set(cards)) != K.DECK_SIZE:
            dup = sorted({self.deck.name(c) for c in cards if cards.count(c) > 1})
            raise InvalidRecordError(f"a card is dealt twice: {', '.join(dup)}")
        return np.array(cards, dtype=np.int64)

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

    def state_from_view(self, view: dict, seed: int = 0) -> State:
        check_keys(view, VIEW_KEYS, [k for k in VIEW_KEYS if k != "legal_actions"], self.name)
        read_common(view, K.N_SEATS, self.name, K.TRICKS_PER_DEAL, 10**6)
        game = Coins(**read_options(view, Coins))
        hand = want_cards(view, "hand", self.deck)
        trick = want_cards(view, "trick", self.deck)
        played = want_cards(view, "played", self.deck)
        disjoint({"hand": hand, "trick": trick, "played": played}, self.deck)
        seat, leader, to_move = view["seat"], view["leader"], view["to_move"]
        tricks_done = view["tricks_done"]
        if len(played) != 3 * tricks_done:
            raise InvalidViewError(
                f"{len(played)} played cards do not make {tricks_done} complete tricks"
            )
        if len(trick) > 2:
            raise InvalidViewError(f"a trick in progress has at most 2 cards, not {len(trick)}")
        if to_move is not None and to_move != (leader + len(trick)) % K.N_SEATS:
            raise InvalidViewError(
                f"seat {to_move} cannot be to move: seat {leader} led and "
                f"{len(trick)} card(s) were played"
            )
        sizes = one_card_trick_hand_sizes(view, hand, trick, K.HAND_SIZE, K.N_SEATS)
        if sum(view["deal_points"]) != sum(
            1 for c in played if K.suit_of(c) == K.SUIT_COINS
        ):
            raise InvalidViewError("deal_points do not add up to the coins in the played tricks")
        target = game.options["target"]
        if to_move is not None and max(view["totals"]) >= target:
            raise InvalidViewError(f"a seat already has the target {target}: the match is over")

        state = game.new_match()
        arr = state.array
        write_common(arr, view, K.N_SEATS)
        known = set(hand) | set(trick) | set(played)
        masks, leftover = deal_hidden(seat, hand, known, K.DECK_SIZE, sizes, seed)
        arr[K.HANDS : K.HANDS + K.N_SEATS] = masks
        for k, c in enumerate(trick):
            arr[K.TRICK + k] = c
        arr[K.N_IN_TRICK] = len(trick)
        arr[K.GONE] = sum(1 << c for c in trick + played)
        arr[PHASE] = PHASE_PLAY if to_move is not None else PHASE_MATCH_OVER
        return state

    # -------------------------------------------------------------- display
    def render(self, state: State, seat: int | None = None) -> str:
        arr = state.array
        lines = [
            f"Coins, deal {state.deal_number}, dealer {state.dealer}, "
            f"target {self.options['target']}, totals {state.totals}"
        ]
        for s in range(K.N_SEATS):
            if seat is None or s == seat:
                cards = " ".join(self.deck.names(int(arr[K.HANDS + s])))
            else:
                cards = f"({bin(int(arr[K.HANDS + s])).count('1')} cards)"
            lines.append(f"  seat {s}: {cards}")
        n = int(arr[K.N_IN_TRICK])
        if n:
            cards = " ".join(self.deck.name(int(c)) for c in arr[K.TRICK : K.TRICK + n])
            lines.append(f"  trick: {cards}")
        return "\n".join(lines)

