"""The results folder of a tuning run.

Layout::

    config.json         the run's settings (game, agent, --param texts, opponents, budget, ...)
    evaluations.jsonl   one line per evaluation, appended and flushed as each finishes:
                        index, key, params, unit point, groups, games, score, stderr, seconds,
                        run (the fingerprint of the settings, ``TuneConfig.run_id``)
    summary.json        the plan, the trajectory, the recommendation and the confirmation
    best.json           the recommended parameters (``--agents ismcts:@best.json`` loads them)
    confirmation.json   the SPRT of the recommendation against the defaults, once decided
                        (with the specs and the fingerprint of the whole config it belongs to)
    trajectory.png      parameters and scores against games played (with matplotlib)
    faults.log          the traceback of each game an agent lost by its own exception,
                        headed by its evaluation (or the confirmation) and game

A run killed at any moment resumes from its folder: the optimiser is replayed
from its seed, taking the score of every evaluation already in the log
instead of playing it again, so no evaluation is lost or repeated and the
resumed run takes exactly the path of an uninterrupted one. A damaged tail (a
torn last line, NUL bytes after a power loss) is cut off and those
evaluations played again. Every line must belong to the folder's
``config.json`` (its ``run`` fingerprint, groups and games, and the index
sequence 0, 1, 2, ... within the plan); files are written as in a
tournament's folder (:mod:`..results`: no links followed, nothing
overwritten that the run did not create).
"""

from __future__ import annotations

import json

from ...safe_files import AppendLog
from ..harness.results import FAULTS_LOG, ExperimentFolder
from ..harness.runner import ExperimentError

EVALUATIONS = "evaluations.jsonl"
SUMMARY = "summary.json"
BEST = "best.json"
CONFIRMATION = "confirmation.json"
PLOT = "trajectory.png"


class TuningFolder(ExperimentFolder):
    """A tuning run's results folder (see the module docstring)."""

    LOG = EVALUATIONS
    KIND = "tuning run"
    FILES = (SUMMARY, BEST, CONFIRMATION, PLOT, FAULTS_LOG)

    def load_evaluations(self, expected: dict | None = None, planned: int | None = None,
                         log: AppendLog | None = None, repair: bool = False) -> list[dict]:
        """The finished evaluations in order; a damaged tail is ignored (and cut with ``repair``).

        ``expected``: values every line must hold (``run``, ``groups``,
        ``games``); ``planned``: the number of evaluations the plan makes.

        :raises ExperimentError: if a finished line is not an evaluation, the
            indices are not 0, 1, 2, ... (within ``planned``), or a line
            disagrees with ``expected``, naming the line.
        """
        path = self.path / EVALUATIONS
        lines = []
        for number, raw in self.log_lines(log, repair):
            try:
                line = json.loads(raw)
                index = line["index"]
                if not isinstance(index, int) or isinstance(index, bool) or not isinstance(
                        line["score"], (int, float)) or not isinstance(line["stderr"], (int, float)):
                    raise TypeError
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
                raise ExperimentError(f"{path}: line {number} is not an evaluation") from None
            if index != len(lines):
                raise ExperimentError(f"{path}: line {number} is evaluation {index}, expected {len(lines)}")
            if planned is not None and index >= planned:
                raise ExperimentError(f"{path}: line {number} is evaluation {index}, beyond the {planned} "
                                      f"that config.json plans")
            for key, value in (expected or {}).items():
                if line.get(key) != value:
                    raise ExperimentError(
                        f"{path}: line {number} (evaluation {index}) has {key} {line.get(key)!r} where "
                        f"config.json gives {value!r}: the line belongs to another run")
            lines.append(line)
        return lines
