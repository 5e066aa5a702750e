"""Kozel, the 4-card version (RULES.md §3): kernels and the Python game class.

:class:`Kozel` is loaded on first use: the engine contract imports
``kozel.kernels`` while ``engine.game`` is still initialising, so this
package must not import ``.game`` (which needs ``engine.game``) eagerly.
"""

from __future__ import annotations

__all__ = ["Kozel"]


def __getattr__(name: str):
    if name == "Kozel":
        from .game import Kozel

        return Kozel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
