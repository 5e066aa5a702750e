"""Agents: random, heuristic and search players; the registry; the bot protocol.

The names below load with their modules when first asked for, so that a light part of the
package (:mod:`.limits`, which the command line's help reads) loads without numpy and numba.
"""

import importlib

_WHERE = {"Agent": "base", "Decision": "base", "ParamSpec": "base", "AGENTS": "registry",
          "make": "registry", "parse_spec": "registry", "register": "registry"}

__all__ = ["AGENTS", "Agent", "Decision", "ParamSpec", "make", "parse_spec", "register"]


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
