"""The harness's overhead for an external bot: the same agent in-process and over stdio.

Both sides play the same rule (the first legal action) in the same games
through the tournament runner (:func:`~.runner.run_games`, one process, a
per-move limit as in tournaments): once as an in-process
:class:`~slagwerk.agents.base.Agent`, once as a bot program on standard input
and output (:mod:`slagwerk.agents.external`). The rule decides alike, so
both play exactly the same decisions, and the difference in time per game
over the decisions per game is the harness's cost of a decision asked of a
bot over a pipe: the request's JSON, the round trip and the bot's own JSON
work. The rates are games per CPU second (the harness's and the bot
process's CPU time together, read from ``/proc`` on Linux; elsewhere the
harness's only), as the other benchmarks count; the overhead per decision is
reported in milliseconds of CPU time (``overhead``: both processes;
``harness``: the harness process alone, without the bot's own JSON work) and
of wall-clock time, which on a busy machine also holds the time the bot
waits to be scheduled.
"""

from __future__ import annotations

import shlex
import sys
import time

from ..agents.base import Agent, Decision
from ..agents.external import close, cpu_seconds, register_bots
from ..agents.registry import AGENTS
from ..engine import GAME_NAMES, make_game
from .runner import GameSetup, run_games
from .seating import schedule

IN_PROCESS = "bench-first-legal"
OVER_STDIO = "bench-first-legal-stdio"
GROUPS = 8
"""Duplicate groups of one table (the agent in every seat) played per pass."""
BOT_SOURCE = """
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request.get("type") == "hello":
        answer = {"protocol": "slagwerk-bot", "version": 1, "games": GAMES,
                  "agents": {"first-legal": {"params": {}}}}
    else:
        answer = {"action": request["view"]["legal_actions"][0]}
    answer["id"] = request.get("id")
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""
"""The bot program: plain Python, the same rule as :class:`_FirstLegal`."""


class _FirstLegal(Agent):
    name = IN_PROCESS
    description = "the first legal action (the bench's in-process side)"
    decisions = 0

    def decide(self, view: dict) -> Decision:
        type(self).decisions += 1
        return Decision(view["legal_actions"][0])


def _measure(setup: GameSetup, slots, seconds: float, bot: str | None) -> tuple[float, float, float]:
    """Games per wall-clock second, per CPU second (this process's and, for ``bot``,
    the bot process's) and per CPU second of this process alone, playing
    ``slots`` over and over for ``seconds``."""
    games = 0
    start, cpu = time.perf_counter(), time.process_time()
    bot_cpu = cpu_seconds(bot) if bot else 0.0
    while True:
        games += sum(1 for _ in run_games(setup, slots, jobs=1))
        wall = time.perf_counter() - start
        if wall >= seconds:
            used = harness = time.process_time() - cpu
            if bot:
                after = cpu_seconds(bot)
                used += (after - bot_cpu) if after is not None and bot_cpu is not None else 0.0
            return games / wall, games / used, games / harness


def overhead_rows(games=None, seconds: float = 2.0, rounds: int = 3) -> list[dict]:
    """One row per game: games per second in-process and over stdio, and the overhead
    per decision (the best of ``rounds`` alternating measurements of each side)."""
    games = list(games or GAME_NAMES)
    source = BOT_SOURCE.replace("GAMES", repr(dict.fromkeys(GAME_NAMES, {})))
    saved = {name: AGENTS.get(name) for name in (IN_PROCESS, OVER_STDIO)}
    AGENTS[IN_PROCESS] = _FirstLegal
    rows = []
    try:
        register_bots([f"{OVER_STDIO}={shlex.join([sys.executable, '-c', source])}"])
        for name in games:
            n = make_game(name).n_players
            slots = schedule([(0,) * n], GROUPS)
            sides = {IN_PROCESS: GameSetup(name, (), (IN_PROCESS,), "deal", 1, 60.0, plugins=(), bots=()),
                     OVER_STDIO: GameSetup(name, (), (OVER_STDIO,), "deal", 1, 60.0, plugins=())}
            _FirstLegal.decisions = 0
            played = sum(1 for _ in run_games(sides[IN_PROCESS], slots, jobs=1))  # warm: compiled, started
            per_game = _FirstLegal.decisions / played
            sum(1 for _ in run_games(sides[OVER_STDIO], slots, jobs=1))
            wall, cpu, harness = ({spec: 0.0 for spec in sides} for _ in range(3))
            for _ in range(rounds):
                for spec, setup in sides.items():
                    rate = _measure(setup, slots, seconds / rounds, spec if spec == OVER_STDIO else None)
                    wall[spec], cpu[spec] = max(wall[spec], rate[0]), max(cpu[spec], rate[1])
                    harness[spec] = max(harness[spec], rate[2])
            rows.append({"game": name, "benchmark": "bot_harness_overhead", "implementation": "stdio",
                         "per_second": round(cpu[OVER_STDIO], 1),
                         "in_process_per_second": round(cpu[IN_PROCESS], 1),
                         "decisions_per_game": round(per_game, 1),
                         "overhead_ms_per_decision": _overhead_ms(cpu, per_game),
                         "harness_ms_per_decision": _overhead_ms(harness, per_game),
                         "wall_overhead_ms_per_decision": _overhead_ms(wall, per_game)})
    finally:
        close(OVER_STDIO)
        for name, cls in saved.items():
            if cls is None:
                AGENTS.pop(name, None)
            else:
                AGENTS[name] = cls
    return rows


def _overhead_ms(rates: dict, decisions_per_game: float) -> float:
    return round(1000.0 * (1.0 / rates[OVER_STDIO] - 1.0 / rates[IN_PROCESS]) / decisions_per_game, 4)
