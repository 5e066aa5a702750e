"""``slagwerk warmup``: compile the numba kernels ahead of time (for an image or a cluster)."""

from __future__ import annotations

import time

from ..engine import GAME_NAMES


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "warmup", help="compile the kernels of some or all games ahead of time",
        description="Compile (or load from the cache) every kernel that runs of these games use, "
        "so that later runs start at once; prints the time it took per game. The cache "
        "folder is per user and per version ($SLAGWERK_CACHE_DIR or $NUMBA_CACHE_DIR to choose it).",
    )
    parser.add_argument("games", nargs="*", metavar="GAME", choices=GAME_NAMES,
                        help=f"games to compile (default: all of {', '.join(GAME_NAMES)})")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..agents.warmup import compile_game
    from ..kernel_cache import cache_folder, compiling, is_compiled, is_temporary

    games = list(dict.fromkeys(args.games or GAME_NAMES))
    total = time.perf_counter()
    for name in games:
        cached = is_compiled(name)
        start = time.perf_counter()
        with compiling([name]):
            compile_game(name)
        took = time.perf_counter() - start
        print(f"{name}: {took:.1f} s" + (" (loaded from the cache)" if cached else " (compiled)"))
    folder = cache_folder()
    kept = "none kept: the cache folder cannot be written" if is_temporary(folder) else str(folder)
    print(f"warm-up done in {time.perf_counter() - total:.1f} s; cache: {kept}")
    return 0
