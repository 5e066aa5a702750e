"""Generic kernels reach a game's kernels here, chosen while compiling.

Playouts and search are written once over the engine contract
(docs/design.md §2). They take the game id ``g`` as their first argument
and call the functions below, ``dispatch.apply_action(g, state, action)``.
Each is a numba ``overload`` that picks the game's own kernel from the
registry *at compile time*, so ``g`` must be a compile-time constant (a
numba literal): :func:`specialize` compiles a generic kernel for one game,
and a run compiles only the games it plays. numba's disk cache serves these
specialisations (passing kernels as arguments or closing over them is
recompiled in every process instead).

An unknown game id is a compile-time error, never a fall-through into
another game's kernels, and costs nothing in the compiled loops.
"""

from __future__ import annotations

import numpy as np
from numba import typeof, types
from numba.core.errors import TypingError
from numba.extending import overload

from ..errors import OptionError
from .bits import rand_below
from .registry import info_by_id, kernels_by_id

# These overloads (but the two ``*_inlined`` ones) are not inlined into their
# callers in numba's IR: each compiles once per game as a small function that
# LLVM links in. Inlining them re-ran numba's passes over the game's kernels
# at every call site, about three times each, which was half of a cold start.


def _module(g, name: str):
    if not isinstance(g, types.IntegerLiteral):
        raise TypingError(f"dispatch.{name}: the game id must be a compile-time constant "
                          f"(compile generic kernels through dispatch.specialize), not {g}")
    try:
        return kernels_by_id(g.literal_value)
    except OptionError as err:
        raise TypingError(f"dispatch.{name}: {err}") from None


def _kernel(g, name: str):
    return getattr(_module(g, name), name)


def _python_call(name: str):
    raise TypeError(f"dispatch.{name} runs only inside numba kernels (Python code calls the "
                    f"game's own kernels: contract.kernels_of(state))")


# One Python-side name and one overload per contract kernel, argument lists
# written out.


def random_deal(g, state, rng, out):
    """The game's ``random_deal`` (docs/design.md §2)."""
    _python_call("random_deal")


@overload(random_deal, prefer_literal=True)
def _random_deal(g, state, rng, out):
    kernel = _kernel(g, "random_deal")
    return lambda g, state, rng, out: kernel(state, rng, out)


def apply_deal(g, state, deal):
    """The game's ``apply_deal``."""
    _python_call("apply_deal")


@overload(apply_deal, prefer_literal=True)
def _apply_deal(g, state, deal):
    kernel = _kernel(g, "apply_deal")
    return lambda g, state, deal: kernel(state, deal)


def legal_actions(g, state, out):
    """The game's ``legal_actions``."""
    _python_call("legal_actions")


@overload(legal_actions, prefer_literal=True)
def _legal_actions(g, state, out):
    kernel = _kernel(g, "legal_actions")
    return lambda g, state, out: kernel(state, out)


def apply_action(g, state, action):
    """The game's ``apply_action``."""
    _python_call("apply_action")


def apply_action_inlined(g, state, action):
    """The game's ``apply_action`` written into the caller rather than called,
    for the random playout loop only: there a call per action cost a quarter to
    a third of the playout. Every inlined call re-runs numba's passes over the
    game's action kernels while compiling, so everything else calls
    :func:`apply_action`."""
    _python_call("apply_action_inlined")


def _apply_action(g, state, action):
    kernel = _kernel(g, "apply_action")
    return lambda g, state, action: kernel(state, action)


overload(apply_action, prefer_literal=True)(_apply_action)
overload(apply_action_inlined, prefer_literal=True, inline="always")(_apply_action)


def returns(g, state, objective, out):
    """The game's ``returns``."""
    _python_call("returns")


@overload(returns, prefer_literal=True)
def _returns(g, state, objective, out):
    kernel = _kernel(g, "returns")
    return lambda g, state, objective, out: kernel(state, objective, out)


def determinize(g, state, observer, rng):
    """The game's ``determinize``."""
    _python_call("determinize")


@overload(determinize, prefer_literal=True)
def _determinize(g, state, observer, rng):
    kernel = _kernel(g, "determinize")
    return lambda g, state, observer, rng: kernel(state, observer, rng)


def heuristic_action(g, state, rng):
    """The game's ``heuristic_action``."""
    _python_call("heuristic_action")


@overload(heuristic_action, prefer_literal=True)
def _heuristic_action(g, state, rng):
    kernel = _kernel(g, "heuristic_action")
    return lambda g, state, rng: kernel(state, rng)


def action_scores(g, state, rng, actions, n, out):
    """The game's optional ``action_scores``; for a game without one, the
    heuristic's choice scores 1 and every other action 0."""
    _python_call("action_scores")


@overload(action_scores, prefer_literal=True)
def _action_scores(g, state, rng, actions, n, out):
    module = _module(g, "action_scores")
    kernel = getattr(module, "action_scores", None)
    if kernel is not None:
        return lambda g, state, rng, actions, n, out: kernel(state, rng, actions, n, out)
    heuristic = module.heuristic_action

    def choice_only(g, state, rng, actions, n, out):
        choice = heuristic(state, rng)
        for i in range(n):
            out[i] = 1.0 if actions[i] == choice else 0.0

    return choice_only


