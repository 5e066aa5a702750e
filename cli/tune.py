"""``slagwerk tune``: tune an agent's parameters on duplicate deals, then confirm them by SPRT."""

from __future__ import annotations

import json
import sys

from ..engine import GAME_NAMES
from ..errors import AgentUnavailable, OptionError
from .options import (
    DEFAULT_SEED,
    DEFAULT_UNIT,
    add_agent_source_options,
    add_game_options,
    add_game_time_option,
    add_run_options,
    agent_source_words,
    game_from_args,
    load_agent_sources,
    nonempty,
    refuse_conflict,
    say_how_to_continue,
    stored_move_time,
)


def add_parser(subparsers) -> None:
    from ..experiments.tuning.run import DEFAULT_ELO1, DEFAULT_MAX_GROUPS, GP_GROUPS, METHODS, SPSA_GROUPS

    parser = subparsers.add_parser(
        "tune", help="tune an agent's parameters (SPSA or a GP search), confirmed by SPRT",
        description="Tune the named parameters of one agent against a pool of opponents, scoring "
        "every setting on duplicate deals: SPSA for continuous parameters, a Gaussian-process "
        "search for a few integer ones. Every evaluation is appended to the results folder "
        "(--resume continues an interrupted run); the recommendation goes to best.json, which "
        "specs load as AGENT:@best.json. The recommendation is then played against the agent's "
        "defaults with an SPRT, which says whether the gain is real.",
        epilog="example: slagwerk tune --game kozel --agent ismcts --param c=0.1:3.0 "
        "--param iterations=500 --opponents heuristic ismcts --budget 20000 --seed 1 --jobs 2",
    )
    parser.add_argument("--game", choices=GAME_NAMES, help="the game")
    parser.add_argument("--agent", help="the agent to tune, e.g. ismcts")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=RANGE",
                        help="a parameter to tune (c=0.1:3.0, c=0.05:5:log, iterations=100:2000) "
                        "or to fix (iterations=500); repeatable")
    parser.add_argument("--opponents", nargs="+", metavar="SPEC",
                        help="the opponent pool, e.g. heuristic ismcts:iterations=500")
    parser.add_argument("--budget", type=int, help="games to play while tuning (not counting the SPRT)")
    parser.add_argument("--method", choices=METHODS, default=None,
                        help="spsa, gp, or auto: gp when every tuned parameter is an integer (default)")
    parser.add_argument("--groups", type=int,
                        help=f"duplicate groups per evaluation (default: {SPSA_GROUPS} for SPSA, "
                        f"at least {GP_GROUPS} for the GP search)")
    parser.add_argument("--results", type=nonempty, metavar="DIR",
                        help="results folder (default slagwerk-results/tune-<game>-<agent>-<time>)")
    parser.add_argument("--resume", type=nonempty, metavar="DIR",
                        help="continue the interrupted run in DIR with its stored settings (a setting "
                        "given with it must agree with the stored one)")
    parser.add_argument("--force", action="store_true",
                        help="start over in a --results folder that is not empty (replacing an "
                        "earlier run's files there)")
    parser.add_argument("--no-confirm", action="store_true", help="skip the SPRT against the defaults")
    parser.add_argument("--elo0", type=float, default=None,
                        help="SPRT H0: the tuned setting is at most this stronger (default 0)")
    parser.add_argument("--elo1", type=float, default=None,
                        help=f"SPRT H1: it is at least this stronger (default {DEFAULT_ELO1:g})")
    parser.add_argument("--alpha", type=float, default=None, help="SPRT false-H1 rate (default 0.05)")
    parser.add_argument("--beta", type=float, default=None, help="SPRT false-H0 rate (default 0.05)")
    parser.add_argument("--max-groups", type=int, default=None,
                        help=f"SPRT gives up after this many groups (default {DEFAULT_MAX_GROUPS})")
    parser.add_argument("--json", action="store_true", help="print best.json (with the SPRT) as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    add_run_options(parser, resumable=True)
    add_game_time_option(parser)
    add_agent_source_options(parser)
    add_game_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from pathlib import Path

    from ..agents.registry import resolve_spec_files
    from ..experiments.harness.results import FAULTS_LOG
    from ..experiments.harness.runner import ExperimentError
    from ..experiments.tuning import TuneConfig, format_report, run_tuning
    from ..experiments.tuning.folder import TuningFolder
    from ..experiments.tuning.run import confirmation_seed, default_folder

    if args.jobs == 0 or args.jobs < -1:
        raise ExperimentError(f"--jobs must be -1 (all cores) or a positive count, not {args.jobs}")
    # plugins and --bot bots, before any spec is checked
    load_agent_sources(args, stored_move_time(TuningFolder, args.resume) if args.resume else _move_time(args))
    confirm_bar = _ConfirmBar(not args.quiet)
    common = dict(jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                  progress=not args.quiet, on_confirm_group=confirm_bar.update)
    folder = None  # the results folder, once known: an interrupt names it
    try:
        if args.resume:
            _refuse_conflicting_flags(args)
            folder = args.resume
            result = run_tuning(None, folder, resume=True, **common)
        else:
            missing = [flag for flag, value in (("--game", args.game), ("--agent", args.agent),
                                                ("--opponents", args.opponents), ("--budget", args.budget))
                       if value is None]
            if missing:
                raise ExperimentError(f"tune needs {', '.join(missing)} (or --resume DIR)")
            options_given = args.option or any(
                getattr(args, key) is not None for key in ("players", "target", "first_dealer"))
            game = game_from_args(args.game, args)
            config = TuneConfig(
                game=args.game, agent=args.agent, params=tuple(args.param),
                # @FILE items are read once, here: the run (and its config.json) holds values.
                opponents=tuple(resolve_spec_files(spec, args.game) for spec in args.opponents),
                budget=args.budget, seed=_or(args.seed, DEFAULT_SEED),
                method=_or(args.method, "auto"), groups=args.groups,
                options=tuple(sorted(game.options.items())) if options_given else (),
                unit=_or(args.unit, DEFAULT_UNIT), move_time=_move_time(args),
                game_time=args.game_time, confirm=not args.no_confirm, **_sprt_settings(args),
            )
            folder = args.results or default_folder(config)
            result = run_tuning(config, folder, force=args.force, **common)
    except (KeyboardInterrupt, AgentUnavailable) as stop:
        confirm_bar.close()
        if folder is not None:
            say_how_to_continue(stop, "tune", folder, args, saved="evaluation")
        raise
    finally:
        confirm_bar.close()
    if args.json:
        print(json.dumps(result.best_json()))
        return 0
    print(format_report(result))
    config = result.config
    if result.confirmation is not None:
        print(f"reproduce the SPRT: slagwerk sprt '{result.spec}' '{result.default_spec}' --game "
              f"{config.game} --elo0 {config.elo0:g} --elo1 {config.elo1:g} --alpha {config.alpha:g} "
              f"--beta {config.beta:g} --max-groups {config.max_groups} --unit {config.unit} "
              f"--seed {confirmation_seed(config)}"
              + (f" --game-time {config.game_time:g}" if config.game_time is not None else "")
              + agent_source_words(args))
    if result.folder is not None:
        plot = ", trajectory.png" if result.plotted else " (no trajectory.png: matplotlib did not import)"
        faults = (", faults.log: the agents' tracebacks" if (Path(result.folder) / FAULTS_LOG).is_file()
                  else "")
        print(f"results: {result.folder} (evaluations.jsonl, best.json, summary.json{plot}{faults}); "
              f"load the setting with --agents {config.agent}:@{result.folder}/best.json"
              f"{agent_source_words(args)}", file=sys.stderr)
    return 0


def _or(value, default):
    return default if value is None else value


def _move_time(args) -> float | None:
    if args.move_time is not None and args.move_time < 0:
        raise OptionError(f"--move-time must not be negative, not {args.move_time}")
    return args.move_time if args.move_time else None


def _sprt_settings(args) -> dict:
    from ..experiments.tuning.run import DEFAULT_ELO1, DEFAULT_MAX_GROUPS

    return dict(elo0=_or(args.elo0, 0.0), elo1=_or(args.elo1, DEFAULT_ELO1), alpha=_or(args.alpha, 0.05),
                beta=_or(args.beta, 0.05), max_groups=_or(args.max_groups, DEFAULT_MAX_GROUPS))


def _refuse_conflicting_flags(args) -> None:
    """With --resume, every stored setting given again must agree with the folder's."""
    from pathlib import Path

    from ..agents.registry import resolve_spec_files
    from ..engine import make_game
    from ..experiments.tuning.folder import TuningFolder

    if args.force:
        raise OptionError("--force starts a tuning run over; it cannot be combined with --resume")
    config = TuningFolder.open(args.resume).config()
    where = args.resume
    if args.results is not None and Path(args.results).resolve() != Path(args.resume).resolve():
        refuse_conflict("--results", args.resume, args.results, where)
    stored = lambda name, default=None: config.get(name, default)  # noqa: E731
    move_time = None if args.move_time is None else _move_time(args)
    given = [("--game", stored("game"), args.game), ("--agent", stored("agent"), args.agent),
             ("--param", stored("params"), list(args.param) or None),
             ("--opponents", stored("opponents"),
              None if args.opponents is None
              else [resolve_spec_files(o, stored("game")) for o in args.opponents]),
             ("--budget", stored("budget"), args.budget), ("--method", stored("method"), args.method),
             ("--groups", stored("groups"), args.groups), ("--seed", stored("seed"), args.seed),
             ("--unit", stored("unit"), args.unit),
             ("--no-confirm", not stored("confirm", True), True if args.no_confirm else None),
             ("--elo0", stored("elo0"), args.elo0), ("--elo1", stored("elo1"), args.elo1),
             ("--alpha", stored("alpha"), args.alpha), ("--beta", stored("beta"), args.beta),
             ("--max-groups", stored("max_groups"), args.max_groups)]
    if args.move_time is not None:
        given.append(("--move-time", stored("move_time"), move_time))
    given.append(("--game-time", stored("game_time"), args.game_time))
    for flag, stored_value, given_value in given:
        if given_value is not None:
            refuse_conflict(flag, stored_value, given_value, where)
    if args.option or any(getattr(args, key) is not None for key in ("players", "target", "first_dealer")):
        game = stored("game")
        refuse_conflict("--option/--players/--target/--first-dealer",
                        make_game(game, **dict(stored("options") or {})).options,
                        game_from_args(game, args).options, where)


class _ConfirmBar:
    """A tqdm bar over the confirmation SPRT's groups, shown once the SPRT starts."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.bar = None

    def update(self, result) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(desc="confirm (SPRT)", unit="group", dynamic_ncols=True, leave=True)
        self.bar.update(1)
        self.bar.set_postfix_str(f"LLR {result.llr:+.2f} [{result.bounds[0]:+.2f}, {result.bounds[1]:+.2f}] "
                                 f"W-D-L {result.wins}-{result.draws}-{result.losses}", refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
