"""Single-observer information set MCTS (SO-ISMCTS), written once for every game.

Cowling, Powley and Whitehouse (2012), "Information Set Monte Carlo Tree
Search". The searching seat's tree holds information sets reached by action
sequences; each iteration draws a world consistent with what the seat has
seen (``contract.determinize``), descends choosing with UCB1 over
availability counts, expands one node, plays out, and backs each seat's
reward up. The kernel is :func:`slagwerk.search.tree.run_iterations`; this
module is its Python entry point.

Because every iteration redeals the hidden cards from the searching seat's
point of view, the result depends only on what that seat knows (and the
seed): the hidden cards of the state passed in never matter.

>>> from slagwerk.engine import make_game
>>> state = make_game("coins").new_match(seed=5)
>>> result = ismcts(state, iterations=300, seed=1)
>>> result.action in state.legal_actions(), result.iterations, int(result.visits.sum())
(True, 300, 300)
"""

from __future__ import annotations

from .guide import Guide
from .tree import SearchResult, tree_search

DEFAULT_ITERATIONS = 10000
"""Iterations of a search given no budget (the ismcts agent's default): about
0.05 to 0.2 s a decision. Against 3000 it scored a little higher in Coins and
Aluette and the same in Kozel and Koetsieren (30 duplicate deal groups each)."""
DEFAULT_C = 0.7
"""UCB1 exploration constant for rewards in [0, 1]; 0.4 and 1.0 scored no better
(30 duplicate deal groups per game, 3000 iterations)."""
DEFAULT_NODE_CAP = 1 << 17
"""Default node cap: 131072 nodes, 8.4 MB; an iteration budget allocates at
most one node per iteration."""


def ismcts(state, seat: int | None = None, *, iterations: int | None = None,
           time_ms: float | None = None, c: float = DEFAULT_C, final: str = "most_visits",
           playout: str = "random", objective: str = "deal", node_cap: int = DEFAULT_NODE_CAP,
           seed: int = 0, worlds=None, guide: Guide | None = None, solve: int = 0) -> SearchResult:
    """Search ``state`` (an engine ``State`` or its int64 array) for ``seat``.

    Parameters
    ----------
    seat : int, optional
        The searching seat; it must be the seat to move (default: that seat).
    iterations, time_ms
        The budget: a number of iterations (reproducible: the same seed and
        iterations give the same result) or wall time in milliseconds, which
        the kernel checks itself every few hundred iterations
        (:mod:`slagwerk.search.deadline`). Default: :data:`DEFAULT_ITERATIONS`.
    c : float
        UCB1 exploration constant.
    final : {"most_visits", "best_mean"}
        How the root action is chosen.
    playout : {"random", "heuristic"}
        Playout policy: uniform random, or the game's heuristic kernel.
    objective : {"deal", "match"}
        Reward: the deal's own score normalised, or the match outcome (later
        deals dealt at random during playouts).
    node_cap : int
        Most nodes the tree may hold; at the cap search goes on without
        expanding.
    seed : int
        Seed of the search's generator.
    worlds : int64[k, STATE_SIZE], optional
        Worlds to draw from (uniformly, one per iteration) instead of
        determinizing: a belief's resampled worlds (:mod:`slagwerk.search.belief`).
    guide : Guide, optional
        A network guiding the search (:mod:`slagwerk.search.guide`); without
        one the search is unguided.
    solve : int
        Leaves with at most this many tricks left in their deal get the exact
        max-n rewards of their world (:mod:`slagwerk.search.endgame`) instead of
        a playout; 0 (the default): never.

    Raises
    ------
    SearchError
        For a bad parameter, or if nobody (or another seat) is to move.
    """
    if iterations is None and time_ms is None:
        iterations = DEFAULT_ITERATIONS
    return tree_search(
        state, seat, True, iterations=iterations, time_ms=time_ms, c=c, final=final,
        playout=playout, objective=objective, node_cap=node_cap, seed=seed, worlds=worlds,
        guide=guide, solve=solve,
    )
