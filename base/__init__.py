"""slagwerk: AI opponents for hidden-information trick-taking card games."""

__version__ = "0.1.0"

from .kernel_cache import configure as _configure_kernel_cache  # noqa: E402

# Before any kernel module is imported: numba reads its cache folder when a
# kernel is defined (see slagwerk.kernel_cache).
_configure_kernel_cache()
