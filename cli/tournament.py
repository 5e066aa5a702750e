"""``slagwerk tournament``: rank agents on duplicate deals; with no arguments, the main job.

With no arguments it plays a short tournament in every game among the
built-in agents (random, heuristic, and the search agents with small
budgets) and prints one ranking table per game.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..engine import GAME_NAMES
from ..errors import AgentUnavailable, OptionError
from ..settings import refuse_conflict
from .options import (
    add_long_run_options,
    add_results_options,
    game_from_args,
    game_options_given,
    load_agent_sources,
    refuse_changes,
    refuse_resume_conflicts,
    say_how_to_continue,
)


def add_parser(subparsers) -> None:
    from ..experiments.harness.config import TournamentConfig
    from ..experiments.harness.defaults import RESULTS_ROOT

    parser = subparsers.add_parser(
        "tournament", help="rank agents on duplicate deals (no arguments: every game, built-in agents)",
        description="Play agents against each other on duplicate deals (each deal replayed in all "
        "seat rotations, teams swapped) and rank them: Bradley-Terry/Plackett-Luce ratings on the "
        "Elo scale with 95% profile-likelihood intervals, mean score per deal and head-to-head records. "
        "Every finished game is appended to the results folder; --resume continues an "
        "interrupted tournament. With no arguments: a short tournament in every game among the "
        "built-in agents.",
    )
    parser.add_argument("--game", action="append", choices=GAME_NAMES,
                        help="the game (repeatable; default: every game)")
    TournamentConfig.add_flags(parser)
    add_results_options(parser, "tournament", RESULTS_ROOT / "tournament-<game or 'all'>-<time>")
    add_long_run_options(parser, "print each game's final ranking as one JSON object per line")
    parser.set_defaults(run=run)


def default_agents(game) -> list[str]:
    """The built-in agents for the main job: random, heuristic and, when registered,
    ISMCTS and PIMC with budgets small enough for a few minutes in all games."""
    from ..agents import AGENTS, make
    from ..errors import SlagwerkError

    wanted = ["random", "heuristic"]
    if "ismcts" in AGENTS:
        wanted.append("ismcts:iterations=1000,objective=deal,label=ismcts-1000")
    if "pimc" in AGENTS:
        wanted.append("pimc:worlds=20,iterations_per_world=50,objective=deal,label=pimc-20x50")
    agents = []
    for spec in wanted:
        try:
            make(spec, game, seed=0)
        except SlagwerkError:  # a search agent's parameters changed: use its defaults
            spec = spec.split(":")[0]
            try:
                make(spec, game, seed=0)
            except SlagwerkError:
                continue
        agents.append(spec)
    return agents


def run(args) -> int:
    from ..experiments.harness.config import TournamentConfig
    from ..experiments.harness.defaults import default_results_folder
    from ..experiments.harness.results import ResultsFolder, claim_folder
    from ..experiments.harness.tournament import run_tournament

    common = dict(jobs=args.jobs, backend=args.backend, scheduler=args.scheduler,
                  progress=not args.quiet)
    if args.resume:
        folders = _resume_folders(Path(args.resume), ResultsFolder)
        _refuse_experiments(folders)
        configs = [TournamentConfig.load(opened.config(), opened.config_path)
                   for opened in map(ResultsFolder.open, folders)]
        load_agent_sources(args, configs[0].move_time)  # before any spec is checked
        _refuse_changes(args, configs)
        try:
            results = [run_tournament(None, folder, resume=True, **common) for folder in folders]
        except (KeyboardInterrupt, AgentUnavailable) as stop:
            say_how_to_continue(stop, "tournament", args.resume, args)
            raise
        _report(results, args)
        return 0

    from ..agents.registry import resolve_spec_files

    # plugins and --bot bots, before any spec is checked
    load_agent_sources(args, TournamentConfig.value_given(args, "move_time"))
    games = list(dict.fromkeys(args.game or GAME_NAMES))
    # @FILE items are read once, here: the run (and its config.json) holds values, never paths.
    specs = tuple(resolve_spec_files(spec, games) for spec in args.agents) if args.agents else None
    if game_options_given(args) and len(games) != 1:
        raise OptionError("game options (--option, or a game option's own flag) need one --game")
    configs = []
    for name in games:
        game = game_from_args(name, args)
        config = TournamentConfig.from_flags(
            args, game=name, agents=specs or tuple(default_agents(game)),
            options=game.options if game_options_given(args) else {})
        config.validate()  # every spec and setting checked before any game runs
        configs.append(config)

    if args.results:
        root = Path(args.results)
    else:
        root = default_results_folder("tournament-" + (games[0] if len(games) == 1 else "all"))
    # Every game's folder exists before the first game is played, so that
    # --resume ROOT finishes the games not yet started as well.
    folders = [root if len(configs) == 1 else root / config.game for config in configs]
    if len(configs) > 1:
        claim_folder(root, ResultsFolder.KIND, force=args.force)
    for config, folder in zip(configs, folders):
        ResultsFolder.create(folder, config.dump(), force=args.force)
    results = []
    try:
        for folder in folders:
            results.append(run_tournament(None, folder, resume=True, **common))
    except (KeyboardInterrupt, AgentUnavailable) as stop:
        say_how_to_continue(stop, "tournament", root, args)
        raise
    _report(results, args)
    return 0


def _refuse_experiments(folders: list[Path]) -> None:
    """An experiment's folder is continued by its own command, which also writes its curve."""
    import shlex

    from ..experiments.harness.results import ResultsFolder
    from ..experiments.studies.budget import EXPERIMENT_KEY

    for folder in folders:
        experiment = ResultsFolder.open(folder).config().get(EXPERIMENT_KEY)
        if isinstance(experiment, dict) and isinstance(experiment.get("kind"), str):
            raise OptionError(f"{str(folder)!r} holds a {experiment['kind']} experiment: continue it with "
                              f"slagwerk experiment {experiment['kind']} --resume {shlex.quote(str(folder))}")


def _refuse_changes(args, configs) -> None:
    """With --resume, every stored setting given again must agree with the folder's."""
    from ..agents.registry import resolve_spec_files

    refuse_resume_conflicts(args)
    if args.game:
        refuse_conflict("--game", sorted(c.game for c in configs), sorted(set(args.game)), args.resume)
    for config in configs:
        agents = None if args.agents is None else [resolve_spec_files(a, config.game) for a in args.agents]
        refuse_changes(args, config, **({} if agents is None else {"agents": agents}))


def _resume_folders(path: Path, folders) -> list[Path]:
    from ..experiments.harness.runner import ExperimentError

    if folders.holds_tournament(path):
        return [path]
    if path.is_dir():
        inside = [path / name for name in GAME_NAMES if folders.holds_tournament(path / name)]
        if inside:
            return inside
    raise ExperimentError(f"--resume {str(path)!r}: no tournament there (no config.json)")


def _report(results, args) -> None:
    from ..experiments.harness.report import write_report  # report.md and its plots in every folder

    for result in results:
        if result.folder is not None:
            write_report(result)
    for number, result in enumerate(results):
        if args.json:
            print(json.dumps(result.ranking_json()))
            continue
        if number:
            print()
        print(result.table())
    if not args.json and results and results[0].folder is not None:
        where = sorted({str(r.folder) for r in results})
        print(f"\nresults: {', '.join(where)} (report.md, summary.json, games.jsonl)", file=sys.stderr)
