"""The bot of ``minimal_bot.py`` as a slagwerk plugin: an Agent class that plays in-process.

Load it with ``--plugin docs/examples/plugin_bot.py`` (a file) or ``--plugin
plugin_bot`` (a module on the Python path), or declare it in your package's
``pyproject.toml`` so that every slagwerk command finds it once installed:

    [project.entry-points."slagwerk.agents"]
    first-legal = "plugin_bot:FirstLegalAgent"

Then ``first-legal`` works as any agent spec does:

    slagwerk tournament --game coins --plugin docs/examples/plugin_bot.py \\
        --agents first-legal:random_share=0.2 random heuristic --deals 50

An agent gets the view of the seat to move (never a card that seat cannot
see) and returns a legal action; it keeps no state between decisions, and
its randomness comes from its seed and the position only.
"""

import random

from slagwerk.agents import Agent, Decision, ParamSpec, register


@register
class FirstLegalAgent(Agent):
    """The first legal action, or with probability ``random_share`` a random one."""

    name = "first-legal"
    description = "the first legal action (a random one with probability random_share)"
    params = {
        "random_share": ParamSpec(float, 0.0, "how often to play a random legal action instead", 0.0, 1.0),
    }

    def decide(self, view: dict) -> Decision:
        legal = view["legal_actions"]
        # The same rule and random stream as minimal_bot.py, whose `seed` is this agent's seed.
        rng = random.Random(f"{self.seed}/{view['deal_number']}/{len(view['history'])}/{view['seat']}")
        share = self.config["random_share"]
        if share > 0 and rng.random() < share:
            return Decision(rng.choice(legal))
        return Decision(legal[0])
