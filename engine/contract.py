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

``action_scores(state, rng, actions, n, out)`` (optional)
    The heuristic's score of each of the legal ``actions[:n]`` into float64
    ``out[:n]`` (higher is better; the heuristic plays a best one). The
    opponent model of ``belief=inferred`` is a softmax over them. Without
    it the heuristic's choice scores 1 and every other action 0.
``observed_actions(state, actions, n, observer, keys) -> bool`` (optional)
    What ``observer`` sees of each of the legal ``actions[:n]`` of the seat
    to move, into ``keys[:n]``; True when some action is partly hidden
    (actions that look alike share a key). Without it every action is seen
    whole (the game's actions are public, or name slots rather than cards).
``deal_from_world(world, template, rng, out) -> bool`` (optional)
    A deal vector that dealt the determinized ``world`` into
    ``out[:DEAL_SIZE]``, completing ``template`` (what the seat knows of the
    deal: the game's ``replay_script(view)``, :mod:`slagwerk.engine.replay`);
    False when none can. ``belief=inferred`` deals it and replays the
    deal's history in it. Without it a game's beliefs fall back to
    ``uniform``.
``history_action(world, state, key) -> int64`` (optional)
    The action of ``state``'s seat to move that the replayed history entry
    ``key`` names (-1 if none), ``world`` being the world replayed: an
    entry the seat saw only in part (a face-down discard) is the action
    made in that world. Without it the key is the action.
``random_action(state, rng) -> int64`` (optional)
    A uniformly random legal action, faster than listing them (playouts
    use it). A game without it gets, in its branch of the dispatcher, a
    random pick from ``legal_actions`` (a generic fallback after all
    branches measurably slows every game's playouts).

Every game declares itself in its package (``INFO``, a
:class:`~slagwerk.engine.spec.GameInfo`) and is listed once in
:mod:`slagwerk.engine.registry`. Generic kernels (playouts, search) reach the
kernels through :mod:`slagwerk.engine.dispatch`, which chooses them at compile
time; Python code calls a state's own kernels through the helpers below.
"""

from __future__ import annotations

import numpy as np

from . import registry
from .bits import rand_below
from .state import GAME, PHASE, PHASE_MATCH_OVER, TO_MOVE

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
KERNEL_PARAMETERS = {
    "random_deal": ("state", "rng", "out"),
    "apply_deal": ("state", "deal"),
    "legal_actions": ("state", "out"),
    "apply_action": ("state", "action"),
    "returns": ("state", "objective", "out"),
    "determinize": ("state", "observer", "rng"),
    "heuristic_action": ("state", "rng"),
    "action_scores": ("state", "rng", "actions", "n", "out"),
    "random_action": ("state", "rng"),
    "observed_actions": ("state", "actions", "n", "observer", "keys"),
    "deal_from_world": ("world", "template", "rng", "out"),
    "history_action": ("world", "state", "key"),
}
"""The parameters of the kernels generic code calls (:mod:`.dispatch` is generated from it)."""


def kernels_of(state: np.ndarray):
    """The kernel module of the game whose state array ``state`` is."""
    return registry.kernels_by_id(int(state[GAME]))


def __getattr__(name: str):
    # Buffers sized for any registered game (imports every game's kernels).
    if name == "MAX_ACTIONS":
        return max(registry.kernels_by_id(i.game_id).MAX_ACTIONS for i in registry.game_infos())
    if name == "MAX_DEAL_SIZE":
        return max(registry.kernels_by_id(i.game_id).DEAL_SIZE for i in registry.game_infos())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Python-level calls of a state's own kernels (tests, tools; not the hot path).

def random_deal(state, rng, out):
    kernels_of(state).random_deal(state, rng, out)


def apply_deal(state, deal):
    kernels_of(state).apply_deal(state, deal)


def legal_actions(state, out) -> int:
    return kernels_of(state).legal_actions(state, out)


def apply_action(state, action) -> None:
    kernels_of(state).apply_action(state, action)


def returns(state, objective, out) -> None:
    kernels_of(state).returns(state, objective, out)


def determinize(state, observer, rng) -> None:
    kernels_of(state).determinize(state, observer, rng)


def heuristic_action(state, rng) -> int:
    return kernels_of(state).heuristic_action(state, rng)


def action_scores(state, rng, actions, n, out) -> None:
    """The heuristic's scores of ``actions[:n]`` into ``out[:n]`` (see above)."""
    kernels = kernels_of(state)
    if hasattr(kernels, "action_scores"):
        kernels.action_scores(state, rng, actions, n, out)
        return
    choice = kernels.heuristic_action(state, rng)
    out[:n] = (np.asarray(actions[:n]) == choice).astype(float)


def random_action(state, rng, actions) -> int:
    """A uniformly random legal action (``actions`` is a work buffer)."""
    kernels = kernels_of(state)
    if hasattr(kernels, "random_action"):
        return kernels.random_action(state, rng)
    n = kernels.legal_actions(state, actions)
    return int(actions[rand_below(rng, n)]) if n else -1


def observed_actions(state, actions, n, observer, keys) -> bool:
    kernels = kernels_of(state)
    if not hasattr(kernels, "observed_actions"):
        return False
    return bool(kernels.observed_actions(state, actions, n, observer, keys))


def hides_actions(state) -> bool:
    return hasattr(kernels_of(state), "observed_actions")


def to_move(state) -> int:
    """Seat to move, ``CHANCE`` (a deal is pending) or ``TERMINAL``."""
    return int(state[TO_MOVE])


def is_terminal(state) -> bool:
    """True once the match is over."""
    return bool(state[PHASE] == PHASE_MATCH_OVER)
