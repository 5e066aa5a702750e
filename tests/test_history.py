"""Models that read the deal's history (``slagwerk train --history``): the history blocks an
agent rebuilds from its view (engine/history.py) are the environment's, and such a model plays
as ``net`` from views alone, seeing no hidden card."""

from __future__ import annotations

import re

import numpy as np
import pytest

from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.agents.model import Model, load_model, save_model
from slagwerk.engine import make_game
from slagwerk.engine.history import history_input, replayable
from slagwerk.envs.encoded import EncodedMatch
from slagwerk.errors import SpecError
from slagwerk.experiments.harness.runner import ExperimentError
from slagwerk.experiments.training.config import TrainConfig
from slagwerk.experiments.training.run import check_inputs

REPLAYABLE = [("coins", {}), ("aluette", {}), ("koetsieren", {}), ("koetsieren", {"players": 2}),
              ("koetsieren", {"players": 2, "ranks": 2, "hand": 2})]


def _history_model(tmp_path, game, seed=2):
    path = tmp_path / f"{game.name}-history-{seed}.npz"
    save_model(Model.initial(game, hidden=(16, 8), seed=seed, history=True), path)
    return path


@pytest.mark.parametrize("game_name, options", REPLAYABLE)
def test_the_blocks_rebuilt_from_a_view_are_the_environments(game_name, options):
    """A match played in the environment (history=True) and, action for action, on the engine:
    at every decision the seat's blocks rebuilt from its view equal the environment's."""
    match = EncodedMatch(game_name, seed=9, history=True, **options)
    game = match.game
    base = match.module.OBSERVATION_SIZE
    state = game.new_match()
    state.deal(vector=match._deal)
    rng = np.random.default_rng(1)
    rebuilt = np.zeros(match.observation_size - base, np.float32)
    for _ in range(120):
        seat = match.to_move
        history_input(game, state.view(seat), seat, 5, rebuilt)
        assert np.array_equal(rebuilt, match.observe(seat)[base:])
        index = int(rng.choice(np.flatnonzero(match.mask())))
        action = int(match.legal_actions()[index])
        match.step(index)
        if match.is_over:
            break
        state.apply(action)
        if state.deal_pending:
            state.deal(vector=match._deal)


@pytest.mark.parametrize("game_name", ["coins", "koetsieren"])
def test_a_history_net_plays_and_reads_nothing_its_seat_cannot_see(tmp_path, game_name):
    """Agents that fill the hidden cards differently (their seeds) decide alike on the same
    views, and a whole match is legal (the engine checks every action)."""
    game = make_game(game_name)
    path = _history_model(tmp_path, game)
    agents = [make(f"net:model={path}", game, seed=seed) for seed in (1, 2, 3)]
    views = []

    def collect(state, seat, text):
        if state.to_move >= 0 and len(views) < 40:
            views.append(state.view(state.to_move))

    state = play_match(game, [make(f"net:model={path}", game, seed=s) for s in range(game.n_players)],
                       seed=11, max_deals=1, on_action=collect)
    assert state.deals
    decided = [{agent.decide(view).action for agent in agents} for view in views]
    assert all(len(actions) == 1 for actions in decided)
    assert len({a for actions in decided for a in actions}) > 3  # it did decide something


def test_kozel_has_no_history_models():
    """A Kozel view does not say which card its seat drew after which trick, which its
    history blocks show: training refuses --history there, and loading refuses such a file."""
    assert not replayable("kozel") and replayable("koetsieren")
    with pytest.raises(ExperimentError, match="kozel agents cannot rebuild the deal's history"):
        check_inputs(TrainConfig(game="kozel", history=True))


def test_a_kozel_history_file_is_one_line(tmp_path):
    game = make_game("kozel")
    path = tmp_path / "kozel-history.npz"
    save_model(Model.initial(game, hidden=(4, 4), history=True), path)
    expected = re.escape(f"model file {str(path)!r} reads the deal's history")
    with pytest.raises(SpecError, match=expected) as err:
        load_model(path, game)
    assert "\n" not in str(err.value)


def test_the_guided_teacher_and_guides_refuse_history_models(tmp_path):
    with pytest.raises(ExperimentError, match="the guided teacher's search keeps no history"):
        check_inputs(TrainConfig(game="coins", history=True, teacher="guided"))
    game = make_game("coins")
    path = _history_model(tmp_path, game)
    with pytest.raises(SpecError, match="reads the deal's history, which the search's tree does not keep"):
        make(f"ismcts:guide=net,model={path}", game, seed=1)


def test_a_history_model_for_other_options_names_them(tmp_path):
    """The history's size depends on the options: the options are named, not the sizes."""
    path = _history_model(tmp_path, make_game("koetsieren", players=2))
    with pytest.raises(SpecError, match="was trained for koetsieren with players=2"):
        load_model(path, make_game("koetsieren"))
