"""numba's NumPy support, loaded without scipy's linear algebra.

The first kernel a process compiles or loads from the cache makes numba
import its NumPy implementations (``numba.np.arraymath``), whose start-up
check for a BLAS imports ``scipy.linalg`` when scipy is installed: about a
quarter of a second, a fifth of a warm ``slagwerk bot`` start on the
project's two-core machine. The check only picks how ``np.correlate`` and
``np.convolve`` multiply floats inside kernels (a BLAS call or a loop);
``np.dot`` and ``np.linalg`` in kernels still find scipy when they are
compiled. So importing this module (``slagwerk.engine.bits`` does, before
any kernel exists) loads those implementations with ``scipy.linalg`` hidden
for the moment, unless something imported it already.
"""

from __future__ import annotations

import sys


def _load_numpy_support() -> None:
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # an import of it raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]


_load_numpy_support()
