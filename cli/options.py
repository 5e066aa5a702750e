"""Command-line helpers shared by subcommands: game options and agent specs."""

from __future__ import annotations

import argparse
import os
import re
import sys

from ..agents.limits import HELLO_TIMEOUT_S
from ..engine import make_game
from ..engine.registry import game_infos
from ..engine.seeds import SEED_RANGE, is_seed
from ..errors import AgentUnavailable, OptionError
from ..experiments.harness.defaults import MAX_SECONDS


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """``--option key=value`` (repeatable) plus the shortcut flags the games
    declare for their options (``--players``, ``--target``, ...)."""
    parser.add_argument(
        "--option", "-o", action="append", default=[], metavar="KEY=VALUE",
        help="a game option, e.g. target=15 (repeatable)",
    )
    for flag, (key, users) in _option_flags().items():
        doc = users[0][1].doc
        where = ", ".join(f"{name} {spec.low}..{spec.high}" for name, spec in users)
        parser.add_argument(flag, dest=key, type=int, help=f"{doc} ({where})")


def _option_flags() -> dict[str, tuple[str, list]]:
    """Every shortcut flag: the option it sets and the games (with specs) that have it."""
    flags: dict[str, tuple[str, list]] = {}
    for info in game_infos():
        for key, spec in info.options.items():
            if spec.flag:
                flags.setdefault(spec.flag, (key, []))[1].append((info.name, spec))
    return flags


_GAME_OPTION = re.compile(r"\s*(?P<key>[^=\s]+)\s*=\s*(?P<value>[+-]?[0-9]+)\s*")
"""``--option KEY=VALUE``: every game option is an integer."""


def game_from_args(name: str, args: argparse.Namespace):
    """The game named ``name`` with the options given on the command line."""
    options: dict[str, int] = {}
    for item in args.option:
        match = _GAME_OPTION.fullmatch(item)
        if match is None:
            raise OptionError(f"--option {item!r} is not KEY=VALUE with an integer VALUE")
        _set_once(options, match["key"], int(match["value"]), f"--option {item}")
    for flag, (key, _) in _option_flags().items():
        value = getattr(args, key, None)
        if value is not None:
            _set_once(options, key, value, f"{flag} {value}")
    return make_game(name, **options)


def game_options_given(args: argparse.Namespace) -> bool:
    """Whether the command line gives any game option (``--option`` or a shortcut flag)."""
    return bool(args.option) or any(getattr(args, key, None) is not None
                                    for key, _ in _option_flags().values())


def _set_once(options: dict, key: str, value: int, given: str) -> None:
    """Set a game option, refusing a second, different value for it."""
    if options.get(key, value) != value:
        raise OptionError(f"{given}: the option {key} is already {options[key]} on this command line")
    options[key] = value


def add_run_options(parser: argparse.ArgumentParser) -> None:
    """Where a long run's games are played: ``--jobs``, ``--backend`` and ``--scheduler`` (its
    settings come from its model, :mod:`slagwerk.settings`)."""
    parser.add_argument("--jobs", type=jobs_value, default=-1,
                        help="worker processes (default: all cores; 1 plays in this process)")
    parser.add_argument("--backend", choices=("loky", "dask"), default="loky",
                        help="local worker processes (default; forked on Linux) or a Dask cluster")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="Dask scheduler address for --backend dask (default: a local cluster)")


def add_long_run_options(parser: argparse.ArgumentParser, json_help: str, *, quiet: bool = True) -> None:
    """What the long commands (tournament, sprt, tune, the curve experiments) share besides their
    settings: ``--json`` (``json_help``), ``--quiet`` (``quiet``), the workers, agents from outside
    slagwerk and the game's options."""
    parser.add_argument("--json", action="store_true", help=json_help)
    if quiet:
        parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_run_options(parser)
    add_agent_source_options(parser)
    add_game_options(parser)


def add_results_options(parser: argparse.ArgumentParser, run: str, default_folder) -> None:
    """``--results``, ``--resume`` and ``--force``: where a long run of kind ``run`` (``tournament``)
    keeps its results, and how it continues (:func:`refuse_resume_conflicts`)."""
    parser.add_argument("--results", type=nonempty, metavar="DIR",
                        help=f"results folder (default {default_folder})")
    # --force starts a run over; --resume continues one: never both.
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--resume", type=nonempty, metavar="DIR",
                     help=f"continue the interrupted {run} in DIR with its stored settings "
                     "(a setting given with it must agree with the stored one)")
    how.add_argument("--force", action="store_true",
                     help="start over in a --results folder that is not empty (replacing an "
                     "earlier run's config, games and summaries there)")


