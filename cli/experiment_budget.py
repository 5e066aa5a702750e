"""``slagwerk experiment budget``: Elo against decision budget (and time per decision).

Also the shared plumbing of the curve experiments (``information`` uses it):
their arguments, ``--resume`` checks and output.
"""

from __future__ import annotations

import json
import sys

from ..engine import GAME_NAMES
from ..errors import AgentUnavailable
from .options import (
    add_long_run_options,
    add_results_options,
    game_from_args,
    game_options_given,
    load_agent_sources,
    nonempty,
    refuse_changes,
    refuse_resume_conflicts,
    say_how_to_continue,
)

KIND = "budget"
HELP = "Elo of agents at several decision budgets, on one scale, with time per decision"
DESCRIPTION = (
    "Rate each --agent at each of --budgets (ISMCTS iterations; PIMC worlds x iterations, split as "
    "its defaults are; with --by time, milliseconds per decision) against the --opponents, all in one "
    "tournament on duplicate deals: Elo with 95% profile-likelihood intervals on one scale, and seconds per "
    "decision measured in the games. Writes budget.csv, budget.json, budget.md and budget.png/.svg "
    "(Elo against budget, and against seconds per decision) beside the tournament's report."
)
DEFAULT_BUDGETS = "100,300,1000,3000,10000"


def add_arguments(parser) -> None:
    parser.add_argument("--agent", action="append", metavar="SPEC",
                        help="an agent whose curve is drawn, e.g. ismcts or pimc:c=0.5 (repeatable)")
    add_curve_arguments(parser)


def add_curve_arguments(parser, opponents_default: str = "heuristic") -> None:
    """The arguments every curve experiment shares: its tournament's and its own settings' flags."""
    from ..experiments.harness.config import RunSettings
    from ..experiments.harness.defaults import RESULTS_ROOT
    from ..experiments.studies.config import CurveSettings

    parser.add_argument("--game", choices=GAME_NAMES, help="the game")
    parser.add_argument("--budgets", type=nonempty, metavar="LIST",
                        help=f"comma-separated budgets per decision (default {DEFAULT_BUDGETS})")
    CurveSettings.add_flags(parser)
    RunSettings.add_flags(parser, exclude=("game_time",))
    add_results_options(parser, "experiment", RESULTS_ROOT / "<experiment>-<game>-<time>")
    add_long_run_options(parser, "print the experiment's JSON document")


def run(args) -> int:
    from ..experiments.studies.budget import CurveConfig

    def make(args, settings):
        return CurveConfig(KIND, agents=tuple(args.agent or ()), **settings)

    return run_curve_command(args, KIND, make)


def run_curve_command(args, kind: str, make_config) -> int:
    """Start or resume the curve experiment ``kind``; ``make_config(args, settings)`` builds its
    :class:`~slagwerk.experiments.studies.budget.CurveConfig` from the shared ``settings``."""
    from ..agents.registry import resolve_spec_files
    from ..experiments.harness.config import RunSettings
    from ..experiments.harness.defaults import default_results_folder
    from ..experiments.harness.runner import ExperimentError
    from ..experiments.studies.budget import load_config, parse_budgets, run_curve
    from ..experiments.studies.config import CurveSettings

    common = dict(jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, progress=not args.quiet)
    stored = load_config(args.resume) if args.resume else None
    # plugins and --bot bots, before any spec is checked
    load_agent_sources(args, stored.move_time if stored else RunSettings.value_given(args, "move_time"))
    if args.resume:
        if stored.kind != kind:
            raise ExperimentError(f"--resume {args.resume!r} holds the experiment '{stored.kind}', "
                                  f"not '{kind}'")
        _refuse_changes(args, stored)
        config, results = None, args.resume
    else:
        if args.game is None:
            raise ExperimentError(f"experiment {kind} needs --game (or --resume DIR)")
        game = game_from_args(args.game, args)
        by = CurveSettings.value_given(args, "by")
        settings = {
            **RunSettings.given(args), **CurveSettings.given(args),
            "game": args.game, "budgets": parse_budgets(args.budgets or _default_budgets(by), by),
            # @FILE items are read once, here: the run (and its config.json) holds values
            "opponents": tuple(resolve_spec_files(s, args.game)
                               for s in CurveSettings.value_given(args, "opponents")),
            "options": game.options if game_options_given(args) else {},
        }
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


def _refuse_changes(args, stored) -> None:
    """With --resume, every setting given again must agree with the stored one."""
    from ..agents.registry import resolve_spec_files
    from ..experiments.studies.budget import parse_budgets

    refuse_resume_conflicts(args)
    values = {"game": args.game} if args.game is not None else {}
    if args.budgets is not None:
        values["budgets"] = parse_budgets(args.budgets, args.by or stored.by)
    if args.opponents is not None:
        values["opponents"] = [resolve_spec_files(s, stored.game) for s in args.opponents]
    if getattr(args, "agent", None) is not None:
        values["agents"] = [resolve_spec_files(a, stored.game) for a in args.agent]
    if getattr(args, "cheat", None) is not None:
        values["cheat"] = resolve_spec_files(args.cheat, stored.game)
    refuse_changes(args, stored, **values)
