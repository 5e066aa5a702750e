"""Search core (SO-ISMCTS, PIMC, cheating UCT): known answers, no leak,
reproducibility, budgets, tree invariants, agents and their errors."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pytest

from slagwerk.agents import AGENTS, make
from slagwerk.agents.match import play_match
from slagwerk.agents.search_agents import ISMCTSAgent
from slagwerk.engine import GAME_NAMES, SlagwerkError, contract, dispatch, make_game
from slagwerk.engine.bits import derive_seed, make_rng
from slagwerk.engine.coins import kernels as CK
from slagwerk.errors import InvalidViewError, SpecError
from slagwerk.search import tree as T
from slagwerk.search.ismcts import ismcts
from slagwerk.search.pimc import pimc, uct
from slagwerk.search.tree import SearchError, Tree, run_iterations, unguided


def iterate(state, *args):
    """run_iterations compiled for ``state``'s game."""
    no_stop = np.zeros(1, np.int64)
    return dispatch.call(run_iterations, state.game.game_id, state.array, *args, math.inf, no_stop,
                         *unguided(state.array.shape[0]))


def random_position(game, seed: int, max_steps: int = 40):
    """A state mid-match with a seat to move, after random play from ``seed``."""
    state = game.new_match(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, max_steps))):
        if state.deal_pending:
            state.deal(rng=make_rng(seed))
        if state.is_terminal:
            break
        legal = state.legal_actions()
        state.apply(legal[int(rng.integers(len(legal)))])
    if state.deal_pending:
        state.deal(rng=make_rng(seed + 1))
    if state.to_move < 0:  # the random play ended the match: start a fresh one
        state = game.new_match(seed=seed)
    return state


# ------------------------------------------------------------------ no leak


def _hidden_variant(state, seat, seed):
    """The state with every card hidden from ``seat`` dealt again (a world of the
    same information set), and whether anything changed."""
    other = state.array.copy()
    contract.determinize(other, seat, make_rng(seed))
    return other, not np.array_equal(other, state.array)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_search_ignores_the_cards_hidden_from_the_searching_seat(game_name):
    game = make_game(game_name)
    changed = 0
    for seed in range(3):
        state = random_position(game, derive_seed(41, seed))
        seat = state.to_move
        other, differs = _hidden_variant(state, seat, seed + 100)
        changed += differs
        a = ismcts(state.array, seat, iterations=300, seed=seed)
        b = ismcts(other, seat, iterations=300, seed=seed)
        assert a.action == b.action
        assert np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)
        a = pimc(state.array, seat, worlds=3, iterations_per_world=40, seed=seed)
        b = pimc(other, seat, worlds=3, iterations_per_world=40, seed=seed)
        assert a.action == b.action and np.array_equal(a.values, b.values)
    assert changed > 0, "the test never changed a hidden card"


class _FillWith(ISMCTSAgent):
    """ISMCTS whose stand-in for the hidden cards comes from a chosen seed."""

    fill_seed = 0

    def state_for(self, view):
        return self.game.state_from_view(view, seed=self.fill_seed)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_agent_decision_does_not_depend_on_the_stand_in_hidden_cards(game_name):
    game = make_game(game_name)
    state = random_position(game, 5)
    view = state.view(state.to_move)
    decisions = []
    for fill in (1, 2, 3):
        agent = _FillWith(game, seed=9, iterations=300)
        agent.fill_seed = fill
        decisions.append(agent.decide(view))
    assert all(d.action == decisions[0].action for d in decisions)
    assert all(d.stats["actions"] == decisions[0].stats["actions"] for d in decisions)


# ---------------------------------------------------- reproducibility, budgets


def test_same_seed_and_iterations_give_the_same_search():
    state = random_position(make_game("coins"), 3)
    a = ismcts(state, iterations=500, seed=4)
    b = ismcts(state, iterations=500, seed=4)
    assert a.action == b.action and np.array_equal(a.visits, b.visits)
    assert np.array_equal(a.values, b.values)
    c = pimc(state, worlds=4, iterations_per_world=50, seed=4)
    d = pimc(state, worlds=4, iterations_per_world=50, seed=4)
    assert c.action == d.action and np.array_equal(c.values, d.values)


