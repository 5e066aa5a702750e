"""Aluette for people and tools: notation, records, views (docs/rules.md §4, docs/records.md)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from math import comb

import numpy as np

from ...errors import InvalidRecordError, InvalidViewError, OptionError, brief
from ..cards import ALUETTE_DECK
from ..game import DealLog, Game, State
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
    want_int_list,
    write_trick,
)
from . import INFO, replay
from . import kernels as K

GAME_KEYS = ("hand", "trick", "played", "tricks_won", "first_win", "last_win", "hand_sizes")
VIEW_KEYS = COMMON_KEYS + GAME_KEYS
OPTIONAL_KEYS = ("legal_actions", "hand_sizes")

STRENGTH_NAMES = {
    "3o": "Monsieur",
    "3c": "Madame",
    "2o": "le Borgne",
    "2c": "la Vache",
    "9c": "Grand-neuf",
    "9o": "Petit-neuf",
    "2b": "Deux de chêne",
    "2e": "Deux d'écrit",
}
"""The eight unique top cards by name, strongest first."""
SUIT_ORDER = "ocbe"
"""The suits as docs/rules.md §4.1 lists them: coins, cups, clubs, swords."""


def strength(card: str) -> int:
    """Aluette strength of a card, 18 (Monsieur) down to 0 (``3b``, ``3e``).

    >>> strength("3o"), strength("Ab") == strength("Ae"), strength("3e")
    (18, True, 0)
    """
    return int(K.STRENGTH[ALUETTE_DECK.parse(card)])


def trick_winner(cards: list[str], leader: int) -> int | None:
    """Seat that wins a complete trick led by ``leader``, or ``None`` if it is pourri.

    >>> trick_winner(["Ab", "Kc", "3o", "4e"], leader=1)
    3
    >>> trick_winner(["Ab", "Kc", "Ae", "4e"], leader=1) is None
    True
    """
    indices = np.array([ALUETTE_DECK.parse(c) for c in cards], dtype=np.int64)
    pos = int(K.trick_winner_position(indices, 0, len(indices)))
    return None if pos < 0 else (leader + pos) % K.N_SEATS


@dataclass(kw_only=True)
class _AluetteView(ViewParts):
    """An Aluette view's cards and trick record (:meth:`Aluette._read_view`)."""

    hand: list[int]
    trick: list[int]
    played: list[int]
    sizes: list[int]  # cards held per seat
    won: list[int]  # tricks won per seat
    first: list[int | None]  # index of each seat's first and latest won trick
    last: list[int | None]


