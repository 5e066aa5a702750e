"""Timing shared by the benchmarks: work per CPU second."""

from __future__ import annotations

import time


def timed_rate(step, seconds: float) -> float:
    """Units of work per CPU second: ``step(n)`` does n units, run for ~``seconds``.

    CPU time (``time.process_time``), not wall time, so that other processes
    sharing the machine slow the measurement as little as possible; the C
    twin is timed the same way (its child-process CPU time).
    """
    n = 1
    while True:  # grow the batch until one batch takes ~1/10 of the budget
        start = time.process_time()
        step(n)
        elapsed = time.process_time() - start
        if elapsed > seconds / 10 or n > 1 << 30:
            break
        n *= 4
    done, spent = 0, 0.0
    while spent < seconds:
        start = time.process_time()
        step(n)
        spent += time.process_time() - start
        done += n
    return done / spent
