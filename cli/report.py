"""``slagwerk report DIR``: a finished run's report written again from its games."""

from __future__ import annotations

import sys
from pathlib import Path

from ..engine import GAME_NAMES
from .options import nonempty


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "report", help="rebuild a tournament's or experiment's report and plots from games.jsonl",
        description="Rate a finished tournament again from its games.jsonl and config.json and write "
        "its report.md and report-*.png (ratings with intervals, head-to-head heat map, score "
        "distributions, rating convergence) again, replacing those files and nothing else; for an "
        "experiment's folder, its CSV, JSON, Markdown and plot too. Prints the ranking, which is the "
        "run's own (the same games, the same bootstrap seed).",
    )
    parser.add_argument("folders", nargs="+", type=nonempty, metavar="DIR",
                        help="a results folder (or the folder of a tournament in several games)")
    parser.add_argument("--page", action="store_true",
                        help="print each tournament as a Markdown section for the documentation site "
                        "(command, groups, seed, date and commit with the tables) and write nothing")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..experiments.harness.report import rebuild
    from ..experiments.harness.results import GAMES, ResultsFolder
    from ..experiments.harness.runner import ExperimentError
    from .experiment import experiment_module

    folders = []
    for given in args.folders:
        path = Path(given)
        if ResultsFolder.holds_tournament(path):
            folders.append(path)
            continue
        if not path.is_dir():
            raise ExperimentError(f"{given!r}: {'a file, not' if path.exists() else 'no such'} folder "
                                  f"(give the results folder that holds config.json)")
        inside = [path / name for name in GAME_NAMES if ResultsFolder.holds_tournament(path / name)]
        if not inside:
            raise ExperimentError(f"{given!r}: no tournament or experiment there (no config.json)")
        folders += inside
    if args.page:
        from ..experiments.harness.publish import tournament_page

        print("\n".join(tournament_page(path) for path in folders), end="")
        return 0
    for number, path in enumerate(folders):
        if not (path / GAMES).is_file() and _experiment_without_games(path):
            continue
        result = rebuild(path)
        written = ["report.md", "report-*.png"]
        experiment = ResultsFolder.open(path).config().get("experiment")  # an object, if any (rebuild checks)
        if experiment is not None:
            kind = experiment.get("kind")
            module = experiment_module(kind) if isinstance(kind, str) else None
            if module is None:
                raise ExperimentError(f"{str(path)!r} holds an experiment {kind!r} that this slagwerk "
                                      f"does not know")
            module.rebuild(path)
            written.append(f"{kind}.*")
        if number:
            print()
        print(result.table())
        print(f"report: {path} ({', '.join(written)})", file=sys.stderr)
    return 0


def _experiment_without_games(path) -> bool:
    """An experiment that plays no tournament (``exploitability``): its own files written again
    by its module's ``rebuild``; ``False`` for any other folder."""
    from ..experiments.harness.results import CONFIG, ExperimentFolder
    from .experiment import experiment_module

    config = ExperimentFolder(path).read(CONFIG) or {}
    experiment = config.get("experiment") if isinstance(config, dict) else None
    kind = experiment.get("kind") if isinstance(experiment, dict) else None
    module = experiment_module(kind) if isinstance(kind, str) else None
    if module is None or not getattr(module, "PLAYS_NO_TOURNAMENT", False):
        return False
    module.rebuild(path)
    print(f"report: {path} ({kind}.*)", file=sys.stderr)
    return True
