"""Kozel for people and tools: notation, records, views (docs/rules.md §3, docs/records.md).

Notation: ``lead:9h,7h``, ``beat:Ts,8h``, ``discard:7d,6c``, ``molodka``,
``pass``. Card order inside a set does not matter when parsing (the pairing
of a beat follows from the sets); printed sets list the highest rank first.
Another seat sees a face-down discard as ``discard:N`` until the deal is
counted, when the discards are turned up (§3.8).

>>> from slagwerk.engine import make_game
>>> game = make_game("kozel")
>>> state = game.new_match(seed=4)
>>> state.to_move, state.legal_texts()
(1, ['lead:Ac', 'lead:Ad', 'lead:Js,8s', 'lead:Js', 'lead:8s'])
>>> state.view(1)["trump_card"]
'8h'
>>> state.apply("lead:8s,Js") == state.deals[-1].actions[-1]  # any card order
True
>>> state.legal_texts()[:4]  # hearts are trumps: Th beats Js, Ks beats 8s
['discard:Ks,7s', 'discard:Th,Ks', 'beat:Th,Ks', 'discard:Kh,Ks']
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, permutations
from math import comb, perm

import numpy as np

from ...errors import CardError, IllegalActionError, InvalidRecordError, InvalidViewError, OptionError, brief
from ..bits import make_rng
from ..cards import KOZEL_DECK, UNKNOWN_CARD
from ..game import Game, State
from ..state import (
    LAST_TRICK_WINNER,
    NOBODY,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    PHASE_PLAY,
)
from ..views import (
    COMMON_KEYS,
    ViewParts,
    common_view,
    want_cards,
)
from . import INFO, replay
from . import kernels as K

VIEW_KEYS = COMMON_KEYS + (
    "hand",  # this seat's cards
    "hand_sizes",  # cards held per seat
    "trump_card",  # the card the dealer showed (its place in the stock is hidden)
    "stock_size",  # cards left in the stock
    "shown",  # every card shown face up this deal
    "known_cards",  # per seat: cards everyone knows it holds (returned by a molodka)
    "tricks",  # this deal's completed tricks as this seat saw them (all turned up once counted)
    "trick",  # the trick in progress (null between deals)
)
COMPLETED_TRICK_KEYS = ("leader", "plays", "winner")
CURRENT_TRICK_KEYS = ("original_leader", "plays", "asked", "asking")
PLAY_KEYS = ("seat", "kind", "cards")

KIND_TEXT = {
    K.KIND_LEAD: "lead",
    K.KIND_BEAT: "beat",
    K.KIND_DISCARD: "discard",
    K.KIND_MOLODKA: "molodka",
}
TEXT_KIND = {text: kind for kind, text in KIND_TEXT.items()}
SET_KINDS = ("lead", "beat", "discard")
"""Action kinds written with their set of cards."""
FACE_UP_KINDS = ("lead", "beat", "molodka")
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}


def _bits(mask: int) -> list[int]:
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


class Kozel(Game):
    """Kozel, 4-card version: two teams, multi-card tricks beaten by pairing,
    face-down discards, the molodka, a stock; 12 penalty points lose.

    >>> game = Kozel()
    >>> game.names_of(game.deck.mask(["7h", "As", "Th"]))
    ['As', 'Th', '7h']
    """

    replay_rules = replay

    info = INFO
    kernels = K
    deck = KOZEL_DECK
    view_keys = VIEW_KEYS
    view_max_tricks = K.MAX_TRICKS
    deal_fields = ("hands", "stock", "trump_card", "undealt")

    def view_schema_properties(self) -> dict:
        """The shapes of the fields Kozel adds to a view (:mod:`slagwerk.engine.view_schema`)."""
        from ..view_schema import card, cards, count, per_seat, seat, seats

        n = seats(self)
        play = {"type": "object", "required": list(PLAY_KEYS), "additionalProperties": False, "properties": {
            "seat": seat(n), "kind": {"enum": list(KIND_TEXT.values())},
            "cards": {**cards(self.deck, hidden=True), "minItems": 1}}}
        plays = {"type": "array", "items": play}
        done = {"type": "object", "required": list(COMPLETED_TRICK_KEYS), "additionalProperties": False,
                "properties": {"leader": seat(n), "plays": plays, "winner": seat(n)}}
        current = {"type": "object", "required": list(CURRENT_TRICK_KEYS), "additionalProperties": False,
                   "properties": {"original_leader": seat(n), "plays": plays,
                                  "asked": {"type": "array", "items": seat(n), "uniqueItems": True},
                                  "asking": seat(n, null=True)}}
        return {"hand": cards(self.deck), "hand_sizes": per_seat(count(self.deck.size), n),
                "trump_card": card(self.deck), "stock_size": count(self.deck.size), "shown": cards(self.deck),
                "known_cards": per_seat(cards(self.deck), n), "tricks": {"type": "array", "items": done},
                "trick": {"anyOf": [current, {"type": "null"}]}}

    # ------------------------------------------------------------ notation
    def names_of(self, mask) -> list[str]:
        """Card texts of a mask, highest rank first (suits ``c d h s`` on ties)."""
        cards = sorted(_bits(mask), key=lambda c: (-K.rank_of(c), K.suit_of(c)))
        return [self.deck.name(c) for c in cards]

    def action_text(self, state: State, action: int, seat: int | None = None) -> str:
        kind = int(action) >> K.KIND_SHIFT
        if kind == K.KIND_MOLODKA:
            return "molodka"
        if kind == K.KIND_PASS:
            return "pass"
        cards = self.names_of(int(action) & K.CARD_FIELD)
        if kind == K.KIND_DISCARD and seat is not None and seat != state.to_move:
            return f"discard:{len(cards)}"
        return f"{KIND_TEXT[kind]}:{','.join(cards)}"

    def seen_text(self, state: State, action: int, seat: int) -> str:
        return self.action_text(state, action, seat)

    def action_of_text(self, text: str) -> int:
        """The action written ``text`` (legal or not); :class:`IllegalActionError`
        when it is not Kozel notation at all."""
        if not isinstance(text, str):
            raise IllegalActionError(f"an action is written as text, not {brief(text)}")
        word = text.strip()
        if word == "molodka":
            return K.MOLODKA
        if word == "pass":
            return K.PASS
        kind, colon, rest = word.partition(":")
        if not colon or kind not in SET_KINDS:
            raise IllegalActionError(
                f"{brief(text)} is not a Kozel action (lead:CARDS, beat:CARDS, discard:CARDS, molodka, pass)"
            )
        items = [item.strip() for item in rest.split(",")]
        if len(items) == 1 and items[0].isdigit():
            raise IllegalActionError(
                f"{brief(text)}: a discard names its cards (only other seats see it as discard:N)"
            )
        try:
            cards = self.deck.parse_many(items, what=f"the cards of {brief(text)}")
        except CardError as err:
            raise IllegalActionError(str(err)) from None
        return (TEXT_KIND[kind] << K.KIND_SHIFT) | _mask(cards)

    def parse_action(self, state: State, text: str) -> int:
        """The legal action written ``text``, cards in any order."""
        legal = state.legal_actions()
        if state.is_terminal or state.deal_pending:
            raise IllegalActionError(self.explain_illegal(state, str(text), legal))
        action = self.action_of_text(text)
        if action in legal:
            return action
        raise IllegalActionError(self.explain_illegal(state, text, legal))

    def explain_illegal(self, state: State, text: str, legal: list[int]) -> str:
        if state.is_terminal or state.deal_pending:
            return super().explain_illegal(state, text, legal)
        seat = state.to_move
        head = f"{brief(text)} is not legal for seat {seat}"
        try:
            action = self.action_of_text(text)
        except IllegalActionError:
            return super().explain_illegal(state, text, legal)
        reason = self._reason(state, action)
        if reason is None:
            return super().explain_illegal(state, text, legal)
        return f"{head}: {reason}"

    def _reason(self, state: State, action: int) -> str | None:
        arr = state.array
        seat = state.to_move
        kind = action >> K.KIND_SHIFT
        if state.phase == K.PHASE_QUESTION:
            return f"seat {seat} is asked whether to declare its molodka: answer molodka or pass"
        if kind in (K.KIND_MOLODKA, K.KIND_PASS):
            return "no molodka question is pending"
        cards = action & K.CARD_FIELD
        hand = int(arr[K.HANDS + seat])
        missing = cards & ~hand
        if missing:
            return f"seat {seat} does not hold {', '.join(self.names_of(missing))}"
        leading = int(arr[K.N_PLAYED]) == 0
        if leading and kind != K.KIND_LEAD:
            return f"seat {seat} leads this trick (lead:CARDS)"
        if not leading and kind == K.KIND_LEAD:
            return f"seat {seat} does not lead: it beats or discards"
        if leading:
            suits = {K.suit_of(c) for c in _bits(cards)}
            return "a lead is cards of one suit" if len(suits) > 1 else None
        size = int(arr[K.SET_SIZE])
        if bin(cards).count("1") != size:
            return f"this trick is played with {size} card(s) each"
        winning = self.names_of(int(arr[K.WINNING_SET]))
        return f"these cards do not each beat a card of the winning set {','.join(winning)}"

    # ---------------------------------------------------------------- deals
    def deal_to_json(self, vector: np.ndarray) -> dict:
        """The hands, the stock (top first) and the shown card; a small variant (§3.18) without a
        stock has no ``stock``, and one that leaves cards of its deck unused lists them as
        ``undealt`` (cards out of its deck are never listed)."""
        v = [int(c) for c in vector]
        hand, stock_size = self.options["hand"], self.options["stock"]
        hands = [[self.deck.name(c) for c in v[s * hand : (s + 1) * hand]] for s in range(K.N_SEATS)]
        base = K.N_SEATS * hand
        stock = [self.deck.name(c) for c in v[base : base + stock_size]]
        if stock_size:
            record = {"hands": hands, "stock": stock, "trump_card": stock[v[K.DEAL_TRUMP_POSITION]]}
        else:  # the dealer's last card (§3.19), whose place the vector names
            record = {"hands": hands, "trump_card": self.deck.name(v[v[K.DEAL_TRUMP_POSITION]])}
        unused = [self.deck.name(c) for c in v[base + stock_size : K.DECK_SIZE] if self.in_play(c)]
        if unused:
            record["undealt"] = unused
        return record

    def deal_from_json(self, deal: dict) -> np.ndarray:
        """The deal vector of :meth:`deal_to_json`'s form. Without a stock (§3.19) the trump card
        must be in the dealer's hand (when the deal names its dealer; the record loader always
        gives it) and goes to that hand's last place; ``undealt`` may be left out."""
        if not isinstance(deal, dict):
            raise InvalidRecordError(f"a deal is a JSON object, not {brief(deal)}")
        size, stock_size = self.options["hand"], self.options["stock"]
        hands = deal.get("hands")
        if not isinstance(hands, list) or len(hands) != K.N_SEATS:
            raise InvalidRecordError(f"'hands' must list {K.N_SEATS} hands, not {brief(hands)}")
        parsed_hands = []
        for seat, hand in enumerate(hands):
            parsed = self.deck.parse_many(hand, what=f"hand of seat {seat}")
            if len(parsed) != size:
                raise InvalidRecordError(f"hand of seat {seat} has {len(parsed)} cards, not {size}")
            parsed_hands.append(parsed)
        if "trump_card" not in deal or ("stock" not in deal and stock_size):
            raise InvalidRecordError("a Kozel deal needs 'stock' (top first) and 'trump_card'")
        stock = self.deck.parse_many(deal.get("stock", []), what="'stock'")
        if len(stock) != stock_size:
            raise InvalidRecordError(f"'stock' has {len(stock)} cards, not {stock_size}")
        cards = [c for hand in parsed_hands for c in hand] + stock
        if len(set(cards)) != len(cards):
            dup = sorted({self.deck.name(c) for c in cards if cards.count(c) > 1})
            raise InvalidRecordError(f"a card is dealt twice: {', '.join(dup)}")
        outside = [c for c in cards if not self.in_play(c)]
        if outside:
            raise InvalidRecordError(f"{self.deck.name(outside[0])} is not in the deck of {self!r} "
                                     f"(the top {self.options['ranks']} ranks of each suit)")
        rest = [c for c in self.cards_in_play() if c not in set(cards)]
        if "undealt" in deal:
            undealt = self.deck.parse_many(deal["undealt"], what="'undealt'")
            if sorted(undealt) != rest:
                raise InvalidRecordError(f"'undealt' must be the cards of the deck not dealt: "
                                         f"{' '.join(self.deck.name(c) for c in rest) or 'none'}")
            rest = undealt
        out_of_play = [c for c in range(K.DECK_SIZE) if not self.in_play(c)]
        trump = self.deck.parse(deal["trump_card"])
        if stock_size:
            if trump not in stock:
                raise InvalidRecordError(
                    f"'trump_card' {brief(deal['trump_card'])} is not in the stock: the dealer shows a "
                    "stock card"
                )
            return np.array(cards + rest + out_of_play + [stock.index(trump)], dtype=np.int64)
        holder = next((s for s, hand in enumerate(parsed_hands) if trump in hand), None)
        dealer = deal.get("dealer")
        if holder is None or (isinstance(dealer, int) and holder != dealer):
            where = "a hand" if holder is None or not isinstance(dealer, int) else f"seat {dealer}'s hand"
            raise InvalidRecordError(
                f"'trump_card' {brief(deal['trump_card'])} is not in {where}: without a stock the dealer "
                "shows its own last card (docs/rules.md §3.19)"
            )
        hand = parsed_hands[holder]
        parsed_hands[holder] = [c for c in hand if c != trump] + [trump]  # the last dealt
        cards = [c for hand in parsed_hands for c in hand]
        return np.array(cards + rest + out_of_play + [holder * size + size - 1], dtype=np.int64)

    # ---------------------------------------------------- small variants
    def _check_options(self):
        super()._check_options()
        ranks, hand, stock = self.options["ranks"], self.options["hand"], self.options["stock"]
        if stock % K.N_SEATS:
            raise OptionError(f"kozel option stock={stock} is not a multiple of {K.N_SEATS}: the players "
                              f"draw from it in rounds of {K.N_SEATS} (docs/rules.md §3.12)")
        if K.N_SEATS * hand + stock > K.N_SUITS * ranks:
            raise OptionError(f"kozel option stock={stock} is too many with hand={hand}: a deck of {ranks} "
                              f"ranks has {K.N_SUITS * ranks} cards, at most "
                              f"{K.N_SUITS * ranks - K.N_SEATS * hand} for the stock")

    def in_play(self, card: int) -> bool:
        """Whether ``card`` is in the deck of this game's options (§3.18)."""
        return K.rank_of(card) >= K.N_RANKS - self.options["ranks"]

    def cards_in_play(self) -> list[int]:
        return [card for card in range(K.DECK_SIZE) if self.in_play(card)]

    def _trump_choices(self) -> int:
        """How many places the shown card of a deal may have: the stock's middle positions, or
        the dealer's cards without a stock (§3.5, §3.19)."""
        stock = self.options["stock"]
        return stock - 2 if stock else self.options["hand"]

    def deal_count(self) -> int:
        """Distinct first deals: the four hands as sets, the stock in order, the unused cards as
        a set, and the shown card's place (§3.18, §3.19)."""
        cards, hand, stock = len(self.cards_in_play()), self.options["hand"], self.options["stock"]
        count = 1
        for seat in range(K.N_SEATS):
            count *= comb(cards - seat * hand, hand)
        return count * perm(cards - K.N_SEATS * hand, stock) * self._trump_choices()

    def all_deals(self):
        """Every first deal of the deck in play (dealt by the option ``first_dealer``), each once:
        the hands as sets seat by seat, the stock in every order, the deck's unused cards and the
        cards out of it, and every place of the shown card: a middle stock position, or without a
        stock each card of the dealer's hand as its last (§3.19)."""
        cards, size, stock = self.cards_in_play(), self.options["hand"], self.options["stock"]
        dealer = self.options["first_dealer"]
        out_of_play = [c for c in range(K.DECK_SIZE) if not self.in_play(c)]

        def hands_from(left, seat):
            if seat == K.N_SEATS:
                yield [], left
                return
            for hand in combinations(left, size):
                rest = [c for c in left if c not in hand]
                for later, unused in hands_from(rest, seat + 1):
                    yield [list(hand), *later], unused

        for hands, left in hands_from(cards, 0):
            if stock:
                for pile in permutations(left, stock):
                    unused = [c for c in left if c not in pile]
                    head = [c for hand in hands for c in hand] + list(pile) + unused + out_of_play
                    for place in range(K.TRUMP_FIRST_PLACE, stock - 1):
                        yield np.array(head + [place], dtype=np.int64)
                continue
            own = hands[dealer]
            for shown in own:
                hands[dealer] = [c for c in own if c != shown] + [shown]
                head = [c for hand in hands for c in hand] + left + out_of_play
                yield np.array(head + [dealer * size + size - 1], dtype=np.int64)
            hands[dealer] = own

    # ---------------------------------------------------------------- views
    def view(self, state: State, seat: int) -> dict:
        arr = state.array
        view = common_view(state, seat)
        face_up = int(arr[K.FACE_UP])
        dealt = state.deal_number > 0
        in_deal = state.phase in (PHASE_PLAY, K.PHASE_QUESTION)
        counted = dealt and not in_deal  # the discards are turned up (§3.8.3)
        done = min(state.tricks_done, K.MAX_TRICKS)
        tricks = [
            {
                "leader": int(arr[K.TRICK_LEADERS + t]),
                "plays": self._plays(arr, t, -1 if counted else seat, int(arr[K.TRICK_LEADERS + t])),
                "winner": int(arr[K.TRICK_WINNERS + t]),
            }
            for t in range(done if dealt else 0)
        ]
        trick = None
        if in_deal:
            asked = int(arr[K.ASKED])
            trick = {
                "original_leader": int(arr[K.ORIGINAL_LEADER]),
                "plays": self._plays(arr, done, seat, state.leader),
                "asked": [s for s in range(K.N_SEATS) if asked >> s & 1],
                "asking": state.to_move if state.phase == K.PHASE_QUESTION else None,
            }
        hands = [int(arr[K.HANDS + s]) for s in range(K.N_SEATS)]
        view.update(
            hand=self.names_of(hands[seat]),
            hand_sizes=[bin(h).count("1") for h in hands],
            trump_card=self.deck.name(int(arr[K.TRUMP_CARD])) if dealt else None,
            stock_size=self.options["stock"] - int(arr[K.STOCK_NEXT]) if dealt else self.options["stock"],
            shown=self.names_of(face_up),
            known_cards=[self.names_of(h & face_up) for h in hands],
            tricks=tricks,
            trick=trick,
        )
        return view

    def _plays(self, arr, t: int, seat: int, leader: int) -> list[dict]:
        """The plays of trick ``t`` in order from ``leader``, as ``seat`` saw them
        (-1: as everybody sees them once the deal is counted, discards too)."""
        face_up = int(arr[K.FACE_UP])
        plays = []
        for i in range(K.N_SEATS):
            p = (leader + i) % K.N_SEATS
            cell = t * K.N_SEATS + p
            kind = int(arr[K.PLAY_KIND + cell])
            if not kind:
                continue
            cards = int(arr[K.PLAYED + cell])
            if kind == K.KIND_DISCARD and p != seat and seat >= 0:
                names = self.names_of(cards & face_up)
                names += [UNKNOWN_CARD] * bin(cards & ~face_up).count("1")
            else:
                names = self.names_of(cards)
            plays.append({"seat": p, "kind": KIND_TEXT[kind], "cards": names})
        return plays

    def _read_view(self, view: dict) -> _KozelView:
        return _ViewReader(self, view).read()

    def _write_view(self, array: np.ndarray, view: dict, parts: _KozelView, seed: int) -> None:
        seat, known_cards, stock = view["seat"], parts.known_cards, parts.stock
        pool = parts.pool[::-1]  # the hidden places take unseen cards in order
        for s in range(K.N_SEATS):
            cards = parts.hand if s == seat else known_cards[s] + [pool.pop() for _ in range(
                parts.sizes[s] - len(known_cards[s]))]
            array[K.HANDS + s] = _mask(cards)
        for t, s, kind, cards, unknown in parts.cells:
            array[K.PLAYED + t * K.N_SEATS + s] = _mask(cards + [pool.pop() for _ in range(unknown)])
            array[K.PLAY_KIND + t * K.N_SEATS + s] = kind
        stock_size = self.options["stock"]
        array[K.STOCK_NEXT] = stock_size - stock
        for i in range(stock_size - stock, stock_size):
            array[K.STOCK + i] = pool.pop()
        array[K.UNDEALT] = _mask(pool)  # a small variant's unused cards (§3.18): the unseen rest
        array[K.TRUMP_CARD] = parts.trump
        array[K.TRUMP_SUIT] = K.suit_of(parts.trump)
        array[K.FACE_UP] = _mask(parts.shown)
        array[K.TRICK_LEADERS : K.TRICK_LEADERS + K.MAX_TRICKS] = -1
        array[K.TRICK_WINNERS : K.TRICK_WINNERS + K.MAX_TRICKS] = -1
        for t, (leader, winner) in enumerate(zip(parts.leaders, parts.winners)):
            array[K.TRICK_LEADERS + t] = leader
            array[K.TRICK_WINNERS + t] = winner
            team = winner % 2
            array[K.TEAM_TRICKS + team] += 1
            for s in range(K.N_SEATS):
                array[K.PILES + team] |= array[K.PLAYED + t * K.N_SEATS + s]
        winners = parts.winners
        array[LAST_TRICK_WINNER] = winners[-1] if winners else NOBODY
        array[K.NEXT_LEADER] = winners[-1] if winners else (view["dealer"] + 1) % K.N_SEATS
        if view["to_move"] is not None:
            _write_trick(array, view, parts.current, parts.sizes, parts.hand)
            K.determinize(array, seat, make_rng(seed))

    # -------------------------------------------------------------- display
    def render(self, state: State, seat: int | None = None) -> str:
        arr = state.array
        totals = state.totals
        lines = [
            f"Kozel, deal {state.deal_number}, dealer {state.dealer}, "
            f"penalty points: team 0 (seats 0, 2) {totals[0]}, team 1 (seats 1, 3) {totals[1]}"
        ]
        if state.deal_number == 0:
            return "\n".join(lines)
        trump = self.deck.name(int(arr[K.TRUMP_CARD]))
        lines.append(
            f"  trumps {SUIT_NAMES[trump[1]]} (shown card {trump}), "
            f"stock {self.options['stock'] - int(arr[K.STOCK_NEXT])} cards"
        )
        for s in range(K.N_SEATS):
            cards = self.hand_text(int(arr[K.HANDS + s]), seat is None or s == seat, self.names_of)
            lines.append(f"  seat {s}: {cards}")
        if state.phase in (PHASE_PLAY, K.PHASE_QUESTION):
            # the omniscient picture (seat None) shows face-down cards too
            plays = self._plays(arr, state.tricks_done, -1 if seat is None else seat, state.leader)
            shown = ", ".join(f"seat {p['seat']} {p['kind']}:{','.join(p['cards'])}" for p in plays)
            lines.append(f"  trick {state.tricks_done + 1}: {shown or '(nothing played yet)'}")
            if state.phase == K.PHASE_QUESTION:
                lines.append(f"  seat {state.to_move} is asked: molodka or pass?")
        piles = [bin(int(arr[K.PILES + t])).count("1") for t in range(K.N_TEAMS)]
        lines.append(f"  piles: team 0 {piles[0]} cards, team 1 {piles[1]} cards")
        return "\n".join(lines)


