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
