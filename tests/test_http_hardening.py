"""``slagwerk serve`` facing untrusted clients: loopback unless --public, slow clients dropped,
a listen backlog for bursts, JSON 405s with ``Allow``, a strict Content-Length, paths refused."""

from __future__ import annotations

import http.client
import json
import os
import socket
import sys
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_http import JSON, good_request, legal_for, served

from slagwerk.agents.http import LISTEN_BACKLOG, BindError, BotServer, is_loopback
from slagwerk.agents.protocol import Limits
from slagwerk.cli import main

CLIENT_TIMEOUT_S = 1.0
GIVE_UP_S = 30.0  # a bound that only guards against a hang: the server drops a slow client in ~1 s


@pytest.fixture(scope="module")
def server():
    with served(limits=Limits(max_request_bytes=64 * 1024), time_limit_ms=20_000, workers=1,
                socket_timeout=CLIENT_TIMEOUT_S) as bot_server:
        yield bot_server


def exchange(server, data: bytes) -> tuple[int, dict, bytes]:
    """Send raw ``data``; the status, headers and body of the answer (the server closes)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=GIVE_UP_S) as sock:
        sock.sendall(data)
        reply = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        key, _, value = line.partition(":")
        headers[key.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def _act_body() -> bytes:
    return json.dumps(good_request()).encode()


# ---------------------------------------------------------------------- loopback only


@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.3.2.1", True), ("localhost", True), ("::1", True),
    ("0.0.0.0", False), ("", False), ("::", False), ("10.1.2.3", False), ("no-such-host.invalid", False),
])
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_a_server_on_every_interface_needs_public():
    with pytest.raises(BindError, match="not a loopback address"):
        BotServer("0.0.0.0", 0, workers=1)


def test_serve_refuses_a_public_host_without_the_flag(capsys):
    assert main(["serve", "--host", "0.0.0.0", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "not a loopback address" in err and "--public" in err


def test_serve_public_warns_about_the_risk(monkeypatch, capsys):
    import slagwerk.web.server as web_server

    made = {}

    class FakeServer:
        server_address = ("0.0.0.0", 1234)

        def __init__(self, host, port, **kwargs):
            made.update(host=host, **kwargs)

        def serve_until_interrupted(self):
            return 0

    monkeypatch.setattr(web_server, "WebServer", FakeServer)  # the bot server with the web page
    assert main(["serve", "--host", "0.0.0.0", "--port", "0", "--public"]) == 0
    err = capsys.readouterr().err
    assert "WARNING" in err and "anyone" in err and "no authentication" in err
    assert made["host"] == "0.0.0.0" and made["public"] is True


# --------------------------------------------------------------------- slow clients


def _trickle(server, head: bytes, drip: bytes) -> float:
    """Send ``head``, then one byte of ``drip`` every 0.2 s (never finishing the request)
    until the server hangs up; the seconds that took."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server.port), timeout=GIVE_UP_S) as sock:
        sock.sendall(head)
        while time.monotonic() - started < GIVE_UP_S:
            try:
                sock.sendall(drip)
            except OSError:  # reset: the server hung up
                return time.monotonic() - started
            sock.settimeout(0.2)
            try:
                if sock.recv(65536) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                pass
            except OSError:
                return time.monotonic() - started
    raise AssertionError(f"a client trickling its request was still served after {GIVE_UP_S} s")


def test_a_client_that_trickles_its_headers_is_dropped(server):
    took = _trickle(server, b"POST /v1/act HTTP/1.1\r\nX-Slow: ", b"a")
    assert took < GIVE_UP_S


def test_a_client_that_trickles_its_body_is_dropped(server):
    took = _trickle(server, b"POST /v1/act HTTP/1.1\r\nContent-Length: 100000\r\n\r\n", b" ")
    assert took < GIVE_UP_S


def test_slow_clients_do_not_stop_others(server):
    threads = [threading.Thread(target=_trickle, args=(server, b"POST /v1/act HTTP/1.1\r\nX: ", b"a"),
                                daemon=True) for _ in range(3)]
    for thread in threads:
        thread.start()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=GIVE_UP_S)
    conn.request("POST", "/v1/act", body=_act_body(), headers=JSON)
    response = conn.getresponse()
    assert response.status == 200 and json.loads(response.read())["action"] in legal_for(good_request())
    for thread in threads:
        thread.join(timeout=GIVE_UP_S + 5)


