"""``slagwerk bot``: the bot protocol on standard input and output (one JSON request per line)."""

from __future__ import annotations

import sys

from ..agents.protocol import Defaults, Limits, handle, warm_up
from ..agents.stdio import serve_lines
from ..agents.workers import WorkerPool, bot_command
from ..engine.errors import OptionError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "bot", help="answer bot requests: one JSON object per line on stdin and stdout",
        description="Serve the bot protocol (docs/protocol.md) on standard input and output: "
        "each line is a request (hello, act, quit), each answer one line carrying the request's id. "
        "The bot keeps no state between requests.",
    )
    parser.add_argument("--game", help="game of 'act' requests that name none")
    parser.add_argument("--agent", metavar="SPEC", help="agent of 'act' requests that name none")
    add_limit_options(parser)
    parser.add_argument("--time-limit-ms", type=int, metavar="MS",
                        help="hard limit per act request: agents then run in a worker process, which is "
                        "stopped and replaced when a request overruns (the answer is an error); "
                        "time_ms budgets may use 80%% of it (default: no hard limit)")
    parser.add_argument("--warm", action="store_true",
                        help="load every game's and agent's compiled code before reading requests")
    parser.set_defaults(run=run)


def add_limit_options(parser, time_help: str = "the largest time_ms budget a request may ask for") -> None:
    default = Limits()
    parser.add_argument("--max-request-bytes", type=int, default=default.max_request_bytes, metavar="N",
                        help=f"longest request accepted (default {default.max_request_bytes})")
    parser.add_argument("--max-time-ms", type=int, default=default.max_time_ms, metavar="MS",
                        help=f"{time_help} (default {default.max_time_ms})")


def limits_from_args(args) -> Limits:
    if args.max_request_bytes < 2:
        raise OptionError(f"--max-request-bytes must be at least 2, not {args.max_request_bytes}")
    if args.max_time_ms < 1:
        raise OptionError(f"--max-time-ms must be positive, not {args.max_time_ms}")
    return Limits(max_request_bytes=args.max_request_bytes, max_time_ms=args.max_time_ms)


def run(args) -> int:
    limits = limits_from_args(args)
    defaults = Defaults(game=args.game, agent=args.agent)
    answers = sys.stdout
    # Answers own standard output: anything else printed (by an agent, say) goes to stderr.
    sys.stdout = sys.stderr
    try:
        if args.time_limit_ms is not None:
            return _serve_with_time_limit(args.time_limit_ms, limits, defaults, answers)
        if args.warm:
            warm_up(limits)
        return serve_lines(sys.stdin.buffer, answers, limits, defaults)
    finally:
        sys.stdout = answers


def _serve_with_time_limit(time_limit_ms: int, limits: Limits, defaults: Defaults, answers) -> int:
    """Relay ``act`` requests to a worker process that is killed if it overruns."""
    if time_limit_ms < 10:
        raise OptionError(f"--time-limit-ms must be at least 10, not {time_limit_ms}")
    limits = Limits(max_request_bytes=limits.max_request_bytes,
                    max_time_ms=max(1, min(limits.max_time_ms, time_limit_ms * 4 // 5)))
    pool = WorkerPool(bot_command(limits, defaults), 1, time_limit_ms)

    def handler(request):
        kind = request.get("type") if isinstance(request, dict) else None
        if kind == "act":
            return pool.ask(request, wait_s=pool.startup_timeout)[1]
        answer = handle(request, limits, defaults)
        if kind == "hello" and "error" not in answer:
            answer["time_limit_ms"] = time_limit_ms
        return answer

    try:
        return serve_lines(sys.stdin.buffer, answers, limits, defaults, handler)
    finally:
        pool.close()
