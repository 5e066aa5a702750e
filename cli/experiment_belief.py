"""``slagwerk experiment belief``: how well the inferred belief locates hidden cards.

Follows the experiment-module shape of :mod:`slagwerk.cli.experiment`
(``HELP``, ``DESCRIPTION``, ``add_arguments``, ``run``, ``rebuild``). The work is
:mod:`slagwerk.experiments.studies.belief_accuracy`, imported inside ``run``.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..engine import GAME_NAMES
from .options import nonempty, number_in, seed_value

HELP = "belief accuracy: how much likelier the inferred belief finds the hidden cards"
DESCRIPTION = (
    "For positions from games of the built-in agents, build the seat's belief uniformly and "
    "inferred from the other seats' play (belief=inferred), and report the mean log-likelihood "
    "gain per hidden card of the inferred belief over the uniform one, per stage of the deal, "
    "with a 95% interval, a CSV, a JSON, a Markdown summary and a plot."
)


def add_arguments(parser) -> None:
    parser.add_argument("--game", required=True, choices=GAME_NAMES, help="the game")
    parser.add_argument("--positions", type=number_in(int, 1, 100_000), default=60,
                        help="positions measured (default 60)")
    parser.add_argument("--particles", type=number_in(int, 2, 10_000), default=128,
                        help="worlds per belief, both ways, at least 2 (default 128)")
    parser.add_argument("--temperature", type=number_in(float, 0, 1e6), default=0.0,
                        help="the opponent model's temperature; 0 (the default): the game's own")
    parser.add_argument("--model", default=None, type=nonempty, metavar="FILE",
                        help="measure this opponent model (a file of python -m "
                        "slagwerk.experiments.studies.belief_model --out) instead of the game's")
    parser.add_argument("--seed", type=seed_value, default=1, help="seed (default 1)")
    parser.add_argument("--results", "--out", dest="results", type=nonempty, metavar="DIR", default=None,
                        help="results folder, new or empty (default slagwerk-results/belief-<game>-<time>)")
    parser.add_argument("--force", action="store_true",
                        help="write into a --results folder that is not empty (replacing an earlier "
                        "belief run's files there, nothing else)")


def run(args) -> int:
    from tqdm import tqdm

    from ..experiments.harness.defaults import default_results_folder
    from ..experiments.studies.belief_accuracy import claim
    from ..experiments.studies.belief_accuracy import run as measure

    model = None
    if args.model:
        from ..experiments.studies.belief_model import load_model

        model = load_model(args.model)
    out = Path(args.results) if args.results else default_results_folder(f"belief-{args.game}")
    claim(out, force=args.force)  # before any work: a bad folder fails at once
    with tqdm(total=args.positions, desc=f"belief {args.game}", unit="position") as bar:
        def progress(done, total):
            bar.update(done - bar.n)

        result = measure(args.game, out, count=args.positions, particles=args.particles,
                         temperature=args.temperature, seed=args.seed, progress=progress,
                         model=model, force=args.force)
    print((out / "summary.md").read_text(), end="")
    print(f"results: {out} (positions.csv, summary.json, summary.md"
          + (", belief.png)" if result["plot"] else ") (no plot: matplotlib is not installed)"))
    return 0


def rebuild(path) -> None:
    """Draw the plot of a finished belief-accuracy folder again from its summary.json."""
    from ..experiments.studies.belief_accuracy import plot

    folder = Path(path)
    result = json.loads((folder / "summary.json").read_text())
    plot(result["summary"], result["game"], folder)
