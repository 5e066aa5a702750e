"""The results folder of a tournament: settings, one JSON line per game, summaries.

Layout of a folder::

    config.json    the tournament's settings (game, options, agents, deals, seed, ...)
                   and the slagwerk version that plays its games
    games.jsonl    one line per finished game (``runner.play_game``, plus ``run``:
                   :func:`run_id` of the settings), appended and flushed as each
                   game finishes, in finishing order
    summary.json   the final ranking, head-to-head table and settings
    summary.md     the same for people
    report.md      the report with plots (report-*.png), see :mod:`.report`
    faults.log     the traceback of every game an agent lost by its own exception
                   (a plugin's bug), if any; bot-NAME.stderr.log: each external bot's
                   standard error

A tournament killed at any moment resumes from its folder: every complete
line is a finished game that is kept, a damaged tail (a torn last line from a
kill, NUL bytes from a power loss) is cut off with a message, and only the
games without a line are played again. Games are identified by their index
in the schedule, so none is lost or played twice.

A folder may come from elsewhere, so nothing in it is trusted: files are
written through :mod:`slagwerk.safe_files` (no symbolic link is followed, no
file overwritten that the run did not create, atomic replaces through unique
temporary names), ``config.json`` must name this slagwerk version, and on
resuming every line of the log is checked against ``config.json`` (see
:meth:`ResultsFolder.load_games`); a line that disagrees stops the run with
a one-line reason naming the line.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

from ... import __version__
from ...agents.external import STDERR_PREFIX, STDERR_SUFFIX
from ...engine import GAME_NAMES
from ...errors import one_line
from ...safe_files import (
    AppendLog,
    SafeFileError,
    create_file,
    folder_names,
    make_folder,
    read_file,
    remove_file,
    replace_file,
)
from .defaults import VERSION_KEY
from .runner import ExperimentError

CONFIG = "config.json"
RUN_FACTS = "run.json"
"""What made the run, for whoever publishes its figures: the command, the date, slagwerk's
version and the commit of the checkout it ran from (:func:`run_facts`)."""
GAMES = "games.jsonl"
SUMMARY_JSON = "summary.json"
SUMMARY_MD = "summary.md"
FAULTS_LOG = "faults.log"
REPORT_MD = "report.md"
REPORT_PLOTS = ("report-ratings.png", "report-head-to-head.png", "report-scores.png",
                "report-convergence.png")
"""The report's files (:mod:`.report`), the only ones ``slagwerk report`` replaces."""


