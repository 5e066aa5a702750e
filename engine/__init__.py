"""Rules engines: bit-mask cards, one package per game, records and replay.

Importing this package imports no kernels (and not numba): the games are
known from their declarations (:mod:`slagwerk.engine.registry`), and a
game's kernels and class load when it is first made.

>>> from slagwerk.engine import make_game, GAME_NAMES
>>> GAME_NAMES
('coins', 'koetsieren', 'kozel', 'aluette')
>>> make_game("coins").n_players
3
"""

from __future__ import annotations

from ..errors import (
    CardError,
    IllegalActionError,
    InvalidRecordError,
    InvalidViewError,
    OptionError,
    SlagwerkError,
)
from .registry import GameClasses, GameNames, game_class, game_info

GAMES = GameClasses()
"""Every game's class by name (imported on access)."""

GAME_NAMES = GameNames()
"""Every game's name, built-in games first (games registered later included)."""


def make_game(name: str, /, **options):
    """The game called ``name`` with ``options``.

    :raises OptionError: for an unknown game or option, naming the valid ones.
    """
    game_info(name)  # an unknown name is an OptionError naming the games
    return game_class(name)(**options)


def __getattr__(name: str):
    if name in ("Game", "State"):  # the Python API imports numba: only on demand
        from . import game

        return getattr(game, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "GAMES",
    "GAME_NAMES",
    "CardError",
    "Game",
    "IllegalActionError",
    "InvalidRecordError",
    "InvalidViewError",
    "OptionError",
    "SlagwerkError",
    "State",
    "make_game",
]