def refuse_changes(args: argparse.Namespace, stored, **values) -> None:
    """With ``--resume``: every setting given again must agree with ``stored`` (the run's settings
    model): its flags, and ``values``, settings the command worked out from its flags (specs read
    from their files, say). Game options are compared as the game completes them."""
    from ..engine import make_game

    if game_options_given(args):
        values["options"] = game_from_args(stored.game, args).options
        stored = stored.model_copy(update={"options": make_game(stored.game, **stored.options).options})
    stored.refuse_changes(args, args.resume, **values)


def refuse_resume_conflicts(args: argparse.Namespace) -> None:
    """With ``--resume``: a ``--results`` only if it names the same folder."""
    from pathlib import Path

    from ..settings import refuse_conflict

    if args.results is not None and Path(args.results).resolve() != Path(args.resume).resolve():
        refuse_conflict("--results", args.resume, args.results, args.resume)


def add_game_time_option(parser: argparse.ArgumentParser, *, whole_match: bool = False) -> None:
    """``--game-time``: each seat's clock for a whole game (``None`` when not given);
    ``whole_match`` for a command that always plays whole matches (``play``)."""
    game = "the match" if whole_match else "a game (a deal, or a match with --unit match)"
    parser.add_argument("--game-time", type=number_in(float, 0, MAX_SECONDS, above=True, unit=" seconds"),
                        default=None, metavar="SECONDS",
                        help=f"each seat's total thinking time for {game}, like a chess clock; a "
                        "seat whose clock runs out forfeits (default: no clock; --move-time still "
                        "bounds each move)")


def add_agent_source_options(parser: argparse.ArgumentParser, bots: bool = True) -> None:
    """``--plugin MODULE`` and (``bots``) ``--bot NAME=COMMAND``: agents from outside slagwerk
    (docs/protocol.md, "Writing a bot")."""
    if bots:
        parser.add_argument(
            "--bot", action="append", default=[], metavar="NAME=COMMAND",
            help="an external bot speaking the bot protocol, usable as agent NAME: COMMAND is "
            "started (split as a shell would, never run by one) and talks JSON lines on its stdin "
            "and stdout; NAME=http://HOST:PORT for a bot served over HTTP; NAME/AGENT=... picks "
            "the bot's agent AGENT; a NAME alone is looked up in --bots-file (repeatable)")
        parser.add_argument(
            "--bots-file", metavar="FILE", default=os.environ.get(BOTS_FILE_ENV) or None,
            help=f"a JSON object of bots by name, {{\"mine\": \"python bot.py\", \"far\": "
            f"\"http://host:8765\"}}, so that --bot mine starts the one named (default: the file "
            f"${BOTS_FILE_ENV} names, if set)")
        parser.add_argument(
            "--bot-start-timeout", type=number_in(float, 0, MAX_SECONDS, above=True, unit=" seconds"),
            default=HELLO_TIMEOUT_S, metavar="SECONDS",
            help=f"how long a --bot may take to answer hello when it starts (it may load or compile "
            f"first); then it is given up (default {HELLO_TIMEOUT_S:g})")
    parser.add_argument(
        "--plugin", action="append", default=[], metavar="MODULE",
        help="import a Python module (a name, or a .py file) that registers agents (repeatable); "
        "installed plugins (entry points 'slagwerk.agents') are found without it")


def agent_source_words(args: argparse.Namespace) -> str:
    """This run's ``--bot`` and ``--plugin`` options as shell words, to repeat in a follow-up
    command printed for the user ("" without any): results folders never keep them."""
    import shlex

    words = []
    if getattr(args, "bots_file", None) and os.environ.get(BOTS_FILE_ENV) != args.bots_file:
        words += ["--bots-file", args.bots_file]
    for option in ("bot", "plugin"):
        for value in getattr(args, option, None) or ():
            words += [f"--{option}", value]
    return "".join(" " + shlex.quote(word) for word in words)


def say_how_to_continue(stop: BaseException, command: str, folder, args=None, saved: str = "game") -> None:
    """A run of ``slagwerk COMMAND`` into ``folder`` was stopped by Ctrl-C or by an agent
    that can no longer play (:class:`AgentUnavailable`, e.g. a bot that cannot be reached):
    say how to continue it, with ``args``' ``--bot`` and ``--plugin`` options, at once or
    (for the latter) under the error line the command line prints."""
    import shlex
    from pathlib import Path

    from ..experiments.harness.results import CONFIG

    root = Path(folder)
    if (root / CONFIG).is_file() or any(root.glob(f"*/{CONFIG}")):  # a run began there
        hint = (f"every finished {saved} is saved; continue with: slagwerk {command} --resume "
                f"{shlex.quote(str(folder))}{agent_source_words(args) if args is not None else ''}")
    else:
        hint = "nothing was saved yet: give the same command again"
    if isinstance(stop, AgentUnavailable):
        stop.hint = hint
    else:
        print(f"\n{hint}", file=sys.stderr)


