"""``slagwerk bench`` rows for the inferred belief: what it adds to an ISMCTS decision.

:func:`belief_rows` times, per game, at a position in the middle of a deal
(the heuristic plays up to it, so the history has something to replay),
1,000-iteration ISMCTS decisions with ``belief=uniform`` and with
``belief=inferred`` (belief set-up included: the replay script, the
particles and the search), and random deal playouts, in interleaved rounds
(best of each, CPU time). It reports the cost of an inferred iteration as a
ratio to a uniform one and to a random playout. Speed is reported, never
asserted.
"""

from __future__ import annotations

from ..engine import GAME_NAMES
from ..engine.bits import make_rng
from ..engine.playout import random_playouts
from ..engine.state import PHASE_PLAY
from ..search.belief import infer
from ..search.ismcts import ismcts
from .search_bench import BENCH_SEED, first_card_decision
from .timing import timed_rate

BELIEF_BENCH_ITERATIONS = 1000
"""Iterations of each timed decision (the budget the issue's speed goal names)."""


def mid_deal(game_name: str):
    """A position about half-way through a deal's tricks (heuristic play from the
    first card decision), its seat's view, and the deal-pending state before it."""
    state, pending = first_card_decision(game_name)
    game = state.game
    rng = make_rng(BENCH_SEED + 2)
    half = max(1, game.view_max_tricks // 2)
    while state.to_move >= 0 and (state.phase != PHASE_PLAY or state.tricks_done < half):
        state.apply(int(game.kernels.heuristic_action(state.array, rng)))
    return state, state.view(state.to_move), pending


def belief_rows(game_names=None, seconds: float = 2.0, rounds: int = 3) -> list[dict]:
    """One row per game (see the module doc); ``seconds`` per game in all."""
    rows = []
    share = seconds / (3 * rounds)
    for name in game_names or GAME_NAMES:
        state, view, pending = mid_deal(name)
        game = state.game
        seat = state.to_move
        rebuilt = game.state_from_view(view, seed=1)
        rng = make_rng(BENCH_SEED)
        random_playouts(pending, 2, rng)  # load or compile outside the clock
        script = rebuilt.game.replay_script(view)
        infer(rebuilt, script, seat, temperature=script.temperature, particles=2, seed=0)
        ismcts(rebuilt, iterations=2, seed=0)

        def playouts(n, pending=pending, rng=rng):
            random_playouts(pending, n, rng)

        def uniform(n, rebuilt=rebuilt):
            for k in range(n):
                ismcts(rebuilt, iterations=BELIEF_BENCH_ITERATIONS, seed=k)

        def inferred(n, rebuilt=rebuilt, view=view, seat=seat):
            for k in range(n):
                script = rebuilt.game.replay_script(view)
                belief = infer(rebuilt, script, seat, temperature=script.temperature,
                               particles=script.particles, seed=k)
                ismcts(rebuilt, iterations=BELIEF_BENCH_ITERATIONS, seed=k, worlds=belief.worlds)

        best = {"playout": 0.0, "uniform": 0.0, "inferred": 0.0}
        for _ in range(rounds):
            best["playout"] = max(best["playout"], timed_rate(playouts, share))
            best["uniform"] = max(best["uniform"], timed_rate(uniform, share) * BELIEF_BENCH_ITERATIONS)
            best["inferred"] = max(best["inferred"], timed_rate(inferred, share) * BELIEF_BENCH_ITERATIONS)
        rows.append({
            "game": name,
            "benchmark": "ismcts_iteration_inferred",
            "implementation": "numba",
            "per_second": round(best["inferred"], 1),
            "ratio_to_uniform": round(best["uniform"] / best["inferred"], 2),
            "ratio_to_random_playout": round(best["playout"] / best["inferred"], 2),
            "note": f"{BELIEF_BENCH_ITERATIONS}-iteration decisions at trick {state.tricks_done} with "
                    f"belief=inferred ({script.particles} worlds, set-up included); "
                    f"uniform {round(best['uniform'], 1)} iterations/s",
        })
    return rows
