"""Search agents: ``ismcts``, ``pimc`` and the cheating ``cheat`` (every game).

``ismcts`` and ``pimc`` decide from a seat's view: :meth:`Agent.state_for`
fills the cards the seat cannot see at random, and the search redeals them
from the seat's point of view in every iteration (ISMCTS) or world (PIMC),
so the decision depends only on the view and the seed. ``cheat`` searches
the true state with perfect-information UCT; it is labelled ``cheating``
and only :func:`slagwerk.agents.match.play_match` style harnesses that call
:meth:`decide_true_state` can use it: it measures what hidden information
costs and never plays against people.

Every decision returns its search statistics in ``Decision.stats``:
iterations, per action (in the seat's notation) visits and mean reward,
seconds, tree nodes and tree memory.

>>> from slagwerk.engine import make_game
>>> from slagwerk.agents import make
>>> game = make_game("coins")
>>> state = game.new_match(seed=3)
>>> agent = make("ismcts:iterations=200", game, seed=1)
>>> decision = agent.decide(state.view(state.to_move))
>>> decision.action in state.legal_texts(), decision.stats["iterations"]
(True, 200)
"""

from __future__ import annotations

from ..engine.bits import derive_seed
from ..engine.errors import InvalidViewError
from ..engine.game import State
from ..search.ismcts import DEFAULT_C, DEFAULT_ITERATIONS, DEFAULT_NODE_CAP, ismcts
from ..search.pimc import DEFAULT_ITERATIONS_PER_WORLD, DEFAULT_WORLDS, pimc, uct
from ..search.tree import FINAL_CHOICES, OBJECTIVES, PLAYOUT_POLICIES, SearchResult
from .base import Agent, Decision, ParamSpec

_COMMON = {
    "time_ms": ParamSpec(float, 0.0, "wall-time budget in ms; 0 uses the iteration budget", 0.0, 600000.0,
                         cap="max_time_ms"),
    "c": ParamSpec(float, DEFAULT_C, "UCB1 exploration constant (rewards in [0, 1])", 0.0, 100.0),
    "playout": ParamSpec(str, "random", "playout policy", choices=tuple(PLAYOUT_POLICIES)),
    "objective": ParamSpec(str, "deal", "reward: the deal's score or the match outcome",
                           choices=tuple(OBJECTIVES)),
    "node_cap": ParamSpec(int, DEFAULT_NODE_CAP, "most tree nodes (memory bound)", 2, 1 << 26,
                          cap="max_nodes"),
}


def _final(default: str) -> ParamSpec:
    return ParamSpec(str, default, "final choice at the root", choices=tuple(FINAL_CHOICES))


class _SearchAgent(Agent):
    """Shared plumbing: budgets from the config, statistics in notation."""

    budget_key: str = "iterations"
    """The parameter that is the budget unless ``time_ms`` sets one."""

    def resource_use(self) -> list:
        use = super().resource_use()
        if self.config["time_ms"] > 0:  # a time budget: the count budget is not used
            use = [item for item in use if item[0] != self.budget_key]
        return use

    def _budget(self, key: str) -> dict:
        if self.config["time_ms"] > 0:
            return {"time_ms": self.config["time_ms"]}
        return {key: self.config[key]}

    def _tree_options(self) -> dict:
        keys = ("c", "final", "playout", "objective", "node_cap")
        return {k: self.config[k] for k in keys}

    def _decision(self, state: State, seat: int, result: SearchResult) -> Decision:
        game = state.game
        per_action = {
            game.action_text(state, int(a), seat): {"visits": int(v), "value": round(float(m), 4)}
            for a, v, m in zip(result.actions, result.visits, result.values)
        }
        stats = {
            "iterations": result.iterations,
            "actions": per_action,
            "seconds": round(result.seconds, 6),
            "tree_nodes": result.nodes,
            "memory_bytes": result.memory_bytes,
        }
        if result.worlds:
            stats["worlds"] = result.worlds
        return Decision(game.action_text(state, result.action, seat), stats)

    def _state_to_move(self, view: dict) -> State:
        state = self.state_for(view)
        if state.to_move < 0 or state.to_move != view.get("seat"):
            raise InvalidViewError(f"seat {view.get('seat')!r} is not to move in this view")
        return state


class ISMCTSAgent(_SearchAgent):
    """Single-observer information set MCTS (:func:`slagwerk.search.ismcts.ismcts`)."""

    name = "ismcts"
    description = "SO-ISMCTS: one tree of the seat's information sets, a redeal per iteration"
    params = {
        "iterations": ParamSpec(int, DEFAULT_ITERATIONS, "iterations per decision", 1, 10**9,
                                cap="max_iterations"),
        **_COMMON,
        "final": _final("most_visits"),
    }

    def decide(self, view: dict) -> Decision:
        state = self._state_to_move(view)
        result = ismcts(state, state.to_move, seed=self.decision_seed(view),
                        **self._budget("iterations"), **self._tree_options())
        return self._decision(state, state.to_move, result)


class PIMCAgent(_SearchAgent):
    """Determinized search (:func:`slagwerk.search.pimc.pimc`): UCT or flat MC per world."""

    name = "pimc"
    description = "PIMC: perfect-information search of sampled worlds, values summed over worlds"
    budget_key = "worlds"
    params = {
        "worlds": ParamSpec(int, DEFAULT_WORLDS, "determinizations per decision", 1, 10**6,
                            cap="max_worlds"),
        "iterations_per_world": ParamSpec(int, DEFAULT_ITERATIONS_PER_WORLD, "search budget per world",
                                          1, 10**9, cap="max_iterations"),
        "flat": ParamSpec(bool, False, "flat Monte Carlo per world instead of UCT"),
        **_COMMON,
        "final": _final("best_mean"),
    }

    def resource_use(self) -> list:
        use = super().resource_use()
        if not self.config["time_ms"]:  # a world budget: every world runs its iterations
            total = self.config["worlds"] * self.config["iterations_per_world"]
            use.append(("worlds*iterations_per_world", total, "max_iterations"))
        return use

    def decide(self, view: dict) -> Decision:
        state = self._state_to_move(view)
        result = pimc(state, state.to_move, seed=self.decision_seed(view),
                      iterations_per_world=self.config["iterations_per_world"],
                      flat=self.config["flat"], **self._budget("worlds"), **self._tree_options())
        return self._decision(state, state.to_move, result)


class CheatAgent(_SearchAgent):
    """Perfect-information UCT on the true state. Cheats: for measurement only."""

    name = "cheat"
    description = "CHEATING reference: UCT that sees every card (measures the cost of hidden information)"
    cheating = True
    params = {
        "iterations": ParamSpec(int, DEFAULT_ITERATIONS, "iterations per decision", 1, 10**9,
                                cap="max_iterations"),
        **_COMMON,
        "final": _final("most_visits"),
    }

    def decide(self, view: dict) -> Decision:
        raise InvalidViewError(
            "the cheat agent sees the true state, not a view: use decide_true_state (measurement only)"
        )

    def decide_true_state(self, state: State) -> Decision:
        seat = state.to_move
        played = len(state.deals[-1].actions) if state.deals else 0
        seed = derive_seed(self.seed, state.deal_number, played, seat)
        result = uct(state, seat, seed=seed, **self._budget("iterations"), **self._tree_options())
        return self._decision(state, seat, result)
