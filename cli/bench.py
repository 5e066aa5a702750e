"""``slagwerk bench``: playouts and search iterations per second, with ratios."""

from __future__ import annotations

import json

from ..engine import GAME_NAMES
from .options import number_in


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench", help="measure playouts and search iterations per second",
        description="Random full-deal playouts per second in numba next to plain Python (and "
        "the C reference for Coins) in the same run, ISMCTS iterations per second, and "
        "optionally cold/warm start-up times.",
    )
    parser.add_argument("--game", action="append", choices=GAME_NAMES,
                        help="only this game (repeatable; default: every game)")
    parser.add_argument("--seconds", type=number_in(float, 0, 3600, above=True), default=2.0,
                        help="time per measurement (default 2)")
    parser.add_argument("--startup", action="store_true",
                        help="also time cold and warm start-up in fresh processes")
    parser.add_argument("--no-search", action="store_true", help="skip the search benchmarks")
    parser.add_argument("--no-c", action="store_true", help="skip the C reference")
    parser.add_argument("--no-bots", action="store_true",
                        help="skip the harness overhead of a bot program on stdio (per decision, "
                        "against the same agent in-process)")
    parser.add_argument("--jobs-speedup", action="store_true",
                        help="also time a Coins tournament of about 60 s of single-core work with "
                        "--jobs 1 and --jobs 2, against its two halves run as two separate processes "
                        "at once (about 3 minutes)")
    parser.add_argument("--json", action="store_true", help='print {"rows": [...]} as JSON')
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..experiments.bench.suite import format_table, run_bench

    rows = run_bench(args.game, args.seconds, startup=args.startup,
                     search=not args.no_search, with_c=not args.no_c, bots=not args.no_bots)
    if args.jobs_speedup:
        from ..experiments.bench.jobs import jobs_rows

        rows += jobs_rows()
    print(json.dumps({"rows": rows}) if args.json else format_table(rows))
    return 0
