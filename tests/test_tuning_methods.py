"""Tuning methods on synthetic noisy objectives with a known optimum, and the parameter space."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

from slagwerk.errors import SpecError
from slagwerk.experiments.tuning import gp_maximize, parse_space, spsa_maximize
from slagwerk.experiments.tuning.space import Dimension


def win_rate_quadratic(optimum, seed, games=100, peak=0.6, curvature=0.4):
    """A noisy quadratic: the score is the share of ``games`` won at win rate p(x).

    p(x) = peak - curvature * |x - optimum|^2, so the noise is binomial like a
    real win rate's; returns the objective and the true p.
    """
    rng = np.random.default_rng(seed)
    optimum = np.asarray(optimum, dtype=float)

    def p(x):
        return float(np.clip(peak - curvature * np.sum((np.asarray(x) - optimum) ** 2), 0.01, 0.99))

    def objective(x, key):
        score = rng.binomial(games, p(x)) / games
        return score, float(np.sqrt(max(score * (1 - score), 0.01) / games))

    return objective, p


# ------------------------------------------------------------------ SPSA


@pytest.mark.parametrize("seed", range(6))
def test_spsa_converges_near_the_optimum_of_a_noisy_quadratic(seed):
    optimum = np.array([0.75, 0.3])
    objective, p = win_rate_quadratic(optimum, seed)
    start = np.array([0.2, 0.8]) if seed % 2 else np.array([0.5, 0.5])
    result = spsa_maximize(lambda x, key: objective(x, key)[0], start, 60, seed=seed)
    assert np.linalg.norm(result.best - optimum) < 0.2
    assert p(result.best) > p(start) + 0.02  # it moved uphill, not just stayed put
    assert len(result.steps) == 60


def test_spsa_pairs_share_a_deal_key_and_replay_exactly():
    keys = []
    objective, _ = win_rate_quadratic([0.4], seed=3)

    def logged(x, key):
        keys.append(key)
        return objective(x, key)[0]

    first = spsa_maximize(logged, np.array([0.9]), 12, seed=5)
    assert keys == [k for k in range(12) for _ in range(2)]
    scores = [s for step in first.steps for s in (step.y_plus, step.y_minus)]
    replay = iter(scores)
    second = spsa_maximize(lambda x, key: next(replay), np.array([0.9]), 12, seed=5)
    assert np.array_equal(first.best, second.best)
    assert [s.theta.tolist() for s in first.steps] == [s.theta.tolist() for s in second.steps]


def test_spsa_stays_inside_the_unit_cube_and_refuses_tiny_budgets():
    result = spsa_maximize(lambda x, key: float(np.sum(x)), np.array([0.95, 0.05]), 20, seed=1)
    for step in result.steps:
        assert np.all((step.plus >= 0) & (step.plus <= 1) & (step.minus >= 0) & (step.minus <= 1))
    assert np.all(result.final > 0.9)  # the maximum of a sum is the far corner
    with pytest.raises(ValueError, match="at least 10 iterations"):
        spsa_maximize(lambda x, key: 0.0, np.array([0.5]), 9, seed=1)


# ------------------------------------------------------------------ GP search


def test_gp_search_converges_near_the_optimum_of_integer_parameters():
    axes = [np.linspace(0, 1, 10), np.linspace(0, 1, 21)]  # two integer ranges on the unit grid
    optimum = np.array([0.62, 0.27])
    start = np.array([0.0, 1.0])
    regrets, distances = [], []
    for seed in range(6):
        objective, p = win_rate_quadratic(optimum, seed)
        result = gp_maximize(objective, axes, 40, seed=seed, start=start)
        assert all(np.isclose(axis, v).any() for v, axis in zip(result.best, axes))  # a grid point
        assert np.allclose(result.evaluations[0].point, start)  # the start comes first
        assert [e.index for e in result.evaluations] == list(range(40))
        regrets.append(p(optimum) - p(result.best))
        distances.append(np.linalg.norm(result.best - optimum))
    # One evaluation's noise is 0.05; the start is 0.37 below the optimum. A
    # recommendation within 0.02 of the best win rate is the typical outcome,
    # and even an unlucky run ends far above where it started.
    assert np.median(regrets) < 0.02 and max(regrets) < 0.1, regrets
    assert np.median(distances) < 0.25, distances


def test_gp_search_is_reproducible_and_refuses_tiny_budgets():
    axes = [np.linspace(0, 1, 7)]
    runs = []
    for _ in range(2):
        objective, _ = win_rate_quadratic([0.5], seed=9)
        runs.append(gp_maximize(objective, axes, 10, seed=4))
    assert [e.point.tolist() for e in runs[0].evaluations] == [e.point.tolist() for e in runs[1].evaluations]
    with pytest.raises(ValueError, match="at least 8 evaluations"):
        gp_maximize(lambda x, key: (0.5, 0.1), axes, 7, seed=1)


# ------------------------------------------------------------------ the space


def test_space_parses_ranges_log_ranges_integers_and_fixed_values():
    final = _final_choices()[-1]
    space = parse_space("ismcts", ["c=0.1:3.0:log", "iterations=50:400", f"final={final}"])
    assert space.fixed == {"final": final}
    c, iterations = space.dims
    assert (c.name, c.low, c.high, c.log, c.integer) == ("c", 0.1, 3.0, True, False)
    assert (iterations.low, iterations.high, iterations.integer) == (50, 400, True)
    assert space.params([0.0, 1.0]) == {"c": 0.1, "iterations": 400}
    assert isinstance(space.params([0.5, 0.5])["iterations"], int)
    mid = space.params([0.5, 0.0])["c"]
    assert abs(mid - np.sqrt(0.1 * 3.0)) < 1e-3  # the middle of a log range is the geometric mean
    assert np.allclose(space.unit(space.params([0.3, 0.7])), [0.3, 0.7], atol=0.01)
    fixed = parse_space("ismcts", ["c=0.2:2", "iterations=300"])
    assert fixed.fixed == {"iterations": 300}
    assert fixed.spec({"c": 0.5}) == "ismcts:iterations=300,c=0.5"
    assert fixed.spec() == "ismcts:iterations=300"
    assert np.allclose(fixed.start(), [(0.7 - 0.2) / 1.8])  # the default c = 0.7


def _final_choices():
    from slagwerk.agents.registry import agent_class

    return agent_class("ismcts").params["final"].choices


@pytest.mark.parametrize("params, message", [
    (["bogus=1:2"], "unknown parameter 'bogus' for agent 'ismcts'"),
    (["c=3:1"], "low end must be below its high end"),
    (["c=1:1"], "low end must be below its high end"),
    (["c=-1:2"], "c='-1' must be a number from 0.0 to 100.0"),
    (["iterations=0:100"], "iterations='0' must be an integer from 1"),
    (["c=0:2:log"], "and a log range's above 0"),
    (["iterations=1.5:9"], "iterations='1.5' must be an integer"),
    (["c=0.1:x"], "c='x' must be a number"),
    (["c=0.1:1:2"], "is not name=lo:hi, name=lo:hi:log or name=value"),
    (["playout=random:heuristic"], "only numbers can be tuned"),
    (["c=0.1:1", "c=0.2:2"], "given twice"),
    (["c"], "is not name=lo:hi"),
    (["iterations=200"], "nothing to tune"),
    ([], "nothing to tune"),
])
def test_space_rejects_bad_parameters_and_ranges(params, message):
    with pytest.raises(SpecError, match=message):
        parse_space("ismcts", params)


def test_space_rejects_an_unknown_agent():
    with pytest.raises(SpecError, match="unknown agent 'nobody'"):
        parse_space("nobody", ["c=0.1:1"])


def test_dimension_grids_cover_integer_ranges_and_dedupe_rounded_values():
    small = Dimension("worlds", 2, 9, integer=True)
    assert [small.from_unit(u) for u in small.unit_values()] == list(range(2, 10))
    wide = Dimension("iterations", 10, 100000, integer=True, log=True)
    values = [wide.from_unit(u) for u in wide.unit_values(64)]
    assert len(values) == len(set(values)) <= 64 and values[0] == 10 and values[-1] == 100000


@pytest.mark.parametrize("name", ["space", "spsa", "gp", "run"])
def test_doctests(name):
    module = importlib.import_module(f"slagwerk.experiments.tuning.{name}")
    assert doctest.testmod(module).failed == 0
