"""A small client of the slagwerk bot protocol (docs/protocol.md).

It starts ``slagwerk bot``, asks ``hello``, then plays one Coins match in
which every seat asks the bot for its move: the client keeps the game (here
with slagwerk's own engine, standing in for any program's), sends the view of
the seat to move, and plays the answer.

    python docs/example_client.py --agent heuristic --target 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from slagwerk.engine import make_game
from slagwerk.engine.bits import make_rng


class Bot:
    """One bot process; :meth:`request` sends a request and returns its answer."""

    def __init__(self, command: list[str]):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)
        self.last_id = 0

    def request(self, **fields) -> dict:
        self.last_id += 1
        self.process.stdin.write(json.dumps({"id": self.last_id, **fields}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if answer["id"] != self.last_id:
            raise RuntimeError(f"answer to request {answer['id']}, expected {self.last_id}")
        if "error" in answer:
            raise RuntimeError(f"the bot refused request {self.last_id}: {answer['error']}")
        return answer

    def close(self) -> int:
        self.request(type="quit")
        return self.process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="heuristic", help="agent spec for every seat")
    parser.add_argument("--target", type=int, default=5, help="Coins target")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    bot = Bot([sys.executable, "-m", "slagwerk", "bot"])
    hello = bot.request(type="hello")
    print(f"{hello['protocol']} v{hello['version']}: games {', '.join(hello['games'])}; "
          f"agents {', '.join(hello['agents'])}")

    game = make_game("coins", target=args.target)
    state = game.new_match()
    deals = make_rng(args.seed)
    while not state.is_terminal:
        if state.deal_pending:
            state.deal(rng=deals)
            continue
        seat = state.to_move
        answer = bot.request(type="act", game="coins", agent=args.agent, view=state.view(seat),
                             seed=args.seed)
        state.apply(answer["action"])
        print(f"seat {seat} plays {answer['action']}")
    print(f"totals {state.totals}, outcome {state.outcome}")
    return bot.close()


if __name__ == "__main__":
    sys.exit(main())
