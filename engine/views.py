"""Shared parts of a seat's JSON view, and the checks that read them back.

A view (docs/design.md §4, **Contract**) carries everything one seat knows and
nothing it cannot see. Every game's view has the :data:`COMMON_KEYS`; a game
adds its own (a hand, a trick, ...). :func:`check_keys` rejects unknown and
missing keys, and the ``want_*`` readers raise :class:`InvalidViewError`
naming the key and the bad value, so a bot answers a broken request with a
clear error instead of a traceback.

:meth:`Game.state_from_view <slagwerk.engine.game.Game.state_from_view>`
reads a view back in the same steps for every game; a game's hooks use the
checks and writers here for what several games share (one card per seat per
trick: :func:`check_complete_tricks`, :func:`check_trick_turn`,
:func:`write_trick`) and return their parts as a :class:`ViewParts`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import CardError, InvalidViewError, brief
from .cards import Deck
from .state import (
    CHANCE,
    DEAL_COMPLETE,
    DEAL_NUMBER,
    DEAL_POINTS,
    DEALER,
    LEADER,
    OUTCOME,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    TERMINAL,
    TO_MOVE,
    TOTALS,
    TRICKS_DONE,
)

if TYPE_CHECKING:
    from .game import DealLog

COMMON_KEYS = (
    "game",  # game name
    "options",  # the game's options
    "seat",  # whose view this is
    "dealer",
    "deal_number",  # 1 for the first deal of the match
    "to_move",  # seat to move, or null when nobody is
    "leader",  # leader of the current trick
    "tricks_done",  # completed tricks in this deal
    "totals",  # match totals per seat (docs/records.md meaning)
    "deal_points",  # this deal's points so far per seat
    "history",  # this deal's actions as this seat knows them: [{"seat", "action"}]
    "legal_actions",  # present when this seat is to move
)


@dataclass(kw_only=True)
class ViewParts:
    """What a game's ``_read_view`` hook read from a view (see
    :meth:`Game.state_from_view <slagwerk.engine.game.Game.state_from_view>`).

    A game subclasses it with its own parts (hand, trick, ...); the shared
    steps use only these three fields.
    """

    phase: int
    """The rebuilt state's phase: the game's phase while a seat is to move,
    ``PHASE_DEAL_PENDING`` or ``PHASE_MATCH_OVER`` once nobody is."""
    outcome: list[int] | None = None
    """With ``PHASE_MATCH_OVER``: twice the outcome per seat (2 win, 1 draw, 0 loss)."""
    history: DealLog | None = None
    """The deal's log, for a game that rebuilds it from the view's ``history``."""


def common_view(state, seat: int) -> dict:
    """The keys every game's view shares, for ``seat`` of ``state``."""
    game = state.game
    log = state.deals[-1] if state.deals else None
    history = []
    if log is not None:
        texts = log.seen_by(seat, game.info.counting_reveals_actions)
        history = [{"seat": s, "action": text} for s, text in zip(log.seats, texts)]
    view = {
        "game": game.name,
        "options": dict(game.options),
        "seat": seat,
        "dealer": state.dealer,
        "deal_number": state.deal_number,
        "to_move": state.to_move if state.to_move >= 0 else None,
        "leader": state.leader,
        "tricks_done": state.tricks_done,
        "totals": state.totals,
        "deal_points": state.deal_points,
        "history": history,
    }
    if state.to_move == seat:
        view["legal_actions"] = state.legal_texts(seat)
    return view


def check_keys(view, allowed, required, game_name: str) -> None:
    """Reject a view that is not an object, lacks a required key or has an unknown one."""
    if not isinstance(view, dict):
        raise InvalidViewError(f"a view is a JSON object, not {type(view).__name__}")
    if view.get("game", game_name) != game_name:  # first: another game's view has other fields
        raise InvalidViewError(f"view is for game {brief(view.get('game'))}, not {game_name!r}")
    unknown = sorted(set(view) - set(allowed))
    if unknown:
        raise InvalidViewError(
            f"unknown field {brief(unknown[0])} in a view of {game_name} (fields: {', '.join(allowed)})"
        )
    missing = [k for k in required if k not in view]
    if missing:
        raise InvalidViewError(f"a view of {game_name} needs the field {missing[0]!r}")


