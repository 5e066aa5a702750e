"""Rules engines: bit-mask cards, one kernel module per game, records and replay.

>>> from slagwerk.engine import make_game, GAME_NAMES
>>> GAME_NAMES
('coins', 'koetsieren', 'kozel', 'aluette')
>>> make_game("coins").n_players
3
"""

from __future__ import annotations

from .aluette.game import Aluette
from .coins.game import Coins
from .errors import (
    CardError,
    IllegalActionError,
    InvalidRecordError,
    InvalidViewError,
    OptionError,
    SlagwerkError,
    brief,
)
from .game import Game, State
from .koetsieren.game import Koetsieren
from .kozel.game import Kozel

GAMES: dict[str, type[Game]] = {
    "coins": Coins,
    "koetsieren": Koetsieren,
    "kozel": Kozel,
    "aluette": Aluette,
}
"""Every game by name."""

GAME_NAMES = tuple(GAMES)


def make_game(name: str, /, **options) -> Game:
    """The game called ``name`` with ``options``.

    :raises OptionError: for an unknown game or option, naming the valid ones.
    """
    try:
        cls = GAMES[name]
    except (KeyError, TypeError):
        raise OptionError(f"unknown game {brief(name)} (games: {', '.join(GAMES)})") from None
    return cls(**options)


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
