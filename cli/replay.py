"""``slagwerk replay``: replay records, as a readable summary or docs/records.md JSON."""

from __future__ import annotations

import json
import sys

from ..errors import SlagwerkError, one_line
from .options import nonempty


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "replay", help="replay match records and print their results",
        description="Replay records (docs/records.md). With --json, print one JSON document per "
        "record, in order; a record that fails prints {\"error\": ...} and the exit status is 1.",
    )
    parser.add_argument("files", nargs="+", type=nonempty, metavar="FILE",
                        help="record files (JSON), or a tournament's games.jsonl (its games played "
                        "with --records, each named FILE:LINE)")
    parser.add_argument("--json", action="store_true", help="one JSON line per record (docs/records.md)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..engine.records import record_loaders, replay_result

    failed = 0
    loaders = (loader for path in args.files for loader in record_loaders(path))
    for label, load in loaders:
        try:
            state = load()  # its errors name the file (and line)
            result = replay_result(state)
        except SlagwerkError as err:
            failed += 1
            if args.json:
                print(json.dumps({"error": one_line(str(err))}))
            else:
                print(f"error: {one_line(str(err))}", file=sys.stderr)
            continue
        if args.json:
            print(json.dumps(result))
        else:
            print(_summary(label, state, result))
    return 1 if failed else 0


def _summary(path, state, result) -> str:
    game = state.game
    lines = [f"{path}: {game.name} {game.options}"]
    for number, deal in enumerate(result["deals"], start=1):
        winners = " ".join("-" if w is None else str(w) for w in deal["trick_winners"])
        points = deal["points"] if deal["points"] is not None else "(unfinished)"
        lines.append(f"  deal {number}: tricks won by {winners}; points {points}")
    lines.append(f"  totals {result['totals']}")
    outcome = result["outcome"]
    lines.append(f"  outcome {outcome}" if outcome is not None else "  match unfinished")
    return "\n".join(lines)
