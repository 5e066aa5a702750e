"""The random playout loops compile without reference counting per action.

Playouts are what search and ``slagwerk bench`` spend their time in. When a
kernel on their path allocates, calls a non-inlined kernel that branches
over the state, or divides by a runtime value (its zero-division exit),
numba keeps an atomic increment and decrement of the state's reference
count on every action: in Coins that alone cost a third of the playout
time. Counting once per call (the arguments taken on entry and released on
return) costs nothing measurable. Speed itself is measured by ``slagwerk
bench``, never asserted here; this checks the generated code, which does
not depend on the machine's load.
"""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest
from compile_constants import compile_constants_fixture  # noqa: F401 (the compile_constants fixture)
from numba import typeof, types

from slagwerk.engine import make_game, playout
from slagwerk.engine.bits import make_rng
from slagwerk.engine.registry import game_infos

GAMES = [info for info in game_infos() if info.playout_free_of_refcounts]


def own_function_ir(dispatcher) -> str:
    """LLVM IR of the compiled function itself (not the linked callees or the
    CPython wrapper)."""
    module = dispatcher.inspect_llvm(dispatcher.signatures[0])
    name = dispatcher.py_func.__name__
    for chunk in re.split(r"\ndefine ", module)[1:]:
        header = chunk.split("{", 1)[0]
        if re.search(rf"@_ZN(?!7cpython)\S*{name}", header):  # not the CPython wrapper
            return chunk
    raise AssertionError(f"no compiled body for {name} in its LLVM module")


@pytest.mark.parametrize("info", GAMES, ids=[info.name for info in GAMES])
def test_random_playout_loop_has_no_reference_counting(info):
    # A fresh compile (the cached one has no IR to inspect) of the generic loop
    # for this game; its callees come from numba's cache as they do in real runs.
    loop = numba.njit(playout.random_loop.py_func)
    state = make_game(info.name).new_match().array  # waiting for a deal: loops zero times
    rng, actions = make_rng(1), np.zeros(64, np.int64)
    compiled = loop.compile((types.literal(info.game_id), typeof(state), typeof(rng), typeof(actions)))
    assert compiled(info.game_id, state, rng, actions) == 0
    _header, entry, *rest = re.split(r"\n(?=[\w.]+:)", own_function_ir(loop))  # basic blocks
    taken, released = entry.count("@NRT_incref"), "".join(rest).count("@NRT_decref")
    assert "@NRT_incref" not in "".join(rest) and released == taken, (
        f"the {info.name} playout loop counts references on every action"
    )


@pytest.mark.parametrize("policy, used, unused", [
    (playout.POLICY_RANDOM, "random_loop", "heuristic_loop"),
    (playout.POLICY_HEURISTIC, "heuristic_loop", "random_loop"),
    (None, "random_loop", "heuristic_loop"),  # chosen at run time: both compile
])
def test_a_constant_playout_policy_compiles_only_its_own_loop(policy, used, unused):
    # A search with random playouts (the default) then never compiles the
    # game's heuristic: a cold start saves its whole compile time.
    info = game_infos()[0]
    deal = numba.njit(playout.play_deal.py_func)
    state = make_game(info.name).new_match().array
    rng, actions = make_rng(1), np.zeros(64, np.int64)
    policy_type = types.int64 if policy is None else types.literal(policy)
    deal.compile((types.literal(info.game_id), typeof(state), policy_type, typeof(rng), typeof(actions)))
    module = deal.inspect_llvm(deal.signatures[0])
    assert used in module
    assert (unused in module) == (policy is None)


@pytest.mark.parametrize("playout_name, policy", [("random", playout.POLICY_RANDOM),
                                                  ("heuristic", playout.POLICY_HEURISTIC)])
def test_searches_compile_their_playout_policy_as_a_constant(compile_constants, playout_name, policy):
    from slagwerk.search.ismcts import ismcts
    from slagwerk.search.pimc import pimc

    state = make_game("coins").new_match(seed=3)
    ismcts(state, iterations=8, playout=playout_name, seed=1)
    pimc(state, worlds=2, iterations_per_world=4, playout=playout_name, seed=1)
    no_guide = 0  # search/guide.py's GUIDE_NONE, a constant too
    assert compile_constants == [("run_iterations_in", policy), ("run_iterations_in", no_guide),
                                 ("pimc_worlds", policy), ("pimc_worlds", no_guide)]
