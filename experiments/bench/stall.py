"""Can huge or deeply nested bodies stall the bot server for other clients? (issue #59)

A loopback :class:`~slagwerk.agents.http.BotServer` with one worker; one thread sends one kind
of hostile body to ``POST /v1/act`` back to back while another times ``GET /v1/info`` and a
small ``act`` (the random agent) every 0.1 s. Prints the latencies without hostile load and
under each kind: ``python -m slagwerk.experiments.bench.stall [SECONDS]``.
"""

from __future__ import annotations

import http.client
import json
import statistics
import sys
import threading
import time

HOSTILE_KINDS = ("digits", "nested", "wide")


def hostile_bodies(limit: int) -> dict[str, bytes]:
    """Bodies under the server's size ``limit``: a number of 100,000 digits, nesting 100,000
    deep, and a view of as many cards as fit."""
    depth = min(100_000, (limit - 100) // 2)
    return {
        "digits": b'{"type": "act", "id": ' + b"9" * min(100_000, limit - 100) + b"}",
        "nested": b'{"type": "act", "view": ' + b"[" * depth + b"]" * depth + b"}",
        "wide": json.dumps({"type": "act", "game": "coins", "view": {"hand": ["Ko"] * ((limit - 200) // 7)}})
        .encode(),
    }


def summary(seconds: list[float]) -> dict:
    ordered = sorted(seconds)
    return {"n": len(ordered), "median_ms": round(statistics.median(ordered) * 1000, 1),
            "p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))] * 1000, 1),
            "max_ms": round(ordered[-1] * 1000, 1)}


def measure(seconds: float = 15.0) -> dict:
    from ...agents.http import BotServer
    from ...agents.protocol import Limits
    from ...engine import make_game

    server = BotServer("127.0.0.1", 0, limits=Limits(), time_limit_ms=30_000, workers=1)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def call(method, path, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        start = time.perf_counter()
        conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
        response = conn.getresponse()
        response.read()
        conn.close()
        return response.status, time.perf_counter() - start

    state = make_game("coins").new_match(seed=1)
    small = json.dumps({"type": "act", "id": 1, "game": "coins", "agent": "random",
                        "view": state.view(state.to_move)}).encode()
    bodies = hostile_bodies(server.limits.max_request_bytes)
    call("POST", "/v1/act", small)  # the worker warm

    def probe(out):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            out["info"].append(call("GET", "/v1/info")[1])
            out["act"].append(call("POST", "/v1/act", small)[1])
            time.sleep(0.1)

    results = {}
    try:
        quiet = {"info": [], "act": []}
        probe(quiet)
        results["quiet"] = {part: summary(values) for part, values in quiet.items()}
        for kind in HOSTILE_KINDS:
            stop, statuses, loud = threading.Event(), [], {"info": [], "act": []}

            def attack(kind=kind, stop=stop, statuses=statuses):
                while not stop.is_set():
                    statuses.append(call("POST", "/v1/act", bodies[kind])[0])

            attacker = threading.Thread(target=attack)
            attacker.start()
            probe(loud)
            stop.set()
            attacker.join()
            results[kind] = {"bytes": len(bodies[kind]), "sent": len(statuses),
                             "statuses": sorted(set(statuses)),
                             **{part: summary(values) for part, values in loud.items()}}
    finally:
        server.shutdown()
        server.close()
    return results


if __name__ == "__main__":
    print(json.dumps(measure(float(sys.argv[1]) if len(sys.argv) > 1 else 15.0), indent=1))
