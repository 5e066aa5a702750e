"""Search guided by a network (search/guide.py; issue #55): unguided search unchanged to the bit,
no hidden card read, each switch doing what it says, and one-line refusals."""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pytest

from slagwerk.agents import make
from slagwerk.agents.model import Model, save_model
from slagwerk.agents.search_agents import ISMCTSAgent
from slagwerk.engine import GAME_NAMES, contract, dispatch, make_game
from slagwerk.engine.bits import make_rng
from slagwerk.errors import SpecError
from slagwerk.search.endgame import DEFAULT_NODE_BUDGET, Solver
from slagwerk.search.guide import Guide, kernel_arguments, reward_of
from slagwerk.search.ismcts import ismcts
from slagwerk.search.pimc import pimc, uct
from slagwerk.search.tree import PARENT, ROOT, SearchError, Tree, run_iterations

UNGUIDED_DIGEST = "d33bfc98bb6b0b1228813846661d186316c2b4a33c7efe31a22e1053c5dd1a4b"
"""What :func:`unguided_digest` gave at d5fe058, the commit before guides existed (run
there on the same positions): the unguided search must still give it, draw for draw."""


def positions(game, seed: int, count: int):
    """``count`` positions with a seat to move, from random play of one match."""
    rng = np.random.default_rng(seed)
    found = []
    state = game.new_match(seed=seed)
    while len(found) < count and not state.is_terminal:
        if state.deal_pending:
            state.deal(rng=make_rng(int(rng.integers(1 << 30))))
            continue
        if rng.random() < 0.3:
            found.append(state.clone())
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return found


def unguided_digest() -> str:
    """A digest of unguided ISMCTS, PIMC and UCT results (actions, visits, values) in every game."""
    results = {}
    for name in ("coins", "kozel", "koetsieren", "aluette"):
        for k, state in enumerate(positions(make_game(name), 7, 3)):
            for label, result in (
                    ("ismcts", ismcts(state, iterations=400, seed=k + 1)),
                    ("ismcts-heuristic", ismcts(state, iterations=200, seed=k + 2, playout="heuristic")),
                    ("pimc", pimc(state, worlds=4, iterations_per_world=60, seed=k + 3)),
                    ("uct", uct(state, iterations=300, seed=k + 4))):
                results[f"{name}/{k}/{label}"] = [int(result.action), result.actions.tolist(),
                                                  result.visits.tolist(),
                                                  [round(float(v), 12) for v in result.values]]
    return hashlib.sha256(json.dumps(results, sort_keys=True).encode()).hexdigest()


def test_unguided_search_is_what_it_was_before_guides_draw_for_draw():
    assert unguided_digest() == UNGUIDED_DIGEST


def small_guide(game, seed=1, **switches) -> Guide:
    return Guide(Model.initial(game, hidden=(16, 8), seed=seed).weights, **switches)


def model_file(tmp_path, game, seed=1):
    path = tmp_path / f"{game.name}.npz"
    save_model(Model.initial(game, hidden=(16, 8), seed=seed), path)
    return path


SWITCHES = [dict(), dict(prior=0.0), dict(leaf=False), dict(leaf=False, playout=True),
            dict(prior=0.0, leaf=False, playout=True)]


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_guided_search_ignores_the_cards_hidden_from_the_searching_seat(game_name):
    game = make_game(game_name)
    changed = 0
    for k, state in enumerate(positions(game, 21, 3)):
        seat = state.to_move
        other = state.array.copy()
        contract.determinize(other, seat, make_rng(k + 100))
        changed += not np.array_equal(other, state.array)
        guide = small_guide(game, seed=k)
        a = ismcts(state.array, seat, iterations=120, seed=k, guide=guide)
        b = ismcts(other, seat, iterations=120, seed=k, guide=guide)
        assert a.action == b.action and np.array_equal(a.visits, b.visits)
        assert np.array_equal(a.values, b.values)
        a = pimc(state.array, seat, worlds=3, iterations_per_world=30, seed=k, guide=guide)
        b = pimc(other, seat, worlds=3, iterations_per_world=30, seed=k, guide=guide)
        assert a.action == b.action and np.array_equal(a.values, b.values)
    assert changed > 0, "the test never changed a hidden card"


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_every_switch_searches_legal_moves_reproducibly(game_name):
    game = make_game(game_name)
    state = positions(game, 5, 1)[0]
    legal = set(int(a) for a in state.legal_actions())
    for switches in SWITCHES:
        guide = small_guide(game, **switches)
        first = ismcts(state, iterations=150, seed=3, guide=guide)
        again = ismcts(state, iterations=150, seed=3, guide=guide)
        assert first.action in legal and set(first.actions.tolist()) <= legal, switches
        assert first.visits.sum() == 150 and np.array_equal(first.visits, again.visits), switches
        assert np.array_equal(first.values, again.values), switches


