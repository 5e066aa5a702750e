"""``slagwerk sprt``: is agent A stronger than agent B by at least ELO1 (or at most ELO0)?"""

from __future__ import annotations

import json
import math
import sys

from ..engine import GAME_NAMES
from ..errors import AgentUnavailable
from .options import (
    add_long_run_options,
    game_from_args,
    load_agent_sources,
)


def add_parser(subparsers) -> None:
    from ..experiments.harness.config import SprtConfig

    parser = subparsers.add_parser(
        "sprt", help="head-to-head sequential test: is A stronger than B by at least ELO1?",
        description="Play duplicate groups of A against B until a sequential probability ratio "
        "test decides between H0 (A is at most ELO0 stronger) and H1 (A is at least ELO1 "
        "stronger). Each group is one win, draw or loss for A; the test is the generalized SPRT "
        "on that trinomial (as in chess-engine testing). Prints the running log-likelihood "
        "ratio, the Elo estimate and its 95% interval.",
    )
    parser.add_argument("--game", required=True, choices=GAME_NAMES, help="the game")
    SprtConfig.add_flags(parser)
    parser.add_argument("--every", type=int, default=10,
                        help="print the running test's state every this many groups; the test "
                        "itself is checked after every group (default 10)")
    add_long_run_options(parser, "print only the final result as JSON", quiet=False)
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
    from ..experiments.harness.config import SprtConfig
    from ..experiments.harness.runner import ExperimentError
    from ..experiments.harness.sprt import run_sprt

    load_agent_sources(args, SprtConfig.value_given(args, "move_time"))
    if args.every < 1:
        raise ExperimentError(f"--every must be positive, not {args.every}")
    game = game_from_args(args.game, args)
    # @FILE items are read once, here: the test runs (and reports) values, never paths.
    config = SprtConfig.from_flags(args, game=args.game, options=game.options,
                                   a=resolve_spec_files(args.a, args.game),
                                   b=resolve_spec_files(args.b, args.game))
    a, b = config.a, config.b

    latest = []  # the test after the last finished group, shown if the run is interrupted

    def show(result):
        latest[:] = [result]
        if not args.json and (result.groups % args.every == 0 or result.verdict != "inconclusive"):
            print(_line(result), flush=True)

    if not args.json:  # the first line comes after --every groups: say what runs until then
        print(f"sprt: {a} against {b} in {config.game}, duplicate groups until H0 or H1 is "
              f"accepted (at most {config.max_groups}), the test checked after every group; its state "
              f"shown every {args.every} groups",
              file=sys.stderr, flush=True)
    try:
        result = run_sprt(config.game, config.options, a, b, config.elo0, config.elo1, config.alpha,
                          config.beta, config.max_groups, config.seed, jobs=args.jobs, unit=config.unit,
                          move_time=config.move_time, game_time=config.game_time, backend=args.backend,
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
        print(json.dumps({"game": config.game, "a": a, "b": b, **result.as_json()}))
        return 0
    if result.groups % args.every and result.verdict == "inconclusive":
        print(_line(result))
    meaning = {
        "H1": f"accept H1: {a} is at least {config.elo1:g} Elo stronger than {b}",
        "H0": f"accept H0: {a} is at most {config.elo0:g} Elo stronger than {b}",
        "inconclusive": f"no decision after {result.groups} groups (--max-groups)",
    }[result.verdict]
    print(meaning)
    forfeits = _forfeits(result, a, b)
    if forfeits:
        print(forfeits)
    return 0
