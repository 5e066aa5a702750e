"""Regenerate the example exchanges of docs/protocol.md from a real ``slagwerk bot`` run.

    python docs/make_protocol_examples.py

For every game it reaches a position by seeded random play, sends the seat
to move's view to ``slagwerk bot`` and writes the request and the answer,
exactly as exchanged, between the markers in protocol.md.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from slagwerk.engine import GAME_NAMES, make_game

DOC = Path(__file__).with_name("protocol.md")
START, END = "<!-- examples:start -->", "<!-- examples:end -->"
AGENT = "ismcts:iterations=300"
# Actions of random play before the example position, per game: a trick in progress.
PLAYED = {"coins": 4, "koetsieren": 8, "kozel": 5, "aluette": 6}


def position(name: str):
    rnd = random.Random(2024)
    state = make_game(name).new_match(seed=2024)
    for _ in range(PLAYED.get(name, 4)):
        state.apply(rnd.choice(state.legal_actions()))
    return state


def readable(line: str) -> str:
    """One JSON object with a field per line (the 'view' too); on the wire it is one line."""
    obj = json.loads(line)
    parts = []
    for key, value in obj.items():
        if isinstance(value, dict) and key in ("view", "stats"):
            inner = ",\n".join(f"    {json.dumps(k)}: {json.dumps(v)}" for k, v in value.items())
            parts.append(f"  {json.dumps(key)}: {{\n{inner}\n  }}")
        else:
            parts.append(f"  {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(parts) + "\n}"


def main() -> int:
    bot = subprocess.Popen([sys.executable, "-m", "slagwerk", "bot"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, text=True, bufsize=1)
    sections = []
    for number, name in enumerate(GAME_NAMES, start=1):
        state = position(name)
        request = {"id": number, "type": "act", "game": name, "agent": AGENT,
                   "view": state.view(state.to_move), "stats": True}
        line = json.dumps(request)
        bot.stdin.write(line + "\n")
        bot.stdin.flush()
        answer = bot.stdout.readline().strip()
        if "error" in json.loads(answer):
            raise SystemExit(f"{name}: the bot refused the example: {answer}")
        sections.append(
            f"### {name}\n\nRequest:\n\n```json\n{readable(line)}\n```\n\n"
            f"Answer:\n\n```json\n{readable(answer)}\n```\n"
        )
    bot.stdin.write('{"id": 99, "type": "quit"}\n')
    bot.stdin.close()
    bot.wait()
    text = DOC.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(f"{head}{START}\n\n" + "\n".join(sections) + f"\n{END}{tail}", encoding="utf-8")
    print(f"wrote {len(sections)} examples to {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
