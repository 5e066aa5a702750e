"""Kozel, the 4-card version (docs/rules.md §3): the game's declaration.

``kernels`` holds the numba kernels, ``game`` the Python game class, ``pure``
the plain-Python reference used by ``slagwerk bench``. This file imports
neither: the registry reads ``INFO`` alone.
"""

from ..spec import GameInfo, OptionSpec

INFO = GameInfo(
    name="kozel",
    game_id=2,
    title="Kozel (4-card)",
    summary="multi-card tricks, beating by one-to-one pairing, face-down discards, molodka, a stock",
    players="4, in teams",
    options={
        "first_dealer": OptionSpec(0, 0, 3, "dealer of the first deal", flag="--first-dealer"),
        "ranks": OptionSpec(9, 2, 9, "ranks per suit in the deck, the highest ones (fewer: a small "
                            "variant, docs/rules.md §3.18)"),
        "hand": OptionSpec(4, 2, 4, "cards dealt to each player (fewer: a small variant, §3.18)"),
        "stock": OptionSpec(20, 0, 20, "cards in the stock, a multiple of 4 (fewer or none: a small "
                            "variant, §3.18)"),
    },
    points="card points taken by the seat's team per deal (of 120)",
    totals="penalty points",
    kernels=f"{__name__}.kernels",
    game_class=f"{__name__}.game:Kozel",
    observation=f"{__name__}.observation",
    team_game=True,
    hides_actions=True,  # discards are face down
    counting_reveals_actions=True,  # until the deal is counted (§3.8.3)
    playout_free_of_refcounts=False,  # its large action kernels are calls (inlining them: +6%)
    test_options=({}, {"first_dealer": 3}, {"ranks": 2, "hand": 2, "stock": 0},
                  {"ranks": 5, "hand": 3, "stock": 4, "first_dealer": 1}),
    determinize_uses_whole_history=False,  # earlier tricks' molodka questions: the replay checks them
    rules="docs/rules.md §3",
)
