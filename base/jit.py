"""numba set up for a fast start: two costs every process paid before its first kernel.

**NumPy support without scipy's linear algebra.** The first kernel a process
compiles or loads from the cache makes numba import its NumPy
implementations (``numba.np.arraymath``), whose start-up check for a BLAS
imports ``scipy.linalg`` when scipy is installed: about a quarter of a
second, a fifth of a warm ``slagwerk bot`` start on the project's two-core
machine. The check only picks how ``np.correlate`` and ``np.convolve``
multiply floats inside kernels (a BLAS call or a loop); ``np.dot`` and
``np.linalg`` in kernels still find scipy when they are compiled. So before
a cached kernel compiles (the cache lacks it) or loads numba's way (another
package's kernels always do), those implementations are loaded with
``scipy.linalg`` hidden for the moment, unless something imported it
already. A warm process, whose kernels all load the light way below, never
imports them at all (about 0.09 s).

**Cached kernels loaded without numba's compiler registries.** Before it
loads a kernel from its cache, numba refreshes its typing and lowering
registries: it imports and installs every implementation it has (typed
containers, polynomials, linear algebra, datetimes...), about 0.2 s of a warm
start, although loaded machine code needs none of them. It needs only the
runtime (NRT) and numba's C helpers, which exist once numba is imported.
So slagwerk's own kernels load after initialising the runtime alone; any
compilation still refreshes the registries first (numba's compiler does),
and a kernel that fails to load this way, or any other package's kernel,
loads numba's way.
"""

from __future__ import annotations

import os
import sys

from .kernel_cache import kernel_folders


def _load_numpy_support() -> None:
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # an import of it raises ImportError
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        del sys.modules["scipy.linalg"]


KERNEL_FOLDERS = tuple(os.path.join(str(folder), "") for folder in kernel_folders())
"""Source folders of the kernels loaded the light way, as imported (as a kernel's ``co_filename``
names its file): ``slagwerk/engine/`` in a plain install, the repository's ``engine/`` in an
editable one."""


def _load_cached_kernels_lightly() -> None:
    from numba.core import caching
    from numba.core.runtime import rtsys

    numba_load = caching.Cache.load_overload
    if getattr(numba_load, "light", False) or not hasattr(caching.Cache, "_load_overload"):
        return  # set up already, or a numba whose cache works otherwise: left as it is

    def load_overload(self, sig, target_context):
        code = getattr(getattr(self, "_py_func", None), "__code__", None)
        if code is None or not code.co_filename.startswith(KERNEL_FOLDERS):
            _load_numpy_support()  # numba's way imports it: without scipy.linalg, as for ours
            return numba_load(self, sig, target_context)
        try:
            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                loaded = self._load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - whatever failed, numba's own way may still load it
            loaded = None
        if loaded is None:  # numba's way loads it, or compiles it: its NumPy support comes first
            _load_numpy_support()
            loaded = numba_load(self, sig, target_context)
        return loaded

    load_overload.light = True
    load_overload.numba_load = numba_load  # numba's own way, for comparison in the tests
    caching.Cache.load_overload = load_overload


_load_cached_kernels_lightly()