def test_iterations_in_slices_build_the_same_tree_as_in_one_call():
    state = random_position(make_game("coins"), 8)
    seat = state.to_move
    trees = []
    for slices in ([600], [1, 99, 250, 250]):
        tree = Tree(601)
        rng = make_rng(5)
        for k in slices:
            iterate(state, seat, 1, k, 0.7, 0, 0, rng, tree.nodes, tree.values, tree.meta)
        trees.append(tree)
    assert np.array_equal(trees[0].nodes, trees[1].nodes)
    assert np.array_equal(trees[0].values, trees[1].values)


def test_time_budget_stops_about_on_time():
    state = random_position(make_game("coins"), 2)
    result = ismcts(state, time_ms=40, seed=1)
    assert result.iterations > 0
    assert result.seconds >= 0.01  # it used its time rather than stopping at once
    assert result.seconds < 2.0  # loose: no tight timing assertion on a shared machine
    assert int(result.visits.sum()) == result.iterations
    worlds = pimc(state, time_ms=40, iterations_per_world=20, seed=1)
    assert worlds.worlds > 0 and worlds.seconds < 2.0


def test_node_cap_keeps_searching_without_expanding():
    state = random_position(make_game("coins"), 6)
    result = ismcts(state, iterations=2000, node_cap=40, seed=2)
    assert result.nodes == 40
    assert result.iterations == 2000 and int(result.visits.sum()) == 2000
    assert result.memory_bytes == Tree(40).memory_bytes
    # an iteration budget never allocates more than one node per iteration
    assert ismcts(state, iterations=10, seed=2).memory_bytes == Tree(11).memory_bytes


@pytest.mark.parametrize("game_name", GAME_NAMES)
@pytest.mark.parametrize("determinize_each", [1, 0])
def test_tree_counts_are_consistent(game_name, determinize_each):
    """Visits, availability and values obey the invariants of (IS)MCTS."""
    state = random_position(make_game(game_name), 12)
    seat = state.to_move
    tree = Tree(3000)
    iterate(state, seat, determinize_each, 1500, 0.7, 0, 1, make_rng(3),
            tree.nodes, tree.values, tree.meta)
    nodes, values, n = tree.nodes, tree.values, tree.size
    assert nodes[T.ROOT, T.VISITS] == 1500
    children_visits = np.zeros(n, np.int64)
    for node in range(1, n):
        parent = nodes[node, T.PARENT]
        visits, available = nodes[node, T.VISITS], nodes[node, T.AVAILABLE]
        assert 1 <= visits <= available <= nodes[parent, T.VISITS]
        assert 0.0 <= values[node] <= visits
        children_visits[parent] += visits
    assert np.all(children_visits[:n] <= nodes[:n, T.VISITS])
    assert children_visits[T.ROOT] == 1500  # every iteration leaves the root
    legal = sorted(make_game(game_name).state_from_array(state.array).legal_actions())
    actions, visits, means, available = tree.root_statistics(state.game.kernels.MAX_ACTIONS)
    assert sorted(actions) == legal  # the seat's own options are the same in every world
    assert np.all((means >= 0) & (means <= 1))


def test_the_tree_ends_where_the_deal_ends_and_the_match_objective_plays_on():
    """Near the end of a Coins deal the tree reaches the deal's end but never
    grows past it (the next deal is chance); the playouts deal on to the
    match's end, so the match values are win rates."""
    game = make_game("coins", target=30)
    state = game.new_match(seed=4)
    while sum(bin(int(state.array[CK.HANDS + s])).count("1") for s in range(3)) > 5:
        state.apply(state.legal_actions()[0])
    remaining = sum(bin(int(state.array[CK.HANDS + s])).count("1") for s in range(3))
    tree = Tree(5000)
    iterate(state, state.to_move, 1, 3000, 0.7, 0, 1, make_rng(2), tree.nodes, tree.values,
                   tree.meta)
    depth = np.zeros(tree.size, np.int64)
    for node in range(1, tree.size):  # parents are always created before their children
        depth[node] = depth[tree.nodes[node, T.PARENT]] + 1
    assert depth.max() == remaining
    result = ismcts(state, iterations=300, objective="match", seed=1)
    assert np.all((result.values >= 0) & (result.values <= 1)) and int(result.visits.sum()) == 300


# ------------------------------------------------------------------- errors


