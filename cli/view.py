"""``slagwerk view``: a seat's JSON view at the end of a record (e.g. to build a bot request)."""

from __future__ import annotations

import json

from ..errors import OptionError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "view", help="print a seat's JSON view at the end of a record",
        description="Replay a record (it may stop mid-deal) and print the JSON view of one seat: "
        "everything that seat knows, nothing it cannot see.",
    )
    parser.add_argument("record", metavar="RECORD", help="record file (JSON)")
    parser.add_argument("--seat", type=int, required=True, help="whose view")
    parser.add_argument("--pretty", action="store_true", help="indent the JSON")
    parser.add_argument("--request", metavar="SPEC",
                        help="print a whole 'act' request for agent SPEC instead of the bare view")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..agents.match import check_seat
    from ..agents.protocol import encode
    from ..agents.registry import make, resolve_spec_files, view_agent_class
    from ..engine.records import load_record_file

    state = load_record_file(args.record)
    check_seat("--seat", args.seat, state.game)
    document = state.view(args.seat)
    if args.request is not None:
        if state.to_move != args.seat:  # a bot answers only the seat to move
            mover = "nobody is" if state.to_move < 0 else f"seat {state.to_move} is"
            raise OptionError(f"--request: seat {args.seat} is not to move at the end of this record "
                              f"({mover})")
        # A request carries values: AGENT:@FILE is read here, never by the server.
        agent = resolve_spec_files(args.request, state.game.name)
        view_agent_class(agent)
        make(agent, state.game, seed=0)  # a bad spec is said here, not by the bot
        document = {"id": 1, "type": "act", "game": state.game.name, "agent": agent, "view": document}
    print(json.dumps(document, indent=1) if args.pretty else encode(document))
    return 0
