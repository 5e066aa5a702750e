"""Networks that also value the deal for every seat (``slagwerk train --seat-values``) and the
guided leaf that reads them (``ismcts:guide=net,leaf=value``): one evaluation a leaf."""

from __future__ import annotations

import numpy as np
import pytest

from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.agents.model import Model, load_model, save_model
from slagwerk.engine import GAME_NAMES, make_game
from slagwerk.engine.registry import observation_module
from slagwerk.errors import SpecError
from slagwerk.search.guide import Guide, reward_of
from slagwerk.search.ismcts import ismcts
from slagwerk.search.tree import SearchError


def seat_value_weights(game, values):
    """A network whose action values are all 0 and whose seat values are ``values`` (by
    relative seat, the observing seat first), whatever it reads."""
    weights = [np.zeros_like(w) for w in Model.initial(game, hidden=(4, 4), seat_values=True).weights]
    weights[5][-game.n_players:] = values
    return tuple(weights)


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_value_leaf_gives_each_seat_its_value_seen_from_the_seat_to_move(game_name):
    """Seat values (0.6, -0.2, ...) by relative seat: at the first iteration's leaf (after one
    action from the deal's start, which the deal does not end), seat s is worth
    reward_of(values[(s - mover) % n]), where mover is the seat to move at the leaf."""
    game = make_game(game_name)
    n = game.n_players
    values = np.linspace(0.6, -0.6, n).astype(np.float32)
    state = game.new_match(seed=4)
    result = ismcts(state, iterations=1, seed=1, guide=Guide(seat_value_weights(game, values), prior=0.0,
                                                            value=True))
    child = state.clone()
    child.apply(int(result.actions[0]))
    mover, seat = child.to_move, state.to_move
    assert mover >= 0
    assert result.values[0] == pytest.approx(reward_of(values[(seat - mover) % n]))


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_seat_value_model_plays_as_net_and_guides_with_every_leaf(tmp_path, game_name):
    game = make_game(game_name)
    path = tmp_path / "sv.npz"
    save_model(Model.initial(game, hidden=(16, 8), seed=3, seat_values=True), path)
    model = load_model(path, game)
    assert model.seat_values == game.n_players
    assert model.num_actions == observation_module(game_name).NUM_ACTIONS
    state = play_match(game, [make(f"net:model={path}", game, seed=s) for s in range(game.n_players)],
                       seed=2, max_deals=1)
    assert state.deals
    view_state = game.new_match(seed=5)
    for leaf in ("value", "net", "playout"):
        decision = make(f"ismcts:iterations=60,guide=net,model={path},leaf={leaf}", game,
                        seed=1).decide(view_state.view(view_state.to_move))
        assert decision.action in view_state.legal_texts()


def test_leaf_value_needs_a_model_with_seat_values(tmp_path):
    game = make_game("coins")
    state = game.new_match(seed=1)
    plain = Model.initial(game, hidden=(4, 4)).weights
    with pytest.raises(SearchError, match="leaf=value needs a network that values the deal for every seat"):
        ismcts(state, iterations=5, guide=Guide(plain, value=True))
    with pytest.raises(SearchError, match="objective=deal"):
        ismcts(state, iterations=5, objective="match", guide=Guide(seat_value_weights(game, 0.0), value=True))


def test_a_file_with_seat_values_for_another_table_is_one_line(tmp_path):
    game = make_game("koetsieren", players=2)
    path = tmp_path / "sv.npz"
    model = Model.initial(game, hidden=(4, 4), seat_values=True)
    save_model(Model(model.weights, {**model.meta, "seat_values": 3}), path)
    with pytest.raises(SpecError, match="values the deal for 3 seats, not for koetsieren's 2") as err:
        load_model(path, game)
    assert "\n" not in str(err.value)


def test_the_learner_fits_the_seat_values_to_the_returns():
    """Training on fixed samples brings the seat values towards every seat's return; the
    action values alone leave them as they were."""
    pytest.importorskip("torch")
    from slagwerk.experiments.training.learner import Learner
    from slagwerk.experiments.training.selfplay import play_deals

    game = make_game("coins")
    model = Model.initial(game, hidden=(16, 16), seed=1, seat_values=True)
    samples = play_deals("coins", {}, model.weights, 0.1, 7, 20)
    assert samples.returns.shape == (len(samples.x), 3)
    assert np.allclose(samples.returns[:, 0], samples.target)  # the deciding seat's own return first

    def value_error(weights):
        out = np.stack([_forward(weights, x) for x in samples.x])
        return float(np.mean((out[:, -3:] - samples.returns) ** 2))

    learner = Learner(model.weights, 1e-2, 1, seat_values=3)
    before = value_error(learner.weights())
    learner.update(samples, 64, 20, 5)
    assert value_error(learner.weights()) < 0.7 * before


