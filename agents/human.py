"""A person at the terminal as a player: ``slagwerk play G --human SEAT``.

:class:`HumanPlayer` is an agent whose decisions come from a person. It
shows what its seat can see, read from the seat's JSON view alone, so it
shows exactly what a bot would get (in Koetsieren your own forehead cards
are ``??``); it lists the legal actions numbered and accepts a number or the
action's notation, and it rejects anything else with a message and asks
again. Input and output streams are arguments, so a test can script a game.

>>> import io
>>> from slagwerk.engine import make_game
>>> state = make_game("coins").new_match(seed=1)
>>> out = io.StringIO()
>>> player = HumanPlayer(state.game, state.to_move, input=io.StringIO("Zz\\n3\\n"), output=out)
>>> player.act(state.view(state.to_move)) == state.legal_texts()[2]
True
>>> "'Zz' is not a legal action" in out.getvalue()
True
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..engine.game import Game, State
from ..engine.views import COMMON_KEYS
from ..errors import SlagwerkError
from .base import Agent, Decision

QUIT_WORDS = ("quit", "exit")
HELP_WORDS = ("help", "?")
HISTORY_WORDS = ("history",)
_WIDTH = 78


class HumanQuit(Exception):
    """The person chose to leave (``quit``) or the input ended."""


class HumanPlayer(Agent):
    """A seat played by a person through ``input`` and ``output`` (default: the terminal).

    Besides :meth:`act`, :meth:`observe` (an ``on_action`` callback for
    :func:`slagwerk.agents.match.play_match`) reports every action as this
    seat saw it, with trick and deal results, so nothing happens unseen.
    """

    name = "human"
    description = "a person at the terminal"

    def __init__(self, game: Game, seat: int, *, input: TextIO | None = None,  # noqa: A002
                 output: TextIO | None = None):
        super().__init__(game)
        if not 0 <= seat < game.n_players:
            raise SlagwerkError(f"seat {seat!r} is not a seat of {game.name} (0..{game.n_players - 1})")
        self.seat = seat
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self._shown = (0, 0)  # (deal number, history entries) already printed
        self._log = None  # the deal log observe() reports on, and its tricks reported
        self._tricks = 0
        self._legend_shown = False

    def __repr__(self):
        return f"human(seat {self.seat})"

    # ------------------------------------------------------------ deciding

    def decide(self, view: dict) -> Decision:
        legal = list(view.get("legal_actions") or [])
        if not legal:
            raise SlagwerkError(f"seat {self.seat} has nothing to do in this view")
        self._say("")
        if not self._legend_shown:  # once, before the first board: what the codes mean
            self._say("key to the cards ('help' shows it again):\n  " + "\n  ".join(self.game.legend()))
            self._legend_shown = True
        self._say(format_view(view))
        if self._log is None:  # observe() is not reporting every action as it happens
            self._show_new_history(view)
        self._say("your move:")
        self._say(numbered(legal))
        state = None
        while True:
            text = self._ask(f"seat {self.seat}, play (number or notation, 'help'): ")
            if not text:
                continue
            word = text.lower()
            if word in QUIT_WORDS and text not in legal:
                raise HumanQuit(f"the player at seat {self.seat} left the game")
            if word in HELP_WORDS:
                self._say(_HELP)
                self._say("\n".join(self.game.legend()))
                self._say(numbered(legal))
                continue
            if word in HISTORY_WORDS:
                self._say(format_history(view.get("history", [])) or "nothing has been played this deal")
                continue
            if state is None:
                state = self.game.state_from_view(view)
            choice = choose(text, legal, state, self.seat)
            if choice is not None:
                return Decision(choice)
            self._say(f"{text!r} is not a legal action: type a number 1..{len(legal)} "
                      f"or one of: {' '.join(legal)}")

    def _ask(self, prompt: str) -> str:
        self.output.write(prompt)
        self.output.flush()
        line = self.input.readline()
        if not line:
            self._say("")
            raise HumanQuit(f"the input of seat {self.seat} ended")
        return line.strip()

    def _say(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()

    def _show_new_history(self, view: dict) -> None:
        history = view.get("history", [])
        deal = view.get("deal_number", 0)
        start = self._shown[1] if self._shown[0] == deal else 0
        if history[start:]:
            label = "this deal so far" if start == 0 else "since your last move"
            self._say(f"{label}:")
            self._say(format_history(history[start:]))
        self._shown = (deal, len(history) + 1)  # +1: the action about to be chosen

    # ------------------------------------------------------------ watching

    def observe(self, state: State, seat: int, text: str) -> None:
        """Report the action just played (as this seat saw it) and any result."""
        log = state.deals[-1]
        seen = log.seen[-1][self.seat] if log.seen else text
        who = "you" if seat == self.seat else f"seat {seat}"
        line = f"  {who}: {seen}"
        tricks = len(log.trick_winners)
        if log is not self._log:  # a new deal
            self._log, self._tricks = log, 0
            self._say(f"deal {state.deal_number}, dealer seat {log.dealer}:")
        if tricks > self._tricks:
            winner = log.trick_winners[-1]
            line += "   -> trick to " + ("nobody" if winner is None else
                                         "you" if winner == self.seat else f"seat {winner}")
            self._tricks = tricks
        self._say(line)
        if log.points is not None:
            self._say(f"deal over: points {log.points}; totals {state.totals}")
            known = log.seen_by(self.seat, state.game.info.counting_reveals_actions)
            turned_up = [f"seat {s} {text}" for s, text, seen in zip(log.seats, known, log.seen)
                         if text != seen[self.seat]]
            if turned_up:
                self._say("turned up for the count: " + ", ".join(turned_up))
        if state.is_terminal:
            result = state.outcome[self.seat]
            verdict = {1: "you win", 0: "you lose"}.get(result, "a draw")
            self._say(f"match over: {verdict} (outcome {state.outcome}, totals {state.totals})")


_HELP = (
    "Type the number of an action, or the action as it is listed.\n"
    "'history' shows this deal's actions, 'quit' leaves the game."
)


def choose(text: str, legal: list[str], state: State | None = None, seat: int | None = None) -> str | None:
    """The legal action (in the seat's notation) that ``text`` names, or ``None``.

    ``text`` may be a number ``1..len(legal)``, an action as listed, the same
    ignoring case when that is unambiguous, or any notation the game accepts
    for a legal action (with ``state`` and ``seat``).

    >>> choose("2", ["Ao", "3c"]), choose("ao", ["Ao", "3c"]), choose("4b", ["Ao", "3c"])
    ('3c', 'Ao', None)
    """
    text = text.strip()
    if text.isdigit():
        index = int(text)
        return legal[index - 1] if 1 <= index <= len(legal) else None
    if text in legal:
        return text
    folded = [a for a in legal if a.lower() == text.lower()]
    if len(folded) == 1:
        return folded[0]
    if state is not None:
        try:
            action = state.game.parse_own_action(state, text)
        except SlagwerkError:
            return None
        answer = state.game.action_text(state, action, seat)
        return answer if answer in legal else None
    return None


def numbered(actions: list[str]) -> str:
    """``  1) Ao   2) 3c ...`` wrapped to the terminal width."""
    items = [f"{i}) {a}" for i, a in enumerate(actions, start=1)]
    width = max(len(item) for item in items) + 2
    per_line = max(1, _WIDTH // width)
    lines = []
    for start in range(0, len(items), per_line):
        lines.append("  " + "".join(item.ljust(width) for item in items[start : start + per_line]).rstrip())
    return "\n".join(lines)


def format_history(history: list) -> str:
    """Actions as ``seat 1: 2c, seat 2: 3c, ...`` wrapped to the terminal width."""
    parts = []
    for entry in history:
        if isinstance(entry, dict):
            parts.append(f"seat {entry.get('seat')}: {entry.get('action')}")
    return _wrap(", ".join(parts))


def format_view(view: dict) -> str:
    """A readable picture of a seat's view: only what the view holds, for any game."""
    n = len(view.get("totals", []))
    to_move = view.get("to_move")
    lines = [
        f"{view.get('game')}: deal {view.get('deal_number')}, dealer seat {view.get('dealer')}, "
        f"you are seat {view.get('seat')}" + ("" if to_move is None else f", seat {to_move} to move"),
        f"  totals {view.get('totals')}, this deal {view.get('deal_points')}, "
        f"tricks done {view.get('tricks_done')}, leader seat {view.get('leader')}",
    ]
    for key, value in view.items():
        if key in COMMON_KEYS:
            continue
        label = key.replace("_", " ")
        if isinstance(value, list) and len(value) == n and n and all(
            isinstance(v, (list, dict)) for v in value
        ):
            lines.append(f"  {label}:")
            for seat, item in enumerate(value):
                mark = " (you)" if seat == view.get("seat") else ""
                lines.append(f"    seat {seat}{mark}: {_format_value(item)}")
        else:
            lines.append(f"  {label}: {_format_value(value)}")
    return "\n".join(lines)


def _format_value(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict):
        return ", ".join(f"{k.replace('_', ' ')} {_format_value(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list):
        return " ".join(_format_value(v) for v in value) or "-"
    return str(value)


def _wrap(text: str) -> str:
    lines, current = [], "  "
    for word in text.split(" "):
        if len(current) + len(word) + 1 > _WIDTH and current.strip():
            lines.append(current.rstrip())
            current = "  "
        current += word + " "
    if current.strip():
        lines.append(current.rstrip())
    return "\n".join(lines)
