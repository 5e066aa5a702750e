"""Do the ratings' 95% intervals cover the truth? A simulation with known strengths.

Agents of known Elo play simulated tournaments laid out as the real ones
(:func:`..harness.seating.tables_for`: one table per duplicate group, cycling
through a balanced schedule). A group ranks the distinct agents at its table
by Plackett-Luce with those strengths, the model the ratings assume; with
probability ``draw`` the whole group is drawn instead (as most Aluette groups
are). Each simulated tournament is rated by :func:`..harness.ratings.rate`,
and every agent's interval is checked against its true rating (what the fit
tends to with endless groups: centred, as the ratings' mean is 1500, and with
draws pulling the agents together) and against its own estimate.

``python -m slagwerk.experiments.studies.interval_coverage`` prints the table
of docs/intervals.md; tests/test_interval_coverage.py runs a small seeded
version.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np

from ..harness.ratings import ELO_MEAN, ELO_PER_NAT, Groups, elo_of_theta, fit_bradley_terry, rate
from ..harness.seating import tables_for


@dataclass(frozen=True)
class Setting:
    """One simulated tournament design: true ratings, seats, teams, draws, groups."""

    true_elo: tuple[float, ...]
    seats: int
    team_game: bool = False
    draw: float = 0.0
    groups: int = 10

    @property
    def name(self) -> str:
        layout = "teams" if self.team_game else f"{self.seats} seats"
        draws = f", {self.draw:.0%} drawn" if self.draw else ""
        return f"{len(self.true_elo)} agents, {layout}{draws}, {self.groups} groups"


def simulate(setting: Setting, rng: np.random.Generator) -> Groups:
    """One tournament's groups under ``setting``."""
    k = len(setting.true_elo)
    theta = (np.asarray(setting.true_elo, dtype=np.float64) - ELO_MEAN) / ELO_PER_NAT
    tables = tables_for(k, setting.seats, setting.team_game)
    score = np.full((setting.groups, k), np.nan)
    for g in range(setting.groups):
        present = np.array(sorted(set(tables[g % len(tables)])))
        if setting.draw and rng.random() < setting.draw:
            score[g, present] = 0.5
            continue
        noisy = theta[present] + rng.gumbel(size=len(present))  # Plackett-Luce by Gumbel draws
        order = np.argsort(-noisy)
        score[g, present[order]] = np.linspace(1.0, 0.0, len(present))
    counted = np.where(np.isnan(score), 0.0, 1.0)
    return Groups(np.arange(setting.groups), score, np.where(np.isnan(score), 0.0, score), counted)


def true_ratings(setting: Setting) -> np.ndarray:
    """The ratings the fit tends to with endless groups: the Bradley-Terry fit to the expected
    pairwise results of the schedule (ties as halves, as the fit counts them). Without draws
    they are the Plackett-Luce strengths, centred; draws pull them together."""
    k = len(setting.true_elo)
    theta = (np.asarray(setting.true_elo, dtype=np.float64) - ELO_MEAN) / ELO_PER_NAT
    tables = tables_for(k, setting.seats, setting.team_game)
    wins = np.zeros((k, k))
    for table in tables:
        present = sorted(set(table))
        for i in present:
            for j in present:
                if i != j:  # under Plackett-Luce any two agents' order is Bradley-Terry
                    above = 1.0 / (1.0 + np.exp(theta[j] - theta[i]))
                    wins[i, j] += (1.0 - setting.draw) * above + 0.5 * setting.draw
    return elo_of_theta(fit_bradley_terry(wins, wins + wins.T, prior_draws=0.0))


@dataclass(frozen=True)
class Coverage:
    """Per agent: the share of tournaments whose interval held the true centred rating,
    the share whose interval held its own estimate, and the mean interval length."""

    setting: Setting
    trials: int
    covered: np.ndarray
    contained: np.ndarray
    length: np.ndarray


def coverage(setting: Setting, trials: int, seed: int) -> Coverage:
    """Rate ``trials`` simulated tournaments of ``setting`` (seeded) and count."""
    rng = np.random.default_rng(seed)
    k = len(setting.true_elo)
    truth = true_ratings(setting)
    labels = [f"a{i}" for i in range(k)]
    covered, contained, length = np.zeros(k), np.zeros(k), np.zeros(k)
    for _ in range(trials):
        ratings = rate(simulate(setting, rng), labels, bootstrap=0)
        for row in ratings.ranking:
            i = labels.index(row.agent)
            low, high = row.ci95
            covered[i] += low <= truth[i] <= high
            contained[i] += low <= row.rating <= high
            length[i] += high - low
    return Coverage(setting, trials, covered / trials, contained / trials, length / trials)


STRENGTHS = {
    2: (1700.0, 1400.0),
    3: (1800.0, 1700.0, 1150.0),
    4: (1800.0, 1650.0, 1500.0, 1100.0),
    6: (1900.0, 1750.0, 1600.0, 1500.0, 1400.0, 1000.0),
}
"""True ratings per number of agents: a spread with one far weaker agent, as tournaments
with ``random`` in them have."""


def settings(groups=(10, 25, 100, 1000)) -> list[Setting]:
    """The designs of docs/intervals.md: two to six seats, teams, draws."""
    designs = [
        (STRENGTHS[2], 2, False, 0.0),
        (STRENGTHS[3], 3, False, 0.0),
        (STRENGTHS[4], 4, False, 0.0),
        (STRENGTHS[6], 6, False, 0.0),
        (STRENGTHS[4], 3, False, 0.0),
        (STRENGTHS[3], 4, True, 0.0),
        (STRENGTHS[3], 4, True, 0.6),
    ]
    return [Setting(elo, seats, team, draw, n) for elo, seats, team, draw in designs for n in groups]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--groups", type=int, nargs="+", default=[10, 25, 100, 1000])
    args = parser.parse_args(argv)
    print("| design | coverage per agent (strongest first) | worst | estimate inside |")
    print("| --- | --- | ---: | ---: |")
    for number, setting in enumerate(settings(tuple(args.groups))):
        result = coverage(setting, args.trials, args.seed + number)
        shares = ", ".join(f"{c:.2f}" for c in result.covered)
        print(f"| {setting.name} | {shares} | {result.covered.min():.2f} | "
              f"{result.contained.min():.2f} |", flush=True)


if __name__ == "__main__":
    main()
