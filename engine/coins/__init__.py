"""Coins (Mark Steere, 2022): kernels and the Python game class."""

from .game import Coins

__all__ = ["Coins"]
