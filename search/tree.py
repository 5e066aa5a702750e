"""The search tree shared by SO-ISMCTS, PIMC and the cheating search.

One numba kernel, :func:`run_iterations`, does Monte Carlo tree search over
any game through the dispatchers of :mod:`slagwerk.engine.dispatch`, compiled
for one game at a time:

- with ``determinize_each`` set it is single-observer ISMCTS (Cowling,
  Powley and Whitehouse 2012): every iteration redeals the cards the
  searching seat cannot see (``dispatch.determinize``), so a node stands
  for an information set of the searching seat, reached by a sequence of
  actions as that seat sees them; children are keyed by what the searching
  seat observes of the action (``dispatch.observed_actions``), and UCB1
  counts how often each child was *available* instead of the parent's
  visits;
- without it, the same code is plain UCT on one fixed world (a PIMC world,
  or the true state for the cheating search). In a fixed world every child
  of a node is available on every visit, so the availability count is the
  parent's visit count since the child was created: UCB1 as usual.

Another seat's action that the searching seat does not see whole (a Kozel
face-down discard, seen only as its number of cards) is a child keyed by
that observation, as in the paper's SO-ISMCTS with partially observable
moves: whichever cards the world lets the opponent discard, the searching
seat's tree goes on from the same node. Selecting or expanding such a child
plays a uniformly random action among those that look alike. Without that
the tree would split on every possible discard, which the searching seat can
never tell apart. Koetsieren's slot actions do the same for the seat's own
blind plays: one action means the same in every world.

Each iteration copies the root, descends while every legal action has a
child (UCB1), expands one untried action chosen uniformly at random, plays
out to the end of the deal (``OBJECTIVE_DEAL``) or match
(``OBJECTIVE_MATCH``) with the playout policy of
:mod:`slagwerk.engine.playout`, and backs the per-seat rewards of
``dispatch.returns`` up the path: each node adds the reward of the seat that
chose its action (partners share a reward, so a partner's move is judged by
the team's result).

Chance (a deal pending after the last trick) ends the tree: the node where
a deal ends is a leaf, and with the match objective the playout deals the
following deals at random and plays them out. A later deal's information
sets differ with every redeal, so a tree below it would not share
statistics between iterations.

The tree lives in preallocated arrays (:class:`Tree`): an int64 table
``nodes[cap, NODE_FIELDS]`` and a float64 ``values[cap]``. At the node cap
(or at :data:`MAX_PATH` depth) search keeps iterating without expanding:
the simulation then starts from the last node reached.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..engine import dispatch
from ..engine.bits import make_rng, rand_below
from ..engine.common import copy_into
from ..engine.playout import POLICY_HEURISTIC, POLICY_RANDOM, playout
from ..engine.registry import info_by_id, kernels_by_id, observation_module
from ..engine.state import GAME, MAX_SEATS, N_PLAYERS, OBJECTIVE_DEAL, OBJECTIVE_MATCH, TO_MOVE
from ..errors import OptionError, SlagwerkError
from .deadline import CHECK_MASK, deadline_after, expired, interruptible
from .endgame import DEFAULT_NODE_BUDGET, Solver
from .guide import (
    GUIDE_PRIOR,
    PRIOR_DEPTH,
    PRIOR_TEMPERATURE,
    PRIOR_WEIGHT,
    VALUE_WEIGHT,
    Guide,
    kernel_arguments,
    root_choice,
)
from .parts import (
    NOT_CHOSEN,
    SOLVE_ENDGAMES,
    biased_child,
    mix_leaf,
    net_deal,
    prior_pick,
    solved_leaf,
    valued_leaf,
)


class SearchError(SlagwerkError):
    """A search parameter is out of range or unknown, or the position has no move."""


# Columns of the int64 node table.
ACTION = 0  # the action (int64) leading here, or what the searching seat sees of it
PARENT = 1  # parent node, NO_NODE for the root
FIRST_CHILD = 2  # most recently created child, NO_NODE if none
NEXT_SIBLING = 3  # next (older) child of the same parent, NO_NODE at the end
MOVER = 4  # seat that chose ACTION (NO_SEAT at the root)
VISITS = 5  # iterations that passed through this node
AVAILABLE = 6  # iterations in which ACTION was legal when the parent was visited
NODE_FIELDS = 7

NO_NODE = -1
NO_SEAT = -1
ROOT = 0

# Entries of the int64 ``meta`` array kept with a tree.
META_NODES = 0  # nodes in use
META_ITERATIONS = 1  # iterations run since the last reset
META_SIZE = 2

MAX_PATH = 1024
"""Deepest path a descent records; deeper, the search stops expanding (no deal
of any game comes near it)."""

FINAL_MOST_VISITS = 0
FINAL_BEST_MEAN = 1
FINAL_CHOICES = {"most_visits": FINAL_MOST_VISITS, "best_mean": FINAL_BEST_MEAN}
PLAYOUT_POLICIES = {"random": POLICY_RANDOM, "heuristic": POLICY_HEURISTIC}
OBJECTIVES = {"deal": OBJECTIVE_DEAL, "match": OBJECTIVE_MATCH}

UNLIMITED_ITERATIONS = 1 << 62
"""The iteration budget of a search limited by time only."""


# ------------------------------------------------------------------ kernels


@njit(cache=True)
def reset_tree(nodes, values, meta):
    """Empty the tree: only the root remains, unvisited (in place).

    ``nodes`` int64[cap, NODE_FIELDS], ``values`` float64[cap], ``meta``
    int64[META_SIZE].
    """
    nodes[ROOT, ACTION] = -1
    nodes[ROOT, PARENT] = NO_NODE
    nodes[ROOT, FIRST_CHILD] = NO_NODE
    nodes[ROOT, NEXT_SIBLING] = NO_NODE
    nodes[ROOT, MOVER] = NO_SEAT
    nodes[ROOT, VISITS] = 0
    nodes[ROOT, AVAILABLE] = 0
    values[ROOT] = 0.0
    meta[META_NODES] = 1
    meta[META_ITERATIONS] = 0


@njit(cache=True)
def simulate(g, state, objective, policy, rng, actions, deal_buffer, rewards):
    """Play ``state`` out (in place) and write per-seat rewards into ``rewards``.

    ``actions`` int64[MAX_ACTIONS] and ``deal_buffer`` int64[MAX_DEAL_SIZE]
    are work buffers; ``rewards`` is float64[MAX_SEATS].
    """
    playout(g, state, objective, policy, rng, actions, deal_buffer)
    dispatch.returns(g, state, objective, rewards)


@njit(cache=True)
def _add_child(nodes, values, meta, parent, action, mover):
    """Create a child of ``parent`` for ``action`` chosen by ``mover``; return it."""
    child = meta[META_NODES]
    meta[META_NODES] = child + 1
    nodes[child, ACTION] = action
    nodes[child, PARENT] = parent
    nodes[child, FIRST_CHILD] = NO_NODE
    nodes[child, NEXT_SIBLING] = nodes[parent, FIRST_CHILD]
    nodes[child, MOVER] = mover
    nodes[child, VISITS] = 0
    nodes[child, AVAILABLE] = 1
    values[child] = 0.0
    nodes[parent, FIRST_CHILD] = child
    return child


@njit(cache=True)
def _distinct_keys(keys, n, distinct):
    """Write the distinct values of ``keys[:n]`` into ``distinct`` (first
    occurrences, in order); return how many there are."""
    m = 0
    for i in range(n):
        seen = False
        for j in range(m):
            if distinct[j] == keys[i]:
                seen = True
                break
        if not seen:
            distinct[m] = keys[i]
            m += 1
    return m


@njit(cache=True)
def _action_with_key(actions, keys, n, key, rng):
    """A legal action whose key is ``key``; uniformly at random among several
    (no draw from ``rng`` when there is one)."""
    count = 0
    for i in range(n):
        if keys[i] == key:
            count += 1
    k = rand_below(rng, count) if count > 1 else 0
    for i in range(n):
        if keys[i] == key:
            if k == 0:
                return actions[i]
            k -= 1
    return np.int64(-1)


@njit(cache=True)
def _match_children(nodes, node, actions, n, child_of):
    """Pair the children of ``node`` with the distinct keys ``actions[:n]``.

    Sets ``child_of[i]`` to the child for ``actions[i]`` (or NO_NODE), counts
    one more availability for every child whose key is legal here, and
    returns the number of keys without a child.
    """
    for i in range(n):
        child_of[i] = NO_NODE
    untried = n
    child = nodes[node, FIRST_CHILD]
    while child != NO_NODE:
        action = nodes[child, ACTION]
        for i in range(n):
            if actions[i] == action:
                child_of[i] = child
                nodes[child, AVAILABLE] += 1
                untried -= 1
                break
        child = nodes[child, NEXT_SIBLING]
    return untried


LOG_TABLE = np.log(np.maximum(np.arange(1 << 14, dtype=np.float64), 1.0))
"""``log(k)`` for the availability counts most nodes have (a table lookup is
cheaper than ``log`` in the selection loop, which runs for every child)."""


@njit(cache=True)
def _log_count(k):
    if k < LOG_TABLE.shape[0]:
        return LOG_TABLE[k]
    return np.log(k)


@njit(cache=True)
def _ucb_child(nodes, values, child_of, n, c):
    """The available child with the highest UCB1 score (availability counts)."""
    best = NO_NODE
    best_score = -np.inf
    for i in range(n):
        child = child_of[i]
        inverse_visits = 1.0 / nodes[child, VISITS]
        score = values[child] * inverse_visits + c * np.sqrt(
            _log_count(nodes[child, AVAILABLE]) * inverse_visits
        )
        if score > best_score:
            best_score = score
            best = child
    return best


@njit(cache=True)
def run_iterations(g, root, seat, determinize_each, iterations, c, policy, objective, rng,
                   nodes, values, meta, deadline, stop, parts, net, prior_settings, priors,
                   solve_tricks, solve_budget, endgame):
    """:func:`run_iterations_in` with every world drawn by the game's ``determinize``."""
    no_worlds = np.empty((0, root.shape[0]), np.int64)
    return run_iterations_in(g, root, seat, determinize_each, iterations, c, policy, objective, rng,
                             nodes, values, meta, deadline, stop, no_worlds, parts, net, prior_settings,
                             priors, solve_tricks, solve_budget, endgame)


