"""A worker that dies (a segfault, SIGKILL) costs the game it was playing a
forfeit by the agent to move; the run goes on, and a resumed run never plays
that game again (experiments/harness/runner.py ``run_games``)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from slagwerk.engine import make_game
from slagwerk.experiments.harness.runner import GameSetup, run_games
from slagwerk.experiments.harness.seating import schedule, tables_for


def _setup(crasher: str) -> tuple[GameSetup, list]:
    game = make_game("koetsieren", players=2)
    setup = GameSetup("koetsieren", (("players", 2),), ("random", "heuristic", crasher), unit="deal",
                      seed=3, plugins=("crash_agents",))
    tables = tables_for(3, game.n_players, False)
    return setup, schedule(tables, 6)


@pytest.mark.parametrize("crasher, cause", [("test-segfault", "SIGSEGV"), ("test-sigkill", "SIGKILL")])
def test_a_dying_worker_costs_its_game_a_forfeit_and_the_run_goes_on(crasher, cause):
    setup, slots = _setup(crasher)
    lines = list(run_games(setup, slots, jobs=2))
    assert sorted(line["index"] for line in lines) == [slot.index for slot in slots]  # every game, once
    crashed = [line for line in lines if line["forfeit"] is not None]
    with_crasher = [slot for slot in slots if 2 in slot.seats]
    assert len(crashed) == len(with_crasher) > 0
    for line in crashed:
        forfeit = line["forfeit"]
        assert forfeit["agent"] == crasher and line["agents"][forfeit["seat"]] == crasher
        assert "worker process died" in forfeit["error"] and cause in forfeit["error"]
        assert line["reward"][forfeit["seat"]] == 0.0
    played = [line for line in lines if line["forfeit"] is None]
    assert all(crasher not in line["agents"] for line in played)
    assert all(line["points"] is not None for line in played)


def test_a_tournament_with_a_crashing_agent_completes_and_resumes_without_replaying(tmp_path):
    from slagwerk.experiments.harness.tournament import TournamentConfig, run_tournament

    config = TournamentConfig("koetsieren", ("random", "heuristic", "test-sigkill"), deals=3, seed=2,
                              options=(("players", 2),), bootstrap=20)
    folder = tmp_path / "run"
    result = run_tournament(config, folder, jobs=2, progress=False, plugins=("crash_agents",))
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    assert result.games == len(lines) == len({line["index"] for line in lines})
    crashed = [line for line in lines if line["forfeit"] is not None]
    assert crashed and all(line["forfeit"]["agent"] == "test-sigkill" for line in crashed)
    before = (folder / "games.jsonl").read_bytes()
    again = run_tournament(None, folder, jobs=2, progress=False, resume=True, plugins=("crash_agents",))
    assert again.games == result.games
    assert (folder / "games.jsonl").read_bytes() == before  # nothing was played again


def test_an_agent_stuck_in_native_code_past_the_move_time_is_ended_and_forfeits():
    """The move-time alarm cannot reach native code that never returns; the
    worker's watchdog ends it and the game is a forfeit (experiments/harness/runner.py
    ``OVERRUN_FACTOR``)."""
    setup, slots = _setup("test-spin")
    setup = replace(setup, move_time=0.5)
    slots = [slot for slot in slots if 2 in slot.seats][:1]
    (line,) = run_games(setup, slots, jobs=2)
    assert line["forfeit"]["agent"] == "test-spin"
    assert "worker process died" in line["forfeit"]["error"]


def test_the_watchdog_is_armed_once_a_game_not_once_a_move(monkeypatch, tmp_path):
    """Arming faulthandler's watchdog starts a thread: a worker arms it for twice
    the overrun bound, arms it again only when less than one bound is left, and
    cancels it when the game ends, so that an idle worker is never ended."""
    from slagwerk.experiments.harness import runner

    calls = []
    monkeypatch.setattr(runner.faulthandler, "dump_traceback_later",
                        lambda seconds, **kwargs: calls.append(seconds))
    monkeypatch.setattr(runner.faulthandler, "cancel_dump_traceback_later", lambda: calls.append("cancel"))
    game = make_game("koetsieren", players=2)
    setup = GameSetup("koetsieren", (("players", 2),), ("random", "heuristic"), unit="deal", seed=3,
                      move_time=3.0)
    slot = schedule(tables_for(2, game.n_players, False), 1)[0]
    with open(tmp_path / "marker", "wb") as marker:
        line = runner.play_game(setup, slot, marker.fileno())
    bound = 3.0 * runner.OVERRUN_FACTOR + runner.OVERRUN_GRACE
    assert sum(line["decisions"]) > 10
    assert calls == [2 * bound, "cancel"]

    watch = runner._Watch(marker=1)
    times = [100.0, 100.0 + bound - 0.01, 100.0 + bound + 0.01]
    monkeypatch.setattr(runner.time, "monotonic", lambda: times.pop(0) if len(times) > 1 else times[0])
    calls.clear()
    for _ in range(3):
        watch.guard_move(3.0)
    assert calls == [2 * bound, 2 * bound]  # armed at 100, again once less than a bound was left
    watch.guard_move(None)  # a move without a limit must not be ended
    assert calls[-1] == "cancel" and watch.deadline is None
