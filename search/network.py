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

from numba import njit


@njit(cache=True, fastmath=False)
def forward(x, w1, b1, w2, b2, w3, b3, out):
    """The network's action values for input ``x`` (float32) into ``out`` (float32).

    An observation is mostly zeros (cards a seat does not hold, slots not yet played), and a
    ReLU layer's output too, so each layer adds up only the rows of its weights that a
    non-zero input selects. Plain loops, not ``np.dot``: they compile in about half a second
    where ``np.dot`` took four (a cold first decision waits for it), run two to three times
    faster at these sizes, and add in the same order on every machine (BLAS need not)."""
    if x.shape[0] != w1.shape[0] or out.shape[0] != w3.shape[1]:  # the loops index without checks
        raise ValueError("the network's input or output does not fit its weights")
    h1 = b1.copy()
    for i in range(x.shape[0]):  # an input may be negative: only its zeros are skipped
        if x[i] != 0.0:
            _add_row(x[i], w1, i, h1)
    h2 = b2.copy()
    for i in range(h1.shape[0]):  # ReLU: a negative entry counts as zero
        if h1[i] > 0.0:
            _add_row(h1[i], w2, i, h2)
    for j in range(out.shape[0]):
        out[j] = b3[j]
    for i in range(h2.shape[0]):
        if h2[i] > 0.0:
            _add_row(h2[i], w3, i, out)


@njit(cache=True, inline="always")
def _add_row(scale, w, i, out):
    """``out += scale * w[i]``."""
    for j in range(out.shape[0]):
        out[j] += scale * w[i, j]


@njit(cache=True)
def best_index(values, mask):
    """The legal index (``mask[i] != 0``) with the highest value; the lowest such index on ties."""
    best = -1
    for i in range(values.shape[0]):
        if mask[i] and (best < 0 or values[i] > values[best]):
            best = i
    return best
