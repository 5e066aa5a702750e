"""Defaults the experiments share with their commands.

This module imports nothing, so a command can show them in its help
without importing numpy, numba and the agents (``slagwerk tournament
--help`` and a mistyped flag answer at once).
"""

DEFAULT_MOVE_TIME = 60.0
"""Per-move time limit of tournament games, in seconds."""
DEFAULT_BOOTSTRAP = 1000
"""Bootstrap resamples for the ratings' 95% intervals."""
MIN_BOOTSTRAP = 10
"""Fewest bootstrap resamples accepted: with none, an interval has no width."""
