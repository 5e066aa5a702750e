"""Every registered game passes the shipped conformance suite
(slagwerk.engine.conformance), with each option set it declares."""

from __future__ import annotations

import pytest

from slagwerk.engine import make_game
from slagwerk.engine.conformance import check_game
from slagwerk.engine.registry import game_infos

CASES = [(info.name, options) for info in game_infos() for options in info.test_options]


@pytest.mark.parametrize(("name", "options"), CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_conformance(name, options):
    check_game(make_game(name, **options), matches=2, seed=len(str(options)))
