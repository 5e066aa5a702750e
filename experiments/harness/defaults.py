"""Defaults the experiments share with their commands.

This module imports only the standard library, so a command can show them
in its help without importing numpy, numba and the agents (``slagwerk
tournament --help`` and a mistyped flag answer at once).
"""

import time
from pathlib import Path

DEFAULT_MOVE_TIME = 60.0
"""Per-move time limit of tournament games, in seconds."""
DEFAULT_BOOTSTRAP = 1000
"""Bootstrap resamples for the mean scores' and rating differences' 95% intervals."""
MIN_BOOTSTRAP = 10
"""Fewest bootstrap resamples accepted: with none, a score interval has no width."""
MAX_BOOTSTRAP = 100_000
"""Most bootstrap resamples accepted (their arrays must fit in memory)."""
MAX_GROUPS = 100_000
"""Most duplicate groups of one run or test (the largest measured in the docs:
2,160); a schedule is built whole before the first game."""
MAX_TUNING_GAMES = 10**8
"""Most games a tuning run's budget may name."""
MAX_ELO = 1000.0
"""The largest Elo difference an SPRT's hypotheses may name (about 99.7% of the points)."""
MAX_SECONDS = 7 * 86400
"""A week: the longest time limit, clock or timeout a setting takes (far beyond any real run,
and below what the operating system's timers would fail on)."""
VERSION_KEY = "slagwerk"
"""The key of a results folder's ``config.json`` that names the slagwerk version of the run."""
RESULTS_ROOT = Path("slagwerk-results")
"""Where a run's results folder goes when no ``--results`` is given."""


def default_results_folder(name: str) -> Path:
    """``RESULTS_ROOT/<name>-<local time>``, the folder of a run given no ``--results``."""
    return RESULTS_ROOT / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
