"""The learned agent ``net``: the action a trained network values most, from the seat's encoding.

``net:model=FILE`` plays the model trained into FILE (``slagwerk train``);
``net`` alone plays the model slagwerk ships for the game. A command line may
name a file; a bot request or the web page may not (they name shipped models
only, :data:`SHIPPED`). The network reads the seat's observation, which holds
nothing the seat cannot see (a model trained with ``--history`` reads the deal's
history too, rebuilt from the view: :mod:`slagwerk.engine.history`), and its
forward pass runs in numba on the file's numpy weights.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..engine.history import history_input
from ..engine.registry import observation_module
from ..errors import InvalidViewError, SpecError
from ..search.network import best_index, forward
from .base import Agent, Decision, ParamSpec
from .model import Model, load_model

SHIPPED = "shipped"
"""The ``model`` value meaning the model slagwerk ships for the game."""
MODELS_FOLDER = Path(__file__).with_name("models")
"""Where shipped models are: ``<game>.npz``."""


def shipped_path(game_name: str) -> Path:
    """Where the model slagwerk ships for ``game_name`` is (if it ships one)."""
    return MODELS_FOLDER / f"{game_name}.npz"


def model_path(model: str, game_name: str) -> Path:
    """The file of ``model`` (a path, or :data:`SHIPPED`) for game ``game_name``."""
    path = shipped_path(game_name) if model == SHIPPED else Path(model)
    if model == SHIPPED and not path.is_file():
        raise SpecError(f"no model ships for {game_name} in this slagwerk: give net:model=FILE "
                        f"(slagwerk train {game_name} --out FILE makes one)")
    return path


class NetAgent(Agent):
    """Plays the legal action with the highest value of a trained network (:mod:`slagwerk.search.network`)."""

    name = "net"
    description = "a network trained by self-play: the legal action it values most"
    params = {
        "model": ParamSpec(str, SHIPPED, "the model: 'shipped' (the game's own) or a model file "
                           "(command lines only; slagwerk train writes one)", names_file=True),
    }

    @classmethod
    def unavailable(cls, game_name: str) -> str | None:
        return None if shipped_path(game_name).is_file() else f"no model ships for {game_name}"

    def __init__(self, game, seed: int = 0, **params):
        super().__init__(game, seed, **params)
        path = model_path(self.config["model"], game.name)
        self.model: Model = load_model(path, game)
        if self.model.reads_world:
            raise SpecError(f"net: model file {str(path)!r} reads every seat's cards, so it cannot play: "
                            f"it values a guided search's worlds (ismcts:guide=net,leaf=value,prior=0)")
        self.module = observation_module(game.name)
        self._x = np.zeros(self.model.input_size, dtype=np.float32)
        self._values = np.zeros(self.model.weights[-1].shape[0], dtype=np.float32)  # and any seat values
        self._mask = np.zeros(self.module.NUM_ACTIONS, dtype=np.int8)
        self._actions = np.zeros(self.module.NUM_ACTIONS, dtype=np.int64)

    def decide(self, view: dict) -> Decision:
        state = self.state_for(view)  # hidden cards at random: the observation reads none of them
        seat = view.get("seat")
        if state.to_move != seat:
            raise InvalidViewError("the view's seat is not to move")
        self.module.observe(state.array, seat, self._x[: self.module.OBSERVATION_SIZE])
        if self.model.reads_history:
            try:
                history_input(state.game, view, seat, self.decision_seed(view),
                              self._x[self.module.OBSERVATION_SIZE :], world=state.array)
            except (TypeError, KeyError, ValueError, IndexError) as err:  # malformed or impossible
                raise InvalidViewError(f"the view's history cannot be replayed: {err}") from None
        self.module.legal_indices(state.array, self._mask, self._actions)
        forward(self._x, *self.model.weights, self._values)
        index = best_index(self._values[: self.module.NUM_ACTIONS], self._mask)
        action = self.game.action_text(state, int(self._actions[index]), seat)
        return Decision(action, {"value": float(self._values[index])})
