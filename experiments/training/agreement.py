"""How often a network chooses what its teacher would, and how often the teacher agrees with itself.

    python -m slagwerk.experiments.training.agreement GAME [MODEL] [--iterations 200] [--steps 1500]

Positions come from random play (seeded); at each one with a choice, ISMCTS searches from the
seat's information as the teacher of ``slagwerk train --teacher ismcts`` does, and the network's
greedy choice is compared with the search's. Without a model, a second search with another seed
is compared instead: how much a network imitating the teacher can hope to agree. docs/learned.md
reports both.
"""

from __future__ import annotations

import argparse

import numpy as np

from ...agents.model import load_model
from ...engine import make_game
from ...envs.encoded import EncodedMatch
from ...search.network import forward
from .selfplay import search_targets


def agreement(game_name: str, model_path: str | None, iterations: int = 200, steps: int = 1500,
              seed: int = 99) -> tuple[float, int]:
    """``(share of decisions agreeing, decisions)`` over ``steps`` steps of random play."""
    match = EncodedMatch(game_name, seed=seed, reward="deal")
    rng = np.random.default_rng(seed)
    weights = None if model_path is None else load_model(model_path, make_game(game_name)).weights
    values = np.zeros(match.module.NUM_ACTIONS, np.float32)
    agreed = decisions = 0
    for _ in range(steps):
        seat = match.to_move
        legal = np.flatnonzero(match.mask())
        if len(legal) > 1:
            index_of = {int(a): int(i) for i, a in zip(legal, match.legal_actions()[legal])}
            teacher = search_targets(match.array, seat, index_of, match.module.NUM_ACTIONS, iterations,
                                     int(rng.integers(1 << 62)), None)[3]
            if weights is None:
                other = search_targets(match.array, seat, index_of, match.module.NUM_ACTIONS, iterations,
                                       int(rng.integers(1 << 62)), None)[3]
            else:
                forward(match.observe(seat), *weights, values)
                other = int(legal[np.argmax(values[legal])])
            agreed += other == teacher
            decisions += 1
        match.step(int(rng.choice(legal)))
        if match.is_over:
            match.reset()
    return agreed / max(decisions, 1), decisions


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m slagwerk.experiments.training.agreement",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("game")
    parser.add_argument("model", nargs="?", help="a model file (default: the teacher against itself)")
    parser.add_argument("--iterations", type=int, default=200, help="the teacher's iterations")
    parser.add_argument("--steps", type=int, default=1500, help="steps of random play")
    parser.add_argument("--seed", type=int, default=99)
    args = parser.parse_args(argv)
    share, decisions = agreement(args.game, args.model, args.iterations, args.steps, args.seed)
    who = f"the network {args.model}" if args.model else "a second search (another seed)"
    print(f"{args.game}: {who} chose the ISMCTS({args.iterations}) teacher's move in {share:.0%} of "
          f"{decisions} decisions")


if __name__ == "__main__":
    main()