class Aluette(Game):
    """Aluette (la Vache): four players in two partnerships, a five-deal match.

    >>> game = Aluette()
    >>> state = game.new_match(seed=5)
    >>> state.to_move, len(state.legal_actions())
    (1, 9)
    """

    replay_rules = replay

    info = INFO
    kernels = K
    deck = ALUETTE_DECK
    view_keys = VIEW_KEYS
    view_optional_keys = OPTIONAL_KEYS
    view_max_tricks = K.TRICKS_PER_DEAL
    view_max_total = K.DEALS_PER_MATCH * K.MAX_DEAL_POINTS
    deal_fields = ("hands", "undealt")

    def view_schema_properties(self) -> dict:
        """The shapes of the fields Aluette adds to a view (:mod:`slagwerk.engine.view_schema`)."""
        from ..view_schema import cards, count, per_seat, seats

        trick_number = {"anyOf": [count(K.TRICKS_PER_DEAL), {"type": "null"}]}
        return {"hand": cards(self.deck), "trick": cards(self.deck), "played": cards(self.deck),
                "tricks_won": per_seat(count(K.TRICKS_PER_DEAL), seats(self)),
                "first_win": per_seat(trick_number, seats(self)),
                "last_win": per_seat(trick_number, seats(self)),
                "hand_sizes": per_seat(count(self.deck.size), seats(self))}

    # ------------------------------------------------------------ notation
    def action_text(self, state: State, action: int, seat: int | None = None) -> str:
        return self.deck.name(action)

    def card_order(self) -> tuple[list[list[str]], dict[str, str]]:
        """The nineteen strength classes of docs/rules.md §4.3, strongest first.

        >>> classes, names = Aluette().card_order()
        >>> len(classes), classes[0], classes[8], names["2o"]
        (19, ['3o'], ['Ao', 'Ac', 'Ab', 'Ae'], 'le Borgne')
        """
        classes = [[] for _ in range(K.N_STRENGTHS)]
        for card in range(self.deck.size):
            classes[K.TOP_STRENGTH - int(K.STRENGTH[card])].append(self.deck.name(card))
        for cards in classes:  # in the rules' order of suits (§4.1)
            cards.sort(key=lambda name: SUIT_ORDER.index(name[1]))
        return classes, dict(STRENGTH_NAMES)

    # ---------------------------------------------------------------- deals
    def deal_to_json(self, vector: np.ndarray) -> dict:
        """The hands and the deck's cards not dealt as ``undealt`` (the twelve of the full game;
        a small variant's cards out of its deck are never listed, §4.11)."""
        record = self.hands_to_json(vector, K.N_SEATS, self.options["hand"])
        unused = [name for name in record.pop("undealt", []) if self.in_play(self.deck.parse(name))]
        if unused:
            record["undealt"] = unused
        return record

    def deal_from_json(self, deal: dict) -> np.ndarray:
        hand = self.options["hand"]
        if self.options["cards"] == K.DECK_SIZE:  # every card in play: the plain hands and undealt
            return self.hands_from_json(deal, K.N_SEATS, hand)
        deal = dict(deal)
        undealt = deal.pop("undealt", None)
        vector = self.hands_from_json(deal, K.N_SEATS, hand)
        dealt = [int(c) for c in vector[: K.N_SEATS * hand]]
        outside = [c for c in dealt if not self.in_play(c)]
        if outside:
            raise InvalidRecordError(f"{self.deck.name(outside[0])} is not in the deck of {self!r} "
                                     f"({self._deck_text()})")
        rest = [c for c in self.cards_in_play() if c not in dealt]
        if undealt is not None:
            unused = self.deck.parse_many(undealt, what="'undealt'")
            if sorted(unused) != rest:
                raise InvalidRecordError(f"'undealt' must be the cards of the deck not dealt: "
                                         f"{' '.join(self.deck.name(c) for c in rest) or 'none'}")
            rest = unused
        out_of_play = [c for c in range(K.DECK_SIZE) if not self.in_play(c)]
        return np.array([*dealt, *rest, *out_of_play], dtype=np.int64)

    # ---------------------------------------------------- small variants
    def _check_options(self):
        super()._check_options()
        cards, hand = self.options["cards"], self.options["hand"]
        if K.N_SEATS * hand > cards:
            raise OptionError(f"aluette option hand={hand} is too many: a deck of {cards} cards has "
                              f"{cards // K.N_SEATS} a player at most")

    def cards_in_play(self) -> list[int]:
        return sorted(self._deck)

    def in_play(self, card: int) -> bool:
        """Whether ``card`` is in the deck of this game's options (§4.11)."""
        return card in self._deck

    @cached_property
    def _deck(self) -> frozenset[int]:
        return frozenset(int(c) for c in K.DECK_ORDER[: self.options["cards"]])

    def _deck_text(self) -> str:
        cards = self.options["cards"]
        text = f"the first {cards} cards of the order of docs/rules.md §4.11"
        if cards <= 12:
            text += ": " + " ".join(self.deck.name(int(c)) for c in K.DECK_ORDER[:cards])
        return text

    def deal_count(self) -> int:
        cards, hand = self.options["cards"], self.options["hand"]
        count = 1
        for seat in range(K.N_SEATS):
            count *= comb(cards - seat * hand, hand)
        return count

    def all_deals(self):
        """Every deal of the deck in play: the four hands as sets, seat by seat, each vector
        followed by the deck's unused cards and then the cards out of it."""
        cards, hand = self.cards_in_play(), self.options["hand"]
        out_of_play = [c for c in range(K.DECK_SIZE) if not self.in_play(c)]

        def hands(left, seats):
            if seats == 0:
                yield [], left
                return
            for first in combinations(left, hand):
                rest = [c for c in left if c not in first]
                for others, unused in hands(rest, seats - 1):
                    yield [*first, *others], unused

        for dealt, unused in hands(cards, K.N_SEATS):
            yield np.array([*dealt, *unused, *out_of_play], dtype=np.int64)

    # ---------------------------------------------------------------- views
    def view(self, state: State, seat: int) -> dict:
        """What ``seat`` knows: its hand, every played card, the tricks won so far.

        ``first_win`` / ``last_win`` give per seat the index (0..8 in the full game) of its
        first and latest won trick of this deal (``null`` when none): the
        latest one settles ties for most tricks, the first one Mordienne.
        """
        arr = state.array
        view = common_view(state, seat)
        n = int(arr[K.N_IN_TRICK]) if state.phase == PHASE_PLAY else 0
        trick = [self.deck.name(int(c)) for c in arr[K.TRICK : K.TRICK + n]]
        gone = self.deck.names(int(arr[K.GONE]))

        def index_or_none(v):
            return None if v < 0 else int(v)

        view.update(
            hand=self.deck.names(int(arr[K.HANDS + seat])),
            trick=trick,
            played=[c for c in gone if c not in trick],
            tricks_won=[int(v) for v in arr[K.TRICKS_WON : K.TRICKS_WON + K.N_SEATS]],
            first_win=[index_or_none(v) for v in arr[K.FIRST_WIN : K.FIRST_WIN + K.N_SEATS]],
            last_win=[index_or_none(v) for v in arr[K.LAST_WIN : K.LAST_WIN + K.N_SEATS]],
            hand_sizes=[bin(int(arr[K.HANDS + s])).count("1") for s in range(K.N_SEATS)],
        )
        return view

    def _read_view(self, view: dict) -> _AluetteView:
        """A non-empty ``history`` must agree with the other fields and is kept
        as the state's log; an empty one is accepted."""
        hand, trick, played = want_disjoint_cards(view, ("hand", "trick", "played"), self.deck)
        outside = [c for c in hand + trick + played if not self.in_play(c)]
        if outside:
            raise InvalidViewError(f"{self.deck.name(outside[0])} is not in the deck of these options "
                                   f"({self._deck_text()})")
        tricks = self.options["hand"]  # tricks per deal
        won = want_int_list(view, "tricks_won", K.N_SEATS, 0, tricks)
        first = _want_indices(view, "first_win", tricks)
        last = _want_indices(view, "last_win", tricks)
        leader, to_move = view["leader"], view["to_move"]
        tricks_done, deal_number = view["tricks_done"], view["deal_number"]
        complete = to_move is None

        if deal_number > K.DEALS_PER_MATCH:
            raise InvalidViewError(
                f"deal_number {deal_number} is past the match's {K.DEALS_PER_MATCH} deals"
            )
        if complete and (tricks_done != tricks or trick):
            raise InvalidViewError(
                f"nobody is to move, yet the deal is unfinished ({tricks_done} tricks done)"
            )
        if not complete and tricks_done >= tricks:
            raise InvalidViewError(f"seat {to_move} cannot be to move: all {tricks} tricks are done")
        match_over = complete and deal_number == K.DEALS_PER_MATCH
        # After a deal is scored the state already names the next dealer.
        deal_dealer = (view["dealer"] - 1) % K.N_SEATS if complete and not match_over else view["dealer"]

        _check_trick_record(won, first, last, tricks_done)
        winners = [s for s in range(K.N_SEATS) if last[s] is not None]
        expected_leader = (
            max(winners, key=lambda s: last[s]) if winners else (deal_dealer + 1) % K.N_SEATS
        )
        if leader != expected_leader:
            raise InvalidViewError(
                f"leader {leader} contradicts the tricks won: seat {expected_leader} must lead"
            )
        check_trick_turn(view, trick, K.N_SEATS)
        check_complete_tricks(played, tricks_done, K.N_SEATS)
        sizes = one_card_trick_hand_sizes(view, hand, trick, tricks, K.N_SEATS)
        _check_points(view, won, first, last, complete, deal_number, tricks)
        phase, outcome = PHASE_PLAY, None
        if match_over:
            mine, theirs = view["totals"][0], view["totals"][1]
            team0 = 2 if mine > theirs else int(mine == theirs)
            phase, outcome = PHASE_MATCH_OVER, [team0, 2 - team0] * 2
        elif complete:
            phase = PHASE_DEAL_PENDING
        return _AluetteView(
            phase=phase, outcome=outcome, history=_history_log(view, deal_dealer, trick, played),
            hand=hand, trick=trick, played=played, sizes=sizes, won=won, first=first, last=last,
        )

    def _write_view(self, array: np.ndarray, view: dict, parts: _AluetteView, seed: int) -> None:
        known = set(parts.hand) | set(parts.trick) | set(parts.played)
        known |= {c for c in range(K.DECK_SIZE) if not self.in_play(c)}  # never dealt: not hidden
        masks, leftover = deal_hidden(view["seat"], parts.hand, known, K.DECK_SIZE, parts.sizes, seed)
        array[K.HANDS : K.HANDS + K.N_SEATS] = masks
        array[K.UNDEALT] = sum(1 << c for c in leftover)
        write_trick(array, parts.trick, parts.played, K.TRICK, K.N_IN_TRICK, K.GONE)
        for s in range(K.N_SEATS):
            array[K.TRICKS_WON + s] = parts.won[s]
            array[K.FIRST_WIN + s] = -1 if parts.first[s] is None else parts.first[s]
            array[K.LAST_WIN + s] = -1 if parts.last[s] is None else parts.last[s]
        array[K.SPOILED] = view["tricks_done"] - sum(parts.won)

    # -------------------------------------------------------------- display
    def render(self, state: State, seat: int | None = None) -> str:
        arr = state.array
        totals = state.totals
        lines = [
            f"Aluette, deal {state.deal_number} of {K.DEALS_PER_MATCH}, dealer {state.dealer}, "
            f"match points: team 0+2 {totals[0]}, team 1+3 {totals[1]}"
        ]
        for s in range(K.N_SEATS):
            cards = self.hand_text(int(arr[K.HANDS + s]), seat is None or s == seat,
                                   lambda mask: sorted(self.deck.names(mask), key=strength, reverse=True))
            lines.append(f"  seat {s}: {cards}   tricks {int(arr[K.TRICKS_WON + s])}")
        if state.phase == PHASE_PLAY:
            n = int(arr[K.N_IN_TRICK])
            spoiled = int(arr[K.SPOILED])
            head = f"  trick {state.tricks_done + 1}, led by seat {state.leader}"
            if spoiled:
                head += f" ({spoiled} spoiled so far)"
            cards = " ".join(self.deck.name(int(c)) for c in arr[K.TRICK : K.TRICK + n])
            lines.append(f"{head}: {cards}" if n else head)
        elif state.deal_pending and state.deal_complete:
            lines.append(f"  deal scored: {state.deal_points}")
        return "\n".join(lines)


