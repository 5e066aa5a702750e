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
import pytest

from slagwerk.engine import make_game, playout
from slagwerk.engine.bits import make_rng

# Kozel is left out: its action kernels are calls (they are large), and one
# reference-count pair per action remains there.
LOOPS = {
    "coins": playout._random_coins,
    "koetsieren": playout._random_koetsieren,
    "aluette": playout._random_aluette,
}


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


@pytest.mark.parametrize("game", sorted(LOOPS))
def test_random_playout_loop_has_no_reference_counting(game):
    # A fresh compile (the cached one has no IR to inspect); its callees come
    # from numba's cache as they do in real runs.
    loop = numba.njit(LOOPS[game].py_func)
    state = make_game(game).new_match().array  # waiting for a deal: loops zero times
    assert loop(state, make_rng(1)) == 0
    body = own_function_ir(loop)
    assert "@NRT_incref" not in body and "@NRT_decref" not in body, (
        f"the {game} playout loop counts references on every action"
    )
