"""A learned network's forward pass, in numba on numpy weights (no PyTorch at play time).

The network reads one seat's encoding (``engine/<game>/observation.py``, optionally
with the deal's history) and gives a value for every action index of the game: a
multilayer perceptron of two hidden ReLU layers, ``x -> relu(x W1 + b1) -> relu(.. W2 +
b2) -> .. W3 + b3``. The same shape is trained in PyTorch
(:mod:`slagwerk.experiments.training`); tests/test_network.py checks that the two
agree to 1e-5.

A decision takes the legal action with the highest value (:func:`best_index`);
a guided search reads the values through :mod:`slagwerk.search.guide`.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, fastmath=False)
def forward(x, w1, b1, w2, b2, w3, b3, out):
    """The network's action values for input ``x`` (float32) into ``out`` (float32).

    An observation is mostly zeros (cards a seat does not hold, slots not yet played), so
    the first layer adds up only the rows of ``W1`` that a non-zero input selects: three to
    four times faster than the dense product where the input is long (Kozel, Koetsieren)."""
    hidden = b1.shape[0]
    h1 = b1.copy()
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(hidden):
                h1[j] += xi * w1[i, j]
    h1 = np.maximum(h1, np.float32(0.0))
    h2 = np.maximum(np.dot(h1, w2) + b2, np.float32(0.0))
    out[:] = np.dot(h2, w3) + b3


@njit(cache=True)
def best_index(values, mask):
    """The legal index (``mask[i] != 0``) with the highest value; the lowest such index on ties."""
    best = -1
    for i in range(values.shape[0]):
        if mask[i] and (best < 0 or values[i] > values[best]):
            best = i
    return best
