"""The heuristic's action scores: the opponent model of ``belief=inferred``.

Every game's ``action_scores`` (engine contract, docs/design.md §2) must
agree with its ``heuristic_action``: the heuristic plays a best-scored legal
action, in every position of thousands of random ones per game, and the
scores are finite. The belief's softmax over them is then a softened
heuristic; the weights fitted to real play say how soft.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from slagwerk.engine import dispatch, make_game
from slagwerk.engine.bits import make_rng
from slagwerk.engine.registry import game_infos
from slagwerk.engine.state import PHASE, PHASE_MATCH_OVER, TO_MOVE
from slagwerk.search.belief import BEST_TOLERANCE, log_action_probability

GAMES = tuple(info.name for info in game_infos())
MATCHES = 25


@njit
def _disagreements(g, state, rng, matches, out):
    """Play ``matches`` matches from ``state`` (copied), half random and half
    heuristic moves; at every decision with a choice compare the heuristic's
    action with the scores (the same ``rng`` draws for both). Returns the
    positions checked; ``out`` gets [disagreements, non-finite scores]."""
    actions = np.zeros(dispatch.max_actions(g), np.int64)
    scores = np.zeros(dispatch.max_actions(g))
    deal = np.zeros(dispatch.deal_size(g), np.int64)
    checked = 0
    for _ in range(matches):
        s = state.copy()
        while s[PHASE] != PHASE_MATCH_OVER:
            if s[TO_MOVE] < 0:
                dispatch.random_deal(g, s, rng, deal)
                dispatch.apply_deal(g, s, deal)
                continue
            n = dispatch.legal_actions(g, s, actions)
            if n > 1:
                twin = rng.copy()
                choice = dispatch.heuristic_action(g, s, rng)
                dispatch.action_scores(g, s, twin, actions, n, scores)
                top = scores[0]
                chosen = -np.inf
                for i in range(n):
                    if not np.isfinite(scores[i]):
                        out[1] += 1
                    top = max(top, scores[i])
                    if actions[i] == choice:
                        chosen = scores[i]
                if chosen < top - 1e-9:
                    out[0] += 1
                checked += 1
            if rng[0] & np.uint64(1):
                dispatch.apply_action(g, s, dispatch.heuristic_action(g, s, rng))
            else:
                dispatch.apply_action(g, s, dispatch.random_action(g, s, rng, actions))
    return checked


@pytest.mark.parametrize("name", GAMES)
def test_the_heuristic_plays_a_best_scored_action(name):
    game = make_game(name)
    out = np.zeros(2, np.int64)
    checked = dispatch.call(_disagreements, game.game_id, game.new_match().array, make_rng(7), MATCHES, out)
    assert checked >= 1000, f"only {checked} positions"
    assert out[0] == 0, f"{name}: the heuristic played worse than its best score {out[0]} of {checked} times"
    assert out[1] == 0, f"{name}: {out[1]} scores were not finite"


def test_the_model_is_a_distribution_that_sharpens_with_its_weights():
    scores = np.array([2.0, -1.0, 0.5, 7.0, 0.0])
    for score_weight, best_weight in ((0.01, 0.0), (1.0, 0.0), (30.0, 0.0), (0.0, 2.0), (0.5, 1.0)):
        p = np.exp([log_action_probability(scores, 4, i, score_weight, best_weight) for i in range(4)])
        assert p.sum() == pytest.approx(1.0)
        assert p.argmax() == 3  # the fifth score is not a legal action
    soft = np.exp(log_action_probability(scores, 4, 0, 0.01, 0.0))
    sharp = np.exp(log_action_probability(scores, 4, 3, 30.0, 0.0))
    assert soft == pytest.approx(0.25, abs=0.02) and sharp > 0.999
    expected = -8.0 - np.log(np.exp(-5.0) + np.exp(-8.0) + np.exp(-6.5) + 1.0)
    assert log_action_probability(scores, 4, 1, 1.0, 0.0) == pytest.approx(expected, rel=1e-12)
    # the bonus goes to every best-scored action alike, and only to them
    tied = np.array([3.0, 3.0, 1.0])
    p = np.exp([log_action_probability(tied, 3, i, 0.0, np.log(4.0)) for i in range(3)])
    assert p == pytest.approx([4 / 9, 4 / 9, 1 / 9])


@njit
def _general_softmax(scores, n, index, beta_score, beta_best):
    """The opponent model's log probability with one ``exp`` per action (compiled,
    so that its ``exp`` is the kernel's)."""
    top = scores[:n].max()
    total = 0.0
    for i in range(n):
        shifted = scores[i] - top
        total += np.exp(beta_score * shifted + (beta_best if shifted >= -BEST_TOLERANCE else 0.0))
    shifted = scores[index] - top
    return beta_score * shifted + (beta_best if shifted >= -BEST_TOLERANCE else 0.0) - np.log(total)


def test_a_choice_only_model_gives_the_general_formula_to_the_last_bit():
    """A model with no score weight (Koetsieren's) sums ``exp(best_weight)`` and 1
    instead of one ``exp`` per action: the same numbers, bit for bit, so the
    belief's worlds are those the general softmax gave."""
    rng = np.random.default_rng(11)
    for _ in range(2000):
        n = int(rng.integers(1, 12))
        scores = np.round(rng.normal(size=n) * 3, int(rng.integers(0, 3)))  # rounding makes ties
        best_weight = float(rng.uniform(0.0, 5.0))
        for index in range(n):
            assert log_action_probability(scores, n, index, 0.0, best_weight) == \
                _general_softmax(scores, n, index, 0.0, best_weight)
