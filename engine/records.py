"""Records and replay (RULES.md §5, **Contract**).

A record is a JSON document that replays a match exactly: the game, its
options, and per deal the dealer, the full deal and every action. The
tournament writes records, ``slagwerk replay`` reads them, tests state
scenarios with them.

>>> from slagwerk.engine import make_game
>>> from slagwerk.engine.records import record_of, replay
>>> state = make_game("coins").new_match(seed=3)
>>> state.apply(state.legal_texts()[0])    # the lowest card, 5c: action 3
3
>>> record_of(state)["deals"][0]["actions"]
['5c']
>>> replay(record_of(state))["deals"][0]["points"] is None   # deal unfinished
True
"""

from __future__ import annotations

import json

from . import make_game
from .errors import IllegalActionError, InvalidRecordError, SlagwerkError
from .game import State

RECORD_KEYS = ("game", "options", "players", "deals")


def record_of(state: State, players: list[str] | None = None) -> dict:
    """The record of everything dealt and played in ``state``'s match."""
    game = state.game
    deals = []
    for log in state.deals:
        deal = {"dealer": log.dealer}
        deal.update(game.deal_to_json(log.vector))
        deal["actions"] = list(log.texts)
        deals.append(deal)
    record = {"game": game.name, "options": dict(game.options)}
    if players is not None:
        record["players"] = list(players)
    record["deals"] = deals
    return record


def load_record(record: dict) -> State:
    """Play a record through the engine and return the final state.

    :raises InvalidRecordError: naming the deal, the action's index, the
        action and why it is illegal, or what else is wrong with the record.
    """
    if not isinstance(record, dict):
        raise InvalidRecordError(f"a record is a JSON object, not {type(record).__name__}")
    unknown = sorted(set(record) - set(RECORD_KEYS))
    if unknown:
        raise InvalidRecordError(f"unknown record field {unknown[0]!r} (fields: {', '.join(RECORD_KEYS)})")
    if "game" not in record or "deals" not in record:
        raise InvalidRecordError("a record needs the fields 'game' and 'deals'")
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise InvalidRecordError(f"'options' must be an object, not {options!r}")
    options = dict(options)
    deals = record["deals"]
    if not isinstance(deals, list):
        raise InvalidRecordError(f"'deals' must be a list, not {type(deals).__name__}")
    if deals and isinstance(deals[0], dict) and "dealer" in deals[0]:
        first = deals[0]["dealer"]
        if "first_dealer" in options and options["first_dealer"] != first:
            raise InvalidRecordError(
                f"option first_dealer={options['first_dealer']!r} disagrees with "
                f"the first deal's dealer {first!r}"
            )
        options.setdefault("first_dealer", first)
    try:
        game = make_game(record["game"], **options)
    except SlagwerkError as err:
        raise InvalidRecordError(str(err)) from None
    state = game.new_match()
    for number, deal in enumerate(deals, start=1):
        _replay_deal(state, deal, number)
    return state


def _replay_deal(state: State, deal, number: int) -> None:
    where = f"deal {number}"
    if not isinstance(deal, dict):
        raise InvalidRecordError(f"{where}: a deal is a JSON object, not {deal!r}")
    if state.is_terminal:
        raise InvalidRecordError(f"{where}: the match ended before this deal")
    if not state.deal_pending:
        raise InvalidRecordError(f"{where}: deal {number - 1} is unfinished, so no deal can follow it")
    dealer = deal.get("dealer")
    if dealer != state.dealer:
        raise InvalidRecordError(
            f"{where}: dealer {dealer!r} contradicts the rules (the dealer must be seat {state.dealer})"
        )
    actions = deal.get("actions", [])
    if not isinstance(actions, list):
        raise InvalidRecordError(f"{where}: 'actions' must be a list")
    try:
        vector = state.game.deal_from_json(deal)
    except SlagwerkError as err:
        raise InvalidRecordError(f"{where}: {err}") from None
    state.deal(vector)
    for index, text in enumerate(actions):
        if state.is_terminal:
            raise InvalidRecordError(
                f"{where}, action {index} ({text!r}): the match is already over"
            )
        if state.deal_pending:
            raise InvalidRecordError(f"{where}, action {index} ({text!r}): the deal is already over")
        try:
            state.apply(text)
        except IllegalActionError as err:
            raise InvalidRecordError(f"{where}, action {index} ({text!r}): {err}") from None


def replay_result(state: State) -> dict:
    """The ``replay --json`` document (RULES.md §5) of a replayed match."""
    deals = [
        {"trick_winners": list(log.trick_winners), "points": log.points}
        for log in state.deals
    ]
    return {"deals": deals, "totals": state.totals, "outcome": state.outcome}


def replay(record: dict) -> dict:
    """Replay a record and return its ``replay --json`` document."""
    return replay_result(load_record(record))


def read_record_file(path) -> dict:
    """Read a record from a JSON file. An example file ``{"record": ..., "expected":
    ...}`` (``shared/examples``) yields its record."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as err:
        raise InvalidRecordError(f"{path}: cannot read: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise InvalidRecordError(f"{path}: not JSON: {err}") from None
    if isinstance(data, dict) and "record" in data and "game" not in data:
        data = data["record"]
    return data
