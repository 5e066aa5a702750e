"""Local workers (experiments/harness/runner.py): on Linux they are forked from the
harness after it has loaded the game's kernels; elsewhere (and with
``SLAGWERK_WORKERS=loky``) joblib's loky starts fresh interpreters. Both play
the same games as one process, and Ctrl-C ends a run of either at once,
keeping every finished game and leaving no worker behind. A forked child
never talks to its parent's bot processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from registry_guard import own_registry  # noqa: F401 (autouse: bots registered here are removed)

from paths import REPO
from slagwerk.agents import external, make
from slagwerk.engine import make_game
from slagwerk.experiments.harness import runner
from slagwerk.experiments.harness.runner import GameSetup, run_games
from slagwerk.experiments.harness.seating import schedule, tables_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="Linux only: forked workers, /proc")


def _setup():
    setup = GameSetup("coins", (), ("random", "heuristic", "ismcts:iterations=50"), unit="deal", seed=4)
    return setup, schedule(tables_for(3, 3, False), 4)


def _games(lines):
    return sorted((line["index"], line["agents"], line["reward"], line["points"]) for line in lines)


@pytest.mark.parametrize("workers", ["fork", "loky"])
def test_workers_play_the_same_games_as_one_process(workers, monkeypatch):
    if workers == "loky":
        monkeypatch.setenv("SLAGWERK_WORKERS", "loky")
    else:
        monkeypatch.delenv("SLAGWERK_WORKERS", raising=False)
    setup, slots = _setup()
    assert runner._can_fork() == (workers == "fork")
    alone = _games(run_games(setup, slots, jobs=1))
    assert _games(run_games(setup, slots, jobs=2)) == alone
    assert len(alone) == len(slots)


def test_forked_workers_are_kept_while_the_registered_games_stay_the_same(monkeypatch):
    monkeypatch.delenv("SLAGWERK_WORKERS", raising=False)
    setup, slots = _setup()
    list(run_games(setup, slots[:2], jobs=2))
    pool = runner._POOL["pool"]
    list(run_games(setup, slots[2:4], jobs=2))
    assert runner._POOL["pool"] is pool
    monkeypatch.setattr("slagwerk.engine.registry.game_names", lambda: ("coins",))
    list(run_games(setup, slots[:2], jobs=2))
    assert runner._POOL["pool"] is not pool  # a worker must know every game registered here


def _children(pid: int) -> set[int]:
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
            found |= {int(p) for p in fh.read().split()}
    return found


@pytest.mark.parametrize("workers, stop", [("fork", signal.SIGINT), ("loky", signal.SIGINT),
                                           ("fork", signal.SIGTERM)])
def test_ctrl_c_or_sigterm_ends_a_two_worker_tournament_at_once_and_keeps_its_games(workers, stop,
                                                                                     tmp_path):
    """Ctrl-C, or a SIGTERM (a kill, a batch system's time limit), stops a tournament at once:
    every finished game kept, the way to continue said, no worker left."""
    env = dict(os.environ)
    env.pop("SLAGWERK_WORKERS", None)
    if workers == "loky":
        env["SLAGWERK_WORKERS"] = "loky"
    folder = tmp_path / "run"
    command = [sys.executable, "-m", "slagwerk", "tournament", "--game", "coins", "--agents", "random",
               "heuristic", "ismcts", "--deals", "400", "--jobs", "2", "--seed", "1", "--quiet",
               "--results", str(folder)]
    # A suite run in the background inherits SIGINT ignored: give the harness a terminal's Ctrl-C.
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    games = folder / "games.jsonl"
    deadline = time.monotonic() + 120
    while not (games.exists() and len(games.read_text().splitlines()) >= 6):
        assert process.poll() is None and time.monotonic() < deadline, process.communicate()
        time.sleep(0.2)
    workers_seen = _children(process.pid)
    assert workers_seen
    process.send_signal(stop)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + stop and "--resume" in err and "Traceback" not in err, err
    assert err.rstrip().endswith("interrupted" if stop == signal.SIGINT else "terminated"), err
    lines = [json.loads(line) for line in games.read_text().splitlines()]
    assert 6 <= len(lines) < 1200 and len({line["index"] for line in lines}) == len(lines)
    deadline = time.monotonic() + 20  # a worker or loky's resource tracker may be slow to go
    while [pid for pid in workers_seen if _running(pid)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers_seen if _running(pid)]


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def _bot_in_child() -> tuple[list[str], int, bool]:
    """In a forked child: the connections it inherited, and a decision of its own."""
    inherited = list(external._CLIENTS)
    game = make_game("coins")
    state = game.new_match(seed=2)
    action = make("prog", game).act(state.view(state.to_move))
    return inherited, external._CLIENTS["prog"].proc.pid, action in state.view(state.to_move)["legal_actions"]


def test_a_forked_child_starts_its_own_bot_and_leaves_the_parents_connection_working():
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    external.register_bots([f"prog={sys.executable} {REPO / 'docs' / 'examples' / 'minimal_bot.py'}"])
    game = make_game("coins")
    state = game.new_match(seed=1)
    agent = make("prog", game)
    agent.act(state.view(state.to_move))
    parent_bot = external._CLIENTS["prog"].proc.pid
    with ProcessPoolExecutor(1, mp_context=get_context("fork")) as pool:
        inherited, child_bot, legal = pool.submit(_bot_in_child).result()
    assert inherited == [] and legal and child_bot != parent_bot
    assert external._CLIENTS["prog"].proc.pid == parent_bot
    view = state.view(state.to_move)
    assert agent.act(view) in view["legal_actions"]  # its pipes are still this process's
