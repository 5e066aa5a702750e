"""Command-line helpers shared by subcommands: game options and agent specs."""

from __future__ import annotations

import argparse

from ..engine import GAMES, make_game
from ..engine.errors import OptionError


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--option key=value`` (repeatable) plus shortcuts for common options."""
    parser.add_argument(
        "--option", "-o", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. target=15 (repeatable)",
    )
    parser.add_argument("--players", type=int, help="number of players (Koetsieren: 2..6)")
    parser.add_argument("--target", type=int, help="target score (Coins)")
    parser.add_argument("--first-dealer", type=int, help="dealer of the first deal")


def game_from_args(name: str, args: argparse.Namespace):
    """The game named ``name`` with the options given on the command line."""
    options: dict[str, int] = {}
    for item in args.option:
        key, eq, value = item.partition("=")
        if not eq:
            raise OptionError(f"--option {item!r} is not KEY=VALUE")
        try:
            options[key.strip()] = int(value)
        except ValueError:
            raise OptionError(f"--option {item!r}: {value!r} is not an integer") from None
    for key in ("players", "target", "first_dealer"):
        value = getattr(args, key, None)
        if value is not None:
            options[key] = value
    if name not in GAMES:
        raise OptionError(f"unknown game {name!r} (games: {', '.join(GAMES)})")
    return make_game(name, **options)


def add_run_options(parser: argparse.ArgumentParser, move_time: float = 0.0) -> None:
    """What every experiment command shares: seed, unit, workers and the
    per-move time limit (``move_time`` 0 means none)."""
    parser.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    parser.add_argument("--unit", choices=("deal", "match"), default="deal",
                        help="a game is one deal scored by its normalised deal score (default), "
                        "or a whole match scored by its outcome")
    parser.add_argument("--jobs", type=int, default=-1,
                        help="worker processes (default: all cores; 1 plays in this process)")
    parser.add_argument("--backend", choices=("loky", "dask"), default="loky",
                        help="joblib backend: local processes (default) or a Dask cluster")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler address for --backend dask (default: a local cluster)")
    parser.add_argument("--move-time", type=float, default=move_time, metavar="SECONDS",
                        help="per-move time limit; slower moves forfeit "
                        f"(default {f'{move_time:g}' if move_time else 'none'})")
