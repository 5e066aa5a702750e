"""The random playout loops compile without reference counting.

Playouts are what search and ``slagwerk bench`` spend their time in. When a
kernel on their path allocates, calls a non-inlined kernel that branches
over the state, or divides by a runtime value (its zero-division exit),
numba keeps an atomic increment and decrement of the state's reference
count on every action: in Coins that alone cost a third of the playout
time. Speed itself is measured by ``slagwerk bench``, never asserted here;
this checks the generated code, which does not depend on the machine's load.
"""

from __future__ import annotations

import re

import numba
import numpy as np
import pytest
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
    body = own_function_ir(loop)
    assert "@NRT_incref" not in body and "@NRT_decref" not in body, (
        f"the {info.name} playout loop counts references on every action"
    )
