"""``slagwerk serve``: the bot protocol over HTTP, its limits, its recovery, and a fuzz test."""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_protocol_fuzz import BASE_REQUESTS, expected_id, request_lines

from slagwerk.agents.http import BotServer
from slagwerk.agents.protocol import Limits, parse_request
from slagwerk.agents.workers import WorkerPool, WorkerStartError
from slagwerk.engine import SlagwerkError, make_game

TIME_LIMIT_MS = 3000
# Fuzzed time budgets stay short; the iteration cap lets one request overrun the time limit.
LIMITS = Limits(max_request_bytes=64 * 1024, max_time_ms=300, max_iterations=10**9)
RECOVERY_S = 300.0  # a replacement worker may have to load every kernel on a busy machine


@contextlib.contextmanager
def served(**settings):
    """A :class:`BotServer` on a free loopback port with ``settings``, serving in a thread."""
    bot_server = BotServer("127.0.0.1", 0, **settings)
    thread = threading.Thread(target=bot_server.serve_forever, daemon=True)
    thread.start()
    try:
        yield bot_server
    finally:
        bot_server.shutdown()
        bot_server.close()
        thread.join(timeout=30)


@pytest.fixture(scope="module")
def server():
    with served(limits=LIMITS, time_limit_ms=TIME_LIMIT_MS, workers=1, socket_timeout=2.0) as bot_server:
        yield bot_server


def connect(server) -> http.client.HTTPConnection:
    return http.client.HTTPConnection("127.0.0.1", server.port, timeout=RECOVERY_S)


JSON = {"Content-Type": "application/json"}


def call(conn, method: str, path: str, body: bytes | None = None, headers=None):
    """One request (a POST says it carries JSON unless ``headers`` say otherwise): status, answer."""
    if headers is None:
        headers = JSON if method == "POST" else {}
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    return response.status, json.loads(data)


def good_request(rid=1) -> dict:
    return {**BASE_REQUESTS[0], "id": rid}


def legal_for(request: dict) -> list[str]:
    view = request["view"]
    return make_game(view["game"]).state_from_view(view).legal_texts(view["seat"])


def test_info_and_act(server):
    conn = connect(server)
    status, info = call(conn, "GET", "/v1/info")
    assert status == 200 and info["version"] == 1 and info["time_limit_ms"] == TIME_LIMIT_MS
    assert info["limits"] == {**Limits().describe(), "max_request_bytes": 64 * 1024, "max_time_ms": 300,
                              "max_iterations": 10**9}
    for request in BASE_REQUESTS:  # every game, one keep-alive connection
        status, answer = call(conn, "POST", "/v1/act", json.dumps(request).encode())
        assert status == 200 and answer["id"] == request["id"]
        assert answer["action"] in legal_for(request)
    request = {k: v for k, v in good_request(9).items() if k != "type"}  # 'type' may be left out
    request.update(agent="ismcts", iterations=20, stats=True)
    status, answer = call(conn, "POST", "/v1/act?x=1", json.dumps(request).encode())
    assert status == 200 and answer["stats"]["iterations"] == 20


@pytest.mark.parametrize("method, path, body, status, message", [
    ("POST", "/v1/act", b"{nope", 400, "not JSON"),
    ("POST", "/v1/act", b"", 400, "not JSON"),
    ("POST", "/v1/act", b"[1]", 400, "a request is a JSON object, not an array"),
    ("POST", "/v1/act", b'{"id": 6, "type": "act", "seed": 1e400}', 400, "too large for a float"),
    ("POST", "/v1/act", b'{"id": 4, "type": "quit"}', 400, "takes 'act' requests, not type 'quit'"),
    ("POST", "/v1/act", b'{"id": 5, "type": "act", "game": "chess", "agent": "random", "view": {}}',
     400, "unknown game 'chess'"),
    ("GET", "/v1/act", None, 405, "use POST"),
    ("POST", "/v1/info", b"{}", 405, "use GET"),
    ("GET", "/", None, 404, "no such path '/'"),
    ("POST", "/v2/act", b"{}", 404, "no such path '/v2/act'"),
])
def test_bad_requests_get_a_status_and_an_error_and_the_connection_goes_on(
        server, method, path, body, status, message):
    conn = connect(server)
    got, answer = call(conn, method, path, body)
    assert got == status and message in answer["error"]
    got, answer = call(conn, "POST", "/v1/act", json.dumps(good_request()).encode())
    assert got == 200 and answer["action"] in legal_for(good_request())


def test_an_oversized_body_is_refused_and_the_server_goes_on(server):
    body = json.dumps({**good_request(), "pad": "x" * (LIMITS.max_request_bytes + 1)}).encode()
    status, answer = call(connect(server), "POST", "/v1/act", body)
    assert status == 413 and f"the limit is {LIMITS.max_request_bytes}" in answer["error"]
    status, answer = call(connect(server), "POST", "/v1/act", json.dumps(good_request()).encode())
    assert status == 200


