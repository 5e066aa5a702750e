"""Tuning search parameters on duplicate deals: SPSA, a Gaussian-process search, SPRT confirmation.

>>> from slagwerk.experiments.tuning import parse_space
>>> parse_space("ismcts", ["c=0.1:3.0:log", "iterations=200"]).describe()
'c=0.1:3:log (float), iterations=200 (fixed)'
"""

from .gp import gp_maximize
from .run import METHODS, Plan, TuneConfig, TuneResult, format_report, run_tuning, verdict_text
from .space import Dimension, Space, parse_space
from .spsa import spsa_maximize

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