# ------------------------------------------------------------------ helpers


def _want_indices(view: dict, key: str, tricks: int) -> list[int | None]:
    """Per-seat trick indices ``0..tricks-1`` (0..8 in the full game) or ``null``."""
    value = view[key]
    if (
        not isinstance(value, list)
        or len(value) != K.N_SEATS
        or any(
            v is not None
            and (isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < tricks)
            for v in value
        )
    ):
        raise InvalidViewError(
            f"view field {key!r} must be {K.N_SEATS} trick indices 0..{tricks - 1} or null, "
            f"not {brief(value)}"
        )
    return value


def _check_trick_record(won, first, last, tricks_done) -> None:
    """Tricks won, first and latest wins must describe one possible deal so far."""
    if sum(won) > tricks_done:
        raise InvalidViewError(f"tricks_won {won!r} add up to more than the {tricks_done} tricks done")
    taken: dict[int, int] = {}
    for s in range(K.N_SEATS):
        if (won[s] == 0) != (first[s] is None) or (won[s] == 0) != (last[s] is None):
            raise InvalidViewError(
                f"seat {s} won {won[s]} trick(s) but first_win is {first[s]!r}, last_win {last[s]!r}"
            )
        if won[s] == 0:
            continue
        if not first[s] <= last[s] < tricks_done or last[s] - first[s] + 1 < won[s]:
            raise InvalidViewError(
                f"seat {s} cannot have won {won[s]} trick(s) from trick index {first[s]} "
                f"to {last[s]} with {tricks_done} tricks done"
            )
        if (won[s] == 1) != (first[s] == last[s]):
            raise InvalidViewError(f"seat {s}: first_win and last_win disagree with {won[s]} trick(s)")
        for index in {first[s], last[s]}:
            if index in taken:
                raise InvalidViewError(f"trick index {index} is won by both seat {taken[index]} and seat {s}")
            taken[index] = s


