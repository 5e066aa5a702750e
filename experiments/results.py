"""The results folder of a tournament: settings, one JSON line per game, summaries.

Layout of a folder::

    config.json    the tournament's settings (game, options, agents, deals, seed, ...)
    games.jsonl    one line per finished game (``runner.play_game``), appended
                   and flushed as each game finishes, in finishing order
    summary.json   the final ranking, head-to-head table and settings
    summary.md     the same for people

A tournament killed at any moment resumes from its folder: every complete
line is a finished game that is kept, a torn last line (the process died while
writing it) is cut off, and only the games without a line are played again.
Games are identified by their index in the schedule, so none is lost or
played twice.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .runner import ExperimentError

CONFIG = "config.json"
GAMES = "games.jsonl"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"


class ExperimentFolder:
    """A results folder: ``config.json``, a JSON-lines log appended as work
    finishes, and further JSON files. Subclasses name the log (``LOG``) and
    what the folder holds (``KIND``), and check the log's lines.
    """

    LOG = ""
    KIND = ""

    def __init__(self, path):
        self.path = Path(path)

    @classmethod
    def create(cls, path, config: dict):
        """A new folder holding ``config``. :raises ExperimentError: if ``path`` holds one."""
        folder = cls(path)
        if (folder.path / CONFIG).exists() or (folder.path / cls.LOG).exists():
            raise ExperimentError(
                f"{str(folder.path)!r} already holds a {cls.KIND}: continue it with "
                f"--resume {folder.path} or choose another --results folder"
            )
        folder.path.mkdir(parents=True, exist_ok=True)
        write_json(folder.path / CONFIG, config)
        return folder

    @classmethod
    def open(cls, path):
        """An existing folder. :raises ExperimentError: if it holds no such run."""
        folder = cls(path)
        if not (folder.path / CONFIG).is_file():
            raise ExperimentError(f"{str(folder.path)!r} holds no {cls.KIND} (no {CONFIG})")
        return folder

    def config(self) -> dict:
        return read_json(self.path / CONFIG)

    def log_lines(self, repair: bool = False):
        """``(line number, raw bytes)`` of every finished line of the log.

        A last line without its newline was cut off mid-write: it is ignored,
        and with ``repair`` removed from the file so that appending continues
        cleanly.
        """
        path = self.path / self.LOG
        if not path.exists():
            return []
        data = path.read_bytes()
        keep = data.rfind(b"\n") + 1  # a line is finished once its newline is written
        if repair and keep < len(data):
            with open(path, "r+b") as fh:
                fh.truncate(keep)
        return list(enumerate(data[:keep].splitlines(), start=1))

    def appender(self):
        """A file object to :meth:`append` to."""
        return open(self.path / self.LOG, "a", encoding="utf-8")

    @staticmethod
    def append(handle, line: dict) -> None:
        """Append one finished line and flush it to the operating system."""
        handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        handle.flush()

    def read(self, name: str) -> dict | None:
        """The JSON file ``name`` of this folder, or ``None`` if it is not there."""
        return read_json(self.path / name) if (self.path / name).is_file() else None

    def write(self, name: str, data: dict) -> None:
        write_json(self.path / name, data)


class ResultsFolder(ExperimentFolder):
    """A tournament's results folder (see the module docstring)."""

    LOG = GAMES
    KIND = "tournament"

    @staticmethod
    def holds_tournament(path) -> bool:
        return (Path(path) / CONFIG).is_file()

    def load_games(self, repair: bool = False) -> dict[int, dict]:
        """The finished games by index (a torn last line is ignored, see
        :meth:`log_lines`). A finished line that is not a game result is an error."""
        games: dict[int, dict] = {}
        for number, raw in self.log_lines(repair):
            try:
                line = json.loads(raw)
                index = int(line["index"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise ExperimentError(f"{self.path / GAMES}: line {number} is not a game result") from None
            games.setdefault(index, line)
        return games

    append_game = ExperimentFolder.append

    def write_summary(self, summary: dict, markdown: str) -> None:
        write_json(self.path / SUMMARY_JSON, summary)
        (self.path / SUMMARY_MD).write_text(markdown, encoding="utf-8")


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
