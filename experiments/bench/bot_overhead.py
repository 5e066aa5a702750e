"""The harness's overhead for an external bot: the same agent in-process and over stdio.

Both sides play the same rule (the first legal action) in the same games
through the tournament runner (:func:`~.runner.run_games`, one process, a
per-move limit as in tournaments): once as an in-process
:class:`~slagwerk.agents.base.Agent`, once as a bot program on standard input
and output (:mod:`slagwerk.agents.external`). The rule decides alike, so
both play exactly the same decisions, and the difference in time per game
over the decisions per game is the harness's cost of a decision asked of a
bot over a pipe: the request's JSON, the round trip and the bot's own JSON
work.

``overhead_ms_per_decision`` compares each game's shortest play time
(wall-clock) over its repetitions, the way ``timeit`` takes the best of its
runs: on a shared machine the other processes only ever add time, and taking
each game's minimum keeps their bursts out of the difference of two rates.
The rates are games per CPU second (the harness's and the bot process's CPU
time together, read from ``/proc`` on Linux; elsewhere the harness's only),
as the other benchmarks count; from them come ``cpu_overhead_ms_per_decision``
(both processes) and ``harness_ms_per_decision`` (the harness process alone,
without the bot's own JSON work), averages that a busy machine inflates.
"""

from __future__ import annotations

import shlex
import sys
import time

from ...agents.base import Agent, Decision
from ...agents.external import close, cpu_seconds, register_bots
from ...agents.registry import AGENTS
from ...engine import GAME_NAMES, make_game
from ..harness.runner import GameSetup, run_games
from ..harness.seating import schedule

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


class _Side:
    """One side's measurements: each game's shortest play time over its repetitions, and
    the CPU time (this process's and the bot's) and games of the whole side."""

    def __init__(self, bot: str | None):
        self.bot = bot
        self.best: dict[int, float] = {}
        self.games = 0
        self.cpu = self.harness_cpu = 0.0

    def play(self, setup: GameSetup, slots, seconds: float) -> None:
        """Play ``slots`` over and over for ``seconds``."""
        start, cpu = time.perf_counter(), time.process_time()
        bot_cpu = cpu_seconds(self.bot) if self.bot else None
        while time.perf_counter() - start < seconds:
            for line in run_games(setup, slots, jobs=1):
                self.best[line["index"]] = min(line["time"], self.best.get(line["index"], float("inf")))
                self.games += 1
        used = time.process_time() - cpu
        self.harness_cpu += used
        after = cpu_seconds(self.bot) if self.bot else None
        self.cpu += used + (after - bot_cpu if after is not None and bot_cpu is not None else 0.0)


def overhead_rows(games=None, seconds: float = 2.0, rounds: int = 3) -> list[dict]:
    """One row per game: games per CPU second in-process and over stdio, and the overhead
    per decision (the sides alternate ``rounds`` times)."""
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
            setups = {IN_PROCESS: GameSetup(name, (), (IN_PROCESS,), "deal", 1, 60.0, plugins=(), bots=()),
                      OVER_STDIO: GameSetup(name, (), (OVER_STDIO,), "deal", 1, 60.0, plugins=())}
            _FirstLegal.decisions = 0
            played = sum(1 for _ in run_games(setups[IN_PROCESS], slots, jobs=1))  # warm: compiled, started
            decisions = _FirstLegal.decisions / played
            sum(1 for _ in run_games(setups[OVER_STDIO], slots, jobs=1))
            sides = {IN_PROCESS: _Side(None), OVER_STDIO: _Side(OVER_STDIO)}
            for _ in range(rounds):
                for spec, side in sides.items():
                    side.play(setups[spec], slots, seconds / rounds)
            inside, outside = sides[IN_PROCESS], sides[OVER_STDIO]
            best = {side: sum(side.best.values()) / (len(side.best) * decisions)
                    for side in (inside, outside)}
            rows.append({"game": name, "benchmark": "bot_harness_overhead", "implementation": "stdio",
                         "per_second": round(outside.games / outside.cpu, 1),
                         "in_process_per_second": round(inside.games / inside.cpu, 1),
                         "decisions_per_game": round(decisions, 1),
                         "overhead_ms_per_decision": _ms(best[outside] - best[inside]),
                         "cpu_overhead_ms_per_decision": _ms((outside.cpu / outside.games
                                                              - inside.cpu / inside.games) / decisions),
                         "harness_ms_per_decision": _ms((outside.harness_cpu / outside.games
                                                         - inside.harness_cpu / inside.games) / decisions)})
    finally:
        close(OVER_STDIO)
        for name, cls in saved.items():
            if cls is None:
                AGENTS.pop(name, None)
            else:
                AGENTS[name] = cls
    return rows


def _ms(seconds: float) -> float:
    return round(1000.0 * seconds, 4)
