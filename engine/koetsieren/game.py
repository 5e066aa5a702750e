"""Koetsieren for people and tools: notation, records, views (docs/rules.md §2, docs/records.md).

Inverted visibility: a seat sees everyone's table cards, the *other* seats'
forehead cards and its own hidden card. Its view writes ``??`` for its own
forehead cards and the others' hidden cards, and ``null`` for a slot whose
card has been played; a hand's ``played`` says which card was played from
which slot (everyone saw it, docs/rules.md §2.7).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import permutations
from math import perm

import numpy as np

from ...errors import CardError, IllegalActionError, InvalidRecordError, InvalidViewError, OptionError, brief
from ..cards import KOETSIEREN_DECK, UNKNOWN_CARD
from ..game import Game, State
from ..state import (
    LAST_TRICK_WINNER,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    PHASE_PLAY,
)
from ..views import (
    COMMON_KEYS,
    ViewParts,
    check_complete_tricks,
    common_view,
    disjoint,
    want_cards,
    want_int,
    want_int_list,
    write_trick,
)
from . import INFO, replay
from . import kernels as K

VIEW_KEYS = COMMON_KEYS + ("trump_maker", "trump", "bids", "tricks_won", "hands", "trick", "played")
HAND_KEYS = ("table", "forehead", "hidden")
VIEW_HAND_KEYS = (*HAND_KEYS, "played")
"""A view's hand: the record's three keys, then ``played`` (may be left out, see
:func:`_read_played_from`)."""
SUIT_LETTERS = KOETSIEREN_DECK.suits
# The view's and the record's form of a seat's five slots, in slot order.
SLOT_PLACES = (("table", 0), ("table", 1), ("forehead", 0), ("forehead", 1), ("hidden", None))


def can_see(seat: int, owner: int, slot: int) -> bool:
    """Whether ``seat`` sees the card in ``slot`` of ``owner`` (while unplayed)."""
    if slot == K.SLOT_H:
        return seat == owner
    if slot in (K.SLOT_F1, K.SLOT_F2):
        return seat != owner
    return True



def _slot_shown(text: str, slot_name: str) -> str:
    """A slot's card as the mover sees it in an explanation: ``??`` for a card it
    cannot see (its forehead, whose notation is the slot's own name)."""
    return "??" if text == slot_name else text


@dataclass(kw_only=True)
class _KoetsierenView(ViewParts):
    """A Koetsieren view's bidding and cards (:meth:`Koetsieren._read_view`)."""

    maker: int
    trump: str | None  # suit letter
    bids: list[int | None]
    tricks_won: list[int]
    slots: dict  # {(seat, slot name): card, -1 for '??', None for played}
    played_from: dict  # {(seat, slot name): card played from it}, where the view says
    trick: list[int]
    played: list[int]


class Koetsieren(Game):
    """Koetsieren: 2 to 6 players, cards on the forehead, bid exactly your tricks.

    >>> game = Koetsieren(players=3)
    >>> state = game.new_match(seed=5)
    >>> state.to_move, state.legal_texts()
    (1, ['trump:c', 'trump:d', 'trump:h', 'trump:s'])
    >>> state.apply("trump:h")
    7
    >>> state.legal_texts()[:3]
    ['bid:0', 'bid:1', 'bid:2']
    """

    replay_rules = replay

    info = INFO
    kernels = K
    deck = KOETSIEREN_DECK
    view_keys = VIEW_KEYS
    view_max_tricks = K.TRICKS_PER_DEAL
    deal_fields = ("hands", "undealt")

    def view_schema_properties(self) -> dict:
        """The shapes of the fields Koetsieren adds to a view (:mod:`slagwerk.engine.view_schema`)."""
        from ..view_schema import card, card_or_hidden, cards, count, per_seat, seat, seats

        n = seats(self)
        slot = {"anyOf": [card_or_hidden(self.deck), {"type": "null"}],
                "description": "a card, ?? where this seat cannot see it, null once played"}
        hand = {"type": "object", "required": list(HAND_KEYS), "additionalProperties": False, "properties": {
            "table": {"type": "array", "items": slot, "minItems": 2, "maxItems": 2},
            "forehead": {"type": "array", "items": slot, "minItems": 2, "maxItems": 2},
            "hidden": slot,
            "played": {"type": "object", "description": "the card each emptied slot held",
                       "propertyNames": {"enum": list(K.SLOT_NAMES)},
                       "additionalProperties": card(self.deck)}}}
        trump = {"anyOf": [{"enum": list(self.deck.suits)}, {"type": "null"}]}
        return {"trump_maker": seat(n), "trump": trump,
                "bids": per_seat({"anyOf": [count(K.TRICKS_PER_DEAL), {"type": "null"}]}, n),
                "tricks_won": per_seat(count(K.TRICKS_PER_DEAL), n), "hands": per_seat(hand, n),
                "trick": cards(self.deck), "played": cards(self.deck)}

    @property
    def n_players(self) -> int:
        return self.options["players"]

    # ---------------------------------------------------- small variants
    @property
    def hand_size(self) -> int:
        """Slots dealt to each seat, and tricks per deal: 5, or the option ``hand`` (§2.15)."""
        return self.options["hand"]

    def dealt_slots(self) -> tuple[int, ...]:
        """The slots each seat is dealt, in slot order (all five in the full game; a small
        variant deals the first ``hand`` of ``F1 H T1 F2 T2``, docs/rules.md §2.15)."""
        return tuple(int(slot) for slot in K.DEALT_SLOTS[self.hand_size, : self.hand_size])

    def _check_options(self):
        super()._check_options()
        players, ranks, hand = self.n_players, self.options["ranks"], self.hand_size
        if players * hand > K.N_SUITS * ranks:
            raise OptionError(f"koetsieren option hand={hand} is too many: a deck of {ranks} ranks has "
                              f"{K.N_SUITS * ranks} cards, {K.N_SUITS * ranks // players} for each of "
                              f"{players} players at most")

    def in_play(self, card: int) -> bool:
        """Whether ``card`` is in the deck of this game's options (§2.15)."""
        return int(card) % K.N_RANKS >= K.N_RANKS - self.options["ranks"]

    def cards_in_play(self) -> list[int]:
        return [card for card in range(K.DECK_SIZE) if self.in_play(card)]

    def deal_count(self) -> int:
        """Which card lies in which dealt slot of which seat: ``(4 ranks)! / (4 ranks - n hand)!``."""
        return perm(len(self.cards_in_play()), self.n_players * self.hand_size)

    def all_deals(self):
        """Every deal of the deck in play, each once: every ordered choice of cards for the
        dealt positions (seat by seat, slot by slot), in lexicographic order, each vector
        followed by the deck's cards not dealt and then the cards out of it."""
        cards = self.cards_in_play()
        out_of_play = [c for c in range(K.DECK_SIZE) if not self.in_play(c)]
        for dealt in permutations(cards, self.n_players * self.hand_size):
            taken = set(dealt)
            unused = [c for c in cards if c not in taken]
            yield np.array([*dealt, *unused, *out_of_play], dtype=np.int64)

    def _outside(self, cards) -> str | None:
        """The name of the first of ``cards`` outside the deck in play, and where it lies."""
        for card in cards:
            if not self.in_play(card):
                return (f"{self.deck.name(card)} is not in the deck of these options (the top "
                        f"{self.options['ranks']} ranks of each suit)")
        return None

    # ------------------------------------------------------------ notation
    def action_text(self, state: State, action: int, seat: int | None = None) -> str:
        """``trump:h``, ``bid:2``, or a play: the card, except where ``seat`` cannot
        see it (its own forehead: ``F1``/``F2``; another seat's hidden card: ``H``)."""
        action = int(action)
        if action >= K.BID_BASE:
            return f"bid:{action - K.BID_BASE}"
        if action >= K.TRUMP_BASE:
            return f"trump:{SUIT_LETTERS[action - K.TRUMP_BASE]}"
        mover = state.to_move
        if seat is not None and not can_see(seat, mover, action):
            return K.SLOT_NAMES[action]
        card = int(state.array[K.SLOTS + mover * K.SLOTS_PER_SEAT + action])
        if card == K.EMPTY_SLOT:
            return K.SLOT_NAMES[action]
        return self.deck.name(card)

    def parse_action(self, state: State, text: str) -> int:
        """The legal action written ``text``: ``trump:s``, ``bid:n``, a card, or a
        slot name (``T1 T2 F1 F2 H``) of the mover."""
        if not isinstance(text, str):
            raise IllegalActionError(f"an action is written as text, not {brief(text)}")
        legal = state.legal_actions()
        if state.phase == PHASE_PLAY and text in K.SLOT_NAMES:
            slot = K.SLOT_NAMES.index(text)
            if slot in legal:
                return slot
        for action in legal:
            if text == self.action_text(state, action):
                return action
        raise IllegalActionError(self.explain_illegal(state, text, legal))

    def barred_actions(self, state: State) -> list[str]:
        """The bid the hook bars for the trump maker (docs/rules.md §2.4), if any."""
        if state.phase != K.PHASE_BID or state.is_terminal:
            return []
        barred = int(K.barred_bid(state.array))
        return [f"bid:{barred}"] if barred >= 0 else []

    def explain_illegal(self, state: State, text: str, legal: list[int]) -> str:
        phase = state.phase
        seat = state.to_move
        if phase == K.PHASE_BID and text.startswith("bid:"):
            barred = int(K.barred_bid(state.array))  # -1: no bid is barred for this seat
            if barred >= 0 and text == f"bid:{barred}":
                others = int(state.array[K.BID_SUM])
                return (
                    f"{brief(text)} is barred by the hook: the trump maker (seat {seat}) bids last and "
                    f"may not bring the sum of the bids to {self.hand_size} (the others bid {others})"
                )
            return f"{brief(text)} is not a bid: bids are bid:0 .. bid:{self.hand_size}"
        if phase == K.PHASE_TRUMP:
            return (
                f"{brief(text)} is not legal: seat {seat} (the trump maker) names trump first "
                f"(trump:c, trump:d, trump:h or trump:s)"
            )
        if phase == K.PHASE_BID:
            return f"{brief(text)} is not legal: seat {seat} must bid (bid:0 .. bid:{self.hand_size})"
        if phase == PHASE_PLAY:
            shown = [_slot_shown(self.action_text(state, slot, seat), name) if slot in legal else "(played)"
                     for slot, name in enumerate(K.SLOT_NAMES)]
            slots = " ".join(f"{name}={card}" for name, card in zip(K.SLOT_NAMES, shown))
            if text in K.SLOT_NAMES:
                return f"{brief(text)}: seat {seat} has already played the card of slot {text} ({slots})"
            if text.startswith(("bid:", "trump:")):
                return (f"{brief(text)} is not legal: the bidding is over and seat {seat} "
                        f"plays a card ({slots})")
            return f"{brief(text)} is not a card in a slot of seat {seat} ({slots})"
        return super().explain_illegal(state, text, legal)

    # ---------------------------------------------------------------- deals
    def deal_to_json(self, vector: np.ndarray) -> dict:
        """The hands (a small variant's slots not dealt are null) and the deck's cards not
        dealt as ``undealt`` (cards out of a small variant's deck are never listed)."""
        n, hand, dealt = self.n_players, self.hand_size, self.dealt_slots()
        hands = []
        for s in range(n):
            names = [self.deck.name(c) for c in vector[s * hand : (s + 1) * hand]]
            t1, t2, f1, f2, h = _slot_list(dealt, names)
            hands.append({"table": [t1, t2], "forehead": [f1, f2], "hidden": h})
        undealt = [self.deck.name(c) for c in vector[n * hand :] if self.in_play(c)]
        return {"hands": hands, "undealt": undealt}

    def deal_from_json(self, deal: dict) -> np.ndarray:
        """The deal vector of ``{"hands": [{"table", "forehead", "hidden"}, ...], "undealt"}``.

        ``undealt`` may be left out: it is then the rest of the deck. In a small variant
        (§2.15) a slot not dealt is null, and every card is of the deck in play.
        """
        n = self.n_players
        hands = deal.get("hands")
        if not isinstance(hands, list) or len(hands) != n:
            raise InvalidRecordError(f"'hands' must list {n} hands (one per seat), not {brief(hands)}")
        cards: list[int] = []
        for seat, hand in enumerate(hands):
            cards.extend(_parse_hand(self.deck, hand, seat, self.dealt_slots()))
        undealt_given = "undealt" in deal
        undealt_texts = deal.get("undealt")
        try:
            undealt = self.deck.parse_many(undealt_texts, what="'undealt'") if undealt_given else []
        except CardError as err:
            raise InvalidRecordError(str(err)) from None
        dealt_twice = sorted({self.deck.name(c) for c in cards + undealt if (cards + undealt).count(c) > 1})
        if dealt_twice:
            raise InvalidRecordError(f"a card is dealt twice: {', '.join(dealt_twice)}")
        outside = self._outside(cards + undealt)
        if outside:
            raise InvalidRecordError(outside)
        rest = [c for c in self.cards_in_play() if c not in cards]
        if not undealt_given:
            undealt = rest
        elif len(undealt) != len(rest):
            missing = [self.deck.name(c) for c in rest if c not in undealt]
            raise InvalidRecordError(
                f"'undealt' must list the {len(rest)} cards not in a hand; missing: {', '.join(missing)}"
            )
        out_of_play = [c for c in range(K.DECK_SIZE) if not self.in_play(c)]
        return np.array(cards + undealt + out_of_play, dtype=np.int64)

    # ---------------------------------------------------------------- views
    def view(self, state: State, seat: int) -> dict:
        arr = state.array
        n = self.n_players
        view = common_view(state, seat)
        trick = []
        if state.phase == PHASE_PLAY:
            trick = [self.deck.name(c) for c in arr[K.TRICK : K.TRICK + int(arr[K.N_IN_TRICK])]]
        trump = int(arr[K.TRUMP])
        view.update(
            trump_maker=int(arr[K.TRUMP_MAKER]),
            trump=SUIT_LETTERS[trump] if trump != K.NO_TRUMP else None,
            bids=[_bid_or_none(int(arr[K.BIDS + s])) for s in range(n)],
            tricks_won=[int(v) for v in arr[K.TRICKS_WON : K.TRICKS_WON + n]],
            hands=[self._seen_hand(arr, seat, t) for t in range(n)],
            trick=trick,
            played=[c for c in self.deck.names(int(arr[K.GONE])) if c not in trick],
        )
        return view

    def _seen_hand(self, arr, seat: int, owner: int) -> dict:
        texts = []
        played = {}
        dealt = self.dealt_slots()
        for slot in range(K.SLOTS_PER_SEAT):
            at = owner * K.SLOTS_PER_SEAT + slot
            card = int(arr[K.SLOTS + at])
            if slot not in dealt:  # a small variant's slot never dealt: empty all deal, never played
                texts.append(None)
            elif card == K.EMPTY_SLOT:
                texts.append(None)
                played[K.SLOT_NAMES[slot]] = int(arr[K.PLAYED_FROM + at])
            elif can_see(seat, owner, slot):
                texts.append(self.deck.name(card))
            else:
                texts.append(UNKNOWN_CARD)
        hand = {"table": texts[0:2], "forehead": texts[2:4], "hidden": texts[4]}
        # Left out where a state rebuilt from a view that did not say has no record of it.
        if K.EMPTY_SLOT not in played.values():
            hand["played"] = {name: self.deck.name(card) for name, card in played.items()}
        return hand

    def _read_view(self, view: dict) -> _KoetsierenView:
        n, tricks = self.n_players, self.hand_size
        seat, dealer, leader = view["seat"], view["dealer"], view["leader"]
        to_move, tricks_done = view["to_move"], view["tricks_done"]
        maker = want_int(view, "trump_maker", 0, n - 1)
        trump = view["trump"]
        if trump is not None and (not isinstance(trump, str) or trump not in SUIT_LETTERS):
            raise InvalidViewError(f"view field 'trump' must be one of c d h s or null, not {brief(trump)}")
        bids = view["bids"]
        if not isinstance(bids, list) or len(bids) != n or any(
            b is not None and (isinstance(b, bool) or not isinstance(b, int) or not 0 <= b <= tricks)
            for b in bids
        ):
            raise InvalidViewError(
                f"view field 'bids' must be {n} bids 0..{tricks} or null, not {brief(bids)}"
            )
        tricks_won = want_int_list(view, "tricks_won", n, 0, tricks)
        if sum(tricks_won) != tricks_done:
            raise InvalidViewError(f"tricks_won {tricks_won!r} do not add up to tricks_done {tricks_done}")
        slots = _read_view_hands(self.deck, view.get("hands"), n, seat)
        dealt = self.dealt_slots()
        for (t, name), c in slots.items():
            if c is not None and K.SLOT_NAMES.index(name) not in dealt:
                raise InvalidViewError(f"hands[{t}] slot {name} is never dealt with hand={tricks} "
                                       f"(docs/rules.md §2.15): it is null")
        trick = want_cards(view, "trick", self.deck)
        played = want_cards(view, "played", self.deck)
        known = {f"hands[{t}].{name}": [c] for (t, name), c in slots.items() if c is not None and c >= 0}
        disjoint({**known, "trick": trick, "played": played}, self.deck)
        outside = self._outside([c for [c] in known.values()] + trick + played)
        if outside:
            raise InvalidViewError(outside)

        # Which part of the deal the view is in, and who must be to move then.
        deal_over = to_move is None
        totals = view["totals"]
        match_over = deal_over and max(totals) >= K.LOSING_TOTAL
        deal_dealer = dealer if match_over or not deal_over else (dealer - 1) % n
        if maker != (deal_dealer + 1) % n:
            raise InvalidViewError(
                f"trump_maker {maker} is not left of the deal's dealer {deal_dealer} "
                "(after a deal, 'dealer' is already the next dealer)"
            )
        if trump is None:
            phase, expected_to_move = K.PHASE_TRUMP, maker
            if any(b is not None for b in bids):
                raise InvalidViewError("bids were made before trump was named")
        elif any(b is None for b in bids):
            phase = K.PHASE_BID
            order = [(maker + 1 + k) % n for k in range(n)]  # the trump maker bids last
            made = sum(b is not None for b in bids)
            if any((bids[s] is not None) != (k < made) for k, s in enumerate(order)):
                raise InvalidViewError(
                    f"bids {bids!r} are not a prefix of the bidding order {order!r}"
                )
            expected_to_move = order[made]
        else:
            phase = PHASE_PLAY if not deal_over else (PHASE_MATCH_OVER if match_over else PHASE_DEAL_PENDING)
            expected_to_move = (leader + len(trick)) % n if not deal_over else None
            if sum(bids) == tricks:
                raise InvalidViewError(f"bids {bids!r} add up to {tricks}: the hook forbids that")
        if phase in (K.PHASE_TRUMP, K.PHASE_BID) and (tricks_done or trick or played):
            raise InvalidViewError("no card can have been played before the bidding is over")
        if tricks_done == 0 and leader != maker:
            raise InvalidViewError(f"the trump maker (seat {maker}) leads the first trick, not seat {leader}")
        if to_move != expected_to_move:
            raise InvalidViewError(f"seat {to_move} cannot be to move here (expected {expected_to_move})")
        if deal_over and tricks_done != tricks:
            raise InvalidViewError(f"nobody is to move, yet only {tricks_done} tricks are done")
        if len(trick) >= n or (trick and phase != PHASE_PLAY):
            raise InvalidViewError(f"a trick in progress cannot hold {len(trick)} cards here")
        check_complete_tricks(played, tricks_done, n)
        for t in range(n):
            should_hold = tricks - tricks_done - (1 if (t - leader) % n < len(trick) else 0)
            holds = sum(slots[t, name] is not None for name in K.SLOT_NAMES)
            if holds != should_hold:
                raise InvalidViewError(f"seat {t} should hold {should_hold} cards at this point, not {holds}")
        played_from = _read_played_from(self.deck, view["hands"], slots, set(trick) | set(played),
                                         view["history"], dealt)
        penalties = [abs(b - w) for b, w in zip(bids, tricks_won)] if deal_over else [0] * n
        if view["deal_points"] != penalties:
            raise InvalidViewError(f"deal_points {view['deal_points']!r} should be {penalties!r}")
        if not deal_over and max(totals) >= K.LOSING_TOTAL:
            raise InvalidViewError(f"a total of {max(totals)} has ended the match")
        # Ruling: every seat sharing the highest total loses.
        outcome = [0 if v == max(totals) else 2 for v in totals] if match_over else None
        return _KoetsierenView(phase=phase, outcome=outcome, maker=maker, trump=trump, bids=bids,
                               tricks_won=tricks_won, slots=slots, played_from=played_from, trick=trick,
                               played=played)

    def _write_view(self, array: np.ndarray, view: dict, parts: _KoetsierenView, seed: int) -> None:
        n, slots, trick, played = self.n_players, dict(parts.slots), parts.trick, parts.played
        visible = {c for c in slots.values() if c is not None and c >= 0}
        unknown = [c for c in self.cards_in_play() if c not in visible and c not in trick and c not in played]
        random.Random(seed).shuffle(unknown)
        blind = [key for key, c in slots.items() if c == -1]  # '??' slots, in seat/slot order
        for key, card in zip(blind, unknown):
            slots[key] = card
        for t in range(n):
            for slot, name in enumerate(K.SLOT_NAMES):
                card = slots[t, name]
                array[K.SLOTS + t * K.SLOTS_PER_SEAT + slot] = K.EMPTY_SLOT if card is None else card
                if card is not None:
                    array[K.LIVE + t] |= 1 << slot
                origin = parts.played_from.get((t, name))
                if origin is not None:
                    array[K.PLAYED_FROM + t * K.SLOTS_PER_SEAT + slot] = origin
        array[K.UNDEALT] = sum(1 << c for c in unknown[len(blind) :])
        write_trick(array, trick, played, K.TRICK, K.N_IN_TRICK, K.GONE)
        array[K.TRUMP] = K.NO_TRUMP if parts.trump is None else SUIT_LETTERS.index(parts.trump)
        array[K.TRUMP_MAKER] = parts.maker
        for s in range(n):
            array[K.BIDS + s] = K.NO_BID if parts.bids[s] is None else parts.bids[s]
        array[K.BID_SUM] = sum(b for b in parts.bids if b is not None)
        array[K.TRICKS_WON : K.TRICKS_WON + n] = parts.tricks_won
        if trick:
            best = K.trick_winner_position(np.array(trick, np.int64), len(trick), array[K.TRUMP])
            array[K.TRICK_BEST] = best
        array[LAST_TRICK_WINNER] = view["leader"] if view["tricks_done"] else -1

    # -------------------------------------------------------------- display
    def render(self, state: State, seat: int | None = None) -> str:
        arr = state.array
        trump = int(arr[K.TRUMP])
        lines = [
            f"Koetsieren, {self.n_players} players, deal {state.deal_number}, dealer {state.dealer}, "
            f"trump maker {int(arr[K.TRUMP_MAKER])}, trump "
            f"{SUIT_LETTERS[trump] if trump != K.NO_TRUMP else '-'}, totals {state.totals}"
        ]
        for t in range(self.n_players):
            texts = []
            for slot, name in enumerate(K.SLOT_NAMES):
                card = int(arr[K.SLOTS + t * K.SLOTS_PER_SEAT + slot])
                if card == K.EMPTY_SLOT:
                    text = "--"
                elif seat is None or can_see(seat, t, slot):
                    text = self.deck.name(card)
                else:
                    text = UNKNOWN_CARD
                texts.append(f"{name} {text}")
            bid = _bid_or_none(int(arr[K.BIDS + t]))
            lines.append(
                f"  seat {t}: {'  '.join(texts)}   bid {'-' if bid is None else bid}, "
                f"tricks {int(arr[K.TRICKS_WON + t])}"
            )
        k = int(arr[K.N_IN_TRICK])
        if k and state.phase == PHASE_PLAY:
            lines.append("  trick: " + " ".join(self.deck.name(int(c)) for c in arr[K.TRICK : K.TRICK + k]))
        return "\n".join(lines)


def _bid_or_none(bid: int) -> int | None:
    return None if bid == K.NO_BID else bid


def _slot_list(dealt, cards) -> list:
    """The five slots ``T1 T2 F1 F2 H`` holding ``cards``, one per slot of ``dealt`` (in
    slot order), and None in the others."""
    slots = [None] * K.SLOTS_PER_SEAT
    for slot, card in zip(dealt, cards):
        slots[slot] = card
    return slots


def _parse_hand(deck, hand, seat: int, dealt=tuple(range(K.SLOTS_PER_SEAT))) -> list[int]:
    """Slot cards of a record hand ``{"table", "forehead", "hidden"}``: ``T1 T2 F1 F2 H``,
    or a small variant's ``dealt`` slots, in slot order (its other slots null, §2.15)."""
    where = f"hand of seat {seat}"
    if not isinstance(hand, dict) or set(hand) != set(HAND_KEYS):
        raise InvalidRecordError(
            f"{where} must be an object with exactly 'table' (2 cards), 'forehead' (2 cards) "
            f"and 'hidden' (1 card), not {brief(hand)}"
        )
    if len(dealt) < K.SLOTS_PER_SEAT:
        return _parse_small_hand(deck, hand, where, dealt)
    try:
        table = deck.parse_many(hand["table"], what=f"{where}: 'table'")
        forehead = deck.parse_many(hand["forehead"], what=f"{where}: 'forehead'")
        hidden = deck.parse(hand["hidden"])
    except CardError as err:
        raise InvalidRecordError(f"{where}: {err}") from None
    if len(table) != 2 or len(forehead) != 2:
        raise InvalidRecordError(f"{where}: 'table' and 'forehead' hold 2 cards each, not {brief(hand)}")
    return table + forehead + [hidden]


def _parse_small_hand(deck, hand, where: str, dealt) -> list[int]:
    """:func:`_parse_hand` in a small variant: a card in each slot of ``dealt``, null in the others."""
    if not all(isinstance(hand[key], list) and len(hand[key]) == 2 for key in ("table", "forehead")):
        raise InvalidRecordError(f"{where}: 'table' and 'forehead' hold 2 slots each (a card or null), "
                                 f"not {brief(hand)}")
    cards = []
    for slot, (key, index) in enumerate(SLOT_PLACES):
        text = hand[key] if index is None else hand[key][index]
        name = K.SLOT_NAMES[slot]
        if slot not in dealt:
            if text is not None:
                raise InvalidRecordError(f"{where}: slot {name} is never dealt with hand={len(dealt)} "
                                         f"(docs/rules.md §2.15): null, not {brief(text)}")
            continue
        try:
            cards.append(deck.parse(text))
        except CardError as err:
            raise InvalidRecordError(f"{where}: slot {name}: {err}") from None
    return cards


def _read_view_hands(deck, hands, n: int, seat: int) -> dict:
    """``{(seat, slot name): card index, -1 for '??', None for played}`` of a view's hands.

    A card must be shown exactly where the viewing seat can see it.
    """
    if not isinstance(hands, list) or len(hands) != n:
        raise InvalidViewError(f"view field 'hands' must list {n} hands, not {brief(hands)}")
    slots = {}
    for owner, hand in enumerate(hands):
        if not isinstance(hand, dict) or not set(HAND_KEYS) <= set(hand) <= set(VIEW_HAND_KEYS):
            raise InvalidViewError(
                f"hands[{owner}] must be an object with 'table', 'forehead', 'hidden' and 'played' "
                f"(may be left out), not {brief(hand)}"
            )
        for slot, (key, index) in enumerate(SLOT_PLACES):
            value = hand[key]
            if index is not None:
                if not isinstance(value, list) or len(value) != 2:
                    raise InvalidViewError(f"hands[{owner}].{key} must list 2 slots, not {brief(value)}")
                value = value[index]
            name = K.SLOT_NAMES[slot]
            where = f"hands[{owner}] slot {name}"
            if value is None:
                slots[owner, name] = None
            elif value == UNKNOWN_CARD:
                if can_see(seat, owner, slot):
                    raise InvalidViewError(f"{where} is '??', but seat {seat} sees that card")
                slots[owner, name] = -1
            else:
                if not can_see(seat, owner, slot):
                    raise InvalidViewError(
                        f"{where} shows {brief(value)}, but seat {seat} cannot see that card"
                    )
                try:
                    slots[owner, name] = deck.parse(value)
                except CardError as err:
                    raise InvalidViewError(f"{where}: {err}") from None
    return slots


def _read_played_from(deck, hands, slots: dict, gone: set[int], history,
                      dealt=tuple(range(K.SLOTS_PER_SEAT))) -> dict:
    """``{(seat, slot name): card}`` from the hands' ``played``: the card played
    from each emptied slot, which everyone saw (docs/rules.md §2.7).

    A hand may leave ``played`` out (views written before it existed): its
    played slots are then unknown, and a belief tries every order. Where
    given, it must name exactly the hand's emptied slots, with cards of
    ``trick`` or ``played``, each once, and hold every card the history shows
    the seat playing.
    """
    origins: dict = {}
    seen: dict[int, str] = {}
    for owner, hand in enumerate(hands):
        if "played" not in hand:
            continue
        given = hand["played"]
        emptied = [K.SLOT_NAMES[slot] for slot in dealt if slots[owner, K.SLOT_NAMES[slot]] is None]
        if not isinstance(given, dict) or sorted(given, key=str) != sorted(emptied):
            raise InvalidViewError(
                f"hands[{owner}].played must map each emptied slot ({' '.join(emptied) or 'none'}) "
                f"to the card played from it, not {brief(given)}"
            )
        for name in emptied:
            where = f"hands[{owner}].played.{name}"
            try:
                card = deck.parse(given[name])
            except CardError as err:
                raise InvalidViewError(f"{where}: {err}") from None
            if card not in gone:
                raise InvalidViewError(f"{where} is {deck.name(card)}, which is not in 'trick' or 'played'")
            if card in seen:
                raise InvalidViewError(f"{where} is {deck.name(card)}, already played from {seen[card]}")
            seen[card] = where
            origins[owner, name] = card
    for i, item in enumerate(history):
        seat, text = item["seat"], item["action"]
        if "played" not in hands[seat] or text.startswith(("trump:", "bid:")) or text in K.SLOT_NAMES:
            continue
        try:
            card = deck.parse(text)
        except CardError as err:
            raise InvalidViewError(f"history entry {i}: {err}") from None
        if card not in {c for (t, _), c in origins.items() if t == seat}:
            raise InvalidViewError(
                f"history entry {i}: seat {seat} played {text}, which is not in hands[{seat}].played"
            )
    return origins
