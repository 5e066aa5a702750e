"""The results folder of a tuning run.

Layout::

    config.json         the run's settings (game, agent, --param texts, opponents, budget, ...)
    evaluations.jsonl   one line per evaluation, appended and flushed as each finishes:
                        index, key, params, unit point, groups, games, score, stderr, seconds
    summary.json        the plan, the trajectory, the recommendation and the confirmation
    best.json           the recommended parameters (``--agents ismcts:@best.json`` loads them)
    confirmation.json   the SPRT of the recommendation against the defaults, once decided
    trajectory.png      parameters and scores against games played (with matplotlib)

A run killed at any moment resumes from its folder: the optimiser is replayed
from its seed, taking the score of every evaluation already in the log
instead of playing it again, so no evaluation is lost or repeated and the
resumed run takes exactly the path of an uninterrupted one. A torn last line
(the process died while writing it) is cut off and that evaluation played
again.
"""

from __future__ import annotations

import json

from ..results import ExperimentFolder
from ..runner import ExperimentError

EVALUATIONS = "evaluations.jsonl"
SUMMARY = "summary.json"
BEST = "best.json"
CONFIRMATION = "confirmation.json"
PLOT = "trajectory.png"


class TuningFolder(ExperimentFolder):
    """A tuning run's results folder (see the module docstring)."""

    LOG = EVALUATIONS
    KIND = "tuning run"

    def load_evaluations(self, repair: bool = False) -> list[dict]:
        """The finished evaluations in order; a torn last line is ignored (and cut with ``repair``).

        :raises ExperimentError: if a finished line is not an evaluation or the
            indices are not 0, 1, 2, ...
        """
        path = self.path / EVALUATIONS
        lines = []
        for number, raw in self.log_lines(repair):
            try:
                line = json.loads(raw)
                index = int(line["index"])
                float(line["score"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise ExperimentError(f"{path}: line {number} is not an evaluation") from None
            if index != len(lines):
                raise ExperimentError(f"{path}: line {number} is evaluation {index}, expected {len(lines)}")
            lines.append(line)
        return lines
