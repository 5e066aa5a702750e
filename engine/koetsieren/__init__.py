"""Koetsieren (docs/rules.md §2): the game's declaration.

``kernels`` holds the numba kernels, ``game`` the Python game class, ``pure``
the plain-Python reference used by ``slagwerk bench``. This file imports
neither: the registry reads ``INFO`` alone.
"""

from ..spec import GameInfo, OptionSpec

INFO = GameInfo(
    name="koetsieren",
    game_id=1,
    title="Koetsieren",
    summary="inverted visibility: you see everyone's forehead cards but your own; exact bidding with a hook",
    players="2-6",
    options={
        "players": OptionSpec(4, 2, 6, "number of players", flag="--players"),
        "first_dealer": OptionSpec(0, 0, 5, "dealer of the first deal", flag="--first-dealer"),
        "ranks": OptionSpec(8, 2, 8, "ranks per suit in the deck, the highest ones (fewer: a small "
                            "variant, docs/rules.md §2.15)"),
        "hand": OptionSpec(5, 1, 5, "slots dealt to each player, in the order F1 H T1 F2 T2, and tricks "
                           "per deal (fewer: a small variant, §2.15)"),
    },
    points="penalty points per deal (lower is better)",
    totals="penalty points",
    kernels=f"{__name__}.kernels",
    game_class=f"{__name__}.game:Koetsieren",
    observation=f"{__name__}.observation",
    short_options={"players": 3},
    test_options=tuple({"players": n, "first_dealer": n - 1} for n in range(2, 7))
    + ({}, {"players": 3, "ranks": 4, "hand": 3}),
    rules="docs/rules.md §2",
)
