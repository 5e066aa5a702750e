"""A bounded soak of ``slagwerk serve`` on loopback: 50 parallel clients, a few slow ones and a
misbehaving one (hostile bodies back to back, idle connections left open).

The server runs as a subprocess on an ephemeral port with two workers. Every
batch starts 50 clients at once (a burst on the listen backlog), each sending
valid ``act`` requests with cheap agents (random, heuristic, small ISMCTS and
PIMC) over keep-alive or fresh connections, while slow clients trickle their
bytes. Every valid request must be answered 200 with a legal action, every
slow client must be dropped, and the resident memory of the server and its
workers (``VmRSS``) must not keep growing after the warm-up batch. The figures
are printed (``pytest -s``) for docs/reliability.md ("Soak test").
"""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from test_protocol import positions

from slagwerk.engine import GAME_NAMES

CLIENTS = 50
REQUESTS_PER_CLIENT = 4
BATCHES = 5  # the first is the warm-up
SLOW_CLIENTS = 3
CLIENT_TIMEOUT_S = 2.0
STARTUP_S = 900.0  # a cold kernel cache compiles every kernel first
GIVE_UP_S = 120.0  # guards against a hang only
AGENTS = ["random", "heuristic", "ismcts:iterations=30", "pimc:worlds=2,iterations_per_world=5"]
RSS_GROWTH_LIMIT = 1.25  # generous: after the warm-up, memory may wobble but not keep growing
RSS_SLACK_KB = 40 * 1024


def _requests() -> list[tuple[bytes, list[str]]]:
    """Valid request bodies with the legal actions of their seat."""
    out = []
    for game_name in GAME_NAMES:
        for k, state in enumerate(positions(game_name, 4, seed=31)):
            for agent in AGENTS:
                request = {"id": f"{game_name}-{k}-{agent}", "game": game_name, "agent": agent,
                           "view": state.view(state.to_move), "seed": k}
                out.append((json.dumps(request).encode(), state.legal_texts(state.to_move)))
    return out


def _rss_kb(pid: int) -> int:
    """VmRSS of ``pid`` and its child processes (the workers), in KiB."""
    total = 0
    pids = [pid]
    for children in Path(f"/proc/{pid}/task").glob("*/children"):
        pids += [int(p) for p in children.read_text().split()]
    for p in pids:
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:  # a worker being replaced
            continue
        match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        total += int(match.group(1)) if match else 0
    return total


def _client(port: int, work: list[tuple[bytes, list[str]]], keep_alive: bool, start: threading.Barrier):
    start.wait(timeout=GIVE_UP_S)
    bad = []
    conn = None
    for body, legal in work:
        if conn is None or not keep_alive:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=GIVE_UP_S)
        conn.request("POST", "/v1/act", body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        answer = json.loads(response.read())
        if response.status != 200 or answer.get("action") not in legal:
            bad.append((response.status, answer))
        if not keep_alive:
            conn.close()
    if conn is not None:
        conn.close()
    return len(work), bad


def _slow_client(port: int, head: bytes, drip: bytes) -> float:
    """Trickle a request that never ends; the seconds until the server hung up."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=GIVE_UP_S) as sock:
        sock.sendall(head)
        while time.monotonic() - started < GIVE_UP_S:
            try:
                sock.sendall(drip)
                sock.settimeout(0.25)
                if sock.recv(4096) == b"":
                    break
            except TimeoutError:
                continue
            except OSError:
                break
    return time.monotonic() - started


HOSTILE_BODIES = [b'{"type": "act", "id": ' + b"9" * 100_000 + b"}",
                  b'{"type": "act", "view": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"]
"""A misbehaving client's bodies: 100,000 digits, and nesting 50,000 deep (issue #59)."""


def _hostile_client(port: int, stop: threading.Event) -> int:
    """Send hostile bodies back to back, and leave a connection open now and then, until
    ``stop``; the number of requests sent."""
    sent = 0
    left_open = []
    while not stop.is_set():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=GIVE_UP_S)
        try:
            conn.request("POST", "/v1/act", body=HOSTILE_BODIES[sent % 2],
                         headers={"Content-Type": "application/json"})
            conn.getresponse().read()
        except OSError:
            pass
        sent += 1
        if sent % 10 == 0 and len(left_open) < 20:  # an idle connection it never uses
            left_open.append(socket.create_connection(("127.0.0.1", port), timeout=GIVE_UP_S))
        conn.close()
    for sock in left_open:
        sock.close()
    return sent


