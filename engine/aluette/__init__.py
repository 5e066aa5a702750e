"""Aluette (la Vache), the five-deal partnership match (RULES.md §4): kernels and
the Python game class.

:class:`Aluette` is loaded on first use: the engine contract imports
``aluette.kernels`` while ``engine.game`` is still initialising, so this
package must not import ``.game`` (which needs ``engine.game``) eagerly.
"""

from __future__ import annotations

__all__ = ["Aluette"]


def __getattr__(name: str):
    if name == "Aluette":
        from .game import Aluette

        return Aluette
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