def load_agent_sources(args: argparse.Namespace, move_time: float | None = None) -> None:
    """Register the agents of installed plugins, ``--plugin`` and ``--bot`` (each bot is
    asked for its ``hello`` now), before any spec is checked. ``move_time``: the
    per-move limit, from which a bot's answer gets a backstop timeout."""
    from ..agents.external import register_bots
    from ..agents.plugins import load_entry_points, load_plugins
    from ..experiments.harness.runner import OVERRUN_GRACE, WARM_UP_FACTOR

    load_entry_points()
    load_plugins(getattr(args, "plugin", ()))
    timeout = WARM_UP_FACTOR * move_time + OVERRUN_GRACE if move_time else None
    register_bots(named_bots(getattr(args, "bot", ()), getattr(args, "bots_file", None)), timeout=timeout,
                  hello_timeout=getattr(args, "bot_start_timeout", HELLO_TIMEOUT_S))


BOTS_FILE_ENV = "SLAGWERK_BOTS"
"""The environment variable naming the default ``--bots-file``."""


def named_bots(options, bots_file: str | None) -> list[str]:
    """``--bot`` options as ``NAME=COMMAND``: a ``NAME`` (or ``NAME/AGENT``) alone is looked up in
    ``bots_file``, a JSON object of commands or URLs by name (as cutechess-cli's engines file)."""
    import json
    from pathlib import Path

    from ..errors import SpecError

    if all("=" in option for option in options):
        return list(options)
    if not bots_file:
        alone = next(option for option in options if "=" not in option)
        raise SpecError(f"--bot {alone}: a bot named alone is looked up in a bots file: give --bots-file "
                        f"FILE or set {BOTS_FILE_ENV} (or write --bot {alone}=COMMAND)")
    try:
        bots = json.loads(Path(bots_file).read_text(encoding="utf-8"))
    except OSError as err:
        raise SpecError(f"--bots-file {bots_file}: cannot read it ({err.strerror or err})") from None
    except ValueError as err:
        raise SpecError(f"--bots-file {bots_file}: not JSON ({err})") from None
    if not isinstance(bots, dict) or not all(isinstance(v, str) for v in bots.values()):
        raise SpecError(f"--bots-file {bots_file}: must be a JSON object of commands or URLs by bot "
                        f"name, such as {{\"mine\": \"python bot.py\"}}")
    out = []
    for option in options:
        if "=" in option:
            out.append(option)
            continue
        name = option.split("/", 1)[0]
        if name not in bots:
            raise SpecError(f"--bot {option}: no bot {name!r} in --bots-file {bots_file} "
                            f"(bots: {', '.join(sorted(bots)) or 'none'})")
        out.append(f"{option}={bots[name]}")
    return out


def seed_value(text: str) -> int:
    """An argparse type: a seed, :data:`~slagwerk.engine.seeds.SEED_RANGE`."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if not is_seed(value):
        raise argparse.ArgumentTypeError(f"a seed is {SEED_RANGE}, not {value}")
    return value


# Upper bounds of numeric options: far beyond any real run, and below what the
# operating system's timers, C integers or memory would fail on (the sizes of a
# run itself are checked with its settings: experiments/harness/defaults.py).
MAX_MILLISECONDS = MAX_SECONDS * 1000
MAX_JOBS = 1024
MAX_WORKERS = 256


def number_in(kind: type, low, high, *, above: bool = False, unit: str = "", or_zero: bool = False):
    """An argparse type: an ``int`` or finite ``float`` from ``low`` (excluded when
    ``above``) to ``high`` (or 0 too, ``or_zero``), so that a bad value stops the
    command before it starts.

    >>> number_in(int, 1, 10)("3"), number_in(float, 0, 5, above=True)("0.5")
    (3, 0.5)
    >>> number_in(int, 5, 9, or_zero=True)("0")
    0
    """
    noun = "an integer" if kind is int else "a number"

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {noun}: {text!r}") from None
        in_range = (low < value if above else low <= value) and value <= high  # NaN fails both
        if not in_range and not (or_zero and value == 0):
            span = f"above {_plain(low)} and at most {_plain(high)}" if above else \
                f"from {_plain(low)} to {_plain(high)}"
            raise argparse.ArgumentTypeError(f"must be {'0 or ' if or_zero else ''}{noun} {span}{unit}, "
                                             f"not {text}")
        return value

    parse.__name__ = kind.__name__
    return parse


def _plain(number) -> str:
    """A bound as people write it: ``604800``, ``0.5``."""
    return str(int(number)) if float(number).is_integer() else f"{number:g}"


def nonempty(text: str) -> str:
    """An argparse type: a path or list that is not empty (an empty one would quietly
    mean the default, or nothing)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a value, not an empty text")
    return text


def jobs_value(text: str) -> int:
    """An argparse type: worker processes, -1 (every core) or 1..:data:`MAX_JOBS`."""
    value = number_in(int, -1, MAX_JOBS)(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be -1 (every core) or 1 or more, not 0")
    return value
