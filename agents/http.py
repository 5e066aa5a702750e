"""The bot protocol over HTTP: ``POST /v1/act`` and ``GET /v1/info`` with JSON bodies
(and ``GET /v1/openapi.json``, the contract: :mod:`.openapi`).

``slagwerk serve`` runs :class:`BotServer`. The requests and answers are
those of :mod:`slagwerk.agents.protocol`: the body of ``POST /v1/act`` is an
``act`` request (``type`` may be left out) and ``GET /v1/info`` answers like
``hello``. The server binds to 127.0.0.1 unless told otherwise.

Limits. A body larger than ``max_request_bytes`` is refused (413) without
being read. Every ``act`` request must finish within ``time_limit_ms``: the
agents run in a pool of ``slagwerk bot`` worker processes, and a worker that
overruns is killed and replaced, and the client gets a 504 error. A numba
kernel cannot be interrupted inside a thread, so a process is the only way
to keep that promise; it also means a crash inside an agent costs one worker,
never the server.

Status codes: 200 with ``{"id", "action"}``; 400 with ``{"id", "error"}`` for a
bad request or a ``Content-Length`` that is not plain digits; 403 for a
``Host`` that is not loopback (below); 404/405/411/413/415 for a wrong path,
a method the path does not take (with an ``Allow`` header), a missing
length, an oversized body or a body that is not ``application/json``; 500 if
a worker died; 503 if no worker was free in time, or the server already holds
``max_connections`` connections; 429 (with ``Retry-After``) if a client of a
public server is over its share of connections or requests in flight
(:mod:`.gate`); 504 if the time limit ran out. Every answer, errors of HTTP
itself included, has a JSON body.

Exposure. The server binds to loopback unless it is told ``public=True``
(``slagwerk serve --public``): it has no authentication, so anyone who can
reach it can use the machine's CPU. Two checks keep web pages of other sites
out of a loopback server: a request's ``Host`` must name a loopback address
(``127.0.0.1``, ``[::1]``, ``localhost``), so a page whose own name was made to
resolve to 127.0.0.1 (DNS rebinding) is refused, and a ``POST`` must say
``Content-Type: application/json``, which a page of another site cannot send
without this server's consent. A client must send each whole request (line,
headers and body) within ``socket_timeout`` seconds, however slowly its bytes
trickle in, and the listen backlog takes a burst of clients.
"""

from __future__ import annotations

import io
import ipaddress
import math
import socket
import sys
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ..errors import OptionError, SlagwerkError
from . import openapi
from .gate import (
    DEFAULT_CONNECTIONS_PER_CLIENT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_REQUESTS_PER_CLIENT,
    ClientGate,
)
from .gate import RETRY_AFTER_S as GATE_RETRY_AFTER_S
from .limits import DEFAULT_PORT
from .openapi import OPENAPI_PATH
from .protocol import (
    NO_DEFAULTS,
    Defaults,
    Limits,
    ProtocolError,
    encode,
    error_answer,
    hello,
    json_type,
    parse_request,
    request_id,
    short_repr,
)
from .workers import WorkerPool, bot_command

ACT_PATH = "/v1/act"
INFO_PATH = "/v1/info"
DRAIN_LIMIT_BYTES = 1 << 24
"""An oversized body up to this size is read and dropped before the 413 answer."""
LISTEN_BACKLOG = 512
"""Connections the kernel queues before the server accepts them (a burst of clients)."""
ALLOWED_METHODS = {INFO_PATH: "GET", ACT_PATH: "POST", OPENAPI_PATH: "GET"}
"""The one method each path takes; any other is answered 405 with an ``Allow`` header."""


class BindError(SlagwerkError):
    """The server was asked to listen on an address that is not loopback without ``public``."""


def is_loopback(host: str) -> bool:
    """True if every address ``host`` names is a loopback address (``127.0.0.1``,
    ``localhost``, ``::1``); an empty host (every interface) or an unknown name is not."""
    if not host:
        return False
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    return bool(infos) and all(
        ipaddress.ip_address(str(info[4][0]).split("%")[0]).is_loopback for info in infos)


def loopback_host_header(value: str) -> bool:
    """True if a ``Host`` header names a loopback address by itself: an IP literal
    (``127.0.0.1:8765``, ``[::1]``) or ``localhost`` (and names under it, which
    browsers keep on loopback). Other names are never resolved: a name that
    resolves to 127.0.0.1 now is what a DNS rebinding attack uses.

    >>> [loopback_host_header(h) for h in ("127.0.0.1:8765", "[::1]:80", "LocalHost", "evil.example")]
    [True, True, True, False]
    """
    host = value.strip()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    host = host.rstrip(".").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def json_content_type(headers) -> bool:
    """True if ``headers`` say the body is ``application/json``."""
    return headers.get("Content-Type", "").split(";")[0].strip().lower() == "application/json"


