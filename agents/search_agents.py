"""Search agents: ``ismcts``, ``pimc`` and the cheating ``cheat`` (every game).

``ismcts`` and ``pimc`` decide from a seat's view: :meth:`Agent.state_for`
fills the cards the seat cannot see at random, and the search redeals them
from the seat's point of view in every iteration (ISMCTS) or world (PIMC),
so the decision depends only on the view and the seed. With
``belief=inferred`` the worlds are instead those of the seat's belief, rebuilt
from the view's history at every decision (:mod:`slagwerk.search.belief`);
``belief=auto`` (the default) takes the game's choice. ``cheat`` searches
the true state with perfect-information UCT; it is labelled ``cheating``
and only :func:`slagwerk.agents.match.play_match` style harnesses that call
:meth:`decide_true_state` can use it: it measures what hidden information
costs and never plays against people.

Every decision returns its search statistics in ``Decision.stats``:
iterations, per action (in the seat's notation) visits and mean reward,
seconds, tree nodes and tree memory, and the belief used (with an inferred
one, the worlds that agreed with the history, the effective sample size of
their weights and the seconds it took).

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

from dataclasses import replace

from ..engine.bits import derive_seed
from ..engine.game import State
from ..errors import InvalidViewError, SpecError
from ..search.belief import BELIEFS, DEFAULT_PARTICLES, infer
from ..search.guide import DEFAULT_PRIOR_WEIGHT, DEFAULT_TEMPERATURE, Guide
from ..search.ismcts import DEFAULT_C, DEFAULT_ITERATIONS, DEFAULT_NODE_CAP, ismcts
from ..search.pimc import DEFAULT_ITERATIONS_PER_WORLD, DEFAULT_WORLDS, pimc, uct
from ..search.tree import (
    FINAL_CHOICES,
    MAX_PATH,
    MAX_SOLVE_TRICKS,
    OBJECTIVES,
    PLAYOUT_POLICIES,
    SearchResult,
)
from .base import Agent, Decision, ParamSpec
from .model import load_model
from .net import SHIPPED, model_path

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

NET_PLAYOUT = "net"
"""The ``playout`` value meaning the guiding network plays the playouts (with ``guide=net``)."""

GAME_GUIDES = {
    "coins": {"prior": 0.0, "leaf": "playout", "root_weight": 0.5},
}
"""What ``ismcts:guide=auto`` (the default) means in a game where ISMCTS guided so won its SPRT
against the unguided search at equal time (docs/learned.md, "The root blend"): ``guide=net`` with
these settings, for those a spec does not give itself. In the other games, and in a variant (options
other than the defaults, which the shipped model and the SPRT used), ``auto`` is ``none``."""

_GUIDE = {
    "guide": ParamSpec(str, "none", "a learned network guiding the search: none, or net (the model= "
                       "network; docs/learned.md)", choices=("none", "net")),
    "model": ParamSpec(str, SHIPPED, "with guide=net: the model, 'shipped' (the game's own) or a model "
                       "file (command lines only)", names_file=True),
    "prior": ParamSpec(float, DEFAULT_PRIOR_WEIGHT, "with guide=net: weight of the network's prior in "
                       "selection (a progressive bias); 0: no prior", 0.0, 100.0),
    "prior_depth": ParamSpec(int, MAX_PATH, "with guide=net: only nodes less deep than this (the "
                             "root: 0) give their children priors, one network evaluation each; "
                             f"{MAX_PATH}: every node", 1, MAX_PATH),
    "prior_temperature": ParamSpec(float, DEFAULT_TEMPERATURE, "with guide=net: temperature of the "
                                   "prior's softmax over the network's values (in [-1, 1])", 1e-3, 100.0),
    "leaf": ParamSpec(str, "net", "with guide=net: leaves valued by the network (each seat at its next "
                      "turn), by its seat values (value: one evaluation; a model trained with "
                      "--seat-values) or by a playout", choices=("net", "value", "playout")),
    "value_weight": ParamSpec(float, 1.0, "with leaf=value: the network value's weight in a leaf's "
                              "reward, the rest from a playout (below 1, every leaf is played out too)",
                              0.0, 1.0),
    "playout": ParamSpec(str, "random", "playout policy (net: the guiding network's, with guide=net)",
                         choices=(*PLAYOUT_POLICIES, NET_PLAYOUT)),
    "root_weight": ParamSpec(float, 0.0, "with guide=net: the network's weight in the final choice at "
                             "the root, blended with the search's mean rewards; 0: the search's choice",
                             0.0, 1.0),
    "solve": ParamSpec(int, 0, "solve the rest of the deal exactly in each world (max-n) once at most "
                       "this many tricks are left; 0: never", 0, MAX_SOLVE_TRICKS),
}

GAME_MODEL = -1.0
"""A model weight's value meaning "the game's own" (weights themselves are at least 0)."""
MAX_MODEL_WEIGHT = 1e4
MAX_TEMPERATURE = 1e6

