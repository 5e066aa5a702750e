"""Records and replay (docs/records.md, **Contract**).

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

from ..errors import InvalidRecordError, SlagwerkError, brief, one_line, path_text
from ..safe_files import read_text
from . import GAMES, make_game, strict_json
from .game import State
from .strict_json import StrictJSONError

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

    Everything the rules determine may be left out: a deal's ``dealer``
    (the first deal's then comes from the ``first_dealer`` option or its
    default), Koetsieren's and Aluette's ``undealt``, a deal's ``actions``.
    Everything given is checked: an action must be text in the game's
    notation, a dealer a seat number, a field one the format knows.

    :raises InvalidRecordError: naming the deal, the action's index, the
        action and why it is illegal, or what else is wrong with the record,
        on one line.
    """
    try:
        return _load_record(record)
    except SlagwerkError as err:
        raise InvalidRecordError(one_line(str(err))) from None


def _load_record(record) -> State:
    if not isinstance(record, dict):
        raise InvalidRecordError(f"a record is a JSON object, not {_what(record)}")
    unknown = [key for key in record if key not in RECORD_KEYS]
    if unknown:
        raise InvalidRecordError(
            f"unknown record field {brief(unknown[0])} (fields: {', '.join(RECORD_KEYS)})"
        )
    missing = [key for key in ("game", "deals") if key not in record]
    if missing:
        raise InvalidRecordError(
            f"a record needs the field {missing[0]!r} (fields: {', '.join(RECORD_KEYS)})"
        )
    name = record["game"]
    if not isinstance(name, str) or name not in GAMES:
        raise InvalidRecordError(f"'game' must be one of {', '.join(GAMES)}, not {_what(name)}")
    options = record.get("options", {})
    if not isinstance(options, dict):
        raise InvalidRecordError(
            f"'options' must be an object of the game's options (like {{\"first_dealer\": 0}}), "
            f"not {_what(options)}"
        )
    deals = record["deals"]
    if not isinstance(deals, list):
        raise InvalidRecordError(f"'deals' must be a list of deals, not {_what(deals)}")
    try:
        game = make_game(name, **options)
    except SlagwerkError as err:
        raise InvalidRecordError(f"'options': {err}") from None
    first = deals[0] if deals and isinstance(deals[0], dict) else None
    if first is not None and "dealer" in first and "first_dealer" in game.options:
        dealer = _dealer(first["dealer"], game, "deal 1")
        if "first_dealer" not in options:
            game = make_game(name, **options, first_dealer=dealer)
        elif game.options["first_dealer"] != dealer:
            raise InvalidRecordError(
                f"option first_dealer={game.options['first_dealer']} disagrees with "
                f"the first deal's dealer {dealer}"
            )
    if "players" in record:
        players = record["players"]
        n = game.n_players
        if not isinstance(players, list) or len(players) != n or not all(isinstance(p, str) for p in players):
            raise InvalidRecordError(
                f"'players' must list {n} names (a text per seat), not {_what(players)}"
            )
    state = game.new_match()
    for number, deal in enumerate(deals, start=1):
        _replay_deal(state, deal, number)
    return state


def _replay_deal(state: State, deal, number: int) -> None:
    game = state.game
    where = f"deal {number}"
    if not isinstance(deal, dict):
        raise InvalidRecordError(f"{where}: a deal is a JSON object, not {_what(deal)}")
    fields = ("dealer", *game.deal_fields, "actions")
    unknown = [key for key in deal if key not in fields]
    if unknown:
        raise InvalidRecordError(
            f"{where}: unknown deal field {brief(unknown[0])} "
            f"(fields of a {game.name} deal: {', '.join(fields)})"
        )
    if state.is_terminal:
        raise InvalidRecordError(f"{where}: the match ended before this deal")
    if not state.deal_pending:
        raise InvalidRecordError(f"{where}: deal {number - 1} is unfinished, so no deal can follow it")
    if "dealer" in deal:  # left out, it is the dealer the rules name
        dealer = _dealer(deal["dealer"], game, where)
        if dealer != state.dealer:
            raise InvalidRecordError(
                f"{where}: dealer {dealer} contradicts the rules (the dealer must be seat {state.dealer})"
            )
    if "hands" not in deal:
        raise InvalidRecordError(
            f"{where}: a deal needs 'hands', the cards dealt to each seat (fields of a {game.name} deal: "
            f"{', '.join(fields)})"
        )
    actions = deal.get("actions", [])
    if not isinstance(actions, list):
        raise InvalidRecordError(
            f"{where}: 'actions' must be a list of actions in {game.name} notation, not {_what(actions)}"
        )
    try:
        vector = game.deal_from_json({"dealer": state.dealer, **deal})  # the dealer the rules name
    except SlagwerkError as err:
        raise InvalidRecordError(f"{where}: {err}") from None
    state.deal(vector)
    for index, text in enumerate(actions):
        at = f"{where}, action {index}" + (f" ({brief(text)})" if isinstance(text, str) else "")
        if state.is_terminal:
            raise InvalidRecordError(f"{at}: the match is already over")
        if state.deal_pending:
            raise InvalidRecordError(f"{at}: the deal is already over")
        if not isinstance(text, str):
            raise InvalidRecordError(
                f"{at}: an action is text in {game.name} notation (legal here: "
                f"{_sample(state.legal_texts())}), not {_what(text)}"
            )
        try:
            state.apply(text)
        except SlagwerkError as err:
            raise InvalidRecordError(f"{at}: {err}") from None


