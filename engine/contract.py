"""The engine contract: the kernels every game provides, and their dispatch.

A game module ``slagwerk.engine.<game>.kernels`` defines these constants

``GAME_ID``, ``N_SEATS`` (maximum seats), ``STATE_SIZE``, ``DEAL_SIZE``,
``MAX_ACTIONS``, ``OPTION_NAMES`` (order of the options array), ``LAYOUT``

and these ``@njit(cache=True)`` kernels over a state ``int64[STATE_SIZE]``
whose header is :mod:`slagwerk.engine.state`:

``init_match(state, options)``
    Start a match (in place). ``options`` is int64 in ``OPTION_NAMES`` order.
    The state waits for its first deal (``PHASE_DEAL_PENDING``).
``random_deal(state, rng, out)``
    Write a uniformly random deal vector (int64[DEAL_SIZE]) for the pending
    deal into ``out``. ``rng`` is a ``uint64[1]`` generator (``bits``).
``apply_deal(state, deal)``
    Deal the cards of a deal vector and start the deal (in place). The
    dealer is already in ``state[DEALER]``.
``legal_actions(state, out) -> int64``
    Write the legal actions (int64) into ``out[:MAX_ACTIONS]`` and return
    their count; 0 when nobody is to move.
``apply_action(state, action)``
    Apply a legal action for ``state[TO_MOVE]`` (in place; unchecked). It
    updates the common header: tricks, deal points, totals, deal end
    (``PHASE_DEAL_PENDING`` with the next dealer) and match end
    (``PHASE_MATCH_OVER`` with ``OUTCOME``).
``returns(state, objective, out)``
    Per-seat rewards in [0, 1] into float64 ``out``: the deal's own score
    normalised (``OBJECTIVE_DEAL``, partners equal) or the match outcome
    (``OBJECTIVE_MATCH``).
``determinize(state, observer, rng)``
    Replace every card ``observer`` cannot see with a world drawn from those
    consistent with what it has seen (in place).
``heuristic_action(state, rng) -> int64``
    The game's rule-based policy for the seat to move; it reads only what
    that seat can see, so search can use it as a playout policy.

``observed_actions(state, actions, n, observer, keys) -> bool`` (optional)
    What ``observer`` sees of each of the legal ``actions[:n]`` of the seat
    to move, into ``keys[:n]``; True when some action is partly hidden
    (actions that look alike share a key). Without it every action is seen
    whole (the game's actions are public, or name slots rather than cards).
``random_action(state, rng) -> int64`` (optional)
    A uniformly random legal action, faster than listing them (playouts
    use it). A game without it gets, in its branch of the dispatcher, a
    random pick from ``legal_actions`` (a generic fallback after all
    branches measurably slows every game's playouts).

Search and other generic code call the dispatchers below, which branch on
``state[GAME]``. A plain module-level dispatch (rather than passing kernels
as arguments or closing over them) is what numba's on-disk cache serves: see
docs/design.md §3. A new game adds one branch to each dispatcher and one entry to
:data:`GAME_MODULES`; nothing else in the core changes.
"""

from __future__ import annotations

from numba import njit

from .aluette import kernels as aluette
from .coins import kernels as coins
from .koetsieren import kernels as koetsieren
from .kozel import kernels as kozel
from .state import GAME, PHASE, PHASE_MATCH_OVER, TO_MOVE

COINS = coins.GAME_ID
ALUETTE = aluette.GAME_ID
KOETSIEREN = koetsieren.GAME_ID
KOZEL = kozel.GAME_ID

GAME_MODULES = {
    "coins": coins,
    "aluette": aluette,
    "koetsieren": koetsieren,
    "kozel": kozel,
}
"""Kernel module of every game, by name."""

REQUIRED_CONSTANTS = (
    "GAME_ID",
    "N_SEATS",
    "STATE_SIZE",
    "DEAL_SIZE",
    "MAX_ACTIONS",
    "OPTION_NAMES",
    "LAYOUT",
)
REQUIRED_KERNELS = (
    "init_match",
    "random_deal",
    "apply_deal",
    "legal_actions",
    "apply_action",
    "returns",
    "determinize",
    "heuristic_action",
)

MAX_ACTIONS = max(m.MAX_ACTIONS for m in GAME_MODULES.values())
"""Room for the legal actions of any game (size of an ``out`` buffer)."""
MAX_DEAL_SIZE = max(m.DEAL_SIZE for m in GAME_MODULES.values())


