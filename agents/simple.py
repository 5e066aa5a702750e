"""The random agent and the rule-based heuristic agent (any game)."""

from __future__ import annotations

from ..engine.bits import rand_below
from ..errors import InvalidViewError
from .base import Agent, Decision


class RandomAgent(Agent):
    """Plays a uniformly random legal action."""

    name = "random"
    description = "uniformly random legal action"

    def decide(self, view: dict) -> Decision:
        legal = view.get("legal_actions")
        if not legal:
            raise InvalidViewError("the view has no legal actions: this seat is not to move")
        rng = self.decision_rng(view)
        return Decision(legal[int(rand_below(rng, len(legal)))])


class HeuristicAgent(Agent):
    """The game's rule-based player (its ``heuristic_action`` kernel).

    The kernel reads only what the seat to move can see, so the hidden cards
    that :meth:`state_for` fills in at random never influence it.
    """

    name = "heuristic"
    description = "the game's documented rule-based player"

    def decide(self, view: dict) -> Decision:
        state = self.state_for(view)
        if state.to_move != view.get("seat"):
            raise InvalidViewError("the view's seat is not to move")
        action = int(state.game.kernels.heuristic_action(state.array, self.decision_rng(view)))
        return Decision(self.game.action_text(state, action, state.to_move))