def _forward(weights, x):
    from slagwerk.search.network import forward

    out = np.zeros(weights[5].shape[0], np.float32)
    forward(x, *weights, out)
    return out


# -- networks of the whole deal (--world): only a search's leaves, determinized worlds, read them


def world_weights(game, seed=1):
    return Model.initial(game, hidden=(16, 8), seed=seed, seat_values=True, world=True).weights


@pytest.mark.parametrize("game_name", GAME_NAMES)
def test_a_world_leaf_reads_every_seats_observation_from_the_mover_round(game_name):
    """The kernel's input is each seat's observation of the world, by relative seat from the seat
    to move: as the trainer's world_input builds it."""
    from slagwerk.engine import dispatch
    from slagwerk.search.guide import value_rewards

    game = make_game(game_name)
    module = observation_module(game_name)
    state = game.new_match(seed=6)
    for _ in range(3):
        state.apply(int(state.legal_actions()[0]))
    n, size = game.n_players, module.OBSERVATION_SIZE
    net = world_weights(game)
    x = np.zeros(n * size, np.float32)
    q = np.zeros(net[5].shape[0], np.float32)
    actions = np.zeros(game.kernels.MAX_ACTIONS, np.int64)
    rewards = np.zeros(8)
    args = (state.array.copy(), net, x, q, actions, rewards, True)
    dispatch.specialize(value_rewards, game.game_id, *args)(game.game_id, *args)
    mover = state.to_move
    for r in range(n):
        expected = np.zeros(size, np.float32)
        module.observe(state.array, (mover + r) % n, expected)
        assert np.array_equal(x[r * size:(r + 1) * size], expected)


@pytest.mark.parametrize("game_name", ["coins", "kozel"])
def test_a_world_guided_search_ignores_the_cards_hidden_from_the_searching_seat(game_name):
    from slagwerk.engine import contract
    from slagwerk.engine.bits import make_rng

    game = make_game(game_name)
    state = game.new_match(seed=8)
    seat = state.to_move
    other = state.array.copy()
    contract.determinize(other, seat, make_rng(5))
    assert not np.array_equal(other, state.array)
    guide = Guide(world_weights(game), prior=0.0, value=True, world=True)
    a = ismcts(state.array, seat, iterations=150, seed=2, guide=guide)
    b = ismcts(other, seat, iterations=150, seed=2, guide=guide)
    assert a.action == b.action and np.array_equal(a.visits, b.visits) and np.array_equal(a.values, b.values)


def test_a_world_model_never_plays_or_chooses(tmp_path):
    game = make_game("coins")
    path = tmp_path / "world.npz"
    save_model(Model.initial(game, hidden=(4, 4), seat_values=True, world=True), path)
    with pytest.raises(SpecError, match="reads every seat's cards, so it cannot play"):
        make(f"net:model={path}", game)
    for spec in (f"ismcts:guide=net,model={path}", f"ismcts:guide=net,model={path},leaf=value"):
        with pytest.raises(SpecError, match="may only value the search's worlds"):
            make(spec, game)
    view_state = game.new_match(seed=5)
    decision = make(f"ismcts:iterations=50,guide=net,model={path},leaf=value,prior=0", game,
                    seed=1).decide(view_state.view(view_state.to_move))
    assert decision.action in view_state.legal_texts()


def test_world_training_takes_no_teacher_and_no_history():
    from slagwerk.experiments.harness.runner import ExperimentError
    from slagwerk.experiments.training.config import TrainConfig
    from slagwerk.experiments.training.run import check_inputs

    for config in (TrainConfig(game="coins", world=True, teacher="ismcts"),
                   TrainConfig(game="coins", world=True, history=True)):
        with pytest.raises(ExperimentError, match="--world"):
            check_inputs(config)


@pytest.mark.parametrize("game_name", ["coins", "aluette"])
def test_a_leaf_mixed_with_weight_zero_is_the_playout_alone(game_name):
    """value_weight=0 keeps only the playout's rewards: the search is the unguided one, draw for
    draw (the value reads no random number); 0.5 searches legally and reproducibly."""
    game = make_game(game_name)
    state = game.new_match(seed=3)
    for world in (False, True):
        seat_only = Model.initial(game, hidden=(8, 8), seat_values=True).weights
        weights = world_weights(game) if world else seat_only
        guide = Guide(weights, prior=0.0, value=True, world=world, value_weight=0.0)
        mixed = ismcts(state, iterations=200, seed=4, guide=guide)
        plain = ismcts(state, iterations=200, seed=4)
        assert np.array_equal(mixed.visits, plain.visits) and np.allclose(mixed.values, plain.values)
        half = Guide(weights, prior=0.0, value=True, world=world, value_weight=0.5)
        a, b = (ismcts(state, iterations=200, seed=4, guide=half) for _ in range(2))
        assert np.array_equal(a.visits, b.visits) and a.action in [int(x) for x in state.legal_actions()]
        assert not np.allclose(a.values, plain.values)
