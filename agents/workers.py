"""Bot worker processes: agents run in ``slagwerk bot`` subprocesses with a hard time limit.

A numba kernel cannot be interrupted inside a thread, so a process is the
only way to stop a request that overruns: :class:`WorkerPool` sends each
request to an idle worker, and a worker that does not answer by the
deadline is killed and replaced in the background. A crash inside an agent
costs one worker, never the caller. A worker loads a game's compiled code
when it is first asked about that game, with a ``warm`` request that the
time limit does not count (or at its start, for the server's default game).
``slagwerk serve`` answers HTTP requests through a pool; ``slagwerk bot
--time-limit-ms`` relays its standard input through a pool of one.
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

from ..engine import GAME_NAMES
from ..errors import SlagwerkError
from .protocol import NO_DEFAULTS, Defaults, Limits, encode, error_answer, request_id

STARTUP_TIMEOUT_S = 600.0
"""How long a new worker may take to start, or to load a game (a first run compiles it)."""


def slagwerk_command(*args: str) -> list[str]:
    """The command line that runs ``slagwerk ARGS`` in this Python, whatever the current folder
    holds: ``python -m`` puts the current folder first on the import path, where a folder named
    ``slagwerk`` (a checkout's, say) would be imported instead of the installed package. Python
    3.11's ``-P`` leaves it out; on 3.10 the command takes it off the path itself."""
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", "slagwerk", *args]
    return [sys.executable, "-c", "import runpy, sys; del sys.path[0]; "
            "runpy.run_module('slagwerk', run_name='__main__', alter_sys=True)", *args]


def bot_command(limits: Limits, defaults: Defaults = NO_DEFAULTS, warm_games=None) -> list[str]:
    """The command line of a worker: ``slagwerk bot --time-limit-ms 0`` (its
    parent keeps the time limit) with the server's limits, default agent and
    parameter sets, all as values (a worker never reads a parameter file).

    The worker warms up ``warm_games`` (``None``: the default game if there is
    one) before it reads requests; other games when first asked about them."""
    if warm_games is None and defaults.game:
        warm_games = [defaults.game]
    argv = [
        *slagwerk_command("bot", "--time-limit-ms", "0"),
        *(["--warm", *warm_games] if warm_games else []),
        "--max-request-bytes", str(limits.max_request_bytes),
        "--max-time-ms", str(limits.max_time_ms),
        "--max-iterations", str(limits.max_iterations),
        "--max-nodes", str(limits.max_nodes),
        "--max-worlds", str(limits.max_worlds),
    ]
    if defaults.game:
        argv += ["--game", defaults.game]
    if defaults.agent:
        argv += ["--agent", defaults.agent]
    if defaults.parameter_sets:
        argv += ["--parameter-sets-json", json.dumps(
            {name: [agent, dict(params)] for name, (agent, params) in defaults.parameter_sets.items()})]
    return argv


class WorkerStartError(SlagwerkError):
    """A worker process did not start (the command line reports it, no traceback)."""


class WorkerDied(RuntimeError):
    """A worker process ended or broke its pipe."""


class WorkerTimeout(RuntimeError):
    """A worker did not answer before the deadline."""


class BotWorker:
    """One ``slagwerk bot`` process, asked one request at a time over its pipes."""

    def __init__(self, argv: list[str]):
        # A session of its own: Ctrl-C in the terminal reaches the parent only, which stops the
        # workers itself (a worker interrupted while it imports or compiles would print a traceback).
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0,
                                     start_new_session=True)
        self._pending = b""
        self.warmed: set[str] = set()
        """Games this worker answered a ``warm`` request for."""
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

    def __init__(self, argv: list[str], size: int, time_limit_ms: int,
                 startup_timeout: float = STARTUP_TIMEOUT_S, default_game: str | None = None):
        if size < 1:
            raise ValueError(f"a worker pool needs at least one worker, not {size!r}")
        self.argv = list(argv)
        self.time_limit_ms = time_limit_ms
        self.startup_timeout = startup_timeout
        self.default_game = default_game
        self.idle: queue.Queue[BotWorker] = queue.Queue()
        self._closed = False
        self._all: set[BotWorker] = set()
        self._lock = threading.Lock()
        try:
            starting = [self._spawn() for _ in range(size)]
            for worker in starting:
                if not worker.ready(startup_timeout):
                    raise WorkerStartError(f"a bot worker did not start: {' '.join(self.argv)}")
                self.idle.put(worker)
        except BaseException:  # Ctrl-C while a worker loads or compiles ends it too, at once
            self.close()
            raise

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
            print("slagwerk: could not restart a bot worker", file=sys.stderr)

        threading.Thread(target=start, name="slagwerk-worker-start", daemon=True).start()

    def ask(self, request: dict, deadline: float | None = None,
            wait_s: float | None = None) -> tuple[int, dict]:
        """The HTTP status and answer for ``request``.

        By default the request must be answered by ``deadline``
        (``time.monotonic``; default: the time limit from now), waiting for a
        free worker included. With ``wait_s`` it may wait that long for a
        worker (a lone caller whose worker is being replaced), and the time
        limit counts from when one is free.
        """
        if deadline is None:
            deadline = time.monotonic() + self.time_limit_ms / 1000.0
        wait = max(0.0, deadline - time.monotonic()) if wait_s is None else wait_s
        rid = request_id(request)
        try:
            worker = self.idle.get(timeout=wait)
        except queue.Empty:
            within = "the time limit" if wait_s is None else f"{wait_s:g} s"
            return HTTPStatus.SERVICE_UNAVAILABLE, error_answer(
                rid, f"no bot worker became free within {within}; try again")
        if wait_s is not None:
            deadline = time.monotonic() + self.time_limit_ms / 1000.0
        kind = request.get("type")
        if kind == "warm":  # loading a game is not held to the time limit
            deadline = time.monotonic() + self.startup_timeout
        game = request.get("game", self.default_game) if kind == "act" else None
        if game in GAME_NAMES and game not in worker.warmed:
            try:  # loading (or compiling) a game's code is not the request's time
                warmed = worker.ask(encode({"id": 0, "type": "warm", "game": game}),
                                    time.monotonic() + self.startup_timeout)
            except (WorkerTimeout, WorkerDied, ValueError):
                self._replace(worker)
                return HTTPStatus.INTERNAL_SERVER_ERROR, error_answer(
                    rid, f"the bot worker stopped while loading {game}")
            if "error" not in warmed:
                worker.warmed.add(game)
            deadline = time.monotonic() + self.time_limit_ms / 1000.0
        try:
            answer = worker.ask(encode(request), deadline)
        except WorkerTimeout:
            self._replace(worker)
            return HTTPStatus.GATEWAY_TIMEOUT, error_answer(
                rid, f"the request ran out of time and was stopped (time limit {self.time_limit_ms} ms)")
        except (WorkerDied, ValueError):
            self._replace(worker)
            return HTTPStatus.INTERNAL_SERVER_ERROR, error_answer(
                rid, "the bot worker stopped while answering this request")
        self.idle.put(worker)
        if kind == "warm" and answer.get("warmed") in GAME_NAMES:
            worker.warmed.add(answer["warmed"])
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
