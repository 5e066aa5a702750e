"""The ``slagwerk`` command line: one subcommand per module in ``slagwerk.cli``.

Errors in the user's input (``SlagwerkError``) are printed as one line
``error: ...`` with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import difflib
import importlib
import os
import signal
import sys
import threading

from .. import __version__

COMMAND_MODULES = (
    "play",
    "replay",
    "bench",
    "bot",
    "serve",
    "view",
    "tournament",
    "sprt",
    "tune",
    "train",
    "experiment",
    "report",
    "warmup",
)
"""Subcommand modules of ``slagwerk.cli``, in the order ``--help`` lists them."""


class ExactParser(argparse.ArgumentParser):
    """A parser that takes options only as spelt in full: ``--iter`` is an error,
    not a silent ``--iterations`` (a script keeps its meaning when an option is
    added later). Its subcommands' parsers are of this class too."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs):
        """As argparse's; a choice among names (games, ...) is taken in any case: ``Kozel``."""
        choices = kwargs.get("choices")
        if choices is not None and "type" not in kwargs and all(isinstance(c, str) for c in choices):
            kwargs["type"] = _any_case(choices)
        listed = kwargs.get("nargs") in ("+", "*") and kwargs.get("action", "store") == "store"
        if listed and args and str(args[0]).startswith("-"):
            kwargs["action"] = _ListGivenOnce
        return super().add_argument(*args, **kwargs)

    def _check_value(self, action, value):
        """argparse's check of a choice, naming the nearest one for a misspelt name."""
        if action.choices is not None and value not in action.choices and isinstance(value, str):
            close = difflib.get_close_matches(value, [str(c) for c in action.choices], n=1, cutoff=0.6)
            if close:
                shown = ", ".join(map(str, action.choices))
                raise argparse.ArgumentError(
                    action, f"invalid choice: {value!r}: did you mean {close[0]!r}? (choose from {shown})")
        super()._check_value(action, value)

    def error(self, message: str):
        """argparse's error on one line, with the nearest option named for a misspelt one."""
        if message.startswith("unrecognized arguments:"):
            known = sorted(_option_strings(self))
            hints = []
            for word in message.split(":", 1)[1].split():
                if word.startswith("--"):
                    close = difflib.get_close_matches(word.split("=", 1)[0], known, n=1, cutoff=0.6)
                    if close:
                        hints.append(f"{word}: did you mean {close[0]}?")
            if hints:
                message = f"{message} ({'; '.join(hints)})"
        # One line, as every other error (the whole usage would bury it): where to look instead.
        self.exit(2, f"{self.prog}: error: {message} ({self.prog} --help lists the options)\n")


class _ListGivenOnce(argparse._StoreAction):
    """A list option (``--agents A B``) given twice is an error: argparse would keep the
    second list only, silently dropping the first."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = parser.__dict__.setdefault("_lists_given", {}).setdefault(id(namespace), set())
        if self.dest in given:
            raise argparse.ArgumentError(self, f"given twice: name every value after one {option_string}, "
                                               f"as {option_string} A B")
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


def _any_case(choices):
    """An argparse ``type`` giving the choice spelt like ``text`` but for case (else ``text``)."""
    by_lower = {c.lower(): c for c in choices}

    def choice(text: str) -> str:
        return by_lower.get(text.lower(), text)

    return choice


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    """Every ``--option`` of ``parser`` and of its subcommands."""
    found = set()
    for action in parser._actions:
        found.update(o for o in action.option_strings if o.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _option_strings(sub)
    return found


def build_parser(commands=COMMAND_MODULES) -> argparse.ArgumentParser:
    """The parser of ``commands`` (by default all: ``--help`` lists them)."""
    parser = ExactParser(
        prog="slagwerk",
        description="AI opponents for Koetsieren, Kozel, Aluette and Coins: "
        "play, replay, benchmark, rank and tune bots.",
    )
    parser.add_argument("--version", action="version", version=f"slagwerk {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in commands:
        importlib.import_module(f".{name}", __package__).add_parser(subparsers)
    return parser


class Terminated(KeyboardInterrupt):
    """SIGTERM during a run: stopped as Ctrl-C stops it (what is finished is kept, and the
    command says how to continue), then the exit status of a terminated process."""


LONG_RUNS = ("tournament", "tune", "experiment", "sprt", "train")
"""Commands that run games for a long time: a ``kill`` (or a batch system's time limit)
stops them as Ctrl-C does, instead of ending them without a word."""


@contextlib.contextmanager
def _terminated_as_interrupted(args):
    long_run = getattr(args, "command", None) in LONG_RUNS
    if not long_run or threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum, frame):
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    from ..errors import SlagwerkError, one_line

    argv = sys.argv[1:] if argv is None else list(argv)
    # A command's modules import numba and the agents: a run loads only its own.
    parser = build_parser((argv[0],) if argv and argv[0] in COMMAND_MODULES else COMMAND_MODULES)
    args = parser.parse_args(argv)
    if getattr(args, "scheduler", None) and args.backend != "dask":  # the run options' one joint rule
        print(f"error: --scheduler {args.scheduler} needs --backend dask (local workers need no scheduler)",
              file=sys.stderr)
        return 2
    if not getattr(args, "run", None):  # no command: the help, and a failure for a script
        parser.print_help(sys.stderr)
        print("error: name a command (slagwerk COMMAND --help describes one)", file=sys.stderr)
        return 2
    try:
        with _terminated_as_interrupted(args):
            if getattr(args, "backend", None) == "dask":  # before a results folder is written
                from ..experiments.harness.runner import SCHEDULER_CHECK_SECONDS, check_dask

                if args.scheduler and not getattr(args, "quiet", False):
                    print(f"connecting to the Dask scheduler {args.scheduler} "
                          f"(at most {SCHEDULER_CHECK_SECONDS} s)", file=sys.stderr, flush=True)
                check_dask(args.scheduler)
            return int(args.run(args) or 0)
    except SlagwerkError as err:
        print(f"error: {one_line(str(err))}", file=sys.stderr)
        if getattr(err, "hint", None):  # e.g. how to continue a run that an unreachable bot stopped
            print(err.hint, file=sys.stderr)
        return 2
    except Terminated:
        print("terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `slagwerk replay --json ... | head`
        return 0


def entry() -> None:
    """The ``slagwerk`` console command: :func:`main`, then a quick end.

    Once the command is done and the exit handlers have run (worker pools,
    multiprocessing, logging), the process ends without tearing the
    interpreter down: freeing numba's and LLVM's objects one by one cost every
    command 0.1-0.25 s, a sixth or more of a warm ``slagwerk bot`` answer. Files are
    closed by their ``with`` blocks long before; a command that leaves a
    thread running ends the usual way, after it.
    """
    try:
        code = main()
    except KeyboardInterrupt:  # while a command's modules still load (numba takes a second)
        print("interrupted", file=sys.stderr)
        code = 130
    if any(thread.is_alive() and not thread.daemon for thread in threading.enumerate()
           if thread is not threading.main_thread()):
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in {sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__}:
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more can reach it
            pass
    os._exit(code)


if __name__ == "__main__":
    entry()
