"""What a bot server accepts from one request: its size and the work and memory it may ask for.

The standard library only: the command line shows these defaults in its help without loading the
agents (numpy, numba).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from ..errors import SpecError

DEFAULT_PORT = 8765
DEFAULT_MATCHES_PER_CLIENT = 4
"""Sessions of the web page one remote address may hold on a public server
(``--max-matches-per-client``, :class:`slagwerk.web.matches.MatchStore`)."""
HELLO_TIMEOUT_S = 600.0
"""How long a bot may take to answer ``hello`` when it starts (it may load or compile first);
``--bot-start-timeout`` changes it."""

NODE_BYTES = (7 + 1) * 8
"""Bytes of one search-tree node (its ``NODE_FIELDS`` int64 fields and its float64 value;
:mod:`slagwerk.search.tree`, checked by tests/test_protocol.py)."""
PRIOR_BYTES = 8
"""Bytes more a node takes in a search guided by a network (its float64 prior)."""


def _limit(default: int, low: int, high: int, doc: str):
    """A limit's one description: default, the range a server may set it to, and its meaning
    (the flags of ``slagwerk bot`` and ``serve`` and the ``hello`` answer's schema come from it)."""
    return field(default=default, metadata={"low": low, "high": high, "doc": doc})


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
    (NODE_BYTES + PRIOR_BYTES)`` bytes, a guided search's priors counted) and
    ``max_worlds`` the ``pimc`` worlds. A request over a cap is refused before
    any work starts.
    """

    max_request_bytes: int = _limit(1 << 20, 2, 1 << 30, "longest request accepted: a line (stdio) or a "
                                    "body (HTTP)")
    max_time_ms: int = _limit(60_000, 1, 604_800_000, "the largest time_ms budget a request may ask for")
    max_iterations: int = _limit(1_000_000, 1, 10**12, "most search iterations a request may ask for "
                                 "(pimc: worlds x iterations_per_world)")
    max_nodes: int = _limit(1 << 20, 2, 1 << 30, "largest search tree (node_cap) a request may ask for, "
                            f"{NODE_BYTES} bytes a node ({NODE_BYTES + PRIOR_BYTES} guided by a network)")
    max_worlds: int = _limit(10_000, 1, 10**7, "most pimc worlds a request may ask for")

    def describe(self) -> dict:
        return {**{limit.name: getattr(self, limit.name) for limit in fields(self)},
                "max_tree_bytes": self.max_nodes * (NODE_BYTES + PRIOR_BYTES)}  # the most: a guided tree

    def check(self, agent) -> None:
        """:class:`SpecError` naming the parameter, its value and the cap if ``agent``'s
        settings ask for more than these limits allow."""
        for what, amount, limit in agent.resource_use():
            cap = getattr(self, limit)  # a limit's name is checked where the parameter is declared
            if amount > cap:
                raise SpecError(f"{what}={_number(amount)} is more than this server allows "
                                f"({limit} is {_number(cap)})")


LIMIT_FIELDS = fields(Limits)
"""Every limit, with its default, range and meaning (``field.metadata``)."""
CAPS = tuple(limit.name for limit in LIMIT_FIELDS if limit.name != "max_request_bytes")
"""The limits an agent parameter may name as its ``cap``."""


def _number(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