def run_id(settings: dict) -> str:
    """A short fingerprint of the settings that decide a run's results (and of this version).

    Every line of a log carries it as ``run``, so that a line from a run with
    other settings, or played by another slagwerk version, is recognised.
    """
    text = json.dumps({**settings, VERSION_KEY: __version__}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def claim_folder(path, kind: str, files: tuple[str, ...] = (), *, force: bool = False,
                 resumable: bool = True) -> None:
    """Make ``path`` ready for a new run: created if missing, else empty or ``force``.

    A folder that holds anything is refused (``ExperimentError``) unless
    ``force``, which removes the files of any earlier run from it, of whatever
    kind (the run's own ``files``, :func:`run_files`, and those of the per-game
    folders of a tournament of several games; a link among them is removed,
    never its target), so that no earlier run's settings or results stay beside
    the new ones, and leaves everything else alone.
    A symbolic link at ``path`` is refused either way. A folder that holds
    a run (a ``config.json``) is offered to ``--resume`` if the kind is
    ``resumable``, and refused even with ``force`` if not (another run's
    files would be replaced).
    """
    names = folder_names(path)
    if names is None:
        make_folder(path)
        return
    holds = bool(names) and (CONFIG in names or any((Path(path) / name / CONFIG).is_file() for name in names))
    if holds and not resumable:
        raise ExperimentError(f"{str(path)!r} holds a tournament or experiment (a {CONFIG}): choose "
                              f"another --results folder for the {kind}")
    if names and not force:
        if holds:
            raise ExperimentError(
                f"{str(path)!r} already holds a {kind}: continue it with --resume {path}, start "
                f"over with --force, or choose another --results folder"
            )
        raise ExperimentError(
            f"{str(path)!r} is not empty ({len(names)} entr{'y' if len(names) == 1 else 'ies'}): "
            f"choose another --results folder, or give --force to write the {kind} into it"
        )
    earlier = set(files) | run_files()

    def clear(folder, names):
        for name in names:
            if name in earlier or (name.startswith(STDERR_PREFIX) and name.endswith(STDERR_SUFFIX)):
                remove_file(folder, name)

    clear(path, names)
    for game in set(names) & set(GAME_NAMES):  # a tournament of several games: one folder each
        inner = Path(path) / game
        if not inner.is_symlink() and (inner / CONFIG).is_file():
            clear(inner, folder_names(inner) or ())


BELIEF_FILES = ("positions.csv", "summary.json", "summary.md", "belief.png")
"""The files of ``slagwerk experiment belief`` (:mod:`.belief_accuracy`)."""
OTHER_RUN_FILES = (
    *(f"{kind}.{ext}" for kind in ("budget", "information") for ext in ("csv", "json", "md", "png", "svg")),
    "evaluations.jsonl", "best.json", "confirmation.json", "trajectory.png",
)
"""The files of the kinds of run defined in modules that import this one (curve
experiments, :mod:`.budget`; tuning runs, :mod:`.tuning.folder`). A test checks
that this list covers them."""


def run_files() -> set[str]:
    """The name of every file some kind of run writes into its results folder."""
    names = {CONFIG, RUN_FACTS, *BELIEF_FILES, *OTHER_RUN_FILES}
    for kind in _folder_kinds():  # those imported so far: this module's, and a plugin's own kind too
        names |= {kind.LOG, *kind.FILES}
    names.discard("")
    return names


def _folder_kinds() -> list[type]:
    """Every kind of results folder defined so far (the subclasses below)."""
    kinds, todo = [], list(ExperimentFolder.__subclasses__())
    while todo:
        kind = todo.pop(0)
        kinds.append(kind)
        todo += kind.__subclasses__()
    return kinds


class FaultLog:
    """A results folder's ``faults.log``: the traceback of each game an agent lost by its
    own exception, under a heading naming the game, written through :mod:`slagwerk.safe_files`
    (opened at the first). A traceback this run wrote already is named, not repeated (a
    bug that loses every game). A log that cannot be written is warned of once and
    costs no game."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.log: AppendLog | None = None
        self.failed = False
        self.first: dict[str, str] = {}  # traceback: the game that showed it first

    def add(self, line: dict, trace: str, where: str | None = None) -> None:
        """Log the forfeit of result ``line`` with its ``trace``; ``where`` names the
        games' batch in the heading (e.g. ``"evaluation 3"``: a tuning run numbers its
        games per evaluation)."""
        if self.failed:
            return
        fault = line["forfeit"]
        game = f"{where}, game {line['index']}" if where else f"game {line['index']}"
        heading = f"--- {game}, seat {fault['seat']} ({fault['agent']}): {one_line(fault['error'])}"
        if trace in self.first:  # the same bug, whoever met it (a tuned agent's label changes)
            text = f"{heading} (the traceback of {self.first[trace]})\n"
        else:
            self.first[trace] = game
            text = f"{heading}\n{trace}"
        try:
            if self.log is None:
                self.log = AppendLog(self.folder, FAULTS_LOG)
            self.log.append(text.encode("utf-8", "replace"))
        except SafeFileError as err:
            self.failed = True
            print(f"warning: the agents' tracebacks are not kept: {one_line(str(err))}", file=sys.stderr)

    def add_all(self, faults: list[tuple[dict, str]], where: str | None = None) -> None:
        """:meth:`add` each ``(line, trace)`` of ``faults``."""
        for line, trace in faults:
            self.add(line, trace, where)

    def close(self) -> None:
        """Close the file (a later :meth:`add` opens it again)."""
        if self.log is not None:
            self.log.close()
            self.log = None


def run_facts() -> dict:
    """The command line (when slagwerk's own command runs), the UTC date and time, slagwerk's
    version, and the commit of the git checkout slagwerk runs from (``None`` for an installed
    copy; ``+changes`` when its files differ from the commit)."""
    import datetime
    import shlex
    import subprocess
    import sys

    program = Path(sys.argv[0]).name if sys.argv else ""
    command = f"slagwerk {shlex.join(sys.argv[1:])}" if program in ("slagwerk", "__main__.py") else None
    checkout = Path(__file__).resolve().parents[2]
    commit = None
    if (checkout / ".git").exists():
        try:
            def git(*words):
                return subprocess.run(["git", "-C", str(checkout), *words], capture_output=True, text=True,
                                      timeout=10, check=True).stdout.strip()
            commit = git("rev-parse", "--short=12", "HEAD")
            if git("status", "--porcelain", "--untracked-files=no"):
                commit += "+changes"
        except (OSError, subprocess.SubprocessError):
            commit = None
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return {"command": command, "started": started, VERSION_KEY: __version__, "commit": commit}


class ExperimentFolder:
    """A results folder: ``config.json``, a JSON-lines log appended as work
    finishes, and further JSON files. Subclasses name the log (``LOG``), what
    the folder holds (``KIND``) and every file a run writes (``FILES``), and
    check the log's lines.
    """

    LOG = ""
    KIND = ""
    FILES: tuple[str, ...] = ()

    def __init__(self, path):
        self.path = Path(path)

    @classmethod
    def create(cls, path, config: dict, *, force: bool = False):
        """A new folder holding ``config`` (and this slagwerk version) and an empty log.

        :raises ExperimentError: if ``path`` holds anything (unless ``force``,
            which first removes the files of an earlier run, see :func:`claim_folder`).
        :raises SafeFileError: if ``path`` is a link or cannot be written.
        """
        folder = cls(path)
        claim_folder(folder.path, cls.KIND, (CONFIG, RUN_FACTS, cls.LOG, *cls.FILES), force=force)
        create_file(folder.path, CONFIG, _json_bytes({**config, VERSION_KEY: __version__}))
        create_file(folder.path, RUN_FACTS, _json_bytes(run_facts()))
        AppendLog(folder.path, cls.LOG, new=True).close()
        return folder

    @classmethod
    def open(cls, path):
        """An existing folder. :raises ExperimentError: if it holds no such run."""
        folder = cls(path)
        names = folder_names(folder.path)
        if names is None or CONFIG not in names:
            raise ExperimentError(f"{str(folder.path)!r} holds no {cls.KIND} (no {CONFIG})")
        if cls.LOG not in names:  # say what it holds instead, where the log tells
            kinds = [kind.KIND for kind in _folder_kinds() if kind.LOG != cls.LOG and kind.LOG in names]
            held = f": it holds a {' or a '.join(kinds)}" if kinds else ""
            raise ExperimentError(f"{str(folder.path)!r} holds no {cls.KIND} (no {cls.LOG}){held}")
        return folder

    @property
    def config_path(self) -> str:
        """``config.json``'s path, as errors name it."""
        return str(self.path / CONFIG)

    def config(self) -> dict:
        """The settings of ``config.json``, which must name this slagwerk version (not returned).

        :raises ExperimentError: if it is missing, not a JSON object, or of another version.
        """
        data = self.read(CONFIG)
        if not isinstance(data, dict):
            raise ExperimentError(f"{self.path / CONFIG}: not a {self.KIND}'s settings (a JSON object)")
        data = dict(data)
        version = data.pop(VERSION_KEY, None)
        if version != __version__:
            written = ("names no slagwerk version" if version is None
                       else f"was written by slagwerk {version!r}")
            raise ExperimentError(
                f"{self.path / CONFIG} {written}, and this is slagwerk {__version__}: games played by "
                f"another version cannot be mixed with this one's; finish it with that version or "
                f"start a new folder"
            )
        return data

    def log(self, *, new: bool = False) -> AppendLog:
        """The log, opened to append to and locked against a second writer (close it when done)."""
        return AppendLog(self.path, self.LOG, new=new)

    def log_lines(self, log: AppendLog | None = None, repair: bool = False) -> list[tuple[int, bytes]]:
        """``(line number, raw bytes)`` of every finished line of the log.

        A line is finished once its newline is written. A damaged tail, that
        is a last line without its newline (the process died while writing
        it) or NUL bytes (the data of the last writes was lost in a power
        failure, with everything after the first NUL), is ignored, and with
        ``repair`` (and the open ``log``) cut from the file, with a message
        on standard error, so that appending continues cleanly. NUL bytes
        followed by a complete line without them are not a tail: that is an
        :class:`ExperimentError`, and nothing is cut.
        """
        if log is not None:
            data = log.read()
        else:
            data = read_file(self.path, self.LOG) or b""
        nul = data.find(b"\x00")
        end = len(data) if nul < 0 else nul
        keep = data.rfind(b"\n", 0, end) + 1
        lines = list(enumerate(data[:keep].splitlines(), start=1))
        if nul >= 0:
            # A crash loses a suffix of the writes; whole lines after the NULs
            # mean the damage is elsewhere, and cutting would drop finished games.
            after = [line for line in data[keep:].split(b"\n")[1:-1] if line.strip() and b"\x00" not in line]
            if after:
                raise ExperimentError(
                    f"{self.path / self.LOG}: line {len(lines) + 1} holds NUL bytes, yet {len(after)} "
                    f"complete line{'' if len(after) == 1 else 's'} follow it: not a damaged tail, so "
                    f"nothing is cut; mend or remove that line by hand, or start a new folder"
                )
        if keep < len(data) and repair:
            if log is None:
                raise ValueError("repairing a log needs it open (log=...)")
            dropped = data[keep:]
            count = dropped.count(b"\n") + (not dropped.endswith(b"\n"))
            what = "NUL bytes, as a crash of the machine leaves" if nul >= 0 else "a torn last line"
            log.truncate(keep)
            print(f"{self.path / self.LOG}: damaged tail cut back to line {len(lines)}, the last complete "
                  f"one: dropped {len(dropped)} bytes, {count} incomplete line{'' if count == 1 else 's'} "
                  f"({what})", file=sys.stderr)
        return lines

    @staticmethod
    def append(log: AppendLog, line: dict) -> None:
        """Append one finished line (written whole to the operating system, or not at all)."""
        log.append((json.dumps(line, separators=(",", ":")) + "\n").encode("utf-8"))

    def read(self, name: str) -> dict | None:
        """The JSON file ``name`` of this folder, or ``None`` if it is not there."""
        data = read_file(self.path, name)
        if data is None:
            return None
        try:
            return json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise ExperimentError(f"cannot read {self.path / name}: not JSON ({err})") from None

    def write(self, name: str, data: dict) -> None:
        """Replace the JSON file ``name`` atomically (never through a link)."""
        replace_file(self.path, name, _json_bytes(data))

    def write_bytes(self, name: str, data: bytes) -> None:
        replace_file(self.path, name, data)


class ResultsFolder(ExperimentFolder):
    """A tournament's results folder (see the module docstring)."""

    LOG = GAMES
    KIND = "tournament"
    FILES = (SUMMARY_JSON, SUMMARY_MD, REPORT_MD, *REPORT_PLOTS, FAULTS_LOG)

    @staticmethod
    def holds_tournament(path) -> bool:
        return (Path(path) / CONFIG).is_file()

    def load_games(self, expected: dict[int, dict] | None = None, log: AppendLog | None = None,
                   repair: bool = False) -> dict[int, dict]:
        """The finished games by index (a damaged tail is ignored, see :meth:`log_lines`).

        ``expected`` maps every planned game index to the values its line
        must hold (agents, seed, table, ``run``, ...): each line must then be
        one of those games, hold those values and a reward per seat, and no
        game may appear twice.

        :raises ExperimentError: naming the first line that is not a game
            result or disagrees with ``expected``.
        """
        where = self.path / GAMES
        games: dict[int, dict] = {}
        first_line: dict[int, int] = {}
        for number, raw in self.log_lines(log, repair):
            try:
                line = json.loads(raw)
                index = line["index"]
                if not isinstance(index, int) or isinstance(index, bool):
                    raise TypeError
            except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError):
                raise ExperimentError(f"{where}: line {number} is not a game result") from None
            if index in games:
                raise ExperimentError(f"{where}: line {number} repeats game {index} of line "
                                      f"{first_line[index]}: the log was tampered with or merged")
            if expected is not None:
                _check_game(where, number, line, index, expected)
            games[index] = line
            first_line[index] = number
        return games

    append_game = ExperimentFolder.append

    def write_summary(self, summary: dict, markdown: str) -> None:
        self.write(SUMMARY_JSON, summary)
        self.write_bytes(SUMMARY_MD, markdown.encode("utf-8"))


