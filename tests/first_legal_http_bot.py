"""An HTTP bot for the tests of bots that go away (plain Python, no slagwerk): it
answers ``GET /v1/info`` and every ``act`` with the first legal action.

    --port N    the port (default 0: a free one); prints "listening on URL" once ready
    --idle S    close a kept-alive connection idle S seconds, as many servers do
    --acts K    exit at once after answering K act requests, as a server that dies
"""

import argparse
import json
import os
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HELLO = {"protocol": "slagwerk-bot", "version": 1,
         "games": ["coins", "koetsieren", "kozel", "aluette"], "agents": {"first": {"params": {}}}}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--idle", type=float, default=None)
    parser.add_argument("--acts", type=int, default=None)
    args = parser.parse_args()
    answered = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body are two writes: no 40 ms ACK delay
        timeout = args.idle

        def log_message(self, *_):
            pass

        def _send(self, answer, last=False):
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if last:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()

        def do_GET(self):
            self._send(HELLO)

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            answered[0] += 1
            last = args.acts is not None and answered[0] >= args.acts
            if last:
                # No new connection is accepted any more. close() alone is not enough: the
                # main thread's poll() keeps the socket listening until it wakes, and a
                # connection taken into the backlog meanwhile would be reset, not refused.
                self.server.socket.shutdown(socket.SHUT_RDWR)
                self.server.socket.close()
            self._send({"id": request["id"], "action": request["view"]["legal_actions"][0]}, last)
            if last:
                os._exit(0)  # gone: its other connections are closed

    ThreadingHTTPServer.allow_reuse_address = True  # a later run may take the same port again
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
