"""``slagwerk experiment information``: the same search seeing its view against seeing the deal."""

from __future__ import annotations

from .experiment_budget import add_curve_arguments, rebuild, run_curve_command

KIND = "information"
HELP = "the value of information: a search seeing only its view against the same search seeing the deal"
DESCRIPTION = (
    "At each of --budgets, enter the search that decides from its seat's view (--agent, default "
    "ismcts) and the same search seeing every card (--cheat, default cheat: perfect-information UCT "
    "with the same iterations, exploration and playouts) with the --opponents in one tournament on "
    "duplicate deals. The gap (the cheat's Elo minus the view's, with a 95% bootstrap interval) is "
    "what the hidden cards are worth at that budget. Writes information.csv, .json, .md and "
    ".png/.svg beside the tournament's report."
)

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run", "rebuild"]


def add_arguments(parser) -> None:
    parser.add_argument("--agent", metavar="SPEC", default=None,
                        help="the search that sees only its view (default ismcts)")
    parser.add_argument("--cheat", metavar="SPEC", default=None,
                        help="the search that sees the true deal (default cheat)")
    add_curve_arguments(parser)


def run(args) -> int:
    from ..experiments.studies.information import information_config

    def make(args, settings):
        game, budgets = settings.pop("game"), settings.pop("budgets")
        from ..agents.registry import resolve_spec_files

        return information_config(game, budgets, agent=args.agent[0] if args.agent else "ismcts",
                                  cheat=resolve_spec_files(args.cheat or "cheat", game), **settings)

    if args.agent is not None:
        args.agent = [args.agent]
    return run_curve_command(args, KIND, make)
