"""The friendly Python API over the kernels: :class:`Game` and :class:`State`.

People and tools use these (legal actions in notation, apply by notation,
pretty printing, views, records); the hot path (search, playouts) calls the
game's kernels on ``State.array`` (through :mod:`slagwerk.engine.dispatch`).

>>> from slagwerk.engine import make_game
>>> game = make_game("coins", target=10)
>>> state = game.new_match(seed=7)        # first deal dealt from seed 7
>>> state.to_move, len(state.legal_actions())
(1, 16)
>>> state.legal_texts()[:3]
['3c', 'Nc', 'Ac']
>>> state.apply("3c")                     # by notation (checked); returns the action
1
>>> state.to_move
2
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..errors import IllegalActionError, InvalidRecordError, OptionError, brief
from .bits import make_rng
from .cards import Deck
from .spec import GameInfo, OptionSpec
from .state import (
    DEAL_COMPLETE,
    DEAL_NUMBER,
    DEAL_POINTS,
    DEALER,
    LAST_TRICK_WINNER,
    LEADER,
    OUTCOME,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
)
from .views import ViewParts, check_keys, read_common, read_options, write_common, write_phase


@dataclass
class DealLog:
    """One deal as it happened: dealer, deal vector, actions and trick results.

    ``seen[i][s]`` is how seat ``s`` saw action ``i`` when it was made (Kozel
    hides face-down discards); :meth:`seen_by` is how the seat knows the
    actions now, used to build views.
    """

    dealer: int
    vector: np.ndarray
    actions: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)
    seen: list[list[str]] = field(default_factory=list)
    trick_winners: list = field(default_factory=list)
    points: list | None = None

    def seen_by(self, seat: int, counting_reveals: bool) -> list[str]:
        """Each action as ``seat`` knows it: as it saw it played, or in full once
        the deal is counted where ``counting_reveals`` (the game's
        ``counting_reveals_actions``)."""
        if counting_reveals and self.points is not None:
            return list(self.texts)
        return [seen[seat] for seen in self.seen]


class Game(ABC):
    """A game with its options. Subclasses describe one game's notation and views.

    A subclass sets ``info`` (its :class:`GameInfo`, which gives it ``name`` and
    ``option_specs``), ``kernels`` (its kernel module) and ``deck``, and implements
    the notation (:meth:`action_text`), the deal vector's JSON form and the views.
    """

    info: ClassVar[GameInfo]
    name: ClassVar[str]
    kernels: ClassVar[object]
    deck: ClassVar[Deck]
    option_specs: ClassVar[dict[str, OptionSpec]]
    deal_fields: ClassVar[tuple[str, ...]] = ("hands",)
    """The fields of a deal's record form (besides ``dealer`` and ``actions``)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "info" in cls.__dict__:  # a game's name and options are its declaration's
            cls.name = cls.info.name
            cls.option_specs = cls.info.options

    def __init__(self, /, **options):
        unknown = sorted(set(options) - set(self.option_specs))
        if unknown:
            valid = ", ".join(sorted(self.option_specs)) or "none"
            raise OptionError(
                f"unknown option {brief(unknown[0])} for {self.name} (valid options: {valid})"
            )
        values = {}
        for key, spec in self.option_specs.items():
            value = options.get(key, spec.default)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise OptionError(f"{self.name} option {key!r} must be an integer, not {brief(value)}")
            if not spec.low <= int(value) <= spec.high:
                raise OptionError(
                    f"{self.name} option {key}={brief(value)} is out of range "
                    f"({spec.low}..{spec.high}: {spec.doc})"
                )
            values[key] = int(value)
        self.options = values
        self._check_options()
        self.options_array = np.array(
            [values[k] for k in self.kernels.OPTION_NAMES], dtype=np.int64
        )

    def _check_options(self):
        """Cross-option checks (e.g. ``first_dealer < players``)."""
        if "first_dealer" in self.options and self.options["first_dealer"] >= self.n_players:
            raise OptionError(
                f"{self.name} option first_dealer={self.options['first_dealer']} "
                f"is not a seat (0..{self.n_players - 1})"
            )

    def __repr__(self):
        opts = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"

    @property
    def team_game(self) -> bool:
        return self.info.team_game

    @property
    def n_players(self) -> int:
        return int(self.kernels.N_SEATS)

    @property
    def game_id(self) -> int:
        return int(self.kernels.GAME_ID)

    # ------------------------------------------------------------- states

    def new_match(self, seed: int | None = None) -> State:
        """A new match. With ``seed``, its first deal is dealt at random from it."""
        array = np.zeros(self.kernels.STATE_SIZE, dtype=np.int64)
        self.kernels.init_match(array, self.options_array)
        state = State(self, array)
        if seed is not None:
            state.deal(rng=make_rng(seed))
        return state

    def state_from_array(self, array: np.ndarray) -> State:
        """Wrap a kernel state array (no history) as a :class:`State`."""
        return State(self, np.array(array, dtype=np.int64))

    # ------------------------------------------------------------ notation

    @abstractmethod
    def action_text(self, state: State, action: int, seat: int | None = None) -> str:
        """Notation of ``action`` in ``state`` (before it is applied).

        ``seat`` is the viewpoint: ``None`` sees everything (records); a seat
        sees only what it may (Koetsieren names a blind forehead play by slot).
        """

    def seen_text(self, state: State, action: int, seat: int) -> str:
        """How ``seat`` sees ``action`` once it has been played (default: all of it)."""
        return self.action_text(state, action)

    def parse_action(self, state: State, text: str) -> int:
        """The legal action written ``text``; :class:`IllegalActionError` otherwise."""
        if not isinstance(text, str):
            raise IllegalActionError(f"an action is written as text, not {brief(text)}")
        legal = state.legal_actions()
        seat = state.to_move
        for action in legal:
            if text in (self.action_text(state, action), self.action_text(state, action, seat)):
                return action
        raise IllegalActionError(self.explain_illegal(state, text, legal))

    def parse_own_action(self, state: State, text: str) -> int:
        """The legal action ``text`` as the mover itself may write it: what
        :meth:`parse_action` accepts, except a card the mover cannot see (Koetsieren's
        own forehead cards are played blind, by slot). Give it a state rebuilt from the
        mover's view (:meth:`state_from_view`): then neither what is accepted nor the
        reason for a refusal depends on a card hidden from the mover."""
        action = self.parse_action(state, text)
        own = self.action_text(state, action, state.to_move)
        if text != own and own != self.action_text(state, action):
            raise IllegalActionError(self.explain_illegal(state, text, state.legal_actions()))
        return action

    def explain_illegal(self, state: State, text: str, legal: list[int]) -> str:
        """Why ``text`` is not legal (a game may give a more specific reason)."""
        seat = state.to_move
        if state.is_terminal:
            return f"{brief(text)}: the match is over"
        if state.deal_pending:
            return f"{brief(text)}: no deal is in progress"
        options = ", ".join(self.action_text(state, a, seat) for a in legal)
        return f"{brief(text)} is not legal for seat {seat} (legal: {options})"

    def barred_actions(self, state: State) -> list[str]:
        """Actions the player to move might expect to have that the rules bar right
        now (a page shows them greyed out; :meth:`explain_illegal` says why).
        Default: none."""
        return []

    def card_order(self) -> tuple[list[list[str]], dict[str, str]] | None:
        """The cards by strength, strongest first, in classes of equal cards, and
        the names of named cards, for a game whose cards rank the same in every
        trick (Aluette); ``None`` when the order depends on the deal."""
        return None

    def legend(self) -> list[str]:
        """A key to the cards for people at a terminal: the deck's codes
        (:meth:`~slagwerk.engine.cards.Deck.legend`), the suits' cycle where the rules make one,
        and the strength classes where they replace the ranks' order.

        >>> from slagwerk.engine import make_game
        >>> make_game("coins").legend()[-1]
        'each suit beats the next: cups > coins > swords > clubs > cups (docs/rules.md §1)'
        """
        from .cards import SUIT_NAMES

        lines = self.deck.legend()
        cycle = self.info.suit_cycle
        if cycle:
            names = [SUIT_NAMES[self.deck.family][s] for s in cycle + cycle[0]]
            lines.append(f"each suit beats the next: {' > '.join(names)} ({self.info.rules})")
        order = self.card_order()
        if order is not None:
            lines[1] = (f"the ranks do not say which card is stronger; strongest first, equal cards "
                        f"together ({self.info.rules}): " + ", ".join(" ".join(c) for c in order[0]))
        return lines

    # ---------------------------------------------------------------- deals

    @abstractmethod
    def deal_to_json(self, vector: np.ndarray) -> dict:
        """The record form of a deal vector (hands, and stock or undealt cards)."""

    @abstractmethod
    def deal_from_json(self, deal: dict) -> np.ndarray:
        """A deal vector from its record form; :class:`InvalidRecordError` if malformed."""

    def cards_in_play(self) -> list[int]:
        """The cards a deal of this game's options is dealt from (the whole deck, unless a
        small variant's options shrink it)."""
        return list(range(self.deck.size))

    def deal_count(self) -> int:
        """How many distinct deals :meth:`all_deals` lists.

        :raises OptionError: for a game that does not list its deals."""
        raise self._lists_no_deals()

    def all_deals(self):
        """Every distinct deal vector of this game's options, each once, in a fixed order
        (for exact traversal of small variants)."""
        raise self._lists_no_deals()

    def _lists_no_deals(self) -> OptionError:
        return OptionError(f"{self.name} does not list its deals (only small variants do: "
                           f"docs/rules.md §1.10, §2.15, §3.18, §4.11)")

    def hands_to_json(self, vector: np.ndarray, n_hands: int, hand_size: int) -> dict:
        """The record form of a deal of ``n_hands`` equal hands followed by the
        undealt cards (if the deck has any): ``{"hands": [...], "undealt": [...]}``."""
        names = [self.deck.name(c) for c in vector]
        dealt = n_hands * hand_size
        record = {"hands": [names[s * hand_size : (s + 1) * hand_size] for s in range(n_hands)]}
        if dealt < self.deck.size:
            record["undealt"] = names[dealt:]
        return record

    def hands_from_json(self, deal: dict, n_hands: int, hand_size: int) -> np.ndarray:
        """The deal vector of :meth:`hands_to_json`'s form. ``undealt`` may be left
        out (the cards follow from the hands); :class:`InvalidRecordError` otherwise."""
        hands = deal.get("hands")
        if not isinstance(hands, list) or len(hands) != n_hands:
            raise InvalidRecordError(f"'hands' must list {n_hands} hands, not {brief(hands)}")
        cards: list[int] = []
        for seat, hand in enumerate(hands):
            parsed = self.deck.parse_many(hand, what=f"hand of seat {seat}")
            if len(parsed) != hand_size:
                raise InvalidRecordError(f"hand of seat {seat} has {len(parsed)} cards, not {hand_size}")
            cards.extend(parsed)
        if len(set(cards)) != len(cards):
            dup = sorted({self.deck.name(c) for c in cards if cards.count(c) > 1})
            raise InvalidRecordError(f"a card is dealt twice: {', '.join(dup)}")
        dealt = set(cards)
        rest = [c for c in range(self.deck.size) if c not in dealt]
        if "undealt" in deal:
            undealt = self.deck.parse_many(deal["undealt"], what="'undealt'")
            if sorted(undealt) != rest:
                named = sorted(self.deck.name(c) for c in undealt if c in dealt)
                if named:
                    raise InvalidRecordError(f"'undealt' lists dealt cards: {', '.join(named)}")
                raise InvalidRecordError(f"'undealt' must be the {len(rest)} cards not in a hand, "
                                         f"not {len(undealt)} cards {brief(deal['undealt'])}")
            rest = undealt
        return np.array(cards + rest, dtype=np.int64)

    # ---------------------------------------------------------------- views

    @abstractmethod
    def view(self, state: State, seat: int) -> dict:
        """The JSON view of ``seat``: everything it knows, nothing it cannot see."""

    view_keys: ClassVar[tuple[str, ...]]
    """Every field of the game's views: :data:`~slagwerk.engine.views.COMMON_KEYS`
    and the game's own."""
    view_optional_keys: ClassVar[tuple[str, ...]] = ("legal_actions",)
    """Fields of :attr:`view_keys` that a view may leave out."""

    def view_schema_properties(self) -> dict:
        """The JSON Schema of each field the game adds to the common ones (default: any value;
        a game describes them so that clients can rely on their shapes)."""
        from .views import COMMON_KEYS

        return {key: {} for key in self.view_keys if key not in COMMON_KEYS}

    def view_schema(self) -> dict:
        """The JSON Schema of this game's views (:mod:`slagwerk.engine.view_schema`)."""
        from .view_schema import view_schema

        return view_schema(self)
    view_max_tricks: ClassVar[int]
    """The most ``tricks_done`` a view can show."""
    view_max_total: ClassVar[int] = 10**6
    """The most a seat's ``totals`` or ``deal_points`` can be."""

    def state_from_view(self, view: dict, seed: int = 0) -> State:
        """A state consistent with ``view``; cards the seat cannot see are dealt at
        random from ``seed``. :class:`InvalidViewError` (one line, naming the
        field) if the view is malformed or impossible.

        The same steps for every game: check the fields (:attr:`view_keys`),
        build the game with the view's options, check the common header, let
        the game read and check its own parts (:meth:`_read_view`), write the
        header and the phase, let the game write its cards and fields
        (:meth:`_write_view`), and keep the deal's log if the game rebuilt one.
        """
        required = [key for key in self.view_keys if key not in self.view_optional_keys]
        check_keys(view, self.view_keys, required, self.name)
        game = type(self)(**read_options(view, type(self)))
        n = game.n_players
        read_common(view, n, self.name, self.view_max_tricks, self.view_max_total)
        parts = game._read_view(view)
        state = game.new_match()
        write_common(state.array, view, n)
        write_phase(state.array, parts, n)
        game._write_view(state.array, view, parts, seed)
        if parts.history is not None:
            state.deals.append(parts.history)
        return state

    @abstractmethod
    def _read_view(self, view: dict) -> ViewParts:
        """Hook of :meth:`state_from_view`: read and check the game's own fields of
        ``view`` (its fields and common header are already checked; ``self`` has
        the view's options) and how they fit the header. Returns the game's
        :class:`ViewParts`, with the phase the state is in (and the outcome of
        a finished match); :class:`InvalidViewError` if the view is impossible."""

    @abstractmethod
    def _write_view(self, array: np.ndarray, view: dict, parts: ViewParts, seed: int) -> None:
        """Hook of :meth:`state_from_view`: write the game's fields into ``array``
        (a new match's, with the view's header and phase already written): the
        cards the seat knows where it knows them, the cards it cannot see dealt
        at random from ``seed``. May raise :class:`InvalidViewError` for a check
        that needs the written state."""

    replay_rules = None
    """The game's module of replay rules for beliefs (``engine/<game>/replay.py``: its
    ``replay_script(game, view)`` and ``card_places(array)``), or ``None``."""

    def replay_script(self, view: dict):
        """The deal's public history in ``view`` as a
        :class:`~slagwerk.engine.replay.ReplayScript` (for beliefs that replay it),
        or ``None`` for a game that cannot replay one. ``view`` is valid (it was
        read by :meth:`state_from_view`) and a seat is to move in it; ``self``
        has the view's options."""
        return None if self.replay_rules is None else self.replay_rules.replay_script(self, view)

    def card_places(self, array):
        """int64[deck size]: where each card is in the state ``array`` (a number per
        place the game's beliefs tell apart, -1 for a card played face up), or
        ``None`` for a game without beliefs. For measuring beliefs."""
        return None if self.replay_rules is None else self.replay_rules.card_places(array)

    def hand_text(self, mask: int, shown: bool, names=None) -> str:
        """A seat's hand in :meth:`render`'s picture: the names of its cards when ``shown``
        (``names(mask)``, the deck's order by default; ``-`` when empty), else how many."""
        if not shown:
            return f"({bin(mask).count('1')} cards)"
        return " ".join((names or self.deck.names)(mask)) or "-"

    @abstractmethod
    def render(self, state: State, seat: int | None = None) -> str:
        """A short human-readable picture of ``state`` (from ``seat``'s viewpoint)."""

    def team_of(self, seat: int) -> int | None:
        """The seat's team in partnership games, else ``None``."""
        return seat % 2 if self.team_game else None


