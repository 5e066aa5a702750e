"""``slagwerk experiment budget``: Elo against decision budget (and time per decision).

Also the shared plumbing of the curve experiments (``information`` uses it):
their arguments, ``--resume`` checks and output.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..engine import GAME_NAMES
from ..errors import AgentUnavailable
from .options import (
    DEFAULT_SEED,
    DEFAULT_UNIT,
    add_agent_source_options,
    add_game_options,
    add_run_options,
    game_from_args,
    load_agent_sources,
    nonempty,
    refuse_conflict,
    say_how_to_continue,
    stored_move_time,
)

KIND = "budget"
HELP = "Elo of agents at several decision budgets, on one scale, with time per decision"
DESCRIPTION = (
    "Rate each --agent at each of --budgets (ISMCTS iterations; PIMC worlds x iterations, split as "
    "its defaults are; with --by time, milliseconds per decision) against the --opponents, all in one "
    "tournament on duplicate deals: Elo with 95% bootstrap intervals on one scale, and seconds per "
    "decision measured in the games. Writes budget.csv, budget.json, budget.md and budget.png/.svg "
    "(Elo against budget, and against seconds per decision) beside the tournament's report."
)
DEFAULT_BUDGETS = "100,300,1000,3000,10000"
DEFAULT_DEALS = 100


def add_arguments(parser) -> None:
    parser.add_argument("--agent", action="append", metavar="SPEC",
                        help="an agent whose curve is drawn, e.g. ismcts or pimc:c=0.5 (repeatable)")
    add_curve_arguments(parser)


def add_curve_arguments(parser, opponents_default: str = "heuristic") -> None:
    """The arguments every curve experiment shares."""
    from ..experiments.harness.defaults import (
        DEFAULT_BOOTSTRAP,
        DEFAULT_MOVE_TIME,
        MIN_BOOTSTRAP,
        RESULTS_ROOT,
    )

    parser.add_argument("--game", choices=GAME_NAMES, help="the game")
    parser.add_argument("--budgets", type=nonempty, metavar="LIST",
                        help=f"comma-separated budgets per decision (default {DEFAULT_BUDGETS})")
    parser.add_argument("--by", choices=("iterations", "time"), default=None,
                        help="budgets count search iterations (default) or milliseconds per decision")
    parser.add_argument("--opponents", nargs="*", metavar="SPEC",
                        help=f"fixed entries that anchor the scale (default {opponents_default}; "
                        "none: only the curves' entries)")
    parser.add_argument("--deals", type=int, default=None,
                        help=f"duplicate groups, each deal played in all its rotations "
                        f"(default {DEFAULT_DEALS})")
    parser.add_argument("--results", type=nonempty, metavar="DIR",
                        help=f"results folder (default {RESULTS_ROOT}/<experiment>-<game>-<time>)")
    parser.add_argument("--resume", type=nonempty, metavar="DIR",
                        help="continue the interrupted experiment in DIR with its stored settings")
    parser.add_argument("--force", action="store_true",
                        help="start over in a --results folder that is not empty (replacing an earlier "
                        "run's files there)")
    parser.add_argument("--bootstrap", type=int, default=None,
                        help=f"bootstrap resamples for the intervals (default {DEFAULT_BOOTSTRAP}, "
                        f"at least {MIN_BOOTSTRAP})")
    parser.add_argument("--json", action="store_true", help="print the experiment's JSON document")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_run_options(parser, move_time=DEFAULT_MOVE_TIME, resumable=True)
    add_agent_source_options(parser)
    add_game_options(parser)


def run(args) -> int:
    from ..experiments.studies.budget import CurveConfig

    def make(args, settings):
        return CurveConfig(KIND, agents=tuple(args.agent or ()), **settings)

    return run_curve_command(args, KIND, make)


def run_curve_command(args, kind: str, make_config) -> int:
    """Start or resume the curve experiment ``kind``; ``make_config(args, settings)`` builds its
    :class:`~slagwerk.experiments.studies.budget.CurveConfig` from the shared ``settings``."""
    from ..agents.registry import resolve_spec_files
    from ..errors import OptionError
    from ..experiments.harness.defaults import DEFAULT_BOOTSTRAP, default_results_folder
    from ..experiments.harness.runner import ExperimentError
    from ..experiments.studies.budget import CurveFolder, load_config, parse_budgets, run_curve

    if args.jobs == 0 or args.jobs < -1:
        raise ExperimentError(f"--jobs must be -1 (all cores) or a positive count, not {args.jobs}")
    common = dict(jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, progress=not args.quiet)
    # plugins and --bot bots, before any spec is checked
    load_agent_sources(args, stored_move_time(CurveFolder, args.resume) if args.resume else _move_time(args))
    options_given = args.option or any(
        getattr(args, key) is not None for key in ("players", "target", "first_dealer"))
    if args.resume:
        if args.force:
            raise OptionError("--force starts an experiment over; it cannot be combined with --resume")
        stored = load_config(args.resume)
        if stored.kind != kind:
            raise ExperimentError(f"--resume {args.resume!r} holds the experiment '{stored.kind}', "
                                  f"not '{kind}'")
        _refuse_conflicts(args, stored, options_given)
        config, results = None, args.resume
    else:
        if args.game is None:
            raise ExperimentError(f"experiment {kind} needs --game (or --resume DIR)")
        game = game_from_args(args.game, args)
        by = args.by or "iterations"
        settings = dict(
            game=args.game, budgets=parse_budgets(args.budgets or _default_budgets(by), by), by=by,
            # @FILE items are read once, here: the run (and its config.json) holds values
            opponents=tuple(resolve_spec_files(s, args.game) for s in _or(args.opponents, ["heuristic"])),
            deals=_or(args.deals, DEFAULT_DEALS), seed=_or(args.seed, DEFAULT_SEED),
            options=tuple(sorted(game.options.items())) if options_given else (),
            unit=_or(args.unit, DEFAULT_UNIT), move_time=_move_time(args),
            bootstrap=_or(args.bootstrap, DEFAULT_BOOTSTRAP),
        )
        if getattr(args, "agent", None):
            args.agent = [resolve_spec_files(spec, args.game) for spec in args.agent]
        config = make_config(args, settings)
        config.validate()
        _say_if_unbalanced(config)
        results = args.results or default_results_folder(f"{kind}-{args.game}")
    try:
        result = run_curve(config, results, resume=config is None, force=args.force, **common)
    except (KeyboardInterrupt, AgentUnavailable) as stop:
        say_how_to_continue(stop, f"experiment {kind}", results, args)
        raise
    show(result, args.json)
    return 0


def show(result, as_json: bool) -> None:
    from ..experiments.studies.budget import format_text

    folder = result.folder
    kind = result.config.kind
    if as_json:
        print(json.dumps(json.loads((folder / f"{kind}.json").read_text())))
        return
    extra = None
    if kind == "information":
        from ..experiments.studies.budget import gaps

        extra = gaps(result)
    print(format_text(result, extra))
    print(f"\nresults: {folder} ({kind}.png, {kind}.csv, {kind}.json, {kind}.md, report.md)", file=sys.stderr)


def _say_if_unbalanced(config) -> None:
    """The schedule plays its tables in turn, one per group: only a multiple of their number
    meets every seating equally often (with many entries at few seats, tables outnumber groups)."""
    note = config.tournament().unbalanced_note()
    if note:
        print(note, file=sys.stderr)


def rebuild(path) -> None:
    """``slagwerk report``: the experiment's files written again from the folder's games."""
    from ..experiments.studies.budget import write_outputs

    write_outputs(path)


def _default_budgets(by: str) -> str:
    return DEFAULT_BUDGETS if by == "iterations" else "10,30,100,300,1000"


def _or(value, default):
    return default if value is None else value


def _move_time(args) -> float | None:
    from ..experiments.harness.defaults import DEFAULT_MOVE_TIME

    move_time = _or(args.move_time, DEFAULT_MOVE_TIME)
    return move_time if move_time > 0 else None


def _refuse_conflicts(args, stored, options_given: bool) -> None:
    """With --resume, every setting given again must agree with the stored one."""
    from ..agents.registry import resolve_spec_files
    from ..engine import make_game
    from ..experiments.studies.budget import parse_budgets

    where = args.resume
    if args.results is not None and Path(args.results).resolve() != Path(args.resume).resolve():
        refuse_conflict("--results", args.resume, args.results, where)
    by = args.by or stored.by
    given = [
        ("--game", stored.game, args.game), ("--by", stored.by, args.by),
        ("--budgets", list(stored.budgets), None if args.budgets is None
         else list(parse_budgets(args.budgets, by))),
        ("--opponents", list(stored.opponents), None if args.opponents is None
         else [resolve_spec_files(s, stored.game) for s in args.opponents]),
        ("--deals", stored.deals, args.deals), ("--seed", stored.seed, args.seed),
        ("--unit", stored.unit, args.unit), ("--bootstrap", stored.bootstrap, args.bootstrap),
        ("--move-time", stored.move_time, None if args.move_time is None else _move_time(args)),
    ]
    if getattr(args, "agent", None) is not None:
        given.append(("--agent", list(stored.agents),
                      [resolve_spec_files(a, stored.game) for a in args.agent]))
    if getattr(args, "cheat", None) is not None:
        given.append(("--cheat", stored.cheat, resolve_spec_files(args.cheat, stored.game)))
    if options_given:
        given.append(("--option/--players/--target/--first-dealer",
                      make_game(stored.game, **dict(stored.options)).options,
                      game_from_args(stored.game, args).options))
    for flag, stored_value, given_value in given:
        if given_value is not None:
            refuse_conflict(flag, stored_value, given_value, where)