@pytest.fixture(scope="module")
def served():
    server = subprocess.Popen(
        [sys.executable, "-m", "slagwerk", "serve", "--port", "0", "--workers", "2",
         "--client-timeout", str(CLIENT_TIMEOUT_S),
         # the limit also bounds the wait for a free worker, and the first batch queues
         # behind both workers loading every game: this test is not about time limits
         "--time-limit-ms", "300000"],
        stderr=subprocess.PIPE, text=True)
    try:
        started = time.monotonic()
        line = ""
        while "serving" not in line:
            line = server.stderr.readline()
            assert line, "slagwerk serve ended before it was serving"
            assert time.monotonic() - started < STARTUP_S
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/v1/", line).group(1))
        # keep reading stderr so that the server never blocks on a full pipe
        threading.Thread(target=server.stderr.read, daemon=True).start()
        yield server, port
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


def test_soak_every_valid_request_is_answered_and_memory_stays_flat(served):
    server, port = served
    pool = _requests()
    figures = {"clients": CLIENTS, "slow_clients_per_batch": SLOW_CLIENTS, "batches": BATCHES,
               "rss_kb": [_rss_kb(server.pid)]}
    answered = 0
    soak_started = time.monotonic()
    slow_took = []
    hostile_sent = 0
    with ThreadPoolExecutor(CLIENTS + SLOW_CLIENTS + 1) as executor:
        for batch in range(BATCHES):
            start = threading.Barrier(CLIENTS)
            stop = threading.Event()
            hostile = executor.submit(_hostile_client, port, stop)
            slow = [executor.submit(_slow_client, port, b"POST /v1/act HTTP/1.1\r\nX-Slow: ", b"a"),
                    executor.submit(_slow_client, port,
                                    b"POST /v1/act HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", b" "),
                    executor.submit(_slow_client, port, b"GET /v1/info HTTP/1.1\r\n", b"x")][:SLOW_CLIENTS]
            clients = []
            for c in range(CLIENTS):
                offset = (batch * CLIENTS + c) * REQUESTS_PER_CLIENT
                work = [pool[(offset + i) % len(pool)] for i in range(REQUESTS_PER_CLIENT)]
                clients.append(executor.submit(_client, port, work, c % 2 == 0, start))
            for future in clients:
                count, bad = future.result(timeout=GIVE_UP_S * 2)
                assert not bad, bad[:3]
                answered += count
            stop.set()
            hostile_sent += hostile.result(timeout=GIVE_UP_S * 2)
            slow_took += [future.result(timeout=GIVE_UP_S * 2) for future in slow]
            assert server.poll() is None, "the server stopped"
            figures["rss_kb"].append(_rss_kb(server.pid))
    figures.update(requests_answered=answered, seconds=round(time.monotonic() - soak_started, 1),
                   slow_client_dropped_after_s=round(max(slow_took), 1), hostile_requests=hostile_sent)
    print("\nsoak figures:", json.dumps(figures))
    assert answered == CLIENTS * REQUESTS_PER_CLIENT * BATCHES
    assert all(took < GIVE_UP_S for took in slow_took), slow_took  # every slow client was dropped
    after_warm_up = figures["rss_kb"][1]
    for later in figures["rss_kb"][2:]:
        assert later <= after_warm_up * RSS_GROWTH_LIMIT + RSS_SLACK_KB, figures["rss_kb"]