@njit(cache=True)
def run_iterations_in(g, root, seat, determinize_each, iterations, c, policy, objective, rng,
                      nodes, values, meta, deadline, stop, worlds, parts, net, prior_settings,
                      priors, solve_tricks, solve_budget, endgame):
    """Run up to ``iterations`` more MCTS iterations from ``root`` into the tree (in
    place), stopping early at ``deadline`` or when ``stop[0]`` is raised
    (:mod:`slagwerk.search.deadline`; at least one iteration runs).

    Parameters
    ----------
    root : int64[STATE_SIZE]
        The position searched (not modified); ``seat`` is to move.
    seat : int
        The searching seat (the observer when determinizing).
    determinize_each : int
        1: redeal the cards hidden from ``seat`` every iteration (SO-ISMCTS);
        0: search ``root`` as a fixed world (UCT).
    iterations : int
        Iterations to add; the tree keeps what earlier calls built.
    c : float
        UCB1 exploration constant (rewards lie in [0, 1]).
    policy, objective : int
        ``POLICY_RANDOM``/``POLICY_HEURISTIC``; ``OBJECTIVE_DEAL``/``OBJECTIVE_MATCH``.
    rng : uint64[1]
        Generator, advanced in place.
    nodes, values, meta : int64[cap, NODE_FIELDS], float64[cap], int64[META_SIZE]
        The tree (see :func:`reset_tree`), updated in place.
    deadline : float
        ``time.perf_counter()`` value at which to stop (``inf``: none).
    stop : int64[1]
        Raised (non-zero) from outside to stop (a signal, see ``interruptible``).
    worlds : int64[k, STATE_SIZE]
        With ``k > 0`` and ``determinize_each``, each iteration starts from one of
        these worlds picked uniformly (a belief's resampled worlds,
        :mod:`slagwerk.search.belief`) instead of a fresh ``determinize``.
    parts : int
        The optional parts used, a compile-time constant (:mod:`slagwerk.search.parts`): the
        ``GUIDE_*`` flags of :mod:`slagwerk.search.guide` and ``SOLVE_ENDGAMES``. 0: none;
        the search is then what it was before they existed, draw for draw.
    net : tuple of float32 arrays
        The guiding network's weights (unread without a guide).
    prior_settings : float64[4]
        The progressive bias's weight, the prior's softmax temperature, the depth below
        which nodes get priors, and the network value's weight in a mixed leaf
        (:data:`slagwerk.search.guide.PRIOR_WEIGHT`).
    priors : float64[cap]
        Each node's prior (written when a guided search creates the node).
    solve_tricks, solve_budget, endgame
        With ``SOLVE_ENDGAMES``, a leaf with at most ``solve_tricks`` tricks left in its deal
        gets the exact rewards of its world (:mod:`slagwerk.search.endgame`, at most
        ``solve_budget`` positions, else as without) instead of a playout; ``endgame`` is a
        :class:`~slagwerk.search.endgame.Solver`'s arrays.

    Returns
    -------
    int
        Iterations run.
    """
    cap = nodes.shape[0]
    state = np.empty_like(root)
    actions = np.empty(dispatch.max_actions(g), np.int64)
    keys = np.empty(dispatch.max_actions(g), np.int64)
    distinct = np.empty(dispatch.max_actions(g), np.int64)
    child_of = np.empty(dispatch.max_actions(g), np.int64)
    deal_buffer = np.empty(dispatch.deal_size(g), np.int64)
    rewards = np.zeros(MAX_SEATS, np.float64)
    path = np.empty(MAX_PATH, np.int64)
    may_hide = determinize_each != 0 and dispatch.hides_actions(g)
    n_worlds = worlds.shape[0]
    guided = (parts & GUIDE_PRIOR) != 0
    x = np.zeros(net[0].shape[0], np.float32)
    q = np.zeros(net[5].shape[0], np.float32)
    scores = np.empty(dispatch.max_actions(g), np.float64)
    prior = np.zeros(1, np.float64)
    done = 0
    while done < iterations:
        if done > 0 and (done & CHECK_MASK) == 0 and expired(deadline, stop):
            break
        done += 1
        if determinize_each and n_worlds > 0:
            copy_into(state, worlds[rand_below(rng, n_worlds)])
        else:
            copy_into(state, root)
            if determinize_each:
                dispatch.determinize(g, state, seat, rng)
        node = np.int64(ROOT)  # not the constant's own type: callees then compile once, not twice
        path[0] = ROOT
        depth = 0
        while True:
            n = dispatch.legal_actions(g, state, actions)
            if n == 0:  # a deal ended (chance) or the match is over
                break
            # Children are keyed by what ``seat`` sees of an action. Only in
            # ISMCTS, at another seat's turn, can a key differ from its action.
            hidden = False
            if may_hide and state[TO_MOVE] != seat:
                hidden = dispatch.observed_actions(g, state, actions, n, seat, keys)
            m = _distinct_keys(keys, n, distinct) if hidden else n
            choices = distinct if hidden else actions
            untried = _match_children(nodes, node, choices, m, child_of)
            if untried > 0:
                room = meta[META_NODES] < cap and depth + 1 < MAX_PATH
                shallow = depth < prior_settings[PRIOR_DEPTH]
                i = NOT_CHOSEN if hidden or not room or not shallow else prior_pick(
                    parts, g, state, choices, m, child_of, net, x, q, scores,
                    prior_settings[PRIOR_TEMPERATURE], prior)
                if i != NOT_CHOSEN:
                    node = _add_child(nodes, values, meta, node, choices[i], state[TO_MOVE])
                    priors[node] = prior[0]
                    dispatch.apply_action(g, state, choices[i])
                    depth += 1
                    path[depth] = node
                elif room:
                    k = rand_below(rng, untried)
                    for i in range(m):
                        if child_of[i] == NO_NODE:
                            if k == 0:
                                key = choices[i]
                                node = _add_child(nodes, values, meta, node, key, state[TO_MOVE])
                                if guided:
                                    priors[node] = 0.0
                                action = _action_with_key(actions, keys, n, key, rng) if hidden else key
                                dispatch.apply_action(g, state, action)
                                depth += 1
                                path[depth] = node
                                break
                            k -= 1
                break
            if depth + 1 >= MAX_PATH:
                break
            node = biased_child(parts, nodes, values, priors, child_of, m, c, prior_settings[PRIOR_WEIGHT],
                                VISITS, AVAILABLE)
            if node == NOT_CHOSEN:
                node = _ucb_child(nodes, values, child_of, m, c)
            key = nodes[node, ACTION]
            dispatch.apply_action(g, state, _action_with_key(actions, keys, n, key, rng) if hidden else key)
            depth += 1
            path[depth] = node
        if not solved_leaf(parts, g, state, rewards, solve_tricks, solve_budget, endgame) and \
                not valued_leaf(parts, g, state, net, x, q, actions, scores, rewards):
            players = state[N_PLAYERS]  # before the playout, which may end the match
            net_deal(parts, g, state, net, x, q, actions, scores)
            simulate(g, state, objective, policy, rng, actions, deal_buffer, rewards)
            mix_leaf(parts, scores, rewards, players, prior_settings[VALUE_WEIGHT])
        nodes[ROOT, VISITS] += 1
        for d in range(1, depth + 1):
            node = path[d]
            nodes[node, VISITS] += 1
            values[node] += rewards[nodes[node, MOVER]]
    meta[META_ITERATIONS] += done
    return done


