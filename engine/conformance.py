"""The conformance suite every registered game passes (pgx's ``api_test`` idea).

:func:`check_game` plays seeded random matches through the public API and
checks the engine contract (docs/design.md §2): the game's declaration agrees
with its kernels; legal actions round-trip through notation; deals are
permutations of the deck; terminal states are terminal; the generic kernels
compiled for the game play whole matches; ``determinize`` keeps every seat's
information set; a view rebuilt with ``state_from_view`` shows the same
thing; where ``determinize`` agrees with the whole history, only the card
play follows its start; the heuristic plays a best action by its own
``action_scores``; and a record replays to the same match. The test suite runs it for
every game in the registry with each of its ``test_options``; a new game is
checked the moment it is registered.

>>> from slagwerk.engine import make_game
>>> check_game(make_game("coins"), matches=1)
"""

from __future__ import annotations

import json

import numpy as np
from numba import njit

from ..errors import InvalidViewError
from . import contract, dispatch
from .bits import derive_seed, make_rng, rand_below
from .contract import REQUIRED_CONSTANTS, REQUIRED_KERNELS
from .records import load_record, record_of, replay, replay_result
from .registry import game_class, game_info, kernels_by_id
from .state import (
    COMMON_FIELDS,
    OBJECTIVE_DEAL,
    OBJECTIVE_MATCH,
    PHASE,
    PHASE_MATCH_OVER,
    PHASE_PLAY,
    TO_MOVE,
)


@njit(cache=True)
def random_match_in_kernels(g, state, rng, max_steps):
    """Play a whole match inside numba through the dispatchers; return the
    actions played, or -1 if a seat to move had no legal action."""
    actions = np.zeros(dispatch.max_actions(g), np.int64)
    deal = np.zeros(dispatch.deal_size(g), np.int64)
    steps = 0
    while state[PHASE] != PHASE_MATCH_OVER and steps < max_steps:
        if state[TO_MOVE] < 0:
            dispatch.random_deal(g, state, rng, deal)
            dispatch.apply_deal(g, state, deal)
            continue
        if dispatch.legal_actions(g, state, actions) == 0:
            return -1
        dispatch.apply_action(g, state, dispatch.random_action(g, state, rng, actions))
        steps += 1
    return steps


def check_declaration(name: str) -> None:
    """The game's ``GameInfo`` agrees with its kernels and its class."""
    info = game_info(name)
    kernels = kernels_by_id(info.game_id)
    missing = [k for k in REQUIRED_CONSTANTS + REQUIRED_KERNELS if not hasattr(kernels, k)]
    assert not missing, f"{name} kernels lack {missing}"
    assert info.game_id == kernels.GAME_ID, f"{name}: kernels say game id {kernels.GAME_ID}"
    assert tuple(kernels.OPTION_NAMES) == tuple(info.options), (
        f"{name}: the kernels' OPTION_NAMES {kernels.OPTION_NAMES} differ from the declared options")
    assert info.hides_actions == hasattr(kernels, "observed_actions"), (
        f"{name}: hides_actions={info.hides_actions} but observed_actions is "
        f"{'present' if hasattr(kernels, 'observed_actions') else 'missing'}")
    assert kernels.LAYOUT.size == kernels.STATE_SIZE
    assert [n for n, _ in COMMON_FIELDS] == [n for n, _ in kernels.LAYOUT.fields[: len(COMMON_FIELDS)]]
    cls = game_class(name)
    assert cls.info is info and cls.name == name and cls.kernels is kernels
    assert info.test_options, f"{name}: declare at least one option set to test"


def _random_play(game, seed: int, on_action=None):
    """A whole match of uniformly random legal actions, deals and choices from ``seed``."""
    state = game.new_match()
    deals, choices = make_rng(derive_seed(seed, 1)), make_rng(derive_seed(seed, 2))
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(rng=deals)
            continue
        legal = state.legal_actions()
        state.apply(legal[rand_below(choices, len(legal))])
        if on_action is not None:
            on_action(state)
    return state


def _without_history(view: dict) -> dict:
    return {k: v for k, v in view.items() if k != "history"}


