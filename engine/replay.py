"""A deal's public history, ready to be replayed in any world (beliefs).

A seat's view carries the whole public history of the deal in progress
(docs/design.md §4). :class:`ReplayScript` is that history in kernel terms,
built once per decision by the game's ``replay_script(view)``: the state
waiting for the deal, a template of the deal vector (what the seat knows of
it), and the history's actions. A game's ``deal_from_world`` kernel
completes the template from a determinized world, and
:mod:`slagwerk.search.belief` deals it and replays the history: a world in
which the history cannot be replayed (a seat to move that did not move,
an action it could not have played) disagrees with what the table showed,
and a world's likelihood under an opponent model is read off the replay.

Each game's ``replay.py`` holds its ``MODEL``, an :class:`OpponentModel`:
the weights of the opponent model fitted by maximum likelihood to the
built-in agents' moves (``python -m slagwerk.experiments.studies.belief_model``),
the temperature the belief uses them at (1: as fitted; higher trusts the
model less), the worlds an inferred belief replays, and whether
``belief=inferred`` is the game's default (only where measured stronger).
How each was chosen is in docs/beliefs.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bits import make_rng
from .state import DEAL_NUMBER, DEALER, TO_MOVE, TOTALS

DEAL_TRIES = 4
"""Deals rebuilt from one world (a game's ``deal_from_world`` may rebuild it in several ways:
Kozel's draws) before the world counts as disagreeing with the history."""


@dataclass(frozen=True)
class OpponentModel:
    """A game's opponent model for ``belief=inferred``: another seat's legal action
    ``i`` has probability ``softmax((score_weight * score_i + best_weight *
    best_i) / temperature)``, ``score_i`` the heuristic's score of the action
    (the game's ``action_scores``) and ``best_i`` 1 for a best-scored one."""

    score_weight: float
    best_weight: float
    temperature: float = 1.0
    particles: int = 128
    """Worlds an inferred belief replays. More distinct worlds measured stronger
    (a search sees at most this many deals), at a cost: docs/beliefs.md."""
    inferred_by_default: bool = False
    """True where ``belief=inferred`` measured stronger than ``uniform`` (the
    ``belief=auto`` of the search agents)."""
    reads_play: bool = True
    """False: only the actions outside the card play are weighed (Koetsieren's
    trump and bids); the play stays hard information. Where reading the play
    measured no stronger, skipping it is cheaper (docs/beliefs.md)."""

    def betas(self, temperature: float | None = None) -> tuple[float, float]:
        """The weights at ``temperature`` (the model's own if None); an infinite
        temperature gives (0, 0): hard information only."""
        t = self.temperature if temperature is None else float(temperature)
        if np.isinf(t):
            return 0.0, 0.0
        return self.score_weight / t, self.best_weight / t


@dataclass
class ReplayScript:
    """A deal's history as the searching seat saw it, in kernel terms."""

    start: np.ndarray
    """int64[STATE_SIZE]: the match waiting for this deal (dealer, deal number and
    totals as they were when it began)."""
    template: np.ndarray
    """int64: the game's template of the deal vector (its ``deal_from_world``)."""
    seats: np.ndarray
    """int64[n]: the seat that made each action of the history."""
    keys: np.ndarray
    """int64[n]: each action (``hidden`` 0), or what the seat saw of it (1: the
    game's ``observed_actions`` key, e.g. a Kozel face-down discard)."""
    hidden: np.ndarray
    """int64[n]: 1 where ``keys`` is only what the seat saw of the action."""
    model: OpponentModel = OpponentModel(0.0, 1.0)
    """The game's opponent model (its package's ``MODEL``)."""

    @property
    def temperature(self) -> float:
        return self.model.temperature

    @property
    def particles(self) -> int:
        return self.model.particles

    @property
    def inferred_by_default(self) -> bool:
        return self.model.inferred_by_default

    @property
    def length(self) -> int:
        return int(self.seats.shape[0])


def deal_start(game, view: dict, totals) -> np.ndarray:
    """The state of ``game`` (built with the view's options) waiting for the deal
    of ``view``, with the deal's dealer, the deals before it and ``totals``."""
    start = game.new_match().array
    start[DEALER] = view["dealer"]
    start[DEAL_NUMBER] = view["deal_number"] - 1
    for s, value in enumerate(totals):
        start[TOTALS + s] = value
    return start


def one_card_history(game, view: dict, kernels) -> tuple[np.ndarray, list]:
    """The deal template and replay entries of a game in which every action plays one card of
    the mover's hand (Coins, Aluette): each card of the view's history fills its player's next
    place in the deal vector, and none of them is hidden."""
    template = np.full(kernels.DEAL_SIZE, -1, dtype=np.int64)
    hand_size = game.options.get("hand", kernels.HAND_SIZE)  # Coins' small variants deal fewer
    filled = [0] * kernels.N_SEATS
    entries = []
    for item in view["history"]:
        seat, card = item["seat"], game.deck.parse(item["action"])
        template[seat * hand_size + filled[seat]] = card
        filled[seat] += 1
        entries.append((seat, card, 0))
    return template, entries


def script(start, template, entries, model: OpponentModel) -> ReplayScript:
    """A :class:`ReplayScript` from ``(seat, key, hidden)`` entries; ``model`` is the
    game's :class:`OpponentModel`."""
    rows = np.array(list(entries), dtype=np.int64).reshape(-1, 3)
    return ReplayScript(start=start, template=np.asarray(template, dtype=np.int64),
                        seats=np.ascontiguousarray(rows[:, 0]), keys=np.ascontiguousarray(rows[:, 1]),
                        hidden=np.ascontiguousarray(rows[:, 2]), model=model)



def check_history(state, view: dict) -> None:
    """Check that ``view``'s ``history`` leads to the rest of ``view``.

    The deal's actions are replayed from its start in a deal that dealt
    ``state`` (the game's ``state_from_view(view)``) and must reach the seat's
    view, history aside. Only a game whose ``determinize`` agrees with the
    whole history (``determinize_uses_whole_history``) is checked: there every
    world that agrees with the view replays its history (tested over thousands
    of positions), so one world decides. In Kozel a world must also meet what
    earlier molodka questions revealed, which few random worlds do (in 5 of
    3,391 positions of random matches none of 64 worlds, each dealt up to 4
    ways, replayed; 2026-12-04), so a failed replay would prove nothing; a
    game without ``replay_script`` has nothing to replay.

    :raises InvalidViewError: (one line) for a history that cannot have led to
        the view: a card played that the view shows in a hand, a trump or a bid
        other than the view's, a seat moving out of turn, an action the rules
        did not allow, or more or fewer actions than the view's tricks took.
    """
    from ..errors import InvalidViewError

    game = state.game
    if not game.info.determinize_uses_whole_history:
        return
    prefix = "the view's history cannot have led to the rest of the view"
    try:
        replay = game.replay_script(view)
    except (ValueError, IndexError, KeyError):
        raise InvalidViewError(f"{prefix}: its actions do not fit the deal") from None
    if replay is None:
        return
    replayed, reason = replay_in(game.kernels, replay, state.array, make_rng(0))
    if replayed is None:
        raise InvalidViewError(f"{prefix}: {reason}")
    differ = views_differ(game, replayed, state.array, view)
    if differ:
        raise InvalidViewError(f"{prefix}: its actions lead to other {', '.join(differ)} than the view shows")


def views_differ(game, replayed, world, view: dict) -> list[str]:
    """The fields of ``view`` (its history aside) that the state ``replayed`` shows
    the view's seat otherwise than the state ``world`` does. Compared as far as
    the view goes: a Koetsieren view may leave out the slots cards were played
    from, which a replay then chooses at random."""
    from .game import State

    seat = view["seat"]
    reached = _shaped_like(State(game, replayed).view(seat), view)
    shown = _shaped_like(State(game, world).view(seat), view)
    return [key for key in shown if key != "history" and reached.get(key) != shown[key]]


def _shaped_like(value, given):
    """``value`` with only the fields of the objects in ``given`` (a view as sent)."""
    if isinstance(value, dict) and isinstance(given, dict):
        return {key: _shaped_like(value.get(key), given[key]) for key in given}
    if isinstance(value, list) and isinstance(given, list) and len(value) == len(given):
        return [_shaped_like(v, g) for v, g in zip(value, given)]
    return value


def replay_in(kernels, replay: ReplayScript, world, rng, steps: list | None = None):
    """The state after replaying ``replay`` in a deal that dealt ``world``, and ``""``;
    or ``None`` and why it could not be replayed. ``steps``, when given, receives
    ``(mover, action, state after)`` of the deal (mover and action -1) and of each
    action replayed."""
    deal = np.empty(kernels.DEAL_SIZE, dtype=np.int64)
    if not kernels.deal_from_world(world, replay.template, rng, deal):
        return None, "the cards it shows played do not fit the hands"
    state = replay.start.copy()
    kernels.apply_deal(state, deal)
    if steps is not None:
        steps.append((-1, -1, state.copy()))
    actions = np.empty(kernels.MAX_ACTIONS, dtype=np.int64)
    history_action = getattr(kernels, "history_action", None)
    for mover, key in zip(replay.seats, replay.keys):
        if state[TO_MOVE] != mover:
            to_move = "nobody" if state[TO_MOVE] < 0 else f"seat {state[TO_MOVE]}"
            return None, f"seat {mover} moved where {to_move} was to"
        n = kernels.legal_actions(state, actions)
        action = key if history_action is None else history_action(world, state, key)
        if action not in actions[:n]:
            return None, f"seat {mover} made an action the rules did not allow there"
        kernels.apply_action(state, action)
        if steps is not None:
            steps.append((int(mover), int(action), state.copy()))
    return state, ""
