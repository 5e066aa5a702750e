"""The value of information: the same search seeing its seat's view against seeing the true deal.

At every budget the experiment (a curve experiment, :mod:`.budget`) enters
the search that decides from its view (``ismcts`` by default) and the search
that sees every card (``cheat``: perfect-information UCT with the same
iteration budget, exploration constant and playouts), with fixed opponents
(``heuristic`` by default) in one tournament on duplicate deals. The *gap*
at a budget is the cheat's Elo minus the view's, with a 95% interval from the
same bootstrap resamples (so the dependence of the two ratings is kept): how
much it is worth to know the hidden cards, in each game, at that budget.

>>> config = information_config("kozel", (100, 1000))
>>> [entry.label for entry in config.entries()]
['ismcts-100', 'ismcts-1000', 'cheat-100', 'cheat-1000', 'heuristic']
"""

from __future__ import annotations

from .budget import CurveConfig, gaps

__all__ = ["KIND", "gaps", "information_config"]

KIND = "information"


def information_config(game: str, budgets: tuple, agent: str = "ismcts", cheat: str = "cheat",
                       **settings) -> CurveConfig:
    """The information experiment's settings (``settings``: any other :class:`CurveConfig` field)."""
    return CurveConfig(KIND, game, (agent,), tuple(budgets), cheat=cheat, **settings)
