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
from numba import njit, typeof, types
from numba.core.errors import TypingError
from numba.extending import overload

from ..errors import OptionError
from .bits import rand_below
from .contract import KERNEL_PARAMETERS
from .registry import info_by_id, kernels_by_id, observation_module

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


# One Python-side name and one overload per contract kernel, made from the contract's list of
# parameters (contract.KERNEL_PARAMETERS). numba matches an overload to its Python-side function by
# the names of their parameters, so both are written out as text and compiled here (``exec``): the
# parameter lists live once, in the contract.


def _dispatched(name: str, doc: str, *, params: tuple[str, ...] | None = None, fallback=None,
                inlined_doc: str | None = None):
    """The Python-side function ``name(g, *params)`` whose overload calls the game's kernel
    ``name`` with the contract's parameters (``params``: the generic side's, when it passes more).

    ``fallback(module)`` is the implementation for a game without that kernel (an optional one);
    ``inlined_doc`` also makes ``name_inlined``, the same call written into its caller.
    """
    kernel_params = KERNEL_PARAMETERS[name]
    args = ", ".join(params or kernel_params)
    namespace = {"_python_call": _python_call}

    def choose(g):
        module = _module(g, name)
        kernel = getattr(module, name, None)
        if kernel is None and fallback is not None:
            return fallback(module)
        if kernel is None:
            raise TypingError(f"dispatch.{name}: game {g.literal_value} has no kernel {name!r}")
        return namespace["calling"](kernel)

    namespace["choose"] = choose
    exec(f"def implement(g, {args}):\n    return choose(g)\n"
         f"def calling(kernel):\n    return lambda g, {args}: kernel({', '.join(kernel_params)})\n",
         namespace)
    made = []
    for python_name, text, inline in ((name, doc, "never"), (f"{name}_inlined", inlined_doc, "always")):
        if text is None:
            continue
        exec(f"def {python_name}(g, {args}):\n    _python_call({python_name!r})\n", namespace)
        python_side = namespace[python_name]
        python_side.__doc__, python_side.__module__ = text, __name__
        overload(python_side, prefer_literal=True, inline=inline)(namespace["implement"])
        made.append(python_side)
    return made[0] if len(made) == 1 else tuple(made)


_INLINED = ("{} written into the caller rather than called, for the random playout loop only: "
            "there a call per action cost a quarter to a third of the playout. Every inlined call "
            "re-runs numba's passes over the game's kernels while compiling, so everything else "
            "calls :func:`{}`.")

random_deal = _dispatched("random_deal", "The game's ``random_deal`` (docs/design.md §2).")
apply_deal = _dispatched("apply_deal", "The game's ``apply_deal``.")
legal_actions = _dispatched("legal_actions", "The game's ``legal_actions``.")
apply_action, apply_action_inlined = _dispatched(
    "apply_action", "The game's ``apply_action``.",
    inlined_doc=_INLINED.format("The game's ``apply_action``", "apply_action"))
returns = _dispatched("returns", "The game's ``returns``.")
determinize = _dispatched("determinize", "The game's ``determinize``.")
heuristic_action = _dispatched("heuristic_action", "The game's ``heuristic_action``.")


def _scores_of_the_heuristic_choice(module):
    heuristic = module.heuristic_action

    def choice_only(g, state, rng, actions, n, out):
        choice = heuristic(state, rng)
        for i in range(n):
            out[i] = 1.0 if actions[i] == choice else 0.0

    return choice_only


action_scores = _dispatched(
    "action_scores", "The game's optional ``action_scores``; for a game without one, the heuristic's "
    "choice scores 1 and every other action 0.", fallback=_scores_of_the_heuristic_choice)


def _pick_a_legal_action(module):
    legal = module.legal_actions

    def pick(g, state, rng, actions):
        return actions[rand_below(rng, legal(state, actions))]

    return pick


random_action, random_action_inlined = _dispatched(
    "random_action", "A uniformly random legal action: the game's ``random_action``, or a pick from "
    "its legal actions (written into ``actions``) for a game without one.",
    params=("state", "rng", "actions"), fallback=_pick_a_legal_action,
    inlined_doc=_INLINED.format(":func:`random_action`", "random_action"))
observed_actions = _dispatched(
    "observed_actions", "The game's optional ``observed_actions``; False (``keys`` untouched) for a "
    "game whose actions are all seen whole.",
    fallback=lambda module: lambda g, state, actions, n, observer, keys: False)
deal_from_world = _dispatched(
    "deal_from_world", "The game's optional ``deal_from_world`` (a deal vector that dealt ``world``, "
    "for replaying a deal's history: :mod:`slagwerk.search.belief`); False for a game without one.",
    fallback=lambda module: lambda g, world, template, rng, out: False)
history_action = _dispatched(
    "history_action", "The game's optional ``history_action``: the action a replayed history entry "
    "``key`` names in ``state``, the deal of ``world`` being replayed (-1 if none); the key itself "
    "for a game without one.", fallback=lambda module: lambda g, world, state, key: key)


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
two_sided = _constant("two_sided", lambda m: bool(getattr(m, "TWO_SIDED", False)))
"""True for a game of two teams whose deal rewards sum to 1 (its ``TWO_SIDED``)."""
NO_TRICK_COUNT = 1 << 40
tricks_per_deal = _constant("tricks_per_deal",
                            lambda m: np.int64(getattr(m, "TRICKS_PER_DEAL", NO_TRICK_COUNT)))
"""The most tricks a deal has (the game's ``TRICKS_PER_DEAL``; for a game without one, so many
that no endgame is ever near)."""


def _encoding_kernel(g, name: str, absent):
    """The kernel ``name`` of the observation encoding of game ``g`` (``engine/<game>/observation.py``).

    A game without an encoding gets ``absent``, which does nothing: generic kernels compile
    their guided branches for every game, and the search refuses a guide for such a game
    before it runs (``tree.check_guide``).
    """
    _module(g, name)  # the checks of the game id
    info = info_by_id(g.literal_value)
    if not info.observation:
        return absent
    return getattr(observation_module(info.name), name)


@njit(cache=True)
def _no_observation(state, seat, out):
    pass


@njit(cache=True)
def _no_index(state, action):
    return np.int64(0)


def observe(g, state, seat, out):
    """The encoding's ``observe``: ``seat``'s observation of ``state`` into ``out`` (float32)."""
    _python_call("observe")


@overload(observe, prefer_literal=True)
def _observe(g, state, seat, out):
    kernel = _encoding_kernel(g, "observe", _no_observation)
    return lambda g, state, seat, out: kernel(state, seat, out)


def index_of(g, state, action):
    """The encoding's ``index_of``: the compact index of the legal engine ``action``."""
    _python_call("index_of")


@overload(index_of, prefer_literal=True)
def _index_of(g, state, action):
    kernel = _encoding_kernel(g, "index_of", _no_index)
    return lambda g, state, action: kernel(state, action)


@njit(cache=True)
def _no_step(before, after, seat, action, out):
    pass


def observe_step(g, before, after, seat, action, out):
    """The encoding's ``observe_step``: ``seat``'s block of ``action`` (``before`` to ``after``)."""
    _python_call("observe_step")


@overload(observe_step, prefer_literal=True)
def _observe_step(g, before, after, seat, action, out):
    kernel = _encoding_kernel(g, "observe_step", _no_step)
    return lambda g, before, after, seat, action, out: kernel(before, after, seat, action, out)


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
