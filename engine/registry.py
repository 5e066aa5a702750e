"""The game registry: every game by name and id, from the games' own declarations.

A built-in game is one line of :data:`GAME_PACKAGES`; its package declares
``INFO`` (a :class:`~slagwerk.engine.spec.GameInfo`). A game from another
installed package names its ``GameInfo`` in the entry-point group
``slagwerk.games`` (:data:`ENTRY_POINT_GROUP`), so that every process knows
it (tournament workers, ``slagwerk serve`` and its bot workers); a script or
a test's toy game calls :func:`register_game` with its own ``GameInfo``.
Names and ids are unique; reading the registry imports no kernels:
:func:`kernels_by_id` and :func:`game_class` import them on first use, so a
run compiles only the games it plays.

>>> from slagwerk.engine import registry
>>> [info.name for info in registry.game_infos()]
['coins', 'koetsieren', 'kozel', 'aluette']
>>> registry.game_info("kozel").team_game
True
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from importlib import import_module

from ..errors import OptionError, brief
from .spec import GameInfo

GAME_PACKAGES = (
    "coins",
    "koetsieren",
    "kozel",
    "aluette",
)
"""The built-in games: packages of ``slagwerk.engine`` that declare ``INFO``."""

ENTRY_POINT_GROUP = "slagwerk.games"
"""Installed packages name their games' ``GameInfo`` here (``mygame = mypackage:INFO``)."""

_BY_NAME: dict[str, GameInfo] = {}
_BY_ID: dict[int, GameInfo] = {}
_LOADED = False


def register_game(info: GameInfo) -> GameInfo:
    """Add a game; its name and id must be new (registering the same
    ``GameInfo`` again is allowed and changes nothing)."""
    _load_builtin()
    return _register(info)


def unregister_game(name: str) -> GameInfo:
    """Remove a game added by :func:`register_game` (a test's toy game, when
    the test ends) and return its ``GameInfo``; built-in games stay.

    Code compiled for its id (``dispatch.specialize``, numba's disk cache)
    is not forgotten: give another game another id.
    """
    info = game_info(name)
    if name in GAME_PACKAGES:
        raise ValueError(f"{name!r} is a built-in game: it cannot be unregistered")
    del _BY_NAME[info.name], _BY_ID[info.game_id]
    return info


def _register(info: GameInfo) -> GameInfo:
    if not isinstance(info, GameInfo):
        raise TypeError(f"register_game takes a GameInfo, not {type(info).__name__}")
    for table, key, what in ((_BY_NAME, info.name, "name"), (_BY_ID, info.game_id, "id")):
        known = table.get(key)
        if known is not None and known != info:
            raise ValueError(f"game {what} {key!r} is taken by {known.name!r}")
    _BY_NAME[info.name] = info
    _BY_ID[info.game_id] = info
    return info


def _load_builtin() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    for package in GAME_PACKAGES:
        _register(import_module(f"{__package__}.{package}").INFO)
    _load_entry_points()


def _load_entry_points() -> None:
    """Register the games of the installed ``slagwerk.games`` entry points; one that cannot be
    loaded, is not a ``GameInfo`` or takes a name or id already taken is skipped with a one-line
    warning (an installed plugin must not stop every command)."""
    import sys
    from importlib.metadata import entry_points

    for point in entry_points(group=ENTRY_POINT_GROUP):
        where = f"game plugin {point.name!r} ({point.value})"
        try:
            info = point.load()
            if not isinstance(info, GameInfo):
                raise TypeError(f"it is a {type(info).__name__}, not a GameInfo")
            _register(info)
        except Exception as err:
            print(f"slagwerk: warning: {where} skipped: {type(err).__name__}: {err}", file=sys.stderr)


def game_infos() -> tuple[GameInfo, ...]:
    """Every registered game, built-in games first in :data:`GAME_PACKAGES` order."""
    _load_builtin()
    return tuple(_BY_NAME.values())


def game_names() -> tuple[str, ...]:
    return tuple(info.name for info in game_infos())


def game_info(name: str) -> GameInfo:
    """The game called ``name``; :class:`OptionError` naming the games otherwise."""
    _load_builtin()
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(name.lower(), list(_BY_NAME), n=1, cutoff=0.6) \
            if isinstance(name, str) else []
        hint = f": did you mean {close[0]!r}?" if close else ""
        raise OptionError(f"unknown game {brief(name)}{hint} (games: {', '.join(_BY_NAME)})") from None


def info_by_id(game_id: int) -> GameInfo:
    """The game with id ``game_id``; :class:`OptionError` for an unknown id."""
    _load_builtin()
    try:
        return _BY_ID[int(game_id)]
    except (KeyError, TypeError, ValueError):
        raise OptionError(f"unknown game id {brief(game_id)} (ids: {sorted(_BY_ID)})") from None


def kernels_by_id(game_id: int):
    """The kernel module of the game with id ``game_id`` (imported on first use)."""
    return import_module(info_by_id(game_id).kernels)


def game_class(name: str):
    """The Python class of the game called ``name`` (imported on first use)."""
    module, _, cls = game_info(name).game_class.partition(":")
    return getattr(import_module(module), cls)


class GameClasses(Mapping):
    """Read-only mapping of every game's name to its class, imported on access."""

    def __getitem__(self, name):
        if name not in game_names():
            raise KeyError(name)
        return game_class(name)

    def __iter__(self):
        return iter(game_names())

    def __len__(self):
        return len(game_infos())

    def __contains__(self, name):
        return isinstance(name, str) and name in game_names()


class GameNames(Sequence):
    """Every game's name, read from the registry on each use: a game registered
    later (a plugin, a test's toy game) is listed too, by ``choices=`` of the
    command line's ``--game`` for one. Compares equal to the tuple of names."""

    def __getitem__(self, index):
        return game_names()[index]

    def __len__(self):
        return len(game_infos())

    def __contains__(self, name):
        return name in game_names()

    def __eq__(self, other):
        return isinstance(other, (tuple, GameNames)) and tuple(self) == tuple(other)

    __hash__ = None

    def __repr__(self):
        return repr(game_names())


def observation_module(name: str):
    """The observation encoding of game ``name`` (``engine/<game>/observation.py``,
    :mod:`slagwerk.engine.encoding`); :class:`OptionError` if it declares none."""
    info = game_info(name)
    if not info.observation:
        raise OptionError(f"game {name!r} declares no observation encoding (GameInfo.observation)")
    return import_module(info.observation)