class BotServer(ThreadingHTTPServer):
    """The HTTP bot server. ``port=0`` picks a free port (see :attr:`port`).

    ``serve_forever()`` serves until ``shutdown()``; :meth:`close` also stops
    the workers.
    """

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG
    handler_class: type | None = None
    """The request handler; ``None`` is the bot API's own (a subclass may serve more paths)."""

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                 limits: Limits | None = None, time_limit_ms: int = 30_000, workers: int = 1,
                 defaults: Defaults = NO_DEFAULTS, worker_argv: list[str] | None = None,
                 socket_timeout: float = 10.0, log_requests: bool = False, public: bool = False,
                 warm_games=None, max_connections: int = DEFAULT_MAX_CONNECTIONS,
                 connections_per_client: int = DEFAULT_CONNECTIONS_PER_CLIENT,
                 requests_per_client: int = DEFAULT_REQUESTS_PER_CLIENT):
        if time_limit_ms < 1:
            raise ValueError(f"time_limit_ms must be positive, not {time_limit_ms!r}")
        if not public and not is_loopback(host):
            raise BindError(f"{host!r} is not a loopback address: a server there has no "
                            f"authentication and serves anyone who can reach it (public=True allows it)")
        # A time budget must leave room for the rest of the request under the limit.
        self.limits = limits or Limits(max_time_ms=max(1, time_limit_ms * 4 // 5))
        self.time_limit_ms = time_limit_ms
        self.socket_timeout = socket_timeout
        self.log_requests = log_requests
        self.public = public
        self.defaults = defaults
        # Shares per client on a public server; a loopback server's clients are all this machine.
        self.gate = ClientGate(max_connections, connections_per_client if public else None,
                               requests_per_client if public else None)
        self.pool = WorkerPool(worker_argv or bot_command(self.limits, defaults, warm_games), workers,
                               time_limit_ms, default_game=defaults.game)
        try:
            super().__init__((host, port), self.handler_class or BotHandler)
        except OSError as err:
            self.pool.close()
            raise OptionError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None

    @property
    def port(self) -> int:
        return self.server_address[1]

    def process_request(self, request, client_address):
        refused = self.gate.open(client_address[0])
        if refused is not None:  # answered here, before a thread is spent on it
            _refuse(request, *refused)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.gate.close(client_address[0])
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.gate.close(client_address[0])

    def handle_error(self, request, client_address):
        # A client that hangs up mid-answer is routine; anything else is a bug worth a traceback.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    def info(self) -> dict:
        return {**hello(self.limits, self.defaults), "time_limit_ms": self.time_limit_ms}

    def close(self) -> None:
        self.server_close()
        self.pool.close()

    def serve_until_interrupted(self) -> int:
        """Serve until Ctrl-C (or a SIGTERM the caller turns into it), then stop the workers."""
        try:
            self.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            self.close()
        return 0


def _refuse(sock: socket.socket, status: int, reason: str) -> None:
    """Answer a connection that is not served with ``status`` and ``reason`` (JSON), without
    waiting: what the socket's buffer does not take at once is dropped with it."""
    body = (encode(error_answer(None, reason)) + "\n").encode("utf-8")
    head = (f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nRetry-After: {GATE_RETRY_AFTER_S}\r\nConnection: close\r\n\r\n")
    try:
        sock.setblocking(False)
        sock.send(head.encode("ascii") + body)
    except OSError:
        pass


class _DeadlineReader(io.RawIOBase):
    """A connection's incoming bytes under one deadline per request: every read
    waits at most until ``deadline`` (``time.monotonic``), so a client that
    trickles its request byte by byte is dropped as surely as one that stalls."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.deadline = math.inf

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the client did not send its whole request in time")
        self.sock.settimeout(remaining)
        return self.sock.recv_into(buffer)


class BotHandler(BaseHTTPRequestHandler):
    """The bot API's requests (a subclass may serve more paths before these)."""

    server: BotServer
    server_version = "slagwerk-bot"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms ACK delay

    def setup(self):
        self.timeout = self.server.socket_timeout
        super().setup()
        # Reads go through a deadline for the whole request (handle_one_request sets it).
        self.rfile.close()
        self._reader = _DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self._reader)

    def parse_request(self) -> bool:
        """The request line and headers, then the ``Host`` check of a loopback server
        (module doc): a request naming another host gets 403 and is not served."""
        if not super().parse_request():
            return False
        if self.server.public:
            return True
        hosts = self.headers.get_all("Host") or []
        if len(hosts) > 1 or (hosts and not loopback_host_header(hosts[0])):
            shown = ", ".join(hosts)[:60]
            self._send(HTTPStatus.FORBIDDEN, error_answer(
                None, f"Host {shown!r} is not a loopback address: this server answers requests "
                      f"for 127.0.0.1, [::1] or localhost only"), close=True)
            return False
        return True

    def handle_one_request(self):
        # The request line, headers and body must all arrive within the socket timeout
        # (an idle keep-alive connection is dropped after it too); a TimeoutError from
        # a read ends the connection (BaseHTTPRequestHandler catches it).
        self._reader.deadline = time.monotonic() + self.server.socket_timeout
        super().handle_one_request()

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        if self.server.log_requests:
            super().log_message(format, *args)

    def _send(self, status: int, answer: dict, close: bool = False, headers: dict | None = None) -> None:
        body = (encode(answer) + "\n").encode("utf-8")
        self.connection.settimeout(self.server.socket_timeout)  # not what was left of the deadline
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code, message=None, explain=None):
        """HTTP's own errors (a bad request line, an unknown method, headers too long)
        as JSON like every other answer; the connection is then closed."""
        try:
            short = HTTPStatus(code).phrase
        except ValueError:
            short = "error"
        self._send(code, error_answer(None, message or short), close=True)

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def _method_not_allowed(self, close: bool = True) -> None:
        path = self._path()
        allow = ALLOWED_METHODS.get(path)
        if allow is None:
            self._not_found(close=close)
            return
        self._send(HTTPStatus.METHOD_NOT_ALLOWED,
                   error_answer(None, f"use {allow} for {path} (not {self.command})"),
                   close=close, headers={"Allow": allow})

    # Methods the server does not take: 405 naming the path's method (404 for an unknown
    # path). The connection closes, since the request may carry a body that is not read.
    do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = do_TRACE = do_CONNECT = _method_not_allowed

    def do_GET(self):
        # A GET carries no body this server reads: if it says it has one, close afterwards.
        close = bool(self.headers.get("Transfer-Encoding")) or self.headers.get(
            "Content-Length", "0").strip() != "0"
        if self._path() == INFO_PATH:
            self._send(HTTPStatus.OK, self.server.info(), close=close)
        elif self._path() == OPENAPI_PATH:
            self._send(HTTPStatus.OK, openapi.document(), close=close)
        else:
            self._method_not_allowed(close=close)

    def do_POST(self):
        body = self._read_body()
        if body is None:
            return
        if self._path() != ACT_PATH:
            self._method_not_allowed(close=False)
            return
        if not json_content_type(self.headers):
            self._send(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, error_answer(
                None, f"{ACT_PATH} takes Content-Type: application/json"))
            return
        deadline = time.monotonic() + self.server.time_limit_ms / 1000.0
        try:
            request = parse_request(body)
        except ProtocolError as err:
            self._send(HTTPStatus.BAD_REQUEST, error_answer(None, str(err)))
            return
        if isinstance(request, dict):
            request.setdefault("type", "act")
            if request["type"] != "act":
                kind = short_repr(request["type"])
                self._send(HTTPStatus.BAD_REQUEST, error_answer(
                    request_id(request), f"{ACT_PATH} takes 'act' requests, not type {kind}"))
                return
        else:
            self._send(HTTPStatus.BAD_REQUEST, error_answer(
                None, f"a request is a JSON object, not {json_type(request)}"))
            return
        client = self.client_address[0]
        busy = self.server.gate.start_request(client)
        if busy is not None:
            self._send(HTTPStatus.TOO_MANY_REQUESTS, error_answer(request_id(request), busy),
                       headers={"Retry-After": str(GATE_RETRY_AFTER_S)})
            return
        try:
            status, answer = self.server.pool.ask(request, deadline)
        finally:
            self.server.gate.end_request(client)
        self._send(status, answer)

    def _read_body(self) -> bytes | None:
        limit = self.server.limits.max_request_bytes
        if self.headers.get("Transfer-Encoding") is not None:
            self._send(HTTPStatus.LENGTH_REQUIRED, error_answer(
                None, "send the body with a Content-Length, not a Transfer-Encoding"), close=True)
            return None
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            self._send(HTTPStatus.LENGTH_REQUIRED,
                       error_answer(None, "a request needs a Content-Length header"), close=True)
            return None
        length_text = lengths[0].strip(" \t")
        # Strict: ASCII digits only (int() would take '1_0', ' +3' or Unicode digits), one header.
        if len(lengths) > 1 or not (length_text.isascii() and length_text.isdigit()) \
                or len(length_text) > 18:
            shown = ", ".join(lengths)[:40]
            self._send(HTTPStatus.BAD_REQUEST,
                       error_answer(None, f"bad Content-Length {shown!r}: one count of bytes in ASCII "
                                          f"digits"), close=True)
            return None
        length = int(length_text)
        if length > limit:
            self._drain(min(length, DRAIN_LIMIT_BYTES))
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                       error_answer(None, f"the request body has {length} bytes; the limit is {limit}"),
                       close=True)
            return None
        body = self.rfile.read(length)
        if len(body) < length:  # the client hung up
            self.close_connection = True
            return None
        return body

    def _drain(self, length: int) -> None:
        """Read and drop ``length`` bytes, so that a client still sending its body
        gets the error answer instead of a reset connection."""
        try:
            while length > 0:
                chunk = self.rfile.read(min(length, 1 << 16))
                if not chunk:
                    return
                length -= len(chunk)
        except OSError:
            return

    def _not_found(self, close: bool = False):
        self._send(HTTPStatus.NOT_FOUND, error_answer(
            None, f"no such path {self._path()[:80]!r} (paths: GET {INFO_PATH}, POST {ACT_PATH})"),
            close=close)
