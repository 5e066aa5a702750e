"""How strong are the search agents? Duplicate matches against baseline agents.

For each game and each pair ``candidate@opponent``, the candidate (one seat,
or one partnership in Kozel and Aluette) plays whole matches against copies
of the opponent, in duplicate groups (:func:`.tournament.evaluate`: the same
deals in every rotation of the seats, so the luck of the cards cancels).
The same groups are then played with the opponent in the candidate's seats
too, which gives the *baseline*: what the candidate's seats score when
nobody is better (1/3 in Coins, 1/2 in the team games, about 3/4 in
four-player Koetsieren, where only the highest total loses). The row
reports both scores (mean match outcome of the candidate's seats: 1 win,
0.5 draw, 0 loss), their difference and the standard error of the
difference over groups (paired: both runs meet the same cards).

Run as a script; it prints one JSON line per comparison::

    python -m slagwerk.experiments.studies.search_strength --groups 50 --jobs 2 \\
        --games coins aluette --pairs "ismcts@heuristic" "ismcts:iterations=1000@random"
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

from ...engine import GAME_NAMES
from ..harness.tournament import evaluate

DEFAULT_PAIRS = (
    "ismcts@random",
    "ismcts@heuristic",
    "pimc@heuristic",
    "cheat@heuristic",
)


def compare(game: str, candidate: str, opponent: str, groups: int, seed: int = 0, jobs: int = 1,
            options: dict | None = None, unit: str = "match") -> dict:
    """Scores of ``candidate`` against ``opponent`` over ``groups`` duplicate groups,
    next to the baseline of ``opponent`` in the same seats; a JSON-able row.

    ``unit="match"`` scores match outcomes; ``unit="deal"`` plays single deals
    scored by the normalised deal reward (less noise per second of play, for
    tuning).
    """
    start = time.perf_counter()
    mine = evaluate(game, options or {}, candidate, [opponent], groups, seed, jobs=jobs, unit=unit)
    base = evaluate(game, options or {}, opponent, [opponent], groups, seed, jobs=jobs, unit=unit)
    diffs = [a - b for a, b in zip(mine.scores, base.scores)]
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / max(len(diffs) - 1, 1)
    return {
        "game": game,
        "candidate": candidate,
        "opponent": opponent,
        "groups": groups,
        "unit": unit,
        "candidate_score": round(mine.mean, 4),
        "baseline_score": round(base.mean, 4),
        "difference": round(mean, 4),
        "stderr": round(math.sqrt(var / len(diffs)), 4),
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="*", default=list(GAME_NAMES))
    parser.add_argument("--pairs", nargs="*", default=list(DEFAULT_PAIRS),
                        help="candidate@opponent agent specs")
    parser.add_argument("--groups", type=int, default=50, help="duplicate groups per comparison")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    parser.add_argument("--unit", choices=("match", "deal"), default="match",
                        help="score whole matches (default) or single deals")
    args = parser.parse_args(argv)
    for game in args.games:
        for pair in args.pairs:
            candidate, sep, opponent = pair.partition("@")
            if not sep:
                parser.error(f"a pair is candidate@opponent, not {pair!r}")
            row = compare(game, candidate, opponent, args.groups, args.seed, args.jobs, unit=args.unit)
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
