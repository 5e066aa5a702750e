"""Toy, the tutorial game of docs/adding-a-game.md: its declaration.

Two players, twelve cards (clubs, diamonds, hearts; jack, queen, king, ace),
three cards each and six left undealt. The player left of the dealer leads;
the other must follow suit if it can; the higher card of the led suit wins
the trick and leads the next one. A trick is worth one point. After each deal
the match ends once a seat has ``target`` tricks: more tricks wins, equal
tricks is a draw.

``kernels`` holds the numba kernels and ``game`` the Python class. This file
imports neither: the registry reads ``INFO`` alone. The game is not built
in: a test (or a plugin) adds it with ``register_game(INFO)``.
"""

from slagwerk.engine.spec import GameInfo, OptionSpec

INFO = GameInfo(
    name="toy",
    game_id=9,
    title="Toy (the tutorial game)",
    players="2",
    options={
        "target": OptionSpec(5, 1, 100, "tricks that end the match", flag="--target"),
        "first_dealer": OptionSpec(0, 0, 1, "dealer of the first deal", flag="--first-dealer"),
    },
    points="tricks taken per deal (of 3)",
    kernels=f"{__name__}.kernels",
    game_class=f"{__name__}.game:Toy",
    test_options=({}, {"target": 1, "first_dealer": 1}),
    rules="docs/adding-a-game.md",
)