class State:
    """A match in progress: the kernel state array plus its history.

    ``apply`` checks legality; the kernels underneath do not.
    """

    def __init__(self, game: Game, array: np.ndarray, deals: list[DealLog] | None = None):
        self.game = game
        self.array = array
        self.deals: list[DealLog] = deals if deals is not None else []
        self._buffer = np.zeros(game.kernels.MAX_ACTIONS, dtype=np.int64)

    # -- header fields
    @property
    def to_move(self) -> int:
        return int(self.array[TO_MOVE])

    @property
    def phase(self) -> int:
        return int(self.array[PHASE])

    @property
    def dealer(self) -> int:
        return int(self.array[DEALER])

    @property
    def leader(self) -> int:
        return int(self.array[LEADER])

    @property
    def deal_number(self) -> int:
        return int(self.array[DEAL_NUMBER])

    @property
    def tricks_done(self) -> int:
        return int(self.array[TRICKS_DONE])

    @property
    def is_terminal(self) -> bool:
        return self.phase == PHASE_MATCH_OVER

    @property
    def deal_pending(self) -> bool:
        return self.phase == PHASE_DEAL_PENDING

    @property
    def deal_complete(self) -> bool:
        return bool(self.array[DEAL_COMPLETE])

    @property
    def totals(self) -> list[int]:
        n = self.game.n_players
        return [int(v) for v in self.array[TOTALS : TOTALS + n]]

    @property
    def deal_points(self) -> list[int]:
        n = self.game.n_players
        return [int(v) for v in self.array[DEAL_POINTS : DEAL_POINTS + n]]

    @property
    def outcome(self) -> list[float] | None:
        """Per seat 1, 0.5 or 0 once the match is over, else ``None``."""
        if not self.is_terminal:
            return None
        n = self.game.n_players
        return [_half(int(v)) for v in self.array[OUTCOME : OUTCOME + n]]

    # -- actions
    def legal_actions(self) -> list[int]:
        n = self.game.kernels.legal_actions(self.array, self._buffer)
        return [int(a) for a in self._buffer[:n]]

    def legal_texts(self, seat: int | None = None) -> list[str]:
        """Legal actions in notation, from ``seat``'s viewpoint (default: the mover's)."""
        seat = self.to_move if seat is None else seat
        return [self.game.action_text(self, a, seat) for a in self.legal_actions()]

    def apply(self, action: int | str) -> int:
        """Apply a legal action given as notation or integer; returns the integer.

        :raises IllegalActionError: if the action is not legal here.
        """
        if isinstance(action, str):
            action = self.game.parse_action(self, action)
        elif isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"an action is its text in {self.game.name} notation or its integer, not {brief(action)}"
            )
        else:
            legal = self.legal_actions()
            if int(action) not in legal:
                raise IllegalActionError(self.game.explain_illegal(self, brief(action), legal))
        self._apply_unchecked(int(action))
        return int(action)

    def _apply_unchecked(self, action: int):
        if not self.deals:  # a state built from a view starts mid-deal
            self.deals.append(DealLog(dealer=self.dealer, vector=np.zeros(0, dtype=np.int64)))
        log = self.deals[-1]
        seat = self.to_move
        log.seats.append(seat)
        log.actions.append(action)
        log.texts.append(self.game.action_text(self, action))
        log.seen.append([self.game.seen_text(self, action, s) for s in range(self.game.n_players)])
        before = self.tricks_done
        self.game.kernels.apply_action(self.array, action)
        if self.tricks_done > before:
            winner = int(self.array[LAST_TRICK_WINNER])
            log.trick_winners.append(winner if winner >= 0 else None)
        if self.deal_complete:
            log.points = self.deal_points

    # -- deals
    def deal(self, vector: np.ndarray | None = None, rng: np.ndarray | None = None) -> None:
        """Deal the pending deal: the given deal vector, or a random one from ``rng``."""
        if not self.deal_pending:
            raise IllegalActionError(
                "cannot deal: " + ("the match is over" if self.is_terminal else "a deal is in progress")
            )
        if vector is None:
            if rng is None:
                raise ValueError("deal() needs a deal vector or an rng")
            vector = np.zeros(self.game.kernels.DEAL_SIZE, dtype=np.int64)
            self.game.kernels.random_deal(self.array, rng, vector)
        vector = np.asarray(vector, dtype=np.int64)
        self.deals.append(DealLog(dealer=self.dealer, vector=vector.copy()))
        self.game.kernels.apply_deal(self.array, vector)

    def clone(self) -> State:
        deals = [
            DealLog(
                d.dealer, d.vector, list(d.actions), list(d.texts), list(d.seats),
                [list(x) for x in d.seen], list(d.trick_winners), d.points,
            )
            for d in self.deals
        ]
        return State(self.game, self.array.copy(), deals)

    def view(self, seat: int) -> dict:
        return self.game.view(self, seat)

    def describe(self) -> dict:
        """The state array as named fields (for debugging)."""
        return self.game.kernels.LAYOUT.describe(self.array)

    def __str__(self) -> str:
        return self.game.render(self)

    def __repr__(self) -> str:
        return (
            f"<{self.game.name} state deal {self.deal_number} "
            f"trick {self.tricks_done} to_move {self.to_move}>"
        )


def _half(value2: int):
    """Turn a doubled outcome (2, 1, 0) into 1, 0.5, 0 (ints where whole)."""
    return value2 // 2 if value2 % 2 == 0 else value2 / 2
