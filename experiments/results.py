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


class ResultsFolder:
    """A tournament's results folder (see the module docstring)."""

    def __init__(self, path):
        self.path = Path(path)

    # -------------------------------------------------------------- creating
    @classmethod
    def create(cls, path, config: dict) -> ResultsFolder:
        """A new folder holding ``config``.

        :raises ExperimentError: if ``path`` already holds a tournament.
        """
        folder = cls(path)
        if (folder.path / CONFIG).exists() or (folder.path / GAMES).exists():
            raise ExperimentError(
                f"{str(folder.path)!r} already holds a tournament: continue it with "
                f"--resume {folder.path} or choose another --results folder"
            )
        folder.path.mkdir(parents=True, exist_ok=True)
        _write_json(folder.path / CONFIG, config)
        return folder

    @classmethod
    def open(cls, path) -> ResultsFolder:
        """An existing folder. :raises ExperimentError: if it holds no tournament."""
        folder = cls(path)
        if not (folder.path / CONFIG).is_file():
            raise ExperimentError(f"{str(folder.path)!r} holds no tournament (no {CONFIG})")
        return folder

    @staticmethod
    def holds_tournament(path) -> bool:
        return (Path(path) / CONFIG).is_file()

    # -------------------------------------------------------------- reading
    def config(self) -> dict:
        try:
            with open(self.path / CONFIG, encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, json.JSONDecodeError) as err:
            raise ExperimentError(f"cannot read {self.path / CONFIG}: {err}") from None

    def load_games(self, repair: bool = False) -> dict[int, dict]:
        """The finished games by index.

        A last line without its newline is a game cut off mid-write: it is
        ignored, and with ``repair`` removed from the file so that appending
        continues cleanly. A finished line that is not a game result is an
        error.
        """
        path = self.path / GAMES
        if not path.exists():
            return {}
        data = path.read_bytes()
        keep = data.rfind(b"\n") + 1  # a line is finished once its newline is written
        games: dict[int, dict] = {}
        for number, raw in enumerate(data[:keep].splitlines(), start=1):
            try:
                line = json.loads(raw)
                index = int(line["index"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                raise ExperimentError(f"{path}: line {number} is not a game result") from None
            games.setdefault(index, line)
        if repair and keep < len(data):
            with open(path, "r+b") as fh:
                fh.truncate(keep)
        return games

    # -------------------------------------------------------------- writing
    def appender(self):
        """A file object to :func:`append_game` to (line-buffered appends)."""
        return open(self.path / GAMES, "a", encoding="utf-8")

    @staticmethod
    def append_game(handle, line: dict) -> None:
        """Append one finished game and flush it to the operating system."""
        handle.write(json.dumps(line, separators=(",", ":")) + "\n")
        handle.flush()

    def write_summary(self, summary: dict, markdown: str) -> None:
        _write_json(self.path / SUMMARY_JSON, summary)
        (self.path / SUMMARY_MD).write_text(markdown, encoding="utf-8")


def _write_json(path: Path, data: dict) -> None:
    temporary = path.with_suffix(path.suffix + ".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
