"""Koetsieren (RULES.md §2): kernels and the Python game class.

:class:`Koetsieren` is loaded on first use: the engine contract imports
``koetsieren.kernels`` while ``engine.game`` is still initialising, so this
package must not import ``.game`` (which needs ``engine.game``) eagerly.
"""

from __future__ import annotations

__all__ = ["Koetsieren"]


def __getattr__(name: str):
    if name == "Koetsieren":
        from .game import Koetsieren

        return Koetsieren
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