@dataclass(kw_only=True)
class _KozelView(ViewParts):
    """A Kozel view's cards and tricks (:meth:`_ViewReader.read`)."""

    hand: list[int]
    known_cards: list[list[int]]  # per seat: cards everyone knows it holds
    sizes: list[int]  # cards held per seat
    stock: int  # cards left in the stock
    cells: list[tuple]  # per play: (trick, seat, kind, known cards, number of '??')
    leaders: list[int]  # per completed trick
    winners: list[int]
    current: list[tuple]  # plays of the trick in progress: (seat, kind, known cards, number of '??')
    pool: list[int]  # the cards this seat has not seen, for the hidden places
    trump: int  # the shown trump card
    shown: set[int]  # every card shown face up


class _ViewReader:
    """Reads and checks a Kozel view for :meth:`Kozel._read_view`."""

    def __init__(self, game: Kozel, view: dict):
        self.game = game
        self.view = view
        self.deck = game.deck
        self.seat = view["seat"]
        self.full = game.options["hand"]  # a full hand: 4, or a small variant's (§3.18)
        self.trump_suit = -1
        # Nobody to move after a trick: the deal is over and counted, and its
        # discards were turned up (§3.8.3); the checks below make sure it is over.
        self.counted = view["to_move"] is None and bool(view["tricks_done"])

    # -- small readers
    def fail(self, message: str):
        raise InvalidViewError(message)

    def card_list(self, value, where: str, unknown_ok: bool) -> tuple[list[int], int]:
        """Known card indices and the number of ``??`` in a list of card texts."""
        if not isinstance(value, list):
            self.fail(f"{where} must be a list of cards, not {brief(value)}")
        known = [t for t in value if t != UNKNOWN_CARD]
        unknown = len(value) - len(known)
        if unknown and not unknown_ok:
            self.fail(f"{where} cannot hold unknown cards '??': this seat saw them")
        try:
            cards = self.deck.parse_many(known, what=where)
        except CardError as err:
            self.fail(str(err))
        return cards, unknown

    def seat_value(self, value, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < K.N_SEATS:
            self.fail(f"{where} must be a seat 0..{K.N_SEATS - 1}, not {brief(value)}")
        return value

    def record(self, cards, where: str):
        for c in cards:
            if c in self.located:
                self.fail(
                    f"card {self.deck.name(c)} appears twice in the view "
                    f"(in {self.located[c]} and {where})"
                )
            self.located[c] = where

    # -- tricks
    def read_plays(self, trick: dict, t: int, leader: int, complete: bool) -> list[tuple]:
        """``(seat, kind, known cards, unknown count)`` per play, checked."""
        where = f"trick {t + 1}"
        plays = trick["plays"]
        if not isinstance(plays, list):
            self.fail(f"{where}: 'plays' must be a list, not {brief(plays)}")
        if complete and len(plays) != K.N_SEATS:
            self.fail(f"{where} is complete but has {len(plays)} plays, not {K.N_SEATS}")
        if not complete and len(plays) >= K.N_SEATS:
            self.fail(f"{where} is in progress but has {len(plays)} plays")
        out = []
        size = 0
        winning: list[int] = []
        for i, play in enumerate(plays):
            pw = f"{where}, play {i + 1}"
            if not isinstance(play, dict) or set(play) != set(PLAY_KEYS):
                self.fail(f"{pw} must be an object with the fields {', '.join(PLAY_KEYS)}, not {brief(play)}")
            seat = self.seat_value(play["seat"], f"{pw} 'seat'")
            if seat != (leader + i) % K.N_SEATS:
                self.fail(f"{pw} is by seat {seat}, but seat {(leader + i) % K.N_SEATS} plays then")
            kind = play["kind"]
            allowed = ("lead", "molodka") if i == 0 else ("beat", "discard")
            if kind not in allowed:
                self.fail(f"{pw}: kind {brief(kind)} must be one of {', '.join(allowed)}")
            hidden_ok = kind == "discard" and seat != self.seat and not self.counted
            cards, unknown = self.card_list(play["cards"], f"{pw} 'cards'", hidden_ok)
            count = len(cards) + unknown
            if i == 0:
                size = count
                if not 1 <= size <= self.full or len({K.suit_of(c) for c in cards}) != 1:
                    self.fail(f"{pw}: a lead is 1 to {self.full} cards of one suit, "
                              f"not {brief(play['cards'])}")
                if kind == "molodka" and size != self.full:
                    self.fail(f"{pw}: a molodka is {self.full} cards, not {size}")
            elif count != size:
                self.fail(f"{pw} has {count} cards, but the trick is played with {size}")
            if kind == "beat" and not K.beats_set(_mask(cards), _mask(winning), self.trump_suit):
                self.fail(f"{pw}: {','.join(play['cards'])} does not beat the winning set")
            if kind in FACE_UP_KINDS:
                winning = cards
                missing = [c for c in cards if c not in self.shown]
                if missing:
                    self.fail(f"{pw}: face-up card {self.deck.name(missing[0])} is missing from 'shown'")
            elif seat != self.seat and not self.counted:
                hidden = [c for c in cards if c not in self.shown]
                if hidden:
                    self.fail(f"{pw}: seat {self.seat} cannot know the face-down {self.deck.name(hidden[0])}")
            if t == 0 and self.trump in cards and self.game.options["stock"]:
                self.fail(f"{pw}: the trump card {self.deck.name(self.trump)} lies in the stock "
                          "until the first draw")
            if self.trump in cards and not self.game.options["stock"] and seat != self.view["dealer"]:
                self.fail(f"{pw}: the trump card {self.deck.name(self.trump)} is the dealer's, "
                          f"not seat {seat}'s (docs/rules.md §3.19)")
            self.record(cards, pw)
            out.append((seat, TEXT_KIND[kind], cards, unknown))
        return out

    def read(self) -> _KozelView:
        """Check the view; its parts, and where the hidden cards go."""
        view = self.view
        deck = self.deck
        seat = self.seat
        to_move = view["to_move"]
        tricks_done = view["tricks_done"]
        totals = view["totals"]
        if any(totals[s] != totals[s % 2] or totals[s] % 2 for s in range(K.N_SEATS)):
            self.fail(f"totals {brief(totals)} must be each team's (even) penalty points, equal for partners")
        trump_text = view["trump_card"]
        try:
            self.trump = deck.parse(trump_text)
        except CardError as err:
            self.fail(f"view field 'trump_card': {err}")
        self.trump_suit = K.suit_of(self.trump)
        self.shown = set(want_cards(view, "shown", deck))
        hand = want_cards(view, "hand", deck)
        self.located: dict[int, str] = {}
        self.record(hand, "'hand'")
        known = view["known_cards"]
        if not isinstance(known, list) or len(known) != K.N_SEATS:
            self.fail(f"view field 'known_cards' must list {K.N_SEATS} card lists, not {brief(known)}")
        known_cards = [self.card_list(known[s], f"'known_cards' of seat {s}", False)[0]
                       for s in range(K.N_SEATS)]
        if sorted(known_cards[seat]) != sorted(c for c in hand if c in self.shown):
            self.fail(f"'known_cards' of seat {seat} must be its hand cards that were shown face up")
        for s in range(K.N_SEATS):
            if s != seat:
                self.record(known_cards[s], f"'known_cards' of seat {s}")
            if any(c not in self.shown for c in known_cards[s]):
                self.fail(f"'known_cards' of seat {s} lists a card that was never shown face up")

        completed = view["tricks"]
        if not isinstance(completed, list) or len(completed) != tricks_done:
            self.fail(f"view field 'tricks' must list the {tricks_done} completed tricks")
        hand_size, stock = self.full, self.game.options["stock"]
        cells = []  # (trick, seat, kind, known cards, unknown count)
        leaders, winners = [], []
        previous = None
        for t, trick in enumerate(completed):
            if not isinstance(trick, dict) or set(trick) != set(COMPLETED_TRICK_KEYS):
                fields = ", ".join(COMPLETED_TRICK_KEYS)
                self.fail(f"trick {t + 1} must be an object with the fields {fields}")
            leader = self.seat_value(trick["leader"], f"trick {t + 1} 'leader'")
            plays = self.read_plays(trick, t, leader, complete=True)
            if previous is not None and plays[0][1] == K.KIND_LEAD and leader != previous:
                self.fail(f"trick {t + 1} is led by seat {leader}, not by seat {previous} who won trick {t}")
            winner = [p[0] for p in plays if p[1] != K.KIND_DISCARD][-1]
            if trick["winner"] != winner:
                self.fail(
                    f"trick {t + 1}: the last beater, seat {winner}, wins it, not {brief(trick['winner'])}"
                )
            size = len(plays[0][2])
            hand_size -= size
            draws = min(size, stock // K.N_SEATS)
            hand_size += draws
            stock -= draws * K.N_SEATS
            cells += [(t, *p) for p in plays]
            leaders.append(leader)
            winners.append(winner)
            previous = winner

        sizes = [hand_size] * K.N_SEATS
        trick = view["trick"]
        current = []
        if to_move is None:
            if trick is not None:
                self.fail("view field 'trick' must be null when nobody is to move")
            if hand_size != 0 and tricks_done:
                self.fail("nobody is to move, but the deal is not over")
        else:
            if hand_size == 0 or tricks_done >= K.MAX_TRICKS:
                self.fail("the deal is over, so nobody can be to move")
            if not isinstance(trick, dict) or set(trick) != set(CURRENT_TRICK_KEYS):
                fields = ", ".join(CURRENT_TRICK_KEYS)
                self.fail(f"view field 'trick' must be an object with the fields {fields}")
            original = self.seat_value(trick["original_leader"], "trick 'original_leader'")
            if previous is not None and original != previous:
                self.fail(f"the trick in progress is led by seat {previous}, who won the last one")
            leader = view["leader"]
            current = self.read_plays(trick, tricks_done, leader, complete=False)
            declared = bool(current) and current[0][1] == K.KIND_MOLODKA
            if not declared and leader != original:
                self.fail(f"'leader' {leader} differs from the original leader {original} without a molodka")
            for p in current:
                sizes[p[0]] -= len(p[2]) + p[3]
            cells += [(tricks_done, *p) for p in current]
        if len(hand) != sizes[seat]:
            self.fail(f"seat {seat} should hold {sizes[seat]} cards at this point, not {len(hand)}")
        if view["hand_sizes"] != sizes:
            self.fail(f"hand_sizes {brief(view['hand_sizes'])} should be {sizes!r}")
        if view["stock_size"] != stock:
            self.fail(f"stock_size {brief(view['stock_size'])} should be {stock} after these tricks")
        in_stock = self.game.options["stock"] and tricks_done == 0
        if in_stock and (self.trump in hand or self.trump in self.shown):
            self.fail(f"the trump card {deck.name(self.trump)} lies in the stock until the first draw")
        if not self.game.options["stock"]:
            self.check_dealers_trump(hand, known_cards, cells, sizes)
        for s in range(K.N_SEATS):
            if len(known_cards[s]) > sizes[s]:
                self.fail(f"seat {s} holds {sizes[s]} cards, fewer than its known cards")
        unlocated = sorted(self.shown - set(self.located))
        if unlocated:
            self.fail(f"shown card {deck.name(unlocated[0])} is nowhere in the view")

        # Cards the seat cannot see fill the hidden places in any order; determinize
        # then redeals them properly from the seed. A small variant's deck (§3.18) leaves
        # some cards unused: hidden places too.
        outside = [c for c in self.located if not self.game.in_play(c)]
        if outside:
            self.fail(f"{deck.name(outside[0])} is not in the deck of these options "
                      f"(the top {self.game.options['ranks']} ranks of each suit)")
        in_play = self.game.cards_in_play()
        pool = [c for c in in_play if c not in self.located]
        places = sum(sizes[s] - len(known_cards[s]) for s in range(K.N_SEATS) if s != seat)
        places += sum(cell[4] for cell in cells) + stock
        places += len(in_play) - K.N_SEATS * self.full - self.game.options["stock"]
        if places != len(pool):
            self.fail(f"{len(pool)} unseen cards do not fill the {places} hidden places of the view")
        parts = _KozelView(
            phase=PHASE_PLAY, hand=hand, known_cards=known_cards, sizes=sizes, stock=stock, cells=cells,
            leaders=leaders, winners=winners, current=current, pool=pool, trump=self.trump,
            shown=self.shown,
        )
        if to_move is None:  # between deals, or the match is over
            if max(totals) >= K.LOSING_PENALTY:
                parts.phase = PHASE_MATCH_OVER
                parts.outcome = [0 if totals[s] >= K.LOSING_PENALTY else 2 for s in range(K.N_SEATS)]
            else:
                parts.phase = PHASE_DEAL_PENDING
        else:
            self.check_trick(trick, current, sizes)
            parts.phase = PHASE_PLAY if trick["asking"] is None else K.PHASE_QUESTION
        return parts

    def check_dealers_trump(self, hand, known_cards, cells, sizes):
        """Without a stock (docs/rules.md §3.19) the shown card is the dealer's: in its hand or
        among its plays, seen by the dealer, and where another seat cannot see it, one of the
        dealer's hidden cards."""
        dealer, trump, name = self.view["dealer"], self.trump, self.deck.name(self.trump)
        holders = [s for s in range(K.N_SEATS) if s != dealer and trump in known_cards[s]]
        if self.seat != dealer and trump in hand:
            holders.append(self.seat)
        if holders:
            self.fail(f"the trump card {name} is the dealer's (seat {dealer}), not seat {holders[0]}'s "
                      "(docs/rules.md §3.19)")
        if trump in self.located:
            return
        if self.seat == dealer:
            self.fail(f"seat {dealer} dealt itself the trump card {name}: it must be in its hand or "
                      "among its plays")
        room = sizes[dealer] - len(known_cards[dealer]) + sum(c[4] for c in cells if c[1] == dealer)
        if room == 0:
            self.fail(f"the trump card {name} is the dealer's, but seat {dealer} has no hidden card "
                      "that can be it")

    def check_trick(self, trick, current, sizes):
        """The molodka questions of the trick in progress, and who is to move."""
        view = self.view
        to_move, leader = view["to_move"], view["leader"]
        declared = bool(current) and current[0][1] == K.KIND_MOLODKA
        asked = trick["asked"]
        if not isinstance(asked, list):
            self.fail(f"trick 'asked' must list distinct seats, not {brief(asked)}")
        asked = [self.seat_value(s, "trick 'asked'") for s in asked]  # seats first: [[]] is no seat
        if len(set(asked)) != len(asked):
            self.fail(f"trick 'asked' must list distinct seats, not {brief(asked)}")
        asking = trick["asking"]
        played = {p[0] for p in current}
        if asked and sizes[asked[0]] + (len(current[0][2]) if asked[0] in played else 0) != self.full:
            self.fail(f"seats {brief(asked)} were asked about a molodka, but hands are not full")
        if asking is None:
            if to_move != (leader + len(current)) % K.N_SEATS:
                self.fail(f"seat {to_move} cannot be to move: seat {leader} leads and "
                          f"{len(current)} play(s) were made")
        else:
            self.seat_value(asking, "trick 'asking'")
            if asking != to_move or asking not in asked or asking in played or declared:
                self.fail(f"seat {brief(asking)} cannot be asked about a molodka now")
            if sizes[asking] != self.full:
                self.fail(f"seat {asking} holds {sizes[asking]} cards: no molodka to ask about")


def _write_trick(arr, view: dict, current: list, sizes: list[int], hand: list[int]) -> None:
    """The trick in progress (checked by :meth:`_ViewReader.check_trick`): winning
    set, molodka questions; the seat's own hand must fit the questions."""
    seat, leader, trick = view["seat"], view["leader"], view["trick"]
    t = view["tricks_done"]
    arr[K.TRICK_LEADERS + t] = leader
    arr[K.ORIGINAL_LEADER] = trick["original_leader"]
    arr[K.N_PLAYED] = len(current)
    arr[K.SET_SIZE] = len(current[0][2]) if current else 0
    face_up = [p for p in current if p[1] != K.KIND_DISCARD]
    arr[K.WINNING_SET] = _mask(face_up[-1][2]) if face_up else 0
    arr[K.WINNING_SEAT] = face_up[-1][0] if face_up else -1
    declared = bool(current) and current[0][1] == K.KIND_MOLODKA
    arr[K.MOLODKA_DECLARED] = int(declared)
    arr[K.ASKED] = sum(1 << s for s in trick["asked"])
    if trick["asking"] is not None:
        arr[K.QUESTION_POS] = (trick["asking"] - trick["original_leader"]) % K.N_SEATS
    played = {p[0] for p in current}
    full = int(arr[K.DEALT_HAND])
    if seat not in played and not declared and sizes[seat] == full:
        holds = bool(K.holds_molodka(_mask(hand), full))
        must, must_not = K._molodka_constraints(arr, -1)
        if (must >> seat & 1 and not holds) or (must_not >> seat & 1 and holds):
            raise InvalidViewError(f"seat {seat}'s hand contradicts the molodka questions of this trick")
