"""Time limits hold inside a search (slagwerk.search.deadline): a time budget,
a move-time alarm, Ctrl-C and SIGTERM stop a running search kernel within a
few hundred iterations, not when it would have finished.

Each scenario runs in a fresh process with a hard timeout, so that a search
that did not stop fails the test rather than hanging it. The slack allowed is
generous (a shared two-core machine): 1.5 s over the limit, where a search of
10^9 iterations that ignored the limit would take over an hour.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys

import pytest

SLACK = 5  # a search that ignored its budget would run for hours

SCENARIO = r"""
import json, os, signal, sys, time
from slagwerk.agents import make
from slagwerk.engine import make_game
from slagwerk.search.ismcts import ismcts
from slagwerk.search.pimc import pimc

game = make_game(sys.argv[1])
state = game.new_match(seed=3)
while state.legal_actions() and len(state.legal_actions()) < 2:
    state.apply(state.legal_actions()[0])
kind = sys.argv[2]
if kind.startswith("pimc"):
    pimc(state, worlds=1, iterations_per_world=1, seed=1)  # compile or load before the clock
else:
    ismcts(state, iterations=1, seed=1)
out = {}
start = time.perf_counter()
if kind == "time":
    out["iterations"] = ismcts(state, time_ms=100, seed=1).iterations
elif kind == "pimc-time":
    out["iterations"] = pimc(state, time_ms=100, iterations_per_world=10**9, seed=1).iterations
elif kind in ("alarm", "sigint", "sigterm"):
    class Stop(Exception):
        pass
    def on_signal(signum, frame):
        raise Stop
    signum = {"alarm": signal.SIGALRM, "sigint": signal.SIGINT, "sigterm": signal.SIGTERM}[kind]
    # Python's own Ctrl-C handler (a background shell may have started us ignoring SIGINT)
    signal.signal(signum, signal.default_int_handler if kind == "sigint" else on_signal)
    if kind == "alarm":
        signal.setitimer(signal.ITIMER_REAL, 0.1)
    else:
        pid = os.getpid()
        signal.signal(signal.SIGALRM, lambda *a: os.kill(pid, signum))
        signal.setitimer(signal.ITIMER_REAL, 0.1)
    try:
        ismcts(state, iterations=10**9, seed=1)
        out["stopped_by"] = "nothing"
    except (Stop, KeyboardInterrupt) as err:
        out["stopped_by"] = type(err).__name__
out["seconds"] = time.perf_counter() - start
print(json.dumps(out))
"""


def _run(game: str, kind: str) -> dict:
    done = subprocess.run([sys.executable, "-c", SCENARIO, game, kind], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("game", ["coins", "kozel"])
def test_a_time_budget_holds_inside_the_kernel(game):
    out = _run(game, "time")
    assert out["iterations"] > 0
    assert 0.1 <= out["seconds"] < 0.1 + SLACK


def test_pimc_time_budget_holds_inside_one_long_world():
    """One world of 10^9 iterations is cut at the deadline too."""
    out = _run("aluette", "pimc-time")
    assert 0.1 <= out["seconds"] < 0.1 + SLACK


@pytest.mark.parametrize("kind, raised", [("alarm", "Stop"), ("sigint", "KeyboardInterrupt"),
                                          ("sigterm", "Stop")])
def test_signals_stop_a_search_of_a_billion_iterations(kind, raised):
    """The harness's move-time alarm, Ctrl-C and SIGTERM reach their handlers
    promptly during a search that would run for over an hour."""
    out = _run("coins", kind)
    assert out["stopped_by"] == raised
    assert out["seconds"] < 0.1 + SLACK


RAISING_HANDLER = r"""
import signal, time
import numpy as np
from numba import njit
from slagwerk.search.deadline import NO_DEADLINE, expired

@njit
def spin(stop):
    n = 0
    while not expired(NO_DEADLINE, stop):
        n += 1
    return n

class Alarm(Exception):
    pass

def alarm(signum, frame):
    raise Alarm("from the handler")

spin(np.ones(1, np.int64))  # compile before the alarm is set
signal.signal(signal.SIGALRM, alarm)
signal.setitimer(signal.ITIMER_REAL, 0.2)
start = time.perf_counter()
try:
    spin(np.zeros(1, np.int64))
except Alarm as err:
    print("raised", err, round(time.perf_counter() - start, 2))
"""


@pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="needs signal.setitimer (POSIX)")
def test_a_handler_that_raises_ends_the_kernel_with_its_exception():
    """Outside ``interruptible`` a kernel looking at the clock still runs Python's
    signal handlers, and an exception one raises leaves the kernel as itself."""
    done = subprocess.run([sys.executable, "-c", RAISING_HANDLER], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    words = done.stdout.split()
    assert words[:3] == ["raised", "from", "the"], done.stdout
    assert float(words[-1]) < 0.2 + SLACK
