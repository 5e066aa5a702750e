"""``slagwerk play``: a match between named agents, printed trick by trick."""

from __future__ import annotations

import json
import sys

from ..engine import GAMES
from ..errors import AgentUnavailable, OptionError
from .options import (
    MAX_SECONDS,
    add_agent_source_options,
    add_game_options,
    add_game_time_option,
    game_from_args,
    load_agent_sources,
    nonempty,
    number_in,
    seed_value,
)
from .output import ReservedOutput


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "play", help="play a match between agents and print it",
        description="Play one match between agents (one spec per seat: NAME or "
        "NAME:key=value,...), print it action by action, optionally save the record.",
    )
    # Every other command names its game with --game: accept that here too (one of the two).
    which_game = parser.add_mutually_exclusive_group(required=True)
    which_game.add_argument("game", nargs="?", choices=sorted(GAMES), help="the game")
    which_game.add_argument("--game", dest="game_flag", choices=sorted(GAMES), metavar="GAME",
                            help="the game, as the other commands name it (instead of the positional)")
    parser.add_argument("--agents", nargs="+", metavar="SPEC",
                        help="one agent spec per seat (default: heuristic everywhere)")
    parser.add_argument("--seed", type=seed_value, default=0, help="seed of the deals and agents (default 0)")
    parser.add_argument("--record", type=nonempty, metavar="FILE",
                        help="save the match record (JSON) here, finished or not; checked before the "
                        "first deal")
    parser.add_argument("--force", action="store_true",
                        help="let --record replace an existing file")
    parser.add_argument("--quiet", action="store_true", help="print only the result")
    parser.add_argument("--human", type=int, metavar="SEAT",
                        help="play SEAT yourself in this terminal (shows only what that seat sees); "
                        "--agents then gives one spec, one per seat or one per other seat")
    parser.add_argument("--web", action="store_true",
                        help="play in the browser instead: serves the page on 127.0.0.1 and opens this "
                        "match, you in seat --human (default 0) against --agents (docs/web.md)")
    parser.add_argument("--move-time", type=number_in(float, 0, MAX_SECONDS, unit=" seconds"), default=0.0,
                        metavar="SECONDS",
                        help="per-move time limit of the agents: a slower move, or any fault of an "
                        "agent or bot, forfeits the match; 0 (the default): no limit")
    add_game_time_option(parser, whole_match=True)
    add_agent_source_options(parser)
    add_game_options(parser)
    parser.set_defaults(run=run)


def build_agents(game, specs, seed, human: int | None = None):
    """Agents for every seat from specs (:func:`seat_specs`); a person's
    :class:`HumanPlayer` in seat ``human`` if given."""
    from ..agents import make
    from ..agents.match import seat_specs
    from ..engine.bits import derive_seed

    agents = []
    for seat, spec in enumerate(seat_specs(game, human, specs)):
        if spec is None:
            from ..agents.human import HumanPlayer

            agents.append(HumanPlayer(game, seat))
        else:
            agents.append(make(spec, game, seed=derive_seed(seed, 0xA6E, seat)))
    return agents


def run(args) -> int:
    args.game = args.game or args.game_flag  # the parser took one of them
    if args.web:
        return _play_on_the_web(args)
    # The record's path is checked (and its temporary file made) before anything is played.
    record = ReservedOutput(args.record, flag="--record", force=args.force) if args.record else None
    try:
        return _play(args, record)
    finally:
        if record is not None:
            record.discard()  # nothing left behind if the match was not saved


