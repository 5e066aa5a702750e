"""The bot protocol over HTTP: ``POST /v1/act`` and ``GET /v1/info`` with JSON bodies.

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
never the server. A client that stalls while sending is dropped after
``socket_timeout`` seconds.

Status codes: 200 with ``{"id", "action"}``; 400 with ``{"id", "error"}`` for a
bad request; 404/405/411/413 for a wrong path, method, missing length or
oversized body; 500 if a worker died; 503 if no worker was free in time;
504 if the time limit ran out.
"""

from __future__ import annotations

import sys
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

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

DEFAULT_PORT = 8765
ACT_PATH = "/v1/act"
INFO_PATH = "/v1/info"
DRAIN_LIMIT_BYTES = 1 << 24
"""An oversized body up to this size is read and dropped before the 413 answer."""


class BotServer(ThreadingHTTPServer):
    """The HTTP bot server. ``port=0`` picks a free port (see :attr:`port`).

    ``serve_forever()`` serves until ``shutdown()``; :meth:`close` also stops
    the workers.
    """

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                 limits: Limits | None = None, time_limit_ms: int = 30_000, workers: int = 1,
                 defaults: Defaults = NO_DEFAULTS, worker_argv: list[str] | None = None,
                 socket_timeout: float = 10.0, log_requests: bool = False):
        if time_limit_ms < 1:
            raise ValueError(f"time_limit_ms must be positive, not {time_limit_ms!r}")
        # A time budget must leave room for the rest of the request under the limit.
        self.limits = limits or Limits(max_time_ms=max(1, time_limit_ms * 4 // 5))
        self.time_limit_ms = time_limit_ms
        self.socket_timeout = socket_timeout
        self.log_requests = log_requests
        self.pool = WorkerPool(worker_argv or bot_command(self.limits, defaults), workers, time_limit_ms)
        try:
            super().__init__((host, port), _Handler)
        except OSError:
            self.pool.close()
            raise

    @property
    def port(self) -> int:
        return self.server_address[1]

    def handle_error(self, request, client_address):
        # A client that hangs up mid-answer is routine; anything else is a bug worth a traceback.
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)

    def info(self) -> dict:
        return {**hello(self.limits), "time_limit_ms": self.time_limit_ms}

    def close(self) -> None:
        self.server_close()
        self.pool.close()


class _Handler(BaseHTTPRequestHandler):
    server: BotServer
    server_version = "slagwerk-bot"
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms ACK delay

    def setup(self):
        self.timeout = self.server.socket_timeout  # drop a client that stalls mid-request
        super().setup()

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        if self.server.log_requests:
            super().log_message(format, *args)

    def _send(self, status: int, answer: dict, close: bool = False) -> None:
        body = (encode(answer) + "\n").encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _path(self) -> str:
        return self.path.split("?", 1)[0]

    def do_GET(self):
        if self._path() == INFO_PATH:
            self._send(HTTPStatus.OK, self.server.info())
        elif self._path() == ACT_PATH:
            self._send(HTTPStatus.METHOD_NOT_ALLOWED, error_answer(None, f"use POST for {ACT_PATH}"))
        else:
            self._not_found()

    def do_POST(self):
        body = self._read_body()
        if body is None:
            return
        if self._path() == INFO_PATH:
            self._send(HTTPStatus.METHOD_NOT_ALLOWED, error_answer(None, f"use GET for {INFO_PATH}"))
            return
        if self._path() != ACT_PATH:
            self._not_found()
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
        status, answer = self.server.pool.ask(request, deadline)
        self._send(status, answer)

    def _read_body(self) -> bytes | None:
        limit = self.server.limits.max_request_bytes
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self._send(HTTPStatus.LENGTH_REQUIRED,
                       error_answer(None, "send the body with a Content-Length, not chunked"), close=True)
            return None
        length_text = self.headers.get("Content-Length")
        if length_text is None:
            self._send(HTTPStatus.LENGTH_REQUIRED,
                       error_answer(None, "a request needs a Content-Length header"), close=True)
            return None
        try:
            length = int(length_text)
            if length < 0:
                raise ValueError
        except ValueError:
            self._send(HTTPStatus.BAD_REQUEST,
                       error_answer(None, f"bad Content-Length {length_text[:40]!r}"), close=True)
            return None
        if length > limit:
            self._drain(min(length, DRAIN_LIMIT_BYTES))
            self._send(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                       error_answer(None, f"the request body has {length} bytes; the limit is {limit}"),
                       close=True)
            return None
        body = self.rfile.read(length)
        if len(body) < length:  # the client hung up or stalled (socket timeout)
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

    def _not_found(self):
        self._send(HTTPStatus.NOT_FOUND, error_answer(
            None, f"no such path {self._path()[:80]!r} (paths: GET {INFO_PATH}, POST {ACT_PATH})"))
