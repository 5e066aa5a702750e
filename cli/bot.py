"""``slagwerk bot``: the bot protocol on standard input and output (one JSON request per line)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from ..agents.limits import LIMIT_FIELDS, Limits
from ..engine import GAME_NAMES
from .options import MAX_MILLISECONDS, add_agent_source_options, load_agent_sources, number_in

if TYPE_CHECKING:
    from ..agents.protocol import Defaults

DEFAULT_TIME_LIMIT_MS = 30_000
"""``slagwerk bot``'s hard time limit per ``act`` request unless ``--time-limit-ms`` says otherwise."""


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "bot", help="answer bot requests: one JSON object per line on stdin and stdout",
        description="Serve the bot protocol (docs/protocol.md) on standard input and output: "
        "each line is a request (hello, act, warm, quit), each answer one line carrying the request's id. "
        "The bot keeps no state between requests.",
    )
    parser.add_argument("--game", choices=GAME_NAMES, help="game of 'act' requests that name none")
    parser.add_argument("--agent", metavar="SPEC",
                        help="agent of 'act' requests that name none (AGENT:@FILE loads its parameters "
                        "from FILE here, once)")
    add_limit_options(parser, given_only=("max_time_ms",))  # bot says so when it lowers a given one
    add_server_options(parser)
    parser.add_argument("--time-limit-ms", type=number_in(int, 10, MAX_MILLISECONDS, or_zero=True),
                        default=DEFAULT_TIME_LIMIT_MS, metavar="MS",
                        help="hard limit per act request: agents run in a worker process, which is "
                        "stopped and replaced when a request overruns (the answer is an error); "
                        "time_ms budgets may use 80%% of it; 0 runs agents in this process with no "
                        f"hard limit (default {DEFAULT_TIME_LIMIT_MS})")
    parser.add_argument("--warm", nargs="*", choices=GAME_NAMES, metavar="GAME",
                        help="load the compiled code of these games' agents (no GAME: every game) "
                        "before reading requests")
    add_agent_source_options(parser, bots=False)
    # A worker of `serve` or of a time-limited `bot` gets its parent's parameter sets as values.
    parser.add_argument("--parameter-sets-json", help=argparse.SUPPRESS)
    parser.set_defaults(run=run)


def add_limit_options(parser, skip=(), given_only=()) -> None:
    """A flag for every server limit (:data:`~slagwerk.agents.limits.LIMIT_FIELDS`) but those in
    ``skip``; one in ``given_only`` defaults to ``None`` (to tell whether it was given)."""
    for limit in LIMIT_FIELDS:
        if limit.name in skip:
            continue
        meta = limit.metadata
        flag = "--" + limit.name.replace("_", "-")
        parser.add_argument(flag, type=number_in(int, meta["low"], meta["high"]),
                            default=None if limit.name in given_only else limit.default,
                            metavar="MS" if limit.name.endswith("_ms") else "N",
                            help=f"{meta['doc']} (default {limit.default})")


def add_server_options(parser) -> None:
    parser.add_argument("--params", action="append", default=[], metavar="NAME=FILE",
                        help="load a parameter file (a tuning run's best.json) at start as the parameter "
                        "set NAME, which requests name as AGENT:params=NAME (repeatable)")


def wanted_max_time_ms(args) -> int:
    """``--max-time-ms``, or its default when it was not given."""
    return Limits().max_time_ms if args.max_time_ms is None else args.max_time_ms


def limits_from_args(args, max_time_ms: int | None = None) -> Limits:
    """The limits of the command line (``max_time_ms`` replaces ``--max-time-ms``)."""
    given = {limit.name: getattr(args, limit.name) for limit in LIMIT_FIELDS if hasattr(args, limit.name)}
    given["max_time_ms"] = wanted_max_time_ms(args) if max_time_ms is None else max_time_ms
    return Limits(**given)


def defaults_from_args(args, limits: Limits) -> Defaults:
    """The default game and agent and the parameter sets, files read once, checked
    against ``limits``: values from here on, never paths."""
    from ..agents.protocol import check_settings

    defaults = read_defaults(args)
    check_settings(limits, defaults)
    return defaults


def read_defaults(args) -> Defaults:
    """:func:`defaults_from_args` without the check (which loads a game's kernels)."""
    from ..agents.plugins import load_entry_points
    from ..agents.protocol import Defaults
    from ..agents.registry import load_parameter_sets, resolve_spec_files

    load_entry_points()  # installed plugins' agents answer requests too (bot and serve)
    if getattr(args, "parameter_sets_json", None):
        sets = {name: (agent, dict(params))
                for name, (agent, params) in json.loads(args.parameter_sets_json).items()}
    else:
        sets = load_parameter_sets(args.params)
    agent = resolve_spec_files(args.agent) if args.agent else None
    return Defaults(game=args.game, agent=agent, parameter_sets=sets)


def run(args) -> int:
    from ..agents.protocol import check_settings, warm_up
    from ..agents.stdio import serve_lines

    load_agent_sources(args)  # installed plugins and --plugin: their agents answer requests too
    time_limit_ms = args.time_limit_ms
    if time_limit_ms:
        cap = max(1, time_limit_ms * 4 // 5)  # a search must end well inside the hard limit
        if args.max_time_ms is not None and args.max_time_ms > cap:
            print(f"slagwerk bot: --max-time-ms {args.max_time_ms} lowered to {cap}, 80% of "
                  f"--time-limit-ms {time_limit_ms}", file=sys.stderr)
        limits = limits_from_args(args, min(wanted_max_time_ms(args), cap))
    else:
        limits = limits_from_args(args)
    if time_limit_ms:  # agents run in a worker: this process loads no kernels unless it must check
        defaults = read_defaults(args)
        if defaults.agent or defaults.parameter_sets:  # a bad setting is said here, before a worker starts
            check_settings(limits, defaults)
    else:
        defaults = defaults_from_args(args, limits)
    answers = sys.stdout
    # Answers own standard output: anything else printed (by an agent, say) goes to stderr.
    sys.stdout = sys.stderr
    try:
        if time_limit_ms:
            return _serve_with_time_limit(time_limit_ms, limits, defaults, answers)
        if args.warm is not None:
            warm_up(limits, args.warm)
        return serve_lines(sys.stdin.buffer, answers, limits, defaults)
    finally:
        sys.stdout = answers


def _serve_with_time_limit(time_limit_ms: int, limits: Limits, defaults: Defaults, answers) -> int:
    """Relay ``act`` and ``warm`` requests to a worker process that is killed if it overruns."""
    from ..agents.plugins import loaded_plugins
    from ..agents.protocol import handle
    from ..agents.stdio import serve_lines
    from ..agents.workers import WorkerPool, bot_command

    argv = bot_command(limits, defaults) + [f"--plugin={module}" for module in loaded_plugins()]
    pool = WorkerPool(argv, 1, time_limit_ms, default_game=defaults.game)

    def handler(request):
        kind = request.get("type") if isinstance(request, dict) else None
        if kind in ("act", "warm"):
            return pool.ask(request, wait_s=pool.startup_timeout)[1]
        answer = handle(request, limits, defaults)
        if kind == "hello" and "error" not in answer:
            answer["time_limit_ms"] = time_limit_ms
        return answer

    try:
        return serve_lines(sys.stdin.buffer, answers, limits, defaults, handler)
    finally:
        pool.close()