def _play(args, record: ReservedOutput | None) -> int:
    from ..agents.match import play_match
    from ..agents.warmup import ensure_compiled
    from ..experiments.harness.runner import Forfeit  # the harness loads only when a match is played

    game_time = args.game_time
    load_agent_sources(args, args.move_time or None)  # plugins and --bot bots
    game = game_from_args(args.game, args)
    agents = build_agents(game, args.agents, args.seed, args.human)
    ensure_compiled([game.name])  # a cold cache compiles before the first deal, and says so
    human = agents[args.human] if args.human is not None else None
    out = sys.stdout
    names = [getattr(a, "label", a.name) for a in agents]
    agents = [agent if agent is human else _guarded(agent, seat, args.move_time or None, game_time)
              for seat, agent in enumerate(agents)]
    if not args.quiet:
        print(f"{game.name} {game.options}; seats: " + ", ".join(
            f"{s}={n}" for s, n in enumerate(names)), file=out)

    shown: dict[int, int] = {}  # tricks already announced, per deal log

    def show(state, seat, text):
        if args.quiet:
            return
        log = state.deals[-1]
        if len(log.actions) == 1:
            print(f"\ndeal {state.deal_number}, dealer {log.dealer}", file=out)
            print(game.render(_start_of_deal(state)), file=out)
        line = f"  seat {seat}: {log.texts[-1]}"  # record notation: a blind play shows its card
        if len(log.trick_winners) > shown.get(id(log), 0):  # this action ended a trick
            shown[id(log)] = len(log.trick_winners)
            winner = log.trick_winners[-1]
            line += "   -> trick to " + ("nobody (spoiled)" if winner is None else f"seat {winner}")
        print(line, file=out)
        if log.points is not None:
            print(f"  deal points {log.points}; totals {state.totals}", file=out)

    from ..agents.human import HumanQuit

    # Played into a state kept here, so that an unfinished match is saved too
    # (a record may stop anywhere, docs/records.md).
    state = game.new_match()
    try:
        # With a human at the table the printout must not show other seats' cards.
        play_match(game, agents, seed=args.seed, on_action=human.observe if human is not None else show,
                   state=state)
    except HumanQuit as err:
        print(f"{err}: match abandoned", file=out)
        _save(record, state, names, args, out)
        return 1
    except Forfeit as fault:
        code = _forfeited(fault, names, args, out)
        _save(record, state, names, args, out)
        return code
    except (KeyboardInterrupt, AgentUnavailable):  # the latter: a bot that cannot be reached
        _save(record, state, names, args, out)
        raise
    print(("" if args.quiet else "\n") + f"final totals {state.totals}; outcome {state.outcome}", file=out)
    _save(record, state, names, args, out)
    return 0


def _save(record: ReservedOutput | None, state, names, args, out) -> None:
    from ..engine.records import record_of

    """Write the match's record, finished or not, if --record asked for it."""
    if record is None:
        return
    record.write(json.dumps(record_of(state, players=names), indent=1) + "\n")
    which = "record" if state.is_terminal else "unfinished match's record"
    print(f"{which} saved to {args.record}", file=out)


def _forfeited(fault, names, args, out) -> int:
    # With a human at the table the reason is left out: it may name a card of the faulty seat.
    reason = "its agent failed or ran out of time" if args.human is not None else fault.error
    print(f"{'' if args.quiet else chr(10)}seat {fault.seat} ({names[fault.seat]}) forfeits the match: "
          f"{reason}", file=out)
    return 1


def _guarded(agent, seat: int, move_time: float | None, game_time: float | None = None):
    """``agent`` under the per-move limit and its clock for the match, its faults turned
    into :class:`Forfeit` (as in tournaments)."""
    from ..experiments.harness.runner import _GuardedAgent, _Watch

    return _GuardedAgent(agent, seat, move_time, _Watch(), seat, game_time)


def _play_on_the_web(args) -> int:
    from ..web.launch import TIME_LIMIT_MS, play_in_browser

    # What the page does its own way: it downloads the record, and its bots answer under its limit.
    ignored = [flag for flag, given in (("--record", args.record), ("--move-time", args.move_time),
                                        ("--game-time", args.game_time is not None)) if given]
    if ignored:
        raise OptionError(f"{' and '.join(ignored)} do not go with --web: the page downloads the finished "
                          f"match's record, and its bots answer under its server's time limit of "
                          f"{TIME_LIMIT_MS} ms per request")
    game = game_from_args(args.game, args)
    return play_in_browser(game, args.human or 0, args.agents, args.seed)


def _start_of_deal(state):
    """The state as it was when the current deal was dealt (for printing hands)."""
    game = state.game
    replay = game.new_match()
    for log in state.deals:
        replay.deal(log.vector)
        if log is state.deals[-1]:
            break
        for action in log.actions:
            replay.apply(action)
    return replay
