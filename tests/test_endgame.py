"""The exact endgame solver (search/endgame.py; issue #55) against plain exhaustive max-n."""

from __future__ import annotations

import random

import numpy as np
import pytest

from slagwerk.agents import make
from slagwerk.engine import GAME_NAMES, contract, make_game
from slagwerk.engine.bits import make_rng
from slagwerk.engine.registry import kernels_by_id
from slagwerk.engine.state import MAX_SEATS, OBJECTIVE_DEAL
from slagwerk.errors import SpecError
from slagwerk.search.endgame import solve
from slagwerk.search.ismcts import ismcts
from slagwerk.search.pimc import pimc
from slagwerk.search.tree import SearchError

LATE = {"coins": 2, "kozel": 2, "koetsieren": 2, "aluette": 2}
"""Tricks left in the positions checked: few enough for exhaustive search in Python."""


def late_position(game, seed: int, tricks_left: int):
    """A position of random play with at most ``tricks_left`` tricks left in its deal."""
    rng = random.Random(seed)
    state = game.new_match(seed=seed)
    per_deal = kernels_by_id(game.game_id).TRICKS_PER_DEAL
    while state.tricks_done < per_deal - tricks_left:
        state.apply(rng.choice(list(state.legal_actions())))
        if state.deal_pending:  # a Kozel deal may end before its ninth trick: start again
            return late_position(game, seed + 1000, tricks_left)
    return state


def exhaustive_maxn(game, state) -> np.ndarray:
    """Every seat's reward when each seat, in turn, takes the first action that is best for
    itself, by trying every line of play (no table, no budget)."""
    legal = list(state.legal_actions())
    if not legal:
        out = np.zeros(MAX_SEATS)
        kernels_by_id(game.game_id).returns(state.array, OBJECTIVE_DEAL, out)
        return out
    mover = state.to_move
    best = None
    for action in legal:
        child = state.clone()
        child.apply(action)
        value = exhaustive_maxn(game, child)
        if best is None or value[mover] > best[mover]:
            best = value
    return best


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_the_solver_equals_exhaustive_maxn_on_late_positions(game_name):
    game = make_game(game_name)
    for seed in range(6):
        state = late_position(game, seed, LATE[game_name])
        solved = solve(state)
        assert solved is not None
        assert np.allclose(solved, exhaustive_maxn(game, state), atol=1e-12), (game_name, seed)


@pytest.mark.parametrize("game_name", ["kozel", "aluette"])
def test_in_the_team_games_the_solver_plays_minimax_between_the_teams(game_name):
    game = make_game(game_name)
    for seed in range(3):
        value = solve(late_position(game, seed, 2))
        assert value[0] == value[2] and value[1] == value[3]
        assert value[0] + value[1] == pytest.approx(1.0)


def test_a_solve_beyond_its_budget_gives_up():
    game = make_game("coins")
    state = late_position(game, 1, 4)
    assert solve(state, budget=5) is None
    assert solve(state, budget=10**7) is not None


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_pimc_values_a_solved_world_by_its_exact_values(game_name):
    game = make_game(game_name)
    state = late_position(game, 3, 2)
    seat = state.to_move
    world = state.array.copy()
    result = pimc(state, worlds=3, solve=2, worlds_from=world[None, :], seed=1)
    for action, value in zip(result.actions, result.values):
        child = state.clone()
        child.apply(int(action))
        assert value == pytest.approx(solve(child)[seat], abs=1e-12)
    assert result.visits.tolist() == [3] * len(result.actions)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_solving_searches_stay_legal_reproducible_and_blind_to_hidden_cards(game_name):
    game = make_game(game_name)
    state = late_position(game, 4, 3)
    seat = state.to_move
    other = state.array.copy()
    contract.determinize(other, seat, make_rng(7))
    legal = set(int(a) for a in state.legal_actions())
    for search in (lambda s: ismcts(s, seat, iterations=150, seed=2, solve=2),
                   lambda s: pimc(s, seat, worlds=4, iterations_per_world=30, seed=2, solve=2)):
        a, b, again = search(state.array), search(other), search(state.array)
        assert a.action in legal and a.action == b.action == again.action
        assert np.array_equal(a.values, b.values) and np.array_equal(a.values, again.values)


def test_solve_is_refused_out_of_range_or_with_the_match_objective():
    state = make_game("coins").new_match(seed=1)
    with pytest.raises(SearchError, match="solve must be"):
        ismcts(state, iterations=10, solve=17)
    with pytest.raises(SearchError, match="objective=deal"):
        pimc(state, worlds=2, solve=2, objective="match")
    with pytest.raises(SpecError, match="solve"):
        make("ismcts:solve=-1", make_game("coins"))
    decision = make("pimc:worlds=3,solve=2", make_game("kozel"), seed=1).decide(
        (late := late_position(make_game("kozel"), 2, 2)).view(late.to_move))
    assert decision.action in late.legal_texts()
