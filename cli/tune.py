"""``slagwerk tune``: tune an agent's parameters on duplicate deals, then confirm them by SPRT."""

from __future__ import annotations

import json
import sys

from ..engine import GAME_NAMES
from ..errors import AgentUnavailable
from .options import (
    add_long_run_options,
    add_results_options,
    agent_source_words,
    game_from_args,
    game_options_given,
    load_agent_sources,
    refuse_changes,
    refuse_resume_conflicts,
    say_how_to_continue,
)


def add_parser(subparsers) -> None:
    from ..experiments.harness.defaults import RESULTS_ROOT
    from ..experiments.tuning.config import TuneConfig

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
    TuneConfig.add_flags(parser)
    add_results_options(parser, "tuning run", RESULTS_ROOT / "tune-<game>-<agent>-<time>")
    add_long_run_options(parser, "print best.json (with the SPRT) as JSON")
    parser.set_defaults(run=run)


def run(args) -> int:
    from pathlib import Path

    from ..agents.registry import resolve_spec_files
    from ..experiments.harness.results import FAULTS_LOG
    from ..experiments.harness.runner import ExperimentError
    from ..experiments.tuning import format_report, run_tuning
    from ..experiments.tuning.config import TuneConfig
    from ..experiments.tuning.folder import TuningFolder
    from ..experiments.tuning.run import confirmation_seed, default_folder

    stored = TuningFolder.open(args.resume) if args.resume else None
    config = TuneConfig.load(stored.config(), stored.config_path) if stored else None
    # plugins and --bot bots, before any spec is checked
    load_agent_sources(args, config.move_time if config else TuneConfig.value_given(args, "move_time"))
    confirm_bar = _ConfirmBar(not args.quiet)
    common = dict(jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                  progress=not args.quiet, on_confirm_group=confirm_bar.update)
    folder = None  # the results folder, once known: an interrupt names it
    try:
        if args.resume:
            _refuse_changes(args, config)
            folder = args.resume
            _say_plan(args, config)
            result = run_tuning(None, folder, resume=True, **common)
        else:
            missing = [flag for flag, value in (("--game", args.game), ("--agent", args.agent),
                                                ("--opponents", args.opponents), ("--budget", args.budget))
                       if value is None]
            if missing:
                raise ExperimentError(f"tune needs {', '.join(missing)} (or --resume DIR)")
            game = game_from_args(args.game, args)
            config = TuneConfig.from_flags(
                args, game=args.game,
                # @FILE items are read once, here: the run (and its config.json) holds values.
                opponents=tuple(resolve_spec_files(spec, args.game) for spec in args.opponents),
                options=game.options if game_options_given(args) else {})
            folder = args.results or default_folder(config)
            _say_plan(args, config)
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


def _refuse_changes(args, config) -> None:
    """With --resume, every stored setting given again must agree with the folder's."""
    from ..agents.registry import resolve_spec_files

    refuse_resume_conflicts(args)
    values = {"game": args.game} if args.game is not None else {}
    if args.opponents is not None:
        values["opponents"] = [resolve_spec_files(o, config.game) for o in args.opponents]
    refuse_changes(args, config, **values)


def _say_plan(args, config) -> None:
    """Before anything plays: how large the tuning is, and how large its confirmation may grow."""
    if args.quiet or args.json:
        return
    plan = config.plan()
    confirm = (f"then an SPRT of the best against the defaults, of at most {config.max_groups} "
               f"duplicate groups (it stops as soon as it decides)" if config.confirm
               else "no confirming SPRT (--no-confirm)")
    print(f"tune: {plan.evaluations} evaluations of {plan.groups} duplicate groups ({plan.games} games "
          f"each, {plan.evaluations * plan.games} games) by {plan.method}; {confirm}",
          file=sys.stderr, flush=True)


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