def test_bad_search_parameters_are_clear_errors():
    state = random_position(make_game("coins"), 1)
    with pytest.raises(SearchError, match="unknown final choice 'most'"):
        ismcts(state, iterations=10, final="most")
    with pytest.raises(SearchError, match="unknown playout policy 'smart'"):
        ismcts(state, iterations=10, playout="smart")
    with pytest.raises(SearchError, match="unknown objective 'win'"):
        ismcts(state, iterations=10, objective="win")
    with pytest.raises(SearchError, match="exactly one budget"):
        ismcts(state, iterations=10, time_ms=5)
    with pytest.raises(SearchError, match="iterations must be a positive integer, not 0"):
        ismcts(state, iterations=0)
    with pytest.raises(SearchError, match="exploration constant c must be a number >= 0, not -1"):
        uct(state, iterations=10, c=-1)
    with pytest.raises(SearchError, match="node_cap must be an integer >= 2, not 1"):
        pimc(state, worlds=2, node_cap=1)
    other = (state.to_move + 1) % 3
    with pytest.raises(SearchError, match=f"seat {other} is not to move"):
        ismcts(state, other, iterations=10)
    over = make_game("coins").new_match()  # waiting for its first deal
    with pytest.raises(SearchError, match="nobody is to move"):
        pimc(over, worlds=2)
    assert issubclass(SearchError, SlagwerkError) and issubclass(SearchError, ValueError)


def test_bad_agent_specs_and_misuse_are_clear_errors():
    game = make_game("coins")
    with pytest.raises(SpecError, match="ismcts parameter playout='smart' must be one of 'random', 'heu"):
        make("ismcts:playout=smart", game)
    with pytest.raises(SpecError, match="unknown parameter 'worlds' for agent 'ismcts'"):
        make("ismcts:worlds=3", game)
    with pytest.raises(SpecError, match=r"pimc parameter worlds='0' must be an integer from 1 to"):
        make("pimc:worlds=0", game)
    state = game.new_match(seed=1)
    cheat = make("cheat:iterations=50", game)
    with pytest.raises(InvalidViewError, match="decide_true_state"):
        cheat.decide(state.view(state.to_move))
    waiting = (state.to_move + 1) % 3
    with pytest.raises(InvalidViewError, match=f"seat {waiting} is not to move"):
        make("ismcts:iterations=50", game).decide(state.view(waiting))


# ------------------------------------------------------------------- agents


def test_search_agents_are_registered_and_report_statistics():
    assert {"ismcts", "pimc", "cheat"} <= set(AGENTS)
    assert AGENTS["cheat"].cheating and not AGENTS["ismcts"].cheating and not AGENTS["pimc"].cheating
    game = make_game("coins")
    state = game.new_match(seed=12)
    view = state.view(state.to_move)
    legal = set(view["legal_actions"])
    stats = make("ismcts:iterations=300", game, seed=1).decide(view).stats
    assert stats["iterations"] == 300 and set(stats["actions"]) == legal
    assert sum(a["visits"] for a in stats["actions"].values()) == 300
    assert stats["tree_nodes"] == 301 and stats["memory_bytes"] > 0 and stats["seconds"] >= 0
    stats = make("pimc:worlds=3,iterations_per_world=30", game, seed=1).decide(view).stats
    assert stats["worlds"] == 3 and stats["iterations"] == 90 and set(stats["actions"]) == legal
    timed = make("ismcts:time_ms=20", game, seed=1).decide(view)
    assert timed.action in legal and timed.stats["iterations"] > 0


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_search_agents_play_whole_matches_in_every_game(game_name):
    game = make_game(game_name)
    specs = ["ismcts:iterations=30", "pimc:worlds=2,iterations_per_world=15", "cheat:iterations=30",
             "ismcts:iterations=20,playout=heuristic,objective=match"]
    agents = [make(specs[s % len(specs)], game, seed=s) for s in range(game.n_players)]
    state = play_match(game, agents, seed=3, max_deals=2)
    assert state.deal_number >= 1 and state.tricks_done >= 0


def test_docstring_examples():
    for name in ("slagwerk.search.tree", "slagwerk.search.ismcts", "slagwerk.search.pimc",
                 "slagwerk.agents.search_agents"):
        result = doctest.testmod(importlib.import_module(name))
        assert result.failed == 0 and result.attempted > 0, name
