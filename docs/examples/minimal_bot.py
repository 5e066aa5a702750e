#!/usr/bin/env python3
"""A minimal bot for slagwerk's bot protocol (docs/protocol.md), in plain Python.

It does not import slagwerk: it reads a seat's view and answers one of the
legal actions the view lists, by a simple rule: the first one, except that
with probability ``random_share`` (a parameter it declares, default 0) it
plays a legal action chosen at random from the request's seed and the
position, so the same request always gets the same answer.

    python docs/examples/minimal_bot.py              # JSON lines on stdin and stdout
    python docs/examples/minimal_bot.py --http 8766  # HTTP: GET /v1/info, POST /v1/act

Rank it against slagwerk's agents:

    slagwerk tournament --game coins --bot mine="python docs/examples/minimal_bot.py" \\
        --agents mine random heuristic --deals 50
"""

import json
import random
import sys

AGENT = "first-legal"
HELLO = {
    "protocol": "slagwerk-bot",
    "version": 1,
    "games": {"coins": {}, "koetsieren": {}, "kozel": {}, "aluette": {}},
    "agents": {
        AGENT: {
            "description": "the first legal action (a random one with probability random_share)",
            "params": {
                "random_share": {"type": "float", "default": 0.0, "min": 0.0, "max": 1.0,
                                 "doc": "how often to play a random legal action instead"},
            },
        },
    },
}


def choose(view, random_share=0.0, seed=0):
    """The action for ``view``: the first legal one, or with probability
    ``random_share`` a random one (from the seed and the position)."""
    legal = view["legal_actions"]
    rng = random.Random(f"{seed}/{view['deal_number']}/{len(view['history'])}/{view['seat']}")
    if random_share > 0 and rng.random() < random_share:
        return rng.choice(legal)
    return legal[0]


def answer(request):
    """The answer object for one request object (``hello``, ``act`` or ``quit``)."""
    rid = request.get("id") if isinstance(request, dict) else None
    kind = request.get("type", "act") if isinstance(request, dict) else None
    if kind == "hello":
        return {"id": rid, **HELLO}
    if kind == "quit":
        return {"id": rid, "ok": True}
    if kind != "act":
        return {"id": rid, "error": f"unknown request type {kind!r}"}
    # The agent spec is "first-legal" or "first-legal:random_share=0.3".
    name, _, items = str(request.get("agent", AGENT)).partition(":")
    if name != AGENT:
        return {"id": rid, "error": f"unknown agent {name!r} (agents: {AGENT})"}
    try:
        params = dict(item.split("=", 1) for item in items.split(",") if item)
        share = float(params.pop("random_share", 0.0))
        if params:
            return {"id": rid, "error": f"unknown parameter {sorted(params)[0]!r}"}
        return {"id": rid, "action": choose(request["view"], share, int(request.get("seed", 0)))}
    except (KeyError, TypeError, ValueError, IndexError) as err:
        return {"id": rid, "error": f"bad request: {err!r}"}


def serve_stdio():
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            request = None
            reply = {"id": None, "error": "not JSON"}
        else:
            reply = answer(request)
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
        if isinstance(request, dict) and request.get("type") == "quit":
            return


def serve_http(port):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: one connection for many requests
        disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms ACK delay

        def do_GET(self):
            if self.path == "/v1/info":
                self.reply(200, HELLO)
            else:
                self.reply(404, {"id": None, "error": "unknown path"})

        def do_POST(self):
            if self.path != "/v1/act":
                return self.reply(404, {"id": None, "error": "unknown path"})
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            try:
                reply = answer(json.loads(body))
            except ValueError:
                reply = {"id": None, "error": "not JSON"}
            self.reply(400 if "error" in reply else 200, reply)

        def reply(self, status, data):
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        serve_http(int(sys.argv[2]))
    else:
        serve_stdio()
