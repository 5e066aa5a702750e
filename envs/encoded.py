"""What the environments share: a match played on the kernels through a game's
observation encoding and compact action index (:mod:`slagwerk.engine.encoding`).

:class:`EncodedMatch` deals from a seeded generator, observes a seat (the
seat's view only, as numbers), lists the legal indices and applies one. The
PettingZoo environment and the OpenSpiel game are thin layers over it.
"""

from __future__ import annotations

import importlib
import json

import numpy as np

from .. import json_check
from ..engine import make_game, registry
from ..engine.bits import make_rng
from ..engine.game import State
from ..engine.seeds import SEED_RANGE, is_seed
from ..engine.state import (
    OBJECTIVE_DEAL,
    OBJECTIVE_MATCH,
    PHASE,
    PHASE_DEAL_PENDING,
    PHASE_MATCH_OVER,
    TO_MOVE,
)
from ..errors import OptionError, SlagwerkError
from ..kernel_cache import compiling

REWARDS = ("match", "deal")
"""Reward schemes: the match outcome at its end (win 1, draw 0, loss -1), or
after every deal its normalised score mapped to [-1, 1]."""


class MissingDependency(SlagwerkError):
    """An optional framework (PettingZoo, OpenSpiel) is not installed."""


def require(module: str, extra: str, what: str):
    """Import ``module`` or raise :class:`MissingDependency` in one line saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        note = " (OpenSpiel publishes wheels for Python 3.11 and newer)" if extra == "openspiel" else ""
        raise MissingDependency(
            f"{what} needs {module}, which is not installed: pip install 'slagwerk[{extra}]'{note}"
        ) from None


def encoding(game_name: str, history: bool = False):
    """The observation module of ``game_name``; :class:`OptionError` if it declares none
    (or, with ``history``, none of the deal's actions). Importing it compiles nothing."""
    module = registry.observation_module(game_name)
    if history and not hasattr(module, "observe_step"):
        raise OptionError(f"game {game_name!r} declares no encoding of its history (observe_step)")
    return module


ENCODING_COMPILE_SECONDS = 3
"""About how long a game's encoding (and the rules kernels it calls) compiles
with an empty cache (two cores, 2026-12-04: 1.8-3.2 s a game)."""


def load(game_name: str, options: dict):
    """The game with ``options`` and its observation module, compiled (announced once)."""
    game = make_game(game_name, **options)
    with compiling([game_name], part="encoding", seconds=ENCODING_COMPILE_SECONDS,
                   label="observation encoding"):
        module = encoding(game_name)
        state = game.new_match(seed=0)
        module.observe(state.array, state.to_move, np.zeros(module.OBSERVATION_SIZE, np.float32))
        module.legal_indices(state.array, np.zeros(module.NUM_ACTIONS, np.int8),
                             np.zeros(module.NUM_ACTIONS, np.int64))
    return game, module


SETTINGS_SCHEMA = {"type": "object", "properties": {
    "reward": {"enum": list(REWARDS), "description": "match: the match's result when it ends; deal: "
               "each deal's points as it ends"},
    "history": {"type": "boolean", "description": "whether the observation carries the deal's actions"}}}
"""The environments' own settings (beside the game's options)."""


def seat_rewards(kernels, array: np.ndarray, objective: int, n: int) -> list[float]:
    """Per-seat rewards in [-1, 1]: ``2 * returns - 1`` of the engine's ``returns``."""
    out = np.zeros(n, dtype=np.float64)
    kernels.returns(array, objective, out)
    return [float(2.0 * v - 1.0) for v in out]


class EncodedMatch:
    """A match on the kernels, seen through a game's encoding.

    >>> match = EncodedMatch("coins", seed=3)
    >>> match.to_move, int(match.mask().sum())
    (1, 16)
    >>> match.step(int(np.flatnonzero(match.mask())[0]))
    >>> match.to_move
    2
    """

    def __init__(self, game_name: str, seed: int | None = None, reward: str = "match",
                 history: bool = False, **options):
        # said before anything compiles
        json_check.check({"reward": reward, "history": history}, SETTINGS_SCHEMA, error=OptionError)
        encoding(game_name, history)
        self.game, self.module = load(game_name, options)
        self.kernels = self.game.kernels
        self.reward = reward
        self.n_players = self.game.n_players
        self.history = history
        self.observation_size = self.module.OBSERVATION_SIZE
        if history:  # the deal's actions, one block each, as every seat saw them (encoding.py)
            steps = self.module.max_deal_steps(self.game.options_array)
            self._blocks = np.zeros((self.n_players, steps, self.module.STEP_SIZE), dtype=np.float32)
            self._steps_done = 0
            self.observation_size += steps * self.module.STEP_SIZE
        self.array = np.zeros(self.kernels.STATE_SIZE, dtype=np.int64)
        self._deal = np.zeros(self.kernels.DEAL_SIZE, dtype=np.int64)
        self._mask = np.zeros(self.module.NUM_ACTIONS, dtype=np.int8)
        self._actions = np.zeros(self.module.NUM_ACTIONS, dtype=np.int64)
        self._legal_fresh = False
        self.rng = make_rng(int(np.random.SeedSequence().entropy) >> 65)  # a given seed replaces it
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """A new match, its first deal dealt; with ``seed``, from a generator seeded so."""
        if seed is not None:
            if not is_seed(seed):
                raise ValueError(f"seed must be {SEED_RANGE} or None, not {seed!r}")
            self.rng = make_rng(int(seed))
        self.kernels.init_match(self.array, self.game.options_array)
        self._deal_next()

    def _deal_next(self) -> None:
        self.kernels.random_deal(self.array, self.rng, self._deal)
        self.kernels.apply_deal(self.array, self._deal)
        self._legal_fresh = False
        if self.history:
            self._blocks[:] = 0.0
            self._steps_done = 0

    @property
    def to_move(self) -> int:
        return int(self.array[TO_MOVE])

    @property
    def is_over(self) -> bool:
        return int(self.array[PHASE]) == PHASE_MATCH_OVER

    def observe(self, seat: int) -> np.ndarray:
        """``seat``'s observation; with ``history``, followed by the deal's action blocks."""
        out = np.empty(self.observation_size, dtype=np.float32)
        self.module.observe(self.array, seat, out[: self.module.OBSERVATION_SIZE])
        if self.history:
            out[self.module.OBSERVATION_SIZE :] = self._blocks[seat].ravel()
        return out

    def mask(self) -> np.ndarray:
        """The legal indices of the seat to move (a view of a buffer: copy to keep it)."""
        if not self._legal_fresh:
            self.module.legal_indices(self.array, self._mask, self._actions)
            self._legal_fresh = True
        return self._mask

    def legal_actions(self) -> np.ndarray:
        """The engine's action of each legal index (by index; read where :meth:`mask` is 1)."""
        self.mask()
        return self._actions

    def legal(self, index) -> bool:
        return 0 <= index < len(self._mask) and bool(self.mask()[index])

    def step(self, index: int) -> list[float] | None:
        """Apply legal index ``index``; deal the next deal when one ends. Returns
        the seats' rewards when this step earns some (the match's end, or with
        ``reward="deal"`` a deal's end), else ``None``."""
        action = self._actions[index] if self.legal(index) else None
        if action is None:
            raise ValueError(f"action {index} is not legal for seat {self.to_move} of {self.game.name}")
        before = self.array.copy() if self.history else None
        self.kernels.apply_action(self.array, action)
        self._legal_fresh = False
        if self.history:
            self._record(before, action)
        phase = int(self.array[PHASE])
        if phase == PHASE_MATCH_OVER:
            objective = OBJECTIVE_DEAL if self.reward == "deal" else OBJECTIVE_MATCH
            return seat_rewards(self.kernels, self.array, objective, self.n_players)
        if phase == PHASE_DEAL_PENDING:
            rewards = (seat_rewards(self.kernels, self.array, OBJECTIVE_DEAL, self.n_players)
                       if self.reward == "deal" else None)
            self._deal_next()
            return rewards
        return None

    def _record(self, before: np.ndarray, action: int) -> None:
        """Every seat's block of the action just taken from ``before``."""
        if self._steps_done == self._blocks.shape[1]:  # max_deal_steps is a bound the rules guarantee
            raise RuntimeError(f"more actions in one {self.game.name} deal than its history has room for "
                               f"({self._blocks.shape[1]})")
        for seat in range(self.n_players):
            self.module.observe_step(before, self.array, seat, action, self._blocks[seat, self._steps_done])
        self._steps_done += 1

    def state(self) -> State:
        """The match as an engine :class:`State` (no history), for notation and pictures."""
        return State(self.game, self.array)

    def render(self, seat: int) -> str:
        """``seat``'s picture of the match: what it sees, in the game's notation."""
        return self.game.render(self.state(), seat)


def view_text(game, array: np.ndarray, seat: int) -> str:
    """``seat``'s view (without the deal's history) as compact JSON text."""
    view = game.view(State(game, array), seat)
    view.pop("history", None)
    return json.dumps(view, separators=(",", ":"))
