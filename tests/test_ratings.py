"""Ratings: Bradley-Terry / Plackett-Luce recovery on synthetic groups, ties, intervals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from slagwerk.experiments.harness.ratings import (
    CHI2_95,
    ELO_PER_NAT,
    OPEN_END_ELO,
    PRIOR_DRAWS,
    Groups,
    dispersion,
    fit_bradley_terry,
    fit_bradley_terry_many,
    groups_from_lines,
    pair_outcomes,
    rate,
)
from slagwerk.experiments.harness.seating import tables_for

TRUE_ELO = np.array([1300.0, 1450.0, 1550.0, 1700.0])  # mean 1500, the ratings' anchor
LABELS = ["d", "c", "b", "a"]


def synthetic_groups(n_groups: int, seed: int, seats: int = 3) -> Groups:
    """Groups at 3-seat tables whose rankings follow Plackett-Luce with TRUE_ELO.

    A Plackett-Luce ranking is an exponential race: agent i finishes after an
    Exp(strength_i) time, and the fastest ranks first.
    """
    rng = np.random.default_rng(seed)
    strength = np.exp((TRUE_ELO - TRUE_ELO.mean()) / ELO_PER_NAT)
    tables = tables_for(len(TRUE_ELO), seats, team_game=False)
    score = np.full((n_groups, len(TRUE_ELO)), np.nan)
    for g in range(n_groups):
        present = list(set(tables[g % len(tables)]))
        score[g, present] = -rng.exponential(1.0 / strength[present])
    zeros = np.zeros_like(score)
    return Groups(np.arange(n_groups), score, zeros, zeros)


def test_fitted_order_and_gaps_match_the_true_strengths():
    ratings = rate(synthetic_groups(1200, seed=11), LABELS, bootstrap=100, seed=1)
    assert [row.agent for row in ratings.ranking] == ["a", "b", "c", "d"]
    fitted = {row.agent: row.rating for row in ratings.ranking}
    for label, truth in zip(LABELS, TRUE_ELO):
        assert abs(fitted[label] - truth) < 60, (label, fitted[label], truth)
    for row in ratings.ranking:
        assert row.ci95[0] < row.rating < row.ci95[1]


def test_intervals_cover_the_truth_in_most_repetitions():
    covered = total = 0
    for rep in range(20):
        ratings = rate(synthetic_groups(300, seed=100 + rep), LABELS, bootstrap=200, seed=rep)
        for row in ratings.ranking:
            truth = TRUE_ELO[LABELS.index(row.agent)]
            covered += row.ci95[0] <= truth <= row.ci95[1]
            total += 1
    # nominal 95%; a broken interval (too narrow, or off-centre) falls far below
    assert covered / total >= 0.85, covered / total


def test_newton_fit_is_the_likelihood_maximum_found_by_scipy():
    rng = np.random.default_rng(3)
    k = 5
    met = rng.integers(5, 40, size=(k, k)).astype(float)
    met = np.triu(met, 1) + np.triu(met, 1).T
    wins = np.triu(rng.uniform(0, 1, size=(k, k)) * met, 1)
    wins = wins + np.tril(met - wins.T, -1)
    theta = fit_bradley_terry(wins, met)
    w = wins + 0.5 * PRIOR_DRAWS * (1 - np.eye(k))

    def nll(t):
        return float(np.sum(w * np.logaddexp(0.0, -(t[:, None] - t[None, :]))))

    reference = minimize(nll, np.zeros(k), method="BFGS").x
    np.testing.assert_allclose(theta, reference - reference.mean(), atol=1e-4)
    assert abs(theta.mean()) < 1e-12


def test_many_fits_at_once_equal_each_fit_alone():
    """The bootstrap fits its resamples together: each must come out as it would
    alone, including fits whose Newton steps need halving (lopsided records from a
    start far from their maximum) and fits that converge at different steps."""
    rng = np.random.default_rng(5)
    k = 4
    records = []
    for _ in range(40):
        met = rng.integers(0, 60, size=(k, k)).astype(float)
        met = np.triu(met, 1) + np.triu(met, 1).T
        lopsided = rng.random() < 0.5
        share = rng.choice([0.0, 1.0, 0.5, 0.9], size=(k, k)) if lopsided else rng.uniform(size=(k, k))
        wins = np.triu(share * met, 1)
        records.append(wins + np.tril(met - wins.T, -1))
    wins = np.array(records)
    start = np.array([1.5, -1.5, 0.5, -0.5])
    together = fit_bradley_terry_many(wins, start=start)
    for fit, record in zip(together, wins):
        np.testing.assert_array_equal(fit, fit_bradley_terry(record, record + record.T, start=start))
    assert len({round(float(fit[0]), 6) for fit in together}) > 20  # the records differ


def test_ties_count_half_and_head_to_head_counts_groups():
    score = np.array([
        [0.6, 0.4, np.nan],
        [0.5, 0.5, np.nan],
        [0.2, np.nan, 0.8],
    ])
    wins, met = pair_outcomes(score)
    assert wins[0, 0, 1] == 1 and wins[0, 1, 0] == 0
    assert wins[1, 0, 1] == wins[1, 1, 0] == 0.5
    assert met[2, 0, 2] == 1 and met[2, 0, 1] == 0 and wins[2, 2, 0] == 1
    groups = Groups(np.arange(3), score, np.zeros((3, 3)), np.zeros((3, 3)))
    ratings = rate(groups, ["x", "y", "z"], bootstrap=20)
    assert ratings.head_to_head[0][1] == (1, 1, 0)
    assert ratings.head_to_head[1][0] == (0, 1, 1)
    assert ratings.head_to_head[0][2] == (0, 0, 1)
    assert ratings.head_to_head[1][2] == (0, 0, 0)


def test_an_agent_that_wins_every_group_gets_a_finite_rating_and_a_real_interval():
    score = np.tile([[0.9, 0.1]], (30, 1))
    groups = Groups(np.arange(30), score, np.zeros((30, 2)), np.zeros((30, 2)))
    ratings = rate(groups, ["strong", "weak"], bootstrap=300, seed=2)
    top, bottom = ratings.ranking
    assert top.agent == "strong" and np.isfinite(top.rating)
    assert top.rating - bottom.rating > 400
    assert top.ci95[1] - top.ci95[0] > 20  # not the zero-width interval of a naive bootstrap


def test_group_scores_average_an_agents_seats_and_points_skip_forfeits():
    lines = [
        {"group": 0, "table": [0, 0, 1], "reward": [0.5, 0.25, 0.25], "points": [6, 3, 3], "deals": 1},
        {"group": 0, "table": [0, 1, 0], "reward": [0.0, 1.0, 0.0], "points": None, "deals": 0},
        {"group": 0, "table": [1, 0, 0], "reward": [0.5, 0.5, 0.0], "points": [6, 6, 0], "deals": 1},
    ]
    groups = groups_from_lines(lines, 2)
    assert groups.score[0, 0] == pytest.approx((0.5 + 0.25 + 0.0 + 0.0 + 0.5 + 0.0) / 6)
    assert groups.score[0, 1] == pytest.approx((0.25 + 1.0 + 0.5) / 3)
    assert list(groups.points[0]) == [6 + 3 + 6 + 0, 3 + 6]
    assert list(groups.deals[0]) == [4, 2]


def test_bootstrap_is_reproducible_from_its_seed():
    groups = synthetic_groups(60, seed=5)
    first = rate(groups, LABELS, bootstrap=50, seed=9)
    again = rate(groups, LABELS, bootstrap=50, seed=9)
    assert again == first and np.array_equal(again.samples, first.samples)
    other = rate(groups, LABELS, bootstrap=50, seed=10)
    assert other == first  # the ratings and their profile intervals take no random draws
    assert not np.array_equal(other.samples, first.samples)


def test_a_profile_interval_ends_where_the_likelihood_ratio_test_starts_rejecting():
    """Two agents, 14 wins to 6: the fit's log-likelihood with the prior, held at each end of
    the weaker agent's interval and maximised over the rest (by scipy), is the 95% chi-squared
    point below the maximum; the estimate lies inside."""
    score = np.array([[1.0, 0.0]] * 14 + [[0.0, 1.0]] * 6)
    groups = Groups(np.arange(20), score, np.zeros((20, 2)), np.zeros((20, 2)))
    ratings = rate(groups, ["a", "b"], bootstrap=0)
    row = {r.agent: r for r in ratings.ranking}["b"]
    w = np.array([[0.0, 14.0], [6.0, 0.0]]) + 0.5 * PRIOR_DRAWS * (1 - np.eye(2))

    def log_likelihood(gap):  # two agents: b's centred rating fixes the gap, nothing is free
        return -(w[0, 1] * np.logaddexp(0.0, -gap) + w[1, 0] * np.logaddexp(0.0, gap))

    best = -minimize(lambda t: -log_likelihood(t[0]), [0.0]).fun
    for end in row.ci95:
        gap = -2.0 * (end - 1500.0) / ELO_PER_NAT  # b is at 1500 - gap / 2 (natural units)
        assert 2.0 * (best - log_likelihood(gap)) == pytest.approx(CHI2_95, abs=1e-4)
    assert row.ci95[0] < row.rating < row.ci95[1]
    assert row.open_ends == (False, False) and row.interval_text(0).startswith("[")


def test_an_end_the_groups_do_not_bound_is_marked_open():
    score = np.tile([[1.0, 0.0]], (200, 1))
    groups = Groups(np.arange(200), score, np.zeros((200, 2)), np.zeros((200, 2)))
    top, bottom = rate(groups, ["strong", "weak"], bootstrap=0).ranking
    assert top.open_ends == (False, True) and bottom.open_ends == (True, False)
    assert top.ci95[1] == pytest.approx(top.rating + OPEN_END_ELO)
    assert ", >" in top.interval_text() and "[<" in bottom.interval_text()
    assert top.as_json()["ci95_open"] == [False, True]


def test_dispersion_counts_rankings_of_many_agents_and_ties():
    two = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert np.allclose(dispersion(*pair_outcomes(two)), 1.0)  # independent pairs: no correction
    four = np.array([[3.0, 2.0, 1.0, 0.0]] * 4)
    assert np.allclose(dispersion(*pair_outcomes(four)), 5.0 / 3.0)  # (n + 1) / 3 for a ranking of four
    half_tied = np.array([[1.0, 0.0], [0.5, 0.5]])
    assert np.allclose(dispersion(*pair_outcomes(half_tied)), 0.5)


def test_a_ranking_says_which_agents_its_intervals_separate_from_the_next():
    from types import SimpleNamespace

    from slagwerk.experiments.harness.ratings import AgentRating
    from slagwerk.experiments.harness.tournament import separated_from_next

    def row(name, low, high):
        return AgentRating(name, (low + high) / 2, (low, high), None, None)

    ranking = (row("a", 1600, 1700), row("b", 1550, 1620), row("c", 1400, 1500), row("d", 1300, 1400))
    # a and b overlap; b misses c; c and d touch at 1400, which is not missing
    assert separated_from_next(SimpleNamespace(ranking=ranking)) == ["no", "yes", "no", ""]
