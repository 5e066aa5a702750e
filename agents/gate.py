"""Fair shares of a server: connections and requests in flight, counted per client.

A :class:`ClientGate` counts the connections a server holds, in all and per
client, and the bot requests each client has in flight. A client is a remote
address on a public server; on a loopback server every client is the machine's
own and only the total is counted. Over the total a new connection is refused
(503); a client over its share is refused (429), so one client can take its
share and never someone else's.

>>> gate = ClientGate(max_connections=3, connections_per_client=2, requests_per_client=1)
>>> gate.open("10.0.0.1"), gate.open("10.0.0.1"), gate.open("10.0.0.1")[0]
(None, None, 429)
>>> gate.open("10.0.0.2"), gate.open("10.0.0.3")[0]
(None, 503)
"""

from __future__ import annotations

import threading
from collections import Counter
from http import HTTPStatus

DEFAULT_MAX_CONNECTIONS = 256
"""Connections a server holds at once (each is a thread)."""
DEFAULT_CONNECTIONS_PER_CLIENT = 16
"""Connections one remote address holds at once on a public server."""
DEFAULT_REQUESTS_PER_CLIENT = 2
"""Bot requests one remote address has in flight at once on a public server."""
RETRY_AFTER_S = 1


class ClientGate:
    """Counts of connections and requests in flight (see the module doc); thread-safe.

    ``connections_per_client`` and ``requests_per_client`` of ``None`` count no client apart.
    """

    def __init__(self, max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 connections_per_client: int | None = None, requests_per_client: int | None = None):
        self.max_connections = max_connections
        self.connections_per_client = connections_per_client
        self.requests_per_client = requests_per_client
        self._lock = threading.Lock()
        self._connections = Counter()
        self._requests = Counter()
        self._total = 0

    def open(self, client: str) -> tuple[int, str] | None:
        """Count a new connection of ``client``; or, refused, ``(status, reason)``."""
        with self._lock:
            share = self.connections_per_client
            if share is not None and self._connections[client] >= share:
                return (int(HTTPStatus.TOO_MANY_REQUESTS),
                        f"this address already holds {share} connections to this server (the most one may)")
            if self._total >= self.max_connections:
                return (int(HTTPStatus.SERVICE_UNAVAILABLE),
                        f"this server already holds {self.max_connections} connections; try again shortly")
            self._connections[client] += 1
            self._total += 1
            return None

    def close(self, client: str) -> None:
        """A connection of ``client`` counted by :meth:`open` has ended."""
        with self._lock:
            self._total -= 1
            self._connections[client] -= 1
            if self._connections[client] <= 0:
                del self._connections[client]

    def start_request(self, client: str) -> str | None:
        """Count a bot request of ``client`` in flight; or, refused, the reason (429)."""
        with self._lock:
            share = self.requests_per_client
            if share is not None and self._requests[client] >= share:
                return f"this address already has {share} requests in flight here (the most one may)"
            self._requests[client] += 1
            return None

    def end_request(self, client: str) -> None:
        with self._lock:
            self._requests[client] -= 1
            if self._requests[client] <= 0:
                del self._requests[client]

    @property
    def connections(self) -> int:
        with self._lock:
            return self._total