def _check_points(view, won, first, last, complete, deal_number, tricks) -> None:
    """Deal points and totals must fit the tricks and the deals played."""
    points, totals = view["deal_points"], view["totals"]
    for s in range(2):
        if totals[s] != totals[s + 2] or points[s] != points[s + 2]:
            raise InvalidViewError(
                f"partners {s} and {s + 2} must share totals and deal_points: {totals!r}, {points!r}"
            )
    if complete:
        scratch = np.zeros(K.STATE_SIZE, dtype=np.int64)
        for s in range(K.N_SEATS):
            scratch[K.TRICKS_WON + s] = won[s]
            scratch[K.FIRST_WIN + s] = -1 if first[s] is None else first[s]
            scratch[K.LAST_WIN + s] = -1 if last[s] is None else last[s]
        winner, score = K.deal_winner(scratch, tricks)
        expected = [0] * K.N_SEATS
        if winner >= 0:
            for s in range(K.N_SEATS):
                if s % 2 == winner % 2:
                    expected[s] = int(score)
        if points != expected:
            raise InvalidViewError(f"deal_points {points!r} should be {expected!r} for these tricks")
    elif any(points):
        raise InvalidViewError(f"deal_points {points!r} must be zero until the deal is scored")
    deals_scored = deal_number - (0 if complete else 1)
    if totals[0] + totals[1] > K.MAX_DEAL_POINTS * deals_scored:
        raise InvalidViewError(
            f"totals {totals!r} exceed {K.MAX_DEAL_POINTS} match points per deal over "
            f"{deals_scored} scored deal(s)"
        )
    if complete and (totals[0] < points[0] or totals[1] < points[1]):
        raise InvalidViewError(f"totals {totals!r} do not include this deal's points {points!r}")


