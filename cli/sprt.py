"""``slagwerk sprt``: is agent A stronger than agent B by at least ELO1 (or at most ELO0)?"""

from __future__ import annotations

import json
import math
import sys

from ..engine import GAME_NAMES
from ..errors import AgentUnavailable
from .options import (
    add_agent_source_options,
    add_game_options,
    add_game_time_option,
    add_run_options,
    game_from_args,
    load_agent_sources,
)


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "sprt", help="head-to-head sequential test: is A stronger than B by at least ELO1?",
        description="Play duplicate groups of A against B until a sequential probability ratio "
        "test decides between H0 (A is at most ELO0 stronger) and H1 (A is at least ELO1 "
        "stronger). Each group is one win, draw or loss for A; the test is the generalized SPRT "
        "on that trinomial (as in chess-engine testing). Prints the running log-likelihood "
        "ratio, the Elo estimate and its 95% interval.",
    )
    parser.add_argument("a", metavar="A", help="agent spec of the challenger, e.g. ismcts:iterations=2000")
    parser.add_argument("b", metavar="B", help="agent spec of the reference, e.g. heuristic")
    parser.add_argument("--game", required=True, choices=GAME_NAMES, help="the game")
    parser.add_argument("--elo0", type=float, default=0.0, help="H0: A is at most this stronger (default 0)")
    parser.add_argument("--elo1", type=float, default=50.0,
                        help="H1: A is at least this stronger (default 50)")
    parser.add_argument("--alpha", type=float, default=0.05,
                        help="chance of accepting H1 when H0 holds (default 0.05)")
    parser.add_argument("--beta", type=float, default=0.05,
                        help="chance of accepting H0 when H1 holds (default 0.05)")
    parser.add_argument("--max-groups", type=int, default=2000,
                        help="give up (inconclusive) after this many groups (default 2000)")
    parser.add_argument("--every", type=int, default=10,
                        help="print the running test every this many groups (default 10)")
    parser.add_argument("--json", action="store_true", help="print only the final result as JSON")
    add_run_options(parser)
    add_game_time_option(parser)
    add_agent_source_options(parser)
    add_game_options(parser)
    parser.set_defaults(run=run)


def _line(result) -> str:
    low, high = result.bounds
    ci_low, ci_high = result.elo_ci95
    return (f"groups {result.groups:5d}  W-D-L {result.wins}-{result.draws}-{result.losses}  "
            f"LLR {result.llr:+.3f} [{low:+.3f}, {high:+.3f}]  "
            f"Elo {_elo(result.elo)} [{_elo(ci_low)}, {_elo(ci_high)}]"
            + (f"  forfeits A {result.forfeits[0]} B {result.forfeits[1]}" if any(result.forfeits) else ""))


def _forfeits(result, a: str, b: str) -> str | None:
    """What the games lost by a fault were, or ``None`` when there were none."""
    if not any(result.forfeits):
        return None
    parts = [f"{label} {count} (first: {reason})" if count else f"{label} 0"
             for label, count, reason in zip((a, b), result.forfeits, result.forfeit_reasons)]
    return "games lost by forfeit: " + ", ".join(parts)


def _elo(value: float) -> str:
    return f"{value:+.1f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def run(args) -> int:
    from ..agents.registry import resolve_spec_files
    from ..experiments.harness.runner import ExperimentError
    from ..experiments.harness.sprt import check_parameters, run_sprt

    load_agent_sources(args, args.move_time if args.move_time > 0 else None)
    # @FILE items are read once, here: the test runs (and reports) values, never paths.
    args.a, args.b = resolve_spec_files(args.a, args.game), resolve_spec_files(args.b, args.game)
    if args.jobs == 0 or args.jobs < -1:
        raise ExperimentError(f"--jobs must be -1 (all cores) or a positive count, not {args.jobs}")
    if args.every < 1:
        raise ExperimentError(f"--every must be positive, not {args.every}")
    game = game_from_args(args.game, args)

    latest = []  # the test after the last finished group, shown if the run is interrupted

    def show(result):
        latest[:] = [result]
        if not args.json and (result.groups % args.every == 0 or result.verdict != "inconclusive"):
            print(_line(result), flush=True)

    check_parameters(args.elo0, args.elo1, args.alpha, args.beta, args.max_groups)
    if not args.json:  # the first line comes after --every groups: say what runs until then
        print(f"sprt: {args.a} against {args.b} in {args.game}, duplicate groups until H0 or H1 is "
              f"accepted (at most {args.max_groups}); the test every {args.every} groups",
              file=sys.stderr, flush=True)
    try:
        result = run_sprt(args.game, game.options, args.a, args.b, args.elo0, args.elo1, args.alpha,
                          args.beta, args.max_groups, args.seed, jobs=args.jobs, unit=args.unit,
                          move_time=args.move_time if args.move_time > 0 else None,
                          game_time=args.game_time, backend=args.backend,
                          scheduler=args.scheduler, on_group=show)
    except (KeyboardInterrupt, AgentUnavailable) as stop:
        if latest and not args.json:
            why = "interrupted" if isinstance(stop, KeyboardInterrupt) else "stopped"
            print(f"{_line(latest[0])}\nno decision: {why} after {latest[0].groups} groups", flush=True)
        if isinstance(stop, AgentUnavailable):
            stop.hint = ("an SPRT does not resume: the same command (the same --seed) plays the same "
                         "games again once the bot is back")
        raise
    if args.json:
        print(json.dumps({"game": args.game, "a": args.a, "b": args.b, **result.as_json()}))
        return 0
    if result.groups % args.every and result.verdict == "inconclusive":
        print(_line(result))
    meaning = {
        "H1": f"accept H1: {args.a} is at least {args.elo1:g} Elo stronger than {args.b}",
        "H0": f"accept H0: {args.a} is at most {args.elo0:g} Elo stronger than {args.b}",
        "inconclusive": f"no decision after {result.groups} groups (--max-groups)",
    }[result.verdict]
    print(meaning)
    forfeits = _forfeits(result, args.a, args.b)
    if forfeits:
        print(forfeits)
    return 0