def check_views_and_determinize(game, state, rng_seed: int) -> None:
    """Every seat: determinize keeps its view; state_from_view rebuilds it; the
    determinized world is a real state that plays on to the end."""
    kernels, out = game.kernels, np.zeros(8)
    for seat in range(game.n_players):
        view = state.view(seat)
        json.dumps(view)  # a view is plain JSON
        world = state.clone()
        kernels.determinize(world.array, seat, make_rng(derive_seed(rng_seed, seat)))
        assert world.view(seat) == view, f"determinize changed what seat {seat} sees"
        if state.to_move == seat:
            assert world.legal_actions() == state.legal_actions()
        rebuilt = game.state_from_view(view, seed=rng_seed)
        assert _without_history(rebuilt.view(seat)) == _without_history(view), (
            f"state_from_view does not rebuild seat {seat}'s view")
        if state.to_move == seat:  # a belief replays the view's history
            rebuilt.game.replay_script(view)
        try:
            game.state_from_view({**view, "history": view["history"] + [None]})
        except InvalidViewError:
            pass
        else:
            raise AssertionError("state_from_view accepts a history entry that is null")
        probe = world.array.copy()
        assert dispatch.call(random_match_in_kernels, game.game_id, probe, make_rng(rng_seed), 100_000) >= 0
        kernels.returns(probe, OBJECTIVE_MATCH, out)
        assert np.all((out[: game.n_players] >= 0) & (out[: game.n_players] <= 1))


def check_action_scores(game, state, rng_seed: int) -> None:
    """The heuristic plays a best-scored legal action (``action_scores``, the
    opponent model of ``belief=inferred``), and every score is finite."""
    legal = np.array(state.legal_actions(), dtype=np.int64)
    scores = np.empty(len(legal))
    contract.action_scores(state.array, make_rng(rng_seed), legal, len(legal), scores)
    choice = int(game.kernels.heuristic_action(state.array, make_rng(rng_seed)))
    assert np.all(np.isfinite(scores)), f"{game.name}: scores {scores} are not all finite"
    assert choice in legal, f"{game.name}: the heuristic's action {choice} is not legal"
    assert scores[list(legal).index(choice)] >= scores.max() - 1e-9, (
        f"{game.name}: the heuristic plays {choice} scored {scores[list(legal).index(choice)]}, "
        f"but {int(legal[scores.argmax()])} scores {scores.max()}")


def check_play_comes_last(game, seed: int) -> None:
    """Where ``determinize`` agrees with the whole history, nothing but the card
    play follows the play's start in a deal: a belief that does not read the
    play stops replaying there (``SCORE_BEFORE_PLAY`` in search/belief.py)."""
    if not game.info.determinize_uses_whole_history:
        return
    playing = [False]

    def on_action(state):
        if state.is_terminal or state.deal_pending:
            playing[0] = False
        elif state.array[PHASE] == PHASE_PLAY:
            playing[0] = True
        else:
            assert not playing[0], (
                f"{game.name}: an action of phase {int(state.array[PHASE])} follows the card play's start, "
                f"but the game declares determinize_uses_whole_history")

    _random_play(game, seed, on_action)


def check_game(game, matches: int = 3, seed: int = 0) -> None:
    """Run every conformance check on ``game`` over ``matches`` seeded matches."""
    check_declaration(game.name)
    kernels, deck_size, rewards = game.kernels, game.deck.size, np.zeros(8)
    for m in range(matches):
        match_seed = derive_seed(seed, m)
        visited = []

        def on_action(state, visited=visited, stride=5 + m):
            # a few mid-deal states, at different points in each match
            in_deal = not state.is_terminal and not state.deal_pending
            if in_deal and len(visited) < 6 and len(state.deals[-1].actions) % stride == 1:
                visited.append(state.clone())

        state = _random_play(game, match_seed, on_action)
        check_play_comes_last(game, match_seed)
        assert record_of(_random_play(game, match_seed)) == record_of(state), "same seed, same match"

        assert state.is_terminal and state.legal_actions() == []
        assert all(o in (0, 0.5, 1) for o in state.outcome)
        kernels.returns(state.array, OBJECTIVE_MATCH, rewards)
        assert list(rewards[: game.n_players]) == [float(o) for o in state.outcome]
        for log in state.deals:  # every deal is a permutation of the deck
            assert sorted(int(c) for c in log.vector[:deck_size]) == list(range(deck_size))

        record = record_of(state)
        rebuilt = load_record(json.loads(json.dumps(record)))
        assert np.array_equal(rebuilt.array, state.array)
        assert replay(record) == replay_result(state)

        for mid in visited:  # notation round trip and information sets
            seat = mid.to_move
            for action in mid.legal_actions():
                for viewpoint in (None, seat):
                    text = game.action_text(mid, action, viewpoint)
                    assert game.parse_action(mid, text) == action, (text, action)
            kernels.returns(mid.array, OBJECTIVE_DEAL, rewards)
            assert np.all((rewards[: game.n_players] >= 0) & (rewards[: game.n_players] <= 1))
            check_views_and_determinize(game, mid, match_seed)
            check_action_scores(game, mid, match_seed)
            clone = mid.clone()
            clone.apply(clone.legal_actions()[0])
            assert not np.array_equal(clone.array, mid.array)  # clones are independent

    start = game.new_match().array  # a whole match inside numba, through the dispatchers
    assert dispatch.call(random_match_in_kernels, game.game_id, start, make_rng(seed), 1_000_000) > 0
    assert start[PHASE] == PHASE_MATCH_OVER