def constant_guide(game, value: float, **switches) -> Guide:
    """A network that values every action ``value``."""
    weights = [np.zeros_like(w) for w in Model.initial(game, hidden=(4, 4)).weights]
    weights[5][:] = value
    return Guide(tuple(weights), **switches)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_guided_leaf_takes_each_seats_value_from_the_network(game_name):
    """With a network valuing everything at 0.6, a leaf that the deal does not end first is
    worth reward_of(0.6) = 0.8 to every seat, so early in a deal every root child's mean is 0.8."""
    game = make_game(game_name)
    state = game.new_match(seed=4)
    result = ismcts(state, iterations=60, seed=1, guide=constant_guide(game, 0.6, prior=0.0))
    assert reward_of(0.6) == pytest.approx(0.8)
    assert np.allclose(result.values, 0.8)
    unguided = ismcts(state, iterations=60, seed=1)
    assert not np.allclose(unguided.values, 0.8)


def test_the_prior_tries_the_action_the_network_values_most_first():
    game = make_game("coins")
    state = game.new_match(seed=4)
    legal = [int(a) for a in state.legal_actions()]
    weights = [np.zeros_like(w) for w in Model.initial(game, hidden=(4, 4)).weights]
    favourite = legal[len(legal) // 2]
    weights[5][favourite] = 0.5  # the action index of a Coins card is the card
    result = ismcts(state, iterations=1, seed=1, guide=Guide(tuple(weights), leaf=False))
    assert result.actions.tolist() == [favourite]


def test_a_guide_that_does_not_fit_is_refused_in_one_line():
    coins, kozel = make_game("coins"), make_game("kozel")
    state = coins.new_match(seed=1)
    with pytest.raises(SearchError, match="encoding has"):
        ismcts(state, iterations=10, guide=small_guide(kozel))
    with pytest.raises(SearchError, match="objective=deal"):
        ismcts(state, iterations=10, objective="match", guide=small_guide(coins))
    with pytest.raises(SearchError, match="flat"):
        pimc(state, worlds=2, flat=True, guide=small_guide(coins))
    ismcts(state, iterations=10, objective="match", guide=small_guide(coins, leaf=False))


def test_agent_parameters_of_the_guide(tmp_path, monkeypatch):
    game = make_game("kozel")
    path = model_file(tmp_path, game)
    state = positions(game, 3, 1)[0]
    for spec in (f"ismcts:iterations=80,guide=net,model={path}",
                 f"pimc:worlds=2,iterations_per_world=20,guide=net,model={path},playout=net,leaf=playout"):
        decision = make(spec, game, seed=2).decide(state.view(state.to_move))
        assert decision.action in state.legal_texts()
    for spec, words in (("ismcts:playout=net", "playout=net needs guide=net"),
                        (f"ismcts:model={path}", "needs guide=net")):
        with pytest.raises(SpecError, match=words):
            make(spec, game)
    monkeypatch.setattr("slagwerk.agents.net.MODELS_FOLDER", tmp_path / "none")  # a game shipping none
    with pytest.raises(SpecError, match="no model ships for koetsieren"):
        make("ismcts:guide=net", make_game("koetsieren"))


class _FillWith(ISMCTSAgent):
    """ISMCTS whose stand-in for the hidden cards comes from a chosen seed."""

    fill_seed = 0

    def state_for(self, view):
        return self.game.state_from_view(view, seed=self.fill_seed)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_guided_agent_decision_does_not_depend_on_the_stand_in_hidden_cards(tmp_path, game_name):
    game = make_game(game_name)
    path = model_file(tmp_path, game, seed=3)
    view = (state := positions(game, 9, 1)[0]).view(state.to_move)
    decisions = []
    for fill in (1, 2, 3):
        agent = _FillWith(game, seed=9, iterations=100, guide="net", model=str(path))
        agent.fill_seed = fill
        decisions.append(agent.decide(view))
    assert all(d.stats["actions"] == decisions[0].stats["actions"] for d in decisions)


def test_the_bench_reports_the_guided_iteration_cost_as_ratios():
    from slagwerk.experiments.bench.search import GUIDED_VARIANTS, guided_rows

    rows = guided_rows(["coins"], seconds=0.05, rounds=1)
    assert [row["benchmark"] for row in rows] == [f"guided_ismcts_iteration_{v}" for v in GUIDED_VARIANTS]
    assert all(row["per_second"] > 0 and row["ratio_to_unguided_iteration"] > 0 for row in rows)


@pytest.mark.parametrize("depth", [1, 2])
def test_a_prior_depth_gives_priors_only_to_nodes_grown_that_shallow(depth):
    """With ``prior_depth=d`` only nodes grown from nodes less deep than ``d`` get a prior (the
    root is at depth 0): deeper nodes are grown at random, at no network cost."""
    game = make_game("coins")
    state = game.new_match(seed=4)
    guide = constant_guide(game, 0.6, leaf=False, prior_depth=depth)
    flags, net, prior_settings = kernel_arguments(guide)
    tree = Tree(4000, guided=True)
    dispatch.call(run_iterations, game.game_id, state.array, state.to_move, 1, 3000, 0.7, 0, 0, make_rng(1),
                  tree.nodes, tree.values, tree.meta, math.inf, np.zeros(1, np.int64),
                  dispatch.Constant(flags), net, prior_settings, tree.priors, 0, DEFAULT_NODE_BUDGET,
                  Solver.unused(state.array.shape[0]).arguments())
    size = tree.size

    def node_depth(node):
        steps = 0
        while node != ROOT:
            node, steps = int(tree.nodes[node, PARENT]), steps + 1
        return steps

    depths = np.array([node_depth(node) for node in range(1, size)])
    with_prior = tree.priors[1:size] > 0
    assert depths.max() > depth  # the tree grew deeper than the prior reaches
    assert with_prior[depths <= depth].all()
    assert not with_prior[depths > depth].any()


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_the_root_blend_ignores_hidden_cards_and_spans_search_to_network(tmp_path, game_name):
    """``root_weight`` blends the search's root means with the network's values: 0 is the search's
    own choice, 1 the net agent's (every legal action tried), and no weight reads a hidden card."""
    game = make_game(game_name)
    path = model_file(tmp_path, game, seed=4)
    for k, state in enumerate(positions(game, 31, 3)):
        seat = state.to_move
        other = state.array.copy()
        contract.determinize(other, seat, make_rng(k + 200))
        plain = ismcts(state.array, seat, iterations=300, seed=k)
        for weight in (0.0, 0.3, 1.0):
            guide = small_guide(game, seed=4, prior=0.0, leaf=False, root_weight=weight)
            a = ismcts(state.array, seat, iterations=300, seed=k, guide=guide)
            assert a.action == ismcts(other, seat, iterations=300, seed=k, guide=guide).action
            assert np.array_equal(a.visits, plain.visits)  # the blend changes the choice only
            if weight == 0.0:
                assert a.action == plain.action
        assert set(a.actions.tolist()) == set(int(x) for x in state.legal_actions())
        net_choice = make(f"net:model={path}", game).decide(state.view(seat)).action
        assert game.action_text(state, a.action, seat) == net_choice


def test_a_world_network_may_not_choose_at_the_root():
    game = make_game("coins")
    state = game.new_match(seed=1)
    world = Model.initial(game, hidden=(8, 8), seed=1, world=True, seat_values=True)
    with pytest.raises(SearchError, match="only value the leaves"):
        ismcts(state, iterations=10, guide=Guide(world.weights, prior=0.0, value=True, world=True,
                                                 root_weight=0.5))
    with pytest.raises(SearchError, match="root_weight must lie"):
        ismcts(state, iterations=10, guide=small_guide(game, root_weight=2.0))


def test_ismcts_means_the_guide_its_game_won_with_and_guide_none_the_old_search():
    """``guide=auto`` (the default): the root blend in Coins (its SPRT, docs/learned.md), nothing in
    the other games or in Coins with other options; a spec's own setting wins over the game's."""
    from slagwerk.agents.search_agents import GAME_GUIDES

    coins = make_game("coins")
    default = make("ismcts", coins)
    assert default.config["guide"] == "net" and default.guide is not None
    assert default.guide.root_weight == GAME_GUIDES["coins"]["root_weight"] > 0
    assert default.guide.prior == 0 and not default.guide.leaf
    assert make("ismcts:root_weight=0.2", coins).guide.root_weight == 0.2
    assert make("ismcts:guide=none", coins).guide is None
    assert make("ismcts", make_game("coins", target=4)).guide is None
    for name in ("kozel", "aluette", "koetsieren"):
        if name not in GAME_GUIDES:
            assert make("ismcts", make_game(name)).guide is None
    assert make("pimc", coins).guide is None
    state = positions(coins, 12, 1)[0]
    view = state.view(state.to_move)
    guided = make("ismcts:iterations=300", coins, seed=4).decide(view)
    plain = make("ismcts:iterations=300,guide=none", coins, seed=4).decide(view)
    assert guided.stats["actions"] == plain.stats["actions"]  # the same search; only the choice blends