def raw_exchange(server, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=RECOVERY_S) as sock:
        sock.sendall(data)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def test_a_body_needs_a_content_length(server):
    reply = raw_exchange(server, b"POST /v1/act HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 411") and b"Content-Length" in reply
    reply = raw_exchange(server, b"POST /v1/act HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                 b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 411")
    reply = raw_exchange(server, b"POST /v1/act HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -3\r\n\r\n")
    assert reply.startswith(b"HTTP/1.1 400")


def test_a_stalled_client_does_not_block_others_and_is_dropped(server):
    with socket.create_connection(("127.0.0.1", server.port), timeout=RECOVERY_S) as stalled:
        stalled.sendall(b"POST /v1/act HTTP/1.1\r\nContent-Length: 1000\r\n\r\n{\"id\"")
        status, _ = call(connect(server), "POST", "/v1/act", json.dumps(good_request()).encode())
        assert status == 200
        # the server gives up on the stalled body after its socket timeout and hangs up
        assert stalled.recv(65536) == b""


def _until_served(server) -> tuple[int, dict]:
    """Ask until a worker is free again (a replacement may still be starting)."""
    deadline = time.monotonic() + RECOVERY_S
    while True:
        status, answer = call(connect(server), "POST", "/v1/act", json.dumps(good_request()).encode())
        if status != 503 or time.monotonic() > deadline:
            return status, answer


def test_a_request_over_the_time_limit_is_stopped_and_the_server_recovers(server):
    slow = {**good_request(3), "agent": "ismcts", "iterations": 10**9}
    status, answer = call(connect(server), "POST", "/v1/act", json.dumps(slow).encode())
    assert status == 504 and answer["id"] == 3 and "ran out of time" in answer["error"]
    status, answer = _until_served(server)
    assert status == 200 and answer["action"] in legal_for(good_request())


def test_a_worker_that_dies_costs_one_answer_not_the_server(server):
    assert _until_served(server)[0] == 200  # coins is loaded: the answer lost is the request's
    worker = server.pool.idle.get(timeout=RECOVERY_S)
    worker.proc.kill()
    worker.proc.wait()
    server.pool.idle.put(worker)
    status, answer = call(connect(server), "POST", "/v1/act", json.dumps(good_request(8)).encode())
    assert status == 500
    assert answer == {"id": 8, "error": "the bot worker stopped while answering this request"}
    status, answer = _until_served(server)
    assert status == 200


def _http_expectation(body: bytes):
    """What the server must answer for ``body``: (id, kind) with kind 'act' when it may succeed."""
    try:
        request = parse_request(body)
    except SlagwerkError:
        return None, "error"
    if not isinstance(request, dict):
        return None, "error"
    return expected_id(body), ("act" if request.get("type", "act") == "act" else "error")


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(request_lines, min_size=1, max_size=8))
def test_fuzzed_bodies_each_get_an_answer_and_the_server_keeps_going(server, bodies):
    conn = connect(server)
    for body in bodies:
        status, answer = call(conn, "POST", "/v1/act", body)
        rid, kind = _http_expectation(body)
        assert answer["id"] == rid, (body[:300], answer)
        if "action" in answer:
            assert status == 200 and kind == "act"
            assert answer["action"] in legal_for(parse_request(body))
        else:
            assert status == 400, (status, body[:300], answer)
            assert set(answer) == {"id", "error"} and answer["error"]
            assert not answer["error"].startswith("internal error"), (body[:2000], answer)
    status, answer = call(conn, "POST", "/v1/act", json.dumps(good_request()).encode())
    assert status == 200



def test_serve_command_listens_on_loopback_and_stops_its_workers_on_sigterm():
    server = subprocess.Popen([sys.executable, "-m", "slagwerk", "serve", "--port", "0"],
                              stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        while "serving" not in line:
            line = server.stderr.readline()
            assert line, "slagwerk serve ended before it was serving"
        match = re.search(r"http://127\.0\.0\.1:(\d+)/v1/", line)
        assert match, line
        status, info = call(http.client.HTTPConnection("127.0.0.1", int(match.group(1)), timeout=60),
                            "GET", "/v1/info")
        assert status == 200 and info["time_limit_ms"] == 30_000
        children = Path(f"/proc/{server.pid}/task/{server.pid}/children")
        workers = [int(p) for p in children.read_text().split()] if children.exists() else []
        assert workers or not children.exists(), "the server has no worker process"
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
        for pid in workers:
            assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
        server.stderr.close()


def test_a_worker_that_cannot_start_is_a_clear_error():
    with pytest.raises(WorkerStartError, match="a bot worker did not start"):
        WorkerPool([sys.executable, "-c", "pass"], 1, 1000, startup_timeout=30)
