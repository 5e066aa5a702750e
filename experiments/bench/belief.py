"""``slagwerk bench`` rows for the inferred belief: what it adds to an ISMCTS decision.

:func:`belief_rows` times, per game, at a position in the middle of a deal
(the heuristic plays up to it, so the history has something to replay),
1,000-iteration ISMCTS decisions with ``belief=uniform`` and with
``belief=inferred`` (belief set-up included: the replay script, the
particles and the search), and random deal playouts, in interleaved rounds
(best of each, CPU time). It reports the cost of an inferred iteration as a
ratio to a uniform one and to a random playout. A second row per game
(``ismcts_deal_inferred``) sums the same two decisions over every card
decision with a choice in one heuristic-played deal: early decisions search
longer deals and replay less history, so this is the cost a player pays per
deal. Speed is reported, never asserted.
"""

from __future__ import annotations

import time

from ...engine import GAME_NAMES
from ...engine.bits import make_rng
from ...engine.playout import random_playouts
from ...engine.state import PHASE_PLAY
from ...search.belief import infer
from ...search.ismcts import ismcts
from .search import BENCH_SEED, first_card_decision
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


def deal_decisions(game_name: str):
    """Every card decision with more than one legal action in one deal played by
    the heuristic from the first card decision: (state rebuilt from the view,
    the view, the seat)."""
    state, _ = first_card_decision(game_name)
    game = state.game
    rng = make_rng(BENCH_SEED + 2)
    decisions = []
    while state.to_move >= 0 and not state.deal_complete and not state.deal_pending:
        if state.phase == PHASE_PLAY and len(state.legal_actions()) > 1:
            view = state.view(state.to_move)
            decisions.append((game.state_from_view(view, seed=1), view, state.to_move))
        state.apply(int(game.kernels.heuristic_action(state.array, rng)))
    return decisions


def _inferred_decision(rebuilt, view, seat, seed):
    script = rebuilt.game.replay_script(view)
    belief = infer(rebuilt, script, seat, temperature=script.temperature, particles=script.particles,
                   seed=seed)
    ismcts(rebuilt, iterations=BELIEF_BENCH_ITERATIONS, seed=seed, worlds=belief.worlds)


def deal_row(name: str, rounds: int = 3) -> dict:
    """The ``ismcts_deal_inferred`` row of one game (see the module doc)."""
    decisions = deal_decisions(name)
    for rebuilt, view, seat in decisions[:1]:  # load or compile outside the clock
        _inferred_decision(rebuilt, view, seat, 0)
    spent = {"uniform": 0.0, "inferred": 0.0}
    for rebuilt, view, seat in decisions:
        best = {"uniform": float("inf"), "inferred": float("inf")}
        for k in range(rounds):
            start = time.process_time()
            ismcts(rebuilt, iterations=BELIEF_BENCH_ITERATIONS, seed=k)
            best["uniform"] = min(best["uniform"], time.process_time() - start)
            start = time.process_time()
            _inferred_decision(rebuilt, view, seat, k)
            best["inferred"] = min(best["inferred"], time.process_time() - start)
        for kind in spent:
            spent[kind] += best[kind]
    return {
        "game": name,
        "benchmark": "ismcts_deal_inferred",
        "implementation": "numba",
        "per_second": round(len(decisions) * BELIEF_BENCH_ITERATIONS / spent["inferred"], 1),
        "ratio_to_uniform": round(spent["inferred"] / spent["uniform"], 2),
        "note": f"{len(decisions)} card decisions of one deal, {BELIEF_BENCH_ITERATIONS} iterations each, "
                f"belief=inferred set-up included, best of {rounds} each; uniform "
                f"{round(1000 * spent['uniform'] / len(decisions), 2)} ms a decision, inferred "
                f"{round(1000 * spent['inferred'] / len(decisions), 2)} ms",
    }


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
                _inferred_decision(rebuilt, view, seat, k)

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
        rows.append(deal_row(name, rounds))
    return rows