@njit(cache=True, inline="always")
def random_deal(state, rng, out):
    """Dispatch ``random_deal`` on ``state[GAME]``."""
    g = state[GAME]
    if g == COINS:
        coins.random_deal(state, rng, out)
    elif g == ALUETTE:
        aluette.random_deal(state, rng, out)
    elif g == KOETSIEREN:
        koetsieren.random_deal(state, rng, out)
    elif g == KOZEL:
        kozel.random_deal(state, rng, out)


@njit(cache=True, inline="always")
def apply_deal(state, deal):
    """Dispatch ``apply_deal`` on ``state[GAME]``."""
    g = state[GAME]
    if g == COINS:
        coins.apply_deal(state, deal)
    elif g == ALUETTE:
        aluette.apply_deal(state, deal)
    elif g == KOETSIEREN:
        koetsieren.apply_deal(state, deal)
    elif g == KOZEL:
        kozel.apply_deal(state, deal)


@njit(cache=True, inline="always")
def legal_actions(state, out):
    """Dispatch ``legal_actions`` on ``state[GAME]``."""
    g = state[GAME]
    if g == COINS:
        return coins.legal_actions(state, out)
    elif g == ALUETTE:
        return aluette.legal_actions(state, out)
    elif g == KOETSIEREN:
        return koetsieren.legal_actions(state, out)
    elif g == KOZEL:
        return kozel.legal_actions(state, out)
    return 0


@njit(cache=True, inline="always")
def apply_action(state, action):
    """Dispatch ``apply_action`` on ``state[GAME]``."""
    g = state[GAME]
    if g == COINS:
        coins.apply_action(state, action)
    elif g == ALUETTE:
        aluette.apply_action(state, action)
    elif g == KOETSIEREN:
        koetsieren.apply_action(state, action)
    elif g == KOZEL:
        kozel.apply_action(state, action)


@njit(cache=True)
def returns(state, objective, out):
    """Dispatch ``returns`` on ``state[GAME]``."""
    g = state[GAME]
    if g == COINS:
        coins.returns(state, objective, out)
    elif g == ALUETTE:
        aluette.returns(state, objective, out)
    elif g == KOETSIEREN:
        koetsieren.returns(state, objective, out)
    elif g == KOZEL:
        kozel.returns(state, objective, out)


@njit(cache=True)
def determinize(state, observer, rng):
    """Dispatch ``determinize`` on ``state[GAME]``."""
    g = state[GAME]
    if g == COINS:
        coins.determinize(state, observer, rng)
    elif g == ALUETTE:
        aluette.determinize(state, observer, rng)
    elif g == KOETSIEREN:
        koetsieren.determinize(state, observer, rng)
    elif g == KOZEL:
        kozel.determinize(state, observer, rng)


@njit(cache=True)
def heuristic_action(state, rng):
    """Dispatch ``heuristic_action`` on ``state[GAME]``."""
    g = state[GAME]
    if g == COINS:
        return coins.heuristic_action(state, rng)
    elif g == ALUETTE:
        return aluette.heuristic_action(state, rng)
    elif g == KOETSIEREN:
        return koetsieren.heuristic_action(state, rng)
    elif g == KOZEL:
        return kozel.heuristic_action(state, rng)
    return -1


@njit(cache=True, inline="always")
def random_action(state, rng, actions):
    """A uniformly random legal action; ``actions`` is an int64[MAX_ACTIONS] buffer
    for games that pick from their legal actions."""
    g = state[GAME]
    if g == COINS:
        return coins.random_action(state, rng)
    elif g == ALUETTE:
        return aluette.random_action(state, rng)
    elif g == KOETSIEREN:
        return koetsieren.random_action(state, rng)
    elif g == KOZEL:
        return kozel.random_action(state, rng)
    return -1


@njit(cache=True)
def to_move(state):
    """Seat to move, ``CHANCE`` (a deal is pending) or ``TERMINAL``."""
    return state[TO_MOVE]


@njit(cache=True)
def is_terminal(state):
    """True once the match is over."""
    return state[PHASE] == PHASE_MATCH_OVER


@njit(cache=True)
def hides_actions(state):
    """True for a game with ``observed_actions`` (some actions are partly hidden
    from other seats), so that search asks only there."""
    return state[GAME] == KOZEL


@njit(cache=True)
def observed_actions(state, actions, n, observer, keys):
    """Dispatch the optional ``observed_actions``: False (``keys`` untouched)
    for a game whose actions are all seen whole."""
    if state[GAME] == KOZEL:
        return kozel.observed_actions(state, actions, n, observer, keys)
    return False
