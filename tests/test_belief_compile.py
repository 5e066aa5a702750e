"""A hard-information belief compiles without the opponent model's scores.

Kozel's default agent builds a belief at infinite temperature (worlds must
replay the public history; no action is weighted), and a cold start then
paid for compiling Kozel's ``action_scores`` (about 3 s) that it never
called. Whether a belief scores is a compile-time constant of its kernel
(``dispatch.Constant``), checked here in the generated code, which does not
depend on the machine's speed.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from compile_constants import compile_constants_fixture  # noqa: F401 (the compile_constants fixture)
from numba import typeof, types

from slagwerk.engine import make_game
from slagwerk.engine.bits import make_rng
from slagwerk.search import belief


@pytest.mark.parametrize("scored", [belief.SCORE_NONE, belief.SCORE_ALL, belief.SCORE_OUTSIDE_PLAY,
                                    belief.SCORE_BEFORE_PLAY])
def test_a_hard_information_replay_compiles_without_the_scores(scored):
    game = make_game("kozel")
    state = game.new_match(seed=2)
    view = state.view(state.to_move)
    script = game.replay_script(view)
    array = state.array
    actions = np.zeros(game.kernels.MAX_ACTIONS, np.int64)
    deal = np.zeros(game.kernels.DEAL_SIZE, np.int64)
    betas = np.zeros(2)
    replay = numba.njit(belief._replay_deal.py_func)  # fresh: a cached kernel has no IR to inspect
    signature = (types.literal(game.info.game_id), typeof(array), types.int64, typeof(script.start),
                 typeof(script.seats), typeof(script.keys), typeof(betas), types.literal(scored),
                 typeof(make_rng(1)), typeof(array), typeof(deal), typeof(actions), typeof(np.zeros(4)))
    replay.compile(signature)
    module = replay.inspect_llvm(replay.signatures[0])
    assert ("action_scores" in module) == bool(scored)


@pytest.mark.parametrize("name, temperature, scored", [
    ("kozel", float("inf"), belief.SCORE_NONE),
    ("kozel", 2.0, belief.SCORE_ALL),
    ("koetsieren", 2.0, belief.SCORE_BEFORE_PLAY),  # its model does not read the card play
])
def test_beliefs_pass_what_they_score_as_a_constant(compile_constants, name, temperature, scored):
    game = make_game(name)
    state = game.new_match(seed=4)
    seat = state.to_move
    script = game.replay_script(state.view(seat))
    result = belief.infer(state, script, seat, temperature=temperature, particles=4, seed=1)
    assert result.agreed == 4
    assert compile_constants == [("infer_worlds", scored)]
