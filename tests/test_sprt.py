"""SPRT: the trinomial GSPRT's statistic, its error rates on simulated streams, real runs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import xlogy

from slagwerk.experiments.harness.sprt import (
    _max_log_likelihood,
    bounds,
    estimate,
    expected_score,
    llr,
    run_sprt,
    simulate_runs,
)
from slagwerk.settings import SettingsError


@pytest.mark.parametrize("counts", [(3, 4, 5), (0, 0, 7), (7, 0, 0), (0, 9, 0), (2, 0, 11), (0, 3, 1)])
@pytest.mark.parametrize("score", [0.2, 0.5, 0.57, 0.9])
def test_constrained_maximum_matches_a_grid_search(counts, score):
    losses, draws, wins = counts
    a, b = 1 - score, 1 - 2 * score
    grid = np.linspace(max(0.0, b), a, 400001)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = xlogy(losses, grid) + xlogy(draws, 2 * (a - grid)) + xlogy(wins, grid - b)
    best = np.nanmax(np.where(np.isnan(values), -np.inf, values))
    assert _max_log_likelihood(*(float(c) for c in counts), score) == pytest.approx(best, abs=1e-6)


def test_one_win_moves_the_llr_by_the_bernoulli_ratio():
    s0, s1 = expected_score(0), expected_score(20)
    assert float(llr(0, 0, 1, 0, 20)) == pytest.approx(math.log(s1 / s0))
    assert float(llr(1, 0, 0, 0, 20)) == pytest.approx(math.log((1 - s1) / (1 - s0)))
    assert float(llr(0, 0, 0, 0, 20)) == 0.0


def test_wald_bounds():
    low, high = bounds(0.05, 0.05)
    assert low == pytest.approx(-math.log(19)) and high == pytest.approx(math.log(19))


@pytest.mark.parametrize("draw_rate", [0.0, 0.3])
def test_error_rates_on_simulated_streams_stay_near_alpha_and_beta(draw_rate):
    alpha, beta = 0.05, 0.1
    verdicts, _ = simulate_runs(0.0, draw_rate, 0.0, 40.0, alpha, beta, runs=600, max_groups=4000, seed=1)
    false_h1 = np.mean(verdicts == 1)
    assert np.mean(verdicts == -1) < 0.01
    assert false_h1 <= alpha + 0.04, false_h1  # 600 runs: standard error about 0.01
    verdicts, _ = simulate_runs(40.0, draw_rate, 0.0, 40.0, alpha, beta, runs=600, max_groups=4000, seed=2)
    false_h0 = np.mean(verdicts == 0)
    assert false_h0 <= beta + 0.04, false_h0


def test_clear_effects_are_accepted_quickly():
    verdicts, lengths = simulate_runs(300.0, 0.1, 0.0, 40.0, 0.05, 0.05, runs=200, max_groups=4000, seed=3)
    assert np.all(verdicts == 1) and lengths.mean() < 100
    verdicts, lengths = simulate_runs(-300.0, 0.1, 0.0, 40.0, 0.05, 0.05, runs=200, max_groups=4000, seed=4)
    assert np.all(verdicts == 0) and lengths.mean() < 100


def test_estimate_interval_stays_open_after_only_wins():
    elo, (low, high) = estimate(0, 0, 10)
    assert low > 0 and high > elo - 1e-9 and low < 400
    elo, (low, high) = estimate(10, 20, 10)
    assert elo == pytest.approx(0.0) and low < 0 < high


def test_run_sprt_accepts_h1_for_heuristic_against_random_in_coins():
    seen = []
    result = run_sprt("coins", {}, "heuristic", "random", 0.0, 100.0, 0.05, 0.05, 200, seed=3,
                      on_group=seen.append)
    assert result.verdict == "H1" and result.llr >= result.bounds[1]
    assert result.groups == len(seen) == result.wins + result.draws + result.losses
    assert [r.groups for r in seen] == list(range(1, result.groups + 1))
    assert result.elo_ci95[0] > 0


def test_run_sprt_stops_inconclusive_at_max_groups():
    result = run_sprt("coins", {}, "random", "random", 0.0, 30.0, 0.05, 0.05, 3, seed=1)
    assert result.verdict == "inconclusive" and result.groups == 3


@pytest.mark.parametrize(
    "kwargs, message",
    [({"elo0": 10, "elo1": 5}, "--elo0 must be below --elo1"),
     ({"alpha": 0.7}, "'alpha' must be a number above 0 and below 0.5, not 0.7"),
     ({"max_groups": 0}, "'max_groups' must be an integer from 1 to 100000, not 0")],
)
def test_bad_sprt_parameters_are_clear_errors(kwargs, message):
    args = {"elo0": 0.0, "elo1": 20.0, "alpha": 0.05, "beta": 0.05, "max_groups": 10}
    args.update(kwargs)
    with pytest.raises(SettingsError, match=message):
        run_sprt("coins", {}, "heuristic", "random", args["elo0"], args["elo1"], args["alpha"],
                 args["beta"], args["max_groups"], seed=1)


def test_the_sprt_command_says_the_test_is_checked_after_every_group(capsys):
    """The header's promise matches what runs: a clear case stops before the first printed line
    (after fewer groups than --every), and the header says the check is after every group."""
    from slagwerk.cli import main

    assert main(["sprt", "heuristic", "random", "--game", "coins", "--elo0", "0", "--elo1", "300",
                 "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    assert "the test checked after every group; its state shown every 10 groups" in err
    shown = [line for line in out.splitlines() if line.startswith("groups")]
    assert len(shown) == 1 and int(shown[0].split()[1]) < 10 and "accept H1" in out