def _history_log(view, dealer, trick, played) -> DealLog | None:
    """The deal's log from a non-empty ``history``, checked against the view; else ``None``."""
    history = view["history"]
    if not history:
        return None
    deck = ALUETTE_DECK
    log = DealLog(dealer=dealer, vector=np.zeros(0, dtype=np.int64))
    leader = (dealer + 1) % K.N_SEATS
    won = [0] * K.N_SEATS
    first: list[int | None] = [None] * K.N_SEATS
    last: list[int | None] = [None] * K.N_SEATS
    current: list[int] = []
    for i, item in enumerate(history):
        if not isinstance(item, dict) or set(item) != {"seat", "action"}:
            raise InvalidViewError(f"history entry {i} must be {{'seat', 'action'}}, not {brief(item)}")
        seat = (leader + len(current)) % K.N_SEATS
        if item["seat"] != seat:
            raise InvalidViewError(
                f"history entry {i}: seat {brief(item['seat'])} played, but seat {seat} was to"
            )
        try:
            card = deck.parse(item["action"])
        except ValueError as err:
            raise InvalidViewError(f"history entry {i}: {err}") from None
        current.append(card)
        log.seats.append(seat)
        log.actions.append(card)
        log.texts.append(deck.name(card))
        log.seen.append([deck.name(card)] * K.N_SEATS)
        if len(current) == K.N_SEATS:
            pos = int(K.trick_winner_position(np.array(current, dtype=np.int64), 0, K.N_SEATS))
            index = len(log.trick_winners)
            if pos < 0:
                log.trick_winners.append(None)
            else:
                leader = (leader + pos) % K.N_SEATS
                log.trick_winners.append(leader)
                won[leader] += 1
                first[leader] = index if first[leader] is None else first[leader]
                last[leader] = index
            current = []
    if len(log.trick_winners) != view["tricks_done"] or current != trick:
        raise InvalidViewError("history disagrees with tricks_done and the trick on the table")
    if sorted(log.actions[: K.N_SEATS * view["tricks_done"]]) != sorted(played):
        raise InvalidViewError("history disagrees with the played cards")
    if (won, first, last) != (view["tricks_won"], view["first_win"], view["last_win"]):
        raise InvalidViewError("history disagrees with tricks_won, first_win or last_win")
    if len(set(log.actions)) != len(log.actions):
        raise InvalidViewError("history plays a card twice")
    if view["to_move"] is None:
        log.points = list(view["deal_points"])
    return log
