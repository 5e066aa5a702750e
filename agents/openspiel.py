"""OpenSpiel's own search as slagwerk agents: ``openspiel-ismcts`` and ``openspiel-mcts``.

They play OpenSpiel's Python ``ISMCTSBot`` and ``MCTSBot`` (with OpenSpiel's
``RandomRolloutEvaluator``) on the games of :mod:`slagwerk.envs.openspiel`,
so slagwerk's search can be ranked against an implementation nobody here
wrote (OpenSpiel's ``evaluate_bots`` cannot run Python games: slagwerk's
own match loop plays them). Returns are in [-1, 1], so the exploration
constant ``c = 1.4`` is slagwerk's ``ismcts`` default 0.7 on its [0, 1]
rewards.

- ``openspiel-ismcts`` decides from a seat's view: the view becomes an
  OpenSpiel state whose unseen cards are dealt at random
  (:func:`~slagwerk.envs.openspiel.state_from_view`), and every simulation
  redeals them through ``resample_from_infostate`` (the engine's
  ``determinize``), seeded from the decision's seed.
- ``openspiel-mcts`` searches the true state: it sees every card, a cheating
  measuring stick like ``cheat``, never for play against people.

Both need OpenSpiel (``pip install 'slagwerk[openspiel]'``, Python 3.11 or
newer); without it, making one is a one-line error.
"""

from __future__ import annotations

import time

import numpy as np

from ..engine.bits import derive_seed, make_rng
from ..engine.game import Game, State
from ..errors import InvalidViewError, SpecError
from .base import Agent, Decision, ParamSpec

_OBJECTIVE = ParamSpec(str, "deal", "what the search maximises: the deal's score or the match outcome",
                       choices=("deal", "match"))
_C = ParamSpec(float, 1.4, "UCT exploration constant (returns in [-1, 1])", 0.0, 100.0)
_ROLLOUTS = ParamSpec(int, 1, "random rollouts per leaf evaluation", 1, 1000, cap="max_iterations")


def _openspiel(agent: str):
    """slagwerk's OpenSpiel module and OpenSpiel's search algorithms, or a one-line SpecError."""
    from ..envs.encoded import MissingDependency

    try:
        from ..envs import openspiel as games
    except MissingDependency:
        raise SpecError(f"agent {agent!r} needs OpenSpiel, which is not installed: pip install "
                        f"'slagwerk[openspiel]' (OpenSpiel has wheels for Python 3.11 and newer)") from None
    from open_spiel.python.algorithms import ismcts, mcts

    return games, ismcts, mcts


class _OpenSpielAgent(Agent):
    @classmethod
    def unavailable(cls, game_name: str) -> str | None:
        import importlib.util

        return None if importlib.util.find_spec("pyspiel") else "OpenSpiel is not installed"

    def __init__(self, game: Game, seed: int = 0, **params):
        super().__init__(game, seed=seed, **params)
        self._games, self._ismcts, self._mcts = _openspiel(self.name)
        self._os_game = self._games.load_game(game.name, objective=self.config["objective"], **game.options)

    def _evaluator(self, random_state):
        return self._mcts.RandomRolloutEvaluator(self.config["rollouts"], random_state)