_BELIEF = {
    "belief": ParamSpec(str, "auto", "worlds searched: uniform deals, or inferred from the other seats' "
                        "play (auto: the game's default)", choices=("auto", *BELIEFS)),
    "belief_temperature": ParamSpec(float, 0.0, "temperature of the opponent model of belief=inferred "
                                    "(1: as fitted to real play; higher trusts it less); 0 uses the "
                                    "game's value", 0.0, MAX_TEMPERATURE),
    "belief_particles": ParamSpec(int, 0, "worlds replayed and resampled by belief=inferred "
                                  "(and by uniform where the game's determinize misses public facts: "
                                  "Kozel); 0 uses the game's default", 0, 10000, cap="max_worlds"),
    "belief_reads_play": ParamSpec(str, "auto", "whether the opponent model of belief=inferred weighs the "
                                   "card play or only the actions outside it (auto: the game's model; "
                                   "Koetsieren's reads only trump and bids; in Kozel the molodka answers "
                                   "are outside the play)", choices=("auto", "yes", "no")),
    "belief_score_weight": ParamSpec(float, GAME_MODEL, "opponent model of belief=inferred: weight of "
                                     "the heuristic's score of an action (-1 uses the game's model)",
                                     0.0, MAX_MODEL_WEIGHT, also=(GAME_MODEL,)),
    "belief_best_weight": ParamSpec(float, GAME_MODEL, "opponent model of belief=inferred: weight of "
                                    "an action being the heuristic's best (-1 uses the game's model)",
                                    0.0, MAX_MODEL_WEIGHT, also=(GAME_MODEL,)),
}
"""With ``belief_score_weight`` and ``belief_best_weight`` an agent brings its own
opponent model: ``python -m slagwerk.experiments.studies.belief_model --out FILE``
writes them as a parameter file, used as ``ismcts:@FILE`` on a command line or
as a server's ``--params NAME=FILE`` (a request names ``params=NAME``, never
a path)."""