def random_action(g, state, rng, actions):
    """A uniformly random legal action: the game's ``random_action``, or a pick
    from its legal actions (written into ``actions``) for a game without one."""
    _python_call("random_action")


def random_action_inlined(g, state, rng, actions):
    """:func:`random_action` written into the caller, for the random playout
    loop only (see :func:`apply_action_inlined`)."""
    _python_call("random_action_inlined")


def _random_action(g, state, rng, actions):
    module = _module(g, "random_action")
    fast = getattr(module, "random_action", None)
    if fast is not None:
        return lambda g, state, rng, actions: fast(state, rng)
    legal = module.legal_actions

    def pick(g, state, rng, actions):
        return actions[rand_below(rng, legal(state, actions))]

    return pick


overload(random_action, prefer_literal=True)(_random_action)
overload(random_action_inlined, prefer_literal=True, inline="always")(_random_action)


def observed_actions(g, state, actions, n, observer, keys):
    """The game's optional ``observed_actions``; False (``keys`` untouched) for a
    game whose actions are all seen whole."""
    _python_call("observed_actions")


@overload(observed_actions, prefer_literal=True)
def _observed_actions(g, state, actions, n, observer, keys):
    kernel = getattr(_module(g, "observed_actions"), "observed_actions", None)
    if kernel is None:
        return lambda g, state, actions, n, observer, keys: False
    return lambda g, state, actions, n, observer, keys: kernel(state, actions, n, observer, keys)


def deal_from_world(g, world, template, rng, out):
    """The game's optional ``deal_from_world`` (a deal vector that dealt ``world``,
    for replaying a deal's history: :mod:`slagwerk.search.belief`); False for a
    game without one."""
    _python_call("deal_from_world")


@overload(deal_from_world, prefer_literal=True)
def _deal_from_world(g, world, template, rng, out):
    kernel = getattr(_module(g, "deal_from_world"), "deal_from_world", None)
    if kernel is None:
        return lambda g, world, template, rng, out: False
    return lambda g, world, template, rng, out: kernel(world, template, rng, out)


def history_action(g, world, state, key):
    """The game's optional ``history_action``: the action a replayed history entry
    ``key`` names in ``state``, the deal of ``world`` being replayed (-1 if
    none); the key itself for a game without one."""
    _python_call("history_action")


@overload(history_action, prefer_literal=True)
def _history_action(g, world, state, key):
    kernel = getattr(_module(g, "history_action"), "history_action", None)
    if kernel is None:
        return lambda g, world, state, key: key
    return lambda g, world, state, key: kernel(world, state, key)


def _constant(name: str, value_of):
    def python_side(g):
        _python_call(name)

    python_side.__name__ = python_side.__qualname__ = name

    @overload(python_side, prefer_literal=True)
    def _choose(g):
        value = value_of(_module(g, name))
        return lambda g: value

    return python_side


hides_actions = _constant("hides_actions", lambda m: hasattr(m, "observed_actions"))
"""True for a game with ``observed_actions``: search asks only there."""
max_actions = _constant("max_actions", lambda m: np.int64(m.MAX_ACTIONS))
"""Room for the game's legal actions (size of an ``actions`` buffer)."""
deal_size = _constant("deal_size", lambda m: np.int64(m.DEAL_SIZE))
"""Length of the game's deal vector."""


# ------------------------------------------------------------------ Python side

_SPECIALISED: dict[tuple, object] = {}


class Constant(int):
    """An argument of :func:`specialize` compiled as a constant, like the game
    id (``Constant(policy)``): the generic kernel can then choose code while
    compiling, and compiles once for each value it is given. Call the kernel
    with the plain value or the marked one."""

    __slots__ = ()


def specialize(kernel, game_id: int, *args):
    """The generic ``kernel`` compiled (or loaded from the cache) for game
    ``game_id`` and the types of ``args`` (the values of those marked with
    :class:`Constant`); call it as ``fn(game_id, *args)``.

    :raises OptionError: for an unknown game id, before anything compiles.
    """
    key = (kernel, game_id, *map(_type_key, args))
    compiled = _SPECIALISED.get(key)
    if compiled is None:
        game_id = info_by_id(game_id).game_id
        argtypes = tuple(types.literal(int(a)) if type(a) is Constant else typeof(a) for a in args)
        compiled = _SPECIALISED[key] = kernel.compile((types.literal(game_id), *argtypes))
    return compiled


def _type_key(value):
    """What decides ``value``'s numba type, found faster than ``typeof`` (which
    costs about 10 microseconds an array, paid at every search call)."""
    if type(value) is Constant:
        return Constant, int(value)
    if isinstance(value, np.ndarray):
        flags = value.flags
        return value.dtype.str, value.ndim, flags.c_contiguous, flags.f_contiguous, flags.writeable, \
            flags.aligned
    if type(value) is int:
        return int, -(1 << 63) <= value < (1 << 63)
    if type(value) in (float, bool) or isinstance(value, np.generic):
        return type(value)
    return typeof(value)


def call(kernel, game_id: int, *args):
    """Run the generic ``kernel`` for game ``game_id`` once (see :func:`specialize`)."""
    return specialize(kernel, game_id, *args)(int(game_id), *args)