class OpenSpielISMCTSAgent(_OpenSpielAgent):
    """OpenSpiel's Python ``ISMCTSBot`` from a seat's view."""

    name = "openspiel-ismcts"
    description = "OpenSpiel's Python ISMCTSBot (random rollouts): an independent IS-MCTS"
    params = {
        "simulations": ParamSpec(int, 1000, "simulations per decision", 1, 10**7, cap="max_iterations"),
        "time_ms": ParamSpec(float, 0.0, "wall-time budget in ms; 0 uses the simulation budget", 0.0,
                             600000.0, cap="max_time_ms"),
        "c": _C,
        "rollouts": _ROLLOUTS,
        "objective": _OBJECTIVE,
    }

    def resource_use(self) -> list:
        use = super().resource_use()
        if self.config["time_ms"] > 0:
            use = [item for item in use if item[0] != "simulations"]
        return use

    def decide(self, view: dict) -> Decision:
        seed = self.decision_seed(view)
        state = self._games.state_from_view(self._os_game, view, seed=seed)
        seat = view.get("seat")
        if state.current_player() != seat:
            raise InvalidViewError(f"seat {seat!r} is not to move in this view")
        bot = _TimedISMCTSBot(
            self._ismcts, self._os_game, self._evaluator(np.random.RandomState(seed & 0xFFFFFFFF)),
            uct_c=self.config["c"], max_simulations=self.config["simulations"],
            seconds=self.config["time_ms"] / 1000.0,
            random_state=np.random.RandomState((seed >> 32) & 0xFFFFFFFF),
        )
        rng = make_rng(seed)
        bot.set_resampler(lambda s, player: s.resample(player, rng))
        start = time.perf_counter()
        index = int(bot.step(state))
        seconds = time.perf_counter() - start
        engine = state.engine_state()
        root = getattr(bot, "_root_node", None)
        per_action = {}
        if root is not None:
            for action, child in root.child_info.items():
                text = self.game.action_text(engine, state.engine_action(int(action)), seat)
                per_action[text] = {"visits": int(child.visits),
                                    "value": round(float(child.value()) if child.visits else 0.0, 4)}
        stats = {"iterations": bot.simulations, "actions": per_action, "seconds": round(seconds, 6)}
        return Decision(self.game.action_text(engine, state.engine_action(index), seat), stats)


class OpenSpielMCTSAgent(_OpenSpielAgent):
    """OpenSpiel's Python ``MCTSBot`` on the true state. Cheats: for measurement only."""

    name = "openspiel-mcts"
    description = "CHEATING reference: OpenSpiel's Python MCTSBot on the true state (sees every card)"
    cheating = True
    params = {
        "simulations": ParamSpec(int, 1000, "simulations per decision", 1, 10**7, cap="max_iterations"),
        "c": _C,
        "rollouts": _ROLLOUTS,
        "objective": _OBJECTIVE,
    }

    def decide(self, view: dict) -> Decision:
        raise InvalidViewError(
            "openspiel-mcts sees the true state, not a view: use decide_true_state (measurement only)"
        )

    def decide_true_state(self, state: State) -> Decision:
        seat = state.to_move
        played = len(state.deals[-1].actions) if state.deals else 0
        seed = derive_seed(self.seed, state.deal_number, played, seat)
        os_state = self._games.state_from_engine(self._os_game, state)
        random_state = np.random.RandomState(seed & 0xFFFFFFFF)
        bot = self._mcts.MCTSBot(self._os_game, self.config["c"], self.config["simulations"],
                                 self._evaluator(random_state), solve=False, random_state=random_state)
        start = time.perf_counter()
        index = int(bot.step(os_state))
        stats = {"iterations": self.config["simulations"], "seconds": round(time.perf_counter() - start, 6)}
        return Decision(self.game.action_text(state, os_state.engine_action(index), seat), stats)


class _TimedISMCTSBot:
    """OpenSpiel's ``ISMCTSBot`` with a wall-time budget besides its simulation
    budget: the search loop of its ``run_search`` with a deadline (OpenSpiel's
    bot has only the count). Built on first use, as OpenSpiel is optional."""

    def __new__(cls, ismcts, game, evaluator, uct_c, max_simulations, seconds, random_state):
        bot = _timed_class(ismcts)(game, evaluator, uct_c, max_simulations, random_state=random_state)
        bot.seconds = seconds
        bot.simulations = 0
        return bot


_TIMED = {}


def _timed_class(ismcts):
    if "class" not in _TIMED:
        class TimedISMCTSBot(ismcts.ISMCTSBot):
            def run_search(self, state):
                self.reset()
                legal_actions = state.legal_actions()
                if len(legal_actions) == 1:
                    return [(legal_actions[0], 1.0)]
                self._root_node = self.create_new_node(state)
                root_key = self.get_state_key(state)
                deadline = time.perf_counter() + self.seconds if self.seconds > 0 else None
                self.simulations = 0
                # at least two simulations: the first only expands the root
                while (self.simulations < 2 or (
                        time.perf_counter() < deadline if deadline is not None
                        else self.simulations < self._max_simulations)):
                    sampled = self.sample_root_state(state)
                    if root_key != self.get_state_key(sampled):
                        raise RuntimeError("a resampled state changed the searching seat's information state")
                    self.run_simulation(sampled)
                    self.simulations += 1
                return self.get_final_policy(state, self._root_node)

        _TIMED["class"] = TimedISMCTSBot
    return _TIMED["class"]