@njit(cache=True)
def root_children(nodes, values, actions, visits, means, available):
    """Write the root's children (action, visits, mean reward, availability) into
    the int64/int64/float64/int64 arrays (room for MAX_ACTIONS); return the count.

    Children come in ascending action order.
    """
    n = 0
    child = nodes[ROOT, FIRST_CHILD]
    while child != NO_NODE and n < actions.shape[0]:
        # insertion sort by action: at most MAX_ACTIONS children
        i = n
        action = nodes[child, ACTION]
        while i > 0 and actions[i - 1] > action:
            actions[i] = actions[i - 1]
            visits[i] = visits[i - 1]
            means[i] = means[i - 1]
            available[i] = available[i - 1]
            i -= 1
        actions[i] = action
        visits[i] = nodes[child, VISITS]
        means[i] = values[child] / nodes[child, VISITS] if nodes[child, VISITS] > 0 else 0.0
        available[i] = nodes[child, AVAILABLE]
        n += 1
        child = nodes[child, NEXT_SIBLING]
    return n


# ------------------------------------------------------------------ Python side


class Tree:
    """Preallocated arrays of one search tree with room for ``cap`` nodes.

    >>> tree = Tree(1000)
    >>> tree.memory_bytes
    64016
    """

    def __init__(self, cap: int, guided: bool = False):
        if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 2:
            raise SearchError(f"a tree needs room for at least 2 nodes, not {cap!r}")
        self.nodes = np.zeros((int(cap), NODE_FIELDS), dtype=np.int64)
        self.values = np.zeros(int(cap), dtype=np.float64)
        self.meta = np.zeros(META_SIZE, dtype=np.int64)
        # Each node's prior, kept only by a guided search (search/guide.py).
        self.guided = guided
        self.priors = np.zeros(int(cap) if guided else 1, dtype=np.float64)
        reset_tree(self.nodes, self.values, self.meta)

    @property
    def cap(self) -> int:
        return self.nodes.shape[0]

    @property
    def size(self) -> int:
        """Nodes in use."""
        return int(self.meta[META_NODES])

    @property
    def memory_bytes(self) -> int:
        """Bytes held by the tree's arrays (fixed at allocation)."""
        priors = self.priors.nbytes if self.guided else 0
        return self.nodes.nbytes + self.values.nbytes + self.meta.nbytes + priors

    def reset(self) -> None:
        reset_tree(self.nodes, self.values, self.meta)

    def root_statistics(self, size: int):
        """(actions, visits, mean rewards, availability) of the root's children
        (``size``: room for the game's legal actions)."""
        actions = np.zeros(size, np.int64)
        visits = np.zeros(size, np.int64)
        means = np.zeros(size, np.float64)
        available = np.zeros(size, np.int64)
        n = root_children(self.nodes, self.values, actions, visits, means, available)
        return actions[:n], visits[:n], means[:n], available[:n]


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the chosen action and the root statistics.

    ``actions[i]`` was tried ``visits[i]`` times with mean reward
    ``values[i]`` (for the searching seat, in [0, 1]); for PIMC the visits and
    values are summed over worlds.
    """

    action: int
    actions: np.ndarray
    visits: np.ndarray
    values: np.ndarray
    iterations: int
    nodes: int
    memory_bytes: int
    seconds: float
    worlds: int = 0


def choose(actions, visits, values, final: int) -> int:
    """The final choice among root actions: most visits (ties: higher value) or
    best value (ties: more visits); remaining ties go to the lowest action."""
    if len(actions) == 0:
        raise SearchError("the search found no action: nobody is to move in this position")
    if final == FINAL_MOST_VISITS:
        keys = list(zip(visits, values))
    else:
        keys = list(zip(values, visits))
    best = max(range(len(actions)), key=lambda i: (keys[i], -i))
    return int(actions[best])


def final_choice(guide: Guide | None, root: np.ndarray, actions, visits, values, final: int) -> int:
    """:func:`choose`, or with a guide's ``root_weight`` its blend with the network
    (:func:`slagwerk.search.guide.root_choice`)."""
    if guide is None or guide.root_weight == 0 or len(actions) == 0:
        return choose(actions, visits, values, final)
    encoding = observation_module(info_by_id(int(root[GAME])).name)
    return root_choice(encoding, guide, root, actions, visits, values)


def lookup(table: dict, name: str, what: str) -> int:
    """``table[name]`` or a :class:`SearchError` listing the valid names."""
    try:
        return table[name]
    except (KeyError, TypeError):
        raise SearchError(f"unknown {what} {name!r} (choose from {', '.join(table)})") from None


def check_budget(iterations, time_ms) -> None:
    """Exactly one budget, positive: ``iterations`` (int) or ``time_ms`` (number)."""
    if (iterations is None) == (time_ms is None):
        raise SearchError(
            f"give exactly one budget, iterations or time_ms (got iterations={iterations!r}, "
            f"time_ms={time_ms!r})"
        )
    if iterations is not None and (
        isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) or iterations < 1
    ):
        raise SearchError(f"iterations must be a positive integer, not {iterations!r}")
    if time_ms is not None and (
        isinstance(time_ms, bool) or not isinstance(time_ms, (int, float, np.number)) or not time_ms > 0
    ):
        raise SearchError(f"time_ms must be a positive number, not {time_ms!r}")


def check_position(state: np.ndarray, seat) -> int:
    """The searching seat, which must be to move in ``state`` (int64 array)."""
    to_move = int(state[TO_MOVE])
    if to_move < 0:
        raise SearchError("nobody is to move in this position (a deal is pending or the match is over)")
    if seat is None:
        return to_move
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or int(seat) != to_move:
        raise SearchError(f"seat {seat!r} is not to move (seat {to_move} is)")
    return to_move


def state_array(state) -> np.ndarray:
    """The kernel array of ``state`` (an engine ``State`` or an int64 array)."""
    array = getattr(state, "array", state)
    if not isinstance(array, np.ndarray) or array.dtype != np.int64 or array.ndim != 1:
        raise SearchError(f"search needs a State or a 1-d int64 state array, not {type(state).__name__}")
    return array


def tree_search(state, seat, determinize_each: bool, *, iterations, time_ms, c, final, playout,
                objective, node_cap, seed, worlds=None, guide: Guide | None = None,
                solve: int = 0) -> SearchResult:
    """Run :func:`run_iterations_in` on ``state`` under a budget; the common driver of
    SO-ISMCTS (``determinize_each``) and UCT on a fixed world (not). ``worlds``
    (int64[k, STATE_SIZE], optional) are the worlds ISMCTS draws from instead of
    determinizing (a belief's, :mod:`slagwerk.search.belief`); ``guide`` a network
    that guides the search (:mod:`slagwerk.search.guide`); ``solve`` the tricks left from
    which leaves are solved exactly (:mod:`slagwerk.search.endgame`; 0: never)."""
    root = state_array(state)
    seat = check_position(root, seat)
    check_budget(iterations, time_ms)
    final_code = lookup(FINAL_CHOICES, final, "final choice")
    policy = lookup(PLAYOUT_POLICIES, playout, "playout policy")
    objective_code = lookup(OBJECTIVES, objective, "objective")
    c = check_c(c)
    if isinstance(node_cap, bool) or not isinstance(node_cap, (int, np.integer)) or node_cap < 2:
        raise SearchError(f"node_cap must be an integer >= 2, not {node_cap!r}")
    # An iteration adds at most one node, so a fixed budget never needs more.
    cap = int(node_cap) if iterations is None else min(int(node_cap), int(iterations) + 1)
    check_guide(guide, root, objective_code)
    tree = Tree(cap, guided=guide is not None and guide.prior > 0)  # only a prior writes priors
    rng = make_rng(seed)
    flag = 1 if determinize_each else 0
    flags, net, prior_settings = kernel_arguments(guide)
    solve = check_solve(solve, objective_code)
    endgame = endgame_arguments(root, solve)
    flags |= SOLVE_ENDGAMES if solve else 0
    root = np.ascontiguousarray(root)

    game = int(root[GAME])
    budget = int(iterations) if iterations is not None else UNLIMITED_ITERATIONS
    pool = np.empty((0, root.shape[0]), np.int64) if worlds is None else np.ascontiguousarray(worlds)
    kernel = dispatch.specialize(run_iterations_in, game, root, seat, flag, budget, c,
                                 dispatch.Constant(policy), objective_code, rng, tree.nodes, tree.values,
                                 tree.meta, 0.0, np.zeros(1, np.int64), pool, dispatch.Constant(flags), net,
                                 prior_settings, tree.priors, solve, DEFAULT_NODE_BUDGET, endgame)
    start = time.perf_counter()  # the kernel is loaded (or compiled) by now: untimed
    with interruptible() as stop:
        done = kernel(game, root, seat, flag, budget, c, policy, objective_code, rng, tree.nodes,
                      tree.values, tree.meta, deadline_after(time_ms), stop, pool, flags, net, prior_settings,
                      tree.priors, solve, DEFAULT_NODE_BUDGET, endgame)
    seconds = time.perf_counter() - start
    actions, visits, values, _ = tree.root_statistics(kernels_by_id(game).MAX_ACTIONS)
    return SearchResult(
        action=final_choice(guide, root, actions, visits, values, final_code),
        actions=actions,
        visits=visits,
        values=values,
        iterations=done,
        nodes=tree.size,
        memory_bytes=tree.memory_bytes,
        seconds=seconds,
    )


def check_c(c) -> float:
    """The exploration constant as a float; :class:`SearchError` unless finite and >= 0."""
    if isinstance(c, bool) or not isinstance(c, (int, float, np.number)) or not 0 <= float(c) < np.inf:
        raise SearchError(f"the exploration constant c must be a number >= 0, not {c!r}")
    return float(c)


def unguided(state_size: int = 1) -> tuple:
    """The guide and endgame arguments of :func:`run_iterations` for a search with neither."""
    flags, net, prior_settings = kernel_arguments(None)
    return (dispatch.Constant(flags), net, prior_settings, np.zeros(1, np.float64), 0,
            DEFAULT_NODE_BUDGET, Solver.unused(state_size).arguments())


MAX_SOLVE_TRICKS = 16
"""The most tricks left from which a search may solve (a whole Coins deal)."""
SOLVER_TABLE_BITS = 15
"""A searching solver's transposition table: 32768 positions."""


def check_solve(solve, objective: int) -> int:
    """``solve`` as an int; :class:`SearchError` unless 0 to :data:`MAX_SOLVE_TRICKS` (0 with
    the match objective)."""
    whole = isinstance(solve, (int, np.integer)) and not isinstance(solve, bool)
    if not whole or not 0 <= solve <= MAX_SOLVE_TRICKS:
        raise SearchError(f"solve must be a number of tricks from 0 to {MAX_SOLVE_TRICKS}, not {solve!r}")
    if solve and objective != OBJECTIVE_DEAL:
        raise SearchError("the endgame solver values the deal (solve=): use objective=deal")
    return int(solve)


def endgame_arguments(root: np.ndarray, solve: int) -> tuple:
    """The solver's arrays for a search of ``root`` (the smallest when it never solves)."""
    if not solve:
        return Solver.unused(root.shape[0]).arguments()
    return Solver(root.shape[0], kernels_by_id(int(root[GAME])).MAX_ACTIONS, SOLVER_TABLE_BITS).arguments()


def check_guide(guide: Guide | None, root: np.ndarray, objective: int) -> None:
    """:class:`SearchError` unless ``guide`` (if any) fits the game of ``root`` and ``objective``."""
    if guide is None:
        return
    try:
        encoding = observation_module(info_by_id(int(root[GAME])).name)
    except OptionError as err:
        raise SearchError(f"no network can guide this game's search: {err}") from None
    w1, w3 = guide.weights[0], guide.weights[4]
    players = int(root[N_PLAYERS])
    with_values = encoding.NUM_ACTIONS + players  # a network trained with seat values (--seat-values)
    if not guide.world_kept_to_leaves:
        raise SearchError("a network that reads every seat's cards may only value the leaves' worlds: "
                          "leaf=value, prior=0, no playout=net")
    inputs = encoding.OBSERVATION_SIZE * (players if guide.world else 1)
    if w1.shape[0] != inputs or w3.shape[1] not in (encoding.NUM_ACTIONS, with_values):
        raise SearchError(f"the guiding network reads {w1.shape[0]} inputs and gives {w3.shape[1]} values; "
                          f"this game's encoding has {inputs} and {encoding.NUM_ACTIONS}")
    if guide.value and w3.shape[1] != with_values:
        raise SearchError("leaf=value needs a network that values the deal for every seat: train it "
                          "with --seat-values")
    if (guide.leaf or guide.value) and objective != OBJECTIVE_DEAL:
        raise SearchError("a network values the deal (leaf=net): use objective=deal, or leaf=playout")
    if not 0 <= guide.root_weight <= 1:
        raise SearchError(f"root_weight must lie in [0, 1], not {guide.root_weight!r}")
    if not (guide.temperature > 0 and guide.prior >= 0):
        raise SearchError(f"the prior needs a temperature > 0 and a weight >= 0, not {guide.temperature!r} "
                          f"and {guide.prior!r}")
