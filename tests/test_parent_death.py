"""Killing the harness ends its workers: a tournament's worker processes die
with the process that started them, even when it is killed with SIGKILL
(experiments/harness/runner.py ``_die_with_parent``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

RUN = """
from slagwerk.experiments.harness.runner import GameSetup, run_games
from slagwerk.experiments.harness.seating import schedule, tables_for
setup = GameSetup("coins", (), ("heuristic", "ismcts:iterations=20000", "random"), seed=1)
for line in run_games(setup, schedule(tables_for(3, 3, False), 400), jobs=2):
    print(line["index"], flush=True)
"""


def _descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc; Linux parent-death signal")
def test_sigkill_of_the_harness_ends_its_workers():
    harness = subprocess.Popen([sys.executable, "-c", RUN], stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(3):  # games are being played by the workers
            assert harness.stdout.readline()
        workers = _descendants(harness.pid)
        assert len(workers) >= 2
        os.kill(harness.pid, signal.SIGKILL)
        harness.wait(timeout=30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
            time.sleep(0.2)
        assert not [pid for pid in workers if _alive(pid)], "workers outlived the harness"
    finally:
        if harness.poll() is None:
            harness.kill()