def _dealer(value, game, where: str) -> int:
    """A deal's ``dealer``: a seat number (an integer, not a boolean or a float)."""
    n = game.n_players
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRecordError(f"{where}: 'dealer' must be a seat number 0..{n - 1}, not {_what(value)}")
    if not 0 <= value < n:
        raise InvalidRecordError(
            f"{where}: dealer {brief(value)} is not a seat of this {game.name} match (0..{n - 1})"
        )
    return value


def _what(value) -> str:
    """A JSON value described for a message: its kind, and itself if short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {brief(value)}"
    if isinstance(value, str):
        return f"the text {brief(value)}"
    if isinstance(value, list):
        return f"a list {brief(value)}" if value else "an empty list"
    if isinstance(value, dict):
        return f"an object {brief(value)}" if value else "an empty object"
    return type(value).__name__


def _sample(texts: list[str], limit: int = 6) -> str:
    shown = ", ".join(texts[:limit])
    return shown + (", ..." if len(texts) > limit else "")


def replay_result(state: State) -> dict:
    """The ``replay --json`` document (docs/records.md) of a replayed match."""
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
    ...}`` (``tests/fixtures/examples``) yields its record.

    Strict JSON in UTF-8: ``NaN``, ``Infinity`` and a repeated field are errors.

    :raises InvalidRecordError: naming the file (once) and what is wrong with it.
    """
    shown = path_text(path)
    data = _parse(_read_text(path), shown)
    if isinstance(data, dict) and "record" in data and "game" not in data:
        data = data["record"]
    return data


MAX_RECORD_FILE_BYTES = 1 << 30
"""The largest record file (or ``games.jsonl``) read."""


def _read_text(path) -> str:
    return read_text(path, MAX_RECORD_FILE_BYTES, InvalidRecordError, kind="a record: JSON")


def _parse(text: str, shown: str):
    try:
        return strict_json.loads(text)
    except StrictJSONError as err:
        reason = str(err) if str(err).startswith("not JSON") else f"not a record: {err}"
        raise InvalidRecordError(f"{shown}: {reason}") from None


def load_record_file(path) -> State:
    """:func:`read_record_file` then :func:`load_record`, every error naming the file once.

    :raises InvalidRecordError: ``PATH: deal N, action I ('text'): why``.
    """
    return _load_labelled(read_record_file(path), path_text(path))


def record_loaders(path):
    """``(label, load)`` for each record in a file: a record file (``.json``) is
    one record labelled ``PATH``; a tournament's ``games.jsonl`` (``.jsonl``)
    holds one per game played with ``--records``, labelled ``PATH:LINE``.
    ``load()`` returns the replayed :class:`State` or raises
    :class:`InvalidRecordError` naming the label, so one bad record spoils no
    other.
    """
    if not str(path).endswith(".jsonl"):
        yield path_text(path), lambda: load_record_file(path)
        return
    shown = path_text(path)
    try:
        lines = _read_text(path).splitlines()
    except InvalidRecordError as err:
        yield shown, _raiser(err)
        return
    found = 0
    for number, line in enumerate(lines, start=1):
        label = f"{shown}:{number}"
        if not line.strip():
            continue
        try:
            value = _parse(line, label)
        except InvalidRecordError as err:
            yield label, _raiser(err)
            continue
        if isinstance(value, dict) and "record" in value:
            found += 1
            yield label, lambda record=value["record"], label=label: _load_labelled(record, label)
    if not found:
        yield shown, _raiser(InvalidRecordError(
            f"{shown}: no line keeps a record (a tournament keeps them with --records)"))


def _load_labelled(record, label: str) -> State:
    try:
        return load_record(record)
    except SlagwerkError as err:
        raise InvalidRecordError(one_line(f"{label}: {err}")) from None


def _raiser(err: InvalidRecordError):
    def load():
        raise err
    return load
