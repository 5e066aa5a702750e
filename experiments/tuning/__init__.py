"""Tuning search parameters on duplicate deals: SPSA, a Gaussian-process search, SPRT confirmation.

>>> from slagwerk.experiments.tuning import parse_space
>>> parse_space("ismcts", ["c=0.1:3.0:log", "iterations=200"]).describe()
'c=0.1:3:log (float), iterations=200 (fixed)'
"""

import importlib

_WHERE = {"gp_maximize": "gp", "METHODS": "config", "TuneConfig": "config", "Plan": "run",
          "TuneResult": "run", "format_report": "run", "run_tuning": "run", "verdict_text": "run",
          "Dimension": "space", "Space": "space", "parse_space": "space", "spsa_maximize": "spsa"}
"""Where each name lives: loaded when first asked for, so that the settings (:mod:`.config`)
load without numpy and scipy (``slagwerk tune --help``)."""


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = [
    "METHODS",
    "Dimension",
    "Plan",
    "Space",
    "TuneConfig",
    "TuneResult",
    "format_report",
    "gp_maximize",
    "parse_space",
    "run_tuning",
    "spsa_maximize",
    "verdict_text",
]
