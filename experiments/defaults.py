"""Defaults the experiments share with their commands.

This module imports nothing, so a command line can show them in its help
while it builds its parser, before a run imports numpy, numba or the agents
(``slagwerk tournament`` starts its worker processes in between).
"""

DEFAULT_MOVE_TIME = 60.0
"""Per-move time limit of tournament games, in seconds."""
DEFAULT_BOOTSTRAP = 1000
"""Bootstrap resamples for the ratings' 95% intervals."""
