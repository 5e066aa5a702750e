"""ISMCTS keys other seats' partly hidden actions by what the searching seat sees.

In Kozel a face-down discard shows the other seats only its number of cards.
The searching seat's tree must not split on which cards an opponent
discarded (it can never tell those apart), while a fixed-world search
(PIMC, the cheat) still sees every action whole.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from slagwerk.engine import contract, dispatch, make_game
from slagwerk.engine.bits import make_rng, popcount
from slagwerk.engine.kozel import kernels as K
from slagwerk.engine.playout import POLICY_RANDOM
from slagwerk.engine.state import OBJECTIVE_DEAL, PHASE_PLAY
from slagwerk.search.tree import (
    ACTION,
    FIRST_CHILD,
    MOVER,
    NEXT_SIBLING,
    NO_NODE,
    ROOT,
    Tree,
    run_iterations,
    unguided,
)


def iterate(state, *args):
    """run_iterations compiled for ``state``'s game."""
    no_stop = np.zeros(1, np.int64)
    return dispatch.call(run_iterations, state.game.game_id, state.array, *args, math.inf, no_stop,
                         *unguided(state.array.shape[0]))


def kozel_lead(seed: int):
    """A fresh Kozel deal where the seat to move leads (no molodka question)."""
    game = make_game("kozel")
    while True:
        state = game.new_match()
        state.deal(rng=make_rng(seed))
        if state.phase == PHASE_PLAY:
            return state
        seed += 1000


def children(tree: Tree, node: int) -> list[int]:
    out, child = [], int(tree.nodes[node, FIRST_CHILD])
    while child != NO_NODE:
        out.append(child)
        child = int(tree.nodes[child, NEXT_SIBLING])
    return out


def kind(key: int) -> int:
    return key >> K.KIND_SHIFT


def test_observed_actions_hide_only_other_seats_discards():
    state = kozel_lead(3)
    mover = state.to_move
    lead = next(a for a in state.legal_actions() if popcount(K.action_cards(a)) == 1)
    state.apply(lead)
    responder = state.to_move
    actions = np.zeros(contract.MAX_ACTIONS, np.int64)
    n = contract.legal_actions(state.array, actions)
    kinds = {kind(int(a)) for a in actions[:n]}
    assert K.KIND_DISCARD in kinds

    keys = np.full(contract.MAX_ACTIONS, -7, np.int64)
    assert not contract.observed_actions(state.array, actions, n, responder, keys)
    assert np.array_equal(keys[:n], actions[:n])  # the mover sees its own cards

    assert contract.observed_actions(state.array, actions, n, mover, keys)
    for action, key in zip(actions[:n], keys[:n]):
        if kind(int(action)) == K.KIND_DISCARD:
            assert key == (K.KIND_UNSEEN_DISCARD << K.KIND_SHIFT) | 1
        else:
            assert key == action  # a beat is played face up


@pytest.mark.parametrize("game_name", ["coins", "koetsieren", "aluette"])
def test_other_games_show_every_action_whole(game_name):
    state = make_game(game_name).new_match()
    state.deal(rng=make_rng(1))
    actions = np.zeros(contract.MAX_ACTIONS, np.int64)
    n = contract.legal_actions(state.array, actions)
    keys = np.zeros(contract.MAX_ACTIONS, np.int64)
    other = 0 if state.to_move != 0 else 1
    assert not contract.observed_actions(state.array, actions, n, other, keys)


def search_tree(state, determinize_each: int) -> Tree:
    tree = Tree(20000)
    seat = state.to_move
    iterate(state, seat, determinize_each, 3000, 0.7, POLICY_RANDOM, OBJECTIVE_DEAL,
            make_rng(5), tree.nodes, tree.values, tree.meta)
    return tree


def opponent_reply_keys(tree: Tree) -> list[list[int]]:
    """For each of the searching seat's leads, the keys of the next seat's replies."""
    replies = []
    for lead in children(tree, ROOT):
        keys = [int(tree.nodes[c, ACTION]) for c in children(tree, lead)]
        assert all(int(tree.nodes[c, MOVER]) != int(tree.nodes[lead, MOVER]) for c in children(tree, lead))
        replies.append(keys)
    return replies


def test_ismcts_does_not_split_on_an_opponents_hidden_discard():
    state = kozel_lead(3)
    replies = opponent_reply_keys(search_tree(state, determinize_each=1))
    assert any(replies)
    unseen = 0
    for keys in replies:
        assert all(kind(k) != K.KIND_DISCARD for k in keys)  # never keyed by the hidden cards
        hidden = [k for k in keys if kind(k) == K.KIND_UNSEEN_DISCARD]
        assert len(hidden) <= 1  # every discard of that size is one child
        unseen += len(hidden)
    assert unseen > 0


def test_fixed_world_search_still_sees_discards_whole():
    state = kozel_lead(3)
    replies = opponent_reply_keys(search_tree(state, determinize_each=0))
    flat = [k for keys in replies for k in keys]
    assert any(kind(k) == K.KIND_DISCARD for k in flat)
    assert not any(kind(k) == K.KIND_UNSEEN_DISCARD for k in flat)
