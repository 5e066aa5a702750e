"""Card masks and the random number generator, as numba kernels.

A card is a bit index ``0 .. 47``; a set of cards is one ``uint64`` (alias
:data:`CardMask`). Kernels here are the primitives every game builds on:
:func:`popcount`, :func:`lowest_bit`, :func:`kth_bit`, :func:`random_card`.

Numba types ``uint64 - 1`` as ``float64`` (an int64 literal meets a uint64),
so kernels always use the typed constants :data:`ONE` and :data:`ZERO`.

The generator is xorshift64* with its state in a ``uint64[1]`` array that
the caller owns (see :func:`make_rng`). Everything random in slagwerk draws
from such an array, so results depend only on the seed, never on numba's or
numpy's global generators, the machine or the number of workers.

>>> from slagwerk.engine.bits import popcount, kth_bit, mask_of
>>> m = mask_of([3, 7, 40])
>>> int(popcount(m)), int(kth_bit(m, 1))
(3, 7)
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from .. import jit  # noqa: F401  (before any kernel: how slagwerk's cached kernels load)

CardMask = np.uint64
"""A set of cards: bit ``i`` set means card ``i`` is in the set."""

ZERO = np.uint64(0)
ONE = np.uint64(1)


@intrinsic
def _ctpop(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@njit(cache=True)
def popcount(mask):
    """Number of cards in ``mask`` (uint64) as int64."""
    return np.int64(_ctpop(np.uint64(mask)))


@njit(cache=True)
def lowest_bit(mask):
    """Index of the lowest card in ``mask`` (uint64); 64 for an empty mask."""
    return np.int64(_cttz(np.uint64(mask)))


@njit(cache=True)
def bit(index):
    """The mask holding only card ``index``."""
    return ONE << np.uint64(index)


@njit(cache=True)
def has(mask, index):
    """True when card ``index`` is in ``mask``."""
    return (np.uint64(mask) >> np.uint64(index)) & ONE != ZERO


def _select_table() -> np.ndarray:
    table = np.zeros((256, 8), dtype=np.int64)
    for byte in range(256):
        k = 0
        for b in range(8):
            if byte >> b & 1:
                table[byte, k] = b
                k += 1
    return table


SELECT_IN_BYTE = _select_table()
"""``SELECT_IN_BYTE[x, k]``: position of the k-th set bit of byte ``x``."""

_LOW32 = np.uint64(0xFFFFFFFF)
_LOW16 = np.uint64(0xFFFF)
_LOW8 = np.uint64(0xFF)


@njit(cache=True)
def kth_bit(mask, k):
    """Index of the ``k``-th lowest card (0-based) of ``mask``; -1 if too few."""
    if k < 0 or k >= popcount(mask):
        return np.int64(-1)
    return select_bit(mask, k)


@njit(cache=True)
def select_bit(mask, k):
    """Index of the ``k``-th lowest card of ``mask``, for ``0 <= k < popcount(mask)``
    (unchecked). Narrows to a byte with three popcounts, then looks the bit up
    in :data:`SELECT_IN_BYTE`: constant time, no loop over the cards.
    """
    m = np.uint64(mask)
    shift = 0
    count = popcount(m & _LOW32)
    if k >= count:
        k -= count
        m >>= np.uint64(32)
        shift = 32
    count = popcount(m & _LOW16)
    if k >= count:
        k -= count
        m >>= np.uint64(16)
        shift += 16
    count = popcount(m & _LOW8)
    if k >= count:
        k -= count
        m >>= np.uint64(8)
        shift += 8
    return np.int64(shift + SELECT_IN_BYTE[np.int64(m & _LOW8), k])


@njit(cache=True)
def mask_to_indices(mask, out):
    """Write the card indices of ``mask`` in increasing order into ``out``.

    ``out`` is an int64 array with room for ``popcount(mask)`` entries.
    Returns the number written.
    """
    m = np.uint64(mask)
    n = 0
    while m != ZERO:
        out[n] = _cttz(m)
        n += 1
        m &= m - ONE
    return n


def mask_of(indices) -> np.uint64:
    """Python helper: the mask of an iterable of card indices."""
    m = 0
    for i in indices:
        m |= 1 << int(i)
    return np.uint64(m)


# ---------------------------------------------------------------- random numbers

_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def splitmix64(x: int) -> int:
    """One step of splitmix64, used to turn seeds into generator states."""
    x = (x + _GOLDEN) & _MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def derive_seed(*parts: int) -> int:
    """A 63-bit seed derived from integers (a base seed, a game index, ...).

    The same parts give the same seed everywhere; different parts give
    unrelated seeds. Used to give every game of a tournament its own seed.
    """
    x = 0x5A6C_A63E_0F00_D5ED
    for p in parts:
        x = splitmix64(x ^ (int(p) & _MASK64))
    return x >> 1


def make_rng(seed: int) -> np.ndarray:
    """A generator state (``uint64[1]``) for :func:`next_u64` from an int seed."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, not {seed!r}")
    state = splitmix64(int(seed) & _MASK64) or 1  # xorshift must not start at 0
    return np.array([state], dtype=np.uint64)


@njit(cache=True, inline="always")
def next_u64(rng):
    """Next 64 random bits from the xorshift64* generator ``rng`` (uint64[1])."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, inline="always")
def random_bits32(rng):
    """The next 32 random bits (the high half of :func:`next_u64`), for :func:`scale_below`."""
    return next_u64(rng) >> np.uint64(32)


@njit(cache=True)
def scale_below(bits32, n):
    """Map 32 random bits to a uniform int64 in ``[0, n)`` (multiply-shift).

    ``rand_below(rng, n) == scale_below(random_bits32(rng), n)``: a kernel can
    draw once and decide the range afterwards, with the same stream.
    """
    return np.int64((bits32 * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def rand_below(rng, n):
    """Uniform int64 in ``[0, n)`` for ``1 <= n < 2**32`` (multiply-shift)."""
    return scale_below(random_bits32(rng), n)


@njit(cache=True, inline="always")
def random_card(mask, rng):
    """A uniformly random card index of a non-empty ``mask``; -1 if empty."""
    n = popcount(mask)
    if n == 0:
        return np.int64(-1)
    return select_bit(mask, rand_below(rng, n))


@njit(cache=True)
def shuffle(values, n, rng):
    """Shuffle ``values[:n]`` (int64 array) in place, Fisher-Yates."""
    for i in range(n - 1, 0, -1):
        j = rand_below(rng, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp
