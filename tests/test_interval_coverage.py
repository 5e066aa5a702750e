"""The ratings' 95% intervals cover the truth about 95% of the time (issue #56): a small seeded
run of the simulation of docs/intervals.md (experiments/studies/interval_coverage.py)."""

from __future__ import annotations

import numpy as np
import pytest

from slagwerk.experiments.studies.interval_coverage import STRENGTHS, Setting, coverage, true_ratings

SETTINGS = [
    Setting(STRENGTHS[2], seats=2, groups=10),
    Setting(STRENGTHS[3], seats=3, groups=10),
    Setting(STRENGTHS[6], seats=6, groups=25),
    Setting(STRENGTHS[4], seats=3, groups=100),
    Setting(STRENGTHS[3], seats=4, team_game=True, draw=0.6, groups=25),
]


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_intervals_cover_the_true_rating_and_contain_their_estimate(setting):
    result = coverage(setting, trials=80, seed=3)
    # 80 trials at a true 95% give a share below 0.85 about once in a thousand runs; the
    # bootstrap these intervals replaced covered the weakest of three agents 14% of the
    # time at 10 groups, and intervals ignoring the ranking's dependence ~80% at six seats.
    assert result.covered.min() >= 0.85, result.covered
    assert result.covered.mean() >= 0.9, result.covered
    assert np.all(result.contained == 1.0)


def test_the_truth_is_the_strengths_centred_and_draws_pull_it_together():
    plain = Setting(STRENGTHS[3], seats=3)
    assert np.allclose(true_ratings(plain), np.array(STRENGTHS[3]) - np.mean(STRENGTHS[3]) + 1500)
    drawn = Setting(STRENGTHS[3], seats=4, team_game=True, draw=0.6)
    spread = np.ptp(true_ratings(drawn))
    assert 0 < spread < np.ptp(STRENGTHS[3])
