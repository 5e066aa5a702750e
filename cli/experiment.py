"""``slagwerk experiment NAME``: experiments that answer a research question with a curve.

Each experiment is a subcommand defined by a module of ``slagwerk.cli``
named in :data:`EXPERIMENTS`; adding one is a line there. Such a module has

- ``HELP`` and ``DESCRIPTION`` (its help texts) and ``add_arguments(parser)``;
- ``run(args)``, the subcommand;
- ``rebuild(path)``, which ``slagwerk report`` calls to write the experiment's
  own files again from a finished results folder whose ``config.json`` names
  the experiment (``experiment.kind``).

The modules are imported when the parser is built, so they import the
experiments themselves (numpy, numba, matplotlib) only inside ``run`` and
``rebuild``: the command line starts quickly.
"""

from __future__ import annotations

import importlib
import sys

from ..errors import OptionError

EXPERIMENTS = {
    "budget": "experiment_budget",
    "information": "experiment_information",
    "belief": "experiment_belief",
    "exploitability": "experiment_exploitability",
}
"""Subcommand -> module of ``slagwerk.cli`` that defines it (see the module doc)."""


def experiment_module(name: str):
    """The command module of the experiment ``name`` (``None`` for an unknown one)."""
    module = EXPERIMENTS.get(name)
    return None if module is None else importlib.import_module(f".{module}", __package__)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="experiments with plots: strength against budget, the value of information, belief accuracy",
        description="Run an experiment that answers a research question with a curve: every point "
        "is an entry of one tournament on duplicate deals (rated on one Elo scale with 95% intervals), "
        "and the results folder gets a CSV, a JSON, a Markdown summary and a plot beside the "
        "tournament's own report.",
    )
    inner = parser.add_subparsers(dest="experiment", metavar="EXPERIMENT")
    for name in EXPERIMENTS:
        module = experiment_module(name)
        sub = inner.add_parser(name, help=module.HELP, description=module.DESCRIPTION)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)

    def name_missing(args):  # a script that forgot the name fails, as with any other missing argument
        parser.print_help(sys.stderr)
        raise OptionError(f"name an experiment: slagwerk experiment {{{','.join(EXPERIMENTS)}}} ...")

    parser.set_defaults(run=name_missing)
