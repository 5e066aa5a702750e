"""One conformance check that every game passes (pgx's ``api_test`` idea).

``check_game(game)`` plays seeded random matches through the public API and
checks the engine contract: legal actions round-trip through notation,
deals are permutations of the deck, terminal states are terminal, kernels
run from inside ``@njit`` code, ``determinize`` keeps every seat's
information set, a view rebuilt with ``state_from_view`` shows the same
thing, a record replays to the same match, and the game's
kernel module provides the whole contract.
"""

from __future__ import annotations

import json

import numpy as np
from numba import njit

from slagwerk.agents import make
from slagwerk.agents.match import play_match
from slagwerk.engine import contract
from slagwerk.engine.bits import derive_seed, make_rng
from slagwerk.engine.records import load_record, record_of, replay, replay_result
from slagwerk.engine.state import OBJECTIVE_DEAL, OBJECTIVE_MATCH


@njit(cache=True)
def _random_match_in_kernels(state, rng, max_steps):
    """Play a whole match inside numba through the dispatchers; return steps."""
    actions = np.zeros(contract.MAX_ACTIONS, np.int64)
    deal = np.zeros(contract.MAX_DEAL_SIZE, np.int64)
    steps = 0
    while not contract.is_terminal(state) and steps < max_steps:
        if contract.to_move(state) < 0:
            contract.random_deal(state, rng, deal)
            contract.apply_deal(state, deal)
            continue
        n = contract.legal_actions(state, actions)
        if n == 0:
            return -1  # a seat to move with no legal action: contract broken
        contract.apply_action(state, contract.random_action(state, rng, actions))
        steps += 1
    return steps


def _without_history(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "history"}


def check_views_and_determinize(game, state, rng_seed: int) -> None:
    """Every seat: determinize keeps its view; state_from_view rebuilds it."""
    out = np.zeros(8)
    for seat in range(game.n_players):
        view = state.view(seat)
        json.dumps(view)  # a view is plain JSON
        world = state.clone()
        contract.determinize(world.array, seat, make_rng(derive_seed(rng_seed, seat)))
        assert world.view(seat) == view, f"determinize changed what seat {seat} sees"
        if state.to_move == seat:
            assert world.legal_actions() == state.legal_actions()
        rebuilt = game.state_from_view(view, seed=rng_seed)
        assert _without_history(rebuilt.view(seat)) == _without_history(view), (
            f"state_from_view does not rebuild seat {seat}'s view"
        )
        # the determinized world is a real state: it plays on to the end
        probe = world.array.copy()
        assert _random_match_in_kernels(probe, make_rng(rng_seed), 100_000) >= 0
        contract.returns(probe, OBJECTIVE_MATCH, out)
        assert np.all((out[: game.n_players] >= 0) & (out[: game.n_players] <= 1))


def check_contract(game) -> None:
    """The game's kernel module provides every constant and kernel of the contract,
    and is the module the dispatchers reach for its game id."""
    module = game.kernels
    missing = [name for name in contract.REQUIRED_CONSTANTS + contract.REQUIRED_KERNELS
               if not hasattr(module, name)]
    assert not missing, f"{game.name} kernels lack {missing}"
    assert contract.GAME_MODULES[game.name] is module
    assert module.MAX_ACTIONS <= contract.MAX_ACTIONS
    assert module.DEAL_SIZE <= contract.MAX_DEAL_SIZE
    assert module.LAYOUT.size == module.STATE_SIZE


def check_game(game, matches: int = 3, seed: int = 0) -> None:
    """Run every conformance check on ``game`` over ``matches`` seeded matches."""
    check_contract(game)
    deck_size = game.deck.size
    rewards = np.zeros(8)
    for m in range(matches):
        match_seed = derive_seed(seed, m)
        agents = [make("random", game, seed=derive_seed(match_seed, s)) for s in range(game.n_players)]
        visited = []

        def on_action(state, seat, text, visited=visited, stride=5 + m):
            # a few mid-deal states, at different points in each match
            in_deal = not state.is_terminal and not state.deal_pending
            if in_deal and len(visited) < 6 and len(state.deals[-1].actions) % stride == 1:
                visited.append(state.clone())

        state = play_match(game, agents, seed=match_seed, on_action=on_action)
        # same seed, same match
        again = play_match(game, agents, seed=match_seed)
        assert record_of(again) == record_of(state)

        # terminal state
        assert state.is_terminal and state.legal_actions() == []
        assert all(o in (0, 0.5, 1) for o in state.outcome)
        contract.returns(state.array, OBJECTIVE_MATCH, rewards)
        assert list(rewards[: game.n_players]) == [float(o) for o in state.outcome]

        # every deal is a permutation of the deck's cards
        for log in state.deals:
            cards = [int(c) for c in log.vector[:deck_size]]
            assert sorted(cards) == list(range(deck_size))

        # record round trip and replay
        record = record_of(state)
        rebuilt = load_record(json.loads(json.dumps(record)))
        assert np.array_equal(rebuilt.array, state.array)
        assert replay(record) == replay_result(state)

        # notation round trip and information sets at some mid-deal states
        for mid in visited:
            seat = mid.to_move
            for action in mid.legal_actions():
                for viewpoint in (None, seat):
                    text = game.action_text(mid, action, viewpoint)
                    assert game.parse_action(mid, text) == action, (text, action)
            contract.returns(mid.array, OBJECTIVE_DEAL, rewards)
            assert np.all((rewards[: game.n_players] >= 0) & (rewards[: game.n_players] <= 1))
            check_views_and_determinize(game, mid, match_seed)
            clone = mid.clone()
            clone.apply(clone.legal_actions()[0])
            assert not np.array_equal(clone.array, mid.array)  # clones are independent

    # a whole match inside numba, through the dispatchers
    start = game.new_match().array
    assert _random_match_in_kernels(start, make_rng(seed), 1_000_000) > 0
    assert contract.is_terminal(start)