def want_int(view, key, low, high):
    value = view[key]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidViewError(f"view field {key!r} must be an integer {low}..{high}, not {brief(value)}")
    return value


def want_int_list(view, key, length, low, high):
    value = view[key]
    if (
        not isinstance(value, list)
        or len(value) != length
        or any(isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high for v in value)
    ):
        raise InvalidViewError(
            f"view field {key!r} must be {length} integers {low}..{high}, not {brief(value)}"
        )
    return value


def want_cards(view, key, deck: Deck) -> list[int]:
    try:
        return deck.parse_many(view[key], what=f"view field {key!r}")
    except CardError as err:
        raise InvalidViewError(str(err)) from None


def disjoint(groups: dict[str, list[int]], deck: Deck) -> None:
    """Reject a card that appears in two places of a view."""
    seen: dict[int, str] = {}
    for name, cards in groups.items():
        for c in cards:
            if c in seen:
                raise InvalidViewError(
                    f"card {deck.name(c)} appears twice in the view (in {seen[c]!r} and {name!r})"
                )
            seen[c] = name


def want_disjoint_cards(view: dict, keys, deck: Deck) -> list[list[int]]:
    """The card lists of the view fields ``keys``, each checked, no card in two of them."""
    groups = {key: want_cards(view, key, deck) for key in keys}
    disjoint(groups, deck)
    return list(groups.values())


def check_complete_tricks(played: list[int], tricks_done: int, n_seats: int) -> None:
    """Every seat plays one card per trick: ``played`` makes the completed tricks."""
    if len(played) != n_seats * tricks_done:
        raise InvalidViewError(
            f"{len(played)} played cards do not make {tricks_done} complete tricks"
        )


def check_trick_turn(view: dict, trick: list[int], n_seats: int) -> None:
    """Every seat plays one card per trick: the trick in progress is not full,
    and the seat to move (if any) is the next after its cards."""
    most = n_seats - 1
    if len(trick) > most:
        raise InvalidViewError(
            f"a trick in progress has at most {most} card{'s' if most != 1 else ''}, not {len(trick)}"
        )
    to_move, leader = view["to_move"], view["leader"]
    if to_move is not None and to_move != (leader + len(trick)) % n_seats:
        raise InvalidViewError(
            f"seat {to_move} cannot be to move: seat {leader} led and "
            f"{len(trick)} card(s) were played"
        )


def write_common(array: np.ndarray, view: dict, n_players: int) -> None:
    """Write the common header fields of a (validated) view into a state array."""
    array[DEALER] = view["dealer"]
    array[DEAL_NUMBER] = view["deal_number"]
    array[LEADER] = view["leader"]
    array[TRICKS_DONE] = view["tricks_done"]
    to_move = view["to_move"]
    array[TO_MOVE] = -1 if to_move is None else to_move
    array[TOTALS : TOTALS + n_players] = view["totals"]
    array[DEAL_POINTS : DEAL_POINTS + n_players] = view["deal_points"]


def write_phase(array: np.ndarray, parts: ViewParts, n_players: int) -> None:
    """Write the phase and, once nobody is to move, what the kernels' ``end_deal``
    or ``end_match`` write: the deal is complete, chance or nobody is to move,
    and the outcome of a finished match."""
    array[PHASE] = parts.phase
    if parts.phase in (PHASE_DEAL_PENDING, PHASE_MATCH_OVER):
        array[DEAL_COMPLETE] = 1
        array[TO_MOVE] = CHANCE
    if parts.phase == PHASE_MATCH_OVER:
        array[TO_MOVE] = TERMINAL
        array[OUTCOME : OUTCOME + n_players] = parts.outcome


