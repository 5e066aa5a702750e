"""The JSON Schema of a game's views: what a client in another language may rely on.

:meth:`Game.view_schema <slagwerk.engine.game.Game.view_schema>` joins the fields every
game's view has (:data:`~slagwerk.engine.views.COMMON_KEYS`, described here) with the game's
own (each game's ``view_schema_properties``). Like :func:`~slagwerk.engine.views.check_keys`
it refuses a field the game does not name. The schema says the shapes; the game's
``state_from_view`` checks more (that the cards add up, that the history replays), so a
view the schema refuses is refused by the game, not always the other way round.
tests/test_view_schema.py validates the views of random matches of every game against them.
"""

from __future__ import annotations

from .cards import UNKNOWN_CARD


def card(deck) -> dict:
    """A card of ``deck`` in the notation of docs/records.md (``Ao``, ``Th``)."""
    return {"type": "string", "pattern": f"^[{deck.ranks}][{deck.suits}]$"}


def card_or_hidden(deck) -> dict:
    """A card, or ``??`` for one this seat cannot see."""
    return {"anyOf": [card(deck), {"const": UNKNOWN_CARD}]}


def cards(deck, hidden: bool = False) -> dict:
    return {"type": "array", "items": card_or_hidden(deck) if hidden else card(deck)}


def seats(game) -> tuple[int, int]:
    """The fewest and most seats ``game`` may have: its ``players`` option's range where it has
    one (Koetsieren), so that one schema serves every option of the game."""
    spec = game.option_specs.get("players")
    return (spec.low, spec.high) if spec is not None else (game.n_players, game.n_players)


def seat(players: tuple[int, int], null: bool = False) -> dict:
    """A seat number (or null, where nobody is)."""
    number = {"type": "integer", "minimum": 0, "maximum": players[1] - 1}
    return {"anyOf": [number, {"type": "null"}]} if null else number


def per_seat(item: dict, players: tuple[int, int]) -> dict:
    """One ``item`` per seat."""
    return {"type": "array", "items": item, "minItems": players[0], "maxItems": players[1]}


def count(most: int | None = None) -> dict:
    return {"type": "integer", "minimum": 0, **({} if most is None else {"maximum": most})}


def common_properties(game) -> dict:
    """The fields of :data:`~slagwerk.engine.views.COMMON_KEYS` for ``game``."""
    players, total = seats(game), game.view_max_total
    return {
        "game": {"const": game.name},
        "options": {"type": "object", "description": "The game's options.",
                    "properties": {key: {"type": "integer", "minimum": spec.low, "maximum": spec.high}
                                   for key, spec in game.option_specs.items()},
                    "additionalProperties": False},
        "seat": {**seat(players), "description": "Whose view this is."},
        "dealer": seat(players),
        "deal_number": {"type": "integer", "minimum": 1, "description": "1 for the match's first deal."},
        "to_move": {**seat(players, null=True), "description": "The seat to move; null when nobody is."},
        "leader": {**seat(players, null=True), "description": "The current trick's leader."},
        "tricks_done": count(game.view_max_tricks),
        "totals": per_seat({"type": "integer", "minimum": -total, "maximum": total}, players),
        "deal_points": per_seat({"type": "integer", "minimum": -total, "maximum": total}, players),
        "history": {"type": "array", "description": "This deal's actions as this seat knows them.",
                    "items": {"type": "object", "required": ["seat", "action"], "additionalProperties": False,
                              "properties": {"seat": seat(players), "action": {"type": "string"}}}},
        "legal_actions": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                          "description": "Present when this seat is to move: its legal actions."},
    }


def view_schema(game) -> dict:
    """The JSON Schema of ``game``'s views, under any of its options."""
    properties = {**common_properties(game), **game.view_schema_properties()}
    missing = set(game.view_keys) - set(properties)
    if missing:  # a game that adds a field to its views says its shape here too
        raise AssertionError(f"{game.name}: no schema for the view fields {sorted(missing)}")
    return {
        "title": f"{game.name} view",
        "description": f"What one seat of {game.info.title} sees (docs/protocol.md).",
        "type": "object",
        "properties": {key: properties[key] for key in game.view_keys},
        "required": [key for key in game.view_keys if key not in game.view_optional_keys],
        "additionalProperties": False,
    }