BELIEF_SEED = 18
"""Mixed into a decision's seed for its belief, so the belief's draws differ from the search's."""


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
        options = {k: self.config[k] for k in keys}
        if options["playout"] == NET_PLAYOUT:  # the network plays the deal; later deals are random
            options["playout"] = "random"
        return options

    def _guide(self, given=()) -> Guide | None:
        """The network guiding this agent's search (``guide=net``), or None. ``guide=auto`` is
        resolved into the config first (:data:`GAME_GUIDES`; ``given``: the parameters the spec set)."""
        config = self.config
        if config["guide"] == "auto":
            standard = all(self.game.options.get(key) == spec.default
                           for key, spec in self.game.option_specs.items())
            tuned = GAME_GUIDES.get(self.game.name) if standard else None  # measured with these only
            config["guide"] = "none" if tuned is None else "net"
            config.update({key: value for key, value in (tuned or {}).items() if key not in given})
        if config["guide"] == "none":
            if config["playout"] == NET_PLAYOUT:
                raise SpecError(f"{self.name}: playout=net needs guide=net")
            if config["model"] != SHIPPED:
                raise SpecError(f"{self.name}: model= is the guiding network's, and needs guide=net")
            return None
        path = model_path(config["model"], self.game.name)
        model = load_model(path, self.game)
        if model.reads_history:
            raise SpecError(f"{self.name}: model file {str(path)!r} reads the deal's history, which the "
                            f"search's tree does not keep: guide with a model trained without --history")
        guide = Guide(model.weights, prior=config["prior"], temperature=config["prior_temperature"],
                      leaf=config["leaf"] == "net", playout=config["playout"] == NET_PLAYOUT,
                      prior_depth=config["prior_depth"], value=config["leaf"] == "value",
                      world=model.reads_world, value_weight=config["value_weight"],
                      root_weight=config["root_weight"])
        if not guide.world_kept_to_leaves:
            raise SpecError(f"{self.name}: model file {str(path)!r} reads every seat's cards, so it may only "
                            f"value the search's worlds: give leaf=value,prior=0 (and no playout=net "
                            f"or root_weight)")
        return guide

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

    def _belief(self, state: State, view: dict) -> tuple:
        """The worlds to search (None: determinize) and the belief's statistics."""
        mode = self.config["belief"]
        # A game whose determinize misses some public facts replays the history even
        # for a uniform belief, without an opponent model: hard information only.
        exact = state.game.info.determinize_uses_whole_history
        try:
            script = state.game.replay_script(view) if mode != "uniform" or not exact else None
        except (TypeError, KeyError, ValueError, IndexError) as err:  # a malformed history entry
            raise InvalidViewError(f"the view's history cannot be replayed: {err}") from None
        if mode == "auto":
            mode = "inferred" if script is not None and script.inferred_by_default else "uniform"
        if mode == "uniform" and (exact or script is None):
            return None, {"belief": "uniform"}
        if mode == "uniform":
            temperature = float("inf")
        else:
            script = self._own_model(script)
            temperature = self.config["belief_temperature"] or (
                script.temperature if script is not None else 1.0)
        belief = infer(state, script, state.to_move, temperature=temperature,
                       particles=self.config["belief_particles"] or (
                           script.particles if script is not None else DEFAULT_PARTICLES),
                       seed=derive_seed(self.decision_seed(view), BELIEF_SEED))
        stats = {"belief": mode if belief.worlds is not None else "uniform (no world replayed)",
                 "belief_agreed": belief.agreed, "belief_effective": round(belief.effective, 2),
                 "belief_seconds": round(belief.seconds, 6)}
        return belief.worlds, stats

    def _own_model(self, script):
        """``script`` with the agent's own model (its weights, whether it reads the
        play), where it sets them."""
        own = {field: self.config[f"belief_{field}"] for field in ("score_weight", "best_weight")
               if self.config[f"belief_{field}"] != GAME_MODEL}
        if self.config["belief_reads_play"] != "auto":
            own["reads_play"] = self.config["belief_reads_play"] == "yes"
        if script is None or not own:
            return script
        return replace(script, model=replace(script.model, **own))

    def _budget_after(self, key: str, belief_stats: dict) -> dict:
        """The search budget; a time budget pays for the belief first."""
        budget = self._budget(key)
        if "time_ms" in budget:
            spent = belief_stats.get("belief_seconds", 0.0) * 1000.0
            budget["time_ms"] = max(budget["time_ms"] - spent, 1.0)
        return budget

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
        **_GUIDE,
        "guide": ParamSpec(str, "auto", "a learned network guiding the search: none, net (the model= "
                           "network; docs/learned.md), or auto: the game's choice, net where it won at "
                           "equal time (Coins), none elsewhere", choices=("auto", "none", "net")),
        **_BELIEF,
        "final": _final("most_visits"),
    }

    def __init__(self, game, seed: int = 0, **params):
        super().__init__(game, seed, **params)
        self.guide = self._guide(given=params)

    def decide(self, view: dict) -> Decision:
        state = self._state_to_move(view)
        worlds, belief_stats = self._belief(state, view)
        result = ismcts(state, state.to_move, seed=self.decision_seed(view), worlds=worlds, guide=self.guide,
                        solve=self.config["solve"], **self._budget_after("iterations", belief_stats),
                        **self._tree_options())
        decision = self._decision(state, state.to_move, result)
        decision.stats.update(belief_stats)
        return decision


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
        **_GUIDE,
        **_BELIEF,
        "final": _final("best_mean"),
    }

    def __init__(self, game, seed: int = 0, **params):
        super().__init__(game, seed, **params)
        self.guide = self._guide()

    def resource_use(self) -> list:
        use = super().resource_use()
        if not self.config["time_ms"]:  # a world budget: every world runs its iterations
            total = self.config["worlds"] * self.config["iterations_per_world"]
            use.append(("worlds*iterations_per_world", total, "max_iterations"))
        return use

    def decide(self, view: dict) -> Decision:
        state = self._state_to_move(view)
        worlds, belief_stats = self._belief(state, view)
        result = pimc(state, state.to_move, seed=self.decision_seed(view), worlds_from=worlds,
                      iterations_per_world=self.config["iterations_per_world"],
                      flat=self.config["flat"], guide=self.guide, solve=self.config["solve"],
                      **self._budget_after("worlds", belief_stats), **self._tree_options())
        decision = self._decision(state, state.to_move, result)
        decision.stats.update(belief_stats)
        return decision


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
