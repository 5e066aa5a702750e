"""What a bot server accepts from one request: its size and the work and memory it may ask for.

The standard library only: the command line shows these defaults in its help without loading the
agents (numpy, numba).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import SpecError

DEFAULT_PORT = 8765

NODE_BYTES = (7 + 1) * 8
"""Bytes of one search-tree node (its ``NODE_FIELDS`` int64 fields and its float64 value;
:mod:`slagwerk.search.tree`, checked by tests/test_protocol.py)."""


@dataclass(frozen=True)
class Limits:
    """What a server accepts: the longest request and the most work and memory
    one ``act`` request may ask for.

    ``max_request_bytes`` bounds a request line (stdio) or body (HTTP). The
    others cap the agent parameters that size a decision, whether they come
    from the request's budgets, the agent spec or a parameter set (each
    agent parameter names its cap, :attr:`ParamSpec.cap`): ``max_time_ms``
    the ``time_ms`` budget, ``max_iterations`` the search iterations (for
    ``pimc`` also ``worlds * iterations_per_world``), ``max_nodes`` the tree
    size ``node_cap`` (so a tree never holds more than ``max_nodes *
    NODE_BYTES`` bytes) and ``max_worlds`` the ``pimc`` worlds. A request over
    a cap is refused before any work starts.
    """

    max_request_bytes: int = 1 << 20
    max_time_ms: int = 60_000
    max_iterations: int = 1_000_000
    max_nodes: int = 1 << 20
    max_worlds: int = 10_000

    def describe(self) -> dict:
        return {"max_request_bytes": self.max_request_bytes, "max_time_ms": self.max_time_ms,
                "max_iterations": self.max_iterations, "max_nodes": self.max_nodes,
                "max_tree_bytes": self.max_nodes * NODE_BYTES, "max_worlds": self.max_worlds}

    def check(self, agent) -> None:
        """:class:`SpecError` naming the parameter, its value and the cap if ``agent``'s
        settings ask for more than these limits allow."""
        for what, amount, limit in agent.resource_use():
            cap = getattr(self, limit)  # a limit's name is checked where the parameter is declared
            if amount > cap:
                raise SpecError(f"{what}={_number(amount)} is more than this server allows "
                                f"({limit} is {_number(cap)})")


CAPS = tuple(name for name in Limits.__dataclass_fields__ if name != "max_request_bytes")
"""The limits an agent parameter may name as its ``cap``."""


def _number(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
