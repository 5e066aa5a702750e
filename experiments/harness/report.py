"""A tournament's report: ``report.md`` with plots, written at the end of every run.

The report holds the run's summary (:func:`.tournament.format_markdown`, the
same text as ``summary.md``) and four figures (:mod:`.plots`), each a file
of the results folder:

- ``report-ratings.png``: every agent's rating with its 95% interval;
- ``report-head-to-head.png``: the share of duplicate groups each agent won
  against each other (draws half) as a heat map, with won-drawn-lost;
- ``report-scores.png``: per agent, the distribution of its group scores
  (what the ranking orders) and of its points per deal;
- ``report-convergence.png``: the ratings and their intervals fitted on the
  first groups, as groups accumulate (in group order, so the figure does not
  depend on which worker finished first).

``slagwerk report DIR`` (:func:`rebuild`) makes it again from ``games.jsonl``
and ``config.json`` alone, replacing the report's files and nothing else; the
ratings are fitted with the run's own bootstrap seed, so the summary is the
run's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .ratings import (
    ELO_PER_NAT,
    PRIOR_DRAWS,
    Groups,
    elo_of_theta,
    fit_bradley_terry,
    groups_from_lines,
    pair_outcomes,
    rate,
)
from .results import REPORT_MD, REPORT_PLOTS, SUMMARY_JSON, ResultsFolder
from .runner import ExperimentError
from .seating import schedule
from .tournament import TournamentConfig, TournamentResult, format_markdown, points_meaning

CONVERGENCE_POINTS = 12
"""Most checkpoints of the convergence figure."""
Z95 = 1.959964
"""Standard normal quantile of a two-sided 95% interval."""

RATINGS_PNG, HEAD_TO_HEAD_PNG, SCORES_PNG, CONVERGENCE_PNG = REPORT_PLOTS


def load_tournament(path) -> tuple[TournamentResult, list[dict]]:
    """The finished tournament in ``path``, rated again from its games, and its games in
    schedule order. Every line of the log is checked against ``config.json``.

    :raises ExperimentError: if the folder holds no tournament or games are missing.
    """
    folder = ResultsFolder.open(path)
    config = TournamentConfig.load(folder.config(), folder.config_path)  # a tampered one: one line
    slots = schedule(config.tables(), config.deals)
    done = folder.load_games(config.expected_lines(slots))
    missing = sum(1 for slot in slots if slot.index not in done)
    if missing:
        raise ExperimentError(f"{str(path)!r}: {missing} of {len(slots)} games are not played yet: "
                              f"finish the run with --resume {path}")
    lines = [done[slot.index] for slot in slots]
    labels = config.setup().labels
    ratings = rate(groups_from_lines(lines, len(labels)), labels, config.bootstrap, config.seed)
    forfeits = [{"index": line["index"], **line["forfeit"]} for line in lines if line.get("forfeit")]
    summary = folder.read(SUMMARY_JSON)
    seconds = summary.get("seconds", 0.0) if isinstance(summary, dict) else 0.0
    return TournamentResult(config, ratings, len(lines), forfeits, float(seconds), folder.path), lines


def games_of(result: TournamentResult) -> list[dict]:
    """The games of the finished ``result`` from its folder, in schedule order (each line
    checked against the settings)."""
    config = result.config
    slots = schedule(config.tables(), config.deals)
    done = ResultsFolder(result.folder).load_games(config.expected_lines(slots))
    return [done[slot.index] for slot in slots]


def rebuild(path) -> TournamentResult:
    """``slagwerk report DIR``: the report of the finished tournament in ``path``, written again."""
    result, lines = load_tournament(path)
    write_report(result, lines)
    return result


def write_report(result: TournamentResult, lines: list[dict] | None = None) -> None:
    """Write ``report.md`` and its figures into the folder of the finished ``result`` (each
    replaced atomically). ``lines``: its games in schedule order (default: read from the folder)."""
    from . import plots

    config, ratings = result.config, result.ratings
    folder = ResultsFolder(result.folder)
    if lines is None:
        lines = games_of(result)
    labels = list(ratings.labels)
    groups = groups_from_lines(lines, len(labels))
    rating = {row.agent: row for row in ratings.ranking}
    title = f"{config.game}: {ratings.groups} duplicate groups, seed {config.seed}"
    folder.write_bytes(RATINGS_PNG, plots.ratings_figure(
        title, labels, [rating[a].rating for a in labels], [rating[a].ci95[0] for a in labels],
        [rating[a].ci95[1] for a in labels]))
    order = [labels.index(row.agent) for row in ratings.ranking]  # best first
    records = [[ratings.head_to_head[i][j] for j in order] for i in order]
    folder.write_bytes(HEAD_TO_HEAD_PNG, plots.head_to_head_figure(title, [labels[i] for i in order],
                                                                   records))
    group_scores, points = score_samples(groups, lines, len(labels))
    bottom_up = order[::-1]  # the best agent at the top of the figure
    folder.write_bytes(SCORES_PNG, plots.scores_figure(
        title, [labels[i] for i in bottom_up], [group_scores[i] for i in bottom_up],
        [points[i] for i in bottom_up], points_meaning(config.game)))
    checkpoints, fitted, low, high = convergence(groups, labels, config.seed)
    folder.write_bytes(CONVERGENCE_PNG, plots.convergence_figure(
        title, [labels[i] for i in order], checkpoints, fitted[:, order], low[:, order], high[:, order]))
    folder.write_bytes(REPORT_MD, report_markdown(result, checkpoints, fitted).encode("utf-8"))


def score_samples(groups: Groups, lines: list[dict], n_agents: int) -> tuple[list, list]:
    """Per agent: its score in every group it played, and its points per deal in every seat
    it held in a game with complete deals (forfeits have none)."""
    group_scores = [groups.score[:, a][~np.isnan(groups.score[:, a])] for a in range(n_agents)]
    points: list[list[float]] = [[] for _ in range(n_agents)]
    for line in lines:
        if line.get("points") is None or not line.get("deals"):
            continue
        for seat, agent in enumerate(line["table"]):
            points[agent].append(line["points"][seat] / line["deals"])
    return group_scores, [np.array(values) for values in points]


def convergence(groups: Groups, labels: list[str], seed: int = 0):
    """Ratings fitted on the first ``n`` groups for up to :data:`CONVERGENCE_POINTS` values of
    ``n`` (spaced evenly, ending with all groups): ``(n values, rating, low, high)``, the
    last three ``float[checkpoints, agents]`` in the order of ``labels``.

    The band is the fit's normal approximation (1.96 standard errors from the
    likelihood's curvature, treating a group's pairs as independent), one fit
    per checkpoint instead of a bootstrap each: a guide to how the ratings
    settle. The final ranking's own intervals are the profile likelihood's."""
    count = groups.count
    checkpoints = sorted({int(round(v)) for v in np.linspace(0, count, CONVERGENCE_POINTS + 1)[1:]} - {0})
    k = len(labels)
    fitted = np.empty((len(checkpoints), k))
    low, high = np.empty_like(fitted), np.empty_like(fitted)
    wins_g, met_g = pair_outcomes(groups.score)
    for row, n in enumerate(checkpoints):
        wins, met = wins_g[:n].sum(axis=0), met_g[:n].sum(axis=0)
        theta = fit_bradley_terry(wins, met)
        error = Z95 * ELO_PER_NAT * _standard_errors(wins, theta)
        fitted[row] = elo_of_theta(theta)
        low[row], high[row] = fitted[row] - error, fitted[row] + error
    return checkpoints, fitted, low, high


def _standard_errors(wins: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Standard errors of the log-strengths (mean fixed at 0) from the observed information
    of the Bradley-Terry likelihood with its prior (as :func:`.ratings.fit_bradley_terry`)."""
    k = len(theta)
    w = wins + 0.5 * PRIOR_DRAWS * (1.0 - np.eye(k))
    p = 0.5 * (1.0 + np.tanh(0.5 * (theta[:, None] - theta[None, :])))
    v = (w + w.T) * p * (1.0 - p)
    information = np.diag(v.sum(axis=1)) - v
    covariance = np.linalg.pinv(information)  # the null direction is the common shift
    return np.sqrt(np.clip(np.diag(covariance), 0.0, None))


def report_markdown(result: TournamentResult, checkpoints, fitted) -> str:
    """``report.md``: the run's summary, the figures, and the ratings as groups accumulated."""
    labels = list(result.ratings.labels)
    order = [labels.index(row.agent) for row in result.ratings.ranking]
    out = [format_markdown(result).rstrip("\n"), "", "## Figures", ""]
    out += [
        f"![ratings with 95% intervals]({RATINGS_PNG})", "",
        f"![head to head: share of duplicate groups won]({HEAD_TO_HEAD_PNG})", "",
        f"![score distribution per agent]({SCORES_PNG})", "",
        f"![rating convergence as groups accumulate]({CONVERGENCE_PNG})", "",
        "## Ratings as groups accumulate", "",
        "| groups | " + " | ".join(f"`{labels[a]}`" for a in order) + " |",
        "|---" * (len(order) + 1) + "|",
    ]
    for n, row in zip(checkpoints, fitted):
        out.append(f"| {n} | " + " | ".join(f"{row[a]:.0f}" for a in order) + " |")
    return "\n".join(out) + "\n"


def report_files(path) -> list[Path]:
    """The report's files in ``path`` (for messages)."""
    return [Path(path) / name for name in (REPORT_MD, *REPORT_PLOTS)]
