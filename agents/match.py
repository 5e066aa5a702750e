"""Play a match between agents, each deciding from its own seat's view."""

from __future__ import annotations

from ..engine.bits import derive_seed, make_rng
from ..engine.game import Game, State
from ..errors import OptionError, SpecError
from .base import Agent
from .registry import resolve_spec_files


def play_match(game: Game, agents: list[Agent], seed: int, deals=None, on_action=None,
               max_deals: int | None = None, state: State | None = None) -> State:
    """Play a whole match and return its final state (its record via ``record_of``).

    Deals are random from ``seed`` unless ``deals`` (a list of deal vectors)
    is given; after the listed deals run out, further deals are random.
    ``on_action(state, seat, text)`` is called after each action; play stops
    after ``max_deals`` deals if given (the match may then be unfinished).
    ``state``, if given, is the new match to play in (``game.new_match()``):
    the caller then keeps what was played when an agent's exception stops it.
    """
    if len(agents) != game.n_players:
        raise ValueError(f"{game.name} needs {game.n_players} agents, not {len(agents)}")
    if state is None:
        state = game.new_match()
    elif state.deal_number or not state.deal_pending:
        raise ValueError("play_match plays a new match: give game.new_match() as its state")
    deal_rng = make_rng(derive_seed(seed, 0xDEA1))
    deals = list(deals or [])
    while not state.is_terminal:
        if state.deal_pending:
            if max_deals is not None and state.deal_number >= max_deals:
                break
            if deals:
                state.deal(deals.pop(0))
            else:
                state.deal(rng=deal_rng)
            continue
        seat = state.to_move
        agent = agents[seat]
        # Only agents labelled as cheating (a measuring stick) see the true state.
        text = agent.decide_true_state(state).action if agent.cheating else agent.act(state.view(seat))
        state.apply(text)
        if on_action is not None:
            on_action(state, seat, text)
    return state


def check_seat(flag: str, seat: int, game) -> None:
    """:class:`OptionError` unless ``seat`` (given as ``flag``) is a seat of ``game``."""
    if not 0 <= seat < game.n_players:
        raise OptionError(f"{flag} {seat} is not a seat of this {game.name} match (0..{game.n_players - 1})")


def seat_specs(game, human: int | None, specs: list[str] | None) -> list[str | None]:
    """The agent spec of every seat of ``game``, ``None`` for the ``human`` seat.

    One spec fills every agent's seat (default ``heuristic``); otherwise one per
    seat, or, with a human, one per other seat in seat order (a spec given for
    the human's own seat is then not used). ``@FILE`` is read here, once.
    """
    n = game.n_players
    if human is not None:
        check_seat("--human", human, game)
    for spec in specs or ():
        if "+" in spec.split(":", 1)[0]:
            raise SpecError(f"{spec!r}: play takes an agent spec per seat (partners sit in seats 0 and 2, "
                            f"1 and 3); a partnership A+B is for tournaments, SPRTs and tuning")
    specs = [resolve_spec_files(spec, game.name) for spec in specs or ["heuristic"]]
    others = n - (human is not None)
    if len(specs) == 1:
        specs = specs * n
    elif human is not None and len(specs) == others:
        specs = specs[:human] + [None] + specs[human:]
    elif len(specs) != n:
        allowed = "one agent spec or one per seat"
        if human is not None:
            allowed += f" or one per other seat ({others})"
        raise SpecError(f"{game.name} with these options has {n} seats: give {allowed}, not {len(specs)}")
    if human is not None:
        specs[human] = None
    return specs
