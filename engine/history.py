"""A seat's encoding of the deal's history, rebuilt from its view (models trained with history).

The environments' ``history=True`` observation (:mod:`slagwerk.envs.encoded`) is the
seat's observation followed by one block per action of the deal so far, each written
by the encoding's ``observe_step`` as the action was played. An agent has only its
view. The view's public history (the game's ``replay_script(view)``) is replayed
here in a world that agrees with the view, and each action's block is written as the
environment wrote it.

``observe_step`` reads only what the seat saw of an action, so every world in which the
history replays gives the same blocks (tests/test_history.py compares them with the
environment's along whole matches, and changes only hidden cards). The replay checks
who moved, not whether a move was legal in the drawn world: a world that breaks a
rule another seat's play revealed (a suit it cannot hold) still gives the right blocks.
:func:`slagwerk.engine.replay.replay_in` replays a view in Python for the OpenSpiel
adapter; this replay runs in numba because it is part of every decision of a ``net``
agent: 76 µs against the Python replay's 194 µs for 20 actions of Koetsieren (both cores
busy with training, 2026-12-06).
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from numba import njit

from ..kernel_cache import compiling
from . import dispatch
from .bits import make_rng
from .common import copy_into
from .registry import observation_module
from .replay import DEAL_TRIES
from .state import TO_MOVE

WORLD_TRIES = 16
"""Worlds drawn (each completed in up to :data:`~slagwerk.engine.replay.DEAL_TRIES` deals)
before the history is declared unreplayable."""


def replayable(game_name: str) -> bool:
    """Whether a view holds all a seat's history blocks say. Not in Kozel: a seat's block
    shows the cards it drew after each trick, and its view shows only its hand."""
    return bool(getattr(observation_module(game_name), "HISTORY_FROM_VIEW", True))


@njit(cache=True)
def replay_blocks(g, world, seat, start, template, seats, keys, rng, state, before, deal, blocks):
    """Replay the history (``seats``, ``keys``) from ``start`` in a deal that dealt ``world`` and
    write ``seat``'s block of each action into ``blocks`` (rows zeroed); False if it does not
    replay in ``world`` (a seat to move that did not move, an action the world cannot name)."""
    for _ in range(DEAL_TRIES):
        if not dispatch.deal_from_world(g, world, template, rng, deal):
            continue
        copy_into(state, start)
        dispatch.apply_deal(g, state, deal)
        replayed = True
        for j in range(seats.shape[0]):
            if state[TO_MOVE] != seats[j]:
                replayed = False
                break
            action = dispatch.history_action(g, world, state, keys[j])
            if action < 0:
                replayed = False
                break
            copy_into(before, state)
            dispatch.apply_action(g, state, action)
            blocks[j, :] = 0.0
            dispatch.observe_step(g, before, state, seat, action, blocks[j])
        if replayed:
            return True
    return False


HISTORY_COMPILE_SECONDS = 4
"""About how long the replay compiles for a game with an empty cache (Koetsieren, two busy
cores, 2026-12-06: 4.2 s)."""
_LOADED: set[int] = set()


class UnreplayableHistory(ValueError):
    """No world drawn for the view replays its history."""


def history_input(game, view: dict, seat: int, seed: int, out: np.ndarray, world=None) -> None:
    """Write ``seat``'s history blocks, rebuilt from ``view``, into ``out`` (float32, zeroed
    beyond the deal's actions): the same as the environment's ``history=True`` part. ``world``
    (a state array that agrees with the view) is tried first; then worlds drawn from ``seed``.

    :raises UnreplayableHistory: when no world drawn for the view replays its history.
    """
    module = observation_module(game.name)
    steps, size = int(module.max_deal_steps(game.options_array)), int(module.STEP_SIZE)
    blocks = out.reshape(steps, size)
    blocks[:] = 0.0
    script = game.replay_script(view)
    if script.seats.shape[0] > steps:
        raise UnreplayableHistory(f"the view's history has {script.seats.shape[0]} actions; "
                                  f"a {game.name} deal has at most {steps}")
    if script.seats.shape[0] == 0:
        return
    state = np.empty_like(script.start)
    before = np.empty_like(script.start)
    deal = np.empty(game.kernels.DEAL_SIZE, np.int64)
    rng = make_rng(seed)
    args = (seat, script.start, script.template, script.seats, script.keys, rng, state, before, deal, blocks)
    announce = (nullcontext() if game.game_id in _LOADED else  # said once, as other compiles are
                compiling([game.name], part="history", seconds=HISTORY_COMPILE_SECONDS,
                          label="history replay"))
    with announce:
        kernel = dispatch.specialize(replay_blocks, game.game_id, np.empty(0, np.int64), *args)
    _LOADED.add(game.game_id)
    for attempt in range(WORLD_TRIES):
        if world is None or attempt > 0:
            world = game.state_from_view(view, seed=seed + attempt).array
        if kernel(game.game_id, world, *args):
            return
    raise UnreplayableHistory(f"the view's history does not replay in {WORLD_TRIES} worlds that agree "
                              f"with the view")
