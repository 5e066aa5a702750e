"""Perfect-information Monte Carlo (determinized search) and the cheating search.

PIMC draws ``worlds`` determinizations of the searching seat's information
set and searches each one as a perfect-information game: with UCT (the tree
kernel of :mod:`slagwerk.search.tree` on a fixed world) or, as an option,
flat Monte Carlo (playouts spread evenly over the root actions). Each root
action's visits and mean rewards are summed over the worlds; the final
choice is the most visits or the best mean over worlds.

:func:`uct` is the same core on one given world; on the *true* state it is
the cheating search, which sees every card. It exists to measure what
hidden information costs, never to play against people.

>>> from slagwerk.engine import make_game
>>> state = make_game("coins").new_match(seed=5)
>>> result = pimc(state, worlds=4, iterations_per_world=50, seed=1)
>>> result.action in state.legal_actions(), result.worlds, result.iterations
(True, 4, 200)
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ..engine import dispatch
from ..engine.bits import make_rng, rand_below
from ..engine.common import copy_into
from ..engine.registry import kernels_by_id
from ..engine.state import GAME, MAX_SEATS, TO_MOVE
from .deadline import CHECK_MASK, deadline_after, expired, interruptible
from .endgame import DEFAULT_NODE_BUDGET
from .guide import Guide, kernel_arguments
from .ismcts import DEFAULT_C, DEFAULT_ITERATIONS, DEFAULT_NODE_CAP
from .parts import SOLVE_ENDGAMES, solved_world
from .tree import (
    ACTION,
    FINAL_CHOICES,
    FIRST_CHILD,
    NEXT_SIBLING,
    NO_NODE,
    OBJECTIVES,
    PLAYOUT_POLICIES,
    ROOT,
    UNLIMITED_ITERATIONS,
    VISITS,
    SearchError,
    SearchResult,
    Tree,
    check_budget,
    check_c,
    check_guide,
    check_position,
    check_solve,
    endgame_arguments,
    final_choice,
    lookup,
    reset_tree,
    run_iterations,
    simulate,
    state_array,
    tree_search,
)

DEFAULT_WORLDS = 40
DEFAULT_ITERATIONS_PER_WORLD = 250


@njit(cache=True)
def _index_of(root_actions, n_root, action):
    for i in range(n_root):
        if root_actions[i] == action:
            return i
    return -1


@njit(cache=True)
def _flat_world(g, world, iterations, policy, objective, rng, root_actions, n_root, world_visits,
                world_values, deadline, stop):
    """Flat Monte Carlo on one world: playouts after each root action in turn.

    Writes per-action playout counts and reward sums (int64/float64[n_root]);
    returns the playouts run (fewer than ``iterations`` when stopped early).
    """
    seat = world[TO_MOVE]
    state = np.empty_like(world)
    actions = np.empty(dispatch.max_actions(g), np.int64)
    deal_buffer = np.empty(dispatch.deal_size(g), np.int64)
    rewards = np.zeros(MAX_SEATS, np.float64)
    for i in range(n_root):
        world_visits[i] = 0
        world_values[i] = 0.0
    done = 0
    while done < iterations:
        if done > 0 and (done & CHECK_MASK) == 0 and expired(deadline, stop):
            break
        i = done % n_root
        done += 1
        copy_into(state, world)
        dispatch.apply_action(g, state, root_actions[i])
        simulate(g, state, objective, policy, rng, actions, deal_buffer, rewards)
        world_visits[i] += 1
        world_values[i] += rewards[seat]
    return done


@njit(cache=True)
def pimc_worlds(g, root, seat, worlds, iterations_per_world, flat, c, policy, objective, rng,
                nodes, values, meta, root_actions, n_root, visit_sums, mean_sums, worlds_tried,
                deadline, stop, pool, parts, net, prior_settings, priors, solve_tricks,
                solve_budget, endgame):
    """Search ``worlds`` determinizations of ``root`` for ``seat`` and add up the results.

    Parameters
    ----------
    root : int64[STATE_SIZE]
        The position (not modified); ``seat`` is to move.
    worlds, iterations_per_world : int
        Determinizations to draw, and the budget of each.
    flat : int
        1: flat Monte Carlo per world; 0: UCT with exploration ``c``.
    policy, objective : int
        Playout policy and objective codes (see :mod:`slagwerk.search.tree`).
    rng : uint64[1]
        Generator, advanced in place.
    nodes, values, meta
        A tree (reset for every world; unused when ``flat``).
    root_actions : int64[n_root]
        The seat's legal actions at the root.
    visit_sums : int64[n_root]; mean_sums : float64[n_root]; worlds_tried : int64[n_root]
        Accumulated in place: visits, per-world mean reward, and the number of
        worlds in which each action was tried.
    deadline, stop
        Stop early (see :func:`slagwerk.search.tree.run_iterations`); at least
        one world is searched.
    pool : int64[k, STATE_SIZE]
        With ``k > 0``, each world is one of these picked uniformly (a belief's
        resampled worlds, :mod:`slagwerk.search.belief`) instead of a
        ``determinize`` of ``root``.
    parts, net, prior_settings, priors
        The optional parts, a guiding network for UCT (see
        :func:`slagwerk.search.tree.run_iterations_in`).
    solve_tricks, solve_budget, endgame
        With ``SOLVE_ENDGAMES`` among the parts, a world with at most that many tricks left in its deal is
        solved exactly (:mod:`slagwerk.search.endgame`): each root action's value is the
        seat's max-n reward after it, counted as one visit; a world the budget cannot
        solve is searched as without. UCT's leaves are solved the same way.

    Returns
    -------
    (int, int)
        Worlds searched, and iterations run in them.
    """
    world = np.empty_like(root)
    after = np.empty_like(root)
    rewards = np.zeros(MAX_SEATS, np.float64)
    world_visits = np.zeros(n_root, np.int64)
    world_values = np.zeros(n_root, np.float64)
    done = 0
    iterations = 0
    while done < worlds:
        if done > 0 and expired(deadline, stop):
            break
        done += 1
        if pool.shape[0] > 0:
            copy_into(world, pool[rand_below(rng, pool.shape[0])])
        else:
            copy_into(world, root)
            dispatch.determinize(g, world, seat, rng)
        if solved_world(parts, g, world, seat, root_actions, n_root, world_visits, world_values, rewards,
                        after, solve_tricks, solve_budget, endgame):
            iterations += n_root
        elif flat:
            iterations += _flat_world(g, world, iterations_per_world, policy, objective, rng, root_actions,
                                      n_root, world_visits, world_values, deadline, stop)
        else:
            reset_tree(nodes, values, meta)
            iterations += run_iterations(g, world, seat, 0, iterations_per_world, c, policy, objective,
                                         rng, nodes, values, meta, deadline, stop, parts, net, prior_settings,
                                         priors, solve_tricks, solve_budget, endgame)
            for i in range(n_root):
                world_visits[i] = 0
                world_values[i] = 0.0
            child = nodes[ROOT, FIRST_CHILD]
            while child != NO_NODE:
                i = _index_of(root_actions, n_root, nodes[child, ACTION])
                if i >= 0:
                    world_visits[i] = nodes[child, VISITS]
                    world_values[i] = values[child]
                child = nodes[child, NEXT_SIBLING]
        for i in range(n_root):
            if world_visits[i] > 0:
                visit_sums[i] += world_visits[i]
                mean_sums[i] += world_values[i] / world_visits[i]
                worlds_tried[i] += 1
    return done, iterations


def pimc(state, seat: int | None = None, *, worlds: int | None = None,
         iterations_per_world: int = DEFAULT_ITERATIONS_PER_WORLD, time_ms: float | None = None,
         flat: bool = False, c: float = DEFAULT_C, final: str = "best_mean", playout: str = "random",
         objective: str = "deal", node_cap: int = DEFAULT_NODE_CAP, seed: int = 0,
         worlds_from=None, guide: Guide | None = None, solve: int = 0) -> SearchResult:
    """Determinized search of ``state`` (a ``State`` or its int64 array) for ``seat``.

    The budget is ``worlds`` determinizations (default 40) or ``time_ms``
    (new worlds are drawn until the time is up; the granularity is one
    world). Each world gets ``iterations_per_world`` iterations of UCT, or of
    flat Monte Carlo when ``flat``. ``final="best_mean"`` picks the action
    with the best reward averaged over worlds, ``"most_visits"`` the one
    visited most over all worlds. The other parameters are those of
    :func:`slagwerk.search.ismcts.ismcts`. ``SearchResult.values`` holds the
    mean over worlds of each action's per-world mean reward. ``worlds_from``
    (int64[k, STATE_SIZE], optional) are the worlds to pick from instead of
    determinizing (a belief's resampled worlds, :mod:`slagwerk.search.belief`).
    ``guide`` is a network guiding each world's UCT (:mod:`slagwerk.search.guide`;
    not with ``flat``). With ``solve`` (tricks), a world with at most that many tricks
    left is solved exactly instead (:mod:`slagwerk.search.endgame`).

    :raises SearchError: for a bad parameter, or if nobody (or another seat) is to move.
    """
    root = np.ascontiguousarray(state_array(state))
    seat = check_position(root, seat)
    if worlds is None and time_ms is None:
        worlds = DEFAULT_WORLDS
    check_budget(worlds, time_ms)
    check_budget(iterations_per_world, None)
    final_code = lookup(FINAL_CHOICES, final, "final choice")
    policy = lookup(PLAYOUT_POLICIES, playout, "playout policy")
    objective_code = lookup(OBJECTIVES, objective, "objective")
    c = check_c(c)
    if isinstance(node_cap, bool) or not isinstance(node_cap, (int, np.integer)) or node_cap < 2:
        raise SearchError(f"node_cap must be an integer >= 2, not {node_cap!r}")
    if guide is not None and flat:
        raise SearchError("a guide guides a tree: not with flat=true")
    check_guide(guide, root, objective_code)
    cap = min(int(node_cap), int(iterations_per_world) + 1)
    tree = Tree(cap, guided=guide is not None and guide.prior > 0)  # only a prior writes priors
    flags, net, prior_settings = kernel_arguments(guide)
    solve = check_solve(solve, objective_code)
    endgame = endgame_arguments(root, solve)
    flags |= SOLVE_ENDGAMES if solve else 0
    rng = make_rng(seed)
    game = int(root[GAME])
    kernels = kernels_by_id(game)
    buffer = np.zeros(kernels.MAX_ACTIONS, np.int64)
    n_root = int(kernels.legal_actions(root, buffer))
    root_actions = np.sort(buffer[:n_root])
    visit_sums = np.zeros(n_root, np.int64)
    mean_sums = np.zeros(n_root, np.float64)
    worlds_tried = np.zeros(n_root, np.int64)
    flag = 1 if flat else 0

    per_world = int(iterations_per_world)
    budget = int(worlds) if worlds is not None else UNLIMITED_ITERATIONS
    pool = (np.empty((0, root.shape[0]), np.int64) if worlds_from is None
            else np.ascontiguousarray(worlds_from))
    kernel = dispatch.specialize(pimc_worlds, game, root, seat, budget, per_world, flag, c,
                                 dispatch.Constant(policy), objective_code, rng, tree.nodes, tree.values,
                                 tree.meta, root_actions,
                                 n_root, visit_sums, mean_sums, worlds_tried, 0.0, np.zeros(1, np.int64),
                                 pool, dispatch.Constant(flags), net, prior_settings, tree.priors,
                                 solve, DEFAULT_NODE_BUDGET, endgame)
    start = time.perf_counter()  # the kernel is loaded (or compiled) by now: untimed
    with interruptible() as stop:
        done, iterations_run = kernel(game, root, seat, budget, per_world, flag, c, policy, objective_code,
                                      rng, tree.nodes, tree.values, tree.meta, root_actions, n_root,
                                      visit_sums, mean_sums, worlds_tried, deadline_after(time_ms), stop,
                                      pool, flags, net, prior_settings, tree.priors, solve,
                                      DEFAULT_NODE_BUDGET, endgame)
    seconds = time.perf_counter() - start
    means = np.where(worlds_tried > 0, mean_sums / np.maximum(worlds_tried, 1), 0.0)
    tried = worlds_tried > 0
    return SearchResult(
        action=final_choice(guide, root, root_actions[tried], visit_sums[tried], means[tried], final_code),
        actions=root_actions,
        visits=visit_sums,
        values=means,
        iterations=int(iterations_run),
        nodes=0 if flat else tree.size,
        memory_bytes=0 if flat else tree.memory_bytes,
        seconds=seconds,
        worlds=int(done),
    )


def uct(state, seat: int | None = None, *, iterations: int | None = None, time_ms: float | None = None,
        c: float = DEFAULT_C, final: str = "most_visits", playout: str = "random",
        objective: str = "deal", node_cap: int = DEFAULT_NODE_CAP, seed: int = 0) -> SearchResult:
    """Perfect-information UCT on ``state`` exactly as given: one world, no redeal.

    On the true state this is the cheating search (it sees every card). The
    parameters are those of :func:`slagwerk.search.ismcts.ismcts`.
    """
    if iterations is None and time_ms is None:
        iterations = DEFAULT_ITERATIONS
    return tree_search(
        state, seat, False, iterations=iterations, time_ms=time_ms, c=c, final=final,
        playout=playout, objective=objective, node_cap=node_cap, seed=seed,
    )
