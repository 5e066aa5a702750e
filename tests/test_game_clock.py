"""A clock per seat and game (``--game-time``): a chess clock without increment.

Each seat's thinking time over one game (a deal, or a match with ``--unit
match``) is summed; a move that would overrun what is left is interrupted
like one that overruns ``--move-time``, and the seat loses the game by
forfeit, the reason in ``games.jsonl``. The tests only ever rely on time in
the safe direction: an agent that sleeps more than its whole clock must run
out, however slow the machine; one that answers at once never does.
"""

from __future__ import annotations

import json
import sys

import pytest
from registry_guard import own_registry  # noqa: F401 (autouse: every test here)

from paths import REPO
from slagwerk.agents import AGENTS, external
from slagwerk.cli import main
from slagwerk.experiments.harness.runner import GameSetup, play_game
from slagwerk.experiments.harness.seating import schedule
from slagwerk.experiments.harness.tournament import TournamentConfig, run_tournament

MISBEHAVING_BOT = REPO / "tests" / "misbehaving_bot.py"
SLOW = f"slow={sys.executable} {MISBEHAVING_BOT} slow 0.1"
"""A bot that answers the first legal action after 0.1 s: five moves overrun a 0.4 s clock."""
OUT_OF_TIME = "ran out of its time for the game"


def _games(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def test_a_seat_that_spends_its_clock_loses_each_game_and_the_tournament_goes_on(tmp_path):
    external.register_bots([SLOW])
    config = TournamentConfig("coins", ("slow", "random", "heuristic"), deals=1, seed=3,
                              move_time=30.0, game_time=0.4, bootstrap=10)
    result = run_tournament(config, tmp_path / "run", jobs=1, progress=False)
    lines = _games(tmp_path / "run")
    assert result.games == len(lines) > 0
    for line in lines:
        forfeit = line["forfeit"]
        if "slow" not in line["agents"]:
            assert forfeit is None
            continue
        assert forfeit is not None and forfeit["agent"] == "slow", line
        assert OUT_OF_TIME in forfeit["error"] and "(0.4 s)" in forfeit["error"]
        assert line["think"][forfeit["seat"]] < 0.4  # its answered moves stayed within the clock
    stored = json.loads((tmp_path / "run" / "config.json").read_text())
    assert stored["game_time"] == 0.4
    assert TournamentConfig.load(stored, "config.json").game_time == 0.4


def test_the_clock_interrupts_a_move_that_would_overrun_it():
    """No per-move limit at all: the clock alone ends a bot that never answers."""
    external.register_bots([f"hang={sys.executable} {MISBEHAVING_BOT} hang"])
    setup = GameSetup("coins", (), ("hang", "random"), "deal", 1, None, game_time=0.3)
    slot = schedule([(0, 1, 1)], 1)[0]
    line = play_game(setup, slot)
    assert line["forfeit"]["agent"] == "hang"
    assert OUT_OF_TIME in line["forfeit"]["error"] and "on its move 1" in line["forfeit"]["error"]


def test_a_fast_agent_never_runs_out():
    setup = GameSetup("kozel", (), ("heuristic", "random"), "match", 2, None, game_time=60.0)
    line = play_game(setup, schedule([(0, 1, 0, 1)], 1)[0])
    assert line["forfeit"] is None and line["deals"] >= 1


def test_the_clock_is_part_of_the_run_and_resume_keeps_it(tmp_path, capsys):
    folder = tmp_path / "run"
    common = ["--quiet", "--jobs", "1", "--json", "--bootstrap", "10"]
    assert main(["tournament", "--game", "coins", "--agents", "random", "heuristic", "--deals", "1",
                 "--results", str(folder), "--game-time", "20", *common]) == 0
    first = capsys.readouterr().out
    assert main(["tournament", "--resume", str(folder), "--game-time", "20", *common]) == 0
    assert capsys.readouterr().out == first
    assert main(["tournament", "--resume", str(folder), "--game-time", "5", *common]) == 2
    assert "--game-time 5.0 conflicts with 20.0 stored in" in capsys.readouterr().err
    plain = TournamentConfig("coins", ("random", "heuristic"))
    timed = TournamentConfig("coins", ("random", "heuristic"), game_time=20.0)
    assert plain.run_id() != timed.run_id()
    assert "game_time" not in json.dumps(plain.run_id())  # runs without a clock keep their old ids


@pytest.mark.parametrize("argv", [
    ["tournament", "--game", "coins", "--game-time", "0"],
    ["sprt", "random", "heuristic", "--game", "coins", "--game-time", "-1"],
    ["play", "coins", "--game-time", "0"],
])
def test_a_clock_that_is_not_positive_is_a_one_line_error(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert exit_.value.code == 2 and len(err) == 1
    assert "argument --game-time: must be a number above 0 and at most 604800 seconds" in err[0]


def test_sprt_and_play_keep_the_clock(capsys):
    assert main(["sprt", "slow", "random", "--game", "coins", "--max-groups", "1", "--jobs", "1",
                 "--json", "--game-time", "0.4", "--bot", SLOW]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["groups"] == 1 and result["losses"] == 1
    AGENTS.pop("slow")
    assert main(["play", "coins", "--agents", "slow", "random", "random", "--quiet",
                 "--game-time", "0.4", "--bot", SLOW]) == 1
    out = capsys.readouterr().out
    assert "seat 0 (slow) forfeits the match" in out and OUT_OF_TIME in out


def test_the_web_page_refuses_a_clock(capsys):
    assert main(["play", "coins", "--web", "--game-time", "10"]) == 2
    assert "do not go with --web" in capsys.readouterr().err



def test_tune_plays_its_evaluations_under_the_clock(tmp_path, capsys):
    """The opponent is a bot that spends its clock in two moves: the tuned agent wins every
    game of every evaluation by forfeit; the clock is stored with the run and checked
    on --resume."""
    folder = tmp_path / "tune"
    slow = f"slow={sys.executable} {MISBEHAVING_BOT} slow 0.1"
    common = ["--jobs", "1", "--quiet", "--json", "--bot", slow]
    assert main(["tune", "--game", "coins", "--agent", "ismcts", "--param", "iterations=10:30",
                 "--opponents", "slow", "--budget", "24", "--groups", "1", "--no-confirm",
                 "--results", str(folder), "--game-time", "0.15", *common]) == 0
    capsys.readouterr()
    evaluations = [json.loads(line) for line in (folder / "evaluations.jsonl").read_text().splitlines()]
    assert len(evaluations) == 8 and all(e["score"] == 1.0 for e in evaluations)
    assert json.loads((folder / "config.json").read_text())["game_time"] == 0.15
    AGENTS.pop("slow")
    assert main(["tune", "--resume", str(folder), "--game-time", "1", *common]) == 2
    assert "--game-time 1.0 conflicts with 0.15 stored in" in capsys.readouterr().err


def test_runs_without_a_clock_keep_their_stored_settings():
    """A tuning run without --game-time stores no game_time, so folders from before the clock
    keep their fingerprint and resume."""
    from slagwerk.experiments.tuning import TuneConfig

    config = TuneConfig("coins", "ismcts", ("iterations=10:30",), ("random",), budget=24)
    assert "game_time" not in config.dump()
    assert TuneConfig.load(config.dump(), "config.json") == config
    assert TuneConfig.load({**config.dump(), "game_time": 2.0}, "config.json").game_time == 2.0
