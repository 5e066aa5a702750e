"""The seeds people and programs give: integers 0..2**63-1 in every command,
request, web match and environment (63 bits fit a signed 64-bit integer in any
language's JSON). Seeds derived from them inside the toolkit may use all 64
bits. No numpy here: the command-line parsers check seeds without loading it.
"""

from __future__ import annotations

import numbers

MAX_SEED = 2**63 - 1
SEED_RANGE = "an integer 0..2**63-1"


def is_seed(value) -> bool:
    """Whether ``value`` is a seed: an integer (not a bool) 0..:data:`MAX_SEED`.

    >>> is_seed(0), is_seed(2**63 - 1), is_seed(2**63), is_seed(1.0), is_seed(True)
    (True, True, False, False, False)
    """
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= value <= MAX_SEED
