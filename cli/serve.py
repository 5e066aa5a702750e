"""``slagwerk serve``: the bot protocol over HTTP (``POST /v1/act``, ``GET /v1/info``), and
the web page at ``/`` to play the bots and watch records (docs/web.md)."""

from __future__ import annotations

import os
import signal
import sys

from ..agents.gate import DEFAULT_CONNECTIONS_PER_CLIENT, DEFAULT_MAX_CONNECTIONS, DEFAULT_REQUESTS_PER_CLIENT
from ..agents.limits import DEFAULT_MATCHES_PER_CLIENT, DEFAULT_PORT
from ..engine import GAME_NAMES
from ..errors import OptionError
from .bot import add_limit_options, add_server_options, defaults_from_args, limits_from_args
from .options import MAX_MILLISECONDS, MAX_SECONDS, MAX_WORKERS, nonempty, number_in

PUBLIC_WARNING = (
    "WARNING: slagwerk serve is listening on {host}, not on loopback: anyone who can reach this "
    "address can use this machine's CPU through the bot, and there is no authentication. "
    "Put it behind a proxy that authenticates, or bind 127.0.0.1."
)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve", help="serve the bot protocol over HTTP (POST /v1/act, GET /v1/info)",
        description="Answer bot requests over HTTP (docs/protocol.md). Agents run in worker processes; "
        "a request that overruns the time limit is stopped and answered with an error.",
    )
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only); an address "
                        "that is not loopback needs --public")
    parser.add_argument("--public", action="store_true",
                        help="allow a --host that is not loopback (no authentication: anyone who can "
                        "reach it can use the CPU)")
    parser.add_argument("--port", type=number_in(int, 0, 65535), default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--workers", type=number_in(int, 1, MAX_WORKERS), default=1,
                        help="worker processes (default 1)")
    parser.add_argument("--time-limit-ms", type=number_in(int, 10, MAX_MILLISECONDS), default=30_000,
                        metavar="MS",
                        help="per-request time limit; time_ms budgets may use 80%% of it (default 30000)")
    add_limit_options(parser, skip=("max_time_ms",))  # time_ms budgets follow --time-limit-ms
    add_server_options(parser)
    parser.add_argument("--game", choices=GAME_NAMES, help="game of requests that name none")
    parser.add_argument("--agent", metavar="SPEC",
                        help="agent of requests that name none (AGENT:@FILE loads its parameters "
                        "from FILE here, once)")
    parser.add_argument("--client-timeout", type=number_in(float, 0, 3600, above=True, unit=" seconds"),
                        default=10.0, metavar="SECONDS",
                        help="a client must send each whole request (headers and body) within this "
                        "time, or it is dropped; an idle keep-alive connection too (default 10)")
    parser.add_argument("--max-connections", type=number_in(int, 1, 100_000), default=DEFAULT_MAX_CONNECTIONS,
                        metavar="N", help=f"most connections held at once (a thread each); one more is "
                        f"answered 503 (default {DEFAULT_MAX_CONNECTIONS})")
    parser.add_argument("--max-connections-per-client", type=number_in(int, 1, 100_000),
                        default=DEFAULT_CONNECTIONS_PER_CLIENT, metavar="N",
                        help=f"with --public: most connections one remote address holds; one more is "
                        f"answered 429 (default {DEFAULT_CONNECTIONS_PER_CLIENT})")
    parser.add_argument("--max-requests-per-client", type=number_in(int, 1, 100_000),
                        default=DEFAULT_REQUESTS_PER_CLIENT, metavar="N",
                        help=f"with --public: most bot requests one remote address has in flight; one "
                        f"more is answered 429 (default {DEFAULT_REQUESTS_PER_CLIENT})")
    parser.add_argument("--log", action="store_true", help="log every request to stderr")
    add_web_options(parser)
    parser.set_defaults(run=run)


def add_web_options(parser) -> None:
    """The web page's settings (docs/web.md)."""
    parser.add_argument("--results", action="append", default=[], type=nonempty, metavar="DIR",
                        help="a results folder (or any folder of records) whose records the page may "
                        "open to watch, read-only (repeatable)")
    parser.add_argument("--max-matches", type=number_in(int, 1, 100_000), default=64, metavar="N",
                        help="most browser sessions (a match or a watched record each) held at once "
                        "(default 64)")
    parser.add_argument("--max-matches-per-client", type=number_in(int, 1, 100_000),
                        default=DEFAULT_MATCHES_PER_CLIENT, metavar="N",
                        help=f"with --public: most sessions one remote address holds; one more is "
                        f"refused with 429 (default {DEFAULT_MATCHES_PER_CLIENT})")
    parser.add_argument("--match-expiry", type=number_in(float, 0, MAX_SECONDS, above=True, unit=" seconds"),
                        default=1800.0, metavar="SECONDS",
                        help="a session nobody asked about for this long is dropped; a finished "
                        "match's after a third of it (default 1800)")


def check_web_options(args) -> None:
    for folder in args.results:
        if not os.path.isdir(folder):
            raise OptionError(f"--results {folder!r} is not a folder")


def web_settings(args) -> dict:
    """The :class:`WebServer` keywords of the command line's web options."""
    return {"results": list(args.results), "max_matches": args.max_matches,
            "matches_per_client": args.max_matches_per_client,
            "idle_s": args.match_expiry, "finished_s": args.match_expiry / 3}


def run(args) -> int:
    check_web_options(args)
    limits = limits_from_args(args, max(1, args.time_limit_ms * 4 // 5))
    from ..agents.http import is_loopback

    public = not is_loopback(args.host)
    if public and not args.public:
        raise OptionError(f"--host {args.host!r} is not a loopback address: anyone on the network could "
                          f"use this server, which has no authentication; add --public to allow it")
    defaults = defaults_from_args(args, limits)  # parameter files are read here, once
    if public:
        print(PUBLIC_WARNING.format(host=args.host), file=sys.stderr, flush=True)
    print(f"starting {args.workers} bot worker(s)...", file=sys.stderr, flush=True)
    from ..web.server import WebServer  # the page's server loads only when serving

    server = WebServer(args.host, args.port, limits=limits, time_limit_ms=args.time_limit_ms,
                       workers=args.workers, defaults=defaults, public=args.public,
                       socket_timeout=args.client_timeout, log_requests=args.log,
                       max_connections=args.max_connections,
                       connections_per_client=args.max_connections_per_client,
                       requests_per_client=args.max_requests_per_client, **web_settings(args))
    # A service manager stops the server with SIGTERM: close the workers on the way out.
    signal.signal(signal.SIGTERM, _stop)
    host, port = server.server_address[:2]
    print(f"serving the slagwerk bot on http://{host}:{port}/v1/ and the page on http://{host}:{port}/ "
          f"(Ctrl-C stops)", file=sys.stderr, flush=True)
    return server.serve_until_interrupted()


def _stop(signum, frame):
    raise SystemExit(0)
