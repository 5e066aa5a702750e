"""Search strength with small budgets, seeded, with comfortable margins.

Whole matches in duplicate groups (the same deals in every seat rotation,
:func:`slagwerk.experiments.harness.tournament.evaluate`); the score is the mean
match outcome of the candidate's seats. An agent no better than its
opponents scores about 1/3 in Coins, 1/2 in the team games (Kozel,
Aluette) and about 3/4 in four-player Koetsieren (only the highest total
loses). The larger comparison is ``experiments/studies/search_strength.py``.
"""

from __future__ import annotations

import pytest

from slagwerk.engine import GAME_NAMES
from slagwerk.experiments.harness.tournament import evaluate

AGAINST_RANDOM = {"coins": 0.75, "koetsieren": 0.95, "kozel": 0.8, "aluette": 0.75}
"""Least score of ismcts:iterations=200 against random (equal strength: 1/3, 3/4, 1/2, 1/2);
a game not named here must score clearly more than random itself does against random."""


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_ismcts_beats_random_in_every_game(game_name):
    result = evaluate(game_name, {}, "ismcts:iterations=200", ["random"], groups=6, seed=17, unit="match")
    if game_name in AGAINST_RANDOM:
        assert result.mean >= AGAINST_RANDOM[game_name], result
    else:
        equal = evaluate(game_name, {}, "random", ["random"], groups=6, seed=17, unit="match")
        assert result.mean >= equal.mean + 0.05, (result, equal)


@pytest.mark.parametrize(("game_name", "least"), [("coins", 0.6), ("aluette", 0.65)])
def test_ismcts_beats_the_heuristic(game_name, least):
    result = evaluate(game_name, {}, "ismcts:iterations=1000", ["heuristic"], groups=8, seed=23,
                      unit="match")
    assert result.mean >= least, result
