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
import os
from pathlib import Path

from ..runner import ExperimentError

CONFIG = "config.json"
EVALUATIONS = "evaluations.jsonl"
SUMMARY = "summary.json"
BEST = "best.json"
CONFIRMATION = "confirmation.json"
PLOT = "trajectory.png"


class TuningFolder:
    """A tuning run's results folder (see the module docstring)."""

    def __init__(self, path):
        self.path = Path(path)

    @classmethod
    def create(cls, path, config: dict) -> TuningFolder:
        """A new folder holding ``config``. :raises ExperimentError: if ``path`` holds a run."""
        folder = cls(path)
        if (folder.path / CONFIG).exists() or (folder.path / EVALUATIONS).exists():
            raise ExperimentError(
                f"{str(folder.path)!r} already holds a run: continue it with --resume {folder.path} "
                f"or choose another --results folder"
            )
        folder.path.mkdir(parents=True, exist_ok=True)
        write_json(folder.path / CONFIG, config)
        return folder

    @classmethod
    def open(cls, path) -> TuningFolder:
        """An existing folder. :raises ExperimentError: if it holds no tuning run."""
        folder = cls(path)
        if not (folder.path / CONFIG).is_file():
            raise ExperimentError(f"{str(folder.path)!r} holds no tuning run (no {CONFIG})")
        return folder

    def config(self) -> dict:
        return read_json(self.path / CONFIG)

    def load_evaluations(self, repair: bool = False) -> list[dict]:
        """The finished evaluations in order; a torn last line is ignored (and cut with ``repair``).

        :raises ExperimentError: if a finished line is not an evaluation or the
            indices are not 0, 1, 2, ...
        """
        path = self.path / EVALUATIONS
        if not path.exists():
            return []
        data = path.read_bytes()
        keep = data.rfind(b"\n") + 1  # a line is finished once its newline is written
        lines = []
        for number, raw in enumerate(data[:keep].splitlines(), start=1):
            try:
                line = json.loads(raw)
                index = int(line["index"])
                float(line["score"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise ExperimentError(f"{path}: line {number} is not an evaluation") from None
            if index != len(lines):
                raise ExperimentError(f"{path}: line {number} is evaluation {index}, expected {len(lines)}")
            lines.append(line)
        if repair and keep < len(data):
            with open(path, "r+b") as fh:
                fh.truncate(keep)
        return lines

    def appender(self):
        return open(self.path / EVALUATIONS, "a", encoding="utf-8")

    @staticmethod
    def append(handle, line: dict) -> None:
        """Append one finished evaluation and flush it to the operating system."""
        handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        handle.flush()

    def read(self, name: str) -> dict | None:
        """The JSON file ``name`` of this folder, or ``None`` if it is not there."""
        return read_json(self.path / name) if (self.path / name).is_file() else None

    def write(self, name: str, data: dict) -> None:
        write_json(self.path / name, data)


def read_json(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, json.JSONDecodeError) as err:
        raise ExperimentError(f"cannot read {path}: {err}") from None


def write_json(path: Path, data: dict) -> None:
    """Write ``data`` atomically (a temporary file renamed over ``path``)."""
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
