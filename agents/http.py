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

import contextlib
import json
import os
import queue
import selectors
import subprocess
import sys
import threading
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

DEFAULT_PORT = 8765
ACT_PATH = "/v1/act"
INFO_PATH = "/v1/info"
DRAIN_LIMIT_BYTES = 1 << 24
"""An oversized body up to this size is read and dropped before the 413 answer."""
STARTUP_TIMEOUT_S = 600.0
"""How long a new worker may take to start: the first start may compile every kernel."""


def bot_command(limits: Limits, defaults: Defaults = NO_DEFAULTS) -> list[str]:
    """The command line of a worker: ``slagwerk bot --warm`` with the server's limits."""
    argv = [
        sys.executable, "-m", "slagwerk", "bot", "--warm",
        "--max-request-bytes", str(limits.max_request_bytes),
        "--max-time-ms", str(limits.max_time_ms),
    ]
    if defaults.game:
        argv += ["--game", defaults.game]
    if defaults.agent:
        argv += ["--agent", defaults.agent]
    return argv


class WorkerDied(RuntimeError):
    """A worker process ended or broke its pipe."""


class WorkerTimeout(RuntimeError):
    """A worker did not answer before the deadline."""


class BotWorker:
    """One ``slagwerk bot`` process, asked one request at a time over its pipes."""

    def __init__(self, argv: list[str]):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._pending = b""
        os.set_blocking(self.proc.stdout.fileno(), False)

    def ask(self, line: str, deadline: float) -> dict:
        """Send one request line and return the parsed answer line.

        :raises WorkerTimeout: if no answer came before ``deadline`` (``time.monotonic``).
        :raises WorkerDied: if the process ended.
        """
        try:
            self.proc.stdin.write(line.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerDied("the bot worker stopped") from None
        return json.loads(self._read_line(deadline))

    def _read_line(self, deadline: float) -> bytes:
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._pending:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise WorkerTimeout
                if not selector.select(remaining):
                    continue
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise WorkerDied("the bot worker stopped")
                self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return line

    def ready(self, timeout: float) -> bool:
        """True once the worker answers a ``hello`` (it warms up first)."""
        try:
            answer = self.ask(encode({"id": 0, "type": "hello"}), time.monotonic() + timeout)
        except (WorkerDied, WorkerTimeout, ValueError):
            return False
        return answer.get("version") is not None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()


class WorkerPool:
    """A fixed number of workers; a worker that overran or died is replaced."""

    def __init__(self, argv: list[str], size: int, startup_timeout: float = STARTUP_TIMEOUT_S):
        if size < 1:
            raise ValueError(f"a worker pool needs at least one worker, not {size!r}")
        self.argv = list(argv)
        self.startup_timeout = startup_timeout
        self.idle: queue.Queue[BotWorker] = queue.Queue()
        self._closed = False
        self._all: set[BotWorker] = set()
        self._lock = threading.Lock()
        starting = [self._spawn() for _ in range(size)]
        for worker in starting:
            if not worker.ready(startup_timeout):
                self.close()
                raise RuntimeError(f"a bot worker did not start: {' '.join(self.argv)}")
            self.idle.put(worker)

    def _spawn(self) -> BotWorker:
        worker = BotWorker(self.argv)
        with self._lock:
            self._all.add(worker)
        return worker

    def _retire(self, worker: BotWorker) -> None:
        worker.kill()
        with self._lock:
            self._all.discard(worker)

    def _replace(self, worker: BotWorker) -> None:
        """Kill ``worker`` and start its successor in the background."""
        self._retire(worker)

        def start():
            for _attempt in range(3):
                if self._closed:
                    return
                fresh = self._spawn()
                if fresh.ready(self.startup_timeout) and not self._closed:
                    self.idle.put(fresh)
                    return
                self._retire(fresh)
                time.sleep(1.0)
            print("slagwerk serve: could not restart a bot worker", file=sys.stderr)

        threading.Thread(target=start, name="slagwerk-worker-start", daemon=True).start()

    def ask(self, request: dict, deadline: float) -> tuple[int, dict]:
        """The HTTP status and answer for ``request``, within ``deadline``."""
        rid = request_id(request)
        try:
            worker = self.idle.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return HTTPStatus.SERVICE_UNAVAILABLE, error_answer(
                rid, "no bot worker became free within the time limit; try again")
        try:
            answer = worker.ask(encode(request), deadline)
        except WorkerTimeout:
            self._replace(worker)
            return HTTPStatus.GATEWAY_TIMEOUT, error_answer(
                rid, "the request ran out of time and was stopped (see 'time_limit_ms' in /v1/info)")
        except (WorkerDied, ValueError):
            self._replace(worker)
            return HTTPStatus.INTERNAL_SERVER_ERROR, error_answer(
                rid, "the bot worker stopped while answering this request")
        self.idle.put(worker)
        if "error" not in answer:
            return HTTPStatus.OK, answer
        if str(answer["error"]).startswith("internal error"):
            return HTTPStatus.INTERNAL_SERVER_ERROR, answer
        return HTTPStatus.BAD_REQUEST, answer

    def close(self) -> None:
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            worker.kill()


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
        self.pool = WorkerPool(worker_argv or bot_command(self.limits, defaults), workers)
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
