"""The four games as PettingZoo AEC environments (docs/envs.md).

``env(game, render_mode=None, reward="match", **options)`` returns the
environment wrapped as PettingZoo's classic games are (an illegal move ends
the game with reward -1 for the seat that made it, bounds and order
checks); ``raw_env`` is the bare one. Importing this module registers
``slagwerk/<game>_v0`` for ``pettingzoo.make("aec", ...)``.

- Agents ``player_0 .. player_{n-1}`` are the seats.
- Observations ``{"observation": Box(0, 1, float32), "action_mask": Box(0, 1, int8)}``:
  the seat's view only, encoded by the game's numba kernel
  (:mod:`slagwerk.engine.encoding`); the mask is zero except for the seat to move.
  ``history=True`` appends the deal's actions as the seat saw them, one block
  each (OpenSpiel's information-state tensor).
- Actions ``Discrete(A)`` over the game's compact action index.
- Rewards: ``"match"`` (default) the outcome when the match ends, win 1,
  draw 0, loss -1; ``"deal"`` after every deal its normalised score mapped
  to [-1, 1].
- ``render_mode="ansi"`` returns the picture the seat to move sees,
  ``"human"`` prints it. Deals are drawn from the seed given to ``reset``.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..engine import registry
from .encoded import EncodedMatch
from .encoded import require as _require

_require("pettingzoo", "pettingzoo", "slagwerk.envs.pettingzoo")
from gymnasium import spaces  # noqa: E402  (after the check that PettingZoo is installed)
from pettingzoo import AECEnv  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

ILLEGAL_MOVE_REWARD = -1.0


class SlagwerkAECEnv(AECEnv):
    """One slagwerk game as a PettingZoo AEC environment (unwrapped)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "slagwerk_v0", "is_parallelizable": False}

    def __init__(self, game: str, render_mode: str | None = None, reward: str = "match",
                 max_cycles: int | None = None, seed: int | None = None, **options):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        if max_cycles is not None and (isinstance(max_cycles, bool) or not isinstance(max_cycles, int)
                                       or max_cycles < 1):
            raise ValueError(f"max_cycles must be a positive integer or None, not {max_cycles!r}")
        self.match = EncodedMatch(game, seed=seed, reward=reward, **options)
        self.metadata = {**self.metadata, "name": f"{game}_v0"}
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        n = self.match.n_players
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self._seat = {agent: s for s, agent in enumerate(self.possible_agents)}
        module = self.match.module
        observation = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.match.observation_size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (module.NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(module.NUM_ACTIONS) for agent in self.possible_agents}
        self._no_mask = np.zeros(module.NUM_ACTIONS, dtype=np.int8)
        self._steps = 0

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.match.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.match.to_move]
        self._steps = 0

    def observe(self, agent):
        seat = self._seat[agent]
        mover = not self.match.is_over and seat == self.match.to_move
        mask = self.match.mask().copy() if mover else self._no_mask.copy()
        return {"observation": self.match.observe(seat), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if isinstance(action, bool) or not isinstance(action, numbers.Integral):
            raise ValueError(f"an action is an integer index of the action space, not {action!r}")
        rewards = self.match.step(int(action))
        self._cumulative_rewards[agent] = 0.0
        self._steps += 1
        for a in self.agents:
            self.rewards[a] = 0.0
        if rewards is not None:
            for a in self.agents:
                self.rewards[a] = rewards[self._seat[a]]
        if self.match.is_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % len(self.possible_agents)]
        else:
            if self.max_cycles is not None and self._steps >= self.max_cycles * len(self.possible_agents):
                self.truncations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.possible_agents[self.match.to_move]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            return None
        # once the match is over nobody is selected: show the first seat's picture, named as such
        agent = self.agent_selection if self.agents else self.possible_agents[0]
        text = f"{agent} sees:\n{self.match.render(self._seat[agent])}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass


def raw_env(game: str, render_mode: str | None = None, **kwargs) -> SlagwerkAECEnv:
    """The unwrapped environment of ``game`` (options as keywords)."""
    return SlagwerkAECEnv(game, render_mode=render_mode, **kwargs)


def env(game: str, render_mode: str | None = None, **kwargs):
    """The environment of ``game`` wrapped as PettingZoo's classic games are."""
    wrapped = raw_env(game, render_mode=render_mode, **kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=ILLEGAL_MOVE_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def env_id(game: str) -> str:
    return f"slagwerk/{game}_v0"


def register() -> list[str]:
    """Register ``slagwerk/<game>_v0`` for ``pettingzoo.make("aec", ...)`` (done on import)."""
    import pettingzoo

    ids = []
    for info in registry.game_infos():
        if info.observation:
            pettingzoo.aec_registry.pop(env_id(info.name), None)  # re-registering is no override
            pettingzoo.register("aec", env_id(info.name), entry_point=env, kwargs={"game": info.name})
            ids.append(env_id(info.name))
    return ids


register()