def _check_game(where: Path, number: int, line: dict, index: int, expected: dict[int, dict]) -> None:
    if index not in expected:
        raise ExperimentError(f"{where}: line {number} is game {index}, outside the {len(expected)} games "
                              f"that {CONFIG} plans (0 to {len(expected) - 1})")
    for key, value in expected[index].items():
        if line.get(key) != value:
            raise ExperimentError(
                f"{where}: line {number} (game {index}) has {key} {line.get(key)!r} where {CONFIG} "
                f"gives {value!r}: the line belongs to another run")
    seats = len(expected[index].get("table", line.get("reward") or ()))
    reward = line.get("reward")
    if not (isinstance(reward, list) and len(reward) == seats and all(
            isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r) and 0 <= r <= 1
            for r in reward)):
        raise ExperimentError(f"{where}: line {number} (game {index}) holds no reward in [0, 1] for "
                              f"each of its {seats} seats")
    points = line.get("points")
    if points is not None and not (isinstance(points, list) and len(points) == seats and all(
            isinstance(p, (int, float)) and not isinstance(p, bool) for p in points)
            and isinstance(line.get("deals"), int)):
        raise ExperimentError(f"{where}: line {number} (game {index}) holds malformed points")
    forfeit = line.get("forfeit")
    if forfeit is not None and not (isinstance(forfeit, dict) and {"seat", "agent", "error"} <= set(forfeit)):
        raise ExperimentError(f"{where}: line {number} (game {index}) holds a malformed forfeit")


def _json_bytes(data: dict) -> bytes:
    return (json.dumps(data, indent=2) + "\n").encode("utf-8")