# ------------------------------------------------------------------- bursts of clients


def test_the_listen_backlog_takes_a_burst():
    assert BotServer.request_queue_size == LISTEN_BACKLOG >= 128


# ------------------------------------------------------------------ pages of other sites


@pytest.mark.parametrize("host, served", [
    ("127.0.0.1", True), ("127.0.0.1:8765", True), ("[::1]:8765", True), ("localhost:8765", True),
    ("LOCALHOST.", True), ("app.localhost", True), ("evil.example", False), ("evil.example:8765", False),
    ("127.0.0.1.evil.example", False), ("10.0.0.1", False), ("", False),
])
def test_a_loopback_server_answers_only_requests_for_a_loopback_host(server, host, served):
    """A page of another site whose name resolves to 127.0.0.1 (DNS rebinding) sends its own name."""
    status, _, body = exchange(server, f"GET /v1/info HTTP/1.1\r\nHost: {host}\r\n"
                                       f"Connection: close\r\n\r\n".encode())
    assert status == (200 if served else 403), (host, body)
    if not served:
        assert "is not a loopback address" in json.loads(body)["error"]


def test_two_host_headers_are_refused_and_a_public_server_takes_any_host(server):
    two = b"GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"
    assert exchange(server, two)[0] == 403
    worker = [sys.executable, "-m", "slagwerk", "bot", "--time-limit-ms", "0"]  # answers hello at once
    public = BotServer("127.0.0.1", 0, public=True, worker_argv=worker)
    thread = threading.Thread(target=public.serve_forever, daemon=True)
    thread.start()
    try:
        status, _, _ = exchange(public, b"GET /v1/info HTTP/1.1\r\nHost: bots.example.org\r\n"
                                        b"Connection: close\r\n\r\n")
        assert status == 200
    finally:
        public.shutdown()
        public.close()
        thread.join(timeout=30)


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", "application/jsonp"])
def test_act_takes_only_a_json_body(server, content_type):
    """The content types a page of another site may send without asking (and none) are refused."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=GIVE_UP_S)
    sent = {"Content-Type": content_type} if content_type else {}
    conn.request("POST", "/v1/act", body=_act_body(), headers=sent)
    response = conn.getresponse()
    assert response.status == 415 and "application/json" in json.loads(response.read())["error"]
    conn.request("POST", "/v1/act", body=_act_body(),
                 headers={"Content-Type": "Application/JSON; charset=utf-8"})
    response = conn.getresponse()
    assert response.status == 200 and json.loads(response.read())["action"] in legal_for(good_request())


# ------------------------------------------------------------------ methods and lengths


@pytest.mark.parametrize("method", ["PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"])
@pytest.mark.parametrize("path, allow", [("/v1/act", "POST"), ("/v1/info", "GET")])
def test_other_methods_get_405_json_and_allow(server, method, path, allow):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=GIVE_UP_S)
    conn.request(method, path, body=b"{}" if method in ("PUT", "PATCH") else None)
    response = conn.getresponse()
    body = response.read()
    assert response.status == 405 and response.getheader("Allow") == allow
    assert response.getheader("Content-Type") == "application/json"
    if method == "HEAD":
        assert body == b""
    else:
        assert allow in json.loads(body)["error"]


def test_get_act_and_post_info_name_the_allowed_method(server):
    status, headers, body = exchange(server, b"GET /v1/act HTTP/1.1\r\nConnection: close\r\n\r\n")
    assert status == 405 and headers["allow"] == "POST" and "use POST" in json.loads(body)["error"]
    status, headers, body = exchange(server, b"POST /v1/info HTTP/1.1\r\nContent-Length: 2\r\n"
                                             b"Connection: close\r\n\r\n{}")
    assert status == 405 and headers["allow"] == "GET"


def test_http_errors_of_the_server_itself_are_json(server):
    status, headers, body = exchange(server, b"BREW /v1/act HTTP/1.1\r\n\r\n")
    assert status == 501 and headers["content-type"] == "application/json"
    assert json.loads(body)["id"] is None
    many = b"".join(b"X-%d: 1\r\n" % i for i in range(120))
    status, headers, body = exchange(server, b"GET /v1/info HTTP/1.1\r\n" + many + b"\r\n")
    assert status == 431 and "error" in json.loads(body)


def _padded_body(size: int = 1500) -> bytes:
    body = _act_body()
    return body + b" " * (size - len(body))  # JSON may end in spaces


@pytest.mark.parametrize("length", ["1_500", "+1500", "1500x", "0x5dc", "\u0661\u0665\u0660\u0660",
                                    "1500.0", "1" * 30])
def test_a_content_length_is_ascii_digits_only(server, length):
    head = f"POST /v1/act HTTP/1.1\r\nContent-Length: {length}\r\n\r\n".encode()
    status, headers, answer = exchange(server, head + _padded_body())
    assert status == 400 and headers["content-type"] == "application/json"
    assert "bad Content-Length" in json.loads(answer)["error"]


def test_two_content_lengths_are_refused(server):
    body = _act_body()
    head = f"POST /v1/act HTTP/1.1\r\nContent-Length: {len(body)}\r\nContent-Length: 2\r\n\r\n".encode()
    status, _, answer = exchange(server, head + body)
    assert status == 400 and "bad Content-Length" in json.loads(answer)["error"]


def test_a_plain_content_length_still_works(server):
    body = _act_body()
    head = (f"POST /v1/act HTTP/1.1\r\nContent-Length:  {len(body)} \r\nContent-Type: application/json\r\n"
            f"Connection: close\r\n\r\n").encode()
    status, _, answer = exchange(server, head + body)
    assert status == 200 and json.loads(answer)["action"] in legal_for(good_request())


# --------------------------------------------------------------------- paths and caps


def test_a_request_naming_a_path_gets_400_and_the_path_is_never_opened(server, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=GIVE_UP_S)
    for spec in (f"ismcts:@{fifo}", "ismcts:@/dev/zero", "ismcts:@/dev/stdin"):
        conn.request("POST", "/v1/act", body=json.dumps({**good_request(), "agent": spec}).encode(),
                     headers=JSON)
        response = conn.getresponse()
        answer = json.loads(response.read())
        assert response.status == 400 and "never files" in answer["error"], answer
    with pytest.raises(OSError):  # no reader has the FIFO open
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.parametrize("spec, extra, message", [
    ("ismcts", {"iterations": 10**9}, "iterations=1000000000 is more than this server allows"),
    ("ismcts:node_cap=67108864", {}, "node_cap=67108864 is more than this server allows"),
    ("random:seed=1", {}, "unknown parameter 'seed'"),
    ("heuristic:game=x", {}, "unknown parameter 'game'"),
])
def test_over_cap_and_colliding_parameters_are_400s(server, spec, extra, message):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=GIVE_UP_S)
    conn.request("POST", "/v1/act", body=json.dumps({**good_request(), "agent": spec, **extra}).encode(),
                 headers=JSON)
    response = conn.getresponse()
    answer = json.loads(response.read())
    assert response.status == 400 and message in answer["error"], answer


def test_serving_until_ctrl_c_closes_the_server_and_its_workers():
    from slagwerk.agents.http import BotServer

    class Interrupted:
        closed = False

        def serve_forever(self):
            raise KeyboardInterrupt

        def close(self):
            self.closed = True

    server = Interrupted()
    assert BotServer.serve_until_interrupted(server) == 0 and server.closed


# ---------------------------------------------------------------------- fair shares (issue #59)


def _gated_server(**shares) -> tuple[BotServer, threading.Thread]:
    bot_server = BotServer("127.0.0.1", 0, limits=Limits(max_request_bytes=64 * 1024), time_limit_ms=20_000,
                           workers=2, socket_timeout=5.0, **shares)
    thread = threading.Thread(target=bot_server.serve_forever, daemon=True)
    thread.start()
    return bot_server, thread


def _info_status(server, source: str = "127.0.0.1") -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=GIVE_UP_S, source_address=(source, 0))
    conn.request("GET", "/v1/info")
    response = conn.getresponse()
    headers = {key.lower(): value for key, value in response.getheaders()}
    response.read()
    conn.close()
    return response.status, headers


def _idle(server, source: str) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=GIVE_UP_S, source_address=(source, 0))
    return sock


def _served(server, count: int) -> None:
    deadline = time.monotonic() + GIVE_UP_S
    while server.gate.connections != count and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.gate.connections == count


def test_a_flood_of_idle_connections_from_one_client_leaves_room_for_others():
    bot_server, thread = _gated_server(public=True, connections_per_client=4, max_connections=50)
    try:
        flood = [_idle(bot_server, "127.0.0.1") for _ in range(4)]
        _served(bot_server, 4)
        status, headers = _info_status(bot_server, "127.0.0.1")
        assert status == 429 and headers["retry-after"] == "1"
        assert _info_status(bot_server, "127.0.0.2")[0] == 200  # another client is answered at once
        for sock in flood:
            sock.close()
        _served(bot_server, 0)
        assert _info_status(bot_server, "127.0.0.1")[0] == 200
    finally:
        bot_server.shutdown()
        bot_server.close()
        thread.join(timeout=30)


def test_connections_beyond_the_servers_cap_get_503_and_it_recovers():
    bot_server, thread = _gated_server(max_connections=3)  # loopback: only the total counts
    try:
        idle = [_idle(bot_server, "127.0.0.1") for _ in range(3)]
        _served(bot_server, 3)
        status, headers = _info_status(bot_server)
        assert status == 503 and headers["retry-after"] == "1"
        idle.pop().close()
        _served(bot_server, 2)
        assert _info_status(bot_server)[0] == 200
        for sock in idle:
            sock.close()
    finally:
        bot_server.shutdown()
        bot_server.close()
        thread.join(timeout=30)


def test_a_client_over_its_requests_in_flight_gets_429_while_another_is_served():
    bot_server, thread = _gated_server(public=True, requests_per_client=1)
    slow = json.dumps({**good_request(), "agent": "ismcts:time_ms=3000"}).encode()
    answers = {}

    def ask(name, source, body):
        conn = http.client.HTTPConnection("127.0.0.1", bot_server.port, timeout=GIVE_UP_S * 4,
                                          source_address=(source, 0))
        conn.request("POST", "/v1/act", body=body, headers=JSON)
        response = conn.getresponse()
        answers[name] = (response.status, json.loads(response.read()), response.getheader("Retry-After"))
        conn.close()

    try:
        first = threading.Thread(target=ask, args=("first", "127.0.0.1", slow))
        first.start()
        deadline = time.monotonic() + GIVE_UP_S * 4
        while bot_server.gate._requests.get("127.0.0.1", 0) < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        ask("second", "127.0.0.1", _act_body())
        ask("other", "127.0.0.2", _act_body())
        first.join(timeout=GIVE_UP_S * 4)
        assert answers["second"][0] == 429 and answers["second"][2] == "1"
        assert "requests in flight" in answers["second"][1]["error"]
        assert answers["other"][0] == 200 and answers["first"][0] == 200
    finally:
        bot_server.shutdown()
        bot_server.close()
        thread.join(timeout=30)


def test_the_stall_experiment_runs_and_hostile_bodies_never_reach_a_worker():
    from slagwerk.experiments.bench.stall import HOSTILE_KINDS, measure

    results = measure(0.3)
    assert set(results) == {"quiet", *HOSTILE_KINDS}
    for kind in HOSTILE_KINDS:
        assert results[kind]["statuses"] == [400] and results[kind]["act"]["n"] > 0


PATH_TEXT = st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7e), max_size=300)
HEADER_VALUE = st.binary(max_size=200).map(lambda raw: bytes(b for b in raw if b not in b"\r\n"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(path=PATH_TEXT, name=st.sampled_from([b"Content-Length", b"Content-Type", b"Host", b"Cookie",
                                              b"Transfer-Encoding", b"Connection", b"X-Any"]),
       value=HEADER_VALUE, method=st.sampled_from([b"GET", b"POST"]))
def test_fuzzed_paths_and_headers_each_get_one_json_answer_under_500(server, path, name, value, method):
    """Issue #59: the fuzzing covers paths and headers as it covers bodies: every request gets
    an HTTP answer with a JSON body whose error (if any) is one line, never a 5xx."""
    target = ("/" + path.lstrip("/")).encode("ascii")
    body = b"{}"
    head = method + b" " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + name + b": " + value + b"\r\n"
    if name not in (b"Content-Length", b"Transfer-Encoding"):
        head += b"Content-Length: 2\r\n"
    try:
        status, _, reply = exchange(server, head + b"Connection: close\r\n\r\n" + body)
    except IndexError:  # no answer: a Content-Length over the body sent, and the client dropped
        assert name == b"Content-Length" and value.strip(b" \t").isdigit() and int(value) > len(body), value
        return
    assert 200 <= status < 500, (status, head, reply[:200])
    if reply:
        answer = json.loads(reply)
        assert "\n" not in answer.get("error", ""), answer
    info = b"GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    assert exchange(server, info)[0] == 200
