"""Coins (Mark Steere, 2022; docs/rules.md §1): the game's declaration.

``kernels`` holds the numba kernels, ``game`` the Python game class, ``pure``
the plain-Python reference and ``playout.c`` the C twin used by ``slagwerk
bench``. This file imports neither: the registry reads ``INFO`` alone.
"""

from ..spec import GameInfo, OptionSpec

INFO = GameInfo(
    name="coins",
    game_id=0,
    title="Coins (Mark Steere)",
    summary="no suit to follow; suits beat each other in a cycle (cups > coins > swords > clubs > cups)",
    players="3",
    options={
        "target": OptionSpec(10, 1, 1000, "coins that win the match", flag="--target"),
        "first_dealer": OptionSpec(0, 0, 2, "dealer of the first deal", flag="--first-dealer"),
        "ranks": OptionSpec(12, 2, 12, "ranks per suit in the deck, the highest ones (fewer: a small "
                            "variant, docs/rules.md §1.10)"),
        "hand": OptionSpec(16, 1, 16, "cards dealt to each player, at most the deck's share (fewer: "
                           "a small variant whose other cards lie unused, §1.10)"),
    },
    points="coins taken per deal (of 12)",
    totals="coins",
    suit_cycle="coeb",  # docs/rules.md §1.3: each suit beats the next, clubs beat cups
    kernels=f"{__name__}.kernels",
    game_class=f"{__name__}.game:Coins",
    observation=f"{__name__}.observation",
    bench_options={"target": 1000},  # at the default target a random deal often ends the match early
    short_options={"target": 3},
    test_options=({}, {"target": 3, "first_dealer": 2}, {"ranks": 3, "hand": 3}),
    rules="docs/rules.md §1",
)
