"""Kozel, the 4-card version (docs/rules.md §3): kernels and the Python game class.

``kernels`` holds the numba kernels, ``game`` the Python game class, ``pure``
the plain-Python reference used by ``slagwerk bench``. The package imports
nothing eagerly: the engine contract imports ``kernels`` while
``engine.game`` is still initialising.
"""
