"""Aluette (la Vache) as a five-deal partnership match (docs/rules.md §4): the
game's declaration.

``kernels`` holds the numba kernels, ``game`` the Python game class, ``pure``
the plain-Python reference used by ``slagwerk bench``. This file imports
neither: the registry reads ``INFO`` alone.
"""

from ..spec import GameInfo, OptionSpec

INFO = GameInfo(
    name="aluette",
    game_id=3,
    title="Aluette (la Vache)",
    summary="19 strength classes, spoiled (pourri) tricks, most tricks wins, Mordienne",
    players="4, in teams",
    options={
        "first_dealer": OptionSpec(0, 0, 3, "dealer of the first deal", flag="--first-dealer"),
        "cards": OptionSpec(48, 4, 48, "cards in the deck, the first of a fixed order (fewer: a small "
                            "variant, docs/rules.md §4.11)"),
        "hand": OptionSpec(9, 1, 9, "cards dealt to each player and tricks per deal, at most a quarter "
                           "of the deck (fewer: a small variant whose other cards lie unused, §4.11)"),
    },
    points="match points won by the seat's team per deal",
    totals="match points",
    kernels=f"{__name__}.kernels",
    game_class=f"{__name__}.game:Aluette",
    observation=f"{__name__}.observation",
    team_game=True,
    test_options=({}, {"first_dealer": 2}, {"cards": 14, "hand": 3}),
    rules="docs/rules.md §4",
)