def write_trick(array: np.ndarray, trick: list[int], played: list[int],
                trick_at: int, n_in_trick_at: int, gone_at: int) -> None:
    """Write a trick where each seat plays one card: its cards in play order at
    ``trick_at``, their number at ``n_in_trick_at``, and the mask of every card
    played this deal (``trick`` and ``played``) at ``gone_at``."""
    array[trick_at : trick_at + len(trick)] = trick
    array[n_in_trick_at] = len(trick)
    array[gone_at] = sum(1 << c for c in trick + played)


def read_common(view: dict, n_players: int, game_name: str, max_tricks: int, max_total: int):
    """Validate the common numeric fields of a view (not history or legal actions)."""
    want_int(view, "seat", 0, n_players - 1)
    want_int(view, "dealer", 0, n_players - 1)
    want_int(view, "deal_number", 1, 10**6)
    want_int(view, "leader", 0, n_players - 1)
    want_int(view, "tricks_done", 0, max_tricks)
    if view["to_move"] is not None:
        want_int(view, "to_move", 0, n_players - 1)
    want_int_list(view, "totals", n_players, 0, max_total)
    want_int_list(view, "deal_points", n_players, 0, max_total)
    read_history_shape(view.get("history", []), n_players)


MAX_HISTORY = 1000
"""More entries than any deal of any game has actions (a bound for hostile views)."""


def read_history_shape(history, n_players: int) -> None:
    """Every ``history`` entry is ``{"seat": int, "action": str}`` with a seat of
    the table; the game checks the actions themselves where it replays them."""
    if not isinstance(history, list) or len(history) > MAX_HISTORY:
        raise InvalidViewError(f"view field 'history' must be a list of at most {MAX_HISTORY} entries")
    for i, item in enumerate(history):
        if (
            not isinstance(item, dict)
            or set(item) != {"seat", "action"}
            or isinstance(item["seat"], bool)
            or not isinstance(item["seat"], int)
            or not 0 <= item["seat"] < n_players
            or not isinstance(item["action"], str)
        ):
            raise InvalidViewError(
                f"history entry {i} must be {{'seat': 0..{n_players - 1}, 'action': text}}, not {brief(item)}"
            )


def one_card_trick_hand_sizes(view: dict, hand: list[int], trick: list[int], hand_size: int,
                              n_seats: int) -> list[int]:
    """Hand sizes per seat in a game where every seat plays one card per trick
    (Coins, Aluette), checked against the view's own hand and ``hand_sizes``."""
    seat, leader, tricks_done = view["seat"], view["leader"], view["tricks_done"]
    sizes = [hand_size - tricks_done] * n_seats
    for k in range(len(trick)):
        sizes[(leader + k) % n_seats] -= 1
    if len(hand) != sizes[seat]:
        raise InvalidViewError(
            f"seat {seat} should hold {sizes[seat]} cards at this point, not {len(hand)}"
        )
    if "hand_sizes" in view and view["hand_sizes"] != sizes:
        raise InvalidViewError(f"hand_sizes {brief(view['hand_sizes'])} should be {sizes!r}")
    return sizes


def deal_hidden(seat: int, hand: list[int], known: set[int], deck_size: int,
                sizes: list[int], seed: int) -> tuple[list[int], list[int]]:
    """Deal the cards a seat cannot see at random: every other seat ``s`` gets
    ``sizes[s]`` of them. Returns (hand masks per seat, cards left over)."""
    unknown = [c for c in range(deck_size) if c not in known]
    random.Random(seed).shuffle(unknown)
    masks, pos = [], 0
    for s, size in enumerate(sizes):
        if s == seat:
            cards = hand
        else:
            cards = unknown[pos : pos + size]
            pos += size
        masks.append(sum(1 << c for c in cards))
    return masks, unknown[pos:]


def read_options(view: dict, game_class) -> dict:
    """The view's game options, checked by building the game."""
    opts = view["options"]
    if not isinstance(opts, dict):
        raise InvalidViewError(f"view field 'options' must be an object, not {brief(opts)}")
    try:
        game_class(**opts)
    except ValueError as err:
        raise InvalidViewError(str(err)) from None
    return opts
