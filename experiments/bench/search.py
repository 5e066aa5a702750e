"""Search benchmarks for ``slagwerk bench``: ISMCTS iterations and start-up.

:func:`ismcts_rows` times ISMCTS at the first card decision of a deal, as
repeated searches of :data:`BENCH_ITERATIONS` iterations each (a fresh tree
every search, random playouts, deal objective), and random deal playouts of
the same game in the same run, in interleaved rounds (best of each), so the
ratio ``ratio_to_random_playout`` = cost of one iteration / cost of one
random playout of a whole deal is not skewed by load on the machine.

:func:`startup_rows` times, per game, the first ISMCTS decision of a fresh
Python process: ``cold`` with an empty numba cache (everything compiles)
and ``warm`` in a second process that finds the first one's cache.

Speed is reported, never asserted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from ...agents.workers import slagwerk_command
from ...engine import GAME_NAMES, make_game
from ...engine.bits import make_rng
from ...engine.playout import random_playouts
from ...engine.registry import game_info
from ...engine.state import PHASE_PLAY
from ...search.ismcts import DEFAULT_ITERATIONS, ismcts
from .timing import timed_rate

BENCH_ITERATIONS = DEFAULT_ITERATIONS
"""Iterations of each timed search: the default decision of the ismcts agent."""
BENCH_SEED = 12345


def first_card_decision(game_name: str, seed: int = BENCH_SEED):
    """A state at the first card play of a deal (earlier decisions, such as
    trump and bids, are taken by the heuristic), and the deal-pending state
    before it."""
    game = make_game(game_name, **game_info(game_name).bench_options)
    state = game.new_match()
    pending = state.array.copy()
    state.deal(rng=make_rng(seed))
    rng = make_rng(seed + 1)
    while state.phase != PHASE_PLAY:
        state.apply(int(game.kernels.heuristic_action(state.array, rng)))
    return state, pending


def ismcts_rows(game_names=None, seconds: float = 2.0, rounds: int = 3) -> list[dict]:
    """One row per game: ISMCTS iterations per second at the first card decision
    of a deal, and the cost of an iteration over the cost of a random deal
    playout measured in the same run (``seconds`` per game in all)."""
    rows = []
    share = seconds / (2 * rounds)
    for name in game_names or GAME_NAMES:
        state, pending = first_card_decision(name)
        rng = make_rng(BENCH_SEED)
        random_playouts(pending, 2, rng)  # load or compile outside the clock
        ismcts(state, iterations=2, seed=0)

        def playouts(n, pending=pending, rng=rng):
            random_playouts(pending, n, rng)

        def searches(n, state=state):
            for k in range(n):
                ismcts(state, iterations=BENCH_ITERATIONS, seed=k)

        best_playout = best_search = 0.0
        for _ in range(rounds):
            best_playout = max(best_playout, timed_rate(playouts, share))
            best_search = max(best_search, timed_rate(searches, share) * BENCH_ITERATIONS)
        rows.append({
            "game": name,
            "benchmark": "ismcts_iteration",
            "implementation": "numba",
            "per_second": round(best_search, 1),
            "ratio_to_random_playout": round(best_playout / best_search, 2),
            "note": f"searches of {BENCH_ITERATIONS} iterations, random playouts, deal objective; "
                    f"{round(best_playout, 1)} random deal playouts/s",
        })
    return rows


NET_REFERENCE_ITERATIONS = 1000
"""The ISMCTS search a ``net`` decision is compared with (issue #55: ISMCTS(1000))."""


def net_rows(game_names=None, seconds: float = 2.0, rounds: int = 3) -> list[dict]:
    """Per game, the ``net`` agent's cost of a decision at the first card decision of a deal, as
    a ratio to one random deal playout and to one ISMCTS search of :data:`NET_REFERENCE_ITERATIONS`
    iterations in the same run: ``kernels`` is the network's part (observation, legal indices,
    forward pass and choice), ``agent`` the whole ``decide(view)`` (the view read back into a
    state as well). The network is the default size with untrained weights: the cost is the same."""
    import tempfile as temporary

    import numpy as np

    from ...agents import make
    from ...agents.model import Model, save_model
    from ...engine.registry import observation_module
    from ...search.network import best_index, forward

    rows = []
    share = seconds / (4 * rounds)
    with temporary.TemporaryDirectory(prefix="slagwerk-bench-net-") as folder:
        for name in game_names or GAME_NAMES:
            state, pending = first_card_decision(name)
            game, module = state.game, observation_module(name)
            path = f"{folder}/{name}.npz"
            save_model(Model.initial(game, seed=BENCH_SEED), path)
            agent = make(f"net:model={path}", game, seed=1)
            view = state.view(state.to_move)
            weights = agent.model.weights
            x = np.zeros(module.OBSERVATION_SIZE, np.float32)
            values = np.zeros(module.NUM_ACTIONS, np.float32)
            mask = np.zeros(module.NUM_ACTIONS, np.int8)
            actions = np.zeros(module.NUM_ACTIONS, np.int64)
            rng = make_rng(BENCH_SEED)
            random_playouts(pending, 2, rng)
            ismcts(state, iterations=2, seed=0)
            agent.decide(view)

            def kernels(n, state=state, module=module, x=x, values=values, mask=mask, actions=actions,
                        weights=weights):
                for _ in range(n):
                    module.observe(state.array, state.to_move, x)
                    module.legal_indices(state.array, mask, actions)
                    forward(x, *weights, values)
                    best_index(values, mask)

            def decisions(n, agent=agent, view=view):
                for _ in range(n):
                    agent.decide(view)

            def playouts(n, pending=pending, rng=rng):
                random_playouts(pending, n, rng)

            def searches(n, state=state):
                for k in range(n):
                    ismcts(state, iterations=NET_REFERENCE_ITERATIONS, seed=k)

            best = {"kernels": 0.0, "agent": 0.0, "playout": 0.0, "search": 0.0}
            for _ in range(rounds):
                for key, step in (("kernels", kernels), ("agent", decisions), ("playout", playouts),
                                  ("search", searches)):
                    best[key] = max(best[key], timed_rate(step, share))
            for part in ("kernels", "agent"):
                rows.append({
                    "game": name, "benchmark": f"net_decision_{part}", "implementation": "numba",
                    "per_second": round(best[part], 1),
                    "ms": round(1000.0 / best[part], 4),
                    "ratio_to_random_playout": round(best["playout"] / best[part], 2),
                    f"decisions_per_ismcts_{NET_REFERENCE_ITERATIONS}": round(best[part] / best["search"], 1),
                    "note": "hidden layers 256 and 256; ratio_to_random_playout: a decision costs this "
                            "many random deal playouts",
                })
    return rows


GUIDED_VARIANTS = {"prior+leaf": {}, "leaf": {"prior": 0.0}, "prior": {"leaf": False},
                   "prior_depth2": {"leaf": False, "prior_depth": 2},
                   "playout": {"prior": 0.0, "leaf": False, "playout": True}}
"""The guided searches timed by :func:`guided_rows`: the default guide, each part alone, and
the prior on the tree's top two levels only."""


def guided_rows(game_names=None, seconds: float = 2.0, rounds: int = 3) -> list[dict]:
    """Per game, the cost of one iteration of ISMCTS guided by a network (the default size,
    untrained weights: the cost is the same) in each of :data:`GUIDED_VARIANTS`, as a ratio to
    an unguided ISMCTS iteration timed in the same run, from the first card decision of a deal."""
    from ...agents.model import Model
    from ...search.guide import Guide

    rows = []
    iterations = NET_REFERENCE_ITERATIONS
    share = seconds / ((len(GUIDED_VARIANTS) + 1) * rounds)
    for name in game_names or GAME_NAMES:
        state, _ = first_card_decision(name)
        weights = Model.initial(state.game, seed=BENCH_SEED).weights
        guides = {"none": None} | {label: Guide(weights, **switches)
                                   for label, switches in GUIDED_VARIANTS.items()}
        best = dict.fromkeys(guides, 0.0)
        for guide in guides.values():
            ismcts(state, iterations=2, seed=0, guide=guide)  # compiled or loaded before timing
        for _ in range(rounds):
            for label, guide in guides.items():
                def searches(n, guide=guide, state=state):
                    for k in range(n):
                        ismcts(state, iterations=iterations, seed=k, guide=guide)

                best[label] = max(best[label], timed_rate(searches, share) * iterations)
        for label in GUIDED_VARIANTS:
            rows.append({
                "game": name, "benchmark": f"guided_ismcts_iteration_{label}", "implementation": "numba",
                "per_second": round(best[label], 1), "ms": round(1000.0 / best[label], 4),
                "ratio_to_unguided_iteration": round(best["none"] / best[label], 1),
                "note": f"ISMCTS({iterations}) with guide=net; hidden layers 256 and 256; the ratio: one "
                        f"guided iteration costs this many unguided ones",
            })
    return rows


DEADLINE_MS = 100.0
DEADLINE_RUNS = 5


def deadline_rows(game_names=None) -> list[dict]:
    """Per game, how far past its deadline an ISMCTS search with a time budget
    answers: ``DEADLINE_RUNS`` searches of ``time_ms=DEADLINE_MS`` (the kernel
    checks the clock itself, see :mod:`slagwerk.search.deadline`); the mean and
    the largest overshoot in milliseconds, from the deadline to the answer."""
    rows = []
    for name in game_names or GAME_NAMES:
        state, _ = first_card_decision(name)
        ismcts(state, iterations=2, seed=0)  # load or compile outside the clock
        over = []
        for k in range(DEADLINE_RUNS):
            start = time.perf_counter()
            ismcts(state, time_ms=DEADLINE_MS, seed=k)
            over.append((time.perf_counter() - start) * 1000.0 - DEADLINE_MS)
        rows.append({"game": name, "benchmark": "ismcts_deadline_overshoot", "implementation": "numba",
                     "seconds": round(DEADLINE_MS / 1000.0, 3), "mean_ms": round(sum(over) / len(over), 2),
                     "max_ms": round(max(over), 2),
                     "note": f"answers past a {DEADLINE_MS:g} ms budget, {DEADLINE_RUNS} searches"})
    return rows


STARTUP_SNIPPET = """
import json, sys, time
t0 = time.perf_counter()
from slagwerk.agents import make
from slagwerk.engine import make_game
game = make_game(sys.argv[1])
state = game.new_match(seed=1)
view = state.view(state.to_move)
t1 = time.perf_counter()
decision = make("ismcts", game, seed=1).decide(view)
t2 = time.perf_counter()
print(json.dumps({"in_process": t2 - t0, "decision": t2 - t1, "iterations": decision.stats["iterations"]}))
"""


def startup_rows(game_names=None) -> list[dict]:
    """Per game, measured alone in fresh processes, each game with its own empty
    numba cache: seconds to the first ISMCTS decision (default agent), and
    seconds for a whole ``slagwerk bot`` process to answer one default ISMCTS
    ``act`` request. ``cold`` runs with the empty cache, ``warm`` in a second
    process using the first one's cache. ``decision_seconds`` excludes
    interpreter start and imports (numba loads or compiles kernels on first call)."""
    rows = []
    for name in game_names or GAME_NAMES:
        state = make_game(name).new_match(seed=1)
        request = json.dumps({"id": 1, "type": "act", "game": name, "agent": "ismcts",
                              "view": state.view(state.to_move)})
        for benchmark in ("startup_first_ismcts_decision", "startup_bot_request"):
            with tempfile.TemporaryDirectory(prefix="slagwerk-startup-") as cache:
                env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "SLAGWERK_"))}
                env["SLAGWERK_CACHE_DIR"] = cache
                for kind in ("cold", "warm"):
                    row = {"game": name, "benchmark": benchmark, "implementation": kind}
                    start = time.perf_counter()
                    if benchmark == "startup_bot_request":
                        bot = slagwerk_command("bot", "--time-limit-ms", "0")
                        done = subprocess.run(bot, input=request + "\n", env=env, capture_output=True,
                                              text=True, check=True)
                        answer = json.loads(done.stdout.strip().splitlines()[-1])
                        if "action" not in answer:
                            raise RuntimeError(f"the bot did not answer the {name} request: {answer}")
                    else:
                        out = subprocess.run([sys.executable, "-c", STARTUP_SNIPPET, name], env=env,
                                             capture_output=True, text=True, check=True).stdout
                        decision = json.loads(out.strip().splitlines()[-1])["decision"]
                        row["decision_seconds"] = round(decision, 3)
                    row["seconds"] = round(time.perf_counter() - start, 2)
                    rows.append(row)
    return rows


def main(argv=None) -> int:
    """``python -m slagwerk.experiments.bench.search [--startup] [games...]``: rows as JSON lines."""
    args = list(sys.argv[1:] if argv is None else argv)
    startup = "--startup" in args
    games = [a for a in args if a != "--startup"] or list(GAME_NAMES)
    rows = ismcts_rows(games, 2.0)
    if startup:
        rows += startup_rows(games)
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
