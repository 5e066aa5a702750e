"""Compile ahead of time: every kernel a run of a game may use, once per install.

The first decision of each agent in a fresh cache compiles numba kernels for
a while; :func:`ensure_compiled` does that up front (saying so in one line,
see :func:`slagwerk.kernel_cache.compiling`) so that no time limit, progress
bar or rate counts it, and ``slagwerk warmup`` does it for a container image
or a cluster before any run.
"""

from __future__ import annotations

import time

from ..engine import make_game
from ..engine.replay import check_history
from ..kernel_cache import compiling
from .registry import AGENTS, make

WARM_UP_SPECS = (
    "random",
    "heuristic",
    "ismcts:iterations=16",
    "ismcts:iterations=16,playout=heuristic,objective=match",
    "pimc:worlds=2,iterations_per_world=8",
    "pimc:worlds=2,iterations_per_world=8,flat=true",
    "cheat:iterations=16",
)
"""Small decisions that between them reach every kernel the built-in agents use."""


def compile_game(name: str) -> None:
    """Let every built-in agent decide once at the start of a ``name`` match
    (compiling the game's kernels, playouts and searches, or loading them)."""
    game = make_game(name)
    state = game.new_match(seed=0)
    seat = state.to_move
    after = state.clone()  # a bot request's view is checked by replaying its history
    after.apply(after.legal_actions()[0])
    check_history(after, after.view(after.to_move))
    for spec in WARM_UP_SPECS:
        agent = make(spec, game, seed=0)
        if AGENTS[agent.name].cheating:
            agent.decide_true_state(state)
        else:
            agent.decide(state.view(seat))


def ensure_compiled(games, stream=None) -> float:
    """Compile the kernels of those ``games`` not compiled yet, announcing it;
    return the seconds it took (0 when everything was compiled)."""
    start = time.perf_counter()
    with compiling(games, stream) as cold:
        for name in cold:
            compile_game(name)
    return time.perf_counter() - start if cold else 0.0
